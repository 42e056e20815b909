/**
 * Slot generation: the one definition of which consultation times a lawyer offers and which of
 * them can be booked (docs/lawyers.md "The consultation and the calendar"). Availability,
 * `next_available`, search and the booking's own check all call this.
 *
 * - Candidates come from her offer: every range (a weekly range, or a date override's ranges)
 *   is cut from its start into consultations of her length, one every length + buffer, while the
 *   consultation ends within the range. Times are wall-clock times in her zone (DST-correct).
 * - A candidate is free when [start − buffer, end + buffer) meets none of the occupied intervals
 *   (live holds, bookings, busy times of her own calendar), compared as real instants, so times
 *   cut on another grid or with another length still collide exactly.
 * - It is bookable when free, starting at least her minimum notice from now (never less than
 *   the platform's), and on a date within her horizon (today and the next horizon − 1 days).
 */
import { DEFAULT_HORIZON_DAYS } from '../lawyers/calendar-rules.ts';
import { addDays, dateInZone, isoWeekday, minutesToTime, zonedToUtcMs } from '../../zoned-time.ts';

/** A value that stays correct, whatever the clock does, until `validThroughMs` (inclusive), barring writes. */
export interface WithValidity<T> {
  value: T;
  validThroughMs: number;
}

/** A weekly range. `slot_minutes` (a column of the table) is not the length any more and is ignored. */
export interface WeeklyHours {
  weekday: number;
  start_time: string;
  end_time: string;
}

export interface DateException {
  date: string;
  start_time: string | null;
  end_time: string | null;
}

export interface GeneratedSlot {
  date: string;
  start_time: string;
  end_time: string;
  startsAtMs: number;
  endsAtMs: number;
}

/**
 * Something that takes her time, as instants: [startMs, endMs). `tailMs` (≥ endMs) is where a
 * hold's or booking's recorded cells end (its end plus the buffer she had when it was made): a
 * new consultation may not start before it either, so what availability shows is what the cells
 * let a booking take.
 */
export interface OccupiedInterval {
  startMs: number;
  endMs: number;
  tailMs?: number;
}

export interface LawyerSchedule {
  timezone: string;
  /** The consultation's length (minutes). */
  lengthMinutes: number;
  /** Kept free before and after each consultation (minutes). */
  bufferMinutes: number;
  /** Her minimum notice (minutes); null: the platform's. The platform's is a floor either way. */
  minNoticeMinutes: number | null;
  /** Dates offered: today and the next horizonDays − 1 days, in her zone. */
  horizonDays: number;
  weekly: readonly WeeklyHours[];
  /** Exceptions keyed by date. */
  exceptions: ReadonlyMap<string, readonly DateException[]>;
  /** Occupied intervals, in any order. */
  occupied: readonly OccupiedInterval[];
  /** When the first of the holds among `occupied` lapses (epoch ms; absent or Infinity: none will). */
  firstHoldExpiryMs?: number;
}

/** The offer's part of a schedule, from the lawyer's row. */
export interface LawyerOffer {
  timezone: string;
  consultation_minutes: number;
  buffer_minutes: number;
  min_notice_minutes: number | null;
  horizon_days: number;
}

export function offerOf(row: LawyerOffer): Pick<LawyerSchedule, 'timezone' | 'lengthMinutes' | 'bufferMinutes' | 'minNoticeMinutes' | 'horizonDays'> {
  return {
    timezone: row.timezone,
    lengthMinutes: row.consultation_minutes,
    bufferMinutes: row.buffer_minutes,
    minNoticeMinutes: row.min_notice_minutes,
    horizonDays: row.horizon_days > 0 ? row.horizon_days : DEFAULT_HORIZON_DAYS,
  };
}

export interface AvailabilityRules {
  nowMs: number;
  /** The platform's minimum lead time (MIN_LEAD_TIME_MINUTES): no lawyer's notice is shorter. */
  minLeadTimeMs: number;
}

function toMinutes(time: string): number {
  return Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
}

/** The consultation times a lawyer offers on one date (before occupancy, notice and horizon), in start order. */
export function slotsOnDate(schedule: LawyerSchedule, date: string): GeneratedSlot[] {
  const override = schedule.exceptions.get(date);
  let ranges: ReadonlyArray<{ start_time: string | null; end_time: string | null }>;
  if (override && override.length > 0) {
    // A closed marker (no times) wins over any custom hours listed for the same date.
    if (override.some((e) => e.start_time === null || e.end_time === null)) return [];
    ranges = override;
  } else {
    const weekday = isoWeekday(date);
    ranges = schedule.weekly.filter((w) => w.weekday === weekday);
  }
  if (ranges.length === 0) return [];
  const length = schedule.lengthMinutes;
  const step = length + schedule.bufferMinutes;
  const out: GeneratedSlot[] = [];
  const seen = new Set<number>();
  for (const range of ranges) {
    const end = toMinutes(range.end_time!);
    for (let t = toMinutes(range.start_time!); t + length <= end; t += step) {
      if (seen.has(t)) continue;
      const start_time = minutesToTime(t);
      const startsAtMs = zonedToUtcMs(date, start_time, schedule.timezone);
      const end_time = minutesToTime(t + length);
      const endsAtMs = end_time === '24:00:00' ? zonedToUtcMs(addDays(date, 1), '00:00:00', schedule.timezone) : zonedToUtcMs(date, end_time, schedule.timezone);
      if (startsAtMs === null || endsAtMs === null) continue; // skipped by a DST jump
      seen.add(t);
      out.push({ date, start_time, end_time, startsAtMs, endsAtMs });
    }
  }
  if (ranges.length > 1) out.sort((a, b) => a.startsAtMs - b.startsAtMs);
  return out;
}

/** Occupied intervals sorted by start, with the running maximum of where each blocks until. */
interface OccupancyIndex {
  starts: Float64Array;
  blockMax: Float64Array;
}

const indexes = new WeakMap<readonly OccupiedInterval[], Map<number, OccupancyIndex>>();

function occupancyIndex(occupied: readonly OccupiedInterval[], bufferMs: number): OccupancyIndex {
  let byBuffer = indexes.get(occupied);
  if (!byBuffer) indexes.set(occupied, (byBuffer = new Map()));
  let index = byBuffer.get(bufferMs);
  if (index) return index;
  const sorted = [...occupied].sort((a, b) => a.startMs - b.startMs);
  const starts = new Float64Array(sorted.length);
  const blockMax = new Float64Array(sorted.length);
  let max = -Infinity;
  sorted.forEach((o, i) => {
    starts[i] = o.startMs;
    // A candidate starting before this is too close (its own buffer before, or the hold's cells after).
    max = Math.max(max, o.endMs + bufferMs, o.tailMs ?? o.endMs);
    blockMax[i] = max;
  });
  index = { starts, blockMax };
  byBuffer.set(bufferMs, index);
  return index;
}

/**
 * Whether [start − buffer, end + buffer) meets no occupied interval (and the candidate's own
 * cells, [start, end + buffer), meet no hold's cells).
 */
export function isFree(schedule: LawyerSchedule, slot: Pick<GeneratedSlot, 'startsAtMs' | 'endsAtMs'>): boolean {
  if (schedule.occupied.length === 0) return true;
  const bufferMs = schedule.bufferMinutes * 60_000;
  const { starts, blockMax } = occupancyIndex(schedule.occupied, bufferMs);
  // The intervals starting before the candidate's end + buffer; one of them blocking past its start collides.
  const limit = slot.endsAtMs + bufferMs;
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (starts[mid]! < limit) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 || blockMax[lo - 1]! <= slot.startsAtMs;
}

/** The effective notice: hers, never less than the platform's. */
export function noticeMs(schedule: Pick<LawyerSchedule, 'minNoticeMinutes'>, rules: AvailabilityRules): number {
  return Math.max(rules.minLeadTimeMs, (schedule.minNoticeMinutes ?? 0) * 60_000);
}

/** The first date beyond her horizon, in her zone. */
export function horizonEndDate(schedule: Pick<LawyerSchedule, 'timezone' | 'horizonDays'>, nowMs: number): string {
  return addDays(dateInZone(nowMs, schedule.timezone), schedule.horizonDays);
}

/** A check of many candidates of one schedule at one instant (the notice and horizon computed once). */
export function bookableCheck(schedule: LawyerSchedule, rules: AvailabilityRules): (slot: GeneratedSlot) => boolean {
  const earliest = rules.nowMs + noticeMs(schedule, rules);
  const beyond = horizonEndDate(schedule, rules.nowMs);
  return (slot) => slot.startsAtMs >= earliest && slot.date < beyond && isFree(schedule, slot);
}

/** Whether a generated slot can be requested now: beyond the notice, within the horizon, free. */
export function isBookable(schedule: LawyerSchedule, slot: GeneratedSlot, rules: AvailabilityRules): boolean {
  return bookableCheck(schedule, rules)(slot);
}

/** The next midnight in her zone (when a new date enters the horizon), epoch ms. */
function nextMidnight(schedule: Pick<LawyerSchedule, 'timezone'>, nowMs: number): number {
  return zonedToUtcMs(addDays(dateInZone(nowMs, schedule.timezone), 1), '00:00:00', schedule.timezone) ?? nowMs + 3_600_000;
}

/**
 * The first date, from today in the lawyer's zone, with at least one bookable slot (null within
 * the horizon — hers, or `horizonDays` if shorter), and until when it holds without any write:
 * the answer changes when the last bookable slot of that date falls inside the notice, when a
 * hold lapses (a time frees up), or, with no date found, when a new day enters the horizon.
 */
export function nextAvailability(schedule: LawyerSchedule, rules: AvailabilityRules, horizonDays: number): WithValidity<string | null> {
  const holdBound = (schedule.firstHoldExpiryMs ?? Infinity) - 1;
  if (schedule.weekly.length === 0 && schedule.exceptions.size === 0) return { value: null, validThroughMs: holdBound };
  const today = dateInZone(rules.nowMs, schedule.timezone);
  const days = Math.min(horizonDays, schedule.horizonDays);
  const bookable = bookableCheck(schedule, rules);
  const notice = noticeMs(schedule, rules);
  for (let i = 0; i < days; i++) {
    const date = addDays(today, i);
    let last: GeneratedSlot | undefined;
    for (const slot of slotsOnDate(schedule, date)) {
      if (bookable(slot)) last = slot;
    }
    if (last) return { value: date, validThroughMs: Math.min(last.startsAtMs - notice, holdBound) };
  }
  return { value: null, validThroughMs: Math.min(nextMidnight(schedule, rules.nowMs) - 1, holdBound) };
}

/**
 * Until when the bookable flags of these slots hold without any write: the first bookable slot
 * to fall inside the notice, the first hold to lapse, or — when some of them lie beyond the
 * horizon — the next midnight in her zone.
 */
export function availabilityValidThrough(schedule: LawyerSchedule, slots: readonly GeneratedSlot[], rules: AvailabilityRules): number {
  let through = (schedule.firstHoldExpiryMs ?? Infinity) - 1;
  const bookable = bookableCheck(schedule, rules);
  const notice = noticeMs(schedule, rules);
  const beyond = horizonEndDate(schedule, rules.nowMs);
  for (const slot of slots) {
    if (bookable(slot)) through = Math.min(through, slot.startsAtMs - notice);
  }
  if (slots.some((s) => s.date >= beyond)) through = Math.min(through, nextMidnight(schedule, rules.nowMs) - 1);
  return through;
}

/** Cells of CELL_MINUTES (as UTC ISO text) covering [fromMs, toMs): what a hold or booking records in slot_cells. */
export function cellsCovering(fromMs: number, toMs: number, cellMinutes = 15): string[] {
  const cell = cellMinutes * 60_000;
  const out: string[] = [];
  for (let t = Math.floor(fromMs / cell) * cell; t < toMs; t += cell) out.push(new Date(t).toISOString());
  return out;
}
