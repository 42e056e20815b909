/**
 * What is bought, in Chromium on a phone (issue 20 items 1–2): the hold page's choices — phone
 * chosen, a number typed, a note — then paying, and the confirmed page saying what happens next
 * with the booking reference and Add to calendar (Google, Outlook, .ics). axe-clean, no sideways
 * overflow. Screenshots of the hold page, the confirmed page and My consultations in Spanish and
 * Arabic at 390 and 1280 px go to /tmp/shots-purchase (looked at, not kept).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-purchase';
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

describe('what is bought, in a real browser', { skip: unavailable, timeout: 240_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-purchase-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyer: string;
  let token: string;
  const problems: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: `sqlite:${path.join(dir, 'p.db')}`, rateLimitMultiplier: 1000 }),
      { clock: new ManualClock(Date.now()) },
    );
    [lawyer] = (await insertLawyers(
      server.database,
      [lawyerRecord({ name: 'Nadia El Amrani', city: 'almeria', weekly_hours: EVERY_DAY_9_TO_18, consultation_fee_cents: 9000, formats: { video_url: 'https://meet.example.com/nadia', phone: true, office_address: 'Paseo de Almería 12, 04001 Almería' } } as never)],
      new Date(),
    )) as [string];
    server.app.services.directoryCache.invalidate();
    const user = await server.app.services.accounts.ensureUser('amal@example.com');
    token = (await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' })).token;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function page(viewport: typeof PHONE, lang: 'es' | 'ar'): Promise<Page> {
    const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar', timezoneId: 'Africa/Casablanca' });
    await addSessionCookie(context, site, token);
    return context.newPage();
  }

  async function look(p: Page, label: string): Promise<void> {
    problems.push(...(await pageProblems(p, label)));
    await screenshotIfAsked(p, path.join(SHOTS, `${label}.png`), { fullPage: true });
  }

  /** Holds the next free time from the lawyer's booking page; lands on the hold page. */
  async function holdATime(p: Page, lang: 'es' | 'ar'): Promise<string> {
    await p.goto(`${site}/lawyers/${lawyer}/book?lang=${lang}`);
    await p.locator('.times button').first().click();
    await p.waitForURL('**/confirm/*');
    return p.url();
  }

  it('chooses a phone call on a phone, pays, and sees what happens next with Add to calendar links (Spanish)', async () => {
    const p = await page(PHONE, 'es');
    const holdUrl = await holdATime(p, 'es');
    assert.match(await p.locator('main').innerText(), /¿Cómo quieres hacer la consulta\?/);
    await p.getByLabel('Llamada telefónica').check();
    await p.fill('#f-phone', '12');
    await p.fill('#f-note', 'Mi tarjeta de residencia caduca el mes que viene. <b>¿Puedo renovarla?</b>');
    await p.locator('form[action$="/choices"] button[type="submit"]').click();
    await p.waitForLoadState();
    assert.match(await p.locator('#f-phone-error').innerText(), /no es válido/);
    assert.equal(await p.locator('#f-phone').inputValue(), '12');
    assert.match(await p.locator('#f-note').inputValue(), /<b>¿Puedo renovarla\?<\/b>/);
    await look(p, 'hold-es-390-error');
    await p.fill('#f-phone', '612 345 678');
    await p.locator('form[action$="/choices"] button[type="submit"]').click();
    await p.waitForURL('**/pay');
    // On a phone the summary is one line; its details (the choices, the policy) open on a tap.
    await p.locator('.checkout-details > summary').click();
    assert.match(await p.locator('.chosen').innerText(), /\+34 612 34 56 78/);
    assert.match(await p.locator('main').innerText(), /Política de cancelación/);
    await look(p, 'pay-es-390');
    await p.fill('#f-number', '4242 4242 4242 4242');
    await p.fill('#f-expiry', '12/30');
    await p.fill('#f-cvc', '123');
    await p.locator('form[action$="/pay"] button[type="submit"]').click();
    await p.waitForURL(holdUrl);
    const next = await p.locator('.what-next').innerText();
    assert.match(next, /Qué pasa ahora/);
    assert.match(next, /Te llaman al/);
    assert.match(next, /Referencia de la reserva: [0-9A-F]{8}/);
    const google = new URL((await p.getByRole('link', { name: 'Google Calendar' }).getAttribute('href'))!);
    assert.equal(google.hostname, 'calendar.google.com');
    assert.match(google.searchParams.get('dates')!, /^\d{8}T\d{6}Z\/\d{8}T\d{6}Z$/);
    const outlook = new URL((await p.getByRole('link', { name: 'Outlook' }).getAttribute('href'))!);
    assert.equal(outlook.hostname, 'outlook.live.com');
    assert.match((await p.getByRole('link', { name: /\.ics/ }).getAttribute('href'))!, /^\/consultations\/[0-9a-f-]{36}\.ics$/);
    await look(p, 'confirmed-es-390');
    await p.goto(`${site}/consultations`);
    assert.match(await p.locator('main').innerText(), /60 minutos · Llamada telefónica/);
    await look(p, 'consultations-es-390');
    await p.context().close();

    // The same pages at desktop width, and in Arabic (right to left).
    for (const [viewport, w] of [[DESKTOP, 1280], [PHONE, 390]] as const) {
      for (const lang of w === 1280 ? (['es', 'ar'] as const) : (['ar'] as const)) {
        const q = await page(viewport, lang);
        await q.goto(`${holdUrl}?lang=${lang}`);
        await look(q, `confirmed-${lang}-${w}`);
        await q.goto(`${site}/consultations?lang=${lang}`);
        await look(q, `consultations-${lang}-${w}`);
        await holdATime(q, lang);
        await look(q, `hold-${lang}-${w}`);
        // The offer before choosing a time: length, formats, price breakdown and policy (opened).
        await q.goto(`${site}/lawyers/${lawyer}?lang=${lang}`);
        await q.locator('.offer-summary summary').click();
        assert.match(await q.locator('.offer-summary').innerText(), lang === 'es' ? /Política de cancelación/ : /سياسة الإلغاء/);
        await look(q, `profile-${lang}-${w}`);
        await q.context().close();
      }
    }
    assert.deepEqual(problems, []);
  });
});
