/**
 * The booking path's scripted parts in Chromium (issue 19 items 2, 5, 6), on a phone and a
 * desktop: the browser's time zone detected and shown beside the lawyer's, the countdown as time
 * left, the sign-in code page with the held booking, and the checkout — card number grouped with
 * its brand, Luhn/expiry/CVC checked before anything is sent, focus on the error summary, the
 * busy Pay button, the summary beside the form on a desktop. axe-clean; screenshots to
 * /tmp/shots-booking (looked at, not kept).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, sidewaysOverflow, continueToPay, focusedId, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();

/**
 * Polls `predicate` in the page until it holds (Playwright's waitForFunction compiles its
 * predicate with eval, which the site's CSP forbids; evaluate does not).
 */
async function until(page: Page, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(predicate))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${predicate.toString()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
const SHOTS = '/tmp/shots-booking';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

describe('the booking path in a real browser', { skip: unavailable, timeout: 240_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-booking-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyer: string;
  const problems: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'b.db')), rateLimitMultiplier: 1000 }),
      { clock: new ManualClock(Date.now()) },
    );
    [lawyer] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', weekly_hours: EVERY_DAY_9_TO_18, consultation_fee_cents: 9000 })], new Date())) as [string];
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const context = (viewport: typeof PHONE, lang: 'en' | 'es', timezoneId: string, javaScriptEnabled = true): Promise<BrowserContext> =>
    browser.newContext({ viewport, locale: lang === 'en' ? 'en-GB' : 'es-ES', timezoneId, javaScriptEnabled });

  async function check(page: Page, label: string, shot: string): Promise<void> {
    problems.push(...(await pageProblems(page, label)));
    await screenshotIfAsked(page, path.join(SHOTS, `${shot}.png`), { fullPage: true });
  }

  /** Holds the first free time not held yet; lands on its confirmation page. */
  async function holdATime(page: Page): Promise<string> {
    await page.goto(`${site}/lawyers/${lawyer}/book`);
    await page.locator('.times button').first().click();
    await page.waitForURL('**/confirm/*');
    return new URL(page.url()).pathname.split('/').pop()!;
  }

  /** Signs in from the confirmation page with the code from the outbox; lands on the pay page. */
  async function signIn(page: Page, email: string, onCodePage?: () => Promise<void>): Promise<void> {
    await page.fill('#f-email', email);
    await page.locator('form[action="/sign-in"] button[type="submit"]').click();
    await page.waitForURL('**/sign-in/code');
    await onCodePage?.();
    const row = await server.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', email).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
    await page.fill('#f-code', /\b(\d{6})\b/.exec(row.text ?? '')![1]!);
    await page.locator('form[action="/sign-in/code"] button[type="submit"]').click();
    await continueToPay(page);
  }

  it('detects the browser\'s zone, remembers it, and shows each free time in it too (Canary Islands, Spanish, phone)', async () => {
    const ctx = await context(PHONE, 'es', 'Atlantic/Canary');
    const page = await ctx.newPage();
    await page.goto(`${site}/lawyers/${lawyer}/book`);
    // booking.js set the cookie and showed the page again with the visitor's time.
    await page.waitForSelector('.slot-yours');
    const cookie = (await ctx.cookies()).find((c) => c.name === 'consulta_tz');
    assert.equal(decodeURIComponent(cookie?.value ?? ''), 'Atlantic/Canary');
    const text = await page.locator('main').innerText();
    assert.match(text, /Cada hora es la del despacho \(hora peninsular\); debajo, el mismo momento en tu zona \(hora de Canarias\)/);
    const first = page.locator('.times button').first();
    const lawyerTime = (await first.getAttribute('value'))!.split('|')[1]!;
    const yours = await first.locator('.slot-yours').innerText();
    assert.match(yours, /^\d{2}:00 en tu zona$/);
    assert.equal(Number(lawyerTime.slice(0, 2)) - 1, Number(yours.slice(0, 2)), `${lawyerTime} in Madrid is an hour earlier in the Canaries: ${yours}`);
    assert.match((await first.innerText()).replace(/\s+/g, ' ').trim(), /^Apartar el .+ a las \d{2}:00 \d{2}:00 en tu zona$/);
    assert.match(await page.locator('.zone-chooser summary').innerText(), /Tu zona horaria: hora de Canarias/);
    await check(page, 'free times, Canary Islands (es, phone)', 'book-canarias-es-phone');
    await ctx.close();
  });

  it('a visitor in the lawyer\'s zone sees one time; without JavaScript the chooser sets the zone (desktop)', async () => {
    const same = await context(DESKTOP, 'en', 'Europe/Madrid');
    const page = await same.newPage();
    await page.goto(`${site}/lawyers/${lawyer}/book`);
    await until(page, () => document.cookie.includes('consulta_tz='));
    assert.equal(await page.locator('.slot-yours').count(), 0);
    await same.close();

    const nojs = await context(DESKTOP, 'en', 'America/Bogota', false);
    const plain = await nojs.newPage();
    await plain.goto(`${site}/lawyers/${lawyer}/book`);
    assert.equal(await plain.locator('.slot-yours').count(), 0, 'nothing detected without JavaScript');
    await plain.locator('.zone-chooser summary').click();
    await plain.selectOption('#f-zone', 'America/Bogota');
    await plain.locator('form[action="/time-zone"] button').click();
    await plain.waitForSelector('.slot-yours');
    assert.match(await plain.locator('main').innerText(), /your time \(Colombia Standard Time\)/);
    // (axe needs JavaScript: the same page is checked with it below.)
    await screenshotIfAsked(plain, path.join(SHOTS, 'book-bogota-nojs-desktop.png'), { fullPage: true });
    await nojs.close();
    const js = await context(DESKTOP, 'en', 'America/Bogota');
    const checked = await js.newPage();
    await checked.goto(`${site}/lawyers/${lawyer}/book`);
    await checked.waitForSelector('.slot-yours');
    await check(checked, 'free times, Bogotá (en, desktop)', 'book-bogota-desktop');
    await js.close();
  });

  it('the hold counts down as time left, and the code page keeps the booking in view with a resend button (phone and desktop)', async () => {
    for (const [viewport, label] of [[PHONE, 'phone'], [DESKTOP, 'desktop']] as const) {
      const ctx = await context(viewport, 'en', 'Europe/Bucharest');
      const page = await ctx.newPage();
      await holdATime(page);
      const countdown = page.locator('[data-time-left]');
      await until(page, () => /^\d+:\d{2} left$/.test(document.querySelector('[data-time-left]')?.textContent ?? ''));
      const left = await countdown.innerText();
      const [m, s] = left.replace(' left', '').split(':').map(Number) as [number, number];
      assert.ok(m * 60 + s > 14 * 60 && m * 60 + s <= 15 * 60, `about 15 minutes left: ${left}`);
      assert.match(await page.locator('main').innerText(), /your time: Eastern European [A-Za-z ]*Time \(Romania\)/);
      assert.match(await page.locator('.kept-until').innerText(), /We keep this time for you until \d{2}:\d{2} \(Eastern European [A-Za-z ]*Time \(Romania\)\)/);
      await check(page, `hold (${label})`, `hold-${label}`);
      await page.fill('#f-email', `code-${label}@example.com`);
      await page.locator('form[action="/sign-in"] button[type="submit"]').click();
      await page.waitForURL('**/sign-in/code');
      const text = await page.locator('main').innerText();
      assert.match(text, new RegExp(`We sent a 6-digit code to code-${label}@example\\.com`));
      assert.match(text, /Nadia El Amrani[\s\S]*€90\.00/);
      await until(page, () => /^\d+:\d{2} left$/.test(document.querySelector('[data-time-left]')?.textContent ?? ''));
      assert.match(text, /You can ask for 4 more codes this hour \(at most 5 an hour\)/);
      assert.equal(await focusedId(page, 'f-code'), 'f-code', 'the code field has the focus');
      await check(page, `code page with the booking (${label})`, `code-${label}`);
      await page.locator('form[action="/sign-in/resend"] button').click();
      await page.waitForURL('**/sign-in/code?resent=1');
      assert.match(await page.locator('[role="status"]').innerText(), /A new code is on its way/);
      await ctx.close();
    }
  });

  it('checkout: the number grouped with its brand, bad details caught before sending with focus on the summary, what was typed kept after a decline, a busy Pay (phone and desktop)', async () => {
    for (const [viewport, label] of [[PHONE, 'phone'], [DESKTOP, 'desktop']] as const) {
      const ctx = await context(viewport, label === 'phone' ? 'es' : 'en', 'Europe/Madrid');
      const page = await ctx.newPage();
      const token = await holdATime(page);
      await signIn(page, `pay-${label}@example.com`);
      await check(page, `pay (${label})`, `pay-${label}`);
      const summary = await page.locator('.checkout-summary').boundingBox();
      const form = await page.locator('.checkout-pay').boundingBox();
      if (label === 'desktop') assert.ok(summary!.x + summary!.width <= form!.x && Math.abs(summary!.y - form!.y) < 40, 'summary beside the form');
      else assert.ok(form!.y >= summary!.y + summary!.height - 1, 'summary above the form');

      // Typed as a person types: grouped, with its brand.
      await page.locator('#f-number').pressSequentially('378282246310005');
      assert.equal(await page.inputValue('#f-number'), '3782 822463 10005');
      assert.equal(await page.locator('[data-card-brand]').innerText(), 'American Express');
      await page.fill('#f-number', '');
      await page.locator('#f-number').pressSequentially('4242424242424241');
      assert.equal(await page.inputValue('#f-number'), '4242 4242 4242 4241');
      assert.equal(await page.locator('[data-card-brand]').innerText(), 'Visa');
      await page.locator('#f-expiry').pressSequentially('1320');
      assert.equal(await page.inputValue('#f-expiry'), '13/20');
      await page.locator('#f-cvc').pressSequentially('1a');
      assert.equal(await page.inputValue('#f-cvc'), '1');

      // Checked in the browser: nothing is sent, the summary lists each problem and has the focus.
      let posted = 0;
      page.on('request', (r) => void (r.method() === 'POST' && r.url().endsWith('/pay') && posted++));
      await page.locator('.pay-button').click();
      await until(page, () => document.activeElement?.id === 'card-errors');
      assert.equal(posted, 0, 'nothing was sent');
      assert.equal(await page.locator('#card-errors li').count(), 3);
      for (const f of ['number', 'expiry', 'cvc']) assert.equal(await page.getAttribute(`#f-${f}`, 'aria-invalid'), 'true', f);
      await check(page, `pay, errors caught in the browser (${label})`, `pay-errors-${label}`);
      // The summary's link moves to its field.
      await page.locator('#card-errors a[href="#f-expiry"]').click();
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'f-expiry');

      // A past expiry is caught too; fixed, the declined card goes to the server, which decides.
      await page.fill('#f-number', '4000 0000 0000 0002');
      await page.fill('#f-expiry', '01/20');
      await page.fill('#f-cvc', '123');
      await page.fill('#f-name', 'Ana Pérez');
      await page.locator('.pay-button').click();
      await until(page, () => document.activeElement?.id === 'card-errors');
      assert.match(await page.locator('#card-errors').innerText(), /expired|caducada/);
      assert.equal(posted, 0);
      // Filled as autofill or a paste may put it, with a four-digit year: read as 12/30, not cut to an expired 12/20.
      await page.fill('#f-expiry', '12/2030');
      assert.equal(await page.inputValue('#f-expiry'), '12/30');
      await Promise.all([page.waitForResponse((r) => r.url().endsWith(`/confirm/${token}/pay`) && r.status() === 422), page.locator('.pay-button').click()]);
      await until(page, () => document.activeElement?.id === 'card-errors');
      assert.match(await page.locator('#card-errors').innerText(), /declined|rechazada/);
      assert.equal(await page.inputValue('#f-number'), '4000 0000 0000 0002');
      assert.equal(await page.inputValue('#f-expiry'), '12/30');
      assert.equal(await page.inputValue('#f-name'), 'Ana Pérez');
      assert.equal(await page.inputValue('#f-cvc'), '', 'the CVC is typed again');
      await check(page, `pay, declined by the server (${label})`, `pay-declined-${label}`);

      // Pay: busy while the server works (the answer held back a moment to see it).
      await page.route('**/pay', async (route) => {
        if (route.request().method() !== 'POST') return route.continue();
        await new Promise((r) => setTimeout(r, 300));
        await route.continue();
      });
      await page.fill('#f-number', '4242 4242 4242 4242');
      await page.fill('#f-cvc', '123');
      // What the button said as the form left (kept in sessionStorage, which outlives the navigation).
      await page.evaluate(() =>
        document.addEventListener('submit', () => {
          const b = document.querySelector('.pay-button')!;
          sessionStorage.setItem('busy', `${b.textContent}|${b.getAttribute('aria-disabled')}`);
        }),
      );
      await page.locator('.pay-button').click();
      await page.waitForURL(`**/confirm/${token}`);
      assert.match((await page.evaluate(() => sessionStorage.getItem('busy'))) ?? '', /^(Paying…|Pagando…)\|true$/);
      assert.match(await page.locator('h1').innerText(), /booked|reservada|confirmada/i);
      await ctx.close();
    }
    assert.equal(problems.join('\n'), '');
  });

  it('checkout without JavaScript (phone): the server decides, its error summary has the focus and is in view, an expiry typed 1230 is read as 12/30', async () => {
    const ctx = await context(PHONE, 'es', 'Europe/Madrid', false);
    const page = await ctx.newPage();
    const token = await holdATime(page);
    await signIn(page, 'pay-nojs@example.com');
    const send = () => Promise.all([page.waitForResponse((r) => r.url().endsWith(`/confirm/${token}/pay`) && r.request().method() === 'POST'), page.locator('.pay-button').click()]);
    await page.fill('#f-number', '4000 0000 0000 0002');
    await page.fill('#f-expiry', '1230');
    await page.fill('#f-cvc', '123');
    const [declined] = await send();
    assert.equal(declined.status(), 422);
    await page.waitForLoadState('load');
    // Declined (not "invalid expiry"): the four digits were read as 12/30.
    assert.match(await page.locator('#card-errors').innerText(), /rechazada/);
    assert.equal(await focusedId(page, 'card-errors'), 'card-errors', 'the error summary has the focus');
    const box = (await page.locator('#card-errors').boundingBox())!;
    assert.ok(box.y >= 0 && box.y + box.height <= PHONE.height, `the error summary is on screen (y ${box.y})`);
    assert.equal(await page.inputValue('#f-expiry'), '1230', 'what was typed is kept');
    assert.equal(await page.inputValue('#f-cvc'), '');
    // axe-core needs scripts (the pages with JavaScript are checked above); the width is checked here.
    assert.ok((await sidewaysOverflow(page)) <= 1, 'no sideways overflow');
    await screenshotIfAsked(page, path.join(SHOTS, 'pay-declined-nojs-phone.png'), { fullPage: true });
    await page.fill('#f-number', '4242 4242 4242 4242');
    await page.fill('#f-cvc', '123');
    await send();
    await page.waitForURL(`**/confirm/${token}`);
    assert.match(await page.locator('h1').innerText(), /reservada|confirmada/i);
    await ctx.close();
  });
});
