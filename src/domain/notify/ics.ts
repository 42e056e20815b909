/**
 * iCalendar (RFC 5545) invitations: one VCALENDAR with one VEVENT, METHOD:PUBLISH (an event to
 * add to a calendar, not a meeting request to answer). Times are written in UTC (`…Z`), derived
 * from the slot's wall-clock time in the lawyer's IANA zone, so no VTIMEZONE is needed and every
 * calendar shows the right instant in its own zone.
 *
 * Text values come from imported data (lawyer names, cities): they are escaped (RFC 5545 §3.3.11)
 * and control characters are dropped, so no value can end its line and start a property of its own.
 */
import { zonedToUtcMs } from '../../zoned-time.ts';

export interface IcsEvent {
  /** Globally unique and stable for the event (a consultation keeps its UID in every copy). */
  uid: string;
  /** When this copy was created. */
  stamp: Date;
  /** `YYYY-MM-DD` and `HH:MM:SS`, wall-clock time in `timezone`. */
  date: string;
  startTime: string;
  endTime: string;
  timezone: string;
  summary: string;
  location?: string;
  description?: string;
  url?: string;
  /** RFC 5545 STATUS; CONFIRMED unless said otherwise. */
  status?: 'CONFIRMED' | 'CANCELLED';
  /** RFC 5545 SEQUENCE: 0 when booked, higher with every update or cancellation. */
  sequence?: number;
}

/** Escapes a TEXT value: backslash, semicolon, comma and line breaks; other control characters go. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, '');
}

/**
 * Folds a content line to at most 75 octets per line (CRLF + one space before each continuation),
 * never inside a UTF-8 character.
 */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (octets + size > 75) {
      out.push(current);
      // The leading space of a continuation line counts towards its 75 octets.
      current = ' ';
      octets = 1;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join('\r\n');
}

/** `20261123T090000Z` */
function utcStamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

function instant(date: string, time: string, timezone: string): number {
  // Slots come from the schedule and never fall in an hour skipped by a clock change; the
  // fallback only keeps a malformed row from throwing (the same one booking.service.ts uses).
  return zonedToUtcMs(date, time, timezone) ?? Date.parse(`${date}T${time}Z`);
}

/** The VEVENT lines of one event (unfolded). */
function veventLines(event: IcsEvent): string[] {
  const start = instant(event.date, event.startTime, event.timezone);
  const end = instant(event.date, event.endTime, event.timezone);
  return [
    'BEGIN:VEVENT',
    `UID:${escapeText(event.uid)}`,
    `DTSTAMP:${utcStamp(event.stamp.getTime())}`,
    `DTSTART:${utcStamp(start)}`,
    `DTEND:${utcStamp(end)}`,
    `SUMMARY:${escapeText(event.summary)}`,
    ...(event.location ? [`LOCATION:${escapeText(event.location)}`] : []),
    ...(event.description ? [`DESCRIPTION:${escapeText(event.description)}`] : []),
    // A URI value, not TEXT: not escaped, but it must stay on its line.
    ...(event.url ? [`URL:${event.url.replace(/[\r\n]/g, '')}`] : []),
    `STATUS:${event.status ?? 'CONFIRMED'}`,
    `SEQUENCE:${Math.max(0, Math.trunc(event.sequence ?? 0))}`,
    // A cancelled event no longer blocks time.
    `TRANSP:${event.status === 'CANCELLED' ? 'TRANSPARENT' : 'OPAQUE'}`,
    'END:VEVENT',
  ];
}

/**
 * The `.ics` text of one event (CRLF line ends, folded). `PUBLISH` by default (an event to add);
 * `CANCEL` (RFC 5546 §3.2.5) with the same UID and a higher SEQUENCE withdraws it.
 */
export function buildIcs(event: IcsEvent, method: 'PUBLISH' | 'CANCEL' = 'PUBLISH'): string {
  const withStatus = method === 'CANCEL' ? { ...event, status: 'CANCELLED' as const } : event;
  return buildCalendar([withStatus], { method });
}

/**
 * A calendar of several events (a subscription feed): `name` becomes X-WR-CALNAME, which
 * calendar apps show as the subscribed calendar's title.
 */
export function buildCalendar(events: readonly IcsEvent[], options: { method?: 'PUBLISH' | 'CANCEL'; name?: string } = {}): string {
  const lines = [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Consulta//Consultation booking//EN',
    'CALSCALE:GREGORIAN',
    `METHOD:${options.method ?? 'PUBLISH'}`,
    ...(options.name ? [`X-WR-CALNAME:${escapeText(options.name)}`] : []),
    ...events.flatMap(veventLines),
    'END:VCALENDAR',
  ];
  return `${lines.map(foldLine).join('\r\n')}\r\n`;
}
