/**
 * The request log's writes on real databases (prepared statements on SQLite, the query builder on
 * PostgreSQL): flush-then-read, close drains, failed writes keep their entries, a flush never
 * joins another caller's open transaction, and a stopping server drains the log.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Worker } from 'node:worker_threads';
import { sql } from 'kysely';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { RequestLogThread, RequestLogWriteError } from '../../src/db/request-log-thread.ts';
import { RequestLog, type RequestLogEntry } from '../../src/domain/access/request-log.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { startServerProcess } from '../support/process.ts';

let seq = 0;
function entry(overrides: Partial<RequestLogEntry> = {}): RequestLogEntry {
  seq++;
  return {
    request_id: `req_${process.pid.toString(16)}_${seq.toString(16).padStart(8, '0')}`,
    at: '2026-11-23T08:00:00.000Z',
    key_id: null,
    owner_type: null,
    owner_id: null,
    test: 0,
    method: 'GET',
    route: '/api/v1/cities',
    path: '/api/v1/cities',
    query: null,
    status: 200,
    duration_ms: 0.5,
    client_ip: '192.0.2.1',
    error_code: null,
    ...overrides,
  };
}

const keyed = (keyId: string, status = 200, test = 0) =>
  entry({ key_id: keyId, owner_type: 'user', owner_id: 'usr_1', status, test, error_code: status === 429 ? 'rate_limited' : null });

async function countLogged(database: Database, ids: string[]): Promise<number> {
  const rows = await database.db.selectFrom('request_log').select('request_id').where('request_id', 'in', ids).execute();
  return rows.length;
}

for (const target of databaseTargets()) {
  describe(`request log writes (${target.name})`, () => {
    let t: TestDatabase;
    /** A second connection, as another process would read the log. */
    let reader: Database;
    before(async () => {
      t = await target.create();
      reader = openDatabase(t.url);
    });
    after(async () => {
      await reader.close();
      await t.drop();
    });

    it('flush resolves once the batch and its daily usage are committed and readable by another connection', async () => {
      const log = new RequestLog(t.database, { flushIntervalMs: 60_000 });
      const batch = [keyed('key_a'), keyed('key_a', 404), keyed('key_a', 429), keyed('key_b'), keyed('key_t', 200, 1), entry()];
      for (const e of batch) log.record(e);
      await log.flush();
      assert.equal(await countLogged(reader, batch.map((e) => e.request_id)), batch.length);
      const stored = await reader.db.selectFrom('request_log').selectAll().where('request_id', '=', batch[2]!.request_id).executeTakeFirstOrThrow();
      assert.deepEqual(stored, batch[2]);
      const usage = await reader.db.selectFrom('usage_daily').selectAll().where('day', '=', '2026-11-23').orderBy('key_id').execute();
      assert.deepEqual(usage, [
        { key_id: 'key_a', day: '2026-11-23', requests: 3, errors: 2, rate_limited: 1, server_errors: 0 },
        { key_id: 'key_b', day: '2026-11-23', requests: 1, errors: 0, rate_limited: 0, server_errors: 0 },
      ]);

      // A second batch adds to the same day's counters; find() flushes first.
      const more = keyed('key_a', 500);
      log.record(more);
      assert.deepEqual(await log.find(more.request_id), more);
      const a = await reader.db.selectFrom('usage_daily').selectAll().where('key_id', '=', 'key_a').executeTakeFirstOrThrow();
      assert.deepEqual([a.requests, a.errors, a.rate_limited, a.server_errors], [4, 3, 1, 1]);
      await log.close();
    });

    it('adds errors by code, requests per route (unknown routes as one) and a latency histogram, live keyed traffic only', async () => {
      const log = new RequestLog(t.database, { flushIntervalMs: 60_000 });
      const k = (o: Partial<RequestLogEntry>) => entry({ key_id: 'key_h', owner_type: 'user', owner_id: 'usr_1', at: '2026-11-20T10:00:00.000Z', ...o });
      const lawyer = { route: '/api/v1/lawyers/:lawyerId', path: '/api/v1/lawyers/abc' };
      const batches = [
        [k({ duration_ms: 1 }), k({ duration_ms: 1.1 }), k({ ...lawyer, status: 404, error_code: 'not_found', duration_ms: 3 }), k({ status: 429, error_code: 'rate_limited', duration_ms: 0.01 })],
        // Unknown routes are logged with the path as their route: counted as one '*' route.
        [k({ route: '/api/v1/nope', path: '/api/v1/nope', status: 404, error_code: 'not_found' }), k({ route: '/api/v1/x', path: '/api/v1/x', status: 404, error_code: 'not_found' })],
        [k({ status: 500, error_code: null, duration_ms: 100_000 }), k({ test: 1, status: 500, error_code: 'internal' }), entry({ status: 500, error_code: 'internal' })],
      ];
      for (const batch of batches) {
        for (const e of batch) log.record(e);
        await log.flush();
      }
      await log.close();
      const where = { key: 'key_h', day: '2026-11-20' };
      const errors = await reader.db.selectFrom('usage_daily_errors').select(['code', 'count']).where('key_id', '=', where.key).where('day', '=', where.day).orderBy('code').execute();
      assert.deepEqual(errors, [{ code: '', count: 1 }, { code: 'not_found', count: 3 }, { code: 'rate_limited', count: 1 }]);
      const routes = await reader.db.selectFrom('usage_daily_routes').select(['method', 'route', 'requests', 'errors']).where('key_id', '=', where.key).orderBy('route').execute();
      assert.deepEqual(routes, [
        { method: 'GET', route: '*', requests: 2, errors: 2 },
        { method: 'GET', route: '/api/v1/cities', requests: 4, errors: 2 },
        { method: 'GET', route: '/api/v1/lawyers/:lawyerId', requests: 1, errors: 1 },
      ]);
      const latency = await reader.db.selectFrom('usage_daily_latency').select(['bucket', 'count']).where('key_id', '=', where.key).orderBy('bucket').execute();
      // 0.01 ms → the lowest bucket; 0.5 ms (×2) → -4; 1 ms → 0; 1.1 ms → 1 (1 < 1.1 ≤ 2^¼); 3 ms → 7; 100 s → the highest.
      assert.deepEqual(latency, [{ bucket: -16, count: 1 }, { bucket: -4, count: 2 }, { bucket: 0, count: 1 }, { bucket: 1, count: 1 }, { bucket: 7, count: 1 }, { bucket: 64, count: 1 }]);
      const daily = await reader.db.selectFrom('usage_daily').selectAll().where('key_id', '=', where.key).executeTakeFirstOrThrow();
      assert.deepEqual([daily.requests, daily.errors, daily.rate_limited, daily.server_errors], [7, 5, 1, 1], 'the test key and the anonymous request are not counted');
    });

    it('flushes by itself once maxBatch entries wait, and close() writes what is left', async () => {
      const log = new RequestLog(t.database, { flushIntervalMs: 60_000, maxBatch: 3 });
      const first = [entry(), entry(), entry()];
      for (const e of first) log.record(e);
      const rest = [entry(), entry()];
      for (const e of rest) log.record(e);
      await log.close();
      assert.equal(await countLogged(reader, [...first, ...rest].map((e) => e.request_id)), 5);
    });

    it('a failed write keeps its entries (within maxBuffered), reports onError, and the next flush writes them', async () => {
      const errors: Array<{ err: unknown; dropped: number }> = [];
      const log = new RequestLog(t.database, { flushIntervalMs: 60_000, maxBuffered: 4, onError: (err, dropped) => errors.push({ err, dropped }) });
      // Warm the writer up (statements are prepared on the first write).
      const warm = entry();
      log.record(warm);
      await log.flush();
      assert.equal(errors.length, 0);

      await sql`alter table request_log rename to request_log_away`.execute(t.database.db);
      try {
        const failing = [keyed('key_f'), keyed('key_f'), entry()];
        for (const e of failing) log.record(e);
        await log.flush();
        assert.equal(errors.length, 1);
        assert.match(String((errors[0]!.err as Error).message), /request_log/);
        assert.equal(errors[0]!.dropped, 0);

        // Beyond maxBuffered the oldest entries are dropped.
        const extra = [entry(), entry()];
        for (const e of extra) log.record(e);
        await log.flush();
        assert.equal(errors.length, 2);
        assert.equal(errors[1]!.dropped, 1);
      } finally {
        await sql`alter table request_log_away rename to request_log`.execute(t.database.db);
      }
      await log.flush();
      assert.equal(errors.length, 2);
      const rows = await reader.db.selectFrom('request_log').select('request_id').where('client_ip', '=', '192.0.2.1').execute();
      const kept = await reader.db.selectFrom('usage_daily').selectAll().where('key_id', '=', 'key_f').execute();
      // 5 entries failed, the oldest (a key_f one) was dropped: 4 written, with their usage.
      assert.ok(rows.length >= 5); // plus the warm-up and the earlier tests' entries
      assert.deepEqual(kept.map((r) => r.requests), [1]);
      await log.close();
    });

    it("indexes (key_id, at) for keyed requests only, and a key's requests by time are read through that index", async () => {
      if (target.name === 'postgres') {
        const { rows } = await sql<{ indexdef: string }>`select indexdef from pg_indexes where indexname = 'request_log_key_at'`.execute(t.database.db);
        assert.match(rows[0]?.indexdef ?? '', /\(key_id, at\) WHERE \(key_id IS NOT NULL\)$/);
        await t.database.db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const plan = await sql<{ 'QUERY PLAN': string }>`explain select request_id from request_log where key_id = ${'key_1'} order by at desc limit 20`.execute(trx);
          assert.match(plan.rows.map((r) => r['QUERY PLAN']).join('\n'), /request_log_key_at/);
        });
      } else {
        const { rows } = await sql<{ sql: string }>`select sql from sqlite_master where name = 'request_log_key_at'`.execute(t.database.db);
        assert.match(rows[0]?.sql ?? '', /\("key_id", "at"\) where "key_id" is not null$/);
        const plan = await sql<{ detail: string }>`explain query plan select request_id from request_log where key_id = ${'key_1'} order by at desc limit 20`.execute(t.database.db);
        assert.match(plan.rows.map((r) => r.detail).join('\n'), /USING INDEX request_log_key_at/);
      }
    });

    it('a flush waits for a transaction in progress and never joins it: a rollback there loses no log entry', async () => {
      const log = new RequestLog(t.database, { flushIntervalMs: 60_000 });
      const e = entry();
      let flushed: Promise<void> | undefined;
      await assert.rejects(
        t.database.db.transaction().execute(async (trx) => {
          await trx.updateTable('directory_state').set({ updated_at: 'rolled back' }).where('id', '=', 1).execute();
          log.record(e);
          flushed = log.flush();
          await new Promise((resolve) => setImmediate(resolve));
          throw new Error('roll back');
        }),
        /roll back/,
      );
      await flushed;
      assert.equal(await countLogged(reader, [e.request_id]), 1);
      const state = await reader.db.selectFrom('directory_state').select('updated_at').executeTakeFirstOrThrow();
      assert.notEqual(state.updated_at, 'rolled back');
      await log.close();
    });
  });
}

describe('request log on in-memory SQLite (written in-thread)', () => {
  it('flushes and finds entries on the same connection', async () => {
    const database = openDatabase(':memory:');
    try {
      await migrateToLatest(database);
      const log = new RequestLog(database, { flushIntervalMs: 60_000 });
      const e = keyed('key_m');
      log.record(e);
      assert.deepEqual(await log.find(e.request_id), e);
      const usage = await database.db.selectFrom('usage_daily').selectAll().execute();
      assert.deepEqual(usage, [{ key_id: 'key_m', day: '2026-11-23', requests: 1, errors: 0, rate_limited: 0, server_errors: 0 }]);
      await log.close();
    } finally {
      await database.close();
    }
  });
});

describe('request log and the server lifetime (SQLite file)', () => {
  let dir: string;
  let url: string;
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-rl-'));
    url = `sqlite:${path.join(dir, 'log.db')}`;
    const database = openDatabase(url);
    await migrateToLatest(database);
    await database.close();
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('`consulta serve` logs API requests and stops cleanly on SIGTERM, draining the log', async () => {
    const server = await startServerProcess({ DATABASE_URL: url, SITE_URL: 'http://consulta.test', FENCE_SECRET: 'test-fence-secret-0123456789', REQUEST_LOG_FLUSH_MS: '60000' });
    let requestId: string;
    try {
      const res = await fetch(`${server.url}/api/v1/cities`);
      assert.equal(res.status, 200);
      requestId = res.headers.get('x-request-id')!;
    } finally {
      assert.equal(await server.stop('SIGTERM'), 0);
    }
    const database = openDatabase(url);
    try {
      assert.equal(await countLogged(database, [requestId]), 1, 'the entry buffered at shutdown was written');
    } finally {
      await database.close();
    }
  });
});

describe('request log on a SQLite file: written by a thread of its own', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-rlog-thread-'));
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('leaves the event loop free while a large batch is written', async () => {
    const database = openDatabase(`sqlite:${path.join(dir, 'big.db')}`);
    await migrateToLatest(database);
    const log = new RequestLog(database, { flushIntervalMs: 60_000, maxBatch: 100_000 });
    const batch = Array.from({ length: 30_000 }, () => entry());
    for (const e of batch) log.record(e);
    // Written on this thread, 30,000 rows block it for tens of milliseconds: no timer runs.
    let ticks = 0;
    const timer = setInterval(() => ticks++, 1);
    try {
      await log.flush();
    } finally {
      clearInterval(timer);
    }
    assert.ok(ticks >= 3, `timers ran ${ticks} times during the flush`);
    const { n } = await database.db.selectFrom('request_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    assert.equal(Number(n), 30_000);
    await log.close();
    await database.close();
  });

  it('a thread that cannot open the database fails each write (nothing hangs), and close() still resolves', async () => {
    const thread = new RequestLogThread({ file: path.join(dir, 'missing.db'), insertSql: 'select 1', insertManySql: 'select 1', width: 1, addSql: ['select 1'], busyTimeoutMs: 100 });
    await assert.rejects(thread.write([1], []), /request-log thread for .*missing\.db: SQLITE_CANTOPEN|unable to open/);
    await assert.rejects(thread.write([1], []), /request-log thread for .*missing\.db: SQLITE_CANTOPEN|unable to open/, 'a new thread is started for the next write');
    await thread.close();
  });

  it('stages batches as they fill and commits them once per flush, every column in place through the multi-row insert', async () => {
    const database = openDatabase(`sqlite:${path.join(dir, 'staged.db')}`);
    await migrateToLatest(database);
    const reader = openDatabase(`sqlite:${path.join(dir, 'staged.db')}`);
    try {
      // 150 entries in batches of 50: three staged batches, each more rows than one statement binds.
      const log = new RequestLog(database, { flushIntervalMs: 60_000, maxBatch: 50 });
      const batch = Array.from({ length: 150 }, (_, i) =>
        entry({ key_id: i % 3 === 0 ? null : `key_s${i % 2}`, owner_type: i % 3 === 0 ? null : 'user', owner_id: i % 3 === 0 ? null : 'usr_s', test: i % 5 === 0 ? 1 : 0, query: i % 4 === 0 ? `page=${i}` : null, status: 200 + i, duration_ms: i / 8, client_ip: `198.51.100.${i}`, error_code: i % 7 === 0 ? 'not_found' : null }),
      );
      for (const e of batch) log.record(e);
      // Staged, not committed: nothing is readable until the flush.
      await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(await countLogged(reader, batch.map((e) => e.request_id)), 0, 'staged batches wait for the flush');
      await log.flush();
      const stored = await reader.db.selectFrom('request_log').selectAll().where('client_ip', 'like', '198.51.100.%').orderBy('request_id').execute();
      assert.deepEqual(stored, batch);
      const usage = await reader.db.selectFrom('usage_daily').select(['key_id', 'requests']).where('key_id', 'like', 'key_s%').orderBy('key_id').execute();
      const live = (k: string) => batch.filter((e) => e.key_id === k && e.test === 0).length;
      assert.deepEqual(usage, [{ key_id: 'key_s0', requests: live('key_s0') }, { key_id: 'key_s1', requests: live('key_s1') }]);
      await log.close();
    } finally {
      await reader.close();
      await database.close();
    }
  });

  it('a failed commit keeps every staged entry: the next flush writes each once, with its usage counted once', async () => {
    const database = openDatabase(`sqlite:${path.join(dir, 'staged-fail.db')}`);
    await migrateToLatest(database);
    const errors: unknown[] = [];
    const log = new RequestLog(database, { flushIntervalMs: 60_000, maxBatch: 4, onError: (err) => errors.push(err) });
    try {
      await sql`alter table request_log rename to request_log_away`.execute(database.db);
      const first = Array.from({ length: 10 }, () => keyed('key_sf'));
      for (const e of first) log.record(e);
      await log.flush();
      assert.equal(errors.length, 1);
      await sql`alter table request_log_away rename to request_log`.execute(database.db);
      // More entries staged after the failure join the retried ones in the next commit.
      const second = Array.from({ length: 5 }, () => keyed('key_sf'));
      for (const e of second) log.record(e);
      await log.flush();
      assert.equal(errors.length, 1);
      assert.equal(await countLogged(database, [...first, ...second].map((e) => e.request_id)), 15);
      const usage = await database.db.selectFrom('usage_daily').select('requests').where('key_id', '=', 'key_sf').executeTakeFirstOrThrow();
      assert.equal(usage.requests, 15);
    } finally {
      await log.close();
      await database.close();
    }
  });

  it('a thread that went takes only what was staged with it (as a crash would); the next commit holds what was handed over since, once', async () => {
    const file = path.join(dir, 'restart.db');
    const setup = openDatabase(`sqlite:${file}`);
    await sql`create table t (v integer not null)`.execute(setup.db);
    await setup.close();
    const many = `insert into t (v) values ${Array.from({ length: 64 }, () => '(?)').join(', ')}`;
    const thread = new RequestLogThread({ file, insertSql: 'insert into t (v) values (?)', insertManySql: many, width: 1, addSql: [], busyTimeoutMs: 1000 });
    const values = async () => {
      const db = openDatabase(`sqlite:${file}`);
      try {
        const rows = await db.db.selectFrom('t' as never).select(sql<number>`v`.as('v')).orderBy(sql`v`).execute();
        return rows.map((r) => r.v);
      } finally {
        await db.close();
      }
    };
    try {
      thread.stage([1, 2], [[]]);
      thread.stage([3], [[]]);
      // The thread ends with those rows staged (as it would on a fatal error).
      await (thread as unknown as { worker: Worker }).worker.terminate();
      await new Promise((resolve) => setImmediate(resolve));
      // The next write reaches a new thread, which holds fewer rows than were staged: it commits
      // nothing and gives back what it has (this write's row), to be handed over again.
      const failed = await thread.write([4], [[]]).then(
        () => assert.fail('the write should fail'),
        (err: unknown) => err,
      );
      assert.ok(failed instanceof RequestLogWriteError);
      assert.match(failed.message, /holds 1 staged rows, 4 expected/);
      assert.deepEqual(failed.rows, [[4]]);
      assert.deepEqual(await values(), [], 'nothing of an incomplete commit is written');
      await thread.write([4], [[]]);
      assert.deepEqual(await values(), [4], 'rows lost with the old thread are not invented, rows given back are written once');
    } finally {
      await thread.close();
    }
  });
});
