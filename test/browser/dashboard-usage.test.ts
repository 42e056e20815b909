/**
 * The request log and usage pages in Chromium with a realistic month of traffic (several days,
 * every outcome, slow and fast answers, test traffic), on SQLite and PostgreSQL: axe-core finds
 * nothing in English or Spanish at phone and desktop size, nothing is wider than the viewport,
 * the five usage charts are drawn (SVG, no script) with their tables, the filters narrow the
 * log, and the screenshots for docs/dashboard.md (`requests-*`, `usage-*`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import type { RequestLogTable } from '../../src/db/schema.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE } from '../support/browser.ts';
import { addSessionCookie, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { LineChart, StackedBars } from '../../src/site/ui/charts.tsx';

const unavailable = browserUnavailable();
const DAY = 86_400_000;

/** Every label of every chart on the page as drawn by Chromium: its text and its box in the chart's viewBox units. */
function chartLabels(page: Page): Promise<Array<{ chart: string; text: string; x: number; y: number; right: number; bottom: number; width: number; height: number }>> {
  return page.$$eval('svg.chart', (charts) =>
    charts.flatMap((svg) => {
      const view = (svg as SVGSVGElement).viewBox.baseVal;
      return [...svg.querySelectorAll('text')].map((t) => {
        const b = (t as SVGTextElement).getBBox();
        return { chart: svg.getAttribute('aria-labelledby') ?? '', text: t.textContent ?? '', x: b.x, y: b.y, right: b.x + b.width, bottom: b.y + b.height, width: view.width, height: view.height };
      });
    }),
  );
}

/** The labels that reach outside their chart's image (cut off when drawn). */
const outside = (labels: Awaited<ReturnType<typeof chartLabels>>) => labels.filter((l) => l.x < 0 || l.y < 0 || l.right > l.width || l.bottom > l.height).map((l) => `${l.chart}: "${l.text}" spans x ${l.x.toFixed(1)}…${l.right.toFixed(1)}, y ${l.y.toFixed(1)}…${l.bottom.toFixed(1)} of ${l.width}×${l.height}`);

/** A deterministic month of one key's traffic: weekdays busier, a bad day with 5xx, some 429s. */
function month(nowMs: number, key: { id: string; userId: string }, testKeyId: string): RequestLogTable[] {
  const rows: RequestLogTable[] = [];
  let seed = 7;
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
  const routes = [
    ['GET', '/api/v1/lawyers/search', () => '/api/v1/lawyers/search'],
    ['GET', '/api/v1/lawyers/:lawyerId', () => '/api/v1/lawyers/3f6c1a2e-8d4b-4c1e-9a7f-2b5d6e8f9a01'],
    ['GET', '/api/v1/lawyers/:lawyerId/availability', () => '/api/v1/lawyers/3f6c1a2e-8d4b-4c1e-9a7f-2b5d6e8f9a01/availability'],
    ['POST', '/api/v1/bookings/initiate', () => '/api/v1/bookings/initiate'],
    ['GET', '/api/v1/booking-intents/:intentId', () => '/api/v1/booking-intents/0b9d7e0c-5a1f-4d2e-8c3b-7a6f5e4d3c21'],
    ['GET', '/api/v1/practice-areas', () => '/api/v1/practice-areas'],
  ] as const;
  for (let d = 20; d >= 0; d--) {
    const weekday = (new Date(nowMs - d * DAY).getUTCDay() + 6) % 7 < 5;
    const n = Math.round((weekday ? 60 : 25) * (0.7 + rand() * 0.6));
    for (let i = 0; i < n; i++) {
      const at = nowMs - d * DAY - Math.floor(rand() * (d === 0 ? 3_600_000 : DAY));
      const [method, route, path] = routes[Math.floor(rand() * rand() * routes.length)]!;
      const r = rand();
      // 404s as the API answers them: not_found on a route with an id, initiate's slot 404 without a problem code.
      const notFound: [number, string | null] = route.includes(':') ? [404, 'not_found'] : method === 'POST' ? [404, null] : [400, 'invalid_request'];
      const [status, code] =
        d === 6 && r < 0.15 ? [503, 'service_unavailable'] : r < 0.84 ? [method === 'POST' ? 201 : 200, null] : r < 0.9 ? notFound : r < 0.95 ? [400, 'invalid_request'] : r < 0.985 ? [429, 'rate_limited'] : [409, 'idempotency_key_in_use'];
      const test = rand() < 0.08;
      rows.push({
        request_id: `req_${at.toString(16).padStart(12, '0')}${(rows.length + 1).toString(16).padStart(20, '0')}`,
        at: new Date(at).toISOString(),
        key_id: test ? testKeyId : key.id,
        owner_type: 'user',
        owner_id: key.userId,
        test: test ? 1 : 0,
        method,
        route,
        path: path(),
        status,
        duration_ms: Math.round((0.4 + -Math.log(1 - rand()) * (route.includes('availability') ? 6 : 1.5) + (d === 6 ? 12 : 0)) * 100) / 100,
        client_ip: '198.51.100.23',
        error_code: code,
      });
    }
  }
  // A slow afternoon three days ago (a lawyer's calendar feed timing out): its p95 is seconds, so
  // the latency chart's top label is four digits and a unit ("2000 ms"), the one that used to be cut.
  for (let i = 0; i < 8; i++) {
    const at = nowMs - 3 * DAY + i * 60_000;
    rows.push({ request_id: `req_${at.toString(16).padStart(12, '0')}${'f'.repeat(12)}${i.toString(16).padStart(8, '0')}`, at: new Date(at).toISOString(), key_id: key.id, owner_type: 'user', owner_id: key.userId, test: 0, method: 'GET', route: '/api/v1/lawyers/:lawyerId/availability', path: '/api/v1/lawyers/3f6c1a2e-8d4b-4c1e-9a7f-2b5d6e8f9a01/availability', status: 200, duration_ms: 1800 + i * 10, client_ip: '198.51.100.23', error_code: null });
  }
  return rows.sort((a, b) => a.at.localeCompare(b.at));
}

for (const target of browserDatabaseTarget('postgres')) {
  describe(`request log and usage pages in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let site: string;
    let token: string;
    let liveKeyId: string;
    let someId: string;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const clock = new ManualClock(Date.parse('2026-11-24T16:20:00Z'));
      server = await startServer(
        testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000, keyCacheTtlMs: 0 }),
        { clock },
      );
      browser = await launchBrowser();
      const { services } = server.app;
      const user = await services.accounts.ensureUser(`usage-browser-${target.name}@example.com`);
      const actor = { type: 'user' as const, userId: user.id };
      const live = await services.keys.create(actor, { ownerEmail: user.email }, { mode: 'live', name: 'production' });
      const test = await services.keys.create(actor, { ownerEmail: user.email }, { mode: 'test', name: 'staging' });
      liveKeyId = live.key.id;
      const rows = month(clock.now().getTime(), { id: live.key.id, userId: user.id }, test.key.id);
      for (const row of rows) services.requestLog.record(row);
      await services.requestLog.flush();
      someId = rows.findLast((r) => r.status === 404)!.request_id;
      token = (await services.sessions.create(user.id, { ip: '127.0.0.1' })).token;
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await db?.drop();
    });

    it('chart labels are complete and inside the image, whatever the figures (a top label of "50000 ms" too)', async () => {
      const home = await (await fetch(`${site}/`)).text();
      const css = /href="(\/assets\/site\.[0-9a-f]{10}\.css)"/.exec(home)![1]!;
      const days = Array.from({ length: 30 }, (_, i) => new Date(Date.UTC(2026, 9, 26 + i)).toISOString().slice(0, 10));
      const charts: string[] = [];
      const expected: string[] = [];
      // Maxima from one request a day to millions, and latencies from under a millisecond to minutes.
      for (const [i, top] of [1, 7, 999, 12_000, 1_234_567].entries()) {
        charts.push(renderToString(h(StackedBars, { id: `bars-${i}`, title: 't', description: 'd', labels: days, series: [{ className: 'bar-ok', label: 'ok', values: days.map((_, d) => (d === 29 ? top : Math.floor(top / 3))) }] })));
      }
      for (const [i, top] of [0.8, 95, 1000, 33_000, 123_456].entries()) {
        charts.push(renderToString(h(LineChart, { id: `line-${i}`, title: 't', description: 'd', labels: days, unit: ' ms', series: [{ className: 'line-p95', label: 'p95', values: days.map((_, d) => (d % 5 === 0 ? null : d === 29 ? top : top / 4)) }] })));
      }
      expected.push('1', '10', '1000', '20000', '2000000', '1 ms', '100 ms', '1000 ms', '50000 ms', '200000 ms');
      const context = await browser.newContext({ viewport: PHONE });
      try {
        const page = await context.newPage();
        await page.goto(`${site}/healthz`);
        await page.setContent(`<!doctype html><html lang="en"><head><link rel="stylesheet" href="${site}${css}"></head><body><main>${charts.join('')}</main></body></html>`, { waitUntil: 'load' });
        const labels = await chartLabels(page);
        const tops = labels.filter((l) => /^(bars|line)-/.test(l.chart)).map((l) => l.text);
        for (const label of expected) assert.ok(tops.includes(label), `the top label "${label}" is drawn whole (labels: ${tops.join(', ')})`);
        assert.deepEqual(outside(labels), []);
      } finally {
        await context.close();
      }
    });

    it('usage: five charts with their tables, axe-clean in both languages at phone and desktop size; screenshots', async () => {
      const problems: string[] = [];
      for (const lang of ['en', 'es'] as const) {
        for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
          const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
          await addSessionCookie(context, site, token);
          const page = await context.newPage();
          try {
            await page.goto(`${site}/developer/usage?lang=${lang}`);
            assert.equal(await page.locator('svg.chart[role="img"]').count(), 2, 'requests by outcome, latency');
            assert.deepEqual(outside(await chartLabels(page)), [], 'every chart label inside its image');
            assert.equal(await page.locator('svg.chart rect.bar-server').count() > 0, true, 'the bad day shows 5xx');
            assert.equal(await page.locator('table.errors-table a[href^="/docs/errors/"]').count(), 5);
            assert.equal(await page.locator('table.errors-table tbody tr').count(), 6, 'and one row without a code');
            assert.equal(await page.locator('table.endpoints-table tbody tr').count(), 6);
            assert.equal(await page.locator('ul.windows svg.use-bar').count(), 2, "today's minute and day");
            // The per-day tables are in closed <details>: open them for the checks and the picture.
            await page.locator('details.chart-table summary').first().click();
            problems.push(...(await pageProblems(page, `usage ${lang} ${label}`)));
            await screenshot(page, `usage-${lang}-${label}`);

            await page.goto(`${site}/developer/requests?lang=${lang}`);
            assert.equal(await page.locator('table.request-log tbody tr').count(), 50);
            problems.push(...(await pageProblems(page, `requests ${lang} ${label}`)));
            await screenshot(page, `requests-${lang}-${label}`);

            await page.goto(`${site}/developer/requests?status=4xx&mode=live&lang=${lang}`);
            const statuses = await page.locator('table.request-log tbody tr td:first-child').allInnerTexts();
            assert.ok(statuses.length > 0 && statuses.every((s) => /^4\d\d$/.test(s.trim())), statuses.join(','));
            assert.equal(await page.locator('table.request-log .badge.test').count(), 0);
            problems.push(...(await pageProblems(page, `requests filtered ${lang} ${label}`)));
            if (label === 'phone') await screenshot(page, `requests-filtered-${lang}-${label}`);

            await page.goto(`${site}/developer/requests/${someId}?lang=${lang}`);
            assert.equal(await page.locator('a[href="/docs/errors/not_found"]').count(), 1);
            problems.push(...(await pageProblems(page, `request ${lang} ${label}`)));
            await screenshot(page, `requests-detail-${lang}-${label}`);
          } finally {
            await context.close();
          }
        }
      }
      assert.deepEqual(problems, []);
      assert.ok(liveKeyId);
    });
  });
}
