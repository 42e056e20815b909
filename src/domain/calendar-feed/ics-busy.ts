/**
 * Busy intervals from an iCalendar text (a lawyer's own calendar feed), with ical.js (Mozilla's
 * parser, the one Thunderbird uses; maintained, typed, handles RRULE/RDATE/EXDATE, RECURRENCE-ID
 * overrides and the feed's own VTIMEZONE definitions).
 *
 * - Only VEVENTs; TRANSP:TRANSPARENT ("free") and STATUS:CANCELLED events are not busy, and an
 *   override (RECURRENCE-ID) is judged by itself: a cancelled occurrence of a weekly meeting frees it.
 * - Recurrences are expanded over [fromMs, toMs) only (now … now + her horizon).
 * - Times: UTC and zones the feed defines (VTIMEZONE) are exact. A TZID the feed does not define
 *   is read as an IANA zone, then as a Windows zone name (Outlook's "Romance Standard Time"),
 *   else as her own zone; floating times and all-day events are her own zone's wall clock.
 * - Nothing but the instants is kept: no titles, descriptions, places or attendees.
 * - Overlapping and touching intervals are merged; at most `cap` are returned (the earliest).
 */
import ICAL from 'ical.js';
import { zonedToUtcMs } from '../directory/zoned-time.ts';

export interface BusyInterval {
  /** Epoch ms, [start, end). */
  start: number;
  end: number;
}

export interface ExpandOptions {
  fromMs: number;
  toMs: number;
  /** Her own IANA zone: floating times and all-day events are read in it. */
  defaultZone: string;
  /** The most intervals kept (after merging). */
  cap: number;
  /** The most occurrences walked per recurring event (a guard against pathological rules). */
  maxIterations?: number;
}

export interface ExpandResult {
  intervals: BusyInterval[];
  /** More intervals than `cap` were found; the earliest `cap` were kept. */
  truncated: boolean;
  /** VEVENTs read (masters and overrides). */
  events: number;
}

/** The text is not an iCalendar document (HTML login page, JSON, garbage). */
export class NotICalendarError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NotICalendarError';
  }
}

/**
 * Windows zone names (as Outlook and Exchange write them in TZID) → IANA, after CLDR's
 * windowsZones.xml, for the zones a lawyer in Spain and her clients are likeliest to meet. Used
 * only when the feed does not define the zone itself (Outlook usually does).
 */
const WINDOWS_ZONES: Record<string, string> = {
  'Romance Standard Time': 'Europe/Madrid',
  'W. Europe Standard Time': 'Europe/Berlin',
  'Central Europe Standard Time': 'Europe/Budapest',
  'Central European Standard Time': 'Europe/Warsaw',
  'GMT Standard Time': 'Europe/London',
  'Greenwich Standard Time': 'Atlantic/Reykjavik',
  'E. Europe Standard Time': 'Europe/Chisinau',
  'FLE Standard Time': 'Europe/Kiev',
  'GTB Standard Time': 'Europe/Bucharest',
  'Russian Standard Time': 'Europe/Moscow',
  'Turkey Standard Time': 'Europe/Istanbul',
  'Morocco Standard Time': 'Africa/Casablanca',
  'W. Central Africa Standard Time': 'Africa/Lagos',
  'Eastern Standard Time': 'America/New_York',
  'Central Standard Time': 'America/Chicago',
  'Mountain Standard Time': 'America/Denver',
  'Pacific Standard Time': 'America/Los_Angeles',
  'SA Pacific Standard Time': 'America/Bogota',
  'Venezuela Standard Time': 'America/Caracas',
  'Pacific SA Standard Time': 'America/Santiago',
  'Argentina Standard Time': 'America/Buenos_Aires',
  'E. South America Standard Time': 'America/Sao_Paulo',
  'China Standard Time': 'Asia/Shanghai',
  'India Standard Time': 'Asia/Kolkata',
  'Tokyo Standard Time': 'Asia/Tokyo',
  UTC: 'UTC',
  'Coordinated Universal Time': 'UTC',
};

function isIanaZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The IANA zone for a TZID the feed did not define, or null. */
export function zoneForTzid(tzid: string): string | null {
  const name = tzid.trim().replace(/^"(.*)"$/, '$1');
  // Some writers prefix a path ("/mozilla.org/20050126_1/Europe/Madrid").
  const bare = name.replace(/^\/.*?\/(?=[A-Z][a-z]+\/)/, '');
  if (WINDOWS_ZONES[name]) return WINDOWS_ZONES[name]!;
  if (isIanaZone(bare)) return bare;
  return null;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** The instant of a wall-clock time in `zone` (a skipped time moves forward by the gap). */
function wallToMs(t: ICAL.Time, zone: string): number {
  const date = `${pad(t.year, 4)}-${pad(t.month)}-${pad(t.day)}`;
  const time = t.isDate ? '00:00:00' : `${pad(t.hour)}:${pad(t.minute)}:${pad(t.second)}`;
  const exact = zonedToUtcMs(date, time, zone);
  if (exact !== null) return exact;
  // In the spring-forward gap: the same wall time an hour later exists.
  const later = zonedToUtcMs(date, `${pad(Math.min(t.hour + 1, 23))}:${pad(t.minute)}:${pad(t.second)}`, zone);
  return (later ?? Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second)) - 3_600_000;
}

/** Whether ical.js resolved the time to an exact zone (UTC or a VTIMEZONE of the feed). */
function hasExactZone(t: ICAL.Time): boolean {
  if (t.isDate) return false;
  const zone = t.zone;
  if (!zone) return false;
  if (zone === ICAL.Timezone.utcTimezone || zone.tzid === 'UTC' || zone.tzid === 'Z') return true;
  if (zone === ICAL.Timezone.localTimezone || zone.tzid === 'floating') return false;
  return Boolean(zone.component);
}

function toMs(t: ICAL.Time, wallZone: string): number {
  return hasExactZone(t) ? t.toUnixTime() * 1000 : wallToMs(t, wallZone);
}

/** The zone to read a property's wall-clock time in when ical.js could not resolve its TZID. */
function wallZoneOf(event: ICAL.Component, property: string, fallback: string): string {
  const prop = event.getFirstProperty(property);
  const tzid = prop?.getParameter('tzid');
  const name = Array.isArray(tzid) ? tzid[0] : tzid;
  if (typeof name === 'string' && name !== '') return zoneForTzid(name) ?? fallback;
  return fallback;
}

function upper(component: ICAL.Component, name: string): string {
  const value = component.getFirstPropertyValue(name);
  return typeof value === 'string' ? value.trim().toUpperCase() : '';
}

/** Whether this VEVENT (a master or one override) makes her busy. */
function isBusy(component: ICAL.Component): boolean {
  return upper(component, 'transp') !== 'TRANSPARENT' && upper(component, 'status') !== 'CANCELLED';
}

/** Sorted, merged (overlapping or touching), capped. */
export function mergeIntervals(list: BusyInterval[], cap: number): { intervals: BusyInterval[]; truncated: boolean } {
  const sorted = [...list].sort((a, b) => a.start - b.start || a.end - b.end);
  const merged: BusyInterval[] = [];
  for (const i of sorted) {
    const last = merged[merged.length - 1];
    if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
    else merged.push({ start: i.start, end: i.end });
  }
  return { intervals: merged.slice(0, cap), truncated: merged.length > cap };
}

/** The busy intervals of `text` within [fromMs, toMs). Throws NotICalendarError on anything else. */
export function busyIntervalsFromIcs(text: string, options: ExpandOptions): ExpandResult {
  const maxIterations = options.maxIterations ?? 20_000;
  if (!/BEGIN:VCALENDAR/i.test(text.slice(0, 4096))) throw new NotICalendarError('no BEGIN:VCALENDAR at the start');
  let root: ICAL.Component;
  try {
    const parsed = ICAL.parse(text);
    const first = Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed[0] : parsed;
    root = new ICAL.Component(first as never);
  } catch (err) {
    throw new NotICalendarError(`unreadable iCalendar: ${(err as Error).message}`.slice(0, 200));
  }
  if (root.name !== 'vcalendar') throw new NotICalendarError(`the document is a ${root.name}, not a VCALENDAR`);

  const vevents = root.getAllSubcomponents('vevent');
  const masters = new Map<string, ICAL.Component>();
  const overrides = new Map<string, ICAL.Component[]>();
  const loose: ICAL.Component[] = [];
  for (const v of vevents) {
    const uid = v.getFirstPropertyValue('uid');
    if (typeof uid !== 'string' || uid === '') {
      loose.push(v);
      continue;
    }
    if (v.hasProperty('recurrence-id')) {
      const list = overrides.get(uid) ?? [];
      list.push(v);
      overrides.set(uid, list);
    } else if (!masters.has(uid)) masters.set(uid, v);
    else loose.push(v);
  }
  // Overrides whose master is not in the feed are single events of their own.
  for (const [uid, list] of overrides) if (!masters.has(uid)) loose.push(...list);

  const found: BusyInterval[] = [];
  const { fromMs, toMs: untilMs, defaultZone } = options;
  const keep = (start: number, end: number) => {
    if (!(end > start)) return;
    const s = Math.max(start, fromMs);
    const e = Math.min(end, untilMs);
    if (e > s) found.push({ start: s, end: e });
  };
  // The list itself is capped too: a feed with millions of events stops being read.
  const tooMany = () => found.length > options.cap * 4;

  const single = (component: ICAL.Component) => {
    if (!isBusy(component) || !component.hasProperty('dtstart')) return;
    const event = new ICAL.Event(component);
    const startZone = wallZoneOf(component, 'dtstart', defaultZone);
    const endZone = component.hasProperty('dtend') ? wallZoneOf(component, 'dtend', startZone) : startZone;
    keep(toMs(event.startDate, startZone), toMs(event.endDate, endZone));
  };

  for (const component of loose) {
    if (tooMany()) break;
    single(component);
  }
  for (const [uid, master] of masters) {
    if (tooMany()) break;
    if (!master.hasProperty('dtstart')) continue;
    const event = new ICAL.Event(master, { strictExceptions: false, exceptions: overrides.get(uid) ?? [] });
    if (!event.isRecurring()) {
      single(master);
      // Overrides of a non-recurring event (RDATE-less): each is its own event.
      for (const o of overrides.get(uid) ?? []) single(o);
      continue;
    }
    const startZone = wallZoneOf(master, 'dtstart', defaultZone);
    const iterator = event.iterator();
    let walked = 0;
    for (let next = iterator.next(); next; next = iterator.next()) {
      if (++walked > maxIterations || tooMany()) break;
      const details = event.getOccurrenceDetails(next);
      const item = details.item;
      const itemZone = item === event ? startZone : wallZoneOf(item.component, 'dtstart', startZone);
      const start = toMs(details.startDate, itemZone);
      // The recurrence is in the master's time: once an occurrence starts past the window, stop.
      if (toMs(details.recurrenceId, startZone) >= untilMs && start >= untilMs) break;
      if (!isBusy(item.component)) continue;
      keep(start, toMs(details.endDate, itemZone));
    }
    // An override moved into the window from an occurrence outside it is still counted.
    for (const o of overrides.get(uid) ?? []) {
      const recurrence = o.getFirstPropertyValue('recurrence-id');
      if (recurrence instanceof ICAL.Time && toMs(recurrence, startZone) >= untilMs) single(o);
    }
  }
  const { intervals, truncated } = mergeIntervals(found, options.cap);
  return { intervals, truncated: truncated || tooMany(), events: vevents.length };
}
