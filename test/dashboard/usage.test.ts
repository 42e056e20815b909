/**
 * The usage page over the real app and database (both): every chart's figures are GET /usage's
 * for the same key (requests per day by outcome, p50/p95 latency per day, errors by code linked
 * to their docs, top endpoints, today's windows), from the daily aggregates (they survive the
 * log rows' deletion), test traffic is not counted, each chart is an SVG image with a table of
 * the same figures; another's key is 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/access/types.ts';
import type { UsageResponse } from '../../src/contract/access.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { pageText } from '../support/site.ts';

const OPERATOR: Actor = { type: 'operator' };

/** The rows of the per-day table: date → [requests, 2xx, 4xx, 429, 5xx]. */
function tableOf(html: string): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const m of html.matchAll(/<th scope="row">(\d{4}-\d{2}-\d{2})<\/th>((?:<td class="num">\d+<\/td>){5})/g)) {
    out.set(m[1]!, [...m[2]!.matchAll(/>(\d+)</g)].map((x) => Number(x[1])));
  }
  return out;
}

/** The rows of the latency table: date → [p50 text, p95 text]. */
function latencyOf(html: string): Map<string, string[]> {
  const table = html.slice(html.indexOf('class="usage-table latency-table"'));
  const out = new Map<string, string[]>();
  for (const m of table.matchAll(/<th scope="row">(\d{4}-\d{2}-\d{2})<\/th><td class="num">([^<]*)<\/td><td class="num">([^<]*)<\/td>/g)) out.set(m[1]!, [m[2]!, m[3]!]);
  return out;
}

/** A bar table's rows: the row header's text → the numbers after it. */
function barTable(html: string, className: string): Array<{ head: string; href: string | null; numbers: number[] }> {
  const start = html.indexOf(`class="bar-table ${className}"`);
  if (start < 0) return [];
  const table = html.slice(start, html.indexOf('</table>', start));
  return [...table.matchAll(/<tr><th scope="row">(.*?)<\/th>((?:<td class="num">\d+<\/td>)+)<\/tr>/g)].map((m) => ({
    head: pageText(m[1]!.replace(/<svg[\s\S]*?<\/svg>/g, '').replace(/<wbr\/?>/g, '')).trim(),
    href: /href="([^"]+)"/.exec(m[1]!)?.[1] ?? null,
    numbers: [...m[2]!.matchAll(/>(\d+)</g)].map((x) => Number(x[1])),
  }));
}

for (const target of databaseTargets()) {
  describe(`usage page (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      // Real limits (multiplier 1): the 61st request in a minute is a 429.
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0, rateLimitMultiplier: 1 } });
    });
    after(async () => ctx?.close());

    const call = (token: string, url = '/api/v1/practice-areas') => ctx.app.fastify.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });

    it("shows GET /usage's figures for the key: per day, errors and 429s, and today's windows; test traffic is not counted", async () => {
      const me = await signedIn(ctx, 'usage@example.com');
      const actor: Actor = { type: 'user', userId: me.userId };
      const live = await ctx.app.services.keys.create(actor, { ownerEmail: me.email }, { mode: 'live', name: 'prod' });
      const test = await ctx.app.services.keys.create(actor, { ownerEmail: me.email }, { mode: 'test' });
      for (let i = 0; i < 58; i++) assert.equal((await call(live.token)).statusCode, 200);
      assert.equal((await call(live.token, '/api/v1/lawyers/00000000-0000-4000-8000-000000000000')).statusCode, 404);
      for (let i = 0; i < 5; i++) await call(test.token);
      const limited = await call(live.token);
      const limitedAgain = await call(live.token);
      assert.equal(limitedAgain.statusCode, 429, `the minute's limit (${limited.statusCode})`);
      await ctx.app.services.requestLog.flush();

      // The page, then the API (whose answer does not include its own request): the same moment.
      const page = await me.client.get(`/developer/usage?key=${live.key.id}`);
      const api = (await call(live.token, '/api/v1/usage')).json() as UsageResponse;
      assert.equal(page.statusCode, 200);
      const table = tableOf(page.body);
      assert.equal(table.size, 30, 'thirty days');
      for (const d of api.daily) assert.deepEqual(table.get(d.date), [d.requests, d.requests - d.errors, d.errors - d.rate_limited - d.server_errors, d.rate_limited, d.server_errors], d.date);
      const today = api.daily.at(-1)!;
      assert.deepEqual([today.requests, today.errors, today.rate_limited], [61, 2, 1], 'the test key is not counted');
      // The chart: an SVG image with a title and a description giving the same totals.
      assert.match(page.body, /<svg class="chart"[^>]*role="img"/);
      assert.match(page.body, /<title id="chart-requests-title">Requests per day<\/title>/);
      // Counts by the language's plural rules: "1 client error", not "1 client errors" (issue 17).
      assert.match(pageText(page.body), /61 requests in 30 days: 59 succeeded, 1 client error \(4xx\), 1 refused by the rate limit \(429\), 0 server errors \(5xx\)/);
      // Today's use against the tier's limits.
      const text = pageText(page.body);
      assert.match(text, /Tier: free/);
      assert.match(text, /This minute \d+ of 60/);
      assert.match(text, /This day 60 of 5,000/);
      // Which requests count: the limiter counted 60 today, the chart shows 61 (the 429 is logged, not counted); the page says so.
      assert.match(text, /These limits count every request with this key that was let through, errors included/);
      assert.match(text, /They do not count GET \/key and GET \/usage, which have their own limit of 60 a minute, nor requests refused with 429/);
      assert.match(text, /Today the chart shows 61 requests and the daily limit has counted 60: the chart also shows the requests the limits do not count \(above\)\./);
      assert.match(text, /Every request made with this key, including GET \/key, GET \/usage and requests refused with 429/);
      // The same in Spanish, with Spanish plurals.
      const es = pageText((await me.client.get(`/developer/usage?key=${live.key.id}&lang=es`)).body);
      assert.match(es, /61 peticiones en 30 días: 59 correctas, 1 error del cliente \(4xx\), 1 rechazada por el límite \(429\), 0 errores del servidor \(5xx\)/);
      assert.match(es, /Este día 60 de 5000/);
      assert.match(es, /Hoy el gráfico muestra 61 peticiones y el límite diario ha contado 60: el gráfico también muestra las peticiones que los límites no cuentan \(arriba\)\./);
      await me.client.get('/developer/usage?lang=en');
      // The default key is the newest live one; test keys are not offered.
      const byDefault = await me.client.get('/developer/usage');
      assert.match(byDefault.body, new RegExp(`<option value="${live.key.id}" selected`));
      assert.ok(!byDefault.body.includes(`value="${test.key.id}"`));
    });

    it('what the page says is not counted is not: GET /key and GET /usage are in the chart, not in the day window', async () => {
      const me = await signedIn(ctx, 'usage-counts@example.com');
      const live = await ctx.app.services.keys.create({ type: 'user', userId: me.userId }, { ownerEmail: me.email }, { mode: 'live' });
      for (let i = 0; i < 3; i++) assert.equal((await call(live.token)).statusCode, 200);
      assert.equal((await call(live.token, '/api/v1/lawyers/search?limit=999')).statusCode, 400, 'an error counts');
      assert.equal((await call(live.token, '/api/v1/key')).statusCode, 200);
      assert.equal((await call(live.token, '/api/v1/usage')).statusCode, 200);
      await ctx.app.services.requestLog.flush();
      const text = pageText((await me.client.get(`/developer/usage?key=${live.key.id}`)).body);
      assert.match(text, /This day 4 of 5,000/, 'three successes and the 400');
      assert.match(text, /Today the chart shows 6 requests and the daily limit has counted 4/);
    });

    it("every chart's figures are GET /usage's over several days and outcomes, from the daily aggregates; test traffic is left out", async () => {
      const me = await signedIn(ctx, 'usage-charts@example.com');
      const actor: Actor = { type: 'user', userId: me.userId };
      const live = await ctx.app.services.keys.create(actor, { ownerEmail: me.email }, { mode: 'live', name: 'charts' });
      const test = await ctx.app.services.keys.create(actor, { ownerEmail: me.email }, { mode: 'test' });
      const start = ctx.clock.now().getTime();
      const missing = '/api/v1/lawyers/00000000-0000-4000-8000-000000000000';
      // Three days of real calls: successes, a 404 (not_found), a 400 (validation), an unknown route.
      for (let day = 0; day < 3; day++) {
        for (let i = 0; i < 5 + day * 3; i++) assert.equal((await call(live.token)).statusCode, 200);
        assert.equal((await call(live.token, missing)).statusCode, 404);
        if (day > 0) assert.equal((await call(live.token, '/api/v1/lawyers/search?limit=999')).statusCode, 400);
        if (day === 2) assert.equal((await call(live.token, '/api/v1/no-such-thing')).statusCode, 404);
        await call(test.token, missing);
        ctx.clock.advance(86_400_000);
      }
      ctx.clock.set(start + 2 * 86_400_000);
      // Server errors and slow answers cannot be provoked through the API: logged as the app would.
      const at = new Date(start + 86_400_000).toISOString();
      const owner = { key_id: live.key.id, owner_type: 'user', owner_id: me.userId, method: 'GET', client_ip: '192.0.2.9', at };
      for (let i = 0; i < 2; i++) {
        ctx.app.services.requestLog.record({ ...owner, request_id: `req_${'e'.repeat(31)}${i}`, test: 0, route: '/api/v1/cities', path: '/api/v1/cities', status: 503, duration_ms: 30_000, error_code: 'service_unavailable' });
      }
      ctx.app.services.requestLog.record({ ...owner, request_id: `req_${'f'.repeat(32)}`, test: 1, route: '/api/v1/cities', path: '/api/v1/cities', status: 500, duration_ms: 9000, error_code: 'internal_error' });
      await ctx.app.services.requestLog.flush();

      const api = (await call(live.token, '/api/v1/usage')).json() as UsageResponse;
      const page = await me.client.get(`/developer/usage?key=${live.key.id}`);
      assert.equal(page.statusCode, 200);
      const recent = api.daily.slice(-3);
      assert.deepEqual(recent.map((d) => [d.requests, d.errors, d.server_errors]), [[6, 1, 0], [12, 4, 2], [14, 3, 0]], 'the test key is not counted');

      // Requests per day by outcome: the table, and one bar series per outcome in the SVG.
      const table = tableOf(page.body);
      for (const d of api.daily) assert.deepEqual(table.get(d.date), [d.requests, d.requests - d.errors, d.errors - d.rate_limited - d.server_errors, d.rate_limited, d.server_errors], d.date);
      for (const cls of ['bar-ok', 'bar-error', 'bar-server']) assert.match(page.body, new RegExp(`<rect class="${cls}"`), cls);

      // p50/p95 per day: the 503s took 30 s, far above any real call however loaded the machine,
      // so the second day's p95 is the bound of the bucket holding 30 s (2^15 ms, to 2 digits).
      assert.equal(recent[1]!.latency_ms.p95, 33_000);
      assert.ok(recent[0]!.latency_ms.p50! < 30_000 && recent[0]!.latency_ms.p50! > 0);
      assert.equal(api.daily[0]!.latency_ms.p50, null, 'a day without requests has none');
      const latency = latencyOf(page.body);
      assert.equal(latency.size, 30);
      for (const d of api.daily) assert.deepEqual(latency.get(d.date), [d.latency_ms.p50 === null ? '–' : `${d.latency_ms.p50} ms`, d.latency_ms.p95 === null ? '–' : `${d.latency_ms.p95} ms`], d.date);
      assert.match(page.body, /<svg class="chart"[^>]*aria-labelledby="chart-latency-title chart-latency-desc"/);
      assert.match(page.body, /<g class="line-p95"><path d="M[^"]+L/);

      // Errors by code, most frequent first, each linked to its documentation.
      assert.deepEqual(api.errors_by_code, [{ code: 'not_found', count: 4 }, { code: 'invalid_request', count: 2 }, { code: 'service_unavailable', count: 2 }]);
      assert.deepEqual(
        barTable(page.body, 'errors-table'),
        api.errors_by_code.map((e) => ({ head: e.code!, href: `/docs/errors/${e.code}`, numbers: [e.count] })),
      );
      // Top endpoints, most requested first: route patterns, unknown paths as one row.
      assert.deepEqual(api.top_endpoints.map((e) => [e.method, e.route, e.requests, e.errors]), [
        ['GET', '/api/v1/practice-areas', 24, 0],
        ['GET', '/api/v1/lawyers/{lawyerId}', 3, 3],
        ['GET', '/api/v1/cities', 2, 2],
        ['GET', '/api/v1/lawyers/search', 2, 2],
        ['GET', '*', 1, 1],
      ]);
      assert.deepEqual(
        barTable(page.body, 'endpoints-table').map((r) => [r.head, ...r.numbers]),
        api.top_endpoints.map((e) => [`${e.method} ${e.route === '*' ? '(no such route)' : e.route}`, e.requests, e.errors]),
      );

      // From the aggregates, not the log: the same page once the log's rows are gone.
      await ctx.database.db.deleteFrom('request_log').where('key_id', '=', live.key.id).execute();
      const again = await me.client.get(`/developer/usage?key=${live.key.id}`);
      const strip = (html: string) => html.slice(html.indexOf('<h2 id="per-day">'), html.indexOf('<h2 id="today">'));
      assert.equal(strip(again.body), strip(page.body));

      // The Spanish page: the same figures, Spanish words and decimal commas.
      const es = await me.client.get(`/developer/usage?key=${live.key.id}&lang=es`);
      assert.deepEqual(tableOf(es.body), table);
      assert.match(pageText(es.body), /Errores por código/);
      assert.match(pageText(es.body), /Endpoints más usados/);
    });

    it('with no live key, says so and offers to create one', async () => {
      const me = await signedIn(ctx, 'nokeys@example.com');
      const page = await me.client.get('/developer/usage');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /No live keys yet/);
      assert.match(page.body, /href="\/developer\/keys\/new"/);
    });

    it("another person's key is 404; a firm's usage needs usage:read", async () => {
      const owner = await signedIn(ctx, 'usage-owner@example.com');
      const other = await signedIn(ctx, 'usage-other@example.com');
      const { key } = await ctx.app.services.keys.create({ type: 'user', userId: owner.userId }, { ownerEmail: owner.email }, { mode: 'live' });
      assert.equal((await other.client.get(`/developer/usage?key=${key.id}`)).statusCode, 404);
      assert.equal((await owner.client.get(`/developer/usage?key=${key.id}`)).statusCode, 200);

      const slug = `usage-firm-${target.name}`;
      await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Usage firm', ownerEmail: owner.email });
      await ctx.app.services.accounts.addMember(OPERATOR, slug, other.email, 'member');
      assert.equal((await other.client.get(`/firms/${slug}/usage`)).statusCode, 403);
      await ctx.app.services.accounts.setPermissions(OPERATOR, slug, other.email, ['usage:read']);
      assert.equal((await other.client.get(`/firms/${slug}/usage`)).statusCode, 200);
      const stranger = await signedIn(ctx, 'usage-stranger@example.com');
      assert.equal((await stranger.client.get(`/firms/${slug}/usage`)).statusCode, 404);
    });
  });
}
