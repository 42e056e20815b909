/**
 * Slot generation: the one definition of which consultation slots a lawyer offers and which
 * of them can be booked. Availability, `next_available` and (later) booking all call this.
 */
import { addDays, dateInZone, isoWeekday, minutesToTime, zonedToUtcMs } from './zoned-time.ts';

/** A value that stays correct, whatever the clock does, until `validThroughMs` (inclusive), barring writes. */
export interface WithValidity<T> {
  value: T;
  validThroughMs: number;
}

export interface WeeklyHours {
  weekday: number;
  start_time: string;
  end_time: string;
  slot_minutes: number;
}

export interface DateException {
  date: string;
  start_time: string | null;
  end_time: string | null;
  slot_minutes: number | null;
}

export interface GeneratedSlot {
  date: string;
  start_time: string;
  end_time: string;
  startsAtMs: number;
  endsAtMs: number;
}

export interface LawyerSchedule {
  timezone: string;
  weekly: readonly WeeklyHours[];
  /** Exceptions keyed by date. */
  exceptions: ReadonlyMap<string, readonly DateException[]>;
  /** Occupied slots (held by a pending intent, or booked), keyed `date HH:MM:SS`. */
  busy: ReadonlySet<string>;
  /** When the first of the holds among `busy` lapses (epoch ms; absent or Infinity: none will). */
  firstHoldExpiryMs?: number;
}

export interface AvailabilityRules {
  nowMs: number;
  minLeadTimeMs: number;
}

export const slotKey = (date: string, startTime: string): string => `${date} ${startTime}`;

function toMinutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** The slots a lawyer offers on one date (before holds and lead time), in start order. */
export function slotsOnDate(schedule: LawyerSchedule, date: string): GeneratedSlot[] {
  const override = schedule.exceptions.get(date);
  let ranges: Array<{ start_time: string; end_time: string; slot_minutes: number }>;
  if (override && override.length > 0) {
    // A closed marker (no times) wins over any custom hours listed for the same date.
    if (override.some((e) => e.start_time === null || e.end_time === null)) return [];
    ranges = override.map((e) => ({ start_time: e.start_time!, end_time: e.end_time!, slot_minutes: e.slot_minutes ?? 60 }));
  } else {
    const weekday = isoWeekday(date);
    ranges = schedule.weekly.filter((w) => w.weekday === weekday);
  }
  if (ranges.length === 0) return [];
  const out: GeneratedSlot[] = [];
  const seen = new Set<string>();
  for (const range of ranges) {
    const end = toMinutes(range.end_time);
    for (let t = toMinutes(range.start_time); t + range.slot_minutes <= end; t += range.slot_minutes) {
      const start_time = minutesToTime(t);
      if (seen.has(start_time)) continue;
      const startsAtMs = zonedToUtcMs(date, start_time, schedule.timezone);
      const end_time = minutesToTime(t + range.slot_minutes);
      const endsAtMs = zonedToUtcMs(date, end_time, schedule.timezone);
      if (startsAtMs === null || endsAtMs === null) continue; // skipped by a DST jump
      seen.add(start_time);
      out.push({ date, start_time, end_time, startsAtMs, endsAtMs });
    }
  }
  if (ranges.length > 1) out.sort((a, b) => a.startsAtMs - b.startsAtMs);
  return out;
}

/** Whether a generated slot can be requested now: far enough ahead and not occupied. */
export function isBookable(schedule: LawyerSchedule, slot: GeneratedSlot, rules: AvailabilityRules): boolean {
  return slot.startsAtMs >= rules.nowMs + rules.minLeadTimeMs && !schedule.busy.has(slotKey(slot.date, slot.start_time));
}

/**
 * The first date, from today in the lawyer's zone, with at least one bookable slot (null within
 * the horizon), and until when it holds without any write: the answer changes when the
 * last bookable slot of that date falls inside the lead time, when a hold lapses (a slot frees
 * up), or, with no date found, when a new day enters the horizon.
 */
export function nextAvailability(schedule: LawyerSchedule, rules: AvailabilityRules, horizonDays: number): WithValidity<string | null> {
  const holdBound = (schedule.firstHoldExpiryMs ?? Infinity) - 1;
  if (schedule.weekly.length === 0 && schedule.exceptions.size === 0) return { value: null, validThroughMs: holdBound };
  const today = dateInZone(rules.nowMs, schedule.timezone);
  for (let i = 0; i < horizonDays; i++) {
    const date = addDays(today, i);
    let last: GeneratedSlot | undefined;
    for (const slot of slotsOnDate(schedule, date)) {
      if (isBookable(schedule, slot, rules)) last = slot;
    }
    if (last) return { value: date, validThroughMs: Math.min(last.startsAtMs - rules.minLeadTimeMs, holdBound) };
  }
  const tomorrow = zonedToUtcMs(addDays(today, 1), '00:00:00', schedule.timezone) ?? rules.nowMs + 3_600_000;
  return { value: null, validThroughMs: Math.min(tomorrow - 1, holdBound) };
}

/**
 * Until when the bookable flags of these slots hold without any write: the first bookable slot
 * to fall inside the lead time, or the first hold to lapse.
 */
export function availabilityValidThrough(schedule: LawyerSchedule, slots: readonly GeneratedSlot[], rules: AvailabilityRules): number {
  let through = (schedule.firstHoldExpiryMs ?? Infinity) - 1;
  for (const slot of slots) {
    if (isBookable(schedule, slot, rules)) through = Math.min(through, slot.startsAtMs - rules.minLeadTimeMs);
  }
  return through;
}
