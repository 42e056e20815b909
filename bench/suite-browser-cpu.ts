/**
 * Where a browser walk's CPU goes (docs/performance.md, "Test suite duration", round 3): the CPU
 * of this process and every Chromium process it started, read from /proc (a process's own time
 * and that of the children it reaped), around each step, on the site's pages at phone width.
 *
 *   npx tsx bench/suite-browser-cpu.ts steps [rounds]   context, page load, axe-core, screenshot
 *   npx tsx bench/suite-browser-cpu.ts axe-split        axe-core injected once, again, and run
 *   npx tsx bench/suite-browser-cpu.ts axe-ab [rounds]  AxeBuilder's legacy mode vs axeResults,
 *                                                       alternating, same findings checked
 *
 * A benchmark, not a test. Measurements, not assertions; numbers move with the machine's load.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Page } from 'playwright-core';
import { startServer } from '../src/server.ts';
import { testConfig } from '../test/support/app.ts';
import { axeResults, CHROMIUM_PATH, pageProblems, PHONE } from '../test/support/browser.ts';
import { migratedSqliteUrl } from '../test/support/databases.ts';

// TEST_CHROMIUM=/usr/bin/chromium-headless-shell measures Debian's headless shell instead of the whole browser (CHROMIUM_PATH).
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const PAGES = ['/', '/help', '/docs/errors', '/?city=madrid'];

/** CPU seconds (user + sys, own and reaped children) of `root` and every process below it. */
function treeCpu(root: number): number {
  const parent = new Map<number, number>();
  const ticks = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parent.set(Number(entry), Number(f[1]));
    ticks.set(Number(entry), Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]));
  }
  let sum = 0;
  for (const [pid, t] of ticks) {
    for (let q: number | undefined = pid; q !== undefined && q > 1; q = parent.get(q)) {
      if (q === root) {
        sum += t;
        break;
      }
    }
  }
  return sum / 100; // clock ticks: 100 a second on Linux
}
const cpu = () => treeCpu(process.pid);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

const [mode = 'steps', roundsArg] = process.argv.slice(2);
const rounds = Number(roundsArg ?? 3);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'suite-browser-cpu-'));
const server = await startServer(testConfig({ port: 0, host: '127.0.0.1', databaseUrl: await migratedSqliteUrl(path.join(dir, 'a.db')) }));
const started = cpu();
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: FLAGS });
const launchCpu = cpu() - started;

async function onPage<T>(url: string, work: (page: Page) => Promise<T>): Promise<T> {
  const context = await browser.newContext({ viewport: PHONE, locale: 'es-ES' });
  try {
    const page = await context.newPage();
    await page.goto(server.url + url);
    return await work(page);
  } finally {
    await context.close();
  }
}

const steps: Record<string, number[]> = {};
const record = (name: string, seconds: number) => (steps[name] ??= []).push(seconds);

if (mode === 'steps') {
  record('launch', launchCpu);
  for (let i = 0; i < rounds; i++) {
    for (const url of PAGES) {
      let c = cpu();
      const context = await browser.newContext({ viewport: PHONE, locale: 'es-ES' });
      const page = await context.newPage();
      record('context+page', cpu() - c);
      c = cpu();
      await page.goto(server.url + url);
      record('goto', cpu() - c);
      c = cpu();
      await pageProblems(page, url);
      record('axe+overflow', cpu() - c);
      c = cpu();
      await page.screenshot({ path: path.join(dir, 'shot.png'), fullPage: true });
      record('screenshot', cpu() - c);
      c = cpu();
      await context.close();
      record('close', cpu() - c);
    }
  }
} else if (mode === 'axe-split') {
  const source = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  for (let i = 0; i < rounds * 2; i++) {
    await onPage(PAGES[i % PAGES.length]!, async (page) => {
      let c = cpu();
      const own = process.cpuUsage();
      await page.evaluate(source);
      record('inject', cpu() - c);
      const mine = process.cpuUsage(own);
      record('inject, test process only', (mine.user + mine.system) / 1e6);
      c = cpu();
      await page.evaluate(source);
      record('inject again', cpu() - c);
      c = cpu();
      await page.evaluate(() => (window as unknown as { axe: { run(o: unknown): Promise<unknown> } }).axe.run({ resultTypes: ['violations'] }));
      record('axe.run', cpu() - c);
    });
  }
} else if (mode === 'axe-ab') {
  const legacy = (page: Page) => new AxeBuilder({ page }).options({ resultTypes: ['violations'] }).setLegacyMode().analyze();
  const findings = (r: Awaited<ReturnType<typeof legacy>>) => JSON.stringify(r.violations.map((v) => [v.id, v.nodes.map((n) => n.target)]));
  const wall: Record<string, number[]> = { before: [], after: [] };
  for (let i = 0; i < rounds; i++) {
    for (const url of PAGES) {
      const seen: Record<string, string> = {};
      for (const which of i % 2 ? ['after', 'before'] : ['before', 'after']) {
        await onPage(url, async (page) => {
          const c = cpu();
          const t = Date.now();
          const result = which === 'before' ? await legacy(page) : await axeResults(page);
          record(which, cpu() - c);
          wall[which]!.push(Date.now() - t);
          seen[which] = findings(result);
        });
      }
      if (seen.before !== seen.after) throw new Error(`different findings on ${url}:\n${seen.before}\n${seen.after}`);
    }
  }
  for (const which of ['before', 'after']) console.log(`${which}: wall median ${median(wall[which]!)} ms`);
  console.log('the same findings on every page');
} else {
  throw new Error(`unknown mode ${mode}: steps, axe-split or axe-ab`);
}

for (const [name, xs] of Object.entries(steps)) {
  console.log(`${name.padEnd(26)} n=${String(xs.length).padStart(2)}  CPU median ${median(xs).toFixed(2)} s, range ${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}, sum ${sum(xs).toFixed(1)} s`);
}
console.log(`load average ${os.loadavg().map((x) => x.toFixed(1)).join(' ')}`);
await browser.close();
await server.stop();
fs.rmSync(dir, { recursive: true, force: true });
