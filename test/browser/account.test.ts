/**
 * The Account page and deleting an account in Chromium, against a real server, on SQLite and
 * PostgreSQL, at phone (390 px) and desktop (1280 px) width, in Spanish and English: the page,
 * choosing a language with its form, the deletion page (ready to delete, asking to confirm it is
 * you, refused while a consultation is coming), typing the address and deleting, the page after.
 * axe-core finds nothing and nothing overflows sideways on any of them; screenshots of each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, madridDate, slotBody } from '../support/booking.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE } from '../support/browser.ts';
import { addSessionCookie, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { GOOD_CARD } from '../payments/support.ts';

const unavailable = browserUnavailable();
const VIEWPORTS = [
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const;

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`Account page and deletion in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let clock: ManualClock;
    let site: string;
    let lawyerId: string;
    let n = 0;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      clock = new ManualClock(Date.now());
      server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000 }), { clock });
      [lawyerId] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Nadia El Amrani', weekly_hours: EVERY_DAY_9_TO_14 })], new Date())) as [string];
      server.app.services.directoryCache.invalidate();
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await db?.drop();
    });

    /** A person signed in just now (a fresh session, as a completed email sign-in leaves it). */
    async function person(lang: 'es' | 'en') {
      const email = `cuenta-${++n}-${target.name}@example.com`;
      const user = await server.app.services.accounts.ensureUser(email);
      await server.app.services.sessions.setLocale(user.id, lang);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      return { userId: user.id, email, token: session.token };
    }

    async function open(token: string, viewport: { width: number; height: number }, lang: 'es' | 'en'): Promise<{ page: Page; close(): Promise<void> }> {
      const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
      await addSessionCookie(context, site, token);
      const page = await context.newPage();
      return { page, close: () => context.close() };
    }

    for (const lang of ['es', 'en'] as const) {
      for (const [label, viewport] of VIEWPORTS) {
        it(`the Account page, the deletion page and deleting (${lang}, ${label})`, async () => {
          const me = await person(lang);
          const { page, close } = await open(me.token, viewport, lang);
          const problems: string[] = [];
          // The wrong address is answered 400 on purpose; any other failed load or console error
          // (the CSP reports blocked inline code there) is a problem.
          page.on('console', (m) => {
            if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
          });
          page.on('response', (r) => {
            if (r.request().resourceType() !== 'document' && r.status() >= 400) problems.push(`${r.url()} answered ${r.status()}`);
          });
          try {
            await page.goto(`${site}/account`);
            assert.equal(await page.getAttribute('html', 'lang'), lang);
            await page.getByRole('heading', { level: 1, name: lang === 'es' ? 'Cuenta' : 'Account' }).waitFor();
            problems.push(...(await pageProblems(page, `account ${lang} ${label}`)));
            await screenshot(page, `account-${lang}-${label}`);

            await page.getByRole('link', { name: lang === 'es' ? 'Borrar mi cuenta…' : 'Delete my account…' }).click();
            await page.waitForURL(`${site}/account/delete`);
            problems.push(...(await pageProblems(page, `delete ${lang} ${label}`)));
            await screenshot(page, `account-delete-${lang}-${label}`);

            // A slip first: the field says what to type, the account stays.
            const field = page.getByLabel(lang === 'es' ? /Escribe tu correo electrónico para confirmar/ : /Type your email address to confirm/);
            await field.fill(`x${me.email}`);
            await page.getByRole('button', { name: lang === 'es' ? 'Borrar mi cuenta definitivamente' : 'Delete my account for good' }).click();
            await page.waitForLoadState();
            assert.equal(await field.getAttribute('aria-invalid'), 'true');
            problems.push(...(await pageProblems(page, `delete (wrong address) ${lang} ${label}`)));
            if (label === 'phone') await screenshot(page, `account-delete-wrong-${lang}-${label}`);

            await field.fill(me.email);
            await page.getByRole('button', { name: lang === 'es' ? 'Borrar mi cuenta definitivamente' : 'Delete my account for good' }).click();
            await page.waitForURL(`${site}/account/deleted`);
            await page.getByRole('heading', { level: 1, name: lang === 'es' ? 'Tu cuenta está borrada' : 'Your account is deleted' }).waitFor();
            problems.push(...(await pageProblems(page, `deleted ${lang} ${label}`)));
            await screenshot(page, `account-deleted-${lang}-${label}`);
            const row = await server.database.db.selectFrom('users').select('email').where('id', '=', me.userId).executeTakeFirstOrThrow();
            assert.equal(row.email, `deleted:${me.userId}`);
            const confirmation = await server.database.db.selectFrom('mail_outbox').select('subject').where('recipient', '=', me.email).where('kind', '=', 'account_deleted').executeTakeFirstOrThrow();
            assert.equal(confirmation.subject, lang === 'es' ? 'Se ha borrado tu cuenta de Consulta' : 'Your Consulta account has been deleted');
          } finally {
            await close();
          }
          assert.deepEqual(problems, []);
        });
      }
    }

    it('choosing a language with the form: the page and the account switch to it', async () => {
      const me = await person('es');
      const { page, close } = await open(me.token, PHONE, 'es');
      try {
        await page.goto(`${site}/account`);
        await page.getByRole('combobox', { name: 'Idioma' }).selectOption('en');
        await page.getByRole('button', { name: 'Guardar idioma' }).click();
        await page.waitForURL(`${site}/account?saved=language`);
        assert.equal(await page.getAttribute('html', 'lang'), 'en');
        assert.match(await page.getByRole('status').innerText(), /Saved: the site and our emails to you are now in English/);
        assert.deepEqual(await pageProblems(page, 'language saved'), []);
        await screenshot(page, 'account-language-saved-en-phone');
        const row = await server.database.db.selectFrom('users').select('locale').where('id', '=', me.userId).executeTakeFirstOrThrow();
        assert.equal(row.locale, 'en');
      } finally {
        await close();
      }
    });

    it('asking to confirm it is you, and refused while a consultation is coming: both languages, both widths', async () => {
      const problems: string[] = [];
      const stale = await person('en');
      const booked = await person('en');
      // A consultation the day after tomorrow, paid: deletion must wait for it.
      const res = await server.app.fastify.inject({ method: 'POST', url: '/api/v1/bookings/initiate', payload: slotBody(lawyerId, madridDate(clock.now().getTime(), 2), '10'), remoteAddress: '198.51.100.77' });
      assert.equal(res.statusCode, 201, res.body);
      const token = new URL((res.json() as { confirmation_url: string }).confirmation_url).pathname.split('/').pop()!;
      assert.equal((await server.app.services.payments.payWithCard(token, booked.userId, GOOD_CARD)).kind, 'confirmed');
      clock.advance(11 * 60_000);
      const fresh = await server.app.services.sessions.create(booked.userId, { ip: '127.0.0.1' });
      for (const lang of ['es', 'en'] as const) {
        for (const [label, viewport] of VIEWPORTS) {
          for (const [name, tokenOf, expect] of [
            ['stale', stale.token, lang === 'es' ? /confirma primero tu identidad/ : /confirm it is you first/],
            ['blocked', fresh.token, lang === 'es' ? /Tienes 1 consulta que todavía no ha tenido lugar/ : /You have 1 consultation that has not taken place yet/],
          ] as const) {
            const { page, close } = await open(tokenOf, viewport, lang);
            try {
              await page.goto(`${site}/account/delete?lang=${lang}`);
              assert.match(await page.locator('main').innerText(), expect);
              assert.equal(await page.locator('form[action="/account/delete"]').count(), 0, `${name}: no deletion form`);
              problems.push(...(await pageProblems(page, `${name} ${lang} ${label}`)));
              await screenshot(page, `account-delete-${name}-${lang}-${label}`);
            } finally {
              await close();
            }
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
