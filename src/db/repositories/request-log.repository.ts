/** The API request log and the per-key daily usage aggregates. */
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
