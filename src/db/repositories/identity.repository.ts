/** Sign-in challenges and sessions. Guarded updates make each transition happen once. */
import type { SqlBool } from 'kysely';
import type { SessionTable, SignInChallengeTable, UserTable } from '../schema.ts';
import type { Executor } from './types.ts';

export async function insertChallenge(db: Executor, row: SignInChallengeTable): Promise<void> {
  await db.insertInto('sign_in_challenges').values(row).execute();
}

export function findChallenge(db: Executor, id: string): Promise<SignInChallengeTable | undefined> {
  return db.selectFrom('sign_in_challenges').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findChallengeByLink(db: Executor, linkHash: string): Promise<SignInChallengeTable | undefined> {
  return db.selectFrom('sign_in_challenges').selectAll().where('link_hash', '=', linkHash).executeTakeFirst();
}

/**
 * Counts one wrong code, only while the challenge is live; returns the attempts now used, or
 * undefined when it was no longer live (used, expired or locked meanwhile).
 */
export async function countWrongAttempt(db: Executor, id: string, nowIso: string, maxAttempts: number): Promise<number | undefined> {
  const row = await db
    .updateTable('sign_in_challenges')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .where('attempts', '<', maxAttempts)
    .where('expires_at', '>', nowIso)
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

/** Consumes a live challenge; true for the one caller that did (concurrent attempts: exactly one wins). */
export async function consumeChallenge(db: Executor, id: string, nowIso: string, maxAttempts: number): Promise<boolean> {
  const result = await db
    .updateTable('sign_in_challenges')
    .set({ consumed_at: nowIso })
    .where('id', '=', id)
    .where('consumed_at', 'is', null)
    .where('attempts', '<', maxAttempts)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertSession(db: Executor, row: SessionTable): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

/**
 * `has_developer_work`: the person has an API key of their own, a webhook endpoint of their own or
 * a firm membership (0/1 in SQLite, a boolean in PostgreSQL). Three existence probes on indexes
 * (api_keys_owner_user, webhook_endpoints_owner, firm_memberships_user).
 */
export type SessionWithUser = SessionTable & Pick<UserTable, 'email' | 'name' | 'locale'> & { operator_since: string | null; lawyer_id: string | null; has_developer_work: SqlBool };

export function findSessionByTokenHash(db: Executor, tokenHash: string): Promise<SessionWithUser | undefined> {
  return db
    .selectFrom('sessions as s')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .leftJoin('operators as o', 'o.user_id', 's.user_id')
    // lawyers.user_id is unique: at most one row, so the session is never repeated.
    .leftJoin('lawyers as l', 'l.user_id', 's.user_id')
    .selectAll('s')
    .select(['u.email', 'u.name', 'u.locale', 'o.added_at as operator_since', 'l.id as lawyer_id'])
    .select((eb) =>
      eb
        .or([
          eb.exists(eb.selectFrom('api_keys as k').select('k.id').whereRef('k.owner_user_id', '=', 's.user_id')),
          eb.exists(eb.selectFrom('webhook_endpoints as w').select('w.id').where('w.owner_type', '=', 'user').whereRef('w.owner_id', '=', 's.user_id')),
          eb.exists(eb.selectFrom('firm_memberships as m').select('m.firm_id').whereRef('m.user_id', '=', 's.user_id')),
        ])
        .as('has_developer_work'),
    )
    .where('s.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchSession(db: Executor, id: string, nowIso: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: nowIso }).where('id', '=', id).execute();
}

/** Revokes the session of this token hash if it is not already; returns its user, or undefined. */
export async function revokeSessionByTokenHash(db: Executor, tokenHash: string, nowIso: string): Promise<string | undefined> {
  const row = await db.updateTable('sessions').set({ revoked_at: nowIso }).where('token_hash', '=', tokenHash).where('revoked_at', 'is', null).returning('user_id').executeTakeFirst();
  return row?.user_id;
}

export async function revokeSessionsOfUser(db: Executor, userId: string, nowIso: string): Promise<number> {
  const result = await db.updateTable('sessions').set({ revoked_at: nowIso }).where('user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function setUserLocale(db: Executor, userId: string, locale: string): Promise<void> {
  await db.updateTable('users').set({ locale }).where('id', '=', userId).execute();
}

/**
 * Deletes up to `limit` challenges that ended before `endedBefore`, and up to `limit` sessions of
 * each kind of end: past their expiry or revoked before `endedBefore`, last seen before
 * `idleBefore`; returns how many.
 */
export async function purgeEndedIdentityRows(db: Executor, cutoffs: { endedBefore: string; idleBefore: string }, limit: number): Promise<number> {
  // Each selection is ordered by its indexed column (0009, 0019) so that the planner walks that
  // index rather than the table: a sequential scan would reread the rows earlier batches deleted.
  const challenges = db.selectFrom('sign_in_challenges').select('id').where('expires_at', '<', cutoffs.endedBefore).orderBy('expires_at').limit(limit);
  let deleted = Number((await db.deleteFrom('sign_in_challenges').where('id', 'in', challenges).executeTakeFirst()).numDeletedRows);
  // A session ends in one of three ways; one bounded delete for each (an OR of the three cannot use an index order).
  const ended = [
    db.selectFrom('sessions').select('id').where('expires_at', '<', cutoffs.endedBefore).orderBy('expires_at').limit(limit),
    db.selectFrom('sessions').select('id').where('revoked_at', '<', cutoffs.endedBefore).orderBy('revoked_at').limit(limit),
    db.selectFrom('sessions').select('id').where('last_seen_at', '<', cutoffs.idleBefore).orderBy('last_seen_at').limit(limit),
  ];
  for (const selection of ended) deleted += Number((await db.deleteFrom('sessions').where('id', 'in', selection).executeTakeFirst()).numDeletedRows);
  return deleted;
}

/** Records that this session has just proved a passkey (sign-in with one, or a step-up). */
export async function markSessionSteppedUp(db: Executor, id: string, nowIso: string): Promise<void> {
  await db.updateTable('sessions').set({ step_up_at: nowIso }).where('id', '=', id).execute();
}
