/**
 * The site's face (docs/site.md#the-face), in Chromium: the people's pages at 390 px and on a
 * desktop, in Spanish and English — axe-core clean, nothing wider than the screen, the header's
 * navigation and footer in place — photographed to /tmp/shots-face/ to be looked at. The contact
 * form works without JavaScript (errors per field, then sent). And a right-to-left page mirrors:
 * the stylesheet uses logical properties only, so with dir="rtl" the brand moves to the right.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { axeViolations, browserUnavailable, DESKTOP, freePort, launchBrowser, PHONE, sidewaysOverflow, focusedId, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = path.join(os.tmpdir(), 'shots-face');

describe('the face of the site: phone and desktop, Spanish and English', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-face-'));
  let server: RunningServer;
  let browser: Browser;
  let id: string;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    // The site's own origin, so forms pass the same-origin check as they would in production.
    const port = await freePort();
    const site = `http://127.0.0.1:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'f.db')) }));
    [id] = (await insertLawyers(
      server.database,
      [
        lawyerRecord({ name: 'Nadia El Amrani', city: 'madrid', bio: 'Diez años de práctica en extranjería.\nHablo árabe y francés.', languages: ['es', 'ar', 'fr'] }),
        lawyerRecord({ name: 'Lucía Fernández Ruiz', city: 'madrid', languages: ['es', 'en'] }),
        lawyerRecord({ name: 'Oleksandr Kovalenko', city: 'madrid', languages: ['uk', 'ru', 'es'] }),
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

  const pages = () => [
    { name: 'home', url: '/' },
    { name: 'search', url: '/?city=madrid' },
    { name: 'profile', url: `/lawyers/${id}` },
    { name: 'sign-in', url: '/sign-in' },
    { name: 'help', url: '/help' },
    { name: 'contact', url: '/contact' },
    { name: 'aviso-legal', url: '/legal/aviso-legal' },
    { name: 'privacy', url: '/legal/privacy' },
    { name: 'terms', url: '/legal/terms' },
    { name: 'cookies', url: '/legal/cookies' },
  ];

  for (const lang of ['es', 'en'] as const) {
    it(`every people's page is axe-core clean and fits, at 390 px and on a desktop (${lang}); screenshots`, async () => {
      const problems: string[] = [];
      for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
        const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
        const page = await context.newPage();
        page.on('console', (m) => {
          if (m.type() === 'error') problems.push(`console: ${m.text()}`);
        });
        page.on('response', (r) => {
          if (r.status() >= 400) problems.push(`${r.url()} answered ${r.status()}`);
        });
        try {
          for (const p of pages()) {
            const res = await page.goto(`${server.url}${p.url}`);
            assert.equal(res?.status(), 200, `${p.name} answers`);
            assert.equal(await page.getAttribute('html', 'lang'), lang);
            problems.push(...(await axeViolations(page, `${lang} ${label} ${p.name}`)));
            const overflow = await sidewaysOverflow(page);
            if (overflow > 0) problems.push(`${lang} ${label} ${p.name}: ${overflow}px wider than the screen`);
            // The footer for people is on every page: help, contact and the legal pages.
            const footer = await page.locator('footer.site-footer').innerText();
            assert.match(footer, lang === 'es' ? /Aviso legal[\s\S]*Privacidad[\s\S]*Cookies/ : /Legal notice[\s\S]*Privacy[\s\S]*Cookies/);
            await screenshotIfAsked(page, path.join(SHOTS, `${lang}-${label}-${p.name}.png`), { fullPage: true });
          }
        } finally {
          await context.close();
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  it('the contact form works without JavaScript: errors per field, what was typed kept, then sent; its errors are axe-core clean', async () => {
    const context = await browser.newContext({ viewport: PHONE, locale: 'en-GB', javaScriptEnabled: false });
    const page = await context.newPage();
    try {
      await page.goto(`${server.url}/contact`);
      await page.getByLabel('Your name').fill('Amina');
      await page.getByLabel('Your email address').fill('amina');
      await page.getByLabel('Your message').fill('short');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.waitForLoadState();
      assert.match(await page.locator('[role="alert"]').innerText(), /correct the highlighted fields/);
      assert.equal(await page.getByLabel('Your email address').getAttribute('aria-invalid'), 'true');
      assert.equal(await page.getByLabel('Your message').inputValue(), 'short', 'what was typed is kept');
      await screenshotIfAsked(page, path.join(SHOTS, 'en-phone-contact-errors.png'), { fullPage: true });
      await page.getByLabel('Your email address').fill('amina@example.com');
      await page.getByLabel('Your message').fill('My receipt never arrived. Could you send it again?');
      await page.getByRole('button', { name: 'Send message' }).click();
      await page.waitForURL(/\/contact\/sent\?ref=/);
      assert.match(await page.locator('main').innerText(), /Message sent/);
      await screenshotIfAsked(page, path.join(SHOTS, 'en-phone-contact-sent.png'), { fullPage: true });
    } finally {
      await context.close();
    }
    // The form with its errors, checked by axe-core (which needs scripts to run).
    const scripted = await browser.newContext({ viewport: PHONE, locale: 'en-GB' });
    const again = await scripted.newPage();
    try {
      await again.goto(`${server.url}/contact`);
      await again.getByRole('button', { name: 'Send message' }).click();
      await again.waitForSelector('[role="alert"]');
      assert.equal(await focusedId(again, 'f-name'), 'f-name', 'focus on the first field to fix');
      assert.deepEqual(await axeViolations(again, 'contact with errors'), []);
    } finally {
      await scripted.close();
    }
  });

  it('with dir="rtl" the header mirrors (logical properties): the brand on the right, the navigation on the left', async () => {
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const context = await browser.newContext({ viewport, locale: 'en-GB' });
      const page = await context.newPage();
      try {
        await page.goto(`${server.url}/help`);
        const ltr = (await page.locator('.brand').boundingBox())!;
        await page.evaluate(() => document.documentElement.setAttribute('dir', 'rtl'));
        const rtl = (await page.locator('.brand').boundingBox())!;
        assert.ok(ltr.x < viewport.width / 2, `${label}: left to right, the brand starts on the left`);
        assert.ok(rtl.x + rtl.width > viewport.width / 2, `${label}: right to left, the brand is on the right`);
        // The notice's coloured edge is on the start side: the right, in RTL.
        assert.equal(await sidewaysOverflow(page), 0);
        await screenshotIfAsked(page, path.join(SHOTS, `rtl-${label}-help.png`), { fullPage: true });
      } finally {
        await context.close();
      }
    }
  });
});
