/**
 * Holding without getting locked out, in Chromium (issue 20 item 6), at 390 px and on a desktop,
 * in Spanish and Arabic, against the real hourly limit: the hold page offers "Choose another
 * time"; another time with the same lawyer says the earlier one was let go; the sixth lawyer in
 * an hour gets the limit page, which says what happened, lists the five holds with links and lets
 * one go (its button goes back to that lawyer's free times). Every page axe-clean and fitting the
 * phone. Screenshots to /tmp/shots-hold (looked at, not kept).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { messages } from '../../src/i18n/index.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const unavailable = browserUnavailable();

function tomorrowMorningUtc(): number {
  const now = new Date();
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1, 7);
}
const SHOTS = '/tmp/shots-hold';
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const }));

describe('holding without getting locked out, in a real browser', { skip: unavailable, timeout: 240_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-hold-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyers: string[];
  let address = 0;
  const problems: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: `sqlite:${path.join(dir, 's.db')}`, rateLimitMultiplier: 1, trustProxy: ['127.0.0.1'] }),
      // Tomorrow, 07:00 UTC: the day's first free times are still ahead at any hour the suite runs (with the real
      // time, an afternoon run left a single free time today and the second tap found nothing).
      { clock: new ManualClock(tomorrowMorningUtc()) },
    );
    const names = ['Nadia El Amrani', 'Lucía Fernández Ortega', 'Olena Kovalenko', 'Ioana Popescu', 'Marta Ruiz Sánchez', 'Karim Benali'];
    lawyers = (await insertLawyers(server.database, names.map((name) => lawyerRecord({ name, city: 'madrid', weekly_hours: EVERY_DAY, consultation_fee_cents: 6000 })), new Date())) as string[];
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Taps the `n`-th free time on the lawyer's page; the page it lands on. */
  async function hold(page: Page, lawyer: string, n = 0): Promise<void> {
    await page.goto(`${site}/lawyers/${lawyer}/book`);
    await Promise.all([page.waitForURL((u) => !u.pathname.endsWith('/book') || u.search === ''), page.locator('.times button').nth(n).click()]);
    await page.waitForLoadState('load');
  }

  for (const lang of ['es', 'ar'] as const) {
    for (const [name, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`${lang}, ${name}: the hold page, a replacement, the limit page and letting a hold go there`, async () => {
        const m = messages(lang).holdLimit;
        // A client address of its own (the hourly limit counts per address).
        const ctx = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar', timezoneId: 'Europe/Madrid', extraHTTPHeaders: { 'x-forwarded-for': `198.51.100.${++address}` } });
        const page = await ctx.newPage();
        await page.goto(`${site}/?lang=${lang}`);
        await hold(page, lawyers[0]!);
        assert.match(new URL(page.url()).pathname, /^\/confirm\//);
        assert.equal(await page.getByRole('button', { name: m.chooseAnother }).count(), 1, 'the hold page offers "Choose another time"');
        await screenshotIfAsked(page, path.join(SHOTS, `hold-${lang}-${name}.png`), { fullPage: true });
        problems.push(...(await pageProblems(page, `${lang} ${name} hold page`)));

        await hold(page, lawyers[0]!, 1);
        assert.equal(new URL(page.url()).searchParams.get('replaced'), '1');
        assert.ok((await page.locator('main').innerText()).includes(m.replaced), 'says the earlier one was let go');
        await screenshotIfAsked(page, path.join(SHOTS, `replaced-${lang}-${name}.png`), { fullPage: true });
        problems.push(...(await pageProblems(page, `${lang} ${name} replaced`)));

        for (const lawyer of lawyers.slice(1, 5)) await hold(page, lawyer);
        await hold(page, lawyers[5]!);
        const text = await page.locator('main').innerText();
        assert.ok(text.includes(m.title), 'the limit page');
        for (const n of ['Nadia El Amrani', 'Lucía Fernández Ortega', 'Olena Kovalenko', 'Ioana Popescu', 'Marta Ruiz Sánchez']) assert.ok(text.includes(n), `lists ${n}`);
        assert.equal(await page.locator('.held-list li').count(), 5);
        await screenshotIfAsked(page, path.join(SHOTS, `limit-${lang}-${name}.png`), { fullPage: true });
        problems.push(...(await pageProblems(page, `${lang} ${name} limit page`)));

        // Let the first listed one go: back on that lawyer's free times.
        const first = page.locator('.held-list li').first();
        const href = await first.locator('a').getAttribute('href');
        await Promise.all([page.waitForURL(/\/book\?/), first.getByRole('button', { name: m.chooseAnother }).click()]);
        assert.match(page.url(), /\/lawyers\/[0-9a-f-]{36}\/book\?week=/);
        assert.ok(href);
        await ctx.close();
      });
    }
  }

  it('every page is axe-clean and fits the phone', () => {
    assert.deepEqual(problems, []);
  });
});
