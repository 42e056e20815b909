/**
 * Where a hold's time goes, statement by statement, on the bench's 20,000-lawyer SQLite database
 * (not a test, not a throughput figure): `npx tsx bench/hold-sql-time.ts [--holds N] [--concurrency C]`.
 *
 * Builds the real app in this process on a copy of `.bench/db/lawyers-20000-seed-7.db` (run
 * `npm run bench` once to seed it), with the limits lifted as bench/access-booking.ts lifts them,
 * finds free slots through the API, then makes `--holds` (2,000) keyed holds with an
 * Idempotency-Key through `inject`, `--concurrency` (20) at a time, and prints the process's CPU
 * per hold (all its threads), the time spent inside SQLite per hold, and each statement's share.
 * `inject` skips the socket, so the CPU here is below what a hold costs over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type SQLite from 'better-sqlite3';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { ROOT } from './children.ts';

const { values } = parseArgs({ options: { holds: { type: 'string' }, concurrency: { type: 'string' } } });
const HOLDS = Number(values.holds ?? 2000);
const CONCURRENCY = Number(values.concurrency ?? 20);
const SOURCE = path.join(ROOT, '.bench', 'db', 'lawyers-20000-seed-7.db');
if (!fs.existsSync(SOURCE)) throw new Error(`${SOURCE} is missing: run npm run bench once to seed it`);
const file = path.join(ROOT, '.bench', 'hold-sql-time.db');
for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
fs.copyFileSync(SOURCE, file);

const config = loadConfig({ ...process.env, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'warn', RATE_LIMIT_MULTIPLIER: '1000000', MAX_PENDING_INTENTS_PER_KEY: '100000' });
const database = openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize });
await migrateToLatest(database);
const app = await buildApp({ config, database, clock: systemClock });
await app.services.directoryCache.warm();
const { token } = await app.services.keys.create({ type: 'operator' }, { ownerEmail: 'hold-sql-time@example.com' }, { mode: 'live', tier: 'internal' });
const auth = { authorization: `Bearer ${token}` };

const ids: string[] = [];
for (let page = 1; ids.length < 150; page++) {
  const r = await app.fastify.inject({ url: `/api/v1/lawyers/search?limit=25&page=${page}`, headers: auth });
  ids.push(...(JSON.parse(r.body) as { lawyers: Array<{ id: string }> }).lawyers.map((l) => l.id));
}
const bodies: object[] = [];
for (const id of ids) {
  const a = JSON.parse((await app.fastify.inject({ url: `/api/v1/lawyers/${id}/availability`, headers: auth })).body) as { slots: Array<{ date: string; start_time: string; end_time: string; available: boolean }> };
  for (const s of a.slots) if (s.available) bodies.push({ lawyer_id: id, date: s.date, start_time: s.start_time, end_time: s.end_time });
}
const n = Math.min(HOLDS, bodies.length);

// Every execution of a statement on the serving connection, timed (the request log has its own thread and connection).
const times = new Map<string, { count: number; ns: bigint }>();
let timing = false;
const sqlite = database.sqlite as SQLite.Database;
const proto = Object.getPrototypeOf(sqlite.prepare('select 1')) as Record<string, (...a: unknown[]) => unknown>;
for (const method of ['run', 'get', 'all', 'iterate']) {
  const original = proto[method]!;
  proto[method] = function (this: SQLite.Statement, ...a: unknown[]) {
    if (!timing) return original.apply(this, a);
    const t0 = process.hrtime.bigint();
    try {
      return original.apply(this, a);
    } finally {
      const key = this.source.replace(/\s+/g, ' ').slice(0, 100);
      const e = times.get(key) ?? { count: 0, ns: 0n };
      e.count++;
      e.ns += process.hrtime.bigint() - t0;
      times.set(key, e);
    }
  };
}

let next = 0;
let created = 0;
const cpu0 = process.cpuUsage();
const wall0 = performance.now();
timing = true;
await Promise.all(
  Array.from({ length: CONCURRENCY }, async () => {
    while (next < n) {
      const i = next++;
      const r = await app.fastify.inject({ method: 'POST', url: '/api/v1/bookings/initiate', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `hold-sql-time-${i}` }, payload: JSON.stringify(bodies[i]) });
      if (r.statusCode === 201) created++;
    }
  }),
);
timing = false;
const wall = performance.now() - wall0;
const cpu = process.cpuUsage(cpu0);
let total = 0n;
for (const e of times.values()) total += e.ns;
console.log(`${created} of ${n} holds created, ${CONCURRENCY} at a time: ${(wall / n).toFixed(3)} ms of wall and ${((cpu.user + cpu.system) / 1000 / n).toFixed(3)} ms of CPU per hold (this process, all threads); ${(Number(total) / 1e6 / n).toFixed(3)} ms of it inside SQLite`);
for (const [sql, e] of [...times].sort((a, b) => Number(b[1].ns - a[1].ns)).slice(0, 20)) {
  console.log(`${(Number(e.ns) / 1e6 / n).toFixed(3).padStart(7)} ms/hold  ${(e.count / n).toFixed(2)}×  ${(Number(e.ns) / 1e3 / e.count).toFixed(1).padStart(6)} µs each  ${sql}`);
}
await app.fastify.close();
await database.close();
fs.rmSync(file, { force: true });
for (const suffix of ['-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
