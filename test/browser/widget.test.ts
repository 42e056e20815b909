/**
 * The booking widget in Chromium, end to end (issue 27; docs/widget.md), with third-party cookies
 * blocked: a host page on another origin (http://127.0.0.1:P) embeds the widget of the site
 * (http://localhost:S) inline in Arabic and as a pop-up in French; a time is held in the frame,
 * confirmed and paid with the demo card in a top-level tab; the host page receives
 * consulta:slot-held then consulta:confirmed; the key owner's webhook endpoint receives
 * booking_intent.confirmed for an intent whose source is widget; the request log has the calls.
 * The same page on an origin not on the key's list gets no frame content and no API answer.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { ManualClock } from '../../src/clock.ts';
import { messages } from '../../src/i18n/index.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { testConfig } from '../support/app.ts';
import { axeViolations, browserUnavailable, continueToPay, freePort, FULL_CHROMIUM_PATH, launchBrowser, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR, startReceiver, webhookKit, type Receiver } from '../webhooks/support.ts';

const unavailable = browserUnavailable();
const EVERY_DAY_8_TO_20 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const }));
/** Chromium's switch that blocks third-party cookies (the phase-out, as browsers ship it). */
const BLOCK_THIRD_PARTY_COOKIES = '--test-third-party-cookie-phaseout';

interface HostServer {
  origin: string;
  close(): Promise<void>;
}

/**
 * The integrator's site: pages that paste the snippet and write down every event they receive
 * (window.__events), and a probe page that frames a cookie-setting page of a third site.
 */
async function startHost(host: string, pages: (path: string) => string | null): Promise<HostServer> {
  const server = http.createServer((req, res) => {
    const body = pages(req.url ?? '/');
    if (body === null) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body);
  });
  server.listen(0, host);
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as AddressInfo).port;
  return { origin: `http://${host}:${port}`, close: () => new Promise((r) => server.close(() => r(undefined))) };
}

/**
 * Screenshots for docs/widget.md: written there with UPDATE_SCREENSHOTS=1, else to a temporary
 * folder. `ownFolder`: not for the docs (the 320 px checks), always in the temporary folder.
 */
async function shot(p: Page, name: string, ownFolder = false): Promise<void> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' && !ownFolder ? join(process.cwd(), 'docs', 'images', 'widget') : join(tmpdir(), 'consulta-screenshots');
  await screenshotIfAsked(p, join(dir, `${name}.png`), { fullPage: ownFolder });
}

const RECORDER = `<script>window.__events=[];window.addEventListener('message',function(e){if(e.data&&typeof e.data.type==='string'&&e.data.type.indexOf('consulta:')===0)window.__events.push({origin:e.origin,data:e.data});});</script>`;

describe('booking widget in Chromium, third-party cookies blocked', { skip: unavailable }, () => {
  for (const target of browserDatabaseTarget('sqlite')) {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let smtp: SmtpListener;
    let receiver: Receiver;
    let host: HostServer;
    let stranger: HostServer;
    let cookieSite: http.Server;
    let cookieOrigin: string;
    let site: string;
    let lawyerId: string;
    let pk: string;
    let pkId: string;
    let webhookSecret: string;

    const snippet = (attrs: string) => `<script src="${site}/embed.js" data-key="${pk}" data-lawyer="${lawyerId}" ${attrs} async></script>`;
    const page = (lang: string, body: string) => `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>NGO</title>${RECORDER}</head><body><main><h1>Ayuda a migrantes</h1>${body}</main></body></html>`;
    const events = (p: Page) => p.evaluate(() => (window as unknown as { __events: Array<{ origin: string; data: { type: string; [k: string]: unknown } }> }).__events);

    async function signInAndPay(tab: Page, email: string): Promise<void> {
      await tab.fill('#f-email', email);
      const known = smtp.messages.length;
      await tab.locator('form[action="/sign-in"] button[type="submit"]').click();
      await tab.waitForURL('**/sign-in/code');
      await smtp.waitFor(known + 1, 10_000);
      const mail = await simpleParser(smtp.messages.at(-1)!.raw);
      const code = /\b(\d{6})\b/.exec(mail.text ?? '')![1]!;
      await tab.fill('#f-code', code);
      await tab.locator('form[action="/sign-in/code"] button[type="submit"]').click();
      // Back on the hold page's choices (note, phone, the language question), then on to payment.
      await continueToPay(tab);
      await tab.fill('#f-number', '4242 4242 4242 4242');
      await tab.fill('#f-expiry', '12/30');
      await tab.fill('#f-cvc', '123');
      await tab.locator('form[action$="/pay"] button[type="submit"]').click();
      await tab.waitForURL(/\/confirm\/[A-Za-z0-9_-]+(\?.*)?$/);
    }

    before(async () => {
      db = await target.create();
      await db.database.close();
      smtp = await startSmtp();
      receiver = await startReceiver();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const clock = new ManualClock(Date.now());
      server = await startServer(
        testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, smtpUrl: smtp.url, webhookAllowInsecureTargets: true, webhookDispatchIntervalMs: 50, sweepIntervalMs: 100, rateLimitMultiplier: 1000, requestLogFlushMs: 50 }),
        { clock },
      );
      [lawyerId] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', weekly_hours: EVERY_DAY_8_TO_20, consultation_fee_cents: 6000 })], clock.now())) as [string];
      server.app.services.directoryCache.invalidate();
      host = await startHost('127.0.0.1', (path) => {
        if (path === '/inline-ar') return page('ar', snippet(''));
        if (path === '/popup-fr') return page('fr', snippet('data-mode="popup"'));
        if (path === '/floating-es') return page('es', `<p>Información para personas migrantes.</p>${snippet('data-mode="floating" data-color="0f766e" data-radius="12"')}`);
        if (path === '/cookie-probe') return page('en', `<iframe src="${cookieOrigin}/set" title="probe"></iframe>`);
        if (path === '/fetch') return page('es', '');
        // The 320 px checks: inline, a lawyer's booker or a search preset, in a language.
        const narrow = /^\/narrow-(booker|search)-(ar|fr|en)$/.exec(path);
        if (narrow) return page(narrow[2]!, narrow[1] === 'booker' ? snippet('') : snippet('').replace(`data-lawyer="${lawyerId}"`, 'data-city="almeria"'));
        return null;
      });
      stranger = await startHost('127.0.0.1', (path) => (path === '/inline' ? page('es', snippet('')) : path === '/fetch' ? page('es', '') : null));
      // A third site whose page sets a cookie: framed by the host page, its cookie is third-party.
      cookieSite = http.createServer((_req, res) => res.writeHead(200, { 'set-cookie': 'probe=1; Path=/; SameSite=None; Secure', 'content-type': 'text/html' }).end('<p>probe</p>'));
      cookieSite.listen(0, '127.0.0.1');
      await new Promise((r) => cookieSite.once('listening', r));
      cookieOrigin = `http://localhost:${(cookieSite.address() as AddressInfo).port}`;

      const created = await server.app.services.keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live', publishable: true, origins: [host.origin] });
      pk = created.token;
      pkId = created.key.id;
      const kit = webhookKit(server.database, { clock });
      webhookSecret = (await kit.service.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { url: `${receiver.url}/hooks` })).secret;
      await kit.close();
      // The whole browser, not the headless shell: the shell has no third-party cookie settings and
      // ignores the switch (its framed probe sets its cookie), and this suite's point is a browser
      // that blocks them.
      browser = await launchBrowser([BLOCK_THIRD_PARTY_COOKIES], FULL_CHROMIUM_PATH);
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await host?.close();
      await stranger?.close();
      await new Promise((r) => (cookieSite ? cookieSite.close(() => r(undefined)) : r(undefined)));
      await receiver?.close();
      await smtp?.close();
      await db?.drop();
    });

    it('third-party cookies are blocked in this browser (a framed page of another site cannot set one; the same page at top level can)', async () => {
      const context = await browser.newContext();
      const p = await context.newPage();
      await p.goto(`${host.origin}/cookie-probe`);
      await p.frameLocator('iframe').locator('p').waitFor();
      assert.equal((await context.cookies(cookieOrigin)).filter((c) => c.name === 'probe').length, 0);
      await p.goto(`${cookieOrigin}/set`);
      assert.equal((await context.cookies(cookieOrigin)).filter((c) => c.name === 'probe').length, 1);
      await context.close();
    });

    it('inline in Arabic: hold in the frame, confirm and pay at top level; the host page gets slot-held then confirmed; the webhook and the request log follow', async () => {
      const context = await browser.newContext({ viewport: PHONE });
      const p = await context.newPage();
      await p.goto(`${host.origin}/inline-ar`);
      const frame = p.frameLocator('iframe');
      const ar = messages('ar').widget;
      await frame.locator('h2', { hasText: ar.chooseTime }).waitFor();
      assert.equal(await frame.locator('html').getAttribute('dir'), 'rtl');
      await shot(p, 'inline-ar-phone');
      assert.deepEqual(await axeViolations(p, 'widget inline, Arabic'), []);
      await frame.locator('.w-times button').first().click();
      await frame.locator('h1', { hasText: ar.heldTitle }).waitFor();
      const held = (await events(p)).filter((e) => e.data.type === 'consulta:slot-held');
      assert.equal(held.length, 1);
      assert.equal(held[0]!.origin, site);
      const intentId = held[0]!.data.booking_intent_id as string;
      assert.equal(held[0]!.data.lawyer_id, lawyerId);
      assert.equal(held[0]!.data.version, 1);
      assert.ok(!JSON.stringify(held[0]!.data).includes('@'), 'no personal data in events');

      const [tab] = await Promise.all([context.waitForEvent('page'), frame.locator('#continue').click()]);
      await tab.waitForLoadState();
      await tab.locator('#f-email').waitFor();
      await signInAndPay(tab, 'amal@example.com');

      // The frame polls and learns the outcome; the host page is told.
      await frame.locator('h1', { hasText: ar.confirmedTitle }).waitFor({ timeout: 20_000 });
      const types = (await events(p)).map((e) => e.data.type).filter((t) => t !== 'consulta:resized' && t !== 'consulta:ready');
      assert.deepEqual(types, ['consulta:slot-held', 'consulta:confirmed']);
      assert.equal((await events(p)).find((e) => e.data.type === 'consulta:confirmed')!.data.booking_intent_id, intentId);

      const intent = await server.database.db.selectFrom('booking_intents').selectAll().where('id', '=', intentId).executeTakeFirstOrThrow();
      assert.deepEqual([intent.status, intent.source, intent.key_id], ['confirmed', 'widget', pkId]);
      const [hook] = await receiver.waitFor(1, 15_000);
      const payload = new Webhook(webhookSecret).verify(hook!.body, hook!.headers) as { type: string; data: { booking_intent_id: string } };
      assert.equal(payload.type, 'booking_intent.confirmed');
      assert.equal(payload.data.booking_intent_id, intentId);

      // Nothing the frame did relied on a cookie: the site's cookies are the top-level tab's.
      await server.app.services.requestLog.flush();
      const logged = await server.database.db.selectFrom('request_log').select(['path', 'method']).where('key_id', '=', pkId).execute();
      assert.ok(logged.some((r) => r.method === 'POST' && r.path === `/embed/lawyers/${lawyerId}/hold`));
      assert.ok(logged.some((r) => r.path.startsWith('/embed/status/') || r.path.startsWith('/embed/held/')));
      await context.close();
    });

    it('as a pop-up in French: the button opens the booker in a dialog; holding there tells the host page', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
      const p = await context.newPage();
      await p.goto(`${host.origin}/popup-fr`);
      const fr = messages('fr').widget;
      await p.getByRole('button', { name: 'Réserver une consultation' }).click();
      const frame = p.frameLocator('dialog iframe');
      await frame.locator('h2', { hasText: fr.chooseTime }).waitFor();
      assert.equal(await frame.locator('html').getAttribute('lang'), 'fr');
      await shot(p, 'popup-fr-desktop');
      await frame.locator('.w-times button').first().click();
      await frame.locator('h1', { hasText: fr.heldTitle }).waitFor();
      assert.ok((await events(p)).some((e) => e.data.type === 'consulta:slot-held'));
      await context.close();
    });

    it('as a floating button in Spanish, themed: the button sits in the corner and opens the booker, at 320 px too', async () => {
      const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
      const p = await context.newPage();
      await p.goto(`${host.origin}/floating-es`);
      const button = p.getByRole('button', { name: 'Reservar una consulta' });
      await shot(p, 'floating-es-closed');
      await button.click();
      const frame = p.frameLocator('dialog iframe');
      await frame.locator('h2', { hasText: messages('es').widget.chooseTime }).waitFor();
      assert.equal(await frame.locator('html').evaluate((el) => el.scrollWidth - el.clientWidth), 0, 'no sideways scrolling at 320 px');
      // The dialog's close button is a finger-sized target too, whatever the host page's styles.
      const close = await p.locator('dialog > button').boundingBox();
      assert.ok(close !== null && close.height >= 24 && close.width >= 24, `close button ${JSON.stringify(close)}`);
      await shot(p, 'floating-es-open-320');
      await context.close();
    });

    it('at 320 px, inline, in Arabic, French and English: the booker\'s week and times and the search preset fit without sideways scrolling, every link and button is at least 24 px, axe finds nothing', async () => {
      const context = await browser.newContext({ viewport: { width: 320, height: 640 } });
      const p = await context.newPage();
      for (const lang of ['ar', 'fr', 'en'] as const) {
        for (const what of ['booker', 'search'] as const) {
          const label = `widget inline at 320 px, ${what}, ${lang}`;
          await p.goto(`${host.origin}/narrow-${what}-${lang}`);
          const frame = p.frameLocator('iframe');
          const t = messages(lang).widget;
          await frame.locator('h1', { hasText: what === 'booker' ? 'Nadia El Amrani' : t.lawyersTitle }).waitFor();
          if (what === 'booker') await frame.locator('.w-times button').first().waitFor();
          // embed.js sizes the frame to its content: wait until it has.
          await p.waitForFunction(() => {
            const f = document.querySelector('iframe');
            return f !== null && f.getBoundingClientRect().height > 200;
          });
          await shot(p, `narrow-${what}-${lang}-320`, true);
          const html = frame.locator('html');
          assert.equal(await html.getAttribute('dir'), lang === 'ar' ? 'rtl' : 'ltr');
          assert.ok(await html.evaluate((el) => el.scrollWidth <= el.clientWidth), `${label}: the frame scrolls sideways`);
          assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= document.documentElement.clientWidth), `${label}: the host page scrolls sideways`);
          // Nothing cut at either edge, and every target big enough for a finger (WCAG 2.5.8: 24 × 24 CSS px).
          const problems = await frame.locator('a, button').evaluateAll((els) =>
            els.flatMap((el) => {
              const r = el.getBoundingClientRect();
              const out: string[] = [];
              if (r.left < 0 || r.right > document.documentElement.clientWidth + 0.5) out.push(`${el.textContent} sticks out (${Math.round(r.left)}–${Math.round(r.right)})`);
              if (r.width < 24 || r.height < 24) out.push(`${el.textContent} is ${Math.round(r.width)} × ${Math.round(r.height)} px`);
              return out;
            }),
          );
          assert.deepEqual(problems, [], label);
          assert.deepEqual(await axeViolations(p, label), []);
        }
      }
      await context.close();
    });

    it('on an origin not on the key\'s list: no frame content (frame-ancestors) and no API answer (CORS)', async () => {
      const context = await browser.newContext();
      const p = await context.newPage();
      const blocked: string[] = [];
      p.on('console', (m) => blocked.push(m.text()));
      await p.goto(`${stranger.origin}/inline`);
      await p.locator('iframe').waitFor();
      // The frame's document never becomes ours: Chromium refuses it (frame-ancestors) and says so.
      await p.waitForFunction(() => true);
      const frame = p.frames().find((f) => f !== p.mainFrame())!;
      await frame.waitForLoadState();
      assert.equal(await frame.locator('.w-main').count().catch(() => 0), 0);
      assert.equal((await events(p)).length, 0);
      const api = (origin: string) =>
        p.evaluate(
          ([url, key]) => fetch(url!, { headers: { authorization: `Bearer ${key}` } }).then((r) => `status ${r.status}`, (e: Error) => `blocked: ${e.name}`),
          [`${site}/api/v1/lawyers/search`, pk],
        ).then((r) => `${origin}: ${r}`);
      assert.match(await api('stranger'), /blocked: TypeError/);
      await p.goto(`${host.origin}/fetch`);
      assert.match(await api('listed'), /status 200/);
      await context.close();
    });
  }
});
