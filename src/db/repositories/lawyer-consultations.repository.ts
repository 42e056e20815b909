/**
 * A lawyer's consultations as she sees them (her list, her bookings feed), her cancellations and
 * the refunds they start (docs/lawyers.md#her-bookings, #cancelling-by-the-lawyer). Every read
 * and write names the lawyer: another lawyer's consultation id finds nothing.
 */
import { sql } from 'kysely';
import type { ConsultationFormat, ConsultationRefundTable, LanguageAck, ConsultationStatus, PaymentAttemptTable } from '../schema.ts';
import type { Executor } from './types.ts';

export interface LawyerSelfRow {
  id: string;
  name: string;
  timezone: string;
  contact_email: string | null;
}

/** The lawyer record linked to this account (lawyers.user_id is unique), if any. */
export function findLawyerOfUser(db: Executor, userId: string): Promise<LawyerSelfRow | undefined> {
  return db.selectFrom('lawyers').select(['id', 'name', 'timezone', 'contact_email']).where('user_id', '=', userId).executeTakeFirst();
}

export interface LawyerConsultationRow {
  id: string;
  booking_intent_id: string;
  lawyer_id: string;
  lawyer_name: string;
  lawyer_timezone: string;
  /** How she is named (0034): the person's emails word her by it. */
  lawyer_form_of_address?: 'female' | 'male' | 'neutral' | null;
  city_name: string | null;
  consultation_fee_cents: number;
  platform_commission_percent: number;
  slot_date: string;
  start_time: string;
  end_time: string;
  status: ConsultationStatus;
  status_reason: string | null;
  status_changed_at: string | null;
  ics_sequence: number;
  /** How many times the person moved it (0034; capped by MAX_MOVES). */
  move_count?: number;
  created_at: string;
  confirmed_at: string | null;
  confirmation_token: string;
  person_id: string;
  person_email: string;
  person_name: string | null;
  person_locale: string | null;
  /** Her contact address (her notices go there), if any. */
  lawyer_email: string | null;
  /** The language chosen on the site at booking (0033): the person's emails when their account has none. */
  consultation_locale: string | null;
  // -- what the person chose on the hold page (0033) --
  format?: ConsultationFormat | null;
  note?: string | null;
  phone_e164?: string | null;
  // -- who comes, as they booked (0034) --
  /** The name they gave when booking (else `person_name`, their account's). */
  booked_name?: string | null;
  /** JSON array of ISO 639-1 codes. */
  person_languages?: string | null;
  language_ack?: LanguageAck | null;
  note_language?: string | null;
  /** Her meeting link (video consultations). */
  video_url?: string | null;
  /** Whether her feed may carry phone numbers and notes (0034; default off). */
  feed_private_details?: number;
}

function base(db: Executor) {
  return db
    .selectFrom('consultations as c')
    .innerJoin('lawyers as l', 'l.id', 'c.lawyer_id')
    .innerJoin('booking_intents as i', 'i.id', 'c.booking_intent_id')
    .innerJoin('users as u', 'u.id', 'c.user_id')
    .leftJoin('cities as ct', 'ct.slug', 'l.city_slug')
    .select([
      'c.id',
      'c.booking_intent_id',
      'c.lawyer_id',
      'l.name as lawyer_name',
      'l.timezone as lawyer_timezone',
      'l.form_of_address as lawyer_form_of_address',
      'ct.name as city_name',
      'l.consultation_fee_cents',
      'l.platform_commission_percent',
      'c.slot_date',
      'c.start_time',
      'c.end_time',
      'c.status',
      'c.status_reason',
      'c.status_changed_at',
      'c.ics_sequence',
      'c.move_count',
      'c.created_at',
      'i.confirmed_at',
      'i.confirmation_token',
      'u.id as person_id',
      'u.email as person_email',
      'u.name as person_name',
      'u.locale as person_locale',
      'l.contact_email as lawyer_email',
      'c.locale as consultation_locale',
      'c.format',
      'c.note',
      'c.phone_e164',
      'c.person_name as booked_name',
      'c.person_languages',
      'c.language_ack',
      'c.note_language',
      'l.video_url',
    ]);
}

/** Her consultations, by date (at most `limit`). */
export function listConsultationsOfLawyer(db: Executor, lawyerId: string, limit = 1000): Promise<LawyerConsultationRow[]> {
  return base(db).where('c.lawyer_id', '=', lawyerId).orderBy('c.slot_date').orderBy('c.start_time').limit(limit).execute() as Promise<LawyerConsultationRow[]>;
}

/** Her confirmed consultations from `fromDate` (her wall-clock date) on: the caller keeps those not yet started. */
export function listUpcomingConfirmedOfLawyer(db: Executor, lawyerId: string, fromDate: string): Promise<LawyerConsultationRow[]> {
  return base(db)
    .where('c.lawyer_id', '=', lawyerId)
    .where('c.status', '=', 'confirmed')
    .where('c.slot_date', '>=', fromDate)
    .orderBy('c.slot_date')
    .orderBy('c.start_time')
    .execute() as Promise<LawyerConsultationRow[]>;
}

/**
 * Lawyers who can no longer hold consultations — suspended, or still `verified` in status but no
 * longer verified (her verification expired: listing.ts) — and still have a confirmed
 * consultation from `fromDate` on: the cancellations a process that died after committing the
 * suspension or expiry never ran (the verification sweep finishes them).
 */
export async function listLawyersUnableToHoldConfirmed(db: Executor, fromDate: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('lawyers as l')
    .select('l.id')
    .where((eb) => eb.or([eb('l.status', '=', 'suspended'), eb.and([eb('l.status', '=', 'verified'), eb('l.verified', '=', 0)])]))
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('consultations as c')
          .select('c.id')
          .whereRef('c.lawyer_id', '=', 'l.id')
          .where('c.status', '=', 'confirmed')
          .where('c.slot_date', '>=', fromDate),
      ),
    )
    .orderBy('l.id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** One of her consultations; another lawyer's id finds nothing. */
export function findConsultationOfLawyer(db: Executor, lawyerId: string, id: string): Promise<LawyerConsultationRow | undefined> {
  return base(db).where('c.lawyer_id', '=', lawyerId).where('c.id', '=', id).executeTakeFirst() as Promise<LawyerConsultationRow | undefined>;
}

/** One of the person's own consultations (every field the emails need); anyone else's id finds nothing. */
export function findConsultationOfPerson(db: Executor, userId: string, id: string): Promise<LawyerConsultationRow | undefined> {
  return base(db).where('c.user_id', '=', userId).where('c.id', '=', id).executeTakeFirst() as Promise<LawyerConsultationRow | undefined>;
}

/**
 * confirmed → cancelled_by_person, only if still confirmed (as cancelIfConfirmed: of concurrent
 * cancellations — or a cancellation and a move — exactly one changes it): SEQUENCE + 1.
 */
export async function cancelByPersonIfConfirmed(db: Executor, c: { id: string; userId: string; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('consultations')
    .set({ status: 'cancelled_by_person', status_changed_at: c.at, ics_sequence: sql<number>`ics_sequence + 1` })
    .where('id', '=', c.id)
    .where('user_id', '=', c.userId)
    .where('status', '=', 'confirmed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * A move: the consultation takes its new time, remembers the time it was moved from, SEQUENCE + 1,
 * move_count + 1, status stays confirmed — only if it is still confirmed, at the time and with the
 * move count the person confirmed on (`from`), and moved fewer than `maxMoves` times. The guard is
 * in this one UPDATE (its row lock: PostgreSQL re-checks the WHERE after a concurrent writer
 * commits; SQLite writes one at a time), so of any number of concurrent changes exactly one
 * applies. True when this call changed it.
 */
export async function moveIfUnchanged(
  db: Executor,
  c: {
    id: string;
    userId: string;
    from: { slot_date: string; start_time: string; move_count: number };
    to: { slot_date: string; start_time: string; end_time: string };
    maxMoves: number;
    at: string;
  },
): Promise<boolean> {
  const result = await db
    .updateTable('consultations')
    .set({
      slot_date: c.to.slot_date,
      start_time: c.to.start_time,
      end_time: c.to.end_time,
      moved_from_date: c.from.slot_date,
      moved_from_start_time: c.from.start_time,
      status_changed_at: c.at,
      ics_sequence: sql<number>`ics_sequence + 1`,
      move_count: sql<number>`move_count + 1`,
    })
    .where('id', '=', c.id)
    .where('user_id', '=', c.userId)
    .where('status', '=', 'confirmed')
    .where('slot_date', '=', c.from.slot_date)
    .where('start_time', '=', c.from.start_time)
    .where('move_count', '=', c.from.move_count)
    .where('move_count', '<', c.maxMoves)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * confirmed → cancelled_by_lawyer, only if still confirmed (the row lock of this update is what
 * makes two concurrent cancellations one): SEQUENCE + 1. True when this call changed it.
 */
export async function cancelIfConfirmed(db: Executor, c: { id: string; lawyerId: string; reason: string; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('consultations')
    .set({ status: 'cancelled_by_lawyer', status_reason: c.reason, status_changed_at: c.at, ics_sequence: sql<number>`ics_sequence + 1` })
    .where('id', '=', c.id)
    .where('lawyer_id', '=', c.lawyerId)
    .where('status', '=', 'confirmed')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** A past consultation's outcome (held or no-show), from confirmed or the other outcome (a correction). */
export async function setOutcome(db: Executor, c: { id: string; lawyerId: string; status: 'held' | 'no_show'; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('consultations')
    .set({ status: c.status, status_changed_at: c.at })
    .where('id', '=', c.id)
    .where('lawyer_id', '=', c.lawyerId)
    .where('status', 'in', ['confirmed', 'held', 'no_show'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/**
 * Frees a consultation's time: deletes the booked hold(s) of its booking intent, so slot
 * generation offers the time again (rows that hang off the hold go with it by cascade).
 */
export async function freeConsultationTime(db: Executor, bookingIntentId: string): Promise<number> {
  const result = await db.deleteFrom('slot_holds').where('booking_intent_id', '=', bookingIntentId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** The payment that took the money for an intent: captured, authorized (not yet captured) or already voided. */
export function findPaidAttempt(db: Executor, bookingIntentId: string): Promise<PaymentAttemptTable | undefined> {
  return db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('booking_intent_id', '=', bookingIntentId)
    .where('status', 'in', ['captured', 'authorized', 'voided'])
    .where('payment_ref', 'is not', null)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

export async function insertRefund(db: Executor, row: ConsultationRefundTable): Promise<void> {
  await db.insertInto('consultation_refunds').values(row).execute();
}

export function findRefund(db: Executor, id: string): Promise<ConsultationRefundTable | undefined> {
  return db.selectFrom('consultation_refunds').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findRefundOfConsultation(db: Executor, consultationId: string): Promise<ConsultationRefundTable | undefined> {
  return db.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', consultationId).executeTakeFirst();
}

/** Pending refunds last touched before `beforeIso` (their process may have died), oldest first. */
export async function listStalePendingRefunds(db: Executor, beforeIso: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('consultation_refunds').select('id').where('status', '=', 'pending').where('updated_at', '<', beforeIso).orderBy('updated_at').limit(limit).execute();
  return rows.map((r) => r.id);
}

/** pending → succeeded | failed; false when another process finished it first. */
export async function finishRefund(db: Executor, id: string, outcome: { status: 'succeeded' | 'failed'; provider_ref: string | null; failure_code: string | null; at: string }): Promise<boolean> {
  const result = await db
    .updateTable('consultation_refunds')
    .set({ status: outcome.status, provider_ref: outcome.provider_ref, failure_code: outcome.failure_code, updated_at: outcome.at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Her bookings feed: replaces the token's hash (the old address stops working with this write). */
export async function setFeedTokenHash(db: Executor, lawyerId: string, tokenHash: string, at: string): Promise<void> {
  await db
    .insertInto('lawyer_booking_feeds')
    .values({ lawyer_id: lawyerId, token_hash: tokenHash, created_at: at, last_fetched_at: null })
    .onConflict((oc) => oc.column('lawyer_id').doUpdateSet({ token_hash: tokenHash, created_at: at, last_fetched_at: null }))
    .execute();
}

/** Whether her bookings feed carries phone numbers and notes (0034: off until she turns it on). */
export async function findFeedPrivateDetails(db: Executor, lawyerId: string): Promise<boolean> {
  const row = await db.selectFrom('lawyers').select('feed_private_details').where('id', '=', lawyerId).executeTakeFirst();
  return row?.feed_private_details === 1;
}

export async function setFeedPrivateDetails(db: Executor, lawyerId: string, on: boolean): Promise<void> {
  await db.updateTable('lawyers').set({ feed_private_details: on ? 1 : 0 }).where('id', '=', lawyerId).execute();
}

export function findFeed(db: Executor, lawyerId: string): Promise<{ created_at: string; last_fetched_at: string | null } | undefined> {
  return db.selectFrom('lawyer_booking_feeds').select(['created_at', 'last_fetched_at']).where('lawyer_id', '=', lawyerId).executeTakeFirst();
}

export function findLawyerByFeedHash(db: Executor, tokenHash: string): Promise<(LawyerSelfRow & { last_fetched_at: string | null; feed_private_details?: number; user_locale: string | null }) | undefined> {
  return db
    .selectFrom('lawyer_booking_feeds as f')
    .innerJoin('lawyers as l', 'l.id', 'f.lawyer_id')
    // Her account's language: the feed's words follow it, as her notice and digest do.
    .leftJoin('users as u', 'u.id', 'l.user_id')
    .select(['l.id', 'l.name', 'l.timezone', 'l.contact_email', 'f.last_fetched_at', 'l.feed_private_details', 'u.locale as user_locale'])
    .where('f.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function touchFeed(db: Executor, lawyerId: string, at: string): Promise<void> {
  await db.updateTable('lawyer_booking_feeds').set({ last_fetched_at: at }).where('lawyer_id', '=', lawyerId).execute();
}
