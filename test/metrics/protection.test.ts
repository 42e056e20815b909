/**
 * Who may read GET /metrics and what it exposes: the METRICS_TOKEN (none, malformed, wrong and
 * right), nothing on the public port when unconfigured, the admin listener (METRICS_PORT, no
 * token, loopback), the settings' validation, rate-limit refusals by limit (a 429 from the real
 * anonymous and failed-key limits), and bounded cardinality (random URLs create no series).
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { createTestContext, testConfig, type TestContext } from '../support/app.ts';
import { initiate } from '../support/booking.ts';
import { databaseTargets, migratedSqliteUrl } from '../support/databases.ts';
import { METRICS_TOKEN, parseExposition, PROMETHEUS_CONTENT_TYPE, scrape, seriesOf, valueOf } from './support.ts';

const PROBLEM = 'application/problem+json; charset=utf-8';

for (const target of databaseTargets()) {
  describe(`GET /metrics protection and cardinality (${target.name})`, () => {
    let ctx: TestContext;
    let plain: TestContext;

    before(async () => {
      // The real limits (multiplier 1): the 429s below come from the production rules.
      ctx = await createTestContext(target, { config: { metricsToken: METRICS_TOKEN, rateLimitMultiplier: 1 } });
      plain = await createTestContext(target);
    });
    after(async () => {
      await ctx?.close();
      await plain?.close();
    });

    it('refuses a missing, malformed or wrong token with a 401 problem that leaks nothing', async () => {
      const cases: Array<[string | undefined, boolean]> = [
        [undefined, false],
        ['Basic bWV0cmljczpzZWNyZXQ=', true],
        [`Bearer ${METRICS_TOKEN.slice(0, -1)}x`, true],
        [`Bearer ${METRICS_TOKEN}extra`, true],
        ['Bearer', true],
      ];
      for (const [authorization, sent] of cases) {
        const res = await ctx.app.fastify.inject({ method: 'GET', url: '/metrics', headers: authorization === undefined ? {} : { authorization } });
        assert.equal(res.statusCode, 401, String(authorization));
        assert.equal(res.headers['content-type'], PROBLEM);
        const www = String(res.headers['www-authenticate']);
        assert.match(www, /^Bearer realm="consulta-metrics"/);
        assert.equal(www.includes('error="invalid_token"'), sent, www);
        const body = res.json() as { code: string; status: number; instance: string };
        assert.equal(body.code, 'authentication_required');
        assert.equal(body.instance, res.headers['x-request-id']);
        assert.ok(!res.body.includes('consulta_') && !res.body.includes('process_'), 'no metric in the refusal');
      }
    });

    it('serves the exposition with the right token: prom-client\'s content type, parseable, default process metrics once', async () => {
      const res = await ctx.app.fastify.inject({ method: 'GET', url: '/metrics', headers: { authorization: `bearer  ${METRICS_TOKEN}` } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['content-type'], PROMETHEUS_CONTENT_TYPE);
      assert.equal(res.headers['cache-control'], 'no-store');
      const exposition = parseExposition(res.body);
      for (const [family, type] of [
        ['consulta_http_requests_total', 'counter'],
        ['consulta_http_request_duration_seconds', 'histogram'],
        ['consulta_rate_limit_refusals_total', 'counter'],
        ['consulta_holds_created_total', 'counter'],
        ['consulta_payment_outcomes_total', 'counter'],
        ['consulta_webhook_attempts_total', 'counter'],
        ['consulta_webhook_queue_depth', 'gauge'],
        ['consulta_job_lag_seconds', 'gauge'],
        ['consulta_mcp_tool_calls_total', 'counter'],
        ['process_cpu_user_seconds_total', 'counter'],
        ['nodejs_heap_size_used_bytes', 'gauge'],
      ]) {
        assert.equal(exposition.types.get(family!), type, family);
      }
      assert.equal(valueOf(exposition, 'consulta_webhook_attempts_total', { outcome: 'dead' }), 0, 'series exist from the start');
      assert.equal(valueOf(exposition, 'consulta_payment_outcomes_total', { provider: 'demo', outcome: 'voided' }), 0);
    });

    it('is not exposed without METRICS_TOKEN or METRICS_PORT: the 404 of any unknown route', async () => {
      assert.equal(plain.app.metrics, null);
      for (const headers of [{}, { authorization: `Bearer ${METRICS_TOKEN}` }]) {
        const res = await plain.app.fastify.inject({ method: 'GET', url: '/metrics', headers });
        assert.equal(res.statusCode, 404);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.equal((res.json() as { code: string }).code, 'not_found');
      }
    });

    it('counts refusals by limit: anonymous initiation and failed keys', async () => {
      const before = await scrape(ctx);
      const ip = '192.0.2.77';
      // Initiation allows 5 an hour per address; refused or not, every request counts.
      for (let i = 0; i < 5; i++) assert.equal((await initiate(ctx, {}, { remoteAddress: ip })).statusCode, 400);
      const refused = await initiate(ctx, {}, { remoteAddress: ip });
      assert.equal(refused.statusCode, 429, refused.body);
      // 20 bad keys a minute per address; the 21st request is refused before any lookup.
      const badIp = '192.0.2.78';
      for (let i = 0; i < 20; i++) {
        const res = await ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/practice-areas', headers: { authorization: 'Bearer svc_nope' }, remoteAddress: badIp });
        assert.equal(res.statusCode, 401);
      }
      const blocked = await ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/practice-areas', headers: { authorization: 'Bearer svc_nope' }, remoteAddress: badIp });
      assert.equal(blocked.statusCode, 429);

      const now = await scrape(ctx);
      const delta = (name: string, labels: Record<string, string>) => (valueOf(now, name, labels) ?? 0) - (valueOf(before, name, labels) ?? 0);
      assert.equal(delta('consulta_rate_limit_refusals_total', { limit: 'anonymous_initiate' }), 1);
      assert.equal(delta('consulta_rate_limit_refusals_total', { limit: 'failed_auth' }), 1);
      assert.equal(delta('consulta_rate_limit_refusals_total', { limit: 'anonymous_default' }), 0);
      assert.equal(delta('consulta_http_requests_total', { route: '/api/v1/bookings/initiate', method: 'POST', status: '400' }), 5);
      assert.equal(delta('consulta_http_requests_total', { route: '/api/v1/bookings/initiate', method: 'POST', status: '429' }), 1);
      assert.equal(delta('consulta_http_requests_total', { route: '/api/v1/practice-areas', method: 'GET', status: '401' }), 20);
    });

    it('keeps cardinality bounded: random URLs and parameters create no series', async () => {
      const before = await scrape(ctx);
      const randoms: string[] = [];
      for (let i = 0; i < 30; i++) {
        const r = randomBytes(6).toString('hex');
        randoms.push(r);
        const url = [`/${r}`, `/api/v1/${r}?q=${r}`, `/api/v1/lawyers/${randomUUID()}/reviews?x=${r}`, `/docs/${r}/${r}`][i % 4]!;
        const res = await ctx.app.fastify.inject({ method: i % 5 === 0 ? 'POST' : 'GET', url, remoteAddress: `198.18.${i}.1`, ...(i % 5 === 0 ? { payload: {} } : {}) });
        assert.ok(res.statusCode >= 400 && res.statusCode < 500, `${url}: ${res.statusCode}`);
      }
      const now = await scrape(ctx);
      const families = ['consulta_http_requests_total', 'consulta_http_request_duration_seconds_bucket', 'consulta_http_request_duration_seconds_count'];
      const registered = new Set(ctx.app.routes.map((r) => r.url));
      for (const family of families) {
        for (const s of seriesOf(now, family)) {
          assert.ok(s.labels.route === 'unmatched' || registered.has(s.labels.route!), `${family}: route label ${s.labels.route} is a registered pattern`);
          for (const r of randoms) assert.ok(!Object.values(s.labels).some((v) => v.includes(r)), `${family} carries a random URL part`);
        }
      }
      // At most the few series those routes could add (a status or method not seen before), never one per URL.
      const added = seriesOf(now, 'consulta_http_requests_total').length - seriesOf(before, 'consulta_http_requests_total').length;
      assert.ok(added <= 6, `${added} new series`);
    });
  });
}

describe('metrics settings and the admin listener', () => {
  let server: RunningServer | undefined;
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-metrics-'));
  });
  after(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('validates METRICS_TOKEN, METRICS_PORT and METRICS_HOST', () => {
    const fails = (env: Record<string, string>, variable: string) =>
      assert.throws(() => loadConfig(env), (err: unknown) => err instanceof ConfigError && err.variable === variable, JSON.stringify(env));
    fails({ METRICS_TOKEN: 'short' }, 'METRICS_TOKEN');
    fails({ METRICS_TOKEN: 'has spaces in the middle ok' }, 'METRICS_TOKEN');
    fails({ METRICS_PORT: 'nine' }, 'METRICS_PORT');
    fails({ METRICS_PORT: '70000' }, 'METRICS_PORT');
    fails({ PORT: '3000', METRICS_PORT: '3000' }, 'METRICS_PORT');
    const none = loadConfig({});
    assert.deepEqual([none.metricsToken, none.metricsPort, none.metricsHost], [null, null, '127.0.0.1']);
    const set = loadConfig({ METRICS_TOKEN: METRICS_TOKEN, METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' });
    assert.deepEqual([set.metricsToken, set.metricsPort, set.metricsHost], [METRICS_TOKEN, 9464, '10.0.0.5']);
  });

  it('serves GET /metrics without a token on the admin port (loopback), and nothing on the public port', async () => {
    server = await startServer(testConfig({ port: 0, host: '127.0.0.1', databaseUrl: await migratedSqliteUrl(path.join(dir, 'm.db')), metricsPort: 0 }));
    assert.match(server.metricsUrl ?? '', /^http:\/\/127\.0\.0\.1:\d+$/);
    const pub = await fetch(`${server.url}/api/v1/practice-areas`);
    assert.equal(pub.status, 200);
    const res = await fetch(`${server.metricsUrl}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), PROMETHEUS_CONTENT_TYPE);
    const exposition = parseExposition(await res.text());
    assert.equal(valueOf(exposition, 'consulta_http_requests_total', { route: '/api/v1/practice-areas', method: 'GET', status: '200' }), 1);
    assert.equal(valueOf(exposition, 'consulta_job_lag_seconds', { task: 'webhook_delivery' }), 0);

    const publicMetrics = await fetch(`${server.url}/metrics`, { headers: { accept: 'application/json' } });
    assert.equal(publicMetrics.status, 404, 'no token configured: not on the public port');
    for (const [url, method] of [[`${server.metricsUrl}/`, 'GET'], [`${server.metricsUrl}/metrics`, 'POST'], [`${server.metricsUrl}/healthz`, 'GET']] as const) {
      const other = await fetch(url, { method });
      assert.equal(other.status, 404, `${method} ${url}`);
      assert.equal(other.headers.get('content-type'), 'application/problem+json');
      assert.equal(((await other.json()) as { code: string }).code, 'not_found');
    }
  });
});
