/**
 * The firm pages in Chromium against a real server on http://localhost, on SQLite and PostgreSQL:
 * a person creates a firm and invites an administrator and a member through the forms; each
 * invitee opens the emailed link in a browser of their own, signs in with the emailed code, comes
 * back to the invitation and accepts; the administrator creates a firm key with an IP allow-list
 * on the keys pages, and the API refuses it from an address outside the list (`ip_not_allowed`);
 * the member, without keys:manage, gets the 403 page. axe-core on every firm page in English and
 * Spanish, nothing wider than a phone; screenshots for docs/dashboard.md.
 *
 * The journey runs on every database. The page sweep (some 50 pages through axe-core) checks
 * markup, which no database changes: it runs once, on the last target (PostgreSQL wherever it is
 * configured, as in CI). Run on both, the file ran past its per-file budget (then 600 s) in a busy CI rehearsal.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE } from '../support/browser.ts';
import { addSessionCookie, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { invitationToken, OPERATOR } from '../support/firms.ts';

const unavailable = browserUnavailable();

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`firm pages in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let site: string;
    let n = 0;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      // X-Forwarded-For is believed from loopback, so a test request can come "from" any address.
      server = await startServer(
        testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000, keyCacheTtlMs: 0, trustProxy: ['127.0.0.1'] }),
        { clock: new ManualClock(Date.now()) },
      );
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await db?.drop();
    });

    async function person(label: string): Promise<{ email: string; token: string; userId: string }> {
      const email = `${label}-${++n}-${target.name}@example.com`;
      const user = await server.app.services.accounts.ensureUser(email);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      return { email, token: session.token, userId: user.id };
    }

    async function tab(token: string | null, options: { viewport?: typeof PHONE; lang?: 'en' | 'es' } = {}): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: options.lang === 'es' ? 'es-ES' : 'en-GB' });
      if (token) await addSessionCookie(context, site, token);
      return { context, page: await context.newPage() };
    }

    /** Opens an invitation link signed out, signs in with the emailed code, accepts. */
    async function acceptInvitation(email: string): Promise<{ context: BrowserContext; page: Page }> {
      const token = await invitationToken(server.app, email);
      const { context, page } = await tab(null);
      await page.goto(`${site}/firms/invitations/${token}`);
      await page.waitForURL(/\/sign-in\?return_to=/);
      await page.getByLabel('Email address').fill(email);
      await page.getByRole('button', { name: 'Send me a code' }).click();
      await page.waitForURL(/\/sign-in\/code/);
      const code = /\b(\d{6})\b/.exec((await server.app.services.mail.last(email))?.text ?? '')![1]!;
      await page.getByLabel('6-digit code').fill(code);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL(new RegExp(`/firms/invitations/${token}$`));
      await page.getByRole('button', { name: 'Accept and join' }).click();
      await page.waitForURL(/\?done=joined/);
      assert.match(await page.locator('main').innerText(), /Welcome to/);
      return { context, page };
    }

    it('create a firm, invite an admin and a member who accept; an allow-listed firm key is refused outside its list; the member gets 403 on keys', async () => {
      const owner = await person('owner');
      const slug = `bufete-${target.name}`;
      const adminEmail = `admin-${target.name}@example.com`;
      const memberEmail = `member-${target.name}@example.com`;
      const { context, page } = await tab(owner.token);
      const contexts: BrowserContext[] = [context];
      try {
        await page.goto(`${site}/firms`);
        await page.getByLabel('Name of the firm').fill('Bufete Sol');
        await page.getByLabel('Short name for addresses').fill(slug);
        await page.getByRole('button', { name: 'Create firm' }).click();
        await page.waitForURL(new RegExp(`/firms/${slug}\\?done=created`));
        assert.match(await page.locator('main').innerText(), /you are its owner/);

        await page.getByRole('navigation', { name: 'Firm' }).getByRole('link', { name: 'Members' }).click();
        await page.getByLabel('Email address').fill(adminEmail);
        await page.getByLabel('Role', { exact: true }).selectOption('admin');
        await page.getByRole('button', { name: 'Send invitation' }).click();
        await page.waitForURL(/done=invited/);
        await page.getByLabel('Email address').fill(memberEmail);
        await page.getByRole('button', { name: 'Send invitation' }).click();
        await page.waitForURL(/done=invited/);
        const pending = await page.locator('.invitation-list').innerText();
        assert.ok(pending.includes(adminEmail) && pending.includes(memberEmail), 'both invitations pending');

        // The administrator accepts in a browser of their own, then creates an allow-listed key.
        const admin = await acceptInvitation(adminEmail);
        contexts.push(admin.context);
        await admin.page.goto(`${site}/firms/${slug}/keys`);
        await admin.page.getByRole('link', { name: 'New key' }).click();
        await admin.page.getByLabel('Name', { exact: true }).fill('office');
        await admin.page.getByLabel('IP allow-list (optional)').fill('198.51.100.0/24');
        await admin.page.getByRole('button', { name: 'Create key' }).click();
        const secret = await admin.page.locator('#secret-value').inputValue();
        const call = (ip: string) => fetch(`${site}/api/v1/lawyers/search?limit=1`, { headers: { authorization: `Bearer ${secret}`, 'x-forwarded-for': ip } });
        assert.equal((await call('198.51.100.7')).status, 200);
        const refused = await call('203.0.113.9');
        assert.equal(refused.status, 403);
        assert.equal(((await refused.json()) as { code: string }).code, 'ip_not_allowed');

        // The member accepts; without keys:manage the firm's keys are a 403 page.
        const member = await acceptInvitation(memberEmail);
        contexts.push(member.context);
        const keys = await member.page.goto(`${site}/firms/${slug}/keys`);
        assert.equal(keys?.status(), 403);
        assert.match(await member.page.locator('main').innerText(), /You do not have permission for this/);

        const members = await server.app.services.accounts.listMembers(OPERATOR, slug);
        assert.deepEqual(members.map((m) => [m.email, m.role]), [[owner.email, 'owner'], [adminEmail, 'admin'], [memberEmail, 'member']]);
      } finally {
        for (const c of contexts) await c.close();
      }
    });

    it('every firm page passes axe-core in English and Spanish and fits a phone; screenshots', async () => {
      const owner = await person('a11y');
      const slug = `despacho-${target.name}`;
      const { accounts, keys } = server.app.services;
      await accounts.createFirm({ type: 'user', userId: owner.userId }, { slug, name: 'Despacho Ejemplo' });
      const admin = await person('a11y-admin');
      const member = await person('a11y-member');
      const stranger = await person('a11y-stranger');
      await accounts.addMember(OPERATOR, slug, admin.email, 'admin');
      await accounts.addMember(OPERATOR, slug, member.email, 'member', ['usage:read']);
      const leaver = await person('a11y-leaver');
      await accounts.addMember(OPERATOR, slug, leaver.email, 'member', ['keys:manage']);
      await keys.create({ type: 'user', userId: leaver.userId }, { firmSlug: slug }, { mode: 'live', name: 'zapier' });
      await accounts.removeMember({ type: 'user', userId: leaver.userId }, slug, leaver.email);

      // Pending invitations (through the form) and a link for the invitation pages.
      {
        const { context, page } = await tab(owner.token);
        await page.goto(`${site}/firms/${slug}/members`);
        for (const email of [`invited-${target.name}@example.com`, `closed-${target.name}@example.com`]) {
          await page.getByLabel('Email address').fill(email);
          await page.getByRole('button', { name: 'Send invitation' }).click();
          await page.waitForURL(/done=invited/);
        }
        await context.close();
      }
      const openToken = await invitationToken(server.app, `invited-${target.name}@example.com`);
      const invitedSession = await server.app.services.sessions.create((await accounts.ensureUser(`invited-${target.name}@example.com`)).id, { ip: '127.0.0.1' });
      const closedToken = await invitationToken(server.app, `closed-${target.name}@example.com`);
      const closedSession = await server.app.services.sessions.create((await accounts.ensureUser(`closed-${target.name}@example.com`)).id, { ip: '127.0.0.1' });
      {
        // The second invitation is revoked on the members page: its link shows "no longer works".
        const { context, page } = await tab(owner.token);
        await page.goto(`${site}/firms/${slug}/members`);
        await page.locator('.invitation-list li', { hasText: `closed-${target.name}@example.com` }).getByRole('button', { name: 'Revoke invitation' }).click();
        await page.waitForURL(/done=revoked/);
        await context.close();
      }

      const problems: string[] = [];
      for (const lang of ['en', 'es'] as const) {
        for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
          const shots = lang === 'en';
          const as = async (token: string, pages: Array<[string, string]>, after?: (page: Page) => Promise<void>) => {
            const { context, page } = await tab(token, { viewport, lang });
            try {
              for (const [path, name] of pages) {
                await page.goto(`${site}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
                problems.push(...(await pageProblems(page, `${name} ${lang} ${label}`)));
                if (shots) await screenshot(page, `firms-${name}-${label}`);
              }
              await after?.(page);
            } finally {
              await context.close();
            }
          };
          await as(owner.token, [
            ['/firms', 'list'],
            [`/firms/${slug}?done=created`, 'overview'],
            [`/firms/${slug}/members`, 'members'],
            [`/firms/${slug}/members/${member.userId}/remove`, 'remove'],
            [`/firms/${slug}/leave`, 'leave'],
          ], async (page) => {
            // Forms refused by the server (values the browser's own checks let through): a short
            // name that is taken, an address that is already a member.
            await page.goto(`${site}/firms?lang=${lang}`);
            await page.locator('#f-name').fill('Otro');
            await page.locator('#f-slug').fill(slug);
            await page.locator('form[action="/firms"] button[type="submit"]').click();
            await page.locator('#f-slug-error').waitFor();
            problems.push(...(await pageProblems(page, `create-errors ${lang} ${label}`)));
            if (shots) await screenshot(page, `firms-create-errors-${label}`);
            await page.goto(`${site}/firms/${slug}/members?lang=${lang}`);
            await page.locator('#f-email').fill(member.email);
            await page.locator(`form[action="/firms/${slug}/invitations"] button[type="submit"]`).click();
            await page.locator('#f-email-error').waitFor();
            problems.push(...(await pageProblems(page, `invite-errors ${lang} ${label}`)));
            if (shots) await screenshot(page, `firms-invite-errors-${label}`);
          });
          await as(member.token, [
            [`/firms/${slug}`, 'member-overview'],
            [`/firms/${slug}/members`, 'member-members'],
            [`/firms/${slug}/keys`, 'member-keys-403'],
          ]);
          await as(invitedSession.token, [[`/firms/invitations/${openToken}`, 'invitation']]);
          await as(stranger.token, [[`/firms/invitations/${openToken}`, 'invitation-wrong-account']]);
          await as(closedSession.token, [[`/firms/invitations/${closedToken}`, 'invitation-closed']]);
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
