/** Weekly hours, date exceptions and occupied slots: the inputs of slot generation. */
import type { DateExceptionTable, SlotHoldTable, WeeklyHoursTable } from '../schema.ts';
import { recordLawyerChanges } from './reference.repository.ts';
import type { Executor } from './types.ts';

export function listWeeklyHours(db: Executor, lawyerIds: string[]): Promise<WeeklyHoursTable[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_weekly_hours')
    .selectAll()
    .where('lawyer_id', lawyerIds.length === 1 ? '=' : 'in', lawyerIds.length === 1 ? lawyerIds[0]! : lawyerIds)
    .execute();
}

export function listDateExceptions(db: Executor, lawyerIds: string[], fromDate: string, toDate: string): Promise<DateExceptionTable[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_date_exceptions')
    .selectAll()
    .where('lawyer_id', lawyerIds.length === 1 ? '=' : 'in', lawyerIds.length === 1 ? lawyerIds[0]! : lawyerIds)
    .where('date', '>=', fromDate)
    .where('date', '<=', toDate)
    .execute();
}

/** Slots that are booked, or held by a pending intent that has not expired at `nowIso`. */
export function listOccupiedSlots(
  db: Executor,
  lawyerIds: string[],
  fromDate: string,
  toDate: string,
  nowIso: string,
): Promise<Pick<SlotHoldTable, 'lawyer_id' | 'slot_date' | 'start_time' | 'status' | 'expires_at'>[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('slot_holds')
    .select(['lawyer_id', 'slot_date', 'start_time', 'status', 'expires_at'])
    .where('lawyer_id', lawyerIds.length === 1 ? '=' : 'in', lawyerIds.length === 1 ? lawyerIds[0]! : lawyerIds)
    .where('slot_date', '>=', fromDate)
    .where('slot_date', '<=', toDate)
    .where((eb) => eb.or([eb('status', '=', 'booked'), eb('expires_at', '>', nowIso)]))
    .execute();
}

/**
 * Test and seed helper for issue-independent holds; the booking service owns real holds. Like
 * the booking service it records the change in the feed, so serving processes see it.
 */
export async function insertSlotHold(db: Executor, hold: SlotHoldTable): Promise<void> {
  await db.insertInto('slot_holds').values(hold).execute();
  await recordLawyerChanges(db, [hold.lawyer_id], hold.created_at);
}
