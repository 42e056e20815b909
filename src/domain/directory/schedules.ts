/** The inputs of slot generation for a set of lawyers, read from the database (directory and booking alike). */
import type { Executor } from '../../db/repositories/types.ts';
import { listBusyIntervals, listDateExceptions, listHolidayChoices, listLawyerCommunities, listOccupiedSlots, listWeeklyHours } from '../../db/repositories/schedule.repository.ts';
import { closedHolidayDates, regionOfCommunity } from '../lawyers/holidays.ts';
import { offerOf, type DateException, type LawyerOffer, type LawyerSchedule, type OccupiedInterval, type WeeklyHours } from './slots.ts';
import { addDays, zonedToUtcMs } from '../../zoned-time.ts';

/**
 * Offer, weekly hours, exceptions, occupied times (live holds and bookings) and busy times of
 * her own calendar, for these lawyers and dates from..to (in their zones).
 */
export async function loadSchedules(
  db: Executor,
  lawyers: ReadonlyArray<{ id: string } & LawyerOffer>,
  fromDate: string,
  toDate: string,
  nowMs: number,
): Promise<Map<string, LawyerSchedule>> {
  const ids = lawyers.map((l) => l.id);
  // A consultation on `fromDate` may begin the day before in UTC; busy times are read with a day's margin either side.
  const fromIso = `${addDays(fromDate, -1)}T00:00:00.000Z`;
  const toIso = `${addDays(toDate, 2)}T00:00:00.000Z`;
  // Holds of the day before and after matter too: a buffer reaches across midnight.
  const [weekly, exceptions, occupied, busy, communities, holidayChoices] = await Promise.all([
    listWeeklyHours(db, ids),
    listDateExceptions(db, ids, fromDate, toDate),
    listOccupiedSlots(db, ids, addDays(fromDate, -1), addDays(toDate, 1), new Date(nowMs).toISOString()),
    listBusyIntervals(db, ids, fromIso, toIso),
    listLawyerCommunities(db, ids),
    listHolidayChoices(db, ids, fromDate, toDate),
  ]);
  type Building = Omit<LawyerSchedule, 'weekly' | 'exceptions' | 'occupied' | 'firstHoldExpiryMs'> & { weekly: WeeklyHours[]; exceptions: Map<string, DateException[]>; occupied: OccupiedInterval[]; firstHoldExpiryMs: number };
  const out = new Map<string, Building>();
  for (const l of lawyers) out.set(l.id, { ...offerOf(l), weekly: [], exceptions: new Map(), occupied: [], firstHoldExpiryMs: Infinity });
  for (const w of weekly) out.get(w.lawyer_id)?.weekly.push(w);
  for (const e of exceptions) {
    const s = out.get(e.lawyer_id);
    if (!s) continue;
    const list = s.exceptions.get(e.date);
    if (list) list.push(e);
    else s.exceptions.set(e.date, [e]);
  }
  // Holidays (docs/lawyers.md#holidays): a closed marker on each, unless she set that date's hours herself.
  const choicesOf = new Map<string, Array<{ date: string; choice: 'open' | 'closed' }>>();
  for (const c of holidayChoices) choicesOf.set(c.lawyer_id, [...(choicesOf.get(c.lawyer_id) ?? []), c]);
  for (const { lawyer_id, community } of communities) {
    const s = out.get(lawyer_id);
    if (!s) continue;
    for (const date of closedHolidayDates(regionOfCommunity(community), fromDate, toDate, choicesOf.get(lawyer_id) ?? [])) {
      if (!s.exceptions.has(date)) s.exceptions.set(date, [{ date, start_time: null, end_time: null }]);
    }
  }
  for (const o of occupied) {
    const s = out.get(o.lawyer_id);
    if (!s) continue;
    const startMs = zonedToUtcMs(o.slot_date, o.start_time, s.timezone);
    const endMs = zonedToUtcMs(o.slot_date, o.end_time, s.timezone);
    if (startMs === null || endMs === null) continue;
    s.occupied.push({ startMs, endMs, ...(o.occupied_until ? { tailMs: Date.parse(o.occupied_until) } : {}) });
    if (o.status === 'held' && o.expires_at !== null) s.firstHoldExpiryMs = Math.min(s.firstHoldExpiryMs, Date.parse(o.expires_at));
  }
  for (const b of busy) out.get(b.lawyer_id)?.occupied.push({ startMs: Date.parse(b.starts_at), endMs: Date.parse(b.ends_at) });
  return out;
}
