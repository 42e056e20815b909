/**
 * The cheaper axe-core settings of test/support/browser.ts (axeResults: violations gathered in
 * full, one axe.run in a page without frames) find exactly what AxeBuilder's defaults find: the
 * same rules on the same nodes, on a page built to break several rules, with and without a frame.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import AxeBuilder from '@axe-core/playwright';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { axeResults, browserUnavailable, launchBrowser } from '../support/browser.ts';

const unavailable = browserUnavailable();

const BROKEN = `<!doctype html><html><head><title>broken</title></head><body>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=">
<p style="color:#999;background:#aaa">too little contrast</p>
<input type="text">
<button></button>
<a href="#x"></a>
<div id="twice"></div><div id="twice"></div>
<ul><div>not a list item</div></ul>
</body></html>`;

const found = (results: Awaited<ReturnType<AxeBuilder['analyze']>>) =>
  results.violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).sort();

describe('axe-core, cheaper settings, same findings', { skip: unavailable }, () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  before(async () => {
    browser = await launchBrowser();
    context = await browser.newContext();
    page = await context.newPage();
  });
  after(async () => {
    await browser?.close();
  });

  it('a page without frames: the same violations, on the same nodes, as the defaults', async () => {
    await page.setContent(BROKEN);
    assert.equal(page.frames().length, 1);
    const defaults = found(await new AxeBuilder({ page }).analyze());
    const cheaper = found(await axeResults(page));
    assert.ok(defaults.length >= 4, defaults.join('\n'));
    assert.deepEqual(cheaper, defaults);
  });

  it('a page with a frame: the frame is analysed too, with the same findings', async () => {
    await page.setContent(`<!doctype html><html lang="en"><head><title>framed</title></head><body><main><h1>framed</h1>
      <iframe title="inner" srcdoc="${BROKEN.replaceAll('"', '&quot;')}"></iframe></main></body></html>`);
    await page.waitForFunction(() => document.querySelector('iframe')?.contentDocument?.readyState === 'complete');
    assert.equal(page.frames().length, 2);
    const defaults = found(await new AxeBuilder({ page }).analyze());
    const cheaper = found(await axeResults(page));
    assert.ok(defaults.some((v) => v.includes('iframe')), defaults.join('\n'));
    assert.deepEqual(cheaper, defaults);
  });
});
