/**
 * Trust you can see, in Chromium (docs/site.md#trust): the result cards, the profile and the
 * "How we verify lawyers" page in Spanish and in Arabic (right to left), at phone width (390 px)
 * and on a desktop. The photo and the initials keep their fixed size (no layout shift), the
 * badge and the checked facts are shown, nothing scrolls sideways and axe-core finds nothing.
 * Screenshots go to SHOTS_DIR (or /tmp/shots-h3), to be looked at, not kept.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { replaceBios } from '../../src/db/repositories/lawyer-portal.repository.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots-h3';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));
// A 64×64 PNG would do as well; a 1×1 one shows the photo is scaled into its fixed box.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

describe('trust you can see, in a real browser', { skip: unavailable, timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-trust-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let nadia: string;
  let long: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'trust.db')), rateLimitMultiplier: 1000 }), { clock: new ManualClock(Date.now()) });
    [nadia, long] = (await insertLawyers(
      server.database,
      [
        lawyerRecord({
          name: 'Nadia El Amrani',
          city: 'madrid',
          languages: ['es', 'ar', 'fr'],
          consultation_fee_cents: 9000,
          consultation_minutes: 45,
          formats: { video_url: 'https://meet.example.com/nadia', phone: true, office_address: 'Calle Mayor 1, Madrid' },
          bar_memberships: [{ bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: true, membership_number: '123456' }],
          weekly_hours: EVERY_DAY_9_TO_18,
          reviews: [
            { rating: 5, comment: 'Muy clara y paciente. Me explicó todo en árabe.', date: '2026-10-01T10:00:00Z' },
            { rating: 4, comment: null, date: '2026-09-01T10:00:00Z' },
          ],
        }),
        lawyerRecord({
          name: 'María de los Ángeles Fernández-Villaverde Santisteban',
          city: 'madrid',
          languages: ['es', 'uk', 'ro', 'en'],
          bar_memberships: [{ bar_name: 'Ilustre Colegio de Abogados de Alcalá de Henares', verified: true, membership_number: 'AH-2019/00457' }],
          weekly_hours: EVERY_DAY_9_TO_18,
        }),
      ],
      new Date(),
    )) as [string, string];
    const sha = createHash('sha256').update(PNG).digest('hex');
    await server.database.db.insertInto('lawyer_photos').values({ lawyer_id: nadia, content_type: 'image/png', sha256: sha, byte_size: PNG.length, data_base64: PNG.toString('base64'), updated_at: new Date().toISOString() }).execute();
    await replaceBios(server.database.db, nadia, { es: 'Abogada de extranjería. Atiendo en árabe, francés y español.' }, new Date().toISOString());
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
      it(`${locale} at ${width} width: cards, profile and the verification page fit, keep their sizes and pass axe`, async () => {
        const context = await browser.newContext({ viewport, locale, timezoneId: 'Europe/Madrid' });
        const page = await context.newPage();
        const problems: string[] = [];
        const shot = async (label: string) => {
          problems.push(...(await pageProblems(page, `${locale}-${width}-${label}`)));
          await screenshotIfAsked(page, path.join(SHOTS, `${locale}-${width}-${label}.png`));
          await screenshotIfAsked(page, path.join(SHOTS, `${locale}-${width}-${label}-full.png`), { fullPage: true });
        };

        await page.goto(`${site}/?city=madrid&lang=${locale}`);
        assert.equal(await page.getAttribute('html', 'dir'), locale === 'ar' ? 'rtl' : 'ltr');
        const avatars = await page.$$eval('.lawyer-card .avatar', (els) => els.map((e) => ({ tag: e.tagName, w: e.getBoundingClientRect().width, h: e.getBoundingClientRect().height })));
        assert.equal(avatars.length, 2);
        for (const a of avatars) assert.deepEqual([a.w, a.h], [56, 56], `${locale} ${width}: a card's avatar is 56×56 (${a.tag})`);
        assert.deepEqual(avatars.map((a) => a.tag).sort(), ['IMG', 'SPAN'], 'one photo, one set of initials');
        assert.equal(await page.locator('.lawyer-card .badge-verified').count(), 2);
        await shot('results');

        await page.goto(`${site}/lawyers/${nadia}?lang=${locale}`);
        const big = await page.$eval('.profile-head .avatar', (e) => [e.getBoundingClientRect().width, e.getBoundingClientRect().height]);
        assert.deepEqual(big, [96, 96]);
        assert.ok(await page.locator('.checked dd', { hasText: '123456' }).isVisible(), 'the membership number is shown');
        await shot('profile');

        await page.goto(`${site}/lawyers/${long}?lang=${locale}`);
        await shot('profile-long-name');

        await page.click('.badge-verified');
        await page.waitForURL(/\/help\/verification/);
        assert.match((await page.textContent('h1')) ?? '', locale === 'ar' ? /كيف نتحقق/ : /Cómo verificamos/);
        await shot('verification');
        assert.deepEqual(problems, []);
        await context.close();
      });
    }
  }
});
