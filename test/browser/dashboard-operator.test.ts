/**
 * The operator console in Chromium against a real server on http://localhost, on SQLite and
 * PostgreSQL: an operator whose session proved a passkey minutes ago finds a key, changes its
 * tier and suspends it (the API then refuses the key); an operator whose step-up is stale is
 * shown the step-up page instead and nothing changes. axe-core on every console page in English
 * and Spanish, nothing wider than a phone; screenshots (operator-*) for docs/dashboard.md.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE } from '../support/browser.ts';
import { addSessionCookie, makeOperator, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { givePasskey } from '../support/operator.ts';

const unavailable = browserUnavailable();

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`operator console in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let site: string;
    let n = 0;
    let lawyerId: string;
    const slug = `despacho-${target.name}`;
    let ownerEmail: string;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      server = await startServer(
        testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000, keyCacheTtlMs: 0 }),
        { clock: new ManualClock(Date.now()) },
      );
      lawyerId = (await insertLawyers(server.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz' }), lawyerRecord({ name: 'Jorge Oculto Pérez', verified: false })]))[0]!;
      server.app.services.directoryCache.invalidate();
      ownerEmail = `owner-${target.name}@example.com`;
      await server.app.services.accounts.createFirm({ type: 'operator' }, { slug, name: 'Despacho Ejemplo', ownerEmail });
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await db?.drop();
    });

    /** An operator with a passkey; `steppedUp`: the session proved it just now. */
    async function operator(steppedUp: boolean): Promise<{ email: string; token: string; userId: string }> {
      const email = `op-${++n}-${target.name}@example.com`;
      const user = await server.app.services.accounts.ensureUser(email);
      await makeOperator(server.database, user.id);
      await givePasskey(server.database, user.id, new Date().toISOString());
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1', passkey: steppedUp });
      return { email, token: session.token, userId: user.id };
    }

    async function firmKey(name: string) {
      const owner = await server.app.services.accounts.ensureUser(ownerEmail);
      return server.app.services.keys.create({ type: 'user', userId: owner.id }, { firmSlug: slug }, { mode: 'live', name });
    }

    async function tab(token: string, options: { viewport?: typeof PHONE; lang?: 'en' | 'es' } = {}): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: options.lang === 'es' ? 'es-ES' : 'en-GB' });
      await addSessionCookie(context, site, token);
      return { context, page: await context.newPage() };
    }

    const call = (key: string) => fetch(`${site}/api/v1/lawyers/search?limit=1`, { headers: { authorization: `Bearer ${key}` } });

    it('a stepped-up operator finds a key, changes its tier and suspends it; the API refuses the key', async () => {
      const me = await operator(true);
      const { key, token } = await firmKey('integration');
      assert.equal((await call(token)).headers.get('x-ratelimit-limit'), String(60 * 1000));
      const { context, page } = await tab(me.token);
      try {
        await page.goto(`${site}/operator`);
        await page.getByLabel('Email, key prefix or id, firm slug or name').fill(key.prefix);
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('link', { name: `${key.prefix}…` }).click();
        await page.getByLabel('Tier', { exact: true }).selectOption('partner');
        await page.getByRole('button', { name: 'Change tier' }).click();
        await page.waitForURL(/done=tier/);
        assert.match(await page.locator('main').innerText(), /Tier changed/);
        assert.equal((await call(token)).headers.get('x-ratelimit-limit'), String(300 * 1000));

        await page.getByLabel('Reason').fill('Scraping the directory');
        await page.getByRole('button', { name: 'Suspend the key' }).click();
        await page.waitForURL(/done=suspended/);
        const main = await page.locator('main').innerText();
        assert.match(main, /Suspended by the operator: Scraping the directory/);
        assert.match(main, /Suspended a key/, 'the key page shows the audit entry');
        const refused = await call(token);
        assert.equal(refused.status, 403);
        assert.equal(((await refused.json()) as { code: string }).code, 'api_key_suspended');

        await page.getByRole('link', { name: 'Audit log' }).click();
        const log = await page.locator('main').innerText();
        assert.ok(log.indexOf('Suspended a key') < log.indexOf('Changed a key’s tier'), 'newest first');
        assert.ok(log.includes(me.email));
      } finally {
        await context.close();
      }
    });

    it('an operator whose step-up is stale is shown the step-up page; nothing changes', async () => {
      const me = await operator(false);
      const { key } = await firmKey('untouched');
      const { context, page } = await tab(me.token, { viewport: PHONE });
      try {
        await page.goto(`${site}/operator/keys/${key.id}`);
        await page.getByLabel('Tier', { exact: true }).selectOption('internal');
        await page.getByRole('button', { name: 'Change tier' }).click();
        await page.waitForURL(/\/account\/passkeys\/step-up\?return_to=/);
        assert.equal(new URL(page.url()).searchParams.get('return_to'), `/operator/keys/${key.id}`);
        assert.match(await page.locator('main').innerText(), /Confirm it’s you/);
        await screenshot(page, 'operator-step-up-phone');
        assert.equal((await server.app.services.keys.get({ type: 'operator' }, key.id)).tier, 'free');
      } finally {
        await context.close();
      }
    });

    it('every console page passes axe-core in English and Spanish and fits a phone; screenshots', async () => {
      const me = await operator(true);
      const { key } = await firmKey('office');
      const by: Actor = { type: 'operator', by: { kind: 'user', userId: me.userId, email: me.email, requestId: null } };
      await server.app.services.keys.setTier(by, key.id, 'partner');
      await server.app.services.keys.suspend(by, key.id, 'Unusual traffic from several countries');
      const logged = await fetch(`${site}/api/v1/cities`, { headers: { authorization: `Bearer ${(await firmKey('reader')).token}` } });
      await server.app.services.requestLog.flush();
      const requestId = logged.headers.get('x-request-id')!;
      const owner = (await server.app.services.accounts.findUserByEmail(ownerEmail))!;
      const problems: string[] = [];
      for (const lang of ['en', 'es'] as const) {
        for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
          const { context, page } = await tab(me.token, { viewport, lang });
          try {
            const visit = async (path: string, name: string) => {
              await page.goto(`${site}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
              problems.push(...(await pageProblems(page, `${name} ${lang} ${label}`)));
              if (lang === 'en') await screenshot(page, `operator-${name}-${label}`);
            };
            await visit('/operator', 'home');
            await visit(`/operator?q=${encodeURIComponent('example.com')}`, 'search');
            await visit(`/operator/users/${owner.id}`, 'user');
            await visit(`/operator/firms/${slug}`, 'firm');
            await visit(`/operator/keys/${key.id}`, 'key');
            await visit('/operator/lawyers', 'lawyers');
            await visit(`/operator/lawyers/${lawyerId}`, 'lawyer');
            await visit('/operator/requests', 'requests');
            await visit('/operator/requests?request_id=not-an-id', 'requests-error');
            await visit(`/operator/requests/${requestId}`, 'request');
            await visit('/operator/audit', 'audit');
            // A form sent back with an error (an empty reason passes the browser's check only if forced).
            await page.goto(`${site}/operator/keys/${(await firmKey(`form-${lang}-${label}`)).key.id}?lang=${lang}`);
            await page.locator('#f-reason').evaluate((el) => el.removeAttribute('required'));
            await page.locator('#f-reason').fill('   ');
            await page.locator('form[action$="/suspend"] button[type="submit"]').click();
            await page.locator('#f-reason-error').waitFor();
            problems.push(...(await pageProblems(page, `key-error ${lang} ${label}`)));
            if (lang === 'en') await screenshot(page, `operator-key-error-${label}`);
          } finally {
            await context.close();
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
