/**
 * The choices a lawyer's offer and calendar are made of (DESIGN.md §10, docs/lawyers.md "The
 * consultation and the calendar"). One definition, used where slots are generated, where hours
 * are imported and where the portal's forms are validated.
 */

/** The consultation's length, in minutes. */
export const CONSULTATION_LENGTHS = [30, 45, 60, 90] as const;
/** The pause kept free before and after every consultation, in minutes. */
export const BUFFER_MINUTES = [0, 15, 30, 45, 60] as const;
/** Minimum notice options, in minutes (1 h … 2 days); never less than the platform's MIN_LEAD_TIME_MINUTES. */
export const NOTICE_MINUTES = [60, 120, 240, 720, 1440, 2880] as const;
/** How many days ahead people may book (today included). */
export const HORIZON_DAYS = [14, 30, 60, 90] as const;
export const DEFAULT_HORIZON_DAYS = 90;
/** The zones a lawyer in Spain works in. */
export const TIME_ZONES = ['Europe/Madrid', 'Atlantic/Canary'] as const;

/** Occupancy is recorded in cells of this many minutes (slot_cells): every range edge and buffer is a multiple. */
export const CELL_MINUTES = 15;

export type ConsultationLength = (typeof CONSULTATION_LENGTHS)[number];
export type TimeZone = (typeof TIME_ZONES)[number];

/** `HH:MM` or `HH:MM:SS` on a quarter hour (:00, :15, :30, :45, no seconds); `24:00` ends a day. */
export function isQuarterHour(time: string): boolean {
  const m = /^(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(time);
  if (!m) return false;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (m[3] !== undefined && m[3] !== '00') return false;
  if (h === 24) return min === 0;
  return h < 24 && min < 60 && min % CELL_MINUTES === 0;
}

export function isConsultationLength(n: number): n is ConsultationLength {
  return (CONSULTATION_LENGTHS as readonly number[]).includes(n);
}

export function isBufferMinutes(n: number): boolean {
  return (BUFFER_MINUTES as readonly number[]).includes(n);
}

export function isTimeZone(zone: string): zone is TimeZone {
  return (TIME_ZONES as readonly string[]).includes(zone);
}
