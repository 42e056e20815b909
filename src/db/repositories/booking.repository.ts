/**
 * Booking intents, slot holds, consultations and the event outbox. The double-booking guarantee
 * is the primary keys of slot_holds and slot_cells (takeHold in schedule.repository.ts): a hold
 * and its 15-minute cells are inserted with ON CONFLICT DO NOTHING and whoever does not get them
 * all lost, on SQLite and PostgreSQL alike, in one process or many.
 */
import type { DialectName } from '../database.ts';
import type { Insertable } from 'kysely';
import type { BookingIntentTable, ConsultationTable, OutboxEventTable } from '../schema.ts';
import type { Executor } from './types.ts';

export async function insertIntent(db: Executor, row: BookingIntentTable): Promise<void> {
  await db.insertInto('booking_intents').values(row).execute();
}

/** Serialises intent creation per key (a no-op write takes the row lock / the write lock). */
export async function lockKeyForIntents(db: Executor, keyId: string): Promise<void> {
  await db.updateTable('api_keys').set((eb) => ({ id: eb.ref('id') })).where('id', '=', keyId).execute();
}

/**
 * Pending intents of a key that have not expired at `nowIso`, counted up to `atMost` (a key's
 * hold reads no more than the cap needs, however many it holds), and the earliest expiry among
 * them when `withFirstExpiry` (only a refusal needs it).
 */
export async function pendingIntentsOfKey(db: Executor, keyId: string, nowIso: string, atMost: number, withFirstExpiry = false): Promise<{ count: number; firstExpiry: string | null }> {
  const pending = db
    .selectFrom('booking_intents')
    .select('expires_at')
    .where('key_id', '=', keyId)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso);
  const row = await db
    .selectFrom(pending.limit(atMost).as('p'))
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  const count = Number(row.n);
  if (!withFirstExpiry || count === 0) return { count, firstExpiry: null };
  const first = await pending.orderBy('expires_at').limit(1).executeTakeFirst();
  return { count, firstExpiry: first?.expires_at ?? null };
}

export function findIntentOfKey(db: Executor, id: string, keyId: string): Promise<BookingIntentTable | undefined> {
  return db.selectFrom('booking_intents').selectAll().where('id', '=', id.toLowerCase()).where('key_id', '=', keyId).executeTakeFirst();
}

export function findIntentByToken(db: Executor, token: string): Promise<BookingIntentTable | undefined> {
  return db.selectFrom('booking_intents').selectAll().where('confirmation_token', '=', token).executeTakeFirst();
}

/**
 * Marks up to `limit` due pending intents expired and returns them. The status guard makes the
 * transition happen once; on PostgreSQL SKIP LOCKED lets several sweepers share the work.
 */
export function expireDueIntents(db: Executor, dialect: DialectName, nowIso: string, limit: number): Promise<BookingIntentTable[]> {
  let due = db
    .selectFrom('booking_intents')
    .select('id')
    .where('status', '=', 'pending')
    .where('expires_at', '<=', nowIso)
    .orderBy('expires_at')
    .limit(limit);
  if (dialect === 'postgres') due = due.forUpdate().skipLocked();
  return db
    .updateTable('booking_intents')
    .set({ status: 'expired', expired_at: nowIso })
    .where('id', 'in', due)
    .where('status', '=', 'pending')
    .returningAll()
    .execute();
}

/** Expires one intent if it is pending and due; returns it when this call made the change. */
export function expireIntent(db: Executor, id: string, nowIso: string): Promise<BookingIntentTable | undefined> {
  return db
    .updateTable('booking_intents')
    .set({ status: 'expired', expired_at: nowIso })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '<=', nowIso)
    .returningAll()
    .executeTakeFirst();
}

export async function releaseHolds(db: Executor, intentIds: string[]): Promise<void> {
  if (intentIds.length === 0) return;
  await db.deleteFrom('slot_holds').where('booking_intent_id', 'in', intentIds).where('status', '=', 'held').execute();
}

/** pending → confirmed, only before expiry; returns the row when this call confirmed it. */
export function confirmPendingIntent(db: Executor, id: string, nowIso: string, userId: string): Promise<BookingIntentTable | undefined> {
  return db
    .updateTable('booking_intents')
    .set({ status: 'confirmed', confirmed_at: nowIso, confirmed_by_user_id: userId })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso)
    .returningAll()
    .executeTakeFirst();
}

/** Turns an intent's hold into a booking for good. */
export async function bookHeldSlot(db: Executor, intentId: string): Promise<number> {
  const result = await db
    .updateTable('slot_holds')
    .set({ status: 'booked', expires_at: null })
    .where('booking_intent_id', '=', intentId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function insertConsultation(db: Executor, row: Insertable<ConsultationTable>): Promise<void> {
  await db.insertInto('consultations').values(row).execute();
}

/** Records events; an event already recorded for the same intent and type is not duplicated. */
export async function insertOutboxEvents(db: Executor, events: OutboxEventTable[]): Promise<void> {
  if (events.length === 0) return;
  await db.insertInto('outbox_events').values(events).onConflict((oc) => oc.columns(['booking_intent_id', 'type']).doNothing()).execute();
}

export function listOutboxEvents(db: Executor, intentId: string): Promise<OutboxEventTable[]> {
  return db.selectFrom('outbox_events').selectAll().where('booking_intent_id', '=', intentId).orderBy('created_at').execute();
}
