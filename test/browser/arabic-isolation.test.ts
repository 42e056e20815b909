/**
 * Latin runs and numbers inside Arabic text keep their order (issue 25 item 10), in Chromium on a
 * phone: the consultation's Add to calendar links («تقويم Google · Outlook · …», which read
 * «تقويم Outlook · Google»), the phone example of the choices form ("612 345 678", which read
 * "678 345 612") and the number the lawyer calls, and the legal notice's date and operator facts
 * ("2026-11-26" read "26-11-2026"). Each is asserted twice: in the DOM (a `<bdi dir="ltr">`
 * around the run) and on screen (where its parts are drawn). The hold and choices page, the
 * confirmed page, the consultation page and the legal notice are axe-clean and photographed to
 * SHOTS_DIR (or /tmp/shots-arabic-isolation), to be looked at.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { ar } from '../../src/i18n/ar.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots-arabic-isolation';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

/** Where the first and last occurrences of two substrings of `selector`'s text are drawn (left edges), or null. */
function leftOf(page: Page, selector: string, first: string, second: string) {
  return page.evaluate(
    ([sel, a, b]) => {
      const root = document.querySelector(sel!);
      if (!root) return null;
      // No named helpers in here: the test runner's transform would name them with a function the page lacks.
      const out: Array<number | null> = [null, null];
      for (const [i, needle] of [a!, b!].entries()) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = i === 0 ? node.textContent!.indexOf(needle) : node.textContent!.lastIndexOf(needle);
          if (at < 0) continue;
          const range = document.createRange();
          range.setStart(node, at);
          range.setEnd(node, at + needle.length);
          out[i] = range.getBoundingClientRect().left;
          if (i === 0) break;
        }
      }
      return { first: out[0] ?? null, second: out[1] ?? null };
    },
    [selector, first, second],
  );
}

describe('Arabic: Latin runs and numbers isolated, on a phone', { skip: unavailable, timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-arabic-iso-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyer: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'ar.db')), rateLimitMultiplier: 1000 }),
      { clock: new ManualClock(Date.now()) },
    );
    [lawyer] = (await insertLawyers(
      server.database,
      [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', languages: ['es', 'ar', 'fr'], weekly_hours: EVERY_DAY_9_TO_18, formats: { phone: true, video_url: null, office_address: null } } as never)],
      new Date(),
    )) as [string];
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the choices form, the confirmed page, the consultation page and the legal notice', async () => {
    const problems: string[] = [];
    const user = await server.app.services.accounts.ensureUser('amal.iso@example.com');
    const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
    const context = await browser.newContext({ viewport: PHONE, locale: 'ar', timezoneId: 'Europe/Madrid' });
    await addSessionCookie(context, site, session.token);
    const page = await context.newPage();
    const shoot = async (name: string) => {
      problems.push(...(await pageProblems(page, name)));
      await screenshotIfAsked(page, path.join(SHOTS, `${name}.png`), { fullPage: true });
    };

    // The hold with its choices: the phone example keeps its groups in order.
    await page.goto(`${site}/lawyers/${lawyer}/book?lang=ar`);
    await page.locator('.times button').first().click();
    await page.waitForURL('**/confirm/*');
    const token = new URL(page.url()).pathname.split('/').pop()!;
    const hint = page.locator('#f-phone-hint');
    assert.deepEqual(await hint.locator('bdi[dir="ltr"]').allInnerTexts(), ['612 345 678', '+212 612 345 678'], 'each number of the example is isolated left to right');
    const example = await leftOf(page, '#f-phone-hint bdi', '612', '678');
    assert.ok(example && example.first !== null && example.second !== null && example.first < example.second, `"612 345 678" reads 612 … 678 from the left: ${JSON.stringify(example)}`);
    await shoot('choices-phone');

    // Her only format is the phone: it is chosen already (no radio buttons).
    assert.equal(await page.locator('input[name="format"][type="radio"]').count(), 0);
    await page.fill('#f-phone', '612 345 678');
    await page.locator(`form[action="/confirm/${token}/choices"] button[type="submit"]`).click();
    await page.waitForURL('**/pay');
    await page.locator('#f-number').pressSequentially('4242424242424242');
    await page.fill('#f-expiry', '12/30');
    await page.fill('#f-cvc', '123');
    await page.locator('.pay-button').click();
    await page.waitForURL(`**/confirm/${token}`);
    assert.equal(await page.locator('h1').innerText(), ar.confirm.titleConfirmed);

    // Add to calendar: each brand isolated; «تقويم Google» first (rightmost), then Outlook to its left.
    for (const where of ['confirmed', 'consultation']) {
      if (where === 'consultation') {
        await page.goto(`${site}/consultations`);
        await page.locator('main a[href^="/consultations/"]').first().click();
        await page.waitForURL(/\/consultations\/[0-9a-f-]{36}$/);
      }
      const links = page.locator('.calendar-links a');
      assert.deepEqual(await links.locator('bdi[dir="ltr"]').allInnerTexts(), ['Google', 'Outlook', 'Apple', '.ics'], `${where}: the Latin runs of the links are isolated`);
      const [google, outlook] = [(await links.nth(0).boundingBox())!, (await links.nth(1).boundingBox())!];
      assert.ok(outlook.x + outlook.width <= google.x + 1, `${where}: Outlook is left of «تقويم Google» (${JSON.stringify({ google, outlook })})`);
      const order = await leftOf(page, '.calendar-links', 'Outlook', 'Google');
      assert.ok(order && order.first !== null && order.second !== null && order.first < order.second, `${where}: «Outlook» is drawn left of «Google»: ${JSON.stringify(order)}`);
      // The number the lawyer calls, in order.
      const number = await page.locator('.what-next bdi[dir="ltr"]').first().innerText();
      assert.match(number, /^\+34 ?612/, `${where}: the number the lawyer calls is isolated`);
      const called = await leftOf(page, '.what-next bdi[dir="ltr"]', '+34', number.slice(-2));
      assert.ok(called && called.first !== null && called.second !== null && called.first < called.second, `${where}: the number reads +34 … from the left: ${JSON.stringify(called)}`);
      await shoot(where);
    }

    // The legal notice: its date and the operator's facts stay left to right.
    await page.goto(`${site}/legal/aviso-legal`);
    const date = page.locator('.legal-meta bdi[dir="ltr"]');
    assert.match(await date.innerText(), /^\d{4}-\d{2}-\d{2}$/);
    const year = await leftOf(page, '.legal-meta bdi', (await date.innerText()).slice(0, 4), (await date.innerText()).slice(-2));
    assert.ok(year && year.first !== null && year.second !== null && year.first < year.second, `the date reads year … day from the left: ${JSON.stringify(year)}`);
    const facts = await page.locator('article.prose li bdi[dir="ltr"]').allInnerTexts();
    assert.ok(facts.some((t) => t.startsWith('Registro Mercantil de Madrid (')), `the registry is one isolated run: ${JSON.stringify(facts)}`);
    assert.ok(facts.some((t) => t.startsWith('B00000000')), `the tax id is isolated: ${JSON.stringify(facts)}`);
    assert.doesNotMatch(await page.locator('article.prose').innerText(), /no real entry/, 'the demonstration values are in Arabic');
    await shoot('legal-notice');

    await context.close();
    assert.deepEqual(problems, []);
  });
});
