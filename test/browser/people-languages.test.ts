/**
 * The languages added for people only (Ukrainian and Romanian; issue 19 item 1) in Chromium on a
 * phone (390 px), where their long words overflow first: a booking walked from the home page —
 * search results, a profile, free times, the hold, the code page, payment, the confirmation, My
 * consultations, a consultation and Account — each page in its language (`<html lang>`, the
 * countdown as time left in the language), axe-clean and no wider than the phone. Screenshots to
 * /tmp/shots-languages (looked at, not kept).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { messages, type Locale } from '../../src/i18n/index.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, continueToPay, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-languages';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));
/** The languages walked here, with the browser locale a person reading them has. */
const WALKED: ReadonlyArray<[Locale, string]> = [
  ['uk', 'uk-UA'],
  ['ro', 'ro-RO'],
];

/** Polls `predicate` in the page (waitForFunction evaluates with eval, which the CSP forbids). */
async function until(page: Page, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(predicate))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${predicate.toString()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Elements whose text is wider than their own box (a long word that does not wrap: the page may
 * still fit, with the word running over its card's border or under its neighbour). Scroll
 * containers (a table that scrolls sideways on purpose) are left out.
 */
function wordsOutOfTheirBox(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      if (!(el instanceof HTMLElement) || el.offsetParent === null || el.clientWidth === 0) continue;
      const style = getComputedStyle(el);
      if (style.overflowX !== 'visible' || style.display === 'inline') continue;
      if (el.scrollWidth > el.clientWidth + 1) out.push(`<${el.tagName.toLowerCase()} class="${el.className}"> ${el.scrollWidth}/${el.clientWidth}px "${(el.textContent ?? '').trim().slice(0, 60)}"`);
    }
    return out;
  });
}

describe('Ukrainian and Romanian on a phone, from search to Account, and on a desktop', { skip: unavailable, timeout: 360_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-languages-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyer: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'l.db')), rateLimitMultiplier: 1000 }),
      { clock: new ManualClock(Date.now()) },
    );
    // The longest names the catalogues have, so that the pages show them at their worst.
    [lawyer] = (await insertLawyers(
      server.database,
      [
        lawyerRecord({
          name: 'Oleksandra Kovalenko-Hernández',
          city: 'las-palmas-de-gran-canaria',
          languages: ['es', 'uk', 'ro', 'ru'],
          practice_areas: [
            { slug: 'temporary-protection-ukraine', is_primary: true },
            { slug: 'arraigo-sociolaboral', is_primary: false },
            { slug: 'highly-qualified-professionals', is_primary: false },
            { slug: 'democratic-memory-law', is_primary: false },
            { slug: 'eu-family-member-card', is_primary: false },
          ],
          weekly_hours: EVERY_DAY_9_TO_18,
          consultation_fee_cents: 7500,
        }),
      ],
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

  for (const [locale, browserLocale] of WALKED) {
    it(`${locale}: every page a person who books sees is in ${locale}, axe-clean and fits 390 px`, async () => {
      const t = messages(locale);
      const problems: string[] = [];
      const ctx = await browser.newContext({ viewport: PHONE, locale: browserLocale, timezoneId: 'Europe/Madrid' });
      const page = await ctx.newPage();
      const check = async (label: string): Promise<void> => {
        assert.equal(await page.getAttribute('html', 'lang'), locale, `${label}: <html lang>`);
        problems.push(...(await pageProblems(page, `${locale} ${label}`)));
        problems.push(...(await wordsOutOfTheirBox(page)).map((p) => `${locale} ${label}: sticks out of its box: ${p}`));
        await screenshotIfAsked(page, path.join(SHOTS, `${locale}-${label.replace(/\s+/g, '-')}.png`), { fullPage: true });
      };

      await page.goto(`${site}/?lang=${locale}`);
      assert.equal(await page.locator('h1').innerText(), t.home.heading);
      await check('home');
      // The box check finds a word that does not fit (then the page is put back).
      await page.evaluate(() => {
        // Sized through the CSSOM: the site's CSP drops a style attribute.
        const p = Object.assign(document.createElement('p'), { id: 'too-long', textContent: 'Високоякісніііііііііііііі' });
        p.style.inlineSize = '4rem';
        p.style.overflowWrap = 'normal';
        document.querySelector('main')!.append(p);
      });
      assert.equal((await wordsOutOfTheirBox(page)).filter((p) => p.includes('Високоякісні')).length, 1, 'a word wider than its box is found');
      await page.evaluate(() => document.getElementById('too-long')!.remove());
      await page.goto(`${site}/?city=las-palmas-de-gran-canaria&practice_area=international-protection`);
      assert.match(await page.locator('main').innerText(), new RegExp(t.home.resultsCount(1)));
      await check('search results');
      await page.goto(`${site}/lawyers/${lawyer}`);
      await check('profile');
      await page.goto(`${site}/lawyers/${lawyer}/book`);
      await check('free times');
      await screenshotIfAsked(page, path.join(SHOTS, `${locale}-free-times-top.png`));

      await page.locator('.times button').first().click();
      await page.waitForURL('**/confirm/*');
      const confirmUrl = page.url();
      const left = t.bookingPath.timeLeft.replace('{time}', '');
      await until(page, () => /\d+:\d{2}/.test(document.querySelector('[data-time-left]')?.textContent ?? ''));
      assert.ok((await page.locator('[data-time-left]').innerText()).includes(left.trim()), 'the countdown in the language');
      await check('hold');

      // A long address, as real ones are: it is one unbreakable word on the code page and in the footer.
      const email = `oleksandrakovalenkohernandez.${locale}@correoelectronicoseguro.example`;
      await page.fill('#f-email', email);
      await page.locator('form[action="/sign-in"] button[type="submit"]').click();
      await page.waitForURL('**/sign-in/code');
      await check('code page');
      const row = await server.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', email).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      await page.fill('#f-code', /\b(\d{6})\b/.exec(row.text ?? '')![1]!);
      await page.locator('form[action="/sign-in/code"] button[type="submit"]').click();
      await continueToPay(page);
      await check('payment');

      await page.fill('#f-number', '4242 4242 4242 4242');
      await page.fill('#f-expiry', '12/30');
      await page.fill('#f-cvc', '123');
      await page.locator('.pay-button').click();
      await page.waitForURL(confirmUrl);
      assert.equal(await page.locator('h1').innerText(), t.confirm.titleConfirmed);
      await check('confirmed');

      await page.goto(`${site}/consultations`);
      await check('my consultations');
      await page.locator('a[href^="/consultations/"]').first().click();
      await page.waitForURL('**/consultations/*');
      await check('a consultation');
      await page.goto(`${site}/account`);
      await check('account');
      // The rest of the people's side: deleting the account, passkeys, connected apps, help, contact, a missing page.
      for (const [where, label] of [
        ['/account/delete', 'delete account'],
        ['/account/passkeys', 'passkeys'],
        ['/account/apps', 'connected apps'],
        ['/help', 'help'],
        ['/contact', 'contact'],
      ] as const) {
        await page.goto(`${site}${where}`);
        await check(label);
      }
      assert.equal((await page.goto(`${site}/no/such/page`))?.status(), 404);
      await check('not found');
      await ctx.close();
      assert.equal(problems.join('\n'), '');
    });

    it(`${locale}: the public pages on a desktop`, async () => {
      const problems: string[] = [];
      const ctx = await browser.newContext({ viewport: DESKTOP, locale: browserLocale, timezoneId: 'Europe/Bucharest' });
      const page = await ctx.newPage();
      for (const [where, label] of [
        [`/?lang=${locale}`, 'home'],
        ['/?city=las-palmas-de-gran-canaria', 'search results'],
        [`/lawyers/${lawyer}`, 'profile'],
        [`/lawyers/${lawyer}/book`, 'free times'],
        ['/help', 'help'],
      ] as const) {
        await page.goto(`${site}${where}`);
        assert.equal(await page.getAttribute('html', 'lang'), locale, label);
        problems.push(...(await pageProblems(page, `${locale} ${label} (desktop)`)));
        problems.push(...(await wordsOutOfTheirBox(page)).map((p) => `${locale} ${label} (desktop): sticks out of its box: ${p}`));
        await screenshotIfAsked(page, path.join(SHOTS, `${locale}-desktop-${label.replace(/\s+/g, '-')}.png`));
      }
      await ctx.close();
      assert.equal(problems.join('\n'), '');
    });
  }
});
