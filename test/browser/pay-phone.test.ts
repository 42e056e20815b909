/**
 * The payment page on a narrow phone (issue 25 item 13): at 360×740 the card-number field is in
 * the first screen — the summary is one line with a "details" disclosure (a plain <details>, so it
 * opens without JavaScript) instead of two screens of facts and the policy already shown twice
 * before. axe-clean, no sideways overflow, in Spanish and Arabic; screenshots at 360 and 1280 px
 * go to /tmp/shots-pay-phone (looked at, not kept).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { PurchaseService } from '../../src/domain/booking/purchase.service.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { slotBody } from '../support/booking.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-pay-phone';
const NARROW = { width: 360, height: 740 };
const EVERY_DAY_9_TO_18 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '18:00:00', slot_minutes: 60 as const }));

describe('the payment page on a narrow phone', { skip: unavailable, timeout: 240_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-pay-phone-'));
  let server: RunningServer;
  const clock = new ManualClock(Date.now());
  let browser: Browser;
  let site: string;
  let lawyer: string;
  let session: string;
  let userId: string;
  let address = 0;
  let hour = 9;
  const problems: string[] = [];

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: `sqlite:${path.join(dir, 'p.db')}`, rateLimitMultiplier: 1000 }),
      { clock },
    );
    [lawyer] = (await insertLawyers(server.database, [lawyerRecord({ name: 'María José Fernández de la Torre', city: 'almeria', weekly_hours: EVERY_DAY_9_TO_18 })], new Date())) as [string];
    server.app.services.directoryCache.invalidate();
    const user = await server.app.services.accounts.ensureUser('amal@example.com');
    userId = user.id;
    session = (await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' })).token;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /**
   * A hold three days ahead with its choices made (a phone number and a long note, and the answer to
   * the language question an Arabic reader is asked by a lawyer who speaks no Arabic): its payment page's path.
   */
  async function payPath(): Promise<string> {
    const date = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const res = await server.app.fastify.inject({ method: 'POST', url: '/api/v1/bookings/initiate', payload: slotBody(lawyer, date, String(hour++).padStart(2, '0')), remoteAddress: `198.51.100.${++address}` });
    assert.equal(res.statusCode, 201, res.body);
    const token = new URL((res.json() as { confirmation_url: string }).confirmation_url).pathname.split('/').pop()!;
    const outcome = await new PurchaseService({ database: server.database, clock }).choose(token, { userId, name: null, languages: ['ar'] }, { language_ack: 'interpreter', phone: '612 345 678', note: 'Mi tarjeta de residencia caduca el mes que viene y necesito saber qué documentos hacen falta para renovarla a tiempo.' });
    assert.equal(outcome.kind, 'saved');
    return `/confirm/${token}/pay`;
  }

  async function context(viewport: typeof NARROW, lang: 'es' | 'ar', javaScriptEnabled = true): Promise<BrowserContext> {
    const c = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar', timezoneId: 'America/Bogota', javaScriptEnabled });
    await addSessionCookie(c, site, session);
    return c;
  }

  it('at 360×740 the card number is in the first screen, under a one-line summary whose details open without JavaScript', async () => {
    for (const lang of ['es', 'ar'] as const) {
      for (const js of [true, false]) {
        const c = await context(NARROW, lang, js);
        const p = await c.newPage();
        await p.goto(`${site}${await payPath()}?lang=${lang}`);
        if (js) await screenshotIfAsked(p, path.join(SHOTS, `pay-${lang}-360-first-screen.png`));
        const box = await p.locator('#f-number').boundingBox();
        assert.ok(box, 'the card number field is shown');
        if (js) assert.equal(await p.evaluate(() => window.scrollY), 0);
        assert.ok(box.y >= 0 && box.y + box.height <= NARROW.height, `${lang}, JavaScript ${js ? 'on' : 'off'}: the card number's field ends at ${Math.round(box.y + box.height)} px, below the first screen (${NARROW.height} px)`);
        // The facts and the policy are one tap away, in a <details> that needs no script.
        const details = p.locator('details.checkout-details');
        assert.equal(await details.getAttribute('open'), null, 'closed on a phone');
        assert.equal(await p.locator('.checkout-details .policy').isVisible(), false);
        const line = await p.locator('.checkout-details > summary').innerText();
        assert.match(line, /María José Fernández de la Torre/);
        assert.match(line, /60[.,٫]00/);
        assert.ok((await p.locator('.checkout-details > summary').boundingBox())!.height < 140, 'a short summary');
        await p.locator('.checkout-details > summary').click();
        assert.equal(await details.getAttribute('open'), '');
        assert.equal(await p.locator('.checkout-details .policy').isVisible(), true);
        assert.match(await p.locator('.checkout-details').innerText(), lang === 'es' ? /\+34 612 34 56 78[\s\S]*Política de cancelación/ : /\+34 612 34 56 78[\s\S]*سياسة الإلغاء/);
        // The time left stays in sight, outside the details.
        assert.equal(await p.locator('.checkout-summary > .checkout-time-left [data-time-left]').isVisible(), true);
        // axe runs as a script: checked on the JavaScript run.
        if (js) problems.push(...(await pageProblems(p, `pay ${lang} 360`)));
        if (js) {
          await p.locator('.checkout-details > summary').click();
          await screenshotIfAsked(p, path.join(SHOTS, `pay-${lang}-360.png`));
          await p.locator('.checkout-details > summary').click();
          await screenshotIfAsked(p, path.join(SHOTS, `pay-${lang}-360-details.png`), { fullPage: true });
        }
        await c.close();
      }
    }
    assert.deepEqual(problems, []);
  });

  it('on a desktop the summary is open beside the card form (with JavaScript), and closed but one click away without', async () => {
    for (const lang of ['es', 'ar'] as const) {
      const c = await context(DESKTOP, lang);
      const p = await c.newPage();
      await p.goto(`${site}${await payPath()}?lang=${lang}`);
      assert.equal(await p.locator('details.checkout-details').getAttribute('open'), '', 'opened by booking.js where there is room');
      assert.equal(await p.locator('.checkout-details .policy').isVisible(), true);
      problems.push(...(await pageProblems(p, `pay ${lang} 1280`)));
      await screenshotIfAsked(p, path.join(SHOTS, `pay-${lang}-1280.png`), { fullPage: true });
      await c.close();
    }
    assert.deepEqual(problems, []);
  });
});
