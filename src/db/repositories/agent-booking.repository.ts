/**
 * Booking intents held by AI agents for a signed-in person (over MCP): the person's pending
 * holds, their intents, and the lock that serialises one person's holds. A person's own holds on
 * the site, made while signed in, carry `held_for_user_id` too but no OAuth client: they are not
 * an AI app's (site-holds.repository.ts), and every query here leaves them out.
 */
import type { BookingIntentTable } from '../schema.ts';
import type { Executor } from './types.ts';

/**
 * Serialises concurrent holds of one person (PostgreSQL row lock on the user until commit;
 * SQLite has one writer anyway), so the per-person limit of pending holds cannot be overrun.
 */
export async function lockUserForIntents(db: Executor, userId: string): Promise<void> {
  await db.updateTable('users').set((eb) => ({ id: eb.ref('id') })).where('id', '=', userId).execute();
}

/** Pending intents held for a person that have not expired at `nowIso`, and the earliest expiry. */
export async function pendingIntentsOfUser(db: Executor, userId: string, nowIso: string): Promise<{ count: number; firstExpiry: string | null }> {
  const row = await db
    .selectFrom('booking_intents')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('expires_at').as('first')])
    .where('held_for_user_id', '=', userId)
    .where('oauth_client_id', 'is not', null)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso)
    .executeTakeFirstOrThrow();
  return { count: Number(row.n), firstExpiry: (row.first as string | null) ?? null };
}

/** The person's own unexpired pending hold of this slot, if any (the idempotent answer). */
export function findPendingIntentOfUserForSlot(
  db: Executor,
  userId: string,
  slot: { lawyer_id: string; slot_date: string; start_time: string },
  nowIso: string,
): Promise<BookingIntentTable | undefined> {
  return db
    .selectFrom('booking_intents')
    .selectAll()
    .where('held_for_user_id', '=', userId)
    .where('oauth_client_id', 'is not', null)
    .where('lawyer_id', '=', slot.lawyer_id)
    .where('slot_date', '=', slot.slot_date)
    .where('start_time', '=', slot.start_time)
    .where('status', '=', 'pending')
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
}

/** One intent held for this person (anyone else's is not found). */
export function findIntentOfUser(db: Executor, id: string, userId: string): Promise<BookingIntentTable | undefined> {
  return db.selectFrom('booking_intents').selectAll().where('id', '=', id.toLowerCase()).where('held_for_user_id', '=', userId).where('oauth_client_id', 'is not', null).executeTakeFirst();
}

/** The intents held for a person, newest first. */
export function listIntentsOfUser(db: Executor, userId: string, limit: number): Promise<BookingIntentTable[]> {
  return db
    .selectFrom('booking_intents')
    .selectAll()
    .where('held_for_user_id', '=', userId)
    .where('oauth_client_id', 'is not', null)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'asc')
    .limit(limit)
    .execute();
}
