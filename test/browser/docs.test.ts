import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, launchBrowser } from '../support/browser.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();

describe('documentation pages in a real browser', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-browser-'));
  let server: RunningServer;
  let browser: Browser;
  before(async () => {
    server = await startServer(testConfig({ port: 0, host: '127.0.0.1', databaseUrl: await migratedSqliteUrl(path.join(dir, 'b.db')) }));
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('renders the interactive API reference with every endpoint, without console errors', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${server.url}/docs/api`);
    await page.waitForSelector('.opblock', { timeout: 15_000 });
    const summaries = await page.locator('.opblock-summary-path').allInnerTexts();
    for (const p of ['/lawyers/search', '/lawyers/{lawyerId}', '/lawyers/{lawyerId}/availability', '/lawyers/{lawyerId}/reviews', '/practice-areas', '/cities']) {
      assert.ok(summaries.some((s) => s.replace(/\u200b/g, '').trim() === p), `${p} in ${JSON.stringify(summaries)}`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('links error codes from the index to their pages', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/docs/errors`);
    await page.click('a[href="/docs/errors/invalid_request"]');
    await page.waitForURL('**/docs/errors/invalid_request');
    assert.match(await page.locator('h1').innerText(), /invalid_request/);
    assert.match(await page.locator('main').innerText(), /HTTP 400/);
    await page.close();
  });
});
