/**
 * The mail outbox. Sending is claimed like webhook deliveries (webhook.repository.ts): a mail is
 * sent only by the process whose conditional UPDATE set its lease (`locked_until`,
 * `claim_token`); on PostgreSQL the rows to claim are also locked FOR UPDATE SKIP LOCKED, so
 * concurrent senders pass over each other's rows instead of waiting. A claim whose process died
 * lapses at `locked_until` and the mail is claimed (and sent) again.
 */
import type { DialectName } from '../database.ts';
import type { MailOutboxTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** Which queued mails to take: these ids (just enqueued), or up to `limit` due by `dueBy`. */
export type QueuedSelection = { ids: readonly string[] } | { dueBy: string; limit: number };

export async function insertMails(db: Executor, rows: readonly MailOutboxTable[]): Promise<void> {
  // Chunked: SQLite caps the number of bound parameters per statement.
  for (let i = 0; i < rows.length; i += 50) await db.insertInto('mail_outbox').values(rows.slice(i, i + 50)).execute();
}

/** Queued mails of the selection whose claim is free (none, or lapsed by `nowIso`), locked on PostgreSQL. */
function claimable(db: Executor, dialect: DialectName, selection: QueuedSelection, nowIso: string) {
  let query = db
    .selectFrom('mail_outbox')
    .select('id')
    .where('status', '=', 'queued')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]));
  if ('ids' in selection) query = query.where('id', 'in', [...selection.ids]);
  else query = query.where('next_attempt_at', '<=', selection.dueBy).orderBy('next_attempt_at').orderBy('id').limit(selection.limit);
  if (dialect === 'postgres') query = query.forUpdate().skipLocked();
  return query;
}

function isEmpty(selection: QueuedSelection): boolean {
  return 'ids' in selection && selection.ids.length === 0;
}

/**
 * Claims queued mails for sending: sets the lease and the claim token and returns the rows this
 * call claimed (a row claimed by someone else meanwhile is not returned).
 */
export function claimQueuedMails(
  db: Executor,
  dialect: DialectName,
  selection: QueuedSelection,
  claim: { nowIso: string; lockedUntil: string; token: string },
): Promise<MailOutboxTable[]> {
  if (isEmpty(selection)) return Promise.resolve([]);
  return db
    .updateTable('mail_outbox')
    .set({ locked_until: claim.lockedUntil, claim_token: claim.token })
    .where('id', 'in', claimable(db, dialect, selection, claim.nowIso))
    .where('status', '=', 'queued')
    // Re-checked after any concurrent claim committed (PostgreSQL re-evaluates the row).
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', claim.nowIso)]))
    .returningAll()
    .execute();
}

/** Without SMTP: moves queued mails to the local outbox (status `local`) and returns the rows moved. */
export function keepQueuedMailsLocally(db: Executor, dialect: DialectName, selection: QueuedSelection, nowIso: string): Promise<MailOutboxTable[]> {
  if (isEmpty(selection)) return Promise.resolve([]);
  return db
    .updateTable('mail_outbox')
    .set({ status: 'local', next_attempt_at: null, locked_until: null, claim_token: null })
    .where('id', 'in', claimable(db, dialect, selection, nowIso))
    .where('status', '=', 'queued')
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', nowIso)]))
    .returningAll()
    .execute();
}

export type MailSettlement = Pick<MailOutboxTable, 'status' | 'attempts' | 'next_attempt_at' | 'last_error' | 'sent_at'> &
  Partial<Pick<MailOutboxTable, 'text' | 'html' | 'attachments' | 'erased_at'>>;

/**
 * Records the outcome of a send, only while the claim is still ours (a claim that lapsed and was
 * taken over belongs to the other process). True when it was ours.
 */
export async function settleMail(db: Executor, id: string, token: string, changes: MailSettlement): Promise<boolean> {
  const result = await db
    .updateTable('mail_outbox')
    .set({ ...changes, locked_until: null, claim_token: null })
    .where('id', '=', id)
    .where('claim_token', '=', token)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Gives claims back without an attempt (a sender stopping before it sent them). */
export async function releaseMailClaims(db: Executor, ids: readonly string[], token: string): Promise<void> {
  if (ids.length === 0) return;
  await db.updateTable('mail_outbox').set({ locked_until: null, claim_token: null }).where('id', 'in', [...ids]).where('claim_token', '=', token).execute();
}

export function findMail(db: Executor, id: string): Promise<MailOutboxTable | undefined> {
  return db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Mails newest first, all or those to one recipient (in its normal form: email-address.ts). */
export function listMails(db: Executor, options: { recipient?: string; limit: number }): Promise<MailOutboxTable[]> {
  let query = db.selectFrom('mail_outbox').selectAll();
  if (options.recipient !== undefined) query = query.where('recipient', '=', options.recipient);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
}

/** Deletes up to `limit` mails created before `beforeIso` that are no longer queued (one bounded batch); returns how many. */
export async function deleteOldMails(db: Executor, beforeIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('mail_outbox').select('id').where('created_at', '<', beforeIso).where('status', '!=', 'queued').orderBy('created_at').limit(limit);
  const result = await db.deleteFrom('mail_outbox').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}
