/**
 * Moving then cancelling a consultation in Chromium, as the person would on a phone, against a
 * real server on SQLite and PostgreSQL: My consultations → Move → a time in the week strip → the
 * new time; → Cancel → the page says the refund before confirming → cancelled. axe-core finds
 * nothing and nothing overflows sideways; screenshots of the cancel and move pages at 390 and
 * 1280 px in Spanish and Arabic (right-to-left), kept in the temporary directory.
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

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`moving and cancelling a consultation in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let clock: ManualClock;
    let site: string;
    let lawyerId: string;
    let n = 0;
    let address = 0;

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

    /** A signed-in person in `lang` with a paid consultation at `hour`, `days` days ahead. */
    async function bookedPerson(lang: 'es' | 'ar', days: number, hour = '10') {
      const email = `cambio-${++n}-${target.name}@example.com`;
      const user = await server.app.services.accounts.ensureUser(email);
      await server.app.services.sessions.setLocale(user.id, lang);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      const date = madridDate(clock.now().getTime(), days);
      const res = await server.app.fastify.inject({ method: 'POST', url: '/api/v1/bookings/initiate', payload: slotBody(lawyerId, date, hour), remoteAddress: `198.51.100.${++address}` });
      assert.equal(res.statusCode, 201, res.body);
      const token = new URL((res.json() as { confirmation_url: string }).confirmation_url).pathname.split('/').pop()!;
      assert.equal((await server.app.services.payments.payWithCard(token, user.id, GOOD_CARD)).kind, 'confirmed');
      const c = await server.database.db.selectFrom('consultations').select('id').where('user_id', '=', user.id).executeTakeFirstOrThrow();
      return { token: session.token, date, id: c.id };
    }

    async function open(token: string, viewport: { width: number; height: number }, lang: 'es' | 'ar'): Promise<{ page: Page; close(): Promise<void> }> {
      const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar' });
      await addSessionCookie(context, site, token);
      const page = await context.newPage();
      return { page, close: () => context.close() };
    }

    it('on a phone, in Spanish: move it to another time, then cancel it (refunded), each page accessible', async () => {
      const me = await bookedPerson('es', 3);
      const { page, close } = await open(me.token, PHONE, 'es');
      const problems: string[] = [];
      try {
        await page.goto(`${site}/consultations`);
        await page.getByRole('link', { name: /^Cambiar hora/ }).click();
        await page.waitForURL(`${site}/consultations/${me.id}/move`);
        problems.push(...(await pageProblems(page, 'move')));
        await page.goto(`${site}/consultations/${me.id}/move?week=${me.date}&day=${me.date}`);
        await page.locator(`button[value="${me.date}|12:00:00|13:00:00"]`).click();
        // A confirmation step, like cancelling: nothing moves until "Sí, cambiarla".
        await page.waitForURL(`${site}/consultations/${me.id}/move?to=*`);
        assert.match(await page.locator('main').innerText(), /¿Cambiarla de .*10:00 a .*12:00\?/);
        problems.push(...(await pageProblems(page, 'move question')));
        await screenshot(page, 'consultation-move-confirm-es-phone');
        assert.equal((await server.database.db.selectFrom('consultations').select('start_time').where('id', '=', me.id).executeTakeFirstOrThrow()).start_time, '10:00:00');
        await page.getByRole('button', { name: 'Sí, cambiarla' }).click();
        await page.waitForURL(`${site}/consultations/${me.id}/move?done=1`);
        assert.match(await page.getByRole('status').innerText(), /Tu consulta tiene una hora nueva/);
        problems.push(...(await pageProblems(page, 'moved')));
        const row = await server.database.db.selectFrom('consultations').select(['start_time', 'status']).where('id', '=', me.id).executeTakeFirstOrThrow();
        assert.deepEqual([row.start_time, row.status], ['12:00:00', 'confirmed']);

        await page.goto(`${site}/consultations/${me.id}`);
        await page.getByRole('link', { name: /^Cancelar/ }).click();
        await page.waitForURL(`${site}/consultations/${me.id}/cancel`);
        // Said before confirming: the refund, in plain words.
        assert.match(await page.locator('main').innerText(), /Recuperas todo tu dinero: un reembolso de 60,00\s€/);
        problems.push(...(await pageProblems(page, 'cancel')));
        await page.getByRole('button', { name: 'Sí, cancelarla' }).click();
        await page.waitForURL(`${site}/consultations/${me.id}/cancel?done=1`);
        assert.match(await page.getByRole('status').innerText(), /Tu consulta está cancelada/);
        problems.push(...(await pageProblems(page, 'cancelled')));
        const after = await server.database.db.selectFrom('consultations').select('status').where('id', '=', me.id).executeTakeFirstOrThrow();
        assert.equal(after.status, 'cancelled_by_person');
        const refund = await server.database.db.selectFrom('consultation_refunds').select(['status', 'initiated_by']).where('consultation_id', '=', me.id).executeTakeFirstOrThrow();
        assert.deepEqual([refund.status, refund.initiated_by], ['succeeded', 'person']);
      } finally {
        await close();
      }
      assert.deepEqual(problems, []);
    });

    it('the cancel and move pages at 390 and 1280 px, in Spanish and Arabic: accessible, no sideways overflow', async () => {
      const problems: string[] = [];
      for (const lang of ['es', 'ar'] as const) {
        const me = await bookedPerson(lang, 4, lang === 'es' ? '10' : '11');
        for (const [label, viewport] of [['390', PHONE], ['1280', DESKTOP]] as const) {
          const { page, close } = await open(me.token, viewport, lang);
          try {
            await page.goto(`${site}/consultations/${me.id}/move?week=${me.date}&day=${me.date}`);
            assert.equal(await page.getAttribute('html', 'dir'), lang === 'ar' ? 'rtl' : 'ltr');
            problems.push(...(await pageProblems(page, `move ${lang} ${label}`)));
            await screenshot(page, `consultation-move-${lang}-${label}`);
            await page.goto(`${site}/consultations/${me.id}/move?to=${encodeURIComponent(`${me.date}|13:00:00|14:00:00`)}`);
            assert.equal(await page.locator('input[name="from"]').count(), 1, 'the move question');
            problems.push(...(await pageProblems(page, `move question ${lang} ${label}`)));
            await screenshot(page, `consultation-move-confirm-${lang}-${label}`);
            await page.goto(`${site}/consultations/${me.id}/cancel`);
            problems.push(...(await pageProblems(page, `cancel ${lang} ${label}`)));
            await screenshot(page, `consultation-cancel-${lang}-${label}`);
            await page.goto(`${site}/consultations`);
            problems.push(...(await pageProblems(page, `list ${lang} ${label}`)));
            await screenshot(page, `consultations-links-${lang}-${label}`);
          } finally {
            await close();
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
