/**
 * Webhook endpoints, messages and attempts, and the outbox fan-out.
 *
 * Claiming is what keeps several dispatcher processes from sending the same attempt twice: a
 * message is sent only by the process whose conditional UPDATE set its lease (`locked_until`,
 * `claim_token`); on PostgreSQL the rows to claim are also locked FOR UPDATE SKIP LOCKED so that
 * concurrent claimers pass over each other's rows instead of waiting for them. A claim whose
 * process died lapses at `locked_until`, and the message is claimed (and sent) again.
 */
import type { DialectName } from '../database.ts';
import type { OutboxEventTable, WebhookAttemptTable, WebhookEndpointTable, WebhookMessageTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** An endpoint with the email or slug of its owner, for display. */
export interface WebhookEndpointRow extends WebhookEndpointTable {
  owner_email: string | null;
  owner_slug: string | null;
}

/** An attempt joined with its message. */
export interface WebhookAttemptRow extends WebhookAttemptTable {
  event_id: string;
  event_type: string;
  message_status: string;
  next_attempt_at: string | null;
}

/**
 * Whether a transaction failed only because it collided with a concurrent one (PostgreSQL
 * deadlock or serialization failure, SQLite busy) and may simply be run again.
 */
export function isTransientConflict(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return code === '40P01' || code === '40001' || code === 'SQLITE_BUSY';
}

function endpointsWithOwner(db: Executor) {
  return db
    .selectFrom('webhook_endpoints')
    .leftJoin('users', (join) => join.onRef('users.id', '=', 'webhook_endpoints.owner_id').on('webhook_endpoints.owner_type', '=', 'user'))
    .leftJoin('firms', (join) => join.onRef('firms.id', '=', 'webhook_endpoints.owner_id').on('webhook_endpoints.owner_type', '=', 'firm'))
    .selectAll('webhook_endpoints')
    .select(['users.email as owner_email', 'firms.slug as owner_slug']);
}

export async function insertEndpoint(db: Executor, row: WebhookEndpointTable): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

/** One endpoint with its owner's email or slug. */
export function findEndpoint(db: Executor, id: string): Promise<WebhookEndpointRow | undefined> {
  return endpointsWithOwner(db).where('webhook_endpoints.id', '=', id).executeTakeFirst();
}

/** Endpoints, oldest first: all of them, or one owner's. */
export function listEndpoints(db: Executor, owner?: { type: string; id: string }): Promise<WebhookEndpointRow[]> {
  let query = endpointsWithOwner(db);
  if (owner) query = query.where('webhook_endpoints.owner_type', '=', owner.type).where('webhook_endpoints.owner_id', '=', owner.id);
  return query.orderBy('webhook_endpoints.created_at').orderBy('webhook_endpoints.id').execute();
}

/** The endpoints with these ids (secrets included: the dispatcher signs with them). */
export function findEndpointsByIds(db: Executor, ids: readonly string[]): Promise<WebhookEndpointTable[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', [...ids]).execute();
}

/** Every endpoint (enabled or not) of any of these owners: the fan-out's recipients. */
export function endpointsOfOwners(db: Executor, owners: ReadonlyArray<{ type: string; id: string }>): Promise<WebhookEndpointTable[]> {
  if (owners.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('webhook_endpoints')
    .selectAll()
    .where((eb) => eb.or(owners.map((o) => eb.and([eb('owner_type', '=', o.type), eb('owner_id', '=', o.id)]))))
    .execute();
}

/** Messages not yet delivered nor dead, per endpoint. */
export async function countPendingMessages(db: Executor, endpointIds: readonly string[]): Promise<Map<string, number>> {
  if (endpointIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('webhook_messages')
    .select(['endpoint_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('endpoint_id', 'in', [...endpointIds])
    .where('status', '=', 'pending')
    .groupBy('endpoint_id')
    .execute();
  return new Map(rows.map((r) => [r.endpoint_id, Number(r.n)]));
}

/** Replaces the signing secret; the old one keeps signing until `previousExpiresAt`. */
export async function rotateEndpointSecret(db: Executor, id: string, secret: string, previousExpiresAt: string, nowIso: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ previous_secret: eb.ref('secret'), previous_secret_expires_at: previousExpiresAt, secret, updated_at: nowIso }))
    .where('id', '=', id)
    .execute();
}

/** Disables an enabled endpoint; returns it when this call disabled it (exactly one caller does). */
export function disableEndpointIfEnabled(
  db: Executor,
  id: string,
  change: { cause: string; reason: string; nowIso: string },
): Promise<WebhookEndpointTable | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: change.nowIso, disabled_cause: change.cause, disabled_reason: change.reason, updated_at: change.nowIso })
    .where('id', '=', id)
    .where('disabled_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
}

/** Enables an endpoint and resets its failure count. */
export async function enableEndpoint(db: Executor, id: string, nowIso: string): Promise<void> {
  await db
    .updateTable('webhook_endpoints')
    .set({ disabled_at: null, disabled_cause: null, disabled_reason: null, consecutive_failures: 0, updated_at: nowIso })
    .where('id', '=', id)
    .execute();
}

/**
 * Parks the waiting messages of a disabled endpoint (no due time): they keep their attempts and
 * stay out of the due-message scans, however many pile up, until the endpoint is enabled again.
 */
export async function parkWaitingMessages(db: Executor, endpointId: string): Promise<void> {
  await db.updateTable('webhook_messages').set({ next_attempt_at: null }).where('endpoint_id', '=', endpointId).where('status', '=', 'pending').execute();
}

/** Makes every waiting message of an endpoint due now (after re-enabling); returns how many. */
export async function makeWaitingMessagesDue(db: Executor, endpointId: string, nowIso: string): Promise<number> {
  const result = await db
    .updateTable('webhook_messages')
    .set({ next_attempt_at: nowIso })
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** A successful attempt ends the run of consecutive failures. */
export async function resetEndpointFailures(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('webhook_endpoints').set({ consecutive_failures: 0 }).where('id', 'in', [...ids]).where('consecutive_failures', '>', 0).execute();
}

/**
 * Records failed attempts: `add` more consecutive failures, or (when a success came before them
 * in the same batch) `set` the count to the failures since. Returns the new count and whether
 * the endpoint is still enabled.
 */
export async function countEndpointFailures(
  db: Executor,
  id: string,
  change: { add: number } | { set: number },
): Promise<{ failures: number; enabled: boolean } | undefined> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ consecutive_failures: 'add' in change ? eb('consecutive_failures', '+', change.add) : eb.val(change.set) }))
    .where('id', '=', id)
    .returning(['consecutive_failures', 'disabled_at'])
    .executeTakeFirst();
  return row ? { failures: Number(row.consecutive_failures), enabled: row.disabled_at === null } : undefined;
}

/**
 * Up to `limit` outbox events not yet fanned out, oldest first. On PostgreSQL the rows stay
 * locked until the caller's transaction ends and other processes skip them.
 */
export function lockUnpublishedEvents(db: Executor, dialect: DialectName, limit: number): Promise<OutboxEventTable[]> {
  let query = db.selectFrom('outbox_events').selectAll().where('published_at', 'is', null).orderBy('created_at').orderBy('id').limit(limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return query.execute();
}

export async function markEventsPublished(db: Executor, ids: readonly string[], nowIso: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('outbox_events').set({ published_at: nowIso }).where('id', 'in', [...ids]).where('published_at', 'is', null).execute();
}

/** Inserts messages; one already queued for the same (endpoint, event) is kept as it is. */
export async function insertMessages(db: Executor, rows: readonly WebhookMessageTable[]): Promise<void> {
  // Chunked: SQLite caps the number of bound parameters per statement.
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('webhook_messages')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) => oc.columns(['endpoint_id', 'event_id']).doNothing())
      .execute();
  }
}

export function findMessage(db: Executor, id: string): Promise<WebhookMessageTable | undefined> {
  return db.selectFrom('webhook_messages').selectAll().where('id', '=', id).executeTakeFirst();
}

export interface DueCandidate {
  id: string;
  endpoint_id: string;
}

/**
 * Due, unclaimed messages of enabled endpoints, oldest due first, at most `perEndpoint` per
 * endpoint: so that a backlog at one endpoint never fills every slot of a dispatcher.
 */
export function findDueMessages(
  db: Executor,
  options: { nowIso: string; perEndpoint: number; limit: number; excludeEndpointIds: readonly string[] },
): Promise<DueCandidate[]> {
  let due = db
    .selectFrom('webhook_messages as m')
    .innerJoin('webhook_endpoints as e', 'e.id', 'm.endpoint_id')
    .select(['m.id', 'm.endpoint_id', 'm.next_attempt_at'])
    .select((eb) => eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('m.endpoint_id').orderBy('m.next_attempt_at').orderBy('m.id')).as('rank'))
    .where('m.status', '=', 'pending')
    .where('m.next_attempt_at', '<=', options.nowIso)
    .where((eb) => eb.or([eb('m.locked_until', 'is', null), eb('m.locked_until', '<=', options.nowIso)]))
    .where('e.disabled_at', 'is', null);
  if (options.excludeEndpointIds.length > 0) due = due.where('m.endpoint_id', 'not in', [...options.excludeEndpointIds]);
  return db
    .selectFrom(due.as('due'))
    .select(['due.id', 'due.endpoint_id'])
    .where('due.rank', '<=', options.perEndpoint)
    .orderBy('due.next_attempt_at')
    .orderBy('due.id')
    .limit(options.limit)
    .execute();
}

/**
 * Claims the given messages if they are still pending and unclaimed (or their claim lapsed):
 * sets the lease and the claim token and returns the rows this call claimed. A row claimed by
 * someone else meanwhile is not returned.
 */
export function claimMessages(
  db: Executor,
  dialect: DialectName,
  ids: readonly string[],
  claim: { nowIso: string; lockedUntil: string; token: string },
): Promise<WebhookMessageTable[]> {
  if (ids.length === 0) return Promise.resolve([]);
  let lockable = db
    .selectFrom('webhook_messages')
    .select('id')
    .where('id', 'in', [...ids])
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', claim.nowIso)]));
  if (dialect === 'postgres') lockable = lockable.forUpdate().skipLocked();
  return db
    .updateTable('webhook_messages')
    .set({ locked_until: claim.lockedUntil, claim_token: claim.token })
    .where('id', 'in', lockable)
    .where('status', '=', 'pending')
    // Re-checked after any concurrent claim committed (PostgreSQL re-evaluates the row).
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', claim.nowIso)]))
    .returningAll()
    .execute();
}

/** Records attempts; a second record of the same (message, attempt) is dropped. */
export async function insertAttempts(db: Executor, rows: readonly WebhookAttemptTable[]): Promise<void> {
  // Chunked: SQLite caps the number of bound parameters per statement.
  for (let i = 0; i < rows.length; i += 100) {
    await db
      .insertInto('webhook_attempts')
      .values(rows.slice(i, i + 100))
      .onConflict((oc) => oc.columns(['message_id', 'attempt']).doNothing())
      .execute();
  }
}

/**
 * Settles a claimed message after an attempt, only while the claim is still ours (a claim that
 * lapsed and was taken over belongs to the other process). True when it was ours.
 */
export async function settleMessage(
  db: Executor,
  id: string,
  token: string,
  changes: Pick<WebhookMessageTable, 'status' | 'attempts' | 'next_attempt_at' | 'last_attempt_at' | 'delivered_at'>,
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_messages')
    .set({ ...changes, locked_until: null, claim_token: null })
    .where('id', '=', id)
    .where('claim_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives claims back without an attempt (a dispatcher stopping before it sent them). */
export async function releaseClaims(db: Executor, ids: readonly string[], token: string): Promise<void> {
  if (ids.length === 0) return;
  await db
    .updateTable('webhook_messages')
    .set({ locked_until: null, claim_token: null })
    .where('id', 'in', [...ids])
    .where('claim_token', '=', token)
    .execute();
}

/** Where a page of attempts starts: strictly after this attempt in newest-first order. */
export interface AttemptCursor {
  attemptedAt: string;
  attempt: number;
  id: string;
}

/**
 * An endpoint's attempts, newest first, with their messages; with `after`, the attempts that
 * follow that one in this order (keyset paging over the (endpoint_id, attempted_at) index).
 */
export function listAttempts(db: Executor, endpointId: string, limit: number, after?: AttemptCursor): Promise<WebhookAttemptRow[]> {
  let query = db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
    .selectAll('a')
    .select(['m.event_id', 'm.event_type', 'm.status as message_status', 'm.next_attempt_at'])
    .where('a.endpoint_id', '=', endpointId);
  if (after) {
    query = query.where((eb) =>
      eb.or([
        eb('a.attempted_at', '<', after.attemptedAt),
        eb.and([eb('a.attempted_at', '=', after.attemptedAt), eb('a.attempt', '<', after.attempt)]),
        eb.and([eb('a.attempted_at', '=', after.attemptedAt), eb('a.attempt', '=', after.attempt), eb('a.id', '>', after.id)]),
      ]),
    );
  }
  return query.orderBy('a.attempted_at', 'desc').orderBy('a.attempt', 'desc').orderBy('a.id').limit(limit).execute();
}

/** One message's attempts, oldest first. */
export function listMessageAttempts(db: Executor, messageId: string): Promise<WebhookAttemptRow[]> {
  return db
    .selectFrom('webhook_attempts as a')
    .innerJoin('webhook_messages as m', 'm.id', 'a.message_id')
    .selectAll('a')
    .select(['m.event_id', 'm.event_type', 'm.status as message_status', 'm.next_attempt_at'])
    .where('a.message_id', '=', messageId)
    .orderBy('a.attempt')
    .execute();
}

/**
 * Puts a dead message of this endpoint back in the queue, due at `nowIso` (claimed at once when
 * `claim` is given); its attempt count is kept, so the next attempt is numbered after the last.
 * Returns the message when this call re-queued it (only one concurrent caller does).
 */
export function requeueDeadMessage(
  db: Executor,
  endpointId: string,
  messageId: string,
  change: { nowIso: string; claim: { lockedUntil: string; token: string } | null },
): Promise<WebhookMessageTable | undefined> {
  return db
    .updateTable('webhook_messages')
    .set({ status: 'pending', next_attempt_at: change.nowIso, locked_until: change.claim?.lockedUntil ?? null, claim_token: change.claim?.token ?? null })
    .where('id', '=', messageId)
    .where('endpoint_id', '=', endpointId)
    .where('status', '=', 'dead')
    .returningAll()
    .executeTakeFirst();
}
