/**
 * The values a lawyer may choose for her consultation and calendar (DESIGN.md §10;
 * docs/lawyers.md): the portal's selects offer exactly these, the calendar service accepts
 * exactly these, and slot generation reads them.
 */
export const CONSULTATION_LENGTHS = [30, 45, 60, 90] as const;
/** Minutes kept free between two consultations. */
export const BUFFER_MINUTES = [0, 15, 30, 45, 60] as const;
/** Minimum notice before a consultation starts, in minutes (1 h … 2 days). */
export const NOTICE_MINUTES = [60, 120, 240, 720, 1440, 2880] as const;
/** How many days ahead people may book. */
export const HORIZON_DAYS = [14, 30, 60, 90] as const;
/** The zones Spain's lawyers work in: the peninsula and the Balearics, and the Canary Islands. */
export const TIME_ZONES = ['Europe/Madrid', 'Atlantic/Canary'] as const;
export type LawyerTimeZone = (typeof TIME_ZONES)[number];

/** A wall-clock time `HH:MM` or `HH:MM:SS` on a quarter hour (00, 15, 30, 45; seconds 00). */
export function isQuarterHour(time: string): boolean {
  const m = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/.exec(time);
  if (!m) return false;
  return Number(m[2]) % 15 === 0 && (m[3] === undefined || m[3] === '00');
}
