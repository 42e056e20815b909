/** Passkeys, their owners' user handles, and single-use WebAuthn challenges. */
import type { PasskeyChallengeTable, PasskeyTable } from '../schema.ts';
import type { Executor } from './types.ts';

export function findUserHandle(db: Executor, userId: string): Promise<string | undefined> {
  return db
    .selectFrom('passkey_user_handles')
    .select('handle')
    .where('user_id', '=', userId)
    .executeTakeFirst()
    .then((r) => r?.handle);
}

/** Stores the handle unless the user has one already (two tabs at once): the first one stays. */
export async function insertUserHandle(db: Executor, row: { user_id: string; handle: string; created_at: string }): Promise<void> {
  await db.insertInto('passkey_user_handles').values(row).onConflict((oc) => oc.column('user_id').doNothing()).execute();
}

export function listPasskeysOfUser(db: Executor, userId: string): Promise<PasskeyTable[]> {
  return db.selectFrom('passkeys').selectAll().where('user_id', '=', userId).orderBy('created_at', 'asc').orderBy('id', 'asc').execute();
}

export async function countPasskeysOfUser(db: Executor, userId: string): Promise<number> {
  const row = await db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findPasskeyByCredentialId(db: Executor, credentialId: string): Promise<PasskeyTable | undefined> {
  return db.selectFrom('passkeys').selectAll().where('credential_id', '=', credentialId).executeTakeFirst();
}

/** One passkey of this user (someone else's id finds nothing). */
export function findPasskeyOfUser(db: Executor, userId: string, id: string): Promise<PasskeyTable | undefined> {
  return db.selectFrom('passkeys').selectAll().where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
}

export async function insertPasskey(db: Executor, row: PasskeyTable): Promise<void> {
  await db.insertInto('passkeys').values(row).execute();
}

/**
 * Records a successful use: the new counter (only forwards — two concurrent uses of one counter
 * value cannot both pass), the backup state and the time. True when this call moved it.
 */
export async function recordPasskeyUse(db: Executor, id: string, use: { counter: number; previous: number; backedUp: boolean; nowIso: string }): Promise<boolean> {
  let query = db.updateTable('passkeys').set({ counter: use.counter, backed_up: use.backedUp ? 1 : 0, last_used_at: use.nowIso }).where('id', '=', id);
  // Authenticators that keep no counter always report 0 (synced passkeys): nothing to compare.
  if (use.counter > 0 || use.previous > 0) query = query.where('counter', '<', use.counter);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function renamePasskey(db: Executor, userId: string, id: string, name: string): Promise<boolean> {
  const result = await db.updateTable('passkeys').set({ name }).where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deletePasskey(db: Executor, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('passkeys').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}

export async function insertPasskeyChallenge(db: Executor, row: PasskeyChallengeTable): Promise<void> {
  await db.insertInto('passkey_challenges').values(row).execute();
}

/**
 * Uses up a live challenge of this purpose (and session, when bound to one): exactly one caller
 * gets the row back, later ones — a replay — get nothing.
 */
export function consumePasskeyChallenge(
  db: Executor,
  where: { challenge: string; purpose: string; sessionId: string | null },
  nowIso: string,
): Promise<PasskeyChallengeTable | undefined> {
  let query = db
    .updateTable('passkey_challenges')
    .set({ consumed_at: nowIso })
    .where('challenge', '=', where.challenge)
    .where('purpose', '=', where.purpose)
    .where('consumed_at', 'is', null)
    .where('expires_at', '>', nowIso);
  query = where.sessionId === null ? query.where('session_id', 'is', null) : query.where('session_id', '=', where.sessionId);
  return query.returningAll().executeTakeFirst();
}

/** Deletes up to `limit` challenges that expired before `beforeIso`; returns how many. */
export async function purgePasskeyChallenges(db: Executor, beforeIso: string, limit: number): Promise<number> {
  // Ordered by the indexed column so that PostgreSQL walks passkey_challenges_expiry, not the table.
  const old = db.selectFrom('passkey_challenges').select('id').where('expires_at', '<', beforeIso).orderBy('expires_at').limit(limit);
  const result = await db.deleteFrom('passkey_challenges').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** When a session began and last proved a passkey (adding a passkey needs one of them recent). */
export function findSessionTimes(db: Executor, sessionId: string): Promise<{ created_at: string; step_up_at: string | null } | undefined> {
  return db.selectFrom('sessions').select(['created_at', 'step_up_at']).where('id', '=', sessionId).where('revoked_at', 'is', null).executeTakeFirst();
}

export async function isOperator(db: Executor, userId: string): Promise<boolean> {
  return (await db.selectFrom('operators').select('user_id').where('user_id', '=', userId).executeTakeFirst()) !== undefined;
}

/**
 * Serialises changes to one person's passkeys inside a transaction: the row of their user handle
 * is locked on PostgreSQL (SQLite runs one write transaction at a time anyway).
 */
export async function lockUserHandle(db: Executor, dialect: 'sqlite' | 'postgres', userId: string): Promise<void> {
  if (dialect !== 'postgres') return;
  await db.selectFrom('passkey_user_handles').select('user_id').where('user_id', '=', userId).forUpdate().execute();
}
