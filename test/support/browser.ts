/** Debian's Chromium driven by playwright-core (never a downloaded browser), and what browser tests share. */
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import AxeBuilder from '@axe-core/playwright';
import axe, { type RunOptions as AxeRunOptions } from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';

export { screenshotIfAsked, screenshotsWanted } from './screenshots.ts';

/** Debian's whole browser (package chromium), in its headless mode: what the walks run in. */
export const FULL_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * The Chromium the browser tests drive: Debian's whole browser, the one people use, as the
 * project's test rules name it (CI runs nothing else). `TEST_CHROMIUM=/usr/bin/chromium-headless-shell`
 * runs the walks in the headless shell instead — the same Blink and V8 of the same release at
 * about half the CPU per page (docs/performance.md, the suite, round 4) — for a faster local
 * loop; it is not the browser people use and differs where two suites look (third-party cookie
 * blocking, request routing of redirects), so those two always launch the whole browser.
 */
export const CHROMIUM_PATH = process.env.TEST_CHROMIUM ?? FULL_CHROMIUM_PATH;

/** The viewports pages are checked and photographed at. */
export const PHONE = { width: 390, height: 844 };
export const DESKTOP = { width: 1280, height: 800 };
/** The taller desktop some suites' screenshots are taken at. */
export const DESKTOP_TALL = { width: 1280, height: 900 };

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Why browser tests cannot run here, or undefined when they can. In CI they must. */
export function browserUnavailable(): string | undefined {
  if (fs.existsSync(CHROMIUM_PATH)) return undefined;
  if (process.env.CI === 'true') throw new Error(`${CHROMIUM_PATH} is required in CI (.ci/run installs Debian's chromium)`);
  return `${CHROMIUM_PATH} not installed (apt-get install chromium)`;
}

/**
 * `extraArgs`: more Chromium switches (the widget suite blocks third-party cookies).
 * `executablePath`: another Chromium than CHROMIUM_PATH (the widget suite needs the whole browser).
 */
export function launchBrowser(extraArgs: readonly string[] = [], executablePath = CHROMIUM_PATH): Promise<Browser> {
  return chromium.launch({ executablePath, headless: true, args: [...FLAGS, ...extraArgs] });
}

/** A loopback port that was free a moment ago (for a server whose URL must be known before it starts). */
export async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

/** What AxeBuilder passes axe.run as the context when nothing is included or excluded. */
const WHOLE_PAGE = { exclude: [], include: [] };
/** axe-core's own source and the configuration AxeBuilder gives it in a page analysed in one run. */
const AXE_IN_PAGE = `${axe.source}\n;axe.configure({ allowedOrigins: ["<same_origin>"], branding: { application: 'playwright' } });`;

type AxeRun = Awaited<ReturnType<AxeBuilder['analyze']>>;

/**
 * axe-core's results for the page, every rule run as AxeBuilder runs them. Three settings make it
 * cheaper without changing what is found (the suites assert on violations only):
 * - `resultTypes: ['violations']`: violations are gathered in full, passes and the rest keep one
 *   node each instead of every node (axe-core's own option for this);
 * - a page without frames is analysed by one `axe.run` in the page (AxeBuilder's legacy mode)
 *   rather than by partial runs finished in a second, blank page into which axe-core is injected
 *   again; a page with frames (the widget's cross-origin iframe) keeps the partial runs, the only
 *   way axe reaches a cross-origin frame;
 * - in that one run axe-core (550 KB) is injected once: AxeBuilder's legacy mode evaluates it in
 *   the page twice (once in `analyze`, again in `runLegacy`), and compiling it is about 0.15 s of
 *   the renderer's CPU each time after the first. The run itself is AxeBuilder's: the same
 *   configuration, context and options, the same `axe.run`.
 * Measured on the site's pages: 2.5–4 times less wall time per analysis (docs/performance.md).
 */
export async function axeResults(page: Page): Promise<AxeRun> {
  const options = { resultTypes: ['violations'] as AxeRunOptions['resultTypes'] };
  if (page.frames().length !== 1) return new AxeBuilder({ page }).options(options).analyze();
  await page.evaluate(AXE_IN_PAGE);
  const outcome = await page.evaluate(
    ({ context, options }) =>
      (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<unknown> } }).axe.run(context, options).then(
        (results) => ({ error: null, results }),
        (err: Error) => ({ error: err.message, results: null }),
      ),
    { context: WHOLE_PAGE, options },
  );
  if (outcome.error !== null) throw new Error(outcome.error);
  return outcome.results as AxeRun;
}

/** axe-core's violations on the page, each as `label: rule-id target, target` (the first two nodes). */
export async function axeViolations(page: Page, label: string): Promise<string[]> {
  const result = await axeResults(page);
  return result.violations.map((v) => `${label}: ${v.id} ${v.nodes.map((x) => x.target.join(' ')).slice(0, 2).join(', ')}`);
}

/** How many CSS pixels the page is wider than the viewport (0 or less: it fits). */
export function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

/**
 * The id of the element holding the focus once `autofocus` has run. Chromium applies autofocus at
 * its next rendering update, after the element is in the DOM, so reading `activeElement` right after
 * `waitForSelector` races it on a loaded machine. Waits up to 5 s for `expected`, then answers what
 * has the focus (so a wrong focus fails the caller's assertion with the real id).
 */
export async function focusedId(page: Page, expected: string): Promise<string> {
  await page.waitForFunction((id) => document.activeElement?.id === id, expected, { timeout: 5_000 }).catch(() => undefined);
  return page.evaluate(() => document.activeElement?.id ?? '');
}

/** axe-core's violations and any sideways overflow beyond a pixel (every page must fit a phone). */
export async function pageProblems(page: Page, label: string): Promise<string[]> {
  const problems = await axeViolations(page, label);
  const overflow = await sidewaysOverflow(page);
  if (overflow > 1) problems.push(`${label}: ${overflow}px wider than the viewport`);
  return problems;
}

/**
 * After signing in from a hold page: back on it, its choices (issue 25 item 14) — the first format
 * when several are offered and none is chosen, a number when one is asked for, the answer to the
 * language question when it is asked — then on to payment.
 */
export async function continueToPay(page: Page, phone = '612 345 678'): Promise<void> {
  await page.waitForSelector('form[action$="/choices"]');
  const formats = page.locator('form[action$="/choices"] input[name="format"]');
  if ((await formats.count()) > 0 && (await page.locator('form[action$="/choices"] input[name="format"]:checked').count()) === 0) await formats.first().check();
  if ((await page.locator('#f-phone').count()) > 0 && (await page.inputValue('#f-phone')) === '') await page.fill('#f-phone', phone);
  // A lawyer who speaks none of the person's languages: the question is answered knowingly (issue 26).
  const ack = page.locator('form[action$="/choices"] input[name="language_ack"]');
  if ((await ack.count()) > 0 && (await page.locator('form[action$="/choices"] input[name="language_ack"]:checked').count()) === 0) await ack.first().check();
  await page.locator('form[action$="/choices"] button[type="submit"]').click();
  await page.waitForURL('**/pay');
}
