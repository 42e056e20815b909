/**
 * The snippet generator's copy buttons in Chromium (issue 27; docs/widget.md): clicking "Copy the
 * snippet" puts exactly the snippet on the clipboard and says "Copied" in a live region for
 * screen readers; without JavaScript the buttons stay hidden and the snippet is a read-only field
 * to select. axe-core clean; screenshots on a phone and a desktop. Markup only: one database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { axeViolations, browserUnavailable, DESKTOP, freePort, launchBrowser, PHONE, sidewaysOverflow } from '../support/browser.ts';
import { addSessionCookie, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { OPERATOR } from '../support/keys.ts';

const unavailable = browserUnavailable();

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`widget snippet copy button in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let site: string;
    let token: string;
    let pk: string;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000 }), { clock: new ManualClock(Date.now()) });
      const user = await server.app.services.accounts.ensureUser('copy@example.com');
      token = (await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' })).token;
      pk = (await server.app.services.keys.create(OPERATOR, { ownerEmail: 'copy@example.com' }, { mode: 'live', publishable: true, origins: ['https://ngo.example'], name: 'ngo' })).token;
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await db?.drop();
    });

    it('"Copy the snippet" copies the snippet and announces "Copied"; without JavaScript the snippet is still there to select', async () => {
      const url = `${site}/developer/widget?key=${pk}&show=search&city=madrid`;
      const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site });
      await addSessionCookie(context, site, token);
      try {
        const page = await context.newPage();
        await page.goto(url);
        const snippet = await page.getByLabel('Snippet: paste it where the widget should appear').inputValue();
        assert.match(snippet, new RegExp(`^<script src="${site}/embed.js" data-key="${pk}"`));
        const button = page.getByRole('button', { name: 'Copy the snippet' });
        await button.click();
        // The button's own text says "Copied" for two seconds only; the live region keeps it.
        await page.locator('#w-snippet-copied[aria-live="polite"]', { hasText: 'Copied' }).waitFor();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), snippet);
        await page.getByRole('button', { name: 'Copy the iframe' }).click();
        assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.locator('#w-iframe').inputValue());
        assert.deepEqual(await axeViolations(page, 'snippet generator'), []);
        await screenshot(page, 'widget-snippet-copy-desktop');
        await page.setViewportSize(PHONE);
        assert.ok((await sidewaysOverflow(page)) <= 1, "nothing wider than a phone");
        await screenshot(page, 'widget-snippet-copy-phone');
      } finally {
        await context.close();
      }
      const noScript = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB', javaScriptEnabled: false });
      await addSessionCookie(noScript, site, token);
      try {
        const page = await noScript.newPage();
        await page.goto(url);
        assert.equal(await page.getByRole('button', { name: 'Copy the snippet' }).count(), 0);
        const field = page.getByLabel('Snippet: paste it where the widget should appear');
        assert.equal(await field.getAttribute('readonly'), '');
        assert.match(await field.inputValue(), /^<script src=/);
      } finally {
        await noScript.close();
      }
    });
  });
}
