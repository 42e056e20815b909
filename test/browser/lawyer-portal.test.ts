/**
 * The lawyer's portal in Chromium (issue 18 item 3; docs/lawyers.md#the-portal), in Spanish and
 * English, at phone (390 px) and desktop width: she walks overview → profile (an error first,
 * then saved; a photo uploaded) → consultation → calendar (a second range on Monday, "copy Monday
 * to Tuesday–Friday", a day off) → overview, now listed. A signed-in person without a lawyer
 * record gets the page pointing to /join. axe-core finds nothing, nothing overflows sideways.
 * Screenshots go to /tmp/shots-b/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { TEST_NOW, testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, focusedId, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-b';
/** A 64×64 PNG (a plain blue square), made here so the suite needs no file. */
const PNG_64 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAEAAAABACAIAAAAlC+aJAAAAeklEQVR4nO3PUQkAIBTAwBfHTEY0pSH8OITBAtxm7fN1wwUNaEEDWtCAFjSgBQ1oQQNa0IAWNKAFDWhBA1rQgBY0oAUNaEEDWtCAFjSgBQ1oQQNa0IAWNKAFDWhBA1rQgBY0oAUNaEEDWtCAFjSgBQ1oQQNa0IAWPHYBknbBD10neFkAAAAASUVORK5CYII=',
  'base64',
);

const WORDS = {
  es: { fee: /Tarifa de una consulta/, save: 'Guardar', copy: /Copiar el lunes/, listed: /Publicado/, upload: 'Subir la foto', errors: /Hay problemas/, overrideAdd: 'Guardar esta fecha', notLawyer: /Esta zona es para los abogados/ },
  en: { fee: /Fee for one consultation/, save: 'Save', copy: /Copy Monday/, listed: /Listed: people find you/, upload: 'Upload the photo', errors: /There are problems/, overrideAdd: 'Save this date', notLawyer: /This area is for lawyers/ },
} as const;

describe('the lawyer portal in Chromium: phone and desktop, es and en, axe-core clean', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-portal-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let n = 0;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    fs.writeFileSync(path.join(dir, 'me.png'), PNG_64);
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'p.db')) }), { clock: new ManualClock(TEST_NOW) });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const shot = (page: Page, name: string) => screenshotIfAsked(page, path.join(SHOTS, `${name}.png`), { fullPage: true });

  for (const language of ['es', 'en'] as const) {
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`walks the portal (${language}, ${label})`, async () => {
        const w = WORDS[language];
        const problems: string[] = [];
        const user = await server.app.services.accounts.ensureUser(`abogada-${++n}@example.com`);
        // Verified, with no weekly hours yet: everything but her hours is there.
        const [id] = await insertLawyers(server.database, [lawyerRecord({ weekly_hours: [], name: 'Lucía Fernández Ruiz' })], new Date(TEST_NOW));
        await server.database.db.updateTable('lawyers').set({ user_id: user.id }).where('id', '=', id!).execute();
        const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
        const context = await browser.newContext({ viewport, locale: language === 'es' ? 'es-ES' : 'en-GB' });
        await addSessionCookie(context, site, token);
        try {
          const page = await context.newPage();
          const check = async (name: string) => {
            problems.push(...(await pageProblems(page, `${name} ${language} ${label}`)));
            await shot(page, `portal-${name}-${language}-${label}`);
          };
          await page.goto(`${site}/lawyer?lang=${language}`);
          assert.match(await page.locator('main').innerText(), language === 'es' ? /Su horario semanal/ : /Your weekly hours/);
          await check('overview-unlisted');

          await page.locator('nav.dash-nav a[href="/lawyer/profile"]').click();
          await page.getByLabel(w.fee).fill('muy caro');
          await page.getByRole('button', { name: w.save, exact: true }).click();
          await page.waitForSelector('#error-summary');
          assert.equal(await focusedId(page, 'error-summary'), 'error-summary');
          assert.match(await page.locator('h2#error-summary-title').innerText(), w.errors);
          await check('profile-errors');
          await page.getByLabel(w.fee).fill('70');
          await page.getByRole('button', { name: w.save, exact: true }).click();
          await page.waitForURL(/\/lawyer\/profile\?saved=1$/);
          await page.locator('#f-photo').setInputFiles(path.join(dir, 'me.png'));
          await page.getByRole('button', { name: w.upload }).click();
          await page.waitForURL(/saved=photo$/);
          assert.equal(await page.locator('img.portal-photo').count(), 1);
          await check('profile');

          await page.locator('nav.dash-nav a[href="/lawyer/consultation"]').click();
          await page.waitForURL(/\/lawyer\/consultation$/);
          await check('consultation');

          await page.locator('nav.dash-nav a[href="/lawyer/calendar"]').click();
          await page.waitForURL(/\/lawyer\/calendar$/);
          await page.locator('#f-w1_0_start').fill('09:00');
          await page.locator('#f-w1_0_end').fill('13:00');
          await page.locator('#f-w1_1_start').fill('16:00');
          await page.locator('#f-w1_1_end').fill('19:00');
          await page.getByRole('button', { name: w.copy }).click();
          await page.waitForURL(/\/lawyer\/calendar\?saved=1$/);
          assert.equal(await page.locator('#f-w5_1_end').inputValue(), '19:00');
          await page.locator('#f-date').fill('2026-12-08');
          await page.getByRole('button', { name: w.overrideAdd }).click();
          await page.waitForURL(/saved=date/);
          await check('calendar');

          await page.locator('nav.dash-nav a[href="/lawyer"]').click();
          await page.waitForURL(/\/lawyer$/);
          assert.match(await page.locator('main').innerText(), w.listed);
          await check('overview-listed');
        } finally {
          await context.close();
        }

        // Someone without a lawyer record.
        const other = await server.app.services.accounts.ensureUser(`persona-${++n}@example.com`);
        const session = await server.app.services.sessions.create(other.id, { ip: '127.0.0.1' });
        const plain = await browser.newContext({ viewport, locale: language === 'es' ? 'es-ES' : 'en-GB' });
        await addSessionCookie(plain, site, session.token);
        try {
          const page = await plain.newPage();
          await page.goto(`${site}/lawyer?lang=${language}`);
          assert.match(await page.locator('h1').innerText(), w.notLawyer);
          problems.push(...(await pageProblems(page, `not a lawyer ${language} ${label}`)));
          await shot(page, `portal-not-lawyer-${language}-${label}`);
        } finally {
          await plain.close();
        }
        assert.deepEqual(problems, []);
      });
    }
  }
});
