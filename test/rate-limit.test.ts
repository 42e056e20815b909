/**
 * Rate-limit store behaviour, written once and run against the memory store and a real Redis
 * (skipped with a reason when no Redis answers, required in CI; see test/support/redis.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import {
  createRateLimitStore,
  rateLimitHeaders,
  retryAfterSeconds,
  type RateLimitStore,
  type WindowRule,
} from '../src/domain/access/rate-limit.ts';
import { MemoryRateLimitStore } from '../src/domain/access/rate-limit.memory.ts';
import { RedisRateLimitStore } from '../src/domain/access/rate-limit.redis.ts';
import { ANONYMOUS_RULES, DAY_MS, HOUR_MS, MINUTE_MS } from '../src/domain/access/limits.ts';
import { deleteKeys, testRedis, uniquePrefix } from './support/redis.ts';

const redis = await testRedis();
const prefix = uniquePrefix('rate-limit');

// Deliberately in the past: windows follow the caller's clock, not Redis's, and counters must
// still live for their whole window (an absolute expiry in this frame would delete them at once).
const T0 = Date.parse('2025-11-20T10:15:00.000Z');

const minute = (limit: number): WindowRule => ({ id: 'minute', limit, windowMs: MINUTE_MS });
const day = (limit: number): WindowRule => ({ id: 'day', limit, windowMs: DAY_MS });

interface Target {
  name: string;
  skip: string | false;
  create(): RateLimitStore;
}

const targets: Target[] = [
  { name: 'memory', skip: false, create: () => createRateLimitStore({ redisUrl: null }) },
  { name: 'redis', skip: redis.skip, create: () => createRateLimitStore({ redisUrl: redis.url ?? '', prefix }) },
];

after(async () => {
  if (redis.url) await deleteKeys(redis.url, prefix);
});

for (const target of targets) {
  describe(`rate-limit store: ${target.name}`, { skip: target.skip }, () => {
    let store: RateLimitStore;
    let buckets = 0;
    const bucket = (label: string): string => `${label}-${++buckets}`;

    before(() => {
      store = target.create();
    });
    after(async () => {
      await store.close();
    });

    it('allows exactly the limit, then refuses without using quota', async () => {
      const b = bucket('exact');
      const rules = [minute(5), day(100)];
      for (let i = 1; i <= 5; i++) {
        const r = await store.consume(b, rules, T0 + i);
        assert.equal(r.allowed, true, `request ${i}`);
        assert.deepEqual(
          r.windows.map((w) => [w.id, w.used, w.remaining]),
          [
            ['minute', i, 5 - i],
            ['day', i, 100 - i],
          ],
        );
      }
      for (let i = 0; i < 3; i++) {
        const r = await store.consume(b, rules, T0 + 10_000);
        assert.equal(r.allowed, false);
        assert.deepEqual(
          r.windows.map((w) => [w.id, w.used, w.remaining]),
          [
            ['minute', 5, 0],
            ['day', 5, 95],
          ],
        );
      }
      const [, dayWindow] = await store.peek(b, rules, T0 + 10_000);
      assert.equal(dayWindow?.used, 5, 'refused requests did not move the day counter');

      const next = await store.consume(b, rules, T0 + MINUTE_MS);
      assert.equal(next.allowed, true);
      assert.deepEqual(
        next.windows.map((w) => w.used),
        [1, 6],
      );
    });

    it('the daily quota blocks even when the minute has room', async () => {
      const b = bucket('quota');
      const rules = [minute(3), day(5)];
      const results: boolean[] = [];
      for (let i = 0; i < 4; i++) results.push((await store.consume(b, rules, T0 + 1_000)).allowed);
      assert.deepEqual(results, [true, true, true, false]);

      const later = T0 + 5 * MINUTE_MS + 30_000;
      assert.equal((await store.consume(b, rules, later)).allowed, true);
      assert.equal((await store.consume(b, rules, later)).allowed, true);
      const refused = await store.consume(b, rules, later);
      assert.equal(refused.allowed, false);
      const [m, d] = refused.windows;
      assert.deepEqual([m?.used, m?.remaining], [2, 1], 'the minute still has room');
      assert.deepEqual([d?.used, d?.remaining], [5, 0]);
      const midnight = Date.parse('2025-11-21T00:00:00.000Z');
      assert.equal(d?.resetAtMs, midnight);
      assert.equal(retryAfterSeconds(refused.windows, later), Math.ceil((midnight - later) / 1000));
      const headers = rateLimitHeaders(refused.windows, later);
      assert.equal(headers.ratelimit, `"day";r=0;t=${Math.ceil((midnight - later) / 1000)}`);

      assert.equal((await store.consume(b, rules, midnight)).allowed, true, 'a new UTC day restores the quota');
    });

    it('a new window restores the allowance; remaining and resetAtMs follow the window', async () => {
      const b = bucket('reset');
      const rules = [minute(2)];
      const first = await store.consume(b, rules, T0 + 42_500);
      assert.deepEqual(first.windows[0], { id: 'minute', limit: 2, used: 1, remaining: 1, resetAtMs: T0 + MINUTE_MS, windowMs: MINUTE_MS });
      assert.equal(rateLimitHeaders(first.windows, T0 + 42_500)['x-ratelimit-reset'], '18');
      await store.consume(b, rules, T0 + 50_000);
      assert.equal((await store.consume(b, rules, T0 + 59_999)).allowed, false, 'still the same window 1 ms before its end');

      const next = await store.consume(b, rules, T0 + MINUTE_MS);
      assert.equal(next.allowed, true);
      assert.deepEqual(next.windows[0], { id: 'minute', limit: 2, used: 1, remaining: 1, resetAtMs: T0 + 2 * MINUTE_MS, windowMs: MINUTE_MS });
      assert.equal(rateLimitHeaders(next.windows, T0 + MINUTE_MS)['x-ratelimit-reset'], '60');
    });

    it('the hour window for booking initiation', async () => {
      const b = bucket('ip:203.0.113.9:initiate');
      const rules = ANONYMOUS_RULES.initiate;
      const start = T0 + 5 * MINUTE_MS;
      for (let i = 0; i < 5; i++) assert.equal((await store.consume(b, rules, start + i * MINUTE_MS)).allowed, true);
      const refused = await store.consume(b, rules, start + 20 * MINUTE_MS);
      assert.equal(refused.allowed, false);
      assert.equal(retryAfterSeconds(refused.windows, start + 20 * MINUTE_MS), 20 * 60);
      assert.equal((await store.consume(b, rules, T0 - 15 * MINUTE_MS + HOUR_MS)).allowed, true);
    });

    it('200 concurrent requests on a limit of 37 let exactly 37 through', async () => {
      const b = bucket('burst');
      const rules = [minute(37), day(1000)];
      const results = await Promise.all(Array.from({ length: 200 }, () => store.consume(b, rules, T0 + 1)));
      const allowed = results.filter((r) => r.allowed);
      assert.equal(allowed.length, 37);
      // Each admitted request saw its own count: nothing was double-counted or lost.
      assert.deepEqual(
        allowed.map((r) => r.windows[0]?.used).sort((x, y) => (x ?? 0) - (y ?? 0)),
        Array.from({ length: 37 }, (_, i) => i + 1),
      );
      const [m, d] = await store.peek(b, rules, T0 + 1);
      assert.equal(m?.used, 37);
      assert.equal(d?.used, 37);
    });

    it('buckets are independent', async () => {
      const a = bucket('ip:198.51.100.1:availability');
      const other = bucket('ip:198.51.100.2:availability');
      const sameIpOtherGroup = bucket('ip:198.51.100.1:default');
      for (let i = 0; i < 10; i++) await store.consume(a, ANONYMOUS_RULES.availability, T0);
      assert.equal((await store.consume(a, ANONYMOUS_RULES.availability, T0)).allowed, false);
      assert.equal((await store.consume(other, ANONYMOUS_RULES.availability, T0)).allowed, true);
      const d = await store.consume(sameIpOtherGroup, ANONYMOUS_RULES.default, T0);
      assert.equal(d.allowed, true);
      assert.equal(d.windows[0]?.used, 1);
    });

    it('peek does not count', async () => {
      const b = bucket('peek');
      const rules = [minute(3), day(10)];
      const fresh = await store.peek(b, rules, T0);
      assert.deepEqual(
        fresh.map((w) => [w.id, w.used, w.remaining, w.resetAtMs]),
        [
          ['minute', 0, 3, T0 + MINUTE_MS],
          ['day', 0, 10, Date.parse('2025-11-21T00:00:00.000Z')],
        ],
      );
      await store.consume(b, rules, T0);
      await store.consume(b, rules, T0);
      for (let i = 0; i < 5; i++) {
        const windows = await store.peek(b, rules, T0);
        assert.deepEqual(
          windows.map((w) => w.used),
          [2, 2],
        );
      }
      assert.equal((await store.consume(b, rules, T0)).allowed, true);
      assert.equal((await store.consume(b, rules, T0)).allowed, false);
    });
  });
}

describe('rate-limit store: memory bounds', () => {
  it('drops expired windows once time moves on', async () => {
    const store = new MemoryRateLimitStore();
    for (let i = 0; i < 500; i++) await store.consume(`ip:${i}`, ANONYMOUS_RULES.default, T0);
    assert.equal(store.size, 500);
    await store.consume('ip:late', ANONYMOUS_RULES.default, T0 + 2 * MINUTE_MS);
    assert.equal(store.size, 1);
    await store.close();
  });

  it('stays bounded under a flood of distinct addresses within one window', async () => {
    const store = new MemoryRateLimitStore({ maxEntries: 1_000 });
    let peak = 0;
    for (let i = 0; i < 10_000; i++) {
      await store.consume(`ip:${i}`, ANONYMOUS_RULES.default, T0 + i);
      peak = Math.max(peak, store.size);
    }
    assert.ok(peak <= 1_001, `peak ${peak}`);
    // The newest counters survive the eviction.
    assert.equal((await store.peek('ip:9999', ANONYMOUS_RULES.default, T0 + 9_999))[0]?.used, 1);
    await store.close();
  });

  it('a refused request creates no counter', async () => {
    const store = new MemoryRateLimitStore();
    await store.consume('k', [{ id: 'minute', limit: 0, windowMs: MINUTE_MS }], T0);
    assert.equal(store.size, 0);
    await store.close();
  });
});

describe('rate-limit store: redis unreachable', () => {
  async function assertRejectsPromptly(promise: Promise<unknown>, boundMs = 3_000): Promise<void> {
    const started = performance.now();
    await assert.rejects(promise);
    const elapsed = performance.now() - started;
    assert.ok(elapsed < boundMs, `took ${Math.round(elapsed)} ms`);
  }

  it('consume and peek reject promptly when nothing listens', async () => {
    const store = createRateLimitStore({ redisUrl: 'redis://127.0.0.1:1', prefix: uniquePrefix('down') });
    try {
      await assertRejectsPromptly(store.consume('b', [minute(10)], T0));
      await assertRejectsPromptly(store.consume('b', [minute(10)], T0));
      await assertRejectsPromptly(store.peek('b', [minute(10)], T0));
    } finally {
      await store.close();
    }
  });

  it('consume rejects promptly when the server accepts but never answers', async () => {
    const sockets = new Set<net.Socket>();
    const server = net.createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const store = new RedisRateLimitStore({ url: `redis://127.0.0.1:${port}`, prefix: uniquePrefix('stalled') });
    try {
      await assertRejectsPromptly(store.consume('b', [minute(10)], T0));
      await assertRejectsPromptly(store.consume('b', [minute(10)], T0));
    } finally {
      await store.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('rate-limit store: redis specifics', { skip: redis.skip }, () => {
  const url = redis.url ?? '';
  let client: Redis;
  const children: ChildProcess[] = [];

  before(() => {
    client = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
  });
  after(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await client.quit();
  });

  it('keys carry the prefix, the window index, and a TTL just past the window', async () => {
    const store = createRateLimitStore({ redisUrl: url, prefix });
    try {
      const now = T0 + 20_000;
      await store.consume('ttl', [minute(5), day(50)], now);
      const minuteTtl = await client.pttl(`${prefix}:ttl:minute:${Math.floor(now / MINUTE_MS)}`);
      const dayTtl = await client.pttl(`${prefix}:ttl:day:${Math.floor(now / DAY_MS)}`);
      assert.ok(minuteTtl > 30_000 && minuteTtl <= 40_000 + 5_000, `minute ttl ${minuteTtl}`);
      const untilMidnight = Date.parse('2025-11-21T00:00:00.000Z') - now;
      assert.ok(dayTtl > untilMidnight - 10_000 && dayTtl <= untilMidnight + 5_000, `day ttl ${dayTtl}`);
    } finally {
      await store.close();
    }
  });

  it('two processes sharing Redis admit exactly the limit between them', { timeout: 60_000 }, async () => {
    const worker = fileURLToPath(new URL('./support/rate-limit-worker.ts', import.meta.url));
    const cwd = fileURLToPath(new URL('..', import.meta.url));
    const b = `two-processes-${process.pid}`;
    const perProcess = 120;
    const limit = 150;
    const spawned = [0, 1].map(() => {
      const child = spawn(process.execPath, ['--import', 'tsx', worker, url, prefix, b, String(perProcess), String(limit), String(T0 + 7)], {
        cwd,
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      children.push(child);
      return { child, lines: lineReader(child) };
    });

    for (const { lines } of spawned) assert.equal(await lines.next(20_000), 'ready');
    for (const { child } of spawned) child.stdin?.write('go\n');
    const reports = [];
    for (const { lines } of spawned) reports.push(JSON.parse(await lines.next(20_000)) as { allowed: number; refused: number; failed: number });

    assert.deepEqual(
      reports.map((r) => r.failed),
      [0, 0],
    );
    assert.equal(reports[0]!.allowed + reports[1]!.allowed, limit);
    assert.equal(reports[0]!.refused + reports[1]!.refused, 2 * perProcess - limit);

    const store = createRateLimitStore({ redisUrl: url, prefix });
    try {
      assert.equal((await store.peek(b, [minute(limit)], T0 + 7))[0]?.used, limit);
    } finally {
      await store.close();
    }
  });
});

/** Reads a child's stdout line by line; each wait is bounded so a stuck child fails the test. */
function lineReader(child: ChildProcess): { next(timeoutMs: number): Promise<string> } {
  if (!child.stdout) throw new Error('child has no stdout');
  const iterator = readline.createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  return {
    async next(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`child ${child.pid} said nothing for ${timeoutMs} ms`)), timeoutMs);
      });
      try {
        const line = await Promise.race([iterator.next(), timeout]);
        if (line.done) throw new Error(`child ${child.pid} exited (code ${child.exitCode})`);
        return line.value;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}
