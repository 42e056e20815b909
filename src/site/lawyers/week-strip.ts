/**
 * The free-times page's week strip, as data: the seven days of a week (Monday to Sunday, dates in
 * the lawyer's zone), how many free times each has, the chosen day and its times. Pure functions
 * over an availability answer; the query's `week` and `day` are untrusted text, so anything
 * malformed, past or out of range falls back to the default (this week, its first day with free
 * times) rather than an error.
 */
import type { AvailabilityResponse } from '../../contract/directory.ts';
import { addDays, daysBetween, isoWeekday, utcMsToDate, dateToUtcMs } from '../../zoned-time.ts';

/** How far ahead a `week` link may point (the lawyer's horizon ends the times well before). */
export const MAX_WEEKS_AHEAD = 53;

export type Slot = AvailabilityResponse['slots'][number];

export interface StripDay {
  date: string;
  /** Free (bookable) times that day; none before today or past the horizon. */
  slots: Slot[];
  today: boolean;
  past: boolean;
}

export interface WeekStrip {
  /** The week's Monday. */
  week: string;
  days: StripDay[];
  /** The chosen day (one with free times), or null when the week has none. */
  selected: string | null;
  /**
   * Whether the window holds free times after this week (it covers all of the next week): a next
   * week to link to. Past the lawyer's horizon, times are generated but never free, so the links stop there.
   */
  hasLater: boolean;
}

/** `value` when it is a real calendar date written `YYYY-MM-DD`, otherwise null. */
export function validDate(value: unknown): string | null {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = dateToUtcMs(value);
  return Number.isFinite(ms) && utcMsToDate(ms) === value ? value : null;
}

/** The Monday of the week holding `date`. */
export function mondayOf(date: string): string {
  return addDays(date, 1 - isoWeekday(date));
}

/** The week to show: the one holding `asked` if it is between this week and MAX_WEEKS_AHEAD, else this week. */
export function chooseWeek(today: string, asked: string | null): string {
  const current = mondayOf(today);
  if (!asked) return current;
  const week = mondayOf(asked);
  return week < current || daysBetween(current, week) > MAX_WEEKS_AHEAD * 7 ? current : week;
}

/** The strip of `week` from an availability window starting on or before its first bookable day. */
export function weekStrip(a: AvailabilityResponse, week: string, today: string, askedDay: string | null): WeekStrip {
  const sunday = addDays(week, 6);
  const free = new Map<string, Slot[]>();
  let hasLater = false;
  for (const s of a.slots) {
    if (!s.available) continue;
    if (s.date > sunday) hasLater = true;
    if (s.date < week || s.date > sunday) continue;
    const list = free.get(s.date) ?? [];
    list.push(s);
    free.set(s.date, list);
  }
  const days: StripDay[] = [];
  for (let i = 0; i < 7; i++) {
    const date = addDays(week, i);
    days.push({ date, slots: free.get(date) ?? [], today: date === today, past: date < today });
  }
  const bookable = days.filter((d) => d.slots.length > 0);
  const selected = askedDay && bookable.some((d) => d.date === askedDay) ? askedDay : (bookable[0]?.date ?? null);
  return { week, days, selected, hasLater };
}

/**
 * weekStrip, kept per availability answer: the directory hands out the same answer object while
 * nothing changed, so a page view of a known week reuses its strip instead of walking every slot.
 */
const strips = new WeakMap<AvailabilityResponse, Map<string, WeekStrip>>();
const MAX_STRIPS = 16;
function stripOf(a: AvailabilityResponse, week: string, today: string, askedDay: string | null): WeekStrip {
  let known = strips.get(a);
  if (!known) strips.set(a, (known = new Map()));
  const key = `${week} ${today} ${askedDay ?? ''}`;
  let strip = known.get(key);
  if (!strip) {
    strip = weekStrip(a, week, today, askedDay);
    if (known.size >= MAX_STRIPS) known.delete(known.keys().next().value!);
    known.set(key, strip);
  }
  return strip;
}

/** What the week strip shows: the availability window, the strip, and the weeks either side (null at the ends). */
export interface LoadedWeek {
  availability: AvailabilityResponse;
  strip: WeekStrip;
  week: string;
  prevWeek: string | null;
  nextWeek: string | null;
}

/**
 * The week (Monday to Sunday, in the lawyer's zone) holding `query.week` (default: this week)
 * and the chosen day in it, from one 14-day availability window starting at the week's first
 * bookable day: this week, and enough of the next to know whether a next week exists (the
 * lawyer's horizon ends the generated times). Untrusted query text: anything malformed, past or
 * too far ahead is the default, never an error page. The booking page and the move page use it.
 */
export async function loadWeek(
  availabilityOf: (start: string | undefined) => Promise<AvailabilityResponse>,
  query: { week?: unknown; day?: unknown; start_date?: unknown },
): Promise<LoadedWeek> {
  const current = await availabilityOf(undefined);
  const today = current.start_date;
  const week = chooseWeek(today, validDate(query.week) ?? validDate(query.start_date));
  const from = week < today ? today : week;
  const availability = from === today ? current : await availabilityOf(from);
  const strip = stripOf(availability, week, today, validDate(query.day));
  return { availability, strip, week, prevWeek: week > mondayOf(today) ? addDays(week, -7) : null, nextWeek: strip.hasLater ? addDays(week, 7) : null };
}
