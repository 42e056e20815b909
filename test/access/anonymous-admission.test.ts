/**
 * Anonymous API requests are admitted without a promise when the rate limiter is in this process
 * (AccessService.admitAnonymousNow, the memory store's consumeNow), and through authenticate and
 * admit otherwise (Redis). Both must answer alike: the same statuses, rate-limit headers,
 * refusals, Retry-After, route requirements, replays before the limit, and failing open when the
 * store fails. Here the same requests go to two apps on one database and one clock: one whose
 * store answers at once, one whose store (the same memory store behind a promise only) does not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { buildApp, type App } from '../../src/app.ts';
import { MemoryRateLimitStore } from '../../src/domain/access/rate-limit.memory.ts';
import type { ConsumeResult, RateLimitStore, WindowRule } from '../../src/domain/access/rate-limit.ts';
import { slotBody } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

/** A memory store that counts the answers it gives at once. */
class CountingStore extends MemoryRateLimitStore {
  now = 0;
  override consumeNow(bucket: string, rules: readonly WindowRule[], nowMs: number): ConsumeResult {
    this.now++;
    return super.consumeNow(bucket, rules, nowMs);
  }
}

/** The same memory store, reached only through its promises (as Redis is). */
function promisesOnly(store: MemoryRateLimitStore): RateLimitStore {
  return { consume: (b, r, n) => store.consume(b, r, n), peek: (b, r, n) => store.peek(b, r, n), close: () => store.close() };
}

const HEADERS = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit', 'ratelimit-policy', 'retry-after', 'www-authenticate'] as const;
/** What must not differ between the two paths: status, problem code, and the access headers. */
function seen(res: LightMyRequestResponse): Record<string, unknown> & { status: number; code: string | null } {
  const code = String(res.headers['content-type']).startsWith('application/problem+json') ? (res.json() as { code: string }).code : null;
  return { status: res.statusCode, code, ...Object.fromEntries(HEADERS.map((h) => [h, res.headers[h] ?? null])) };
}

for (const target of databaseTargets()) {
  describe(`anonymous admission without a promise (${target.name})`, () => {
    let ctx: TestContext;
    let other: App;
    let lawyer: string;
    const direct = new CountingStore();
    const behindPromises = promisesOnly(new MemoryRateLimitStore());

    before(async () => {
      ctx = await createTestContext(target, { limiter: direct, config: { rateLimitMultiplier: 1 } });
      other = await buildApp({ config: ctx.config, database: ctx.database, clock: ctx.clock, limiter: behindPromises });
      await other.fastify.ready();
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
    });
    after(async () => {
      await other.fastify.close();
      await ctx.close();
    });

    /** The same request to both apps; what each answered. */
    const both = async (options: { url: string; method?: 'GET' | 'POST'; ip: string; headers?: Record<string, string>; payload?: object }) => {
      const send = (app: App) => app.fastify.inject({ method: options.method ?? 'GET', url: options.url, remoteAddress: options.ip, headers: options.headers ?? {}, ...(options.payload ? { payload: options.payload } : {}) });
      const a = await send(ctx.app);
      const b = await send(other);
      return { direct: seen(a), promised: seen(b) };
    };

    it('answers reads with the same rate-limit headers, and the same 429 once the minute is used', async () => {
      const before = direct.now;
      for (let i = 1; i <= 31; i++) {
        const { direct: a, promised: b } = await both({ url: '/api/v1/practice-areas', ip: '198.51.100.40' });
        assert.deepEqual(a, b, `request ${i}`);
        if (i === 1) {
          assert.equal(a.status, 200);
          assert.equal(a['x-ratelimit-limit'], '30');
          assert.equal(a['x-ratelimit-remaining'], '29');
          assert.match(String(a.ratelimit), /^"minute";r=29;t=\d+$/);
          assert.equal(a['ratelimit-policy'], '"minute";q=30;w=60');
        }
        if (i === 31) {
          assert.equal(a.status, 429);
          assert.equal(a.code, 'rate_limited');
          assert.equal(a['x-ratelimit-remaining'], '0');
          assert.match(String(a['retry-after']), /^\d+$/);
        }
      }
      assert.equal(direct.now - before, 31, 'every one of these was admitted without a promise');
      // An empty Authorization header is no key: anonymous too.
      const empty = await both({ url: '/api/v1/cities', ip: '198.51.100.41', headers: { authorization: '' } });
      assert.deepEqual(empty.direct, empty.promised);
      assert.equal(empty.direct['x-ratelimit-remaining'], '29');
    });

    it('keeps each route group its own limit (availability: 10 a minute)', async () => {
      for (let i = 1; i <= 11; i++) {
        const { direct: a, promised: b } = await both({ url: `/api/v1/lawyers/${lawyer}/availability`, ip: '198.51.100.42' });
        assert.deepEqual(a, b, `request ${i}`);
        assert.equal(a.status, i <= 10 ? 200 : 429, `request ${i}`);
      }
      // The address's default group is untouched by its availability requests.
      const search = await both({ url: '/api/v1/lawyers/search', ip: '198.51.100.42' });
      assert.deepEqual(search.direct, search.promised);
      assert.equal(search.direct['x-ratelimit-remaining'], '29');
    });

    it('refuses key-only routes with 401 and WWW-Authenticate, as before', async () => {
      const { direct: a, promised: b } = await both({ url: '/api/v1/key', ip: '198.51.100.43' });
      assert.deepEqual(a, b);
      assert.equal(a.status, 401);
      assert.equal(a.code, 'authentication_required');
      assert.equal(a['www-authenticate'], 'Bearer realm="consulta"');
    });

    it('refuses the sixth initiation of the hour alike, with an Idempotency-Key it has not seen', async () => {
      const ip = '198.51.100.44';
      for (let i = 1; i <= 6; i++) {
        const body = slotBody(lawyer, '2026-11-25', String(8 + i).padStart(2, '0'));
        const { direct: a, promised: b } = await both({ url: '/api/v1/bookings/initiate', method: 'POST', ip, headers: { 'idempotency-key': `anon-${i}` }, payload: body });
        // The two apps hold different slots' outcomes for the same keys (one database): compare what the limit decides.
        assert.equal(a.status === 429, b.status === 429, `initiation ${i}: ${a.status} and ${b.status}`);
        assert.equal(a.status === 429, i === 6, `initiation ${i}: ${a.status}`);
        if (i === 6) assert.deepEqual(a, b);
      }
    });
  });
}

describe('anonymous admission when the store fails', () => {
  const [target] = databaseTargets();
  const failing = (at: 'now' | 'promise'): RateLimitStore => {
    const boom = () => {
      throw new Error('store down');
    };
    const store: RateLimitStore = { consume: async () => boom(), peek: async () => boom(), close: async () => {} };
    if (at === 'now') store.consumeNow = boom;
    return store;
  };
  for (const at of ['now', 'promise'] as const) {
    it(`lets the request through without rate-limit headers (failing ${at === 'now' ? 'at once' : 'behind a promise'}), and still refuses key-only routes`, async () => {
      const ctx = await createTestContext(target!, { limiter: failing(at), config: { rateLimitMultiplier: 1 } });
      try {
        const res = await ctx.app.fastify.inject({ url: '/api/v1/practice-areas', remoteAddress: '198.51.100.45' });
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['x-ratelimit-limit'], undefined);
        const key = await ctx.app.fastify.inject({ url: '/api/v1/key', remoteAddress: '198.51.100.45' });
        assert.equal(key.statusCode, 401);
        assert.equal((key.json() as { code: string }).code, 'authentication_required');
      } finally {
        await ctx.close();
      }
    });
  }
});
