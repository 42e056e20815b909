/**
 * The facts behind the developer dashboard's getting-started checklist (docs/dashboard.md#overview):
 * which keys and endpoints count as a person's, and whether their keys have been used. Each
 * question is an existence check on an index, never a count or a scan of the log.
 */
import type { Executor } from './types.ts';

/** The firms a person belongs to now (ids only). */
export async function firmIdsOfUser(db: Executor, userId: string): Promise<string[]> {
  return (await db.selectFrom('firm_memberships').select('firm_id').where('user_id', '=', userId).execute()).map((r) => r.firm_id);
}

/**
 * A person's keys for the checklist, revoked ones included (it records what happened): their
 * personal keys, and the keys they created for a firm they still belong to.
 */
export function checklistKeys(db: Executor, userId: string, firmIds: readonly string[]): Promise<Array<{ id: string; mode: string; kind?: string }>> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'mode', 'kind'])
    .where((eb) =>
      eb.or([
        eb('owner_user_id', '=', userId),
        ...(firmIds.length > 0 ? [eb.and([eb('created_by_user_id', '=', userId), eb('owner_firm_id', 'in', [...firmIds])])] : []),
      ]),
    )
    .execute();
}

/** Whether the person has a webhook endpoint of their own, or created one for a firm they still belong to (disabled ones count). */
export async function hasChecklistEndpoint(db: Executor, userId: string, firmIds: readonly string[]): Promise<boolean> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select('id')
    .where((eb) =>
      eb.or([
        eb.and([eb('owner_type', '=', 'user'), eb('owner_id', '=', userId)]),
        ...(firmIds.length > 0 ? [eb.and([eb('owner_type', '=', 'firm'), eb('owner_id', 'in', [...firmIds]), eb('created_by_user_id', '=', userId)])] : []),
      ]),
    )
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether any of these keys has a request in the log since `sinceIso`: one probe of
 * request_log_key_at (key_id, at) per key at most.
 */
export async function anyLoggedRequest(db: Executor, keyIds: readonly string[], sinceIso: string): Promise<boolean> {
  if (keyIds.length === 0) return false;
  const row = await db.selectFrom('request_log').select('request_id').where('key_id', 'in', [...keyIds]).where('at', '>=', sinceIso).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Whether any of these keys has daily usage (live traffic, kept longer than the log), and with
 * `succeeded` a day with a request that was not an error (status below 400).
 */
export async function anyUsage(db: Executor, keyIds: readonly string[], options: { succeeded?: boolean } = {}): Promise<boolean> {
  if (keyIds.length === 0) return false;
  let query = db.selectFrom('usage_daily').select('key_id').where('key_id', 'in', [...keyIds]);
  if (options.succeeded) query = query.whereRef('requests', '>', 'errors');
  return (await query.limit(1).executeTakeFirst()) !== undefined;
}

/** When the person first saw a request of theirs in the request log, or null. */
export async function findRequestLogSeenAt(db: Executor, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('request_log_seen_at').where('id', '=', userId).executeTakeFirst();
  return row?.request_log_seen_at ?? null;
}

/** Records the first time only: a later visit never moves it. */
export async function markRequestLogSeen(db: Executor, userId: string, atIso: string): Promise<void> {
  await db.updateTable('users').set({ request_log_seen_at: atIso }).where('id', '=', userId).where('request_log_seen_at', 'is', null).execute();
}
