/**
 * Deleting a person's account (src/domain/identity/account-deletion.service.ts): what it counts
 * beforehand, and every erasure, anonymisation and revocation it makes in its one transaction.
 * Each function touches one table and says what it keeps; docs/site.md#deleting-an-account has
 * the table-by-table decisions and why.
 */
import { sql } from 'kysely';
import type { DialectName } from '../database.ts';
import type { BookingIntentTable } from '../schema.ts';
import type { Executor } from './types.ts';

const count = (result: { numDeletedRows?: bigint; numUpdatedRows?: bigint }) => Number(result.numDeletedRows ?? result.numUpdatedRows ?? 0n);

/**
 * The person's holds that are still waiting (pending): those an AI app made for them, and those
 * they were paying (an unfinished payment attempt of theirs). Marked expired now, as the expiry
 * sweep would at their deadline, and returned: the caller releases their slots. The status guard
 * makes the change once; on PostgreSQL the update waits for a confirmation in progress on the
 * same intent, which then wins (and the deletion sees its consultation).
 */
export function expirePendingIntentsOfUser(db: Executor, userId: string, nowIso: string): Promise<BookingIntentTable[]> {
  const paying = db.selectFrom('payment_attempts').select('booking_intent_id').where('user_id', '=', userId).where('status', 'in', ['open', 'authorized']);
  return db
    .updateTable('booking_intents')
    .set({ status: 'expired', expired_at: nowIso })
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('held_for_user_id', '=', userId), eb('id', 'in', paying)]))
    .returningAll()
    .execute();
}

/**
 * Erases the client address kept on the person's booking intents (held for them by an AI app, or
 * confirmed by them). Nothing reads it after creation; the intent itself is a booking record and stays.
 */
export async function eraseIntentAddressesOfUser(db: Executor, userId: string): Promise<number> {
  const result = await db
    .updateTable('booking_intents')
    .set({ client_ip: '' })
    .where((eb) => eb.or([eb('held_for_user_id', '=', userId), eb('confirmed_by_user_id', '=', userId)]))
    .where('client_ip', '!=', '')
    .executeTakeFirst();
  return count(result);
}

/**
 * Erases what the person wrote or chose on the hold page — the note for the lawyer (and its
 * language label), the phone number, their time zone, the name and languages the lawyer was shown
 * and their answer to a language mismatch — from their intents and their kept consultations
 * (issues 20 and 26); the format stays with the booking record.
 */
export async function erasePurchaseChoicesOfUser(db: Executor, userId: string): Promise<number> {
  const intents = await db
    .updateTable('booking_intents')
    .set({ note: null, phone_e164: null, person_timezone: null, person_name: null, person_languages: null, language_ack: null, note_language: null })
    .where((eb) => eb.or([eb('held_for_user_id', '=', userId), eb('confirmed_by_user_id', '=', userId)]))
    .where((eb) => eb.or([eb('note', 'is not', null), eb('phone_e164', 'is not', null), eb('person_timezone', 'is not', null), eb('person_name', 'is not', null), eb('person_languages', 'is not', null)]))
    .executeTakeFirst();
  const consultations = await db
    .updateTable('consultations')
    .set({ note: null, phone_e164: null, person_timezone: null, person_name: null, person_languages: null, language_ack: null, note_language: null })
    .where('user_id', '=', userId)
    .where((eb) => eb.or([eb('note', 'is not', null), eb('phone_e164', 'is not', null), eb('person_timezone', 'is not', null), eb('person_name', 'is not', null), eb('person_languages', 'is not', null)]))
    .executeTakeFirst();
  return count(intents) + count(consultations);
}

/** Deletes every site session of the user, ended or not (they hold its addresses and browsers). */
export async function deleteSessionsOfUser(db: Executor, userId: string): Promise<number> {
  return count(await db.deleteFrom('sessions').where('user_id', '=', userId).executeTakeFirst());
}

/** Deletes the sign-in challenges asked for this address (they hold a client address and a return path). */
export async function deleteChallengesOfEmail(db: Executor, email: string): Promise<number> {
  return count(await db.deleteFrom('sign_in_challenges').where('email', '=', email).executeTakeFirst());
}

/** Deletes the user's passkeys, their WebAuthn user handle and their unfinished ceremonies; returns the passkeys deleted. */
export async function deletePasskeysOfUser(db: Executor, userId: string): Promise<number> {
  const sessions = db.selectFrom('sessions').select('id').where('user_id', '=', userId);
  await db
    .deleteFrom('passkey_challenges')
    .where((eb) => eb.or([eb('user_id', '=', userId), eb('session_id', 'in', sessions)]))
    .execute();
  const passkeys = count(await db.deleteFrom('passkeys').where('user_id', '=', userId).executeTakeFirst());
  await db.deleteFrom('passkey_user_handles').where('user_id', '=', userId).execute();
  return passkeys;
}

/**
 * Deletes every authorization-server object of the person: their grants (connected apps) and every
 * token and code of those grants, their login sessions, interactions. Returns the grant ids (the
 * caller forgets cached answers for them) and how many objects went.
 */
export async function deleteOAuthRecordsOfAccount(db: Executor, userId: string): Promise<{ grantIds: string[]; deleted: number }> {
  const grants = await db.selectFrom('oauth_records').select('id').where('model', '=', 'Grant').where('account_id', '=', userId).execute();
  const grantIds = grants.map((g) => g.id);
  let deleted = 0;
  if (grantIds.length > 0) deleted += count(await db.deleteFrom('oauth_records').where('grant_id', 'in', grantIds).executeTakeFirst());
  deleted += count(await db.deleteFrom('oauth_records').where('account_id', '=', userId).executeTakeFirst());
  return { grantIds, deleted };
}

/**
 * Revokes the user's own API keys that still work, and erases what they wrote on every key of
 * theirs (its name, its address allow-list). The rows stay: the request log and the usage
 * figures refer to them, and a revoked key never authenticates. Returns the keys revoked now.
 */
export async function revokeApiKeysOfUser(db: Executor, userId: string, nowIso: string): Promise<number> {
  const revoked = count(await db.updateTable('api_keys').set({ revoked_at: nowIso }).where('owner_user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirst());
  await db.updateTable('api_keys').set({ name: null, allowed_ips: null }).where('owner_user_id', '=', userId).execute();
  return revoked;
}

/**
 * Disables the user's own webhook endpoints (as `webhooks disable` does, cause `manual`) and ends
 * their waiting messages (dead, so the webhook retention purges them with their attempts).
 * Returns the endpoints disabled now.
 */
export async function disableEndpointsOfUser(db: Executor, userId: string, reason: string, nowIso: string): Promise<number> {
  const owned = db.selectFrom('webhook_endpoints').select('id').where('owner_type', '=', 'user').where('owner_id', '=', userId);
  const disabled = count(
    await db
      .updateTable('webhook_endpoints')
      .set({ disabled_at: nowIso, disabled_cause: 'manual', disabled_reason: reason, updated_at: nowIso })
      .where('owner_type', '=', 'user')
      .where('owner_id', '=', userId)
      .where('disabled_at', 'is', null)
      .executeTakeFirst(),
  );
  await db
    .updateTable('webhook_messages')
    .set({ status: 'dead', next_attempt_at: null, locked_until: null, claim_token: null, last_attempt_at: nowIso })
    .where('endpoint_id', 'in', owned)
    .where('status', '=', 'pending')
    .execute();
  return disabled;
}

/** Deletes the notifications addressed to the user (notices about them, sent to others, stay). */
export async function deleteNotificationsOfUser(db: Executor, userId: string): Promise<number> {
  return count(await db.deleteFrom('notifications').where('user_id', '=', userId).executeTakeFirst());
}

/** Deletes mail to this address that is still waiting to be sent. */
export async function deleteQueuedMailTo(db: Executor, recipient: string): Promise<number> {
  return count(await db.deleteFrom('mail_outbox').where('recipient', '=', recipient).where('status', '=', 'queued').executeTakeFirst());
}

/**
 * Erases the mail already sent (or kept, or failed) to this address: its text, HTML and
 * attachments, and the address itself (replaced by `tombstone`). The row (kind, subject, times)
 * stays until the mail retention purges it. Returns how many.
 */
export async function eraseMailTo(db: Executor, recipient: string, tombstone: string, nowIso: string): Promise<number> {
  const result = await db
    .updateTable('mail_outbox')
    .set({ recipient: tombstone, text: '', html: null, attachments: '[]', erased_at: nowIso })
    .where('recipient', '=', recipient)
    .where('status', '!=', 'queued')
    .executeTakeFirst();
  return count(result);
}

/**
 * Replaces the address on the firm invitations this user accepted (the membership was the lasting
 * record; the invitation row is purged 30 days after its link expired anyway).
 */
export async function eraseAcceptedInvitationAddresses(db: Executor, userId: string, tombstone: string): Promise<number> {
  return count(await db.updateTable('firm_invitations').set({ email: tombstone }).where('accepted_by_user_id', '=', userId).executeTakeFirst());
}

/**
 * The person's reviews and reports of reviews stay (published as a verified consultation, not
 * under a name; the moderation record), the link to the account goes (DELETION_DECISIONS).
 */
export async function anonymiseReviewsOfUser(db: Executor, userId: string): Promise<{ reviews: number; reports: number }> {
  const reviews = count(await db.updateTable('reviews').set({ user_id: null }).where('user_id', '=', userId).executeTakeFirst());
  const reports = count(await db.updateTable('review_reports').set({ user_id: null }).where('user_id', '=', userId).executeTakeFirst());
  return { reviews, reports };
}

/**
 * Anonymises the user row: the address becomes `tombstone` (so the address may sign up again, as a
 * new account), the name and language go. The row and its id stay, for the records that are kept
 * (consultations, payments, revoked keys) to keep pointing somewhere.
 */
export async function anonymiseUser(db: Executor, userId: string, tombstone: string): Promise<boolean> {
  await db.deleteFrom('user_languages').where('user_id', '=', userId).execute();
  return count(await db.updateTable('users').set({ email: tombstone, name: null, locale: null }).where('id', '=', userId).executeTakeFirst()) === 1;
}

/** What is kept of the person's bookings and payments, counted for the confirmation. */
export async function countKeptRecordsOfUser(db: Executor, userId: string): Promise<{ consultations: number; payments: number }> {
  const [consultations, payments] = await Promise.all([
    db.selectFrom('consultations').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
    db.selectFrom('payment_attempts').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
  ]);
  return { consultations: Number(consultations.n), payments: Number(payments.n) };
}

/** What deleting would end or erase, counted for the page that asks first. */
export async function countOwnedByUser(
  db: Executor,
  userId: string,
  nowIso: string,
): Promise<{ sessions: number; passkeys: number; apps: number; keys: number; endpoints: number }> {
  const n = (row: { n: number | string }) => Number(row.n);
  const [sessions, passkeys, apps, keys, endpoints] = await Promise.all([
    db.selectFrom('sessions').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).where('revoked_at', 'is', null).where('expires_at', '>', nowIso).executeTakeFirstOrThrow(),
    db.selectFrom('passkeys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('user_id', '=', userId).executeTakeFirstOrThrow(),
    db.selectFrom('oauth_records').select((eb) => eb.fn.countAll<number | string>().as('n')).where('model', '=', 'Grant').where('account_id', '=', userId).executeTakeFirstOrThrow(),
    db.selectFrom('api_keys').select((eb) => eb.fn.countAll<number | string>().as('n')).where('owner_user_id', '=', userId).where('revoked_at', 'is', null).executeTakeFirstOrThrow(),
    db.selectFrom('webhook_endpoints').select((eb) => eb.fn.countAll<number | string>().as('n')).where('owner_type', '=', 'user').where('owner_id', '=', userId).where('disabled_at', 'is', null).executeTakeFirstOrThrow(),
  ]);
  return { sessions: n(sessions), passkeys: n(passkeys), apps: n(apps), keys: n(keys), endpoints: n(endpoints) };
}

/** When a session was opened and last proved a passkey, if it is this user's and not ended by sign-out. */
export function findLiveSessionOfUser(db: Executor, sessionId: string, userId: string): Promise<{ created_at: string; step_up_at: string | null; expires_at: string } | undefined> {
  return db
    .selectFrom('sessions')
    .select(['created_at', 'step_up_at', 'expires_at'])
    .where('id', '=', sessionId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/**
 * The lawyer record linked to this user (a lawyer signs in as a user: `lawyers.user_id`, added by
 * the lawyers' side), or null. A schema without that column has no linked lawyers; the check is
 * made on the live schema so this code is right before and after that migration.
 */
export async function findLinkedLawyerId(db: Executor, dialect: DialectName, userId: string): Promise<string | null> {
  const column =
    dialect === 'sqlite'
      ? await sql<{ name: string }>`select name from pragma_table_info('lawyers') where name = 'user_id'`.execute(db)
      : await sql<{ name: string }>`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = 'lawyers' and column_name = 'user_id'`.execute(db);
  if (column.rows.length === 0) return null;
  const row = await sql<{ id: string }>`select id from lawyers where user_id = ${userId} limit 1`.execute(db);
  return row.rows[0]?.id ?? null;
}
