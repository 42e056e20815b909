/**
 * Issue 25 items 12 and 16 in Chromium, in Spanish and Arabic (right to left), at phone width and
 * on a desktop: the profile's reviews are paged with plain links that a click follows (no
 * script needed), the badge is in her form of address, and /join's "how we name you" choice is a
 * labelled group a click ticks; her answer in Spanish is a quote labelled in Arabic, with lang="es". Nothing scrolls sideways and axe-core finds nothing. Screenshots
 * go to SHOTS_DIR (or /tmp/shots-25), to be looked at, not kept.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { migratedSqliteUrl } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const unavailable = browserUnavailable();
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots-25';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));
const ANSWER = 'Muchas gracias por su confianza; fue un placer ayudarle con la renovación de su permiso de residencia.';
const COMMENTS = ['Muy clara y paciente.', 'Me explicó el arraigo paso a paso.', 'شرحت لي كل شيء بالعربية، شكرًا جزيلًا.', null, 'Puntual y directa.'];

describe('paged reviews and her form of address, in a real browser', { skip: unavailable, timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-reviews-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let nadia: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'reviews.db')), rateLimitMultiplier: 1000 }), { clock: new ManualClock(Date.now()) });
    await ensureReferenceData(server.database.db, new Date().toISOString());
    [nadia] = (await insertLawyers(
      server.database,
      [
        lawyerRecord({
          name: 'Nadia El Amrani',
          city: 'madrid',
          languages: ['es', 'ar', 'fr'],
          weekly_hours: EVERY_DAY_9_TO_18,
          reviews: Array.from({ length: 17 }, (_, i) => ({ rating: 5 - (i % 3), comment: COMMENTS[i % COMMENTS.length] ?? null, date: new Date(Date.UTC(2026, 9, 30 - i, 10)).toISOString() })),
        }),
      ],
      new Date(),
    )) as [string];
    await server.database.db.updateTable('lawyers').set({ form_of_address: 'female' }).where('id', '=', nadia).execute();
    // Her answer to the newest review, in Spanish: quoted as her words on the Arabic page (issue 26 item 5).
    const newest = await server.database.db.selectFrom('reviews').select('id').where('lawyer_id', '=', nadia).orderBy('created_at', 'desc').limit(1).executeTakeFirstOrThrow();
    await server.database.db.updateTable('reviews').set({ answer: ANSWER, answered_at: new Date().toISOString() }).where('id', '=', newest.id).execute();
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  for (const locale of ['es', 'ar'] as const) {
    for (const [width, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`${locale} at ${width} width: the reviews' pages, the badge in her form, and /join's choice`, async () => {
        const context = await browser.newContext({ viewport, locale, timezoneId: 'Europe/Madrid' });
        const page = await context.newPage();
        const problems: string[] = [];
        const shot = async (label: string, full = false) => {
          problems.push(...(await pageProblems(page, `${locale}-${width}-${label}`)));
          await screenshotIfAsked(page, path.join(SHOTS, `${locale}-${width}-${label}.png`), { fullPage: full });
        };

        await page.goto(`${site}/lawyers/${nadia}?lang=${locale}`);
        assert.match((await page.locator('.badge-verified').innerText()).trim(), locale === 'ar' ? /محامية موثَّقة/ : /Abogada verificada/);
        assert.equal(await page.locator('#reviews .reviews > li').count(), 5);
        const answer = page.locator('#reviews .review-answer').first();
        await answer.scrollIntoViewIfNeeded();
        assert.equal(await answer.locator('blockquote').innerText(), ANSWER);
        assert.equal(await answer.locator('blockquote').getAttribute('lang'), locale === 'ar' ? 'es' : null, 'lang only when it is not the page\'s');
        assert.equal((await answer.locator('strong').innerText()).trim(), locale === 'ar' ? 'رد مكتب المحاماة، باللغة الإسبانية' : 'Respuesta del despacho');
        await shot('profile-answer');
        await page.locator('#reviews nav.pager a[rel="next"]').click();
        await page.waitForURL(/\?reviews=2#reviews$/);
        assert.match(await page.locator('#reviews nav.pager').innerText(), locale === 'ar' ? /الصفحة 2 من 4/ : /Página 2 de 4/);
        await page.locator('#reviews nav.pager').scrollIntoViewIfNeeded();
        await shot('profile-reviews-page-2');
        await shot('profile-reviews-page-2-full', true);

        const user = await server.app.services.accounts.ensureUser(`join-${locale}-${width}@example.com`);
        const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
        await addSessionCookie(context, site, token);
        await page.goto(`${site}/join?lang=${locale}`);
        const group = page.locator('#f-form_of_address');
        await group.scrollIntoViewIfNeeded();
        await page.getByLabel(/Abogada/).check();
        assert.ok(await page.locator('input[name="form_of_address"][value="female"]').isChecked());
        await shot('join-form-of-address');
        assert.deepEqual(problems, []);
        await context.close();
      });
    }
  }
});
