/**
 * The free-times week strip in Chromium (issue 19 item 3), at 390 px and on a desktop, in Spanish
 * and Arabic: seven days fit the phone without sideways scrolling, the chosen day is the current
 * one, a day without free times is not a link, Arabic reads from the right, the week and day links
 * work without JavaScript, a focused day shows the focus ring, and the page is axe-clean.
 * Screenshots to /tmp/shots-h5 (looked at, not kept).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-h5';
// Monday to Saturday: Sunday is a day without free times.
const MON_TO_SAT = [1, 2, 3, 4, 5, 6].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

describe('the free-times week strip in a real browser', { skip: unavailable, timeout: 150_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-strip-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyer: string;
  const problems: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 's.db')), rateLimitMultiplier: 1000 }), {
      clock: new ManualClock(Date.now()),
    });
    [lawyer] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', weekly_hours: MON_TO_SAT, consultation_fee_cents: 9000 })], new Date())) as [string];
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Checks the strip on the page: seven days, one current with its times below, Sunday no link. */
  async function checkStrip(page: Page, label: string, axe: boolean): Promise<void> {
    const days = page.locator('.week-strip .week-day');
    assert.equal(await days.count(), 7, label);
    assert.equal(await page.locator('.week-strip a[aria-current="date"]').count(), 1, `${label}: one current day`);
    assert.equal(await days.nth(6).locator('a').count(), 0, `${label}: Sunday is no link`);
    assert.ok((await page.locator('.times button').count()) > 0, `${label}: the day's times`);
    // The strip fits: every day is inside the viewport.
    const width = page.viewportSize()!.width;
    for (let i = 0; i < 7; i++) {
      const box = (await days.nth(i).boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= width, `${label}: day ${i} inside the viewport`);
    }
    // (axe needs JavaScript: the pages are checked with it on.)
    if (axe) problems.push(...(await pageProblems(page, label)));
  }

  for (const lang of ['es', 'ar'] as const) {
    for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`${lang}, ${name}: the week strip, next week and a chosen day, without JavaScript`, async () => {
        const ctx = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar', timezoneId: 'Europe/Madrid', javaScriptEnabled: false });
        const page = await ctx.newPage();
        await page.goto(`${site}/lawyers/${lawyer}/book?lang=${lang}`);
        await checkStrip(page, `${lang} ${name} this week`, false);
        const days = page.locator('.week-strip .week-day');
        const monday = (await days.nth(0).boundingBox())!;
        const sunday = (await days.nth(6).boundingBox())!;
        if (lang === 'ar') assert.ok(monday.x > sunday.x, 'Arabic: the week reads from the right');
        else assert.ok(monday.x < sunday.x, 'Spanish: the week reads from the left');
        await screenshotIfAsked(page, path.join(SHOTS, `strip-${lang}-${name}.png`), { fullPage: true });

        // Next week (a plain link), then its Wednesday.
        await page.locator('.week-strip a[rel="next"]').click();
        await page.waitForURL(/week=\d{4}-\d{2}-\d{2}$/);
        await days.nth(2).locator('a').click();
        await page.waitForURL(/day=\d{4}-\d{2}-\d{2}$/);
        const day = new URL(page.url()).searchParams.get('day')!;
        assert.equal(await days.nth(2).locator('a').getAttribute('aria-current'), 'date');
        assert.match((await page.locator('.times button').first().getAttribute('value'))!, new RegExp(`^${day}\\|`));
        await checkStrip(page, `${lang} ${name} next week`, false);
        assert.equal(await page.locator('.week-strip a[rel="prev"]').count(), 1);
        const url = page.url();
        await ctx.close();
        // The same pages with JavaScript on: axe-clean, and the screenshots.
        const js = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar', timezoneId: 'Europe/Madrid' });
        const checked = await js.newPage();
        await checked.goto(url);
        await checkStrip(checked, `${lang} ${name} next week`, true);
        await screenshotIfAsked(checked, path.join(SHOTS, `strip-${lang}-${name}-next.png`), { fullPage: true });
        await checked.goto(`${site}/lawyers/${lawyer}/book?lang=${lang}`);
        await checkStrip(checked, `${lang} ${name} this week`, true);
        await js.close();
      });
    }
  }

  it('a focused day shows the focus ring; one tap on a time holds it (phone, JavaScript on)', async () => {
    const ctx = await browser.newContext({ viewport: PHONE, locale: 'es-ES', timezoneId: 'Europe/Madrid' });
    const page = await ctx.newPage();
    await page.goto(`${site}/lawyers/${lawyer}/book?lang=es`);
    const link = page.locator('.week-strip a').first();
    await link.focus();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Tab');
    const outline = await link.evaluate((el) => getComputedStyle(el).outlineStyle);
    assert.equal(outline, 'solid');
    await screenshotIfAsked(page, path.join(SHOTS, 'strip-es-phone-focus.png'));
    await page.locator('.times button').first().click();
    await page.waitForURL('**/confirm/*');
    await ctx.close();
  });

  it('is axe-clean and fits every viewport', () => {
    assert.deepEqual(problems, []);
  });
});
