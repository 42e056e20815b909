import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { RedisRateLimitStore } from '../../src/domain/access/rate-limit.redis.ts';
import { sweepRequestLog } from '../../src/domain/access/request-log.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { deleteKeys, testRedis, uniquePrefix } from '../support/redis.ts';

for (const target of databaseTargets()) {
  describe(`request log, GET /key and GET /usage (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    let live: { token: string; id: string };
    let test: { token: string; id: string };
    before(async () => {
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1 } });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
      const keys = ctx.app.services.keys;
      const l = await keys.create(OPERATOR, { ownerEmail: 'integrator@example.com' }, { mode: 'live', name: 'portal' });
      const t = await keys.create(OPERATOR, { ownerEmail: 'integrator@example.com' }, { mode: 'test', scopes: ['lawyers:read'] });
      live = { token: l.token, id: l.key.id };
      test = { token: t.token, id: t.key.id };
    });
    after(() => ctx.close());

    const get = (url: string, token?: string, ip = '192.0.2.50') =>
      ctx.app.fastify.inject({ url, remoteAddress: ip, headers: token ? { authorization: `Bearer ${token}` } : {} });

    it('GET /key describes the calling key and never includes the secret', async () => {
      const res = await get('/api/v1/key', live.token);
      assert.equal(res.statusCode, 200);
      const k = res.json();
      assert.equal(k.id, live.id);
      assert.equal(k.mode, 'live');
      assert.equal(k.tier, 'free');
      assert.equal(k.name, 'portal');
      assert.deepEqual(k.owner, { type: 'user', email: 'integrator@example.com' });
      assert.deepEqual(k.limits, { per_minute: 60, per_day: 5000 });
      assert.equal(k.scopes.length, 6);
      assert.ok(live.token.startsWith(k.prefix));
      assert.equal(k.expired, false);
      assert.equal(k.suspension, null);
      assert.ok(!res.body.includes(live.token), 'the secret is never returned');
      const t = (await get('/api/v1/key', test.token)).json();
      assert.equal(t.mode, 'test');
      assert.deepEqual(t.scopes, ['lawyers:read']);
    });

    it('records every API request with its fields, flags test traffic, and keeps test traffic out of usage', async () => {
      const ids: string[] = [];
      const remember = (r: { headers: Record<string, unknown> }) => ids.push(String(r.headers['x-request-id']));
      remember(await get(`/api/v1/lawyers/${lawyerId}?x=1`, live.token)); // 400
      remember(await get(`/api/v1/lawyers/${lawyerId}`, live.token)); // 200
      remember(await get('/api/v1/lawyers/00000000-0000-4000-8000-000000000000', live.token)); // 404
      remember(await get('/api/v1/lawyers/search', test.token)); // test traffic
      remember(await get('/api/v1/cities', undefined, '203.0.113.9')); // anonymous
      remember(await get('/api/v1/cities', 'svc_not_a_key')); // 401
      await ctx.app.services.requestLog.flush();
      const rows = await ctx.database.db.selectFrom('request_log').selectAll().where('request_id', 'in', ids).execute();
      const byId = new Map(rows.map((r) => [r.request_id, r]));
      assert.equal(rows.length, 6);
      const bad = byId.get(ids[0]!)!;
      assert.equal(bad.status, 400);
      assert.equal(bad.error_code, 'invalid_request');
      assert.equal(bad.key_id, live.id);
      assert.equal(bad.owner_type, 'user');
      assert.equal(bad.method, 'GET');
      assert.equal(bad.route, '/api/v1/lawyers/:lawyerId');
      assert.equal(bad.path, `/api/v1/lawyers/${lawyerId}`);
      assert.equal(bad.client_ip, '192.0.2.50');
      assert.equal(bad.test, 0);
      assert.ok(bad.duration_ms >= 0);
      assert.match(bad.at, /^\d{4}-\d\d-\d\dT/);
      assert.equal(byId.get(ids[1]!)!.status, 200);
      assert.equal(byId.get(ids[2]!)!.error_code, 'not_found');
      assert.equal(byId.get(ids[3]!)!.test, 1);
      assert.equal(byId.get(ids[4]!)!.key_id, null);
      assert.equal(byId.get(ids[4]!)!.client_ip, '203.0.113.9');
      assert.equal(byId.get(ids[5]!)!.error_code, 'invalid_api_key');

      const usage = (await get('/api/v1/usage', live.token)).json();
      assert.equal(usage.key_id, live.id);
      assert.equal(usage.daily.length, 30);
      const today = ctx.clock.now().toISOString().slice(0, 10);
      assert.equal(usage.daily.at(-1).date, today);
      // The GET /key of the previous test is live traffic too (it just does not use the quota).
      const { latency_ms: latency, ...counts } = usage.daily.at(-1);
      assert.deepEqual(counts, { date: today, requests: 4, errors: 2, rate_limited: 0, server_errors: 0 });
      assert.ok(latency.p50 > 0 && latency.p95 >= latency.p50, JSON.stringify(latency));
      assert.equal(usage.daily[0].latency_ms.p50, null);
      assert.deepEqual(usage.errors_by_code, [{ code: 'invalid_request', count: 1 }, { code: 'not_found', count: 1 }]);
      assert.ok(usage.top_endpoints.some((e: { route: string; errors: number }) => e.route === '/api/v1/lawyers/{lawyerId}' && e.errors >= 1), JSON.stringify(usage.top_endpoints));
      assert.ok(usage.daily.slice(0, -1).every((d: { requests: number }) => d.requests === 0));
      const minute = usage.windows.find((w: { id: string }) => w.id === 'minute');
      assert.equal(minute.limit, 60);
      assert.equal(minute.used, 3, 'diagnostic calls do not use the key\'s quota');
      const testUsage = (await get('/api/v1/usage', test.token)).json();
      assert.ok(testUsage.daily.every((d: { requests: number }) => d.requests === 0), 'test traffic is excluded from aggregates');
    });

    it('counts 429s in usage, and GET /key still answers while the key is rate limited', async () => {
      const k = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: 'burst@example.com' }, { mode: 'live' });
      ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / 60_000) * 60_000 + 1_000);
      for (let i = 0; i < 62; i++) await get('/api/v1/cities', k.token);
      assert.equal((await get('/api/v1/cities', k.token)).statusCode, 429);
      assert.equal((await get('/api/v1/key', k.token)).statusCode, 200);
      await ctx.app.services.requestLog.flush();
      const today = (await get('/api/v1/usage', k.token)).json().daily.at(-1);
      assert.equal(today.requests, 64, '62 + 1 refused + GET /key');
      assert.equal(today.rate_limited, 3);
      assert.equal(today.errors, 3);
    });

    it('sweeps entries older than the retention period, and only those', async () => {
      const now = ctx.clock.now().getTime();
      const old = new Date(now - 31 * 86_400_000).toISOString();
      const recent = new Date(now - 29 * 86_400_000).toISOString();
      const base = { key_id: null, owner_type: null, owner_id: null, test: 0, method: 'GET', route: '/x', path: '/x', status: 200, duration_ms: 1, client_ip: '127.0.0.1', error_code: null };
      await ctx.database.db.insertInto('request_log').values([
        { ...base, request_id: 'req_old_sweep_test', at: old },
        { ...base, request_id: 'req_recent_sweep_test', at: recent },
      ]).execute();
      assert.ok((await sweepRequestLog(ctx.database, ctx.clock, 30)) >= 1);
      const left = await ctx.database.db.selectFrom('request_log').select('request_id').where('request_id', 'in', ['req_old_sweep_test', 'req_recent_sweep_test']).execute();
      assert.deepEqual(left.map((r) => r.request_id), ['req_recent_sweep_test']);
    });

    if (target.name === 'sqlite') {
      it('consulta requests show finds a request by the id the client quotes', async () => {
        const res = await get('/api/v1/practice-areas', live.token);
        const id = String(res.headers['x-request-id']);
        await ctx.app.services.requestLog.flush();
        const run = (args: string[]) =>
          // ctx.url is a sqlite: URL here.
          spawnSync(process.execPath, ['bin/consulta.js', ...args], { env: { ...process.env, DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' }, encoding: 'utf8' });
        const shown = run(['requests', 'show', id, '--json']);
        assert.equal(shown.status, 0, shown.stderr);
        const entry = JSON.parse(shown.stdout);
        assert.equal(entry.request_id, id);
        assert.equal(entry.key_id, live.id);
        assert.equal(entry.status, 200);
        assert.equal(entry.route, '/api/v1/practice-areas');
        const missing = run(['requests', 'show', 'req_nope']);
        assert.equal(missing.status, 1);
        assert.match(missing.stderr, /no request req_nope/);
      });
    }
  });
}

describe('a burst of concurrent requests admits exactly the allowed number', () => {
  const [sqlite] = databaseTargets();
  const burst = async (ctx: TestContext) => {
    const k = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: 'burst@example.com' }, { mode: 'live' });
    ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / 60_000) * 60_000 + 1_000);
    const results = await Promise.all(
      Array.from({ length: 150 }, () => ctx.app.fastify.inject({ url: '/api/v1/cities', headers: { authorization: `Bearer ${k.token}` } })),
    );
    const statuses = results.map((r) => r.statusCode);
    assert.equal(statuses.filter((s) => s === 200).length, 60);
    assert.equal(statuses.filter((s) => s === 429).length, 90);
  };

  it('with the in-memory store', async () => {
    const ctx = await createTestContext(sqlite!, { config: { rateLimitMultiplier: 1 } });
    try {
      await burst(ctx);
    } finally {
      await ctx.close();
    }
  });

  it('with the Redis store', async (t) => {
    const redis = await testRedis();
    if (redis.url === null) return t.skip(redis.skip);
    const prefix = uniquePrefix('burst');
    const ctx = await createTestContext(sqlite!, { config: { rateLimitMultiplier: 1 }, limiter: new RedisRateLimitStore({ url: redis.url, prefix }) });
    try {
      await burst(ctx);
    } finally {
      await ctx.close();
      await deleteKeys(redis.url, prefix);
    }
  });
});
