/** The API request log and the per-key daily usage aggregates. */
import type SQLite from 'better-sqlite3';
import { sql } from 'kysely';
import { SQLITE_BUSY_TIMEOUT_MS, type Database } from '../database.ts';
import { RequestLogThread, RequestLogWriteError, ROWS_PER_STATEMENT } from '../request-log-thread.ts';
import type { RequestLogTable, UsageDailyErrorsTable, UsageDailyLatencyTable, UsageDailyRoutesTable, UsageDailyTable } from '../schema.ts';
import type { Executor } from './types.ts';

export async function insertRequestLogBatch(db: Executor, rows: RequestLogTable[]): Promise<void> {
  // 14 columns a row: stay well under SQLite's and PostgreSQL's bound-parameter limits. Every
  // row names every column (an entry without a query string has null), so one statement fits all.
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500).map((r) => ({ ...r, query: r.query ?? null }));
    await db.insertInto('request_log').values(chunk).onConflict((oc) => oc.column('request_id').doNothing()).execute();
  }
}

/**
 * Latency buckets of the daily histogram: bucket b holds durations in (2^((b-1)/4), 2^(b/4)] ms,
 * steps of 19 %, clamped to 0.0625 ms … 65.5 s (81 buckets; a key's day uses a few dozen).
 * Migration 0017 holds a frozen copy for its backfill.
 */
export const LATENCY_BUCKETS = { min: -16, max: 64 } as const;
export function latencyBucket(ms: number): number {
  if (!(ms > 2 ** (LATENCY_BUCKETS.min / 4))) return LATENCY_BUCKETS.min;
  let bucket = Math.ceil(4 * Math.log2(ms));
  // log2 may land a hair above an exact bound, which belongs to the bucket below (as in 0017's SQL).
  if (ms <= 2 ** ((bucket - 1) / 4)) bucket--;
  return Math.min(LATENCY_BUCKETS.max, bucket);
}
/** The largest duration a bucket holds, ms. */
export const latencyBucketUpperMs = (bucket: number): number => 2 ** (bucket / 4);

/** What one batch adds to the daily aggregates (every table keyed by key and UTC day). */
export interface UsageIncrements {
  daily: UsageDailyTable[];
  errors: UsageDailyErrorsTable[];
  routes: UsageDailyRoutesTable[];
  latency: UsageDailyLatencyTable[];
}

/**
 * The daily-usage increments a batch of log entries adds: live keyed traffic only (anonymous
 * requests and test keys are not counted), per key and UTC day.
 */
export function usageIncrements(batch: readonly RequestLogTable[]): UsageIncrements {
  const daily = new Map<string, UsageDailyTable>();
  const errors = new Map<string, UsageDailyErrorsTable>();
  const routes = new Map<string, UsageDailyRoutesTable>();
  const latency = new Map<string, UsageDailyLatencyTable>();
  for (const e of batch) {
    if (e.key_id === null || e.test === 1) continue;
    const day = e.at.slice(0, 10);
    const k = `${e.key_id}|${day}`;
    let row = daily.get(k);
    if (!row) {
      row = { key_id: e.key_id, day, requests: 0, errors: 0, rate_limited: 0, server_errors: 0 };
      daily.set(k, row);
    }
    const failed = e.status >= 400;
    row.requests++;
    if (failed) row.errors++;
    if (e.status === 429) row.rate_limited++;
    if (e.status >= 500) row.server_errors++;
    if (failed) {
      const code = e.error_code ?? '';
      const ek = `${k}|${code}`;
      const er = errors.get(ek);
      if (er) er.count++;
      else errors.set(ek, { key_id: e.key_id, day, code, count: 1 });
    }
    // A path that matched no route is logged with the path as its route (and not_found): counted
    // as one '*' route, so that probing random paths cannot grow the table by a row per path. A
    // static route's own 404 (initiate's slot_unavailable) has another code and keeps its route.
    const route = e.status === 404 && e.error_code === 'not_found' && e.route === e.path ? '*' : e.route;
    const rk = `${k}|${e.method}|${route}`;
    const rr = routes.get(rk);
    if (rr) {
      rr.requests++;
      if (failed) rr.errors++;
    } else routes.set(rk, { key_id: e.key_id, day, method: e.method, route, requests: 1, errors: failed ? 1 : 0 });
    const bucket = latencyBucket(e.duration_ms);
    const lk = `${k}|${bucket}`;
    const lr = latency.get(lk);
    if (lr) lr.count++;
    else latency.set(lk, { key_id: e.key_id, day, bucket, count: 1 });
  }
  return { daily: [...daily.values()], errors: [...errors.values()], routes: [...routes.values()], latency: [...latency.values()] };
}

/**
 * Adds a batch's increments to the daily aggregates (creating rows on first use): one multi-row
 * upsert per table. Each batch's increments are unique per primary key, as PostgreSQL requires.
 */
export async function addUsage(db: Executor, inc: UsageIncrements): Promise<void> {
  // 6 columns a row at most: chunks of 1,000 stay far below both databases' parameter limits.
  const chunks = <T>(rows: T[]) => Array.from({ length: Math.ceil(rows.length / 1000) }, (_, i) => rows.slice(i * 1000, i * 1000 + 1000));
  for (const rows of chunks(inc.daily)) {
    await db
      .insertInto('usage_daily')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['key_id', 'day']).doUpdateSet((eb) => ({
          requests: eb('usage_daily.requests', '+', eb.ref('excluded.requests')),
          errors: eb('usage_daily.errors', '+', eb.ref('excluded.errors')),
          rate_limited: eb('usage_daily.rate_limited', '+', eb.ref('excluded.rate_limited')),
          server_errors: eb('usage_daily.server_errors', '+', eb.ref('excluded.server_errors')),
        })),
      )
      .execute();
  }
  for (const rows of chunks(inc.errors)) {
    await db
      .insertInto('usage_daily_errors')
      .values(rows)
      .onConflict((oc) => oc.columns(['key_id', 'day', 'code']).doUpdateSet((eb) => ({ count: eb('usage_daily_errors.count', '+', eb.ref('excluded.count')) })))
      .execute();
  }
  for (const rows of chunks(inc.routes)) {
    await db
      .insertInto('usage_daily_routes')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['key_id', 'day', 'method', 'route']).doUpdateSet((eb) => ({
          requests: eb('usage_daily_routes.requests', '+', eb.ref('excluded.requests')),
          errors: eb('usage_daily_routes.errors', '+', eb.ref('excluded.errors')),
        })),
      )
      .execute();
  }
  for (const rows of chunks(inc.latency)) {
    await db
      .insertInto('usage_daily_latency')
      .values(rows)
      .onConflict((oc) => oc.columns(['key_id', 'day', 'bucket']).doUpdateSet((eb) => ({ count: eb('usage_daily_latency.count', '+', eb.ref('excluded.count')) })))
      .execute();
  }
}

const REQUEST_LOG_COLUMNS = ['request_id', 'at', 'key_id', 'owner_type', 'owner_id', 'test', 'method', 'route', 'path', 'query', 'status', 'duration_ms', 'client_ip', 'error_code'] as const;
const insertRequestsSql = (rows: number) =>
  `insert into request_log (${REQUEST_LOG_COLUMNS.join(', ')}) values ` +
  Array.from({ length: rows }, () => `(${REQUEST_LOG_COLUMNS.map(() => '?').join(', ')})`).join(', ') +
  ' on conflict (request_id) do nothing';
const INSERT_REQUEST_SQL = insertRequestsSql(1);
// One upsert per aggregate table, in the order of usageValues().
const ADD_USAGE_SQL = [
  'insert into usage_daily (key_id, day, requests, errors, rate_limited, server_errors) values (?, ?, ?, ?, ?, ?) ' +
    'on conflict (key_id, day) do update set requests = usage_daily.requests + excluded.requests, ' +
    'errors = usage_daily.errors + excluded.errors, rate_limited = usage_daily.rate_limited + excluded.rate_limited, ' +
    'server_errors = usage_daily.server_errors + excluded.server_errors',
  'insert into usage_daily_errors (key_id, day, code, count) values (?, ?, ?, ?) ' +
    'on conflict (key_id, day, code) do update set count = usage_daily_errors.count + excluded.count',
  'insert into usage_daily_routes (key_id, day, method, route, requests, errors) values (?, ?, ?, ?, ?, ?) ' +
    'on conflict (key_id, day, method, route) do update set requests = usage_daily_routes.requests + excluded.requests, ' +
    'errors = usage_daily_routes.errors + excluded.errors',
  'insert into usage_daily_latency (key_id, day, bucket, count) values (?, ?, ?, ?) ' +
    'on conflict (key_id, day, bucket) do update set count = usage_daily_latency.count + excluded.count',
] as const;

// Values in the statements' parameter order. Positional: binding a row object by name costs
// about a microsecond more per row, and arrays are also cheaper to hand to another thread.
const rowValues = (r: RequestLogTable): unknown[] => [r.request_id, r.at, r.key_id, r.owner_type, r.owner_id, r.test, r.method, r.route, r.path, r.query ?? null, r.status, r.duration_ms, r.client_ip, r.error_code];
/** The entries back from flat values (a failed commit's rows). */
function fromFlat(flat: readonly unknown[]): RequestLogTable[] {
  const width = REQUEST_LOG_COLUMNS.length;
  const out: RequestLogTable[] = [];
  for (let i = 0; i < flat.length; i += width) {
    const row: Record<string, unknown> = {};
    REQUEST_LOG_COLUMNS.forEach((column, c) => (row[column] = flat[i + c]));
    out.push(row as unknown as RequestLogTable);
  }
  return out;
}

/** Every row's values one after another, in REQUEST_LOG_COLUMNS order: one flat array is the cheapest to hand to another thread. */
function flatValues(batch: readonly RequestLogTable[]): unknown[] {
  const out: unknown[] = [];
  for (const r of batch) out.push(r.request_id, r.at, r.key_id, r.owner_type, r.owner_id, r.test, r.method, r.route, r.path, r.query ?? null, r.status, r.duration_ms, r.client_ip, r.error_code);
  return out;
}
const usageValues = (inc: UsageIncrements): unknown[][][] => [
  inc.daily.map((u) => [u.key_id, u.day, u.requests, u.errors, u.rate_limited, u.server_errors]),
  inc.errors.map((u) => [u.key_id, u.day, u.code, u.count]),
  inc.routes.map((u) => [u.key_id, u.day, u.method, u.route, u.requests, u.errors]),
  inc.latency.map((u) => [u.key_id, u.day, u.bucket, u.count]),
];

/** Writes batches of log entries, each with its daily aggregates in one transaction. */
export interface RequestLogWriter {
  /**
   * Where present: hands a batch over to be committed by the next write(), without waiting.
   * Nothing is confirmed until that write resolves; if it rejects, nothing staged since the last
   * commit was written and all of it must be handed over again.
   */
  stage?(batch: readonly RequestLogTable[]): void;
  /**
   * Resolves once the batch (and everything staged before it) is committed (readable by any
   * connection). A rejection may carry `entries`: everything the failed commit held, staged
   * batches included, to be handed over again; without it, only `batch` is known unwritten.
   */
  write(batch: readonly RequestLogTable[]): Promise<void>;
  /** After the writes in progress; the writer is not used again. */
  close(): Promise<void>;
}

/**
 * The writer for a database. A SQLite file: prepared statements on a worker thread with its own
 * connection (request-log-thread.ts), off the event loop, batches staged there as they fill and
 * committed together. In-memory SQLite (one connection, tests
 * and tools): the same statements on the connection itself, taken through the query builder's
 * connection lock so a write never lands inside another caller's open transaction. PostgreSQL:
 * the query builder (the driver does not block).
 */
export function openRequestLogWriter(database: Database): RequestLogWriter {
  const sqlite = database.sqlite;
  if (sqlite && !sqlite.memory) {
    const thread = new RequestLogThread({
      file: sqlite.name,
      insertSql: INSERT_REQUEST_SQL,
      insertManySql: insertRequestsSql(ROWS_PER_STATEMENT),
      width: REQUEST_LOG_COLUMNS.length,
      addSql: ADD_USAGE_SQL,
      busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS,
    });
    return {
      stage: (batch) => thread.stage(flatValues(batch), usageValues(usageIncrements(batch))),
      write: (batch) =>
        thread.write(flatValues(batch), usageValues(usageIncrements(batch))).catch((err: unknown) => {
          if (err instanceof RequestLogWriteError) throw Object.assign(err, { entries: err.rows.flatMap(fromFlat) });
          throw err;
        }),
      close: () => thread.close(),
    };
  }
  if (sqlite) {
    let write: SQLite.Transaction<(batch: readonly RequestLogTable[]) => void> | undefined;
    const writeNow = (batch: readonly RequestLogTable[]) => {
      // Prepared on first use, so a connection opened before the tables exist fails per write.
      if (!write) {
        const insert = sqlite.prepare(INSERT_REQUEST_SQL);
        const adds = ADD_USAGE_SQL.map((statement) => sqlite.prepare(statement));
        write = sqlite.transaction((rows: readonly RequestLogTable[]) => {
          for (const r of rows) insert.run(rowValues(r));
          usageValues(usageIncrements(rows)).forEach((values, i) => {
            for (const v of values) adds[i]!.run(v);
          });
        });
      }
      write.immediate(batch);
    };
    return {
      write: (batch) => database.db.connection().execute(async () => writeNow(batch)),
      close: async () => {},
    };
  }
  return {
    write: (batch) =>
      database.db.transaction().execute(async (trx) => {
        await insertRequestLogBatch(trx, [...batch]);
        await addUsage(trx, usageIncrements(batch));
      }),
    close: async () => {},
  };
}

export function listUsageDaily(db: Executor, keyId: string, fromDay: string, toDay: string): Promise<UsageDailyTable[]> {
  return db.selectFrom('usage_daily').selectAll().where('key_id', '=', keyId).where('day', '>=', fromDay).where('day', '<=', toDay).orderBy('day').execute();
}

/** Errors by problem code over a key's days (the primary key's range), most frequent first. */
export async function sumUsageErrors(db: Executor, keyId: string, fromDay: string, toDay: string): Promise<Array<{ code: string; count: number }>> {
  const rows = await db
    .selectFrom('usage_daily_errors')
    .select((eb) => ['code', eb.fn.sum<number | string>('count').as('count')])
    .where('key_id', '=', keyId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .groupBy('code')
    .execute();
  return rows.map((r) => ({ code: r.code, count: Number(r.count) })).sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
}

/** Requests per endpoint over a key's days, most requested first (ties by route). */
export async function sumUsageRoutes(db: Executor, keyId: string, fromDay: string, toDay: string, limit: number): Promise<Array<{ method: string; route: string; requests: number; errors: number }>> {
  const rows = await db
    .selectFrom('usage_daily_routes')
    .select((eb) => ['method', 'route', eb.fn.sum<number | string>('requests').as('requests'), eb.fn.sum<number | string>('errors').as('errors')])
    .where('key_id', '=', keyId)
    .where('day', '>=', fromDay)
    .where('day', '<=', toDay)
    .groupBy(['method', 'route'])
    .execute();
  return rows
    .map((r) => ({ method: r.method, route: r.route, requests: Number(r.requests), errors: Number(r.errors) }))
    .sort((a, b) => b.requests - a.requests || a.route.localeCompare(b.route) || a.method.localeCompare(b.method))
    .slice(0, limit);
}

/** A key's latency histogram rows over its days. */
export function listUsageLatency(db: Executor, keyId: string, fromDay: string, toDay: string): Promise<UsageDailyLatencyTable[]> {
  return db.selectFrom('usage_daily_latency').selectAll().where('key_id', '=', keyId).where('day', '>=', fromDay).where('day', '<=', toDay).orderBy('day').orderBy('bucket').execute();
}

export function findRequest(db: Executor, requestId: string): Promise<RequestLogTable | undefined> {
  return db.selectFrom('request_log').selectAll().where('request_id', '=', requestId).executeTakeFirst();
}

/** Deletes up to `limit` entries older than `beforeIso` (one bounded batch); returns how many. */
export async function deleteRequestsBefore(db: Executor, beforeIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('request_log').select('request_id').where('at', '<', beforeIso).orderBy('at').limit(limit);
  const result = await db.deleteFrom('request_log').where('request_id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/**
 * When each key was last used (its newest logged request), by key id. One index lookup per key
 * on request_log_key_at (key_id, at): never a scan, however long the log. Keys without a logged
 * request in the retention window are absent.
 */
export async function lastUsedByKey(db: Executor, keyIds: readonly string[]): Promise<Map<string, string>> {
  const rows = await Promise.all(
    keyIds.map((id) => db.selectFrom('request_log').select((eb) => eb.fn.max('at').as('at')).where('key_id', '=', id).executeTakeFirst()),
  );
  const out = new Map<string, string>();
  rows.forEach((r, i) => {
    if (r?.at) out.set(keyIds[i]!, String(r.at));
  });
  return out;
}

export interface OwnerRequestsQuery {
  ownerType: 'user' | 'firm';
  ownerId: string;
  /** Oldest time shown (the retention window). */
  since: string;
  keyId?: string;
  /** Requests made with one of these keys (the owner's publishable keys: the widget's). Empty matches nothing. */
  keyIn?: readonly string[];
  /** Requests made with none of these keys. */
  keyNotIn?: readonly string[];
  test?: boolean;
  /** Inclusive status range (a class: 400–499, or exactly 429). */
  status?: { from: number; to: number };
  /** Paths starting with this. */
  pathPrefix?: string;
  /** Keyset: rows strictly older than this (at, request_id). */
  before?: { at: string; requestId: string };
  limit: number;
  /** With filters: look at no more than this many of the owner's rows (see ownerRequestsQuery). */
  scanLimit?: number;
}

/**
 * One owner's keyed requests, newest first, a page at a time: a range scan of
 * request_log_owner_at (owner_type, owner_id, at, request_id) from the newest end (or from the
 * cursor: a row-value comparison, which both databases turn into the scan's starting point).
 *
 * The other filters (key, live/test, status class, path) are checked on the rows the scan meets,
 * and with `scanLimit` on the first `scanLimit` rows only: a filter that matches little would
 * otherwise read every row of the owner's 30 days (250,000 rows took 0.6 s on SQLite) before
 * finding a page or the end. The caller continues from `ownerScanBoundary`.
 */
export function ownerRequestsQuery(db: Executor, q: OwnerRequestsQuery) {
  let scan = db
    .selectFrom('request_log')
    .selectAll()
    .where('owner_type', '=', q.ownerType)
    .where('owner_id', '=', q.ownerId)
    .where('at', '>=', q.since);
  if (q.before) scan = scan.where((eb) => eb(eb.refTuple('at', 'request_id'), '<', eb.tuple(q.before!.at, q.before!.requestId)));
  const newestFirst = scan.orderBy('owner_type', 'desc').orderBy('owner_id', 'desc').orderBy('at', 'desc').orderBy('request_id', 'desc');
  const filtered = isFiltered(q);
  if (!filtered || q.scanLimit === undefined) return withFilters(newestFirst, q).limit(q.limit);
  return withFilters(db.selectFrom(newestFirst.limit(q.scanLimit).as('scanned')).selectAll(), q)
    .orderBy('at', 'desc')
    .orderBy('request_id', 'desc')
    .limit(q.limit);
}

/** Whether any row filter is set (a filtered page scans a bounded window). */
export function isFiltered(q: Omit<OwnerRequestsQuery, 'ownerType' | 'ownerId' | 'since' | 'limit'>): boolean {
  return q.keyId !== undefined || q.keyIn !== undefined || q.keyNotIn !== undefined || q.test !== undefined || q.status !== undefined || q.pathPrefix !== undefined;
}

/** The row filters, on request_log or on the scanned window of it (same column names). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function withFilters<Q extends { where: (...args: any[]) => Q }>(query: Q, q: OwnerRequestsQuery): Q {
  let out = query;
  if (q.keyId !== undefined) out = out.where('key_id', '=', q.keyId);
  if (q.keyIn !== undefined) out = q.keyIn.length === 0 ? out.where(sql<boolean>`1 = 0`) : out.where('key_id', 'in', q.keyIn);
  if (q.keyNotIn !== undefined && q.keyNotIn.length > 0) out = out.where('key_id', 'not in', q.keyNotIn);
  if (q.test !== undefined) out = out.where('test', '=', q.test ? 1 : 0);
  if (q.status) out = out.where('status', '>=', q.status.from).where('status', '<=', q.status.to);
  // substr, not LIKE: no wildcard or escape rules that differ between SQLite and PostgreSQL.
  if (q.pathPrefix) out = out.where(sql<boolean>`substr(path, 1, ${q.pathPrefix.length}) = ${q.pathPrefix}`);
  return out;
}

/**
 * The position of the owner's n-th request (1-based) counted back from the cursor, or undefined
 * if there are fewer: where a filtered page whose scan window ran out continues. Reads the
 * index only (every column it needs is in request_log_owner_at).
 */
export async function ownerScanBoundary(db: Executor, q: OwnerRequestsQuery, n: number): Promise<{ at: string; requestId: string } | undefined> {
  let scan = db
    .selectFrom('request_log')
    .select(['at', 'request_id'])
    .where('owner_type', '=', q.ownerType)
    .where('owner_id', '=', q.ownerId)
    .where('at', '>=', q.since);
  if (q.before) scan = scan.where((eb) => eb(eb.refTuple('at', 'request_id'), '<', eb.tuple(q.before!.at, q.before!.requestId)));
  const row = await scan.orderBy('owner_type', 'desc').orderBy('owner_id', 'desc').orderBy('at', 'desc').orderBy('request_id', 'desc').limit(1).offset(n - 1).executeTakeFirst();
  return row ? { at: row.at, requestId: row.request_id } : undefined;
}

export function listOwnerRequests(db: Executor, q: OwnerRequestsQuery): Promise<RequestLogTable[]> {
  return ownerRequestsQuery(db, q).execute() as Promise<RequestLogTable[]>;
}
