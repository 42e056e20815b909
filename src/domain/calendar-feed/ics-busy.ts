/**
 * Busy intervals from an iCalendar text (a lawyer's own calendar feed), with ical.js (Mozilla's
 * parser, the one Thunderbird uses; maintained, typed, handles RRULE/RDATE/EXDATE, RECURRENCE-ID
 * overrides and the feed's own VTIMEZONE definitions).
 *
 * - Only VEVENTs; TRANSP:TRANSPARENT ("free") and STATUS:CANCELLED events are not busy, and an
 *   override (RECURRENCE-ID) is judged by itself: a cancelled occurrence of a weekly meeting frees it.
 * - Recurrences are expanded over [fromMs, toMs) only (now … now + her horizon), and a rule
 *   without COUNT or RDATE starts its walk just before the window, not at its DTSTART: a
 *   weekly meeting begun in 2009 costs a year of weeks, not sixteen.
 * - Times: UTC and zones the feed defines (VTIMEZONE) are exact. A TZID the feed does not define
 *   is read as an IANA zone, then as a Windows zone name (Outlook's "Romance Standard Time"),
 *   else as her own zone; floating times and all-day events are her own zone's wall clock.
 * - Nothing but the instants is kept: no titles, descriptions, places or attendees.
 * - Overlapping and touching intervals are merged; at most `cap` are returned (the earliest).
 *
 * Bounded (issue 25, docs/security.md#untrusted-input-that-costs-cpu-issue-25): one work budget per feed
 * counts every VEVENT and every occurrence walked, kept or not, and the number of VEVENTs is
 * capped before anything is parsed. A feed past either is refused with a reason she can read.
 * What the budget cannot count (ical.js's own steps inside one `next()`, a rule no date
 * satisfies) is bounded by the wall-clock limit of the worker that runs this
 * (calendar-thread.ts).
 *
 * `expandCalendar` is self-contained on purpose: it refers to nothing outside its own body but
 * its arguments and JavaScript's globals, because calendar-thread.ts runs its source text in a
 * worker thread (as the request log's thread does; no build step, no TypeScript loader, the same
 * under the bundle and under tsx). Hence the zone arithmetic below is its own, not zoned-time.ts's.
 */
import ICALModule from 'ical.js';
import type ICAL from 'ical.js';

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
  /** The most work units (VEVENTs read + occurrences walked) for the whole feed (WORK_BUDGET). */
  budget: number;
  /** The most VEVENTs a feed may hold; more is refused before parsing (MAX_EVENTS). */
  maxEvents: number;
}

export interface ExpandResult {
  intervals: BusyInterval[];
  /** More intervals than `cap` were found; the earliest `cap` were kept. */
  truncated: boolean;
  /** VEVENTs read (masters and overrides). */
  events: number;
  /** Work units spent (VEVENTs + occurrences walked). */
  work: number;
}

/** Why a feed's text was not read: `calendarFeed.errors` in the catalogues explains each to her. */
export type IcsRefusal = 'not_calendar' | 'too_many_events' | 'too_complex';

export type ExpandOutcome = ({ ok: true } & ExpandResult) | { ok: false; code: IcsRefusal; detail: string };

/** The default work budget: a year of a few hundred weekly and daily series, with room to spare. */
export const WORK_BUDGET = 50_000;
/** The default cap on VEVENTs (a 5 MB feed of real events holds about 10,000). */
export const MAX_EVENTS = 20_000;

/**
 * The busy intervals of `text` within [fromMs, toMs), or why they cannot be read. Never throws.
 * Self-contained (see the file's comment): `ical` is the ical.js module.
 */
export function expandCalendar(ical: typeof ICAL, text: string, options: ExpandOptions): ExpandOutcome {
  const { fromMs, toMs: untilMs, defaultZone, cap, budget, maxEvents } = options;
  const HOUR = 3_600_000;
  const DAY = 86_400_000;

  // -- zones ---------------------------------------------------------------------------------
  // Windows zone names (as Outlook and Exchange write them in TZID) → IANA, after CLDR's
  // windowsZones.xml, for the zones a lawyer in Spain and her clients are likeliest to meet. Used
  // only when the feed does not define the zone itself (Outlook usually does).
  const windowsZones: Record<string, string> = {
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
  const formatters = new Map<string, Intl.DateTimeFormat | null>();
  const formatter = (zone: string): Intl.DateTimeFormat | null => {
    if (!formatters.has(zone)) {
      try {
        formatters.set(zone, new Intl.DateTimeFormat('en-US', { timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' }));
      } catch {
        formatters.set(zone, null);
      }
    }
    return formatters.get(zone)!;
  };
  const zoneForTzid = (tzid: string): string | null => {
    const name = tzid.trim().replace(/^"(.*)"$/, '$1');
    // Some writers prefix a path ("/mozilla.org/20050126_1/Europe/Madrid").
    const bare = name.replace(/^\/.*?\/(?=[A-Z][a-z]+\/)/, '');
    if (windowsZones[name]) return windowsZones[name]!;
    return formatter(bare) ? bare : null;
  };
  // Every offset change in the zones we meet happens on a whole hour: cached per zone and hour.
  const offsets = new Map<string, number>();
  const offsetMinutesAt = (utcMs: number, zone: string): number => {
    const key = `${zone}|${Math.floor(utcMs / HOUR)}`;
    const hit = offsets.get(key);
    if (hit !== undefined) return hit;
    const p: Record<string, number> = {};
    for (const part of formatter(zone)!.formatToParts(utcMs)) p[part.type] = Number(part.value);
    const asUtc = Date.UTC(p.year!, p.month! - 1, p.day!, p.hour!, p.minute!, p.second!);
    const offset = Math.round((asUtc - Math.floor(utcMs / 1000) * 1000) / 60_000);
    if (offsets.size > 50_000) offsets.clear();
    offsets.set(key, offset);
    return offset;
  };
  /** The instant of a wall-clock time (as if UTC) in `zone`; null in a spring-forward gap; the first of a repeated hour. */
  const zonedToUtc = (wall: number, zone: string): number | null => {
    const first = wall - offsetMinutesAt(wall, zone) * 60_000;
    const candidate = wall - offsetMinutesAt(first, zone) * 60_000;
    if (candidate + offsetMinutesAt(candidate, zone) * 60_000 === wall) {
      const earlier = candidate - HOUR;
      return earlier + offsetMinutesAt(earlier, zone) * 60_000 === wall ? earlier : candidate;
    }
    const other = wall - offsetMinutesAt(candidate, zone) * 60_000;
    return other + offsetMinutesAt(other, zone) * 60_000 === wall ? other : null;
  };
  /** The wall-clock fields of a time, as if they were UTC. */
  const wallOf = (t: ICAL.Time): number => Date.UTC(t.year, t.month - 1, t.day, t.isDate ? 0 : t.hour, t.isDate ? 0 : t.minute, t.isDate ? 0 : t.second);
  /** The instant of a wall-clock time in `zone` (a skipped time moves by the gap). */
  const wallToMs = (t: ICAL.Time, zone: string): number => {
    const wall = wallOf(t);
    const exact = zonedToUtc(wall, zone);
    if (exact !== null) return exact;
    // In the spring-forward gap: the same wall time an hour later exists.
    const laterWall = t.isDate || t.hour >= 23 ? wall : wall + HOUR;
    return (zonedToUtc(laterWall, zone) ?? wall) - HOUR;
  };
  /** Whether ical.js resolved the time to an exact zone (UTC or a VTIMEZONE of the feed). */
  const hasExactZone = (t: ICAL.Time): boolean => {
    if (t.isDate) return false;
    const zone = t.zone;
    if (!zone) return false;
    if (zone === ical.Timezone.utcTimezone || zone.tzid === 'UTC' || zone.tzid === 'Z') return true;
    if (zone === ical.Timezone.localTimezone || zone.tzid === 'floating') return false;
    return Boolean(zone.component);
  };
  const toMs = (t: ICAL.Time, wallZone: string): number => (hasExactZone(t) ? t.toUnixTime() * 1000 : wallToMs(t, wallZone));
  /** The zone to read a property's wall-clock time in when ical.js could not resolve its TZID. */
  const wallZoneOf = (event: ICAL.Component, property: string, fallback: string): string => {
    const tzid = event.getFirstProperty(property)?.getParameter('tzid');
    const name = Array.isArray(tzid) ? tzid[0] : tzid;
    return typeof name === 'string' && name !== '' ? (zoneForTzid(name) ?? fallback) : fallback;
  };
  const upper = (component: ICAL.Component, name: string): string => {
    const value = component.getFirstPropertyValue(name);
    return typeof value === 'string' ? value.trim().toUpperCase() : '';
  };
  /** Whether this VEVENT (a master or one override) makes her busy. */
  const isBusy = (component: ICAL.Component): boolean => upper(component, 'transp') !== 'TRANSPARENT' && upper(component, 'status') !== 'CANCELLED';

  // -- the walk ------------------------------------------------------------------------------
  class Refused extends Error {
    constructor(
      readonly code: 'too_complex',
      detail: string,
    ) {
      super(detail);
    }
  }
  let work = 0;
  const spend = () => {
    if (++work > budget) throw new Refused('too_complex', `it needs more than ${budget} steps (events and their repetitions) to read the next ${Math.round((untilMs - fromMs) / DAY)} days`);
  };

  /**
   * Where to start walking a rule so that nothing before the window is walked: DTSTART moved
   * forward by whole periods of the rule (its occurrences repeat with that period), to at least
   * two days plus the event's length before the window, so whatever the shift skips, and the
   * shifted start itself, ends before the window. Null: walk from DTSTART (COUNT counts from it,
   * RDATE lists dates of its own, and several RRULEs are rare enough).
   */
  const walkStart = (component: ICAL.Component, start: ICAL.Time, lengthMs: number): ICAL.Time | null => {
    const rules = component.getAllProperties('rrule');
    if (rules.length !== 1 || component.hasProperty('rdate')) return null;
    const rule = rules[0]!.getFirstValue() as ICAL.Recur;
    if (rule.count) return null;
    const interval = Math.max(1, Math.floor(rule.interval || 1));
    // Any zone is within ±14 hours of UTC: two days of margin covers it and a DST change.
    const target = fromMs - lengthMs - 2 * DAY;
    const wall = wallOf(start);
    if (target <= wall) return null;
    const shifted = start.clone();
    const seconds: Record<string, number> = { SECONDLY: 1, MINUTELY: 60, HOURLY: 3600, DAILY: 86_400, WEEKLY: 7 * 86_400 };
    const unit = seconds[rule.freq];
    if (unit !== undefined) {
      const periodMs = interval * unit * 1000;
      const periods = Math.floor((target - wall) / periodMs);
      if (periods <= 0) return null;
      // Whole days and weeks move the date (the time of day stays); shorter periods, the clock.
      // adjust() normalises at once: a field set past its range is normalised only when read,
      // and ical.js's iterator copies the raw fields (858 million seconds, walked one by one).
      if (unit >= 86_400) shifted.adjust(periods * interval * (unit / 86_400), 0, 0, 0);
      else shifted.adjust(0, 0, 0, periods * interval * unit);
      return shifted;
    }
    // MONTHLY and YEARLY: by whole years (a multiple of the interval, in months or years), so the
    // month and day stay; a 29 February goes back a period while the year has none.
    const stepYears = interval;
    let periods = Math.floor((new Date(target).getUTCFullYear() - start.year - 1) / stepYears);
    if (periods <= 0 || (rule.freq !== 'MONTHLY' && rule.freq !== 'YEARLY')) return null;
    while (periods > 0 && start.month === 2 && start.day === 29 && !ical.Time.isLeapYear(start.year + periods * stepYears)) periods--;
    if (periods <= 0) return null;
    shifted.year += periods * stepYears;
    return shifted;
  };

  try {
    // -- the cap on events, before parsing -----------------------------------------------------
    if (!/BEGIN:VCALENDAR/i.test(text.slice(0, 4096))) return { ok: false, code: 'not_calendar', detail: 'no BEGIN:VCALENDAR at the start' };
    const declared = (text.match(/^[ \t]*BEGIN:VEVENT[ \t]*\r?$/gim) ?? []).length;
    if (declared > maxEvents) return { ok: false, code: 'too_many_events', detail: `${declared} events (at most ${maxEvents} are read)` };
    let root: ICAL.Component;
    try {
      const parsed = ical.parse(text);
      const first = Array.isArray(parsed) && Array.isArray(parsed[0]) ? parsed[0] : parsed;
      root = new ical.Component(first as never);
    } catch (err) {
      return { ok: false, code: 'not_calendar', detail: `unreadable iCalendar: ${(err as Error).message}`.slice(0, 200) };
    }
    if (root.name !== 'vcalendar') return { ok: false, code: 'not_calendar', detail: `the document is a ${root.name}, not a VCALENDAR` };

    const vevents = root.getAllSubcomponents('vevent');
    if (vevents.length > maxEvents) return { ok: false, code: 'too_many_events', detail: `${vevents.length} events (at most ${maxEvents} are read)` };
    const masters = new Map<string, ICAL.Component>();
    const overrides = new Map<string, ICAL.Component[]>();
    const loose: ICAL.Component[] = [];
    for (const v of vevents) {
      spend();
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
    const keep = (start: number, end: number) => {
      if (!(end > start)) return;
      const s = Math.max(start, fromMs);
      const e = Math.min(end, untilMs);
      if (e > s) found.push({ start: s, end: e });
    };
    // The list itself is capped too: a feed with millions of busy times stops being read.
    const tooMany = () => found.length > cap * 4;

    const single = (component: ICAL.Component) => {
      if (!isBusy(component) || !component.hasProperty('dtstart')) return;
      // Exceptions named (none): without them ical.js scans every VEVENT of the feed for its
      // overrides, for every event (a 5 MB feed of 10,000 events took a minute).
      const event = new ical.Event(component, { strictExceptions: false, exceptions: [] });
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
      const own = overrides.get(uid) ?? [];
      const event = new ical.Event(master, { strictExceptions: false, exceptions: own });
      if (!event.isRecurring()) {
        single(master);
        // Overrides of a non-recurring event (RDATE-less): each is its own event.
        for (const o of own) single(o);
        continue;
      }
      const startZone = wallZoneOf(master, 'dtstart', defaultZone);
      const first = event.startDate;
      const lengthMs = Math.max(0, toMs(event.endDate, startZone) - toMs(first, startZone));
      const iterator = event.iterator(walkStart(master, first, lengthMs) ?? undefined);
      const seen = new Set<ICAL.Component>();
      for (let next = iterator.next(); next; next = iterator.next()) {
        spend();
        if (tooMany()) break;
        const recurrenceMs = toMs(next, startZone);
        // The recurrence is in the master's time: once an occurrence starts past the window, stop
        // (an override of a later one moved into the window is read below, as its own event).
        if (recurrenceMs >= untilMs) break;
        // Ends before the window even with two days' margin for a moved override: skipped cheaply.
        if (recurrenceMs + lengthMs + 2 * DAY <= fromMs) continue;
        const details = event.getOccurrenceDetails(next);
        const item = details.item;
        if (item !== event) seen.add(item.component);
        if (!isBusy(item.component)) continue;
        const itemZone = item === event ? startZone : wallZoneOf(item.component, 'dtstart', startZone);
        keep(toMs(details.startDate, itemZone), toMs(details.endDate, itemZone));
      }
      // Overrides the walk did not meet (moved into the window from an occurrence outside it,
      // or of occurrences before where the walk started) are read as events of their own.
      for (const o of own) if (!seen.has(o)) single(o);
    }

    // Sorted, merged (overlapping or touching), capped.
    const sorted = found.sort((a, b) => a.start - b.start || a.end - b.end);
    const merged: BusyInterval[] = [];
    for (const i of sorted) {
      const last = merged[merged.length - 1];
      if (last && i.start <= last.end) last.end = Math.max(last.end, i.end);
      else merged.push({ start: i.start, end: i.end });
    }
    return { ok: true, intervals: merged.slice(0, cap), truncated: merged.length > cap || tooMany(), events: vevents.length, work };
  } catch (err) {
    if (err instanceof Refused) return { ok: false, code: err.code, detail: err.message };
    return { ok: false, code: 'not_calendar', detail: `unreadable: ${(err as Error)?.message ?? String(err)}`.slice(0, 200) };
  }
}

/** A feed's text that is not read: not a calendar, or more than the bounds allow. */
export class IcsRefusedError extends Error {
  constructor(
    readonly code: IcsRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'IcsRefusedError';
  }
}

/**
 * `expandCalendar` on this thread, throwing on a refusal. For tests and small trusted texts only:
 * a lawyer's feed is read through calendar-thread.ts, off the serving thread.
 */
export function busyIntervalsFromIcs(text: string, options: Omit<ExpandOptions, 'budget' | 'maxEvents'> & Partial<ExpandOptions>): ExpandResult {
  const outcome = expandCalendar(ICALModule, text, { budget: WORK_BUDGET, maxEvents: MAX_EVENTS, ...options });
  if (!outcome.ok) throw new IcsRefusedError(outcome.code, outcome.detail);
  const { ok: _ok, ...result } = outcome;
  return result;
}
