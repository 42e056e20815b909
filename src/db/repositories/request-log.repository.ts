/** The API request log and the per-key daily usage aggregates. */
import type SQLite from 'better-sqlite3';
import { SQLITE_BUSY_TIMEOUT_MS, type Database } from '../database.ts';
import { RequestLogThread } from '../request-log-thread.ts';
import type { RequestLogTable, UsageDailyTable } from '../schema.ts';
import type { Executor } from './types.ts';

export async function insertRequestLogBatch(db: Executor, rows: RequestLogTable[]): Promise<void> {
  // 13 columns a row: stay well under SQLite's and PostgreSQL's bound-parameter limits.
  for (let i = 0; i < rows.length; i += 500) {
    await db.insertInto('request_log').values(rows.slice(i, i + 500)).onConflict((oc) => oc.column('request_id').doNothing()).execute();
  }
}

/** Adds to the daily counters (creating the day's row on first use). */
export async function addUsageDaily(db: Executor, rows: UsageDailyTable[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('usage_daily')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['key_id', 'day']).doUpdateSet((eb) => ({
          requests: eb('usage_daily.requests', '+', eb.ref('excluded.requests')),
          errors: eb('usage_daily.errors', '+', eb.ref('excluded.errors')),
          rate_limited: eb('usage_daily.rate_limited', '+', eb.ref('excluded.rate_limited')),
        })),
      )
      .execute();
  }
}

/**
 * The daily-usage increments a batch of log entries adds: live keyed traffic only (anonymous
 * requests and test keys are not counted), per key and UTC day.
 */
export function dailyUsage(batch: readonly RequestLogTable[]): UsageDailyTable[] {
  const daily = new Map<string, UsageDailyTable>();
  for (const e of batch) {
    if (e.key_id === null || e.test === 1) continue;
    const day = e.at.slice(0, 10);
    const k = `${e.key_id}|${day}`;
    let row = daily.get(k);
    if (!row) {
      row = { key_id: e.key_id, day, requests: 0, errors: 0, rate_limited: 0 };
      daily.set(k, row);
    }
    row.requests++;
    if (e.status >= 400) row.errors++;
    if (e.status === 429) row.rate_limited++;
  }
  return [...daily.values()];
}

const INSERT_REQUEST_SQL =
  'insert into request_log (request_id, at, key_id, owner_type, owner_id, test, method, route, path, status, duration_ms, client_ip, error_code) ' +
  'values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ' +
  'on conflict (request_id) do nothing';
const ADD_USAGE_SQL =
  'insert into usage_daily (key_id, day, requests, errors, rate_limited) values (?, ?, ?, ?, ?) ' +
  'on conflict (key_id, day) do update set requests = usage_daily.requests + excluded.requests, ' +
  'errors = usage_daily.errors + excluded.errors, rate_limited = usage_daily.rate_limited + excluded.rate_limited';

// Values in the statements' parameter order. Positional: binding a row object by name costs
// about a microsecond more per row, and arrays are also cheaper to hand to another thread.
const rowValues = (r: RequestLogTable): unknown[] => [r.request_id, r.at, r.key_id, r.owner_type, r.owner_id, r.test, r.method, r.route, r.path, r.status, r.duration_ms, r.client_ip, r.error_code];
const usageValues = (u: UsageDailyTable): unknown[] => [u.key_id, u.day, u.requests, u.errors, u.rate_limited];

/** Writes batches of log entries, each with its daily aggregates in one transaction. */
export interface RequestLogWriter {
  /** Resolves once the batch is committed (readable by any connection). */
  write(batch: readonly RequestLogTable[]): Promise<void>;
  /** After the writes in progress; the writer is not used again. */
  close(): Promise<void>;
}

/**
 * The writer for a database. A SQLite file: prepared statements on a worker thread with its own
 * connection (request-log-thread.ts), off the event loop. In-memory SQLite (one connection, tests
 * and tools): the same statements on the connection itself, taken through the query builder's
 * connection lock so a write never lands inside another caller's open transaction. PostgreSQL:
 * the query builder (the driver does not block).
 */
export function openRequestLogWriter(database: Database): RequestLogWriter {
  const sqlite = database.sqlite;
  if (sqlite && !sqlite.memory) {
    const thread = new RequestLogThread({ file: sqlite.name, insertSql: INSERT_REQUEST_SQL, addSql: ADD_USAGE_SQL, busyTimeoutMs: SQLITE_BUSY_TIMEOUT_MS });
    return {
      write: (batch) => thread.write(batch.map(rowValues), dailyUsage(batch).map(usageValues)),
      close: () => thread.close(),
    };
  }
  if (sqlite) {
    let write: SQLite.Transaction<(batch: readonly RequestLogTable[]) => void> | undefined;
    const writeNow = (batch: readonly RequestLogTable[]) => {
      // Prepared on first use, so a connection opened before the tables exist fails per write.
      if (!write) {
        const insert = sqlite.prepare(INSERT_REQUEST_SQL);
        const add = sqlite.prepare(ADD_USAGE_SQL);
        write = sqlite.transaction((rows: readonly RequestLogTable[]) => {
          for (const r of rows) insert.run(rowValues(r));
          for (const u of dailyUsage(rows)) add.run(usageValues(u));
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
        await addUsageDaily(trx, dailyUsage(batch));
      }),
    close: async () => {},
  };
}

export function listUsageDaily(db: Executor, keyId: string, fromDay: string, toDay: string): Promise<UsageDailyTable[]> {
  return db.selectFrom('usage_daily').selectAll().where('key_id', '=', keyId).where('day', '>=', fromDay).where('day', '<=', toDay).orderBy('day').execute();
}

export function findRequest(db: Executor, requestId: string): Promise<RequestLogTable | undefined> {
  return db.selectFrom('request_log').selectAll().where('request_id', '=', requestId).executeTakeFirst();
}

/** Deletes entries older than `beforeIso`; returns how many. */
export async function deleteRequestsBefore(db: Executor, beforeIso: string): Promise<number> {
  const result = await db.deleteFrom('request_log').where('at', '<', beforeIso).executeTakeFirst();
  return Number(result.numDeletedRows);
}
