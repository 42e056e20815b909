/**
 * A people-only language in Chromium (docs/site.md, "Languages"): every page a person who books
 * sees, in French, at 390 px (and search and payment on a desktop) — axe-core clean, nothing wider
 * than the screen (French words are longer), photographed to /tmp/shots-l1/ to be looked at — and
 * the language switcher: a list of every language in its own name that works without JavaScript
 * and, with it, closes on Escape; opened right to left, it stays on the screen.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { LOCALES } from '../../src/i18n/index.ts';
import { LOCALE_INFO } from '../../src/i18n/locales.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, continueToPay, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-l1';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

describe('French in a real browser: every people page on a phone, the switcher', { skip: unavailable, timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-lang-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyer: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'l.db')), rateLimitMultiplier: 1000 }));
    [lawyer] = (await insertLawyers(
      server.database,
      [
        lawyerRecord({
          name: 'Nadia Benali Ortega',
          city: 'las-palmas-de-gran-canaria',
          bio: 'Abogada de extranjería en Las Palmas.',
          languages: ['es', 'ar', 'fr'],
          practice_areas: [
            { slug: 'highly-qualified-professionals', is_primary: true },
            { slug: 'eu-family-member-card', is_primary: false },
            { slug: 'democratic-memory-law', is_primary: false },
          ],
          weekly_hours: EVERY_DAY_9_TO_18,
        }),
        lawyerRecord({ name: 'Lucía Fernández Ruiz', city: 'las-palmas-de-gran-canaria', languages: ['es', 'en'], weekly_hours: EVERY_DAY_9_TO_18 }),
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

  async function check(page: Page, problems: string[], label: string, shot: string): Promise<void> {
    assert.equal(await page.getAttribute('html', 'lang'), 'fr', `${label}: French`);
    problems.push(...(await pageProblems(page, label)));
    await screenshotIfAsked(page, path.join(SHOTS, `${shot}.png`), { fullPage: true });
    // And the first screen alone, for long pages (the free times) to be read at full size.
    await screenshotIfAsked(page, path.join(SHOTS, `${shot}-top.png`));
  }

  it('every page a person who books sees, in French at 390 px: axe-core clean, fits the screen; search and payment on a desktop too', async () => {
    const problems: string[] = [];
    const context = await browser.newContext({ viewport: PHONE, locale: 'fr-FR', timezoneId: 'Europe/Paris' });
    const page = await context.newPage();
    // Error pages answer 4xx on purpose; anything else they load (styles, scripts, images) must not.
    page.on('console', (m) => {
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
    });
    page.on('response', (r) => {
      if (r.status() >= 400 && r.request().resourceType() !== 'document') problems.push(`${r.url()} answered ${r.status()}`);
    });
    try {
      const publicPages: Array<[string, string]> = [
        ['home', '/'],
        ['search', '/?city=las-palmas-de-gran-canaria'],
        ['profile', `/lawyers/${lawyer}`],
        ['free-times', `/lawyers/${lawyer}/book`],
        ['sign-in', '/sign-in'],
        ['help', '/help'],
        ['contact', '/contact'],
        ['legal-notice', '/legal/aviso-legal'],
        ['privacy', '/legal/privacy'],
        ['terms', '/legal/terms'],
        ['cookies', '/legal/cookies'],
        ['not-found', '/no/such/page'],
        ['bad-search', '/?max_fee_eur=abc'],
      ];
      for (const [name, url] of publicPages) {
        await page.goto(`${site}${url}`);
        await check(page, problems, name, `fr-phone-${name}`);
      }
      // The switcher, opened (the picture shows the list over the page).
      await page.goto(`${site}/`);
      await page.locator('.lang-menu summary').click();
      await check(page, problems, 'switcher open', 'fr-phone-switcher-open');

      // A contact form with errors.
      await page.goto(`${site}/contact`);
      await page.locator('form[action="/contact"] button[type="submit"]').click();
      await page.waitForLoadState();
      await check(page, problems, 'contact with errors', 'fr-phone-contact-errors');

      // The booking: hold, sign in with the code, pay, the confirmation, My consultations, Account.
      await page.goto(`${site}/lawyers/${lawyer}/book`);
      await page.waitForSelector('.slot-yours').catch(() => undefined);
      await page.locator('.times button').first().click();
      await page.waitForURL('**/confirm/*');
      const confirmUrl = page.url();
      await check(page, problems, 'hold', 'fr-phone-hold');
      await page.fill('#f-email', 'camille@example.com');
      await page.locator('form[action="/sign-in"] button[type="submit"]').click();
      await page.waitForURL('**/sign-in/code');
      await check(page, problems, 'code page', 'fr-phone-code');
      const row = await server.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', 'camille@example.com').orderBy('created_at', 'desc').executeTakeFirstOrThrow();
      assert.match(row.text, /^Votre code de connexion est/);
      await page.fill('#f-code', /\b(\d{6})\b/.exec(row.text)![1]!);
      await page.locator('form[action="/sign-in/code"] button[type="submit"]').click();
      await continueToPay(page);
      await check(page, problems, 'payment', 'fr-phone-pay');
      // The card checked in the page, its errors in French.
      await page.fill('#f-number', '4242 4242 4242 4241');
      await page.fill('#f-expiry', '12/30');
      await page.fill('#f-cvc', '123');
      await page.locator('.pay-button').click();
      assert.match(await page.locator('#card-errors').innerText(), /Le numéro de carte n’est pas valide/);
      await check(page, problems, 'payment, card errors', 'fr-phone-pay-errors');
      await page.fill('#f-number', '4242 4242 4242 4242');
      await page.locator('.pay-button').click();
      await page.waitForURL(confirmUrl);
      assert.match(await page.locator('main').innerText(), /Votre consultation est réservée/);
      await check(page, problems, 'confirmed', 'fr-phone-confirmed');
      for (const [name, url] of [
        ['my-consultations', '/consultations'],
        ['account', '/account'],
        ['connected-apps', '/account/apps'],
        ['passkeys', '/account/passkeys'],
        ['delete-account', '/account/delete'],
      ] as const) {
        await page.goto(`${site}${url}`);
        await check(page, problems, name, `fr-phone-${name}`);
      }
      const detail = await page.goto(`${site}/consultations`).then(() => page.locator('a[href^="/consultations/"]').first().getAttribute('href'));
      await page.goto(`${site}${detail}`);
      await check(page, problems, 'a consultation', 'fr-phone-consultation');

      // A desktop: search, and the payment page of a second hold.
      await page.setViewportSize(DESKTOP);
      await page.goto(`${site}/?city=las-palmas-de-gran-canaria`);
      await check(page, problems, 'search (desktop)', 'fr-desktop-search');
      await page.goto(`${site}/lawyers/${lawyer}/book`);
      await page.locator('.times button').nth(1).click();
      await page.waitForURL('**/confirm/*');
      await page.goto(`${page.url()}/pay`);
      await check(page, problems, 'payment (desktop)', 'fr-desktop-pay');
    } finally {
      await context.close();
    }
    assert.deepEqual(problems, []);
  });

  it('the switcher lists every language in its own name and works without JavaScript; with it, Escape closes it', async () => {
    const noScript = await browser.newContext({ viewport: PHONE, locale: 'fr-FR', javaScriptEnabled: false });
    try {
      const page = await noScript.newPage();
      await page.goto(`${site}/help`);
      const summary = page.locator('.lang-menu summary');
      assert.match(await summary.innerText(), /Français/);
      assert.equal(await page.locator('.lang-menu ul').isVisible(), false, 'closed at first');
      await summary.click();
      const links = page.locator('.lang-menu a');
      assert.deepEqual(await links.allInnerTexts(), LOCALES.map((l) => LOCALE_INFO[l]!.name), 'every language, in its own name');
      for (const l of LOCALES) assert.equal(await page.locator(`.lang-menu a[hreflang="${l}"]`).getAttribute('lang'), l);
      await page.locator('.lang-menu a[hreflang="es"]').click();
      await page.waitForURL('**/help?lang=es');
      assert.equal(await page.getAttribute('html', 'lang'), 'es');
      assert.match(await page.locator('h1').innerText(), /Ayuda/);
      // Remembered: the next page is Spanish without ?lang.
      await page.goto(`${site}/contact`);
      assert.equal(await page.getAttribute('html', 'lang'), 'es');
    } finally {
      await noScript.close();
    }
    const scripted = await browser.newContext({ viewport: PHONE, locale: 'fr-FR' });
    try {
      const page = await scripted.newPage();
      await page.goto(`${site}/`);
      await page.locator('.lang-menu summary').focus();
      await page.keyboard.press('Enter');
      assert.equal(await page.locator('.lang-menu ul').isVisible(), true, 'opened from the keyboard');
      await page.keyboard.press('Tab');
      await page.keyboard.press('Escape');
      assert.equal(await page.locator('.lang-menu ul').isVisible(), false, 'Escape closes it');
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'SUMMARY', 'focus back on its button');
      // Right to left (Arabic, once its catalogue lands): the open list stays on the screen, under its button.
      for (const viewport of [PHONE, DESKTOP]) {
        await page.setViewportSize(viewport);
        await page.evaluate(() => document.documentElement.setAttribute('dir', 'rtl'));
        await page.locator('.lang-menu summary').click();
        const list = (await page.locator('.lang-menu ul').boundingBox())!;
        const button = (await page.locator('.lang-menu summary').boundingBox())!;
        assert.ok(list.x >= 0 && list.x + list.width <= viewport.width, `the list fits the screen at ${viewport.width} px, right to left: ${JSON.stringify({ list, button })}`);
        assert.ok(list.y >= button.y + button.height, 'below its button');
        await screenshotIfAsked(page, path.join(SHOTS, `rtl-switcher-open-${viewport.width}.png`));
        await page.keyboard.press('Escape');
      }
    } finally {
      await scripted.close();
    }
  });
});
