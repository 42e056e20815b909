/**
 * The person's name under Account and on the hold page (issue 26 item 4), in Chromium at phone
 * (360 px) and desktop width, in Arabic (right to left) and English: the Account form (a plain
 * form: test/http/person-name.test.ts posts it as a browser without JavaScript does) refuses an
 * email address as a name (its message tied to the field), saves a name, and
 * the hold page then says which name the lawyer will see with a link to change it. axe-core finds
 * no violations and nothing is wider than the screen. Screenshots to the temporary directory
 * (consulta-screenshots/person-name-*), looked at, not kept.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, sidewaysOverflow } from '../support/browser.ts';
import { screenshot } from '../support/dashboard.ts';
import { migratedSqliteUrl } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { madridDate, slotBody } from '../support/booking.ts';

const unavailable = browserUnavailable();
const PHONE_360 = { width: 360, height: 740 };
const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

describe('the person\'s name: Account and the hold page in Chromium', { skip: unavailable, timeout: 240_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-person-name-'));
  let server: RunningServer;
  let browser: Browser;
  let lawyer: string;
  let site: string;

  before(async () => {
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'n.db')), rateLimitMultiplier: 1000 }));
    [lawyer] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Nadia El Amrani', languages: ['es', 'ar', 'fr'], weekly_hours: EVERY_DAY, formats: { video_url: 'https://meet.example.com/nadia' } })], new Date())) as [string];
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function problemsOf(page: Page, label: string): Promise<string[]> {
    const out: string[] = [];
    for (const v of (await new AxeBuilder({ page }).analyze()).violations) out.push(`${label}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).slice(0, 2).join(', ')}`);
    if ((await sidewaysOverflow(page)) > 0) out.push(`${label}: wider than the screen`);
    return out;
  }

  for (const [locale, browserLocale, typedName] of [['ar', 'ar-MA', 'أمينة حداد'], ['en', 'en-GB', 'Amina Haddad']] as const) {
    it(`Account → Your name, then the hold page (${locale}), phone and desktop`, async () => {
      const problems: string[] = [];
      for (const [label, viewport] of [['phone', PHONE_360], ['desktop', DESKTOP]] as const) {
        const user = await server.app.services.accounts.ensureUser(`name-${locale}-${label}@example.com`);
        await server.app.services.sessions.setLocale(user.id, locale);
        const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
        const context = await browser.newContext({ viewport, locale: browserLocale });
        await context.addCookies([{ name: siteCookies(site).session, value: token, domain: 'localhost', path: '/', secure: true, httpOnly: true, sameSite: 'Lax' }]);
        const page = await context.newPage();
        page.setDefaultTimeout(15_000);
        try {
          await page.goto(`${site}/account`);
          assert.equal(new URL(page.url()).pathname, '/account', 'signed in');
          assert.equal(await page.getAttribute('html', 'lang'), locale);
          assert.equal(await page.getAttribute('html', 'dir'), locale === 'ar' ? 'rtl' : 'ltr');
          await page.getByRole('textbox', { name: locale === 'ar' ? 'اسمك' : 'Your name', exact: true }).fill(`name-${locale}@example.com`);
          await page.locator('form.account-name button[type=submit]').click();
          assert.equal(await page.locator('#f-name').getAttribute('aria-invalid'), 'true');
          assert.ok(await page.locator('#f-name-error').isVisible());
          problems.push(...(await problemsOf(page, `${locale} ${label} account, refused`)));
          await screenshot(page, `person-name-account-refused-${locale}-${label}`);

          await page.locator('#f-name').fill(typedName);
          await page.locator('form.account-name button[type=submit]').click();
          assert.equal(new URL(page.url()).search, '?saved=name');
          assert.equal(await page.locator('#f-name').inputValue(), typedName);
          problems.push(...(await problemsOf(page, `${locale} ${label} account, saved`)));
          await screenshot(page, `person-name-account-saved-${locale}-${label}`);

          const hour = label === 'phone' ? '10' : '11';
          const date = madridDate(Date.now(), locale === 'ar' ? 3 : 4);
          const held = await fetch(`${site}/api/v1/bookings/initiate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(slotBody(lawyer, date, hour)) });
          assert.equal(held.status, 201, await held.clone().text());
          const { confirmation_url: url } = (await held.json()) as { confirmation_url: string };
          await page.goto(url);
          assert.equal(await page.locator('#f-person_name').count(), 0, 'asked once');
          const known = page.locator('.person-name-known');
          assert.ok((await known.innerText()).includes(typedName));
          assert.equal(await known.locator('a').getAttribute('href'), '/account#account-name');
          problems.push(...(await problemsOf(page, `${locale} ${label} hold`)));
          await screenshot(page, `person-name-hold-${locale}-${label}`);
        } finally {
          await context.close();
        }
      }
      assert.deepEqual(problems, []);
    });
  }
});
