/**
 * Scale-out as DESIGN §2 runs it: N `consulta serve` processes on one PostgreSQL and one Redis.
 * Four real processes: the database constraint decides each slot's one winner whichever process a
 * request reaches, and Redis holds one limit for a key wherever its requests land
 * (docs/operations.md).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { KeysService } from '../../src/domain/access/keys.service.ts';
import { TIER_LIMITS } from '../../src/domain/access/limits.ts';
import { EVERY_DAY_9_TO_14, madridDate, slotBody } from '../support/booking.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';
import { testRedis } from '../support/redis.ts';

const postgres = databaseTargets().find((t) => t.name === 'postgres');
const redis = await testRedis();
const skip = !postgres ? 'needs PostgreSQL (TEST_DATABASE_URL)' : redis.skip ? redis.skip : false;
const PROCESSES = 4;

describe(`${PROCESSES} server processes on one PostgreSQL and one Redis`, { skip, timeout: 600_000 }, () => {
  let db: TestDatabase;
  let servers: ServerProcess[] = [];
  let lawyers: string[] = [];
  let token: string;
  // Real processes keep real time: a date three days ahead, every weekday open.
  const date = madridDate(Date.now(), 3);

  before(async () => {
    db = await postgres!.create();
    lawyers = (await insertLawyers(db.database, [0, 1, 2].map(() => lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })), new Date())) as string[];
    // The internal tier (1,000 a minute) so the race is not cut short by the key's own limit.
    token = (await new KeysService({ database: db.database, clock: systemClock }).create(OPERATOR, { ownerEmail: 'scale@example.com' }, { mode: 'live', tier: 'internal' })).token;
    const env = { DATABASE_URL: db.url, REDIS_URL: redis.url!, SWEEP_INTERVAL_MS: '500' };
    servers = await Promise.all(Array.from({ length: PROCESSES }, () => startServerProcess(env, 180_000)));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await db?.drop();
  });

  it('holds: 240 requests for six slots, spread over the four processes, give exactly one winner per slot', async () => {
    const slots = lawyers.flatMap((lawyer) => [slotBody(lawyer, date, '12'), slotBody(lawyer, date, '13')]);
    const answers = await Promise.all(
      Array.from({ length: 240 }, async (_, i) => {
        const server = i % PROCESSES;
        const slot = Math.floor(i / PROCESSES) % slots.length;
        const res = await fetch(`${servers[server]!.url}/api/v1/bookings/initiate`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify(slots[slot]),
          signal: AbortSignal.timeout(60_000),
        });
        return { server, slot, status: res.status };
      }),
    );
    for (let slot = 0; slot < slots.length; slot++) {
      const mine = answers.filter((a) => a.slot === slot);
      assert.equal(mine.filter((a) => a.status === 201).length, 1, `slot ${slot}: ${JSON.stringify(mine)}`);
      assert.equal(mine.filter((a) => a.status === 404).length, mine.length - 1);
      assert.equal(new Set(mine.map((a) => a.server)).size, PROCESSES, 'every process served this slot\'s race');
    }
  });

  it('limits: one key\'s requests spread over the four processes share one per-minute limit', async () => {
    const limit = TIER_LIMITS.free.perMinute;
    const created = await new KeysService({ database: db.database, clock: systemClock }).create(OPERATOR, { ownerEmail: 'limit@example.com' }, { mode: 'live' });
    const sent = limit + 40;
    // The window is the UTC minute; real processes keep real time, so start the burst early in one
    // (a burst takes a few seconds; waiting is the only clock these processes have).
    const second = new Date().getUTCSeconds();
    if (second > 40) await new Promise((r) => setTimeout(r, (61 - second) * 1000));
    const burst = (from: number, count: number) =>
      Promise.all(
        Array.from({ length: count }, async (_, k) => {
          const i = from + k;
          const res = await fetch(`${servers[i % PROCESSES]!.url}/api/v1/practice-areas`, {
            headers: { authorization: `Bearer ${created.token}` },
            signal: AbortSignal.timeout(60_000),
          });
          await res.arrayBuffer();
          return { server: i % PROCESSES, status: res.status, remaining: res.headers.get('x-ratelimit-remaining') };
        }),
      );
    // Two bursts in the same minute, each spread evenly over the four processes: the first uses the
    // limit up exactly (each process admits its quarter), the second finds it used up on every
    // process. Four separate counters would have admitted both bursts (each process sees 25 of 100).
    // Concurrent requests of one burst arrive in any order, so which process admits which of them is
    // not asserted: only that every process admitted some and refused some.
    const first = await burst(0, limit);
    const over = await burst(limit, sent - limit);
    const statuses = [...first, ...over];
    const allowed = statuses.filter((s) => s.status === 200).length;
    assert.equal(allowed, limit, `allowed ${allowed} of ${sent} against a limit of ${limit}`);
    assert.equal(statuses.filter((s) => s.status === 429).length, sent - limit);
    assert.deepEqual(over.filter((s) => s.status !== 429), [], 'the limit, used up across four processes, holds on each of them');
    for (let p = 0; p < PROCESSES; p++) {
      assert.ok(first.some((s) => s.server === p && s.status === 200), `process ${p} admitted none`);
      assert.ok(over.some((s) => s.server === p && s.status === 429), `process ${p} refused none`);
    }
  });
});
