/**
 * /lawyer/calendar-feed in Chromium, in Spanish and English, at phone (390 px) and desktop width:
 * the empty page with the how-to, adding an address (read at once from a calendar server on
 * loopback), a feed whose last read failed (the last good busy times kept, the error in plain
 * words), and a bad address (the error summary takes the focus). axe-core finds nothing, nothing
 * overflows sideways. Screenshots go to /tmp/shots-calendar-feed/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, focusedId, screenshotIfAsked } from '../support/browser.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-calendar-feed';
// The Google fixture with its weekly meeting moved to start in November 2026 and never end (this server runs on the real clock).
const GOOGLE = fs
  .readFileSync(new URL('../lawyers/fixtures/calendar-feed/google.ics', import.meta.url), 'utf8')
  .replace('Madrid:20270301T100000', 'Madrid:20261102T100000')
  .replace('Madrid:20270301T113000', 'Madrid:20261102T113000')
  .replace('UNTIL=20270531T215959Z;', '');

describe('/lawyer/calendar-feed in Chromium: phone and desktop, es and en, axe-core clean', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-feed-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let calendars: http.Server;
  let calendarBase: string;
  const served = new Map<string, number>();

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    // A calendar server: /good/… always answers; /breaks/… answers once, then fails with 503.
    calendars = http.createServer((req, res) => {
      const p = req.url ?? '/';
      const n = (served.get(p) ?? 0) + 1;
      served.set(p, n);
      if (p.startsWith('/good/') || (p.startsWith('/breaks/') && n === 1)) return void res.writeHead(200, { 'content-type': 'text/calendar' }).end(GOOGLE);
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => calendars.listen(0, '127.0.0.1', resolve));
    calendarBase = `http://127.0.0.1:${(calendars.address() as AddressInfo).port}`;
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'f.db')), webhookAllowInsecureTargets: true }),
    );
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    calendars.closeAllConnections();
    await new Promise((resolve) => calendars.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function shot(page: Page, name: string) {
    await screenshotIfAsked(page, path.join(SHOTS, `${name}.png`), { fullPage: true });
  }

  /** A lawyer signed in as her own user, in a fresh browser context. */
  async function asLawyer(label: string, viewport: { width: number; height: number }, locale: string) {
    const [lawyerId] = await insertLawyers(server.database, [lawyerRecord({ name: `Lucía ${label}` })], new Date());
    const user = await server.app.services.accounts.ensureUser(`lucia-${label}@example.com`);
    await server.database.db.updateTable('lawyers').set({ user_id: user.id }).where('id', '=', lawyerId!).execute();
    const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
    const context = await browser.newContext({ viewport, locale });
    await addSessionCookie(context, site, token);
    return { lawyerId: lawyerId!, context };
  }

  for (const lang of ['es', 'en'] as const) {
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`empty, added, failed and a bad address (${lang}, ${label})`, async () => {
        const problems: string[] = [];
        const t = lang === 'es' ? { save: 'Guardar y leer ahora', label: /Dirección secreta de su calendario/, saved: /Guardado\. Hemos leído su calendario\./, failed: /respondió con un error/, kept: /mantenemos las horas ocupadas/ } : { save: 'Save and read now', label: /Secret address of your calendar/, saved: /Saved\. Your calendar was read\./, failed: /answered with an error/, kept: /we keep the busy times/ };

        const { context } = await asLawyer(`${lang}-${label}`, viewport, lang === 'es' ? 'es-ES' : 'en-GB');
        try {
          const page = await context.newPage();
          assert.equal((await page.goto(`${site}/lawyer/calendar-feed?lang=${lang}`))?.status(), 200);
          problems.push(...(await pageProblems(page, `empty ${lang} ${label}`)));
          await shot(page, `feed-empty-${lang}-${label}`);

          await page.getByLabel(t.label).fill(`${calendarBase}/good/${lang}-${label}/private-secret-9f3e/basic.ics`);
          await page.getByRole('button', { name: t.save }).click();
          await page.waitForURL(/done=saved/);
          const main = await page.locator('main').innerText();
          assert.match(main, t.saved);
          assert.ok(!main.includes('private-secret'), 'the address is not shown back');
          problems.push(...(await pageProblems(page, `added ${lang} ${label}`)));
          await shot(page, `feed-added-${lang}-${label}`);

          // A bad address: the summary takes the focus and what she typed stays.
          await page.getByLabel(t.label).fill('calendar.google.com/secret');
          await page.getByRole('button', { name: t.save }).click();
          await page.waitForSelector('#error-summary');
          assert.equal(await focusedId(page, 'error-summary'), 'error-summary');
          assert.equal(await page.getByLabel(t.label).inputValue(), 'calendar.google.com/secret');
          problems.push(...(await pageProblems(page, `bad address ${lang} ${label}`)));
          await shot(page, `feed-bad-address-${lang}-${label}`);
        } finally {
          await context.close();
        }

        // A feed that worked once and then failed: the error in plain words, the busy times kept.
        const broken = await asLawyer(`${lang}-${label}-broken`, viewport, lang === 'es' ? 'es-ES' : 'en-GB');
        try {
          const feeds = server.app.services.calendarFeeds;
          await feeds.set(broken.lawyerId, `${calendarBase}/breaks/${lang}-${label}/basic.ics`);
          await server.database.db.updateTable('lawyer_calendar_feeds').set({ manual_refresh_at: null }).where('lawyer_id', '=', broken.lawyerId).execute();
          assert.equal((await feeds.refreshNow(broken.lawyerId)).outcome, 'failed');
          const page = await broken.context.newPage();
          await page.goto(`${site}/lawyer/calendar-feed?lang=${lang}`);
          const main = await page.locator('main').innerText();
          assert.match(main, t.failed);
          assert.match(main, t.kept);
          problems.push(...(await pageProblems(page, `failed ${lang} ${label}`)));
          await shot(page, `feed-failed-${lang}-${label}`);
        } finally {
          await broken.context.close();
        }
        assert.deepEqual(problems, []);
      });
    }
  }
});
