/** How long a verification holds and when its reminder is due (docs/lawyers.md). */

/** A verification expires 12 calendar months after it was made. */
export const VERIFICATION_MONTHS = 12;
/** The reminder goes to the lawyer and the operator this many days before expiry, once. */
export const REMINDER_DAYS = 30;

/** The instant a verification made at `verifiedAtIso` expires: the same time 12 months later (clamped to the month's end). */
export function verificationExpiry(verifiedAtIso: string): string {
  const d = new Date(verifiedAtIso);
  const day = d.getUTCDate();
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + VERIFICATION_MONTHS, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(day, lastDay));
  return target.toISOString();
}
