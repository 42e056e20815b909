/**
 * Weekly hours, date exceptions, occupied times and busy intervals: the inputs of slot
 * generation; and the 15-minute cells (slot_cells) that make a hold exclusive.
 */
import type { DateExceptionTable, LawyerBusyIntervalTable, SlotHoldTable, WeeklyHoursTable } from '../schema.ts';
import { recordLawyerChanges } from './reference.repository.ts';
import type { Executor } from './types.ts';

/** Consultation states that no longer take her time: their booked hold is reclaimable. */
export const FREEING_CONSULTATION_STATUSES = ['moved', 'cancelled_by_person', 'cancelled_by_lawyer'] as const;

const byLawyer = (ids: string[]) => [ids.length === 1 ? '=' : 'in', ids.length === 1 ? ids[0]! : ids] as const;

export function listWeeklyHours(db: Executor, lawyerIds: string[]): Promise<WeeklyHoursTable[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_weekly_hours')
    .selectAll()
    .where('lawyer_id', ...byLawyer(lawyerIds))
    .execute();
}

export function listDateExceptions(db: Executor, lawyerIds: string[], fromDate: string, toDate: string): Promise<DateExceptionTable[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_date_exceptions')
    .selectAll()
    .where('lawyer_id', ...byLawyer(lawyerIds))
    .where('date', '>=', fromDate)
    .where('date', '<=', toDate)
    .execute();
}

/** Each lawyer's autonomous community (her city's province's), for her region's holidays; absent: no city known. */
export function listLawyerCommunities(db: Executor, lawyerIds: string[]): Promise<Array<{ lawyer_id: string; community: string | null }>> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyers as l')
    .leftJoin('cities as c', 'c.slug', 'l.city_slug')
    .leftJoin('provinces as p', 'p.code', 'c.province_code')
    .select(['l.id as lawyer_id', 'p.autonomous_community as community'])
    .where('l.id', ...byLawyer(lawyerIds))
    .execute();
}

/** Her holiday choices (0037) between two dates: holidays she opened, local ones she closed. */
export function listHolidayChoices(db: Executor, lawyerIds: string[], fromDate: string, toDate: string): Promise<Array<{ lawyer_id: string; date: string; choice: 'open' | 'closed' }>> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_holiday_choices')
    .select(['lawyer_id', 'date', 'choice'])
    .where('lawyer_id', ...byLawyer(lawyerIds))
    .where('date', '>=', fromDate)
    .where('date', '<=', toDate)
    .execute();
}

export async function setHolidayChoice(db: Executor, lawyerId: string, date: string, choice: 'open' | 'closed', nowIso: string): Promise<void> {
  await db
    .insertInto('lawyer_holiday_choices')
    .values({ lawyer_id: lawyerId, date, choice, created_at: nowIso })
    .onConflict((oc) => oc.columns(['lawyer_id', 'date']).doUpdateSet({ choice, created_at: nowIso }))
    .execute();
}

export async function deleteHolidayChoice(db: Executor, lawyerId: string, date: string): Promise<void> {
  await db.deleteFrom('lawyer_holiday_choices').where('lawyer_id', '=', lawyerId).where('date', '=', date).execute();
}

export type OccupiedSlotRow = Pick<SlotHoldTable, 'lawyer_id' | 'slot_date' | 'start_time' | 'end_time' | 'status' | 'expires_at'> & { occupied_until: string | null };

/**
 * Holds and bookings that take the lawyer's time: held by a pending intent that has not expired
 * at `nowIso`, or booked — unless the consultation booked there was moved or cancelled.
 */
export function listOccupiedSlots(db: Executor, lawyerIds: string[], fromDate: string, toDate: string, nowIso: string): Promise<OccupiedSlotRow[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('slot_holds as h')
    .select(['h.lawyer_id', 'h.slot_date', 'h.start_time', 'h.end_time', 'h.status', 'h.expires_at', 'h.occupied_until'])
    .where('h.lawyer_id', ...byLawyer(lawyerIds))
    .where('h.slot_date', '>=', fromDate)
    .where('h.slot_date', '<=', toDate)
    .where((eb) =>
      eb.or([
        eb('h.expires_at', '>', nowIso),
        eb.and([
          eb('h.status', '=', 'booked'),
          eb.not(
            eb.exists(
              eb
                .selectFrom('consultations as k')
                .select('k.id')
                .whereRef('k.booking_intent_id', '=', 'h.booking_intent_id')
                .where('k.status', 'in', FREEING_CONSULTATION_STATUSES),
            ),
          ),
        ]),
      ]),
    )
    .execute() as Promise<OccupiedSlotRow[]>;
}

/** Busy times from the lawyers' own calendars that meet [fromIso, toIso). */
export function listBusyIntervals(db: Executor, lawyerIds: string[], fromIso: string, toIso: string): Promise<Pick<LawyerBusyIntervalTable, 'lawyer_id' | 'starts_at' | 'ends_at'>[]> {
  if (lawyerIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyer_busy_intervals')
    .select(['lawyer_id', 'starts_at', 'ends_at'])
    .where('lawyer_id', ...byLawyer(lawyerIds))
    .where('starts_at', '<', toIso)
    .where('ends_at', '>', fromIso)
    .execute();
}

/**
 * Replaces a lawyer's busy intervals from one source (her calendar feed) and records the change
 * in the lawyer feed, so every serving process shows the new free times within a second. Whoever
 * writes busy intervals must record the change like this (or call this).
 */
export async function replaceBusyIntervals(
  db: Executor,
  lawyerId: string,
  source: string,
  intervals: ReadonlyArray<{ starts_at: string; ends_at: string }>,
  nowIso: string,
): Promise<void> {
  await db.deleteFrom('lawyer_busy_intervals').where('lawyer_id', '=', lawyerId).where('source', '=', source).execute();
  for (let i = 0; i < intervals.length; i += 500) {
    await db
      .insertInto('lawyer_busy_intervals')
      .values(intervals.slice(i, i + 500).map((b) => ({ lawyer_id: lawyerId, source, starts_at: b.starts_at, ends_at: b.ends_at })))
      .execute();
  }
  await recordLawyerChanges(db, [lawyerId], nowIso);
}

/**
 * Frees, before a new hold takes these cells, the holds that own any of them and no longer take
 * her time: lapsed holds (expired, not swept yet) and bookings whose consultation was moved or
 * cancelled. Their cells go with them (ON DELETE CASCADE), exactly as the lapsed slot_holds row
 * was reused before cells existed.
 */
export async function reclaimStaleHolds(db: Executor, lawyerId: string, cells: readonly string[], nowIso: string): Promise<void> {
  if (cells.length === 0) return;
  await db
    .deleteFrom('slot_holds')
    .where('lawyer_id', '=', lawyerId)
    .where((eb) =>
      eb.exists(
        eb
          .selectFrom('slot_cells as c')
          .select('c.cell_start')
          .whereRef('c.lawyer_id', '=', 'slot_holds.lawyer_id')
          .whereRef('c.slot_date', '=', 'slot_holds.slot_date')
          .whereRef('c.start_time', '=', 'slot_holds.start_time')
          .where('c.cell_start', 'in', [...cells]),
      ),
    )
    .where((eb) =>
      eb.or([
        eb.and([eb('status', '=', 'held'), eb('expires_at', '<=', nowIso)]),
        eb.and([
          eb('status', '=', 'booked'),
          eb.exists(
            eb
              .selectFrom('consultations as k')
              .select('k.id')
              .whereRef('k.booking_intent_id', '=', 'slot_holds.booking_intent_id')
              .where('k.status', 'in', FREEING_CONSULTATION_STATUSES),
          ),
        ]),
      ]),
    )
    .execute();
}

/**
 * Records a hold's cells (in ascending order, so concurrent holds never wait on each other in a
 * cycle). True when every cell was this hold's to take; false when another hold owns one (the
 * caller then deletes its hold, which frees what it did take).
 */
export async function tryInsertCells(db: Executor, hold: Pick<SlotHoldTable, 'lawyer_id' | 'slot_date' | 'start_time'>, cells: readonly string[]): Promise<boolean> {
  if (cells.length === 0) return true;
  const sorted = [...cells].sort();
  const result = await db
    .insertInto('slot_cells')
    .values(sorted.map((cell_start) => ({ lawyer_id: hold.lawyer_id, cell_start, slot_date: hold.slot_date, start_time: hold.start_time })))
    .onConflict((oc) => oc.columns(['lawyer_id', 'cell_start']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === sorted.length;
}

/**
 * Takes a hold and its cells, inside the caller's transaction: lapsed holds on the same key or
 * any of the cells give way (when one is in the way); the slot_holds key and every cell must end
 * up this hold's. True when
 * this call got the time; false when another hold has it (nothing of this one is left behind).
 */
export async function takeHold(db: Executor, hold: SlotHoldTable, cells: readonly string[], nowIso: string): Promise<boolean> {
  // A free time first (the common case: two statements); lapsed holds are cleared only when one
  // is in the way, then the insert is tried again. The keys decide as before: of concurrent
  // requests exactly one inserts the hold and all its cells.
  if (!(await insertHoldRow(db, hold))) {
    await db
      .deleteFrom('slot_holds')
      .where('lawyer_id', '=', hold.lawyer_id)
      .where('slot_date', '=', hold.slot_date)
      .where('start_time', '=', hold.start_time)
      .where('status', '=', 'held')
      .where('expires_at', '<=', nowIso)
      .execute();
    if (!(await insertHoldRow(db, hold))) return false;
  }
  const sorted = [...cells].sort();
  let taken = await insertCells(db, hold, sorted);
  if (taken < sorted.length) {
    // Some cell is another hold's: if that hold lapsed (or its booking was freed) it gives way,
    // cells and all, and the cells still missing are tried again (ours conflict with themselves).
    await reclaimStaleHolds(db, hold.lawyer_id, cells, nowIso);
    taken += await insertCells(db, hold, sorted);
  }
  if (taken === sorted.length) return true;
  // The double-booking guarantee: another hold owning any of these cells (another length,
  // another grid) has the time; this hold is withdrawn with what it took.
  await deleteHold(db, hold);
  return false;
}

async function insertHoldRow(db: Executor, hold: SlotHoldTable): Promise<boolean> {
  const inserted = await db
    .insertInto('slot_holds')
    .values(hold)
    .onConflict((oc) => oc.columns(['lawyer_id', 'slot_date', 'start_time']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Inserts the cells (ascending) that are free; returns how many it inserted. */
async function insertCells(db: Executor, hold: Pick<SlotHoldTable, 'lawyer_id' | 'slot_date' | 'start_time'>, sorted: readonly string[]): Promise<number> {
  if (sorted.length === 0) return 0;
  const result = await db
    .insertInto('slot_cells')
    .values(sorted.map((cell_start) => ({ lawyer_id: hold.lawyer_id, cell_start, slot_date: hold.slot_date, start_time: hold.start_time })))
    .onConflict((oc) => oc.columns(['lawyer_id', 'cell_start']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n);
}

/** Deletes one hold (and, by cascade, its cells). */
export async function deleteHold(db: Executor, hold: Pick<SlotHoldTable, 'lawyer_id' | 'slot_date' | 'start_time'>): Promise<void> {
  await db.deleteFrom('slot_holds').where('lawyer_id', '=', hold.lawyer_id).where('slot_date', '=', hold.slot_date).where('start_time', '=', hold.start_time).execute();
}

/** The offer columns of a lawyer's row that slot generation needs. */
export function findLawyerOffer(db: Executor, lawyerId: string) {
  return db
    .selectFrom('lawyers')
    .select(['id', 'timezone', 'consultation_minutes', 'buffer_minutes', 'min_notice_minutes', 'horizon_days'])
    .where('id', '=', lawyerId)
    .executeTakeFirst();
}

/**
 * Test and seed helper for issue-independent holds; the booking service owns real holds. Like
 * the booking service it records the hold's cells (from `cells`, when given) and the change in
 * the feed, so serving processes see it.
 */
export async function insertSlotHold(db: Executor, hold: SlotHoldTable, cells: readonly string[] = []): Promise<void> {
  await db.insertInto('slot_holds').values(hold).execute();
  if (cells.length > 0 && !(await tryInsertCells(db, hold, cells))) throw new Error(`the cells of hold ${hold.slot_date} ${hold.start_time} are taken`);
  await recordLawyerChanges(db, [hold.lawyer_id], hold.created_at);
}
