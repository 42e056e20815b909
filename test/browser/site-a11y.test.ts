/**
 * Every site page a person can reach without signing in, in Chromium at phone size, in both
 * languages: axe-core finds no violations, nothing overflows the screen sideways, no console
 * errors (the CSP would report blocked inline code there).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server.ts';
import { SITE, testConfig } from '../support/app.ts';
import { axeResults, browserUnavailable, DESKTOP, launchBrowser, PHONE, sidewaysOverflow, screenshotIfAsked } from '../support/browser.ts';
import { screenshot } from '../support/dashboard.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();

/** Full-page screenshots for a person to look at (outside the repo): SHOTS_DIR, or the temporary directory. */
async function shot(page: Page, name: string): Promise<void> {
  const out = process.env.SHOTS_DIR ?? path.join(os.tmpdir(), 'consulta-screenshots');
  await screenshotIfAsked(page, path.join(out, `${name}.png`), { fullPage: true });
}

describe('site pages: accessibility and layout at phone size, in both languages', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-a11y-'));
  let server: RunningServer;
  let browser: Browser;
  let id: string;
  before(async () => {
    server = await startServer(testConfig({ port: 0, host: '127.0.0.1', databaseUrl: await migratedSqliteUrl(path.join(dir, 'a.db')) }));
    [id] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', bio: 'Ten years of practice.\nArabic and French.', languages: ['es', 'ar', 'fr'] })], new Date())) as [string];
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
    { name: 'search results', url: '/?city=almeria' },
    { name: 'what do you need help with', url: `/?q=${encodeURIComponent('Me denegaron el arraigo social, <b>ayuda</b>')}` },
    { name: 'search with an error', url: '/?max_fee_eur=-5' },
    { name: 'lawyer profile', url: `/lawyers/${id}` },
    { name: 'booking page', url: `/lawyers/${id}/book` },
    { name: 'error codes', url: '/docs/errors' },
    { name: 'one error code', url: '/docs/errors/rate_limited' },
    { name: 'test mode', url: '/booking/test-mode' },
    { name: 'not found', url: '/nothing/here' },
    { name: 'a form address opened as a page (405)', url: '/sign-out' },
    { name: 'unknown confirmation link', url: '/confirm/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    { name: 'help', url: '/help' },
    { name: 'contact form', url: '/contact' },
    { name: 'legal notice', url: '/legal/aviso-legal' },
    { name: 'privacy', url: '/legal/privacy' },
    { name: 'booking terms', url: '/legal/terms' },
    { name: 'cookie statement', url: '/legal/cookies' },
  ];

  it('the 404 page for a signed-in reader: their language, the signed-in header, no axe-core violations; screenshots', async () => {
    const user = await server.app.services.accounts.ensureUser('lector@example.com');
    await server.app.services.sessions.setLocale(user.id, 'es');
    const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
    const problems: string[] = [];
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      // An English browser; the account says Spanish.
      const context = await browser.newContext({ viewport, locale: 'en-GB' });
      await context.addCookies([{ name: siteCookies(SITE).session, value: token, url: server.url }]);
      const page = await context.newPage();
      try {
        const res = await page.goto(`${server.url}/developer/nothing-here`);
        assert.equal(res?.status(), 404);
        assert.equal(await page.getAttribute('html', 'lang'), 'es');
        const nav = await page.locator('nav.site-nav').innerText();
        assert.match(nav, /Mis consultas/);
        assert.match(nav, /Salir/);
        assert.doesNotMatch(nav, /Entrar/);
        for (const v of (await axeResults(page)).violations) problems.push(`${label}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).slice(0, 2).join(', ')}`);
        if ((await sidewaysOverflow(page)) > 0) problems.push(`${label}: wider than the screen`);
        await screenshot(page, `not-found-signed-in-es-${label}`);
      } finally {
        await context.close();
      }
    }
    assert.deepEqual(problems, []);
  });

  for (const lang of ['es', 'en'] as const) {
    it(`has no axe-core violations and fits a phone screen (${lang})`, async () => {
      const context = await browser.newContext({ viewport: { width: 360, height: 740 }, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
      const page = await context.newPage();
      const problems: string[] = [];
      // Error pages answer 400/404 on purpose; any other failed load (a blocked asset, a missing
      // file) or console error (the CSP reports blocked inline code there) is a problem.
      page.on('console', (m) => {
        if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console: ${m.text()}`);
      });
      page.on('response', (r) => {
        if (r.request().resourceType() !== 'document' && r.status() >= 400) problems.push(`${r.url()} answered ${r.status()}`);
      });
      try {
        for (const p of pages()) {
          await page.goto(`${server.url}${p.url}`);
          assert.equal(await page.getAttribute('html', 'lang'), lang, `${p.name} is in ${lang}`);
          const result = await axeResults(page);
          for (const v of result.violations) problems.push(`${p.name}: ${v.id} (${v.impact}) ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
          const overflow = await sidewaysOverflow(page);
          if (overflow > 0) problems.push(`${p.name}: ${overflow}px wider than the screen`);
        }
      } finally {
        await context.close();
      }
      assert.deepEqual(problems, []);
    });
  }

  // Phone first (docs/site.md): after a search a phone shows the results, each card's first free
  // times are in reach; the folded filters open with a tap, without JavaScript. Screenshots of the
  // home page with suggestions and of the results, phone and desktop, both languages.
  for (const lang of ['es', 'en'] as const) {
    it(`phone first: results and their free times on the first screen, filters open with a tap, axe-core clean (${lang})`, async () => {
      const problems: string[] = [];
      for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
        const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
        const page = await context.newPage();
        try {
          const need = lang === 'es' ? 'Me denegaron el arraigo social' : 'My asylum was refused';
          await page.goto(`${server.url}/?q=${encodeURIComponent(need)}`);
          const suggestion = page.locator('.suggestion-list a').first();
          assert.ok(await suggestion.isVisible(), 'a suggestion is shown');
          await shot(page, `need-${lang}-${label}`);
          for (const v of (await axeResults(page)).violations) problems.push(`${label} need: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).slice(0, 2).join(', ')}`);

          await page.goto(`${server.url}/?city=almeria`);
          const firstTime = page.locator('.first-times button').first();
          const box = await firstTime.boundingBox();
          assert.ok(box && box.y + box.height <= viewport.height, `${label}: the first card's first free time is on the first screen (${box?.y})`);
          assert.equal(await page.locator('.search-filters').getAttribute('open'), null, 'filters folded');
          assert.equal(await page.locator('#f-city').isVisible(), false);
          await shot(page, `results-${lang}-${label}`);
          for (const v of (await axeResults(page)).violations) problems.push(`${label} results: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).slice(0, 2).join(', ')}`);
          if ((await sidewaysOverflow(page)) > 0) problems.push(`${label}: wider than the screen`);
        } finally {
          await context.close();
        }
        // The folded filters are a <details>: a tap opens them with JavaScript off (axe-core needs it on, above).
        const noScript = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB', javaScriptEnabled: false });
        try {
          const page = await noScript.newPage();
          await page.goto(`${server.url}/?city=almeria`);
          await page.locator('.search-filters > summary').click();
          assert.equal(await page.locator('#f-city').isVisible(), true, 'a tap opens the filters, without JavaScript');
          await shot(page, `results-open-${lang}-${label}`);
        } finally {
          await noScript.close();
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
