/**
 * Wall-clock time in a lawyer's IANA zone ↔ UTC instants, with nothing but Intl.
 * Slots are defined in local wall-clock time (a 09:00 consultation is at 09:00 in Madrid all
 * year), so every instant is derived through the zone's offset on that very date.
 */

const partsFormatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, number>();
const MAX_OFFSET_CACHE = 50_000;
const HOUR_MS = 3_600_000;

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = partsFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partsFormatters.set(timeZone, f);
  }
  return f;
}

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallParts(utcMs: number, timeZone: string): WallParts {
  const out: WallParts = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  for (const p of formatterFor(timeZone).formatToParts(utcMs)) {
    if (p.type in out) out[p.type as keyof WallParts] = Number(p.value);
  }
  return out;
}

/**
 * The zone's offset from UTC, in minutes, at an instant. Cached per zone and UTC hour:
 * every offset change in the zones we serve happens on a whole hour.
 */
export function offsetMinutesAt(utcMs: number, timeZone: string): number {
  const key = `${timeZone}|${Math.floor(utcMs / HOUR_MS)}`;
  const hit = offsetCache.get(key);
  if (hit !== undefined) return hit;
  const p = wallParts(utcMs, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  const offset = Math.round((asUtc - Math.floor(utcMs / 1000) * 1000) / 60_000);
  if (offsetCache.size >= MAX_OFFSET_CACHE) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

/** Milliseconds since midnight for `HH:MM:SS`. */
export function timeToMs(time: string): number {
  return ((Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))) * 60 + Number(time.slice(6, 8))) * 1000;
}

/** `HH:MM:SS` for a number of minutes since midnight. */
export function minutesToTime(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${h < 10 ? '0' : ''}${h}:${m < 10 ? '0' : ''}${m}:00`;
}

/** UTC midnight of a `YYYY-MM-DD` date, as epoch ms (a calendar date, not an instant). */
export function dateToUtcMs(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
}

/**
 * `YYYY-MM-DD` of a UTC-midnight epoch ms (of the day holding any instant), for years 0–9999.
 * Arithmetic rather than `toISOString().slice(0, 10)`, which cost four times as much on every
 * free-times page (H. Hinnant's civil-from-days; checked day by day against Date in the tests).
 */
export function utcMsToDate(ms: number): string {
  const z = Math.floor(ms / 86_400_000) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return `${y < 1000 ? String(y).padStart(4, '0') : y}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

export function addDays(date: string, days: number): string {
  return utcMsToDate(dateToUtcMs(date) + days * 86_400_000);
}

/** Whole days from `a` to `b` (b − a). */
export function daysBetween(a: string, b: string): number {
  return Math.round((dateToUtcMs(b) - dateToUtcMs(a)) / 86_400_000);
}

/** ISO weekday of a date: 1 = Monday … 7 = Sunday. */
export function isoWeekday(date: string): number {
  const d = new Date(dateToUtcMs(date)).getUTCDay();
  return d === 0 ? 7 : d;
}

/** The calendar date in a zone at an instant. */
export function dateInZone(utcMs: number, timeZone: string): string {
  return utcMsToDate(utcMs + offsetMinutesAt(utcMs, timeZone) * 60_000);
}

const dayOffsetCache = new Map<string, number | null>();

/**
 * The zone's offset on a date when it is the same all day (null on a day with a DST change).
 * Cached: availability converts hundreds of slots per request, all on a handful of dates.
 */
function steadyOffsetOn(date: string, timeZone: string): number | null {
  const key = `${timeZone}|${date}`;
  const hit = dayOffsetCache.get(key);
  if (hit !== undefined) return hit;
  const midnight = dateToUtcMs(date);
  // Any UTC offset is within ±14 h: the local day lies within this window of UTC instants.
  const early = offsetMinutesAt(midnight - 14 * HOUR_MS, timeZone);
  const late = offsetMinutesAt(midnight + 38 * HOUR_MS, timeZone);
  const value = early === late ? early : null;
  if (dayOffsetCache.size >= MAX_OFFSET_CACHE) dayOffsetCache.clear();
  dayOffsetCache.set(key, value);
  return value;
}

/**
 * The instant of a wall-clock time in a zone, or null when that wall-clock time does not exist
 * (skipped by a daylight-saving jump). An ambiguous time (repeated hour) resolves to its first occurrence.
 */
export function zonedToUtcMs(date: string, time: string, timeZone: string): number | null {
  const steady = steadyOffsetOn(date, timeZone);
  if (steady !== null) return dateToUtcMs(date) + timeToMs(time) - steady * 60_000;
  const wall = dateToUtcMs(date) + timeToMs(time);
  const first = wall - offsetMinutesAt(wall, timeZone) * 60_000;
  const offset = offsetMinutesAt(first, timeZone);
  const candidate = wall - offset * 60_000;
  if (candidate + offsetMinutesAt(candidate, timeZone) * 60_000 === wall) {
    const earlier = candidate - HOUR_MS;
    if (earlier + offsetMinutesAt(earlier, timeZone) * 60_000 === wall) return earlier;
    return candidate;
  }
  const other = wall - offsetMinutesAt(candidate, timeZone) * 60_000;
  return other + offsetMinutesAt(other, timeZone) * 60_000 === wall ? other : null;
}

/** RFC 3339 with the zone's offset at that instant, e.g. `2026-11-23T10:00:00+01:00`. */
export function formatInZone(utcMs: number, timeZone: string): string {
  const offset = offsetMinutesAt(utcMs, timeZone);
  const local = new Date(utcMs + offset * 60_000).toISOString().slice(0, 19);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${local}${sign}${hh}:${mm}`;
}
