/**
 * Payment attempts and applied provider events. Two constraints carry the guarantees:
 * `payment_attempts_one_open` (at most one open or authorized attempt per intent) and the
 * primary key of `payment_events` (an event is applied once). Both are used through
 * ON CONFLICT DO NOTHING, so whoever gets zero rows lost, in one process or many.
 */
import type { DialectName } from '../database.ts';
import type { Selectable } from 'kysely';
import type { BookingIntentTable, ConsultationTable, LawyerTable, PaymentAttemptTable, PaymentEventTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** Attempts in these states hold the intent's one payment slot. */
export const UNFINISHED_ATTEMPT_STATUSES = ['open', 'authorized'] as const;

/**
 * Reads an intent inside a payment transaction. On PostgreSQL the row is locked until commit,
 * so a confirmation committing meanwhile is seen (and waited for) rather than missed.
 */
export function lockIntentForPayment(db: Executor, dialect: DialectName, intentId: string): Promise<BookingIntentTable | undefined> {
  let query = db.selectFrom('booking_intents').selectAll().where('id', '=', intentId);
  if (dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

export type PaymentLawyerRow = Pick<LawyerTable, 'id' | 'name' | 'timezone' | 'city_slug' | 'consultation_fee_cents' | 'platform_commission_percent'>;

/** The lawyer of an intent, listed or not (a hold made before an unlisting is still payable). */
export function findLawyerForPayment(db: Executor, lawyerId: string): Promise<PaymentLawyerRow | undefined> {
  return db
    .selectFrom('lawyers')
    .select(['id', 'name', 'timezone', 'city_slug', 'consultation_fee_cents', 'platform_commission_percent'])
    .where('id', '=', lawyerId)
    .executeTakeFirst();
}

/** Inserts an attempt unless the intent already has an open or authorized one; true when inserted. */
export async function tryInsertAttempt(db: Executor, row: PaymentAttemptTable): Promise<boolean> {
  const result = await db.insertInto('payment_attempts').values(row).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export function findAttempt(db: Executor, id: string): Promise<PaymentAttemptTable | undefined> {
  return db.selectFrom('payment_attempts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findAttemptByCheckout(db: Executor, checkoutRef: string): Promise<PaymentAttemptTable | undefined> {
  return db.selectFrom('payment_attempts').selectAll().where('checkout_ref', '=', checkoutRef).executeTakeFirst();
}

/** The intent's open or authorized attempt, if any (there is at most one). */
export function findUnfinishedAttempt(db: Executor, intentId: string): Promise<PaymentAttemptTable | undefined> {
  return db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('booking_intent_id', '=', intentId)
    .where('status', 'in', UNFINISHED_ATTEMPT_STATUSES)
    .executeTakeFirst();
}

/** The most recent attempt `userId` made on the intent. */
export function findLatestAttemptOfUser(db: Executor, intentId: string, userId: string): Promise<PaymentAttemptTable | undefined> {
  return db
    .selectFrom('payment_attempts')
    .selectAll()
    .where('booking_intent_id', '=', intentId)
    .where('user_id', '=', userId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

/**
 * Moves an attempt out of one of the `from` states, setting `changes`; returns the row when this
 * call made the change (the status guard makes every transition happen once).
 */
export function transitionAttempt(
  db: Executor,
  id: string,
  from: readonly string[],
  changes: Partial<Omit<PaymentAttemptTable, 'id' | 'booking_intent_id' | 'user_id' | 'provider' | 'created_at'>> & { updated_at: string },
): Promise<PaymentAttemptTable | undefined> {
  return db.updateTable('payment_attempts').set(changes).where('id', '=', id).where('status', 'in', from).returningAll().executeTakeFirst();
}

/** An unfinished attempt together with the state of its intent, for the sweep. */
export interface UnfinishedAttemptRow extends PaymentAttemptTable {
  intent_status: string;
  intent_expires_at: string;
  confirmation_token: string;
  confirmed_by_user_id: string | null;
}

/**
 * Unfinished attempts of `provider` that may need the sweep at `nowIso`: their hold lapsed or
 * their intent was decided, or (open without a checkout, or authorized) untouched since
 * `idleSinceIso`. Open hosted checkouts of live holds are left out: they wait for the person.
 */
export function listAttemptsToSweep(db: Executor, provider: string, nowIso: string, idleSinceIso: string, limit: number): Promise<UnfinishedAttemptRow[]> {
  return db
    .selectFrom('payment_attempts as a')
    .innerJoin('booking_intents as i', 'i.id', 'a.booking_intent_id')
    .selectAll('a')
    .select(['i.status as intent_status', 'i.expires_at as intent_expires_at', 'i.confirmation_token', 'i.confirmed_by_user_id'])
    .where('a.status', 'in', UNFINISHED_ATTEMPT_STATUSES)
    .where('a.provider', '=', provider)
    .where((eb) =>
      eb.or([
        eb('i.status', '!=', 'pending'),
        eb('i.expires_at', '<=', nowIso),
        eb.and([eb('a.updated_at', '<=', idleSinceIso), eb.or([eb('a.status', '=', 'authorized'), eb('a.checkout_ref', 'is', null)])]),
      ]),
    )
    .orderBy('a.updated_at')
    .limit(limit)
    .execute();
}

/** Records a provider event; false when it was already recorded (a redelivery). */
export async function tryRecordPaymentEvent(db: Executor, row: PaymentEventTable): Promise<boolean> {
  const result = await db.insertInto('payment_events').values(row).onConflict((oc) => oc.doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export function findConsultationOfIntent(db: Executor, intentId: string): Promise<Selectable<ConsultationTable> | undefined> {
  return db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', intentId).executeTakeFirst();
}

export function findIntentById(db: Executor, id: string): Promise<BookingIntentTable | undefined> {
  return db.selectFrom('booking_intents').selectAll().where('id', '=', id).executeTakeFirst();
}
