/**
 * The retention purges that belong to no other repository. Each function deletes one bounded
 * batch (at most `limit` rows, found through an index: see migration 0019) and returns how many
 * rows it deleted. PostgreSQL has no DELETE … LIMIT, so every batch is
 * `delete … where key in (select key … where <past the window> order by <indexed time> limit n)`,
 * on both databases. The ORDER BY is what keeps the planner on the index: without it PostgreSQL
 * may prefer a sequential scan "until n rows match", which reads every dead row left by the
 * previous batches again (quadratic over a large purge).
 */
import type { Kysely } from 'kysely';
import type { DialectName } from '../database.ts';
import type { DB } from '../schema.ts';
import type { Executor } from './types.ts';

/**
 * Deletes up to `limit` webhook messages that reached a final outcome (delivered or dead) before
 * `beforeIso`, with their attempts. Pending messages are never touched, however old. In a
 * transaction of its own (hence a database, not a transaction) whose messages are locked on
 * PostgreSQL, so a dead message re-queued meanwhile (`webhooks retry`) is either deleted before
 * or kept whole.
 */
export async function deleteSettledWebhookMessages(db: Kysely<DB>, dialect: DialectName, beforeIso: string, limit: number): Promise<number> {
  return db.transaction().execute(async (tx) => {
    // One status at a time: equality on the index's first column keeps its order by last_attempt_at.
    const ids: string[] = [];
    for (const status of ['delivered', 'dead']) {
      if (ids.length >= limit) break;
      let settled = tx
        .selectFrom('webhook_messages')
        .select('id')
        .where('status', '=', status)
        .where('last_attempt_at', '<', beforeIso)
        .orderBy('last_attempt_at')
        .limit(limit - ids.length);
      if (dialect === 'postgres') settled = settled.forUpdate().skipLocked();
      for (const r of await settled.execute()) ids.push(r.id);
    }
    if (ids.length === 0) return 0;
    // Chunked: SQLite caps the number of bound parameters per statement.
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await tx.deleteFrom('webhook_attempts').where('message_id', 'in', chunk).execute();
      const result = await tx.deleteFrom('webhook_messages').where('id', 'in', chunk).where('status', 'in', ['delivered', 'dead']).executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  });
}

/** Deletes up to `limit` outbox events fanned out before `beforeIso`; unpublished events stay. */
export async function deletePublishedOutboxEvents(db: Executor, beforeIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('outbox_events').select('id').where('published_at', '<', beforeIso).orderBy('published_at').limit(limit);
  const result = await db.deleteFrom('outbox_events').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The daily usage aggregates (requests, errors by code, routes, latency), all keyed by UTC day. */
export const USAGE_TABLES = ['usage_daily', 'usage_daily_errors', 'usage_daily_routes', 'usage_daily_latency'] as const;
export type UsageTable = (typeof USAGE_TABLES)[number];

/** Deletes up to `limit` rows of one usage aggregate for days before `beforeDay` (YYYY-MM-DD). */
export async function deleteUsageDaysBefore(db: Executor, table: UsageTable, beforeDay: string, limit: number): Promise<number> {
  // Each table's primary key starts with (key_id, day): a row is named by its whole key.
  let result;
  switch (table) {
    case 'usage_daily': {
      const old = db.selectFrom('usage_daily').select(['key_id', 'day']).where('day', '<', beforeDay).orderBy('day').limit(limit).$asTuple('key_id', 'day');
      result = await db.deleteFrom('usage_daily').where((eb) => eb(eb.refTuple('key_id', 'day'), 'in', old)).executeTakeFirst();
      break;
    }
    case 'usage_daily_errors': {
      const old = db.selectFrom('usage_daily_errors').select(['key_id', 'day', 'code']).where('day', '<', beforeDay).orderBy('day').limit(limit).$asTuple('key_id', 'day', 'code');
      result = await db.deleteFrom('usage_daily_errors').where((eb) => eb(eb.refTuple('key_id', 'day', 'code'), 'in', old)).executeTakeFirst();
      break;
    }
    case 'usage_daily_routes': {
      const old = db.selectFrom('usage_daily_routes').select(['key_id', 'day', 'method', 'route']).where('day', '<', beforeDay).orderBy('day').limit(limit).$asTuple('key_id', 'day', 'method', 'route');
      result = await db.deleteFrom('usage_daily_routes').where((eb) => eb(eb.refTuple('key_id', 'day', 'method', 'route'), 'in', old)).executeTakeFirst();
      break;
    }
    case 'usage_daily_latency': {
      const old = db.selectFrom('usage_daily_latency').select(['key_id', 'day', 'bucket']).where('day', '<', beforeDay).orderBy('day').limit(limit).$asTuple('key_id', 'day', 'bucket');
      result = await db.deleteFrom('usage_daily_latency').where((eb) => eb(eb.refTuple('key_id', 'day', 'bucket'), 'in', old)).executeTakeFirst();
      break;
    }
  }
  return Number(result.numDeletedRows);
}

/**
 * Deletes up to `limit` firm invitations whose link expired before `beforeIso`, whatever became
 * of them (accepted, revoked or never used): the membership is the lasting record.
 */
export async function deleteExpiredFirmInvitations(db: Executor, beforeIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('firm_invitations').select('id').where('expires_at', '<', beforeIso).orderBy('expires_at').limit(limit);
  const result = await db.deleteFrom('firm_invitations').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}
