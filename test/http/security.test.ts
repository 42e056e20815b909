/**
 * The shared security suite: every API route runs every authentication, authorization and
 * rate-limit case, on SQLite and PostgreSQL. A new route is added to ROUTES and inherits them all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Scope } from '../../src/domain/access/types.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { makeKeys, type KeyKit } from '../support/keys.ts';

interface RouteCase {
  name: string;
  method?: 'GET' | 'POST';
  url: (ids: { lawyerId: string; intentId: string }) => string;
  body?: (lawyerId: string) => object;
  /** null: key-only diagnostic route (no scope). */
  scope: Scope | null;
  /** Key-only routes that still require a scope (polling). */
  keyOnly?: boolean;
  anonymousLimit: number | null;
  anonymousWindow?: number;
  /** Statuses that mean "authorized and handled" (initiate: a 201, or the generic 404 once the slot is held). */
  ok?: number[];
  /** What a valid test key gets (polling: 404, test keys never own intents). */
  testKeyStatus?: number;
}

const ROUTES: RouteCase[] = [
  { name: 'GET /lawyers/search', url: () => '/api/v1/lawyers/search', scope: 'lawyers:read', anonymousLimit: 30 },
  { name: 'GET /lawyers/{id}', url: ({ lawyerId }) => `/api/v1/lawyers/${lawyerId}`, scope: 'lawyers:read', anonymousLimit: 30 },
  { name: 'GET /lawyers/{id}/availability', url: ({ lawyerId }) => `/api/v1/lawyers/${lawyerId}/availability`, scope: 'availability:read', anonymousLimit: 10 },
  { name: 'GET /lawyers/{id}/reviews', url: ({ lawyerId }) => `/api/v1/lawyers/${lawyerId}/reviews`, scope: 'reviews:read', anonymousLimit: 30 },
  {
    name: 'POST /bookings/initiate',
    method: 'POST',
    url: () => '/api/v1/bookings/initiate',
    body: (lawyerId) => ({ lawyer_id: lawyerId, date: '2026-11-25', start_time: '10:00:00', end_time: '11:00:00' }),
    scope: 'bookings:initiate',
    anonymousLimit: 5,
    anonymousWindow: 3600,
    ok: [201, 404],
  },
  {
    name: 'GET /booking-intents/{id}',
    url: ({ intentId }) => `/api/v1/booking-intents/${intentId}`,
    scope: 'bookings:read',
    keyOnly: true,
    anonymousLimit: null,
    testKeyStatus: 404,
  },
  { name: 'GET /practice-areas', url: () => '/api/v1/practice-areas', scope: 'reference:read', anonymousLimit: 30 },
  { name: 'GET /cities', url: () => '/api/v1/cities', scope: 'reference:read', anonymousLimit: 30 },
  { name: 'GET /key', url: () => '/api/v1/key', scope: null, anonymousLimit: null },
  { name: 'GET /usage', url: () => '/api/v1/usage', scope: null, anonymousLimit: null },
];

const MCP_TOKEN = 'mcp_at_7f3a9c12b4e54d7e8a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d';

for (const target of databaseTargets()) {
  describe(`security suite (${target.name})`, () => {
    let ctx: TestContext;
    let keys: KeyKit;
    let lawyerId: string;
    let intentId: string;
    let ipCounter = 0;
    /** A new client address per case, so anonymous and failed-auth counters never interfere. */
    const nextIp = () => `198.51.100.${(++ipCounter % 250) + 1}`;

    before(async () => {
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1 } });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
      keys = await makeKeys(ctx);
      const created = await ctx.app.fastify.inject({
        method: 'POST',
        url: '/api/v1/bookings/initiate',
        headers: { authorization: `Bearer ${keys.live}` },
        payload: { lawyer_id: lawyerId, date: '2026-11-24', start_time: '10:00:00', end_time: '11:00:00' },
      });
      intentId = created.json().booking_intent_id;
    });
    after(() => ctx.close());

    const call = (route: RouteCase, opts: { token?: string; authorization?: string; ip?: string } = {}): Promise<LightMyRequestResponse> => {
      const headers: Record<string, string> = {};
      if (opts.authorization !== undefined) headers.authorization = opts.authorization;
      else if (opts.token) headers.authorization = `Bearer ${opts.token}`;
      const request: InjectOptions = { method: route.method ?? 'GET', url: route.url({ lawyerId, intentId }), headers, remoteAddress: opts.ip ?? nextIp() };
      if (route.body) request.payload = route.body(lawyerId);
      return ctx.app.fastify.inject(request);
    };
    const expectProblem = (res: LightMyRequestResponse, status: number, code: string) => {
      assert.equal(res.statusCode, status, res.body);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      assert.equal(res.json().code, code);
      assert.equal(res.json().instance, res.headers['x-request-id']);
    };

    for (const route of ROUTES) {
      describe(route.name, () => {
        const diagnostic = route.scope === null;
        const keyOnly = diagnostic || route.keyOnly === true;
        const ok = route.ok ?? [200];
        const assertOk = (res: LightMyRequestResponse, what: string) => assert.ok(ok.includes(res.statusCode), `${what}: ${res.statusCode} ${res.body}`);

        it(keyOnly ? 'without a key: 401 authentication_required with WWW-Authenticate' : 'without a key: allowed anonymously, with rate-limit headers', async () => {
          const res = await call(route);
          if (keyOnly) {
            expectProblem(res, 401, 'authentication_required');
            assert.match(String(res.headers['www-authenticate']), /^Bearer/);
          } else {
            assertOk(res, 'anonymous');
            assert.equal(res.headers['x-ratelimit-limit'], String(route.anonymousLimit));
            assert.equal(res.headers['x-ratelimit-remaining'], String(route.anonymousLimit! - 1));
          }
        });

        for (const [label, authorization] of [
          ['a malformed Authorization header', 'Basic dXNlcjpwYXNz'],
          ['a Bearer header without a token', 'Bearer'],
          ['a truncated key', 'Bearer svc_abc123'],
          ['a well-formed but unknown key', 'Bearer svc_0000000000000000000000000000000000000A'],
          ['an MCP access token', `Bearer ${MCP_TOKEN}`],
        ] as const) {
          it(`with ${label}: 401 invalid_api_key, never treated as anonymous`, async () => {
            const res = await call(route, { authorization });
            expectProblem(res, 401, 'invalid_api_key');
            assert.match(String(res.headers['www-authenticate']), /^Bearer/);
          });
        }

        it('with a revoked key: 401 invalid_api_key', async () => {
          expectProblem(await call(route, { token: keys.revoked }), 401, 'invalid_api_key');
        });

        it(diagnostic ? 'with an expired key: still described (diagnostic)' : 'with an expired key: 401 expired_api_key', async () => {
          ctx.clock.advance(120_000);
          try {
            const res = await call(route, { token: keys.expired });
            if (diagnostic) assert.equal(res.statusCode, 200, res.body);
            else expectProblem(res, 401, 'expired_api_key');
          } finally {
            ctx.clock.advance(-120_000);
          }
        });

        for (const [label, pick] of [
          ['suspended by its firm', (k: KeyKit) => k.suspendedByFirm],
          ['suspended by the operator', (k: KeyKit) => k.suspendedByOperator],
        ] as const) {
          it(diagnostic ? `with a key ${label}: still described (diagnostic)` : `with a key ${label}: 403 api_key_suspended`, async () => {
            const res = await call(route, { token: pick(keys) });
            if (diagnostic) {
              assert.equal(res.statusCode, 200, res.body);
              if (route.name === 'GET /key') assert.ok(res.json().suspension);
            } else expectProblem(res, 403, 'api_key_suspended');
          });
        }

        it('with an allow-listed key from another address: 403 ip_not_allowed; from an allowed one: 200', async () => {
          expectProblem(await call(route, { token: keys.allowListed, ip: '192.0.2.10' }), 403, 'ip_not_allowed');
          // Polling answers 404 here (the allow-listed key did not create the intent): authorized all the same.
          const allowed = route.keyOnly && !diagnostic ? [404] : ok;
          for (const ip of ['203.0.113.77', '::ffff:203.0.113.78', '2001:db8::5']) {
            const res = await call(route, { token: keys.allowListed, ip });
            assert.ok(allowed.includes(res.statusCode), `${ip}: ${res.statusCode} ${res.body}`);
          }
        });

        if (!diagnostic) {
          it(`with a key lacking ${route.scope}: 403 insufficient_scope`, async () => {
            const res = await call(route, { token: await keys.without(route.scope!) });
            expectProblem(res, 403, 'insufficient_scope');
            assert.match(res.json().detail, new RegExp(route.scope!));
          });
        }

        it('with a live key: 200 with the key\'s rate-limit headers', async () => {
          const res = await call(route, { token: keys.live });
          assertOk(res, 'live key');
          if (!diagnostic) {
            assert.equal(res.headers['x-ratelimit-limit'], '60');
            assert.match(String(res.headers['x-ratelimit-remaining']), /^\d+$/);
            assert.match(String(res.headers['x-ratelimit-reset']), /^\d+$/);
            assert.match(String(res.headers['ratelimit-policy']), /"minute";q=60;w=60/);
          }
        });

        it(route.testKeyStatus ? `with a test key: ${route.testKeyStatus} (test keys never own intents)` : 'with a test key: accepted, same shape as live', async () => {
          const live = await call(route, { token: keys.live });
          const test = await call(route, { token: keys.test });
          if (route.testKeyStatus) {
            assert.equal(test.statusCode, route.testKeyStatus, test.body);
            return;
          }
          assertOk(test, 'test key');
          if (test.statusCode === live.statusCode && test.statusCode < 300) {
            const shape = (body: Record<string, unknown>) => Object.keys(body).filter((k) => k !== 'test').sort();
            assert.deepEqual(shape(test.json()), shape(live.json()));
          }
        });

        if (!diagnostic) {
          it('rate limit: exactly the tier allows, then 429 with Retry-After; the next window allows again', async () => {
            // Polling needs an intent of this very key; any other id is a 404 that still counts.
            const token = await keys.fresh();
            ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / 60_000) * 60_000 + 5_000); // 5 s into a minute
            const handled = route.keyOnly ? [404] : ok;
            for (let i = 0; i < 60; i++) {
              const res = await call(route, { token });
              assert.ok(handled.includes(res.statusCode), `request ${i + 1}: ${res.statusCode} ${res.body}`);
              assert.equal(res.headers['x-ratelimit-remaining'], String(59 - i));
            }
            const refused = await call(route, { token });
            expectProblem(refused, 429, 'rate_limited');
            assert.equal(refused.headers['retry-after'], '55');
            assert.equal(refused.headers['x-ratelimit-remaining'], '0');
            ctx.clock.advance(55_000);
            const again = await call(route, { token });
            assert.ok(handled.includes(again.statusCode));
            assert.equal(again.headers['x-ratelimit-remaining'], '59');
          });

        }
        if (!keyOnly) {
          const window = route.anonymousWindow ?? 60;
          it(`anonymous rate limit per address: ${route.anonymousLimit} per ${window} s, then 429`, async () => {
            const ip = nextIp();
            const windowMs = window * 1000;
            ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / windowMs) * windowMs + 1_000);
            for (let i = 0; i < route.anonymousLimit!; i++) assertOk(await call(route, { ip }), `anonymous ${i + 1}`);
            const refused = await call(route, { ip });
            expectProblem(refused, 429, 'rate_limited');
            assert.equal(refused.headers['retry-after'], String(window - 1));
            assertOk(await call(route, { ip: nextIp() }), 'another address is not affected');
          });
        }
      });
    }

    describe('brute force', () => {
      it('refuses an address with 429 after 20 failed key attempts a minute, before looking keys up', async () => {
        const ip = nextIp();
        const route = ROUTES[0]!;
        ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / 60_000) * 60_000 + 1_000);
        for (let i = 0; i < 20; i++) expectProblem(await call(route, { ip, authorization: `Bearer svc_guess${i}` }), 401, 'invalid_api_key');
        expectProblem(await call(route, { ip, authorization: 'Bearer svc_guess20' }), 429, 'rate_limited');
        expectProblem(await call(route, { ip, token: keys.live }), 429, 'rate_limited');
        assert.equal((await call(route, { ip })).statusCode, 200, 'anonymous requests from the address still work');
        assert.equal((await call(route, { token: keys.live })).statusCode, 200, 'the key works from elsewhere');
        ctx.clock.advance(60_000);
        assert.equal((await call(route, { ip, token: keys.live })).statusCode, 200, 'the next minute the address may try again');
      });
    });

    describe('client address', () => {
      it('ignores X-Forwarded-For unless TRUST_PROXY names the proxy', async () => {
        const route = ROUTES[2]!; // availability: 10 a minute anonymously
        const ip = nextIp();
        ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / 60_000) * 60_000 + 1_000);
        for (let i = 0; i < 10; i++) {
          const res = await ctx.app.fastify.inject({ url: route.url({ lawyerId, intentId }), remoteAddress: ip, headers: { 'x-forwarded-for': `10.0.0.${i}` } });
          assert.equal(res.statusCode, 200);
        }
        const res = await ctx.app.fastify.inject({ url: route.url({ lawyerId, intentId }), remoteAddress: ip, headers: { 'x-forwarded-for': '10.0.0.99' } });
        assert.equal(res.statusCode, 429, 'a forged X-Forwarded-For does not buy a new allowance');
      });
    });
  });
}

describe('client address behind a trusted proxy', () => {
  it('uses X-Forwarded-For when the socket peer is a trusted proxy', async () => {
    const [sqlite] = databaseTargets();
    const ctx = await createTestContext(sqlite!, { config: { trustProxy: ['127.0.0.1'], rateLimitMultiplier: 1 } });
    try {
      const [id] = await insertLawyers(ctx.database, [lawyerRecord()]);
      const url = `/api/v1/lawyers/${id}/availability`;
      for (let i = 0; i < 10; i++) {
        assert.equal((await ctx.app.fastify.inject({ url, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.5' } })).statusCode, 200);
      }
      assert.equal((await ctx.app.fastify.inject({ url, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.5' } })).statusCode, 429);
      assert.equal((await ctx.app.fastify.inject({ url, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.6' } })).statusCode, 200, 'each real client has its own allowance');
      assert.equal((await ctx.app.fastify.inject({ url, remoteAddress: '192.0.2.1', headers: { 'x-forwarded-for': '203.0.113.7' } })).statusCode, 200);
    } finally {
      await ctx.close();
    }
  });
});
