/**
 * Her calendar on the portal (docs/lawyers.md#the-portal): weekly hours (several ranges a day),
 * date overrides (closed, or other ranges that replace the week's on that date), minimum notice,
 * buffer between consultations, how far ahead people may book, and her time zone. The values
 * allowed are calendar-rules.ts'; slot generation reads what is stored here.
 *
 * Like the profile (portal.service.ts), every write is one transaction that re-applies the
 * listing rule (weekly hours are part of it) and records the change for every process's caches,
 * and takes the lawyer record the site found from her account — never an id from the request.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  deleteDateException,
  listOwnDateExceptions,
  listOwnWeeklyHours,
  replaceDateException,
  replaceWeeklyHours,
  updateLawyerCalendarSettings,
} from '../../db/repositories/lawyer-portal.repository.ts';
import { findLawyerRecord } from '../../db/repositories/lawyer-lifecycle.repository.ts';
import { deleteHolidayChoice, listHolidayChoices, listLawyerCommunities, setHolidayChoice } from '../../db/repositories/schedule.repository.ts';
import { holidaysBetween, regionOfCommunity } from './holidays.ts';
import type { DB, LawyerTable } from '../../db/schema.ts';
import { addDays, dateInZone, daysBetween } from '../../zoned-time.ts';
import { invalidRequest, notFound, type FieldError } from '../errors.ts';
import { BUFFER_MINUTES, HORIZON_DAYS, isQuarterHour, NOTICE_MINUTES, TIME_ZONES, type TimeZone } from './calendar-rules.ts';
import { afterLawyerWrite } from './portal.service.ts';

/** At most this many ranges on one weekday or one date (the form shows three). */
export const RANGES_PER_DAY = 3;
/** The platform's minimum notice when she never chose one (lawyers.min_notice_minutes null): MIN_LEAD_TIME_MINUTES' default. */
export const DEFAULT_NOTICE_MINUTES = 120;

export interface TimeRange {
  /** `HH:MM`. */
  start: string;
  end: string;
}

export interface CalendarView {
  timezone: TimeZone | string;
  noticeMinutes: number;
  bufferMinutes: number;
  horizonDays: number;
  consultationMinutes: number;
  /** Weekday (1 = Monday … 7 = Sunday) → her ranges that day, in order. */
  week: Record<number, TimeRange[]>;
  /** Her overrides from today on: closed, or the ranges that replace the week's. */
  overrides: Array<{ date: string; closed: boolean; ranges: TimeRange[] }>;
  /**
   * Holidays from today to `lastDate` (docs/lawyers.md#holidays): her region's public ones (closed
   * unless she opened them) and the local ones she closed. `region`: date-holidays' code, or null.
   */
  holidays: Array<{ date: string; name: string | null; kind: 'public' | 'local'; open: boolean }>;
  region: string | null;
  /** Today in her zone: overrides may be set from here to `lastDate`. */
  today: string;
  lastDate: string;
}

export interface WeekInput {
  /** Weekday → ranges as typed (empty strings: an unused row). */
  week?: Partial<Record<number, Array<{ start?: unknown; end?: unknown }>>>;
  noticeMinutes?: unknown;
  bufferMinutes?: unknown;
  horizonDays?: unknown;
  timezone?: unknown;
}

export interface OverrideInput {
  date?: unknown;
  closed?: unknown;
  ranges?: Array<{ start?: unknown; end?: unknown }>;
}

export interface CalendarDeps {
  database: Database;
  clock: Clock;
  /** What a notice never chosen means (the platform's MIN_LEAD_TIME_MINUTES); 120 when not given. */
  defaultNoticeMinutes?: number;
  caches?: { directory?: { invalidate(): void; lawyersChanged?(ids: Iterable<string>): void } };
}

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
const hm = (t: string): string => t.slice(0, 5);
const sec = (t: string): string => `${hm(t)}:00`;
const minutesOf = (t: string): number => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));

/**
 * The ranges of one day, checked: both ends or neither (an empty row is skipped), quarter hours,
 * start before end, in order and not overlapping, each long enough for one consultation.
 */
export function checkRanges(raw: Array<{ start?: unknown; end?: unknown }>, pointer: string, consultationMinutes: number, errors: FieldError[]): TimeRange[] {
  const ranges: TimeRange[] = [];
  raw.slice(0, RANGES_PER_DAY + 1).forEach((r, i) => {
    const start = str(r.start);
    const end = str(r.end);
    if (start === '' && end === '') return;
    const at = `${pointer}/${i}`;
    if (start === '' || end === '') errors.push({ pointer: at, detail: 'give both a start and an end time, or neither' });
    else if (!isQuarterHour(start) || !isQuarterHour(end)) errors.push({ pointer: at, detail: 'times are on the quarter hour (such as 09:00, 09:15, 09:30)' });
    else if (minutesOf(start) >= minutesOf(end)) errors.push({ pointer: at, detail: 'the end must be after the start' });
    else if (minutesOf(end) - minutesOf(start) < consultationMinutes) errors.push({ pointer: at, detail: `a range must be at least as long as one consultation (${consultationMinutes} minutes)` });
    else ranges.push({ start: hm(start), end: hm(end) });
  });
  if (raw.length > RANGES_PER_DAY) errors.push({ pointer, detail: `at most ${RANGES_PER_DAY} ranges a day` });
  // In the order she typed them: each must start after the previous ends (in order, no overlap).
  for (let i = 1; i < ranges.length; i++) {
    if (minutesOf(ranges[i]!.start) < minutesOf(ranges[i - 1]!.end)) {
      errors.push({ pointer, detail: 'ranges must be in order and must not overlap' });
      break;
    }
  }
  return ranges;
}

function oneOf<T extends number | string>(allowed: readonly T[], raw: unknown, pointer: string, detail: string, errors: FieldError[]): T | null {
  const text = str(raw);
  const value = (typeof allowed[0] === 'number' ? Number(text) : text) as T;
  if (text === '' || !allowed.includes(value)) {
    errors.push({ pointer, detail });
    return null;
  }
  return value;
}

export class CalendarService {
  private readonly db: Kysely<DB>;

  constructor(private readonly deps: CalendarDeps) {
    this.db = deps.database.db;
  }

  private today(timezone: string): string {
    return dateInZone(this.deps.clock.now().getTime(), (TIME_ZONES as readonly string[]).includes(timezone) ? timezone : 'Europe/Madrid');
  }

  async calendar(lawyer: LawyerTable): Promise<CalendarView> {
    const row = (await findLawyerRecord(this.db, lawyer.id))!;
    const today = this.today(row.timezone);
    const [hours, exceptions] = await Promise.all([listOwnWeeklyHours(this.db, lawyer.id), listOwnDateExceptions(this.db, lawyer.id, today)]);
    const week: Record<number, TimeRange[]> = { 1: [], 2: [], 3: [], 4: [], 5: [], 6: [], 7: [] };
    for (const h of hours) week[h.weekday]?.push({ start: hm(h.start_time), end: hm(h.end_time) });
    const overrides: CalendarView['overrides'] = [];
    for (const e of exceptions) {
      let o = overrides.at(-1);
      if (!o || o.date !== e.date) overrides.push((o = { date: e.date, closed: false, ranges: [] }));
      if (e.start_time === null || e.end_time === null) o.closed = true;
      else o.ranges.push({ start: hm(e.start_time), end: hm(e.end_time) });
    }
    const lastDate = addDays(today, row.horizon_days);
    const [[place], choices] = await Promise.all([listLawyerCommunities(this.db, [lawyer.id]), listHolidayChoices(this.db, [lawyer.id], today, lastDate)]);
    const region = regionOfCommunity(place?.community);
    const chosen = new Map(choices.map((c) => [c.date, c.choice]));
    const holidays: CalendarView['holidays'] = holidaysBetween(region, today, lastDate).map((h) => ({ date: h.date, name: h.name, kind: 'public' as const, open: chosen.get(h.date) === 'open' }));
    const publicDates = new Set(holidays.map((h) => h.date));
    for (const c of choices) if (c.choice === 'closed' && !publicDates.has(c.date)) holidays.push({ date: c.date, name: null, kind: 'local', open: false });
    holidays.sort((a, b) => a.date.localeCompare(b.date));
    return {
      holidays,
      region,
      timezone: row.timezone,
      noticeMinutes: row.min_notice_minutes ?? this.deps.defaultNoticeMinutes ?? DEFAULT_NOTICE_MINUTES,
      bufferMinutes: row.buffer_minutes,
      horizonDays: row.horizon_days,
      consultationMinutes: row.consultation_minutes,
      week,
      overrides,
      today,
      lastDate,
    };
  }

  /** Saves her week and settings as a whole. Bad input: `invalid_request` naming every field. */
  async saveWeek(lawyer: LawyerTable, input: WeekInput): Promise<void> {
    const row = (await findLawyerRecord(this.db, lawyer.id))!;
    const errors: FieldError[] = [];
    const ranges: Array<{ weekday: number; start_time: string; end_time: string }> = [];
    for (let day = 1; day <= 7; day++) {
      for (const r of checkRanges(input.week?.[day] ?? [], `/week/${day}`, row.consultation_minutes, errors)) ranges.push({ weekday: day, start_time: sec(r.start), end_time: sec(r.end) });
    }
    const notice = oneOf(NOTICE_MINUTES, input.noticeMinutes, '/notice_minutes', 'choose a minimum notice from the list', errors);
    const buffer = oneOf(BUFFER_MINUTES, input.bufferMinutes, '/buffer_minutes', 'choose a buffer from the list', errors);
    const horizon = oneOf(HORIZON_DAYS, input.horizonDays, '/horizon_days', 'choose how far ahead people may book from the list', errors);
    const timezone = oneOf(TIME_ZONES, input.timezone, '/timezone', 'choose Europe/Madrid or Atlantic/Canary', errors);
    if (errors.length > 0 || notice === null || buffer === null || horizon === null || timezone === null) throw invalidRequest('the calendar has problems; fix the fields named', errors);
    const nowIso = this.deps.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      await replaceWeeklyHours(tx, lawyer.id, ranges, row.consultation_minutes);
      await updateLawyerCalendarSettings(tx, lawyer.id, { min_notice_minutes: notice, buffer_minutes: buffer, horizon_days: horizon, timezone }, nowIso);
      await afterLawyerWrite(tx, lawyer.id, nowIso, row.timezone !== timezone);
    });
    this.changed(lawyer.id);
  }

  /** Sets one date's override (closed, or these ranges instead of the week's): from today to her horizon. */
  async setOverride(lawyer: LawyerTable, input: OverrideInput): Promise<void> {
    const row = (await findLawyerRecord(this.db, lawyer.id))!;
    const errors: FieldError[] = [];
    const date = str(input.date);
    const today = this.today(row.timezone);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) errors.push({ pointer: '/date', detail: 'give a date' });
    else if (date < today) errors.push({ pointer: '/date', detail: 'the date has passed; choose today or a later date' });
    else if (daysBetween(today, date) > row.horizon_days) errors.push({ pointer: '/date', detail: `people may book at most ${row.horizon_days} days ahead; choose a date up to ${addDays(today, row.horizon_days)}` });
    const closed = input.closed === true || input.closed === 'on' || input.closed === '1' || input.closed === 'closed';
    const ranges = closed ? [] : checkRanges(input.ranges ?? [], '/ranges', row.consultation_minutes, errors);
    if (!closed && ranges.length === 0 && !errors.some((e) => e.pointer.startsWith('/ranges'))) errors.push({ pointer: '/ranges', detail: 'mark the day closed, or give the hours you work that day' });
    if (errors.length > 0) throw invalidRequest('the date has problems; fix the fields named', errors);
    const nowIso = this.deps.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      await replaceDateException(tx, lawyer.id, date, closed ? 'closed' : ranges.map((r) => ({ start_time: sec(r.start), end_time: sec(r.end) })), row.consultation_minutes);
      await afterLawyerWrite(tx, lawyer.id, nowIso, false);
    });
    this.changed(lawyer.id);
  }

  /** Removes her override of one date (the week's hours apply again). Not hers or none: not found. */
  async removeOverride(lawyer: LawyerTable, rawDate: unknown): Promise<void> {
    const date = str(rawDate);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw notFound('no such date override');
    const nowIso = this.deps.clock.now().toISOString();
    const removed = await this.db.transaction().execute(async (tx) => {
      const gone = await deleteDateException(tx, lawyer.id, date);
      if (gone) await afterLawyerWrite(tx, lawyer.id, nowIso, false);
      return gone;
    });
    if (!removed) throw notFound('no such date override');
    this.changed(lawyer.id);
  }

  /**
   * One click on a holiday: `open` works a public holiday of her region after all, `close` closes a
   * local holiday of her city (or closes an opened public one again), `reset` forgets her choice.
   * From today to her horizon; the same listing and cache steps as every calendar write.
   */
  async holidayChoice(lawyer: LawyerTable, rawDate: unknown, rawAction: unknown): Promise<void> {
    const row = (await findLawyerRecord(this.db, lawyer.id))!;
    const date = str(rawDate);
    const today = this.today(row.timezone);
    const action = str(rawAction);
    const errors: FieldError[] = [];
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || Number.isNaN(Date.parse(`${date}T00:00:00Z`)) || new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10) !== date) errors.push({ pointer: '/date', detail: 'give a date' });
    else if (date < today) errors.push({ pointer: '/date', detail: 'the date has passed; choose today or a later date' });
    else if (daysBetween(today, date) > row.horizon_days) errors.push({ pointer: '/date', detail: `people may book at most ${row.horizon_days} days ahead; choose a date up to ${addDays(today, row.horizon_days)}` });
    if (action !== 'open' && action !== 'close' && action !== 'reset') errors.push({ pointer: '/action', detail: 'open, close or reset' });
    if (errors.length > 0) throw invalidRequest('the holiday has problems; fix the fields named', errors);
    const [place] = await listLawyerCommunities(this.db, [lawyer.id]);
    const isPublic = holidaysBetween(regionOfCommunity(place?.community), date, date).length > 0;
    if (action === 'open' && !isPublic) throw invalidRequest('that date is not a public holiday where she works', [{ pointer: '/date', detail: 'not a public holiday in her region' }]);
    const nowIso = this.deps.clock.now().toISOString();
    await this.db.transaction().execute(async (tx) => {
      // Closing a public holiday is its default: no row needed.
      if (action === 'reset' || (action === 'close' && isPublic)) await deleteHolidayChoice(tx, lawyer.id, date);
      else await setHolidayChoice(tx, lawyer.id, date, action === 'open' ? 'open' : 'closed', nowIso);
      await afterLawyerWrite(tx, lawyer.id, nowIso, false);
    });
    this.changed(lawyer.id);
  }

  private changed(lawyerId: string): void {
    // Her hours change her availability and next_available (and, through the listing rule, maybe search).
    this.deps.caches?.directory?.invalidate();
    this.deps.caches?.directory?.lawyersChanged?.([lawyerId]);
  }
}
