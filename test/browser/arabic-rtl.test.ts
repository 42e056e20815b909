/**
 * Arabic, right to left, in Chromium (issue 19 item 1): every page a person who books sees —
 * home (with a described need, and with a bad search value), search results, profile, free times, the hold, the sign-in code page, payment, the
 * confirmation, My consultations and one consultation, Account (and its passkeys, connected apps
 * and deletion pages), help, contact, a legal page and the 404 — at phone width (390 px) and on a desktop. Each page is `<html lang="ar" dir="rtl">`,
 * mirrored (the brand at the right, the navigation at the left, headings starting at the right
 * edge), fits the screen without sideways scrolling, and axe-core finds nothing. What must stay
 * left to right inside Arabic text does: the card fields, the email field, times, prices and
 * addresses (isolated, so "09:00–10:00" never reads "10:00–09:00"). Screenshots go to SHOTS_DIR
 * (or /tmp/shots-arabic), to be looked at, not kept.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { ar } from '../../src/i18n/ar.ts';
import { LEGAL_CHROME } from '../../src/site/help/legal-texts.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, continueToPay, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots-arabic';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

/** Polls `predicate` in the page (waitForFunction uses eval, which the site's CSP forbids). */
async function until(page: Page, predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(predicate))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${predicate.toString()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Where the page's parts sit: the brand and the navigation in the header, and the first line of
 * the main heading against the heading's own box (the line starts at the heading's start edge).
 */
function layoutFacts(page: Page) {
  // No named helpers inside: the test runner's transform would name them with a function the page lacks.
  return page.evaluate(() => {
    const [brand, nav, h1Box, bar] = ['.site-header .brand', '.site-header .site-nav', 'main h1', '.site-header .bar'].map((s) => document.querySelector(s)?.getBoundingClientRect() ?? null);
    const items = [...document.querySelectorAll('.site-header .site-nav :is(a, button)')].map((el) => el.getBoundingClientRect());
    const h1 = document.querySelector('main h1');
    const range = document.createRange();
    if (h1) range.selectNodeContents(h1);
    // The first line's extent: its text boxes (a Latin name in an Arabic title is a box of its own).
    const rects = h1 ? [...range.getClientRects()] : [];
    const top = rects[0]?.top ?? 0;
    const line = rects.filter((r) => Math.abs(r.top - top) < 4 && r.width > 0);
    const firstLine = line.length ? { left: Math.min(...line.map((r) => r.left)), right: Math.max(...line.map((r) => r.right)) } : undefined;
    return {
      dir: document.documentElement.dir,
      lang: document.documentElement.lang,
      brand: brand ?? null,
      nav: nav ?? null,
      bar: bar ? { left: bar.left, right: bar.right } : null,
      // The first two items of the navigation, in reading order.
      navItems: items.slice(0, 2).map((r) => ({ left: r.left, right: r.right, top: r.top })),
      h1: h1Box ? { left: h1Box.left, right: h1Box.right } : null,
      firstLine: firstLine ? { left: firstLine.left, right: firstLine.right } : null,
      h1Direction: h1 ? getComputedStyle(h1).direction : null,
    };
  });
}

describe('Arabic, right to left, in a real browser', { skip: unavailable, timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-arabic-'));
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
      [
        lawyerRecord({
          name: 'Nadia El Amrani',
          city: 'almeria',
          bio: 'Abogada de extranjería. Atiendo en árabe, francés y español.',
          languages: ['es', 'ar', 'fr'],
          practice_areas: [
            { slug: 'arraigo-social', is_primary: true },
            { slug: 'tie-and-nie', is_primary: false },
          ],
          weekly_hours: EVERY_DAY_9_TO_18,
          consultation_fee_cents: 9000,
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

  // An Arabic browser in the Canary Islands, an hour behind the lawyer: both times are shown.
  const arabic = (viewport: typeof PHONE): Promise<BrowserContext> => browser.newContext({ viewport, locale: 'ar', timezoneId: 'Atlantic/Canary' });

  /** A page in Arabic, mirrored, fitting the screen, axe-clean; photographed. */
  async function check(page: Page, label: string, viewport: typeof PHONE, problems: string[], heading: 'rtl' | 'ltr' = 'rtl'): Promise<void> {
    const facts = await layoutFacts(page);
    assert.equal(facts.lang, 'ar', `${label}: lang`);
    assert.equal(facts.dir, 'rtl', `${label}: dir`);
    // The header mirrors: the brand at the right edge; the navigation's items run from right to left.
    assert.ok(facts.brand && facts.nav, `${label}: brand and navigation`);
    assert.ok(facts.bar && facts.brand.right > facts.bar.right - 40, `${label}: the brand at the right edge (${facts.brand.right} of ${facts.bar?.right})`);
    assert.ok(facts.nav.left < facts.brand.left || facts.nav.top >= facts.brand.bottom, `${label}: the navigation to the left of the brand, or below it`);
    const [first, second] = facts.navItems;
    assert.ok(first && second && (second.top > first.top + 4 || second.right <= first.left + 1), `${label}: the second navigation item is to the left of the first`);
    // The heading reads from the right: its first line starts at the heading's right edge.
    if (facts.h1 && facts.firstLine) {
      assert.equal(facts.h1Direction, heading, `${label}: the heading's direction`);
      const [line, box] = heading === 'rtl' ? [facts.firstLine.right, facts.h1.right] : [facts.firstLine.left, facts.h1.left];
      assert.ok(Math.abs(line - box) < 2, `${label}: the heading starts at its start edge (${line} vs ${box})`);
    }
    problems.push(...(await pageProblems(page, label)));
    const name = label.replace(/[^a-z0-9]+/gi, '-');
    await screenshotIfAsked(page, path.join(SHOTS, `${name}.png`));
    await screenshotIfAsked(page, path.join(SHOTS, `${name}-full.png`), { fullPage: true });
  }

  it('the Spanish page is the control: brand at the left, so the checks below tell a mirrored page', async () => {
    const ctx = await browser.newContext({ viewport: PHONE, locale: 'es-ES' });
    const page = await ctx.newPage();
    await page.goto(`${site}/`);
    const facts = await layoutFacts(page);
    assert.equal(facts.dir, 'ltr');
    const [first, second] = facts.navItems;
    assert.ok(facts.brand && facts.brand.left < 40 && first && second && second.left >= first.right - 1, JSON.stringify(facts));
    assert.ok(facts.h1 && facts.firstLine && Math.abs(facts.firstLine.left - facts.h1.left) < 2);
    await ctx.close();
  });

  for (const [viewport, size] of [[PHONE, 'phone'], [DESKTOP, 'desktop']] as const) {
    it(`every page a person sees, mirrored, fitting the screen, axe-clean (${size})`, async () => {
      const problems: string[] = [];
      const ctx = await arabic(viewport);
      const page = await ctx.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
      });
      const email = `amal.${size}@example.com`;

      await page.goto(`${site}/`);
      await check(page, `home ${size}`, viewport, problems);
      // What do you need help with, in Arabic words (shown back, isolated in its quotes), and a search with a bad value.
      const need = 'رُفض طلب التجذّر الاجتماعي، ما العمل؟';
      await page.goto(`${site}/?q=${encodeURIComponent(need)}`);
      const answer = await page.locator('main').innerText();
      assert.ok(answer.includes(ar.home.suggestionsFor(need)) || answer.includes(ar.home.noSuggestion), 'the need is answered in Arabic');
      await check(page, `need ${size}`, viewport, problems);
      const bad = await page.goto(`${site}/?max_fee_eur=-5`);
      assert.equal(bad?.status(), 400);
      const fee = await page.locator('#f-max_fee_eur').evaluate((el) => [getComputedStyle(el).direction, (el as HTMLInputElement).value]);
      assert.deepEqual(fee, ['ltr', '-5'], 'the amount is shown back as typed, left to right');
      await check(page, `search with an error ${size}`, viewport, problems);
      await page.goto(`${site}/?city=almeria`);
      assert.match(await page.locator('main').innerText(), new RegExp(ar.home.resultsCount(1)));
      await check(page, `search results ${size}`, viewport, problems);
      await page.goto(`${site}/lawyers/${lawyer}`);
      assert.match(await page.locator('main').innerText(), /اللغات: الإسبانية والعربية والفرنسية/);
      await check(page, `profile ${size}`, viewport, problems);

      // Free times: each time is the lawyer's, with the visitor's beneath it (booking.js).
      await page.goto(`${site}/lawyers/${lawyer}/book`);
      await page.waitForSelector('.slot-yours');
      assert.match(await page.locator('.times button').first().innerText(), /\d{2}:00\s+\d{2}:00 بتوقيتك$/);
      await check(page, `free times ${size}`, viewport, problems);

      // The hold: the countdown in Western digits, in an Arabic sentence; the time range in order.
      await page.locator('.times button').first().click();
      await page.waitForURL('**/confirm/*');
      const token = new URL(page.url()).pathname.split('/').pop()!;
      await until(page, () => /^يتبقى \d+:\d{2}$/.test(document.querySelector('[data-time-left]')?.textContent ?? ''));
      await check(page, `hold ${size}`, viewport, problems);

      // The email field reads left to right; the code page names the address intact.
      assert.equal(await page.locator('#f-email').evaluate((el) => getComputedStyle(el).direction), 'ltr', 'the email field is left to right');
      await page.fill('#f-email', email);
      await page.locator('form[action="/sign-in"] button[type="submit"]').click();
      await page.waitForURL('**/sign-in/code');
      assert.ok((await page.locator('main').innerText()).includes(ar.bookingPath.codeSentTo(email)));
      assert.equal(await page.locator('#f-code').evaluate((el) => getComputedStyle(el).direction), 'ltr', 'the code field is left to right');
      await check(page, `code page ${size}`, viewport, problems);
      const row = await server.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', email).orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      await page.fill('#f-code', /\b(\d{6})\b/.exec(row.text ?? '')![1]!);
      await page.locator('form[action="/sign-in/code"] button[type="submit"]').click();
      await continueToPay(page);

      // Payment: the card fields left to right, grouped as on the card; the summary mirrored beside the form.
      for (const field of ['#f-number', '#f-expiry', '#f-cvc']) assert.equal(await page.locator(field).evaluate((el) => getComputedStyle(el).direction), 'ltr', `${field} is left to right`);
      await page.locator('#f-number').pressSequentially('4242424242424242');
      assert.equal(await page.inputValue('#f-number'), '4242 4242 4242 4242');
      if (size === 'desktop') {
        const summary = (await page.locator('.checkout-summary').boundingBox())!;
        const form = (await page.locator('.checkout-pay').boundingBox())!;
        assert.ok(summary.x >= form.x + form.width, 'the summary is to the right of the form (mirrored)');
      }
      // A card number inside an Arabic sentence keeps its groups in order: 4000 at the left of 0002.
      const order = await page.evaluate(() => {
        const walker = document.createTreeWalker(document.querySelector('main')!, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf('4000\u00a00000\u00a00000\u00a00002');
          if (at < 0) continue;
          const [first = NaN, last = NaN] = [at, at + 15].map((start) => {
            const range = document.createRange();
            range.setStart(node, start);
            range.setEnd(node, start + 4);
            return range.getBoundingClientRect().left;
          });
          return { first, last };
        }
        return null;
      });
      assert.ok(order && order.first < order.last, `the declined test card reads 4000 … 0002 from the left: ${JSON.stringify(order)}`);
      await check(page, `payment ${size}`, viewport, problems);
      await page.locator('.pay-button').click();
      await until(page, () => document.activeElement?.id === 'card-errors');
      assert.match(await page.locator('#card-errors').innerText(), new RegExp(ar.bookingPath.clientErrors.expiry.slice(0, 20)));
      await check(page, `payment errors ${size}`, viewport, problems);
      await page.fill('#f-expiry', '12/30');
      await page.fill('#f-cvc', '123');
      await page.locator('.pay-button').click();
      await page.waitForURL(`**/confirm/${token}`);
      assert.equal(await page.locator('h1').innerText(), ar.confirm.titleConfirmed);
      await check(page, `confirmed ${size}`, viewport, problems);

      await page.goto(`${site}/consultations`);
      await check(page, `my consultations ${size}`, viewport, problems);
      await page.locator('a[href^="/consultations/"]').first().click();
      // The way back points right, the way an Arabic reader goes back.
      assert.equal((await page.locator('main a[href="/consultations"]').innerText()).trim(), `→ ${ar.account.title}`);
      await check(page, `one consultation ${size}`, viewport, problems);
      await page.goto(`${site}/account`);
      await check(page, `account ${size}`, viewport, problems);
      // The Account page's own pages: passkeys, connected AI apps, and deleting the account.
      for (const [url, label] of [['/account/passkeys', 'passkeys'], ['/account/apps', 'connected apps'], ['/account/delete', 'delete account']] as const) {
        await page.goto(`${site}${url}`);
        // In the people's frame under Account: no developer navigation, whose labels have no Arabic.
        assert.equal(await page.locator('.dash-nav').count(), 0, `${label}: no developer side navigation`);
        assert.equal((await page.locator('main a[href="/account"]').first().innerText()).trim(), `→ ${ar.myAccount.title}`, `${label}: the way back to Account`);
        await check(page, `${label} ${size}`, viewport, problems);
      }

      await page.goto(`${site}/help`);
      await check(page, `help ${size}`, viewport, problems);
      await page.goto(`${site}/contact`);
      await check(page, `contact ${size}`, viewport, problems);
      // The legal texts in Arabic, right to left like the page; the Latin names in them (LSSI-CE,
      // cookie names) do not turn a line around.
      for (const legal of ['aviso-legal', 'privacy', 'terms', 'cookies']) {
        await page.goto(`${site}/legal/${legal}`);
        assert.equal(await page.locator('article.prose').getAttribute('lang'), null, `${legal}: the page's own language`);
        assert.equal(await page.locator('article.prose').evaluate((el) => getComputedStyle(el).direction), 'rtl', `${legal}: right to left`);
        assert.ok((await page.locator('article.prose').innerText()).includes(LEGAL_CHROME.ar.prevails!), `${legal}: the Spanish text prevails, in Arabic`);
        await check(page, `legal ${legal} ${size}`, viewport, problems);
      }
      const code = page.locator('.cookie-list code').first();
      assert.equal(await code.evaluate((el) => getComputedStyle(el).direction), 'ltr', 'a cookie name reads left to right');
      const missing = await page.goto(`${site}/no/such/page`);
      assert.equal(missing?.status(), 404);
      await check(page, `not found ${size}`, viewport, problems);
      await ctx.close();
      assert.deepEqual(problems, []);
    });
  }
});
