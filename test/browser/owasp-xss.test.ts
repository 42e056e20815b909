/**
 * Stored XSS in Chromium: the payload of test/security/owasp.test.ts in every piece of user text
 * the main pages show (lawyer name, bio and review; firm, person and key names; a key's
 * suspension reason; a webhook URL and disable reason), then each page is opened in a real
 * browser on a real server. No dialog may open, no element of the payload may exist in the DOM,
 * and the payload must be on the page as text (or the test would prove nothing). The HTML of
 * every page, on both databases, is checked in test/security/owasp.test.ts; here the browser's
 * own parsing is the judge, so one database (SQLite) is enough.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, freePort, launchBrowser } from '../support/browser.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
/** The same payload as the inject suite, plus a marker the page scripts could set if anything ran. */
const XSS = `"'><img src=x onerror=alert(1)><script>alert(1)</script>`;

describe('stored XSS in Chromium: user text on the main pages is shown, never run', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-xss-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyerId: string;

  before(async () => {
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(
      testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'x.db')), rateLimitMultiplier: 1000, keyCacheTtlMs: 0 }),
      { clock: new ManualClock(Date.now()) },
    );
    [lawyerId] = (await insertLawyers(server.database, [lawyerRecord({ name: `Ana ${XSS}`, bio: `Bio ${XSS}`, reviews: [{ rating: 5, comment: `Review ${XSS}`, date: '2026-11-01T09:00:00Z' }] })], new Date())) as [string];
    server.app.services.directoryCache.invalidate();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('no dialog, no injected element, the payload shown as text: lawyer, booking, search, confirmation and dashboard pages', async () => {
    const services = server.app.services;
    const user = await services.accounts.ensureUser('xss-browser@example.com', `Owner ${XSS}`);
    const me: Actor = { type: 'user', userId: user.id };
    await services.accounts.createFirm(me, { slug: 'xss-browser', name: `Firm ${XSS}` });
    const key = await services.keys.create(me, { ownerEmail: user.email }, { mode: 'live', name: `Key ${XSS}` });
    const firmKey = await services.keys.create(me, { firmSlug: 'xss-browser' }, { mode: 'live', name: `Firm key ${XSS}` });
    await services.keys.suspend(me, firmKey.key.id, `Reason ${XSS}`);
    const hook = await services.webhooks.create(me, null, { url: `https://93.184.216.34/hook?x=${XSS}` });
    await services.webhooks.disable(me, hook.endpoint.id, `Reason ${XSS}`);
    const session = await services.sessions.create(user.id, { ip: '127.0.0.1' });
    // A request with the payload in its query string (fetch sends it percent-encoded), for the request log.
    await fetch(`${site}/api/v1/lawyers/search?city=${XSS}`, { headers: { authorization: `Bearer ${key.token}` } });
    await services.requestLog.flush();

    // A hold on the first free time, for the confirmation page.
    const availability = (await (await fetch(`${site}/api/v1/lawyers/${lawyerId}/availability`)).json()) as { slots: Array<{ date: string; start_time: string; end_time: string; available: boolean }> };
    const slot = availability.slots.find((s) => s.available);
    assert.ok(slot, 'a free time to hold');
    const held = await fetch(`${site}/api/v1/bookings/initiate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ lawyer_id: lawyerId, date: slot.date, start_time: slot.start_time, end_time: slot.end_time }),
    });
    assert.equal(held.status, 201);
    const confirmation = new URL(((await held.json()) as { confirmation_url: string }).confirmation_url);

    const context = await browser.newContext({ locale: 'en-GB' });
    await addSessionCookie(context, site, session.token);
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => {
      dialogs.push(`${page.url()}: ${d.message()}`);
      void d.dismiss();
    });
    const pages = [
      `/lawyers/${lawyerId}`,
      `/lawyers/${lawyerId}/book`,
      '/?city=madrid',
      `${confirmation.pathname}`,
      '/developer/keys',
      `/developer/keys/${key.key.id}`,
      '/developer/webhooks',
      `/developer/webhooks/${hook.endpoint.id}`,
      '/developer/requests',
      '/firms',
      '/firms/xss-browser/members',
      `/firms/xss-browser/keys/${firmKey.key.id}`,
    ];
    try {
      for (const url of pages) {
        const res = await page.goto(`${site}${url}`);
        assert.equal(res?.status(), 200, url);
        const found = await page.evaluate(() => ({
          images: document.querySelectorAll('img[src="x"], img[onerror]').length,
          scripts: [...document.scripts].filter((s) => s.textContent?.includes('alert(1)')).length,
          text: document.body.innerText,
        }));
        assert.equal(found.images, 0, `${url}: an injected <img> exists`);
        assert.equal(found.scripts, 0, `${url}: an injected <script> exists`);
        assert.ok(found.text.includes('<img src=x onerror=alert(1)>') || found.text.includes('%3Cimg%20src=x'), `${url}: the payload is not shown as text`);
      }
      assert.deepEqual(dialogs, [], 'no dialog opened');
    } finally {
      await context.close();
    }
  });
});
