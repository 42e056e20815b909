/** Idempotency-Key records (scope + key → fingerprint and stored outcome). */
import type { IdempotencyKeyTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** Creates the in-progress claim; false when a record for (scope, key) exists. */
export async function tryClaimIdempotencyKey(db: Executor, row: IdempotencyKeyTable): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['scope', 'key']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export function findIdempotencyKey(db: Executor, scope: string, key: string): Promise<IdempotencyKeyTable | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
}

/** Takes over a claim whose lease lapsed (its process died); true when this call got it. */
export async function takeOverLapsedClaim(db: Executor, scope: string, key: string, nowIso: string, lockedUntil: string): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ locked_until: lockedUntil })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('state', '=', 'in_progress')
    .where('locked_until', '<=', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Stores the outcome of an in-progress claim; false when the claim is no longer in progress
 * (another request, which took over a lapsed lease, completed it first).
 */
export async function completeIdempotencyKey(
  db: Executor,
  scope: string,
  key: string,
  outcome: { status: number; body: string; headers: string },
): Promise<boolean> {
  const result = await db
    .updateTable('idempotency_keys')
    .set({ state: 'completed', locked_until: null, response_status: outcome.status, response_body: outcome.body, response_headers: outcome.headers })
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('state', '=', 'in_progress')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Stores the outcome of (scope, key) inside the caller's transaction — the one that made the
 * hold — so the key is claimed and completed by one commit: inserted, or written over a record
 * past the replay window (`staleBefore`) or an in-progress claim whose lease lapsed (a process
 * that died). False when another record holds the key: a concurrent request with the same key
 * committed first (on PostgreSQL this waits for that request's transaction to end); the caller
 * then rolls back and answers from that record.
 */
export async function storeIdempotentOutcome(db: Executor, row: IdempotencyKeyTable, staleBefore: string, nowIso: string): Promise<boolean> {
  const result = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['scope', 'key'])
        .doUpdateSet({
          fingerprint: row.fingerprint,
          state: row.state,
          locked_until: row.locked_until,
          response_status: row.response_status,
          response_body: row.response_body,
          response_headers: row.response_headers,
          created_at: row.created_at,
        })
        .where((eb) =>
          eb.or([
            eb('idempotency_keys.created_at', '<', staleBefore),
            eb.and([eb('idempotency_keys.state', '=', 'in_progress'), eb('idempotency_keys.locked_until', '<=', nowIso)]),
          ]),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Drops a claim whose outcome is not stored (validation, auth, limits, server errors). */
export async function deleteIdempotencyClaim(db: Executor, scope: string, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('state', '=', 'in_progress').execute();
}

/** Deletes the record of (scope, key) if it was created before `beforeIso` (past the replay window). */
export async function deleteStaleIdempotencyKey(db: Executor, scope: string, key: string, beforeIso: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('scope', '=', scope).where('key', '=', key).where('created_at', '<', beforeIso).execute();
}

/** Deletes up to `limit` records created before `beforeIso` (one bounded batch, oldest index range first); returns how many. */
export async function purgeIdempotencyKeysBefore(db: Executor, beforeIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('idempotency_keys').select(['scope', 'key']).where('created_at', '<', beforeIso).orderBy('created_at').limit(limit).$asTuple('scope', 'key');
  const result = await db.deleteFrom('idempotency_keys').where((eb) => eb(eb.refTuple('scope', 'key'), 'in', old)).executeTakeFirst();
  return Number(result.numDeletedRows);
}
