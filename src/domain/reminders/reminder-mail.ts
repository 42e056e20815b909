/**
 * The emails of the reminders sweep (docs/mail.md#reminders), pure like consultation-mail.ts:
 * the person's reminders 24 hours and 1 hour before (in their language), the review invitation
 * once the consultation was held, and the lawyer's digest the evening before (Spanish or English).
 * Times are the lawyer's wall-clock time with its zone, and the person's own time beside it when
 * it differs (the receipt's helpers).
 */
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import { dayAndTime, formatDay } from '../../i18n/format.ts';
import { lawyerSideLocale, personWhen, table, zoneLabel } from '../booking/consultation-mail.ts';
import { personPolicy } from '../booking/policy.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { formatInZone } from '../../zoned-time.ts';
import type { OutgoingMail } from '../notify/outbox.ts';
import type { ReminderCandidate } from '../../db/repositories/reminders.repository.ts';

export const PERSON_24H_KIND = 'consultation_reminder_24h';
export const PERSON_1H_KIND = 'consultation_reminder_1h';
export const LAWYER_DAY_BEFORE_KIND = 'consultation_lawyer_day_before';
export const REVIEW_INVITATION_KIND = 'consultation_review_invitation';

/** The person's language: their account's, else the one they booked in, else Spanish. */
export function personLocale(c: Pick<ReminderCandidate, 'person_locale' | 'consultation_locale'>): Locale {
  if (isLocale(c.person_locale)) return c.person_locale;
  if (isLocale(c.consultation_locale)) return c.consultation_locale;
  return 'es';
}

/** A lawyer's language: English when her account says so, else Spanish (lawyers practise in Spain); the same rule as her booking notice. */
export function lawyerLocale(c: Pick<ReminderCandidate, 'lawyer_user_locale'>): 'es' | 'en' {
  return lawyerSideLocale(c.lawyer_user_locale);
}

/** "How to join", by the format the person chose (none when it was not chosen). */
function joinLine(c: ReminderCandidate, locale: Locale): string | null {
  const r = messages(locale).reminders;
  if (c.format === 'video') return r.video;
  if (c.format === 'phone' && c.phone_e164) return r.phone(c.phone_e164);
  if (c.format === 'in_person' && c.lawyer_office_address) return r.inPerson(sanitizeShortText(c.lawyer_office_address));
  return null;
}

/** The person's reminder, 24 hours or 1 hour before. */
export function personReminderMail(c: ReminderCandidate & { person_email: string }, which: '24h' | '1h', ctx: { startsAtMs: number; nowMs: number; siteUrl: string }): OutgoingMail {
  const locale = personLocale(c);
  const m = messages(locale);
  const r = m.reminders;
  const t = m.mail.receipt;
  const name = sanitizeShortText(c.lawyer_name);
  const day = formatDay(c.slot_date, locale);
  const start = c.start_time.slice(0, 5);
  const end = c.end_time.slice(0, 5);
  const theirs = personWhen(c, c.lawyer_timezone, c.person_timezone, locale);
  const join = joinLine(c, locale);
  // The policy as it stands when the mail is written: at 24 hours before, free cancellation ends.
  let policyLine: string | null = null;
  if (which === '24h') {
    const p = personPolicy(ctx.startsAtMs, ctx.nowMs);
    if (p.canCancelWithRefund) {
      const free = formatInZone(Date.parse(p.freeUntil), c.lawyer_timezone);
      policyLine = m.policy.freeUntil(dayAndTime(free.slice(0, 10), free.slice(11, 16), locale));
    } else {
      policyLine = m.policy.late;
    }
  }
  return {
    kind: which === '24h' ? PERSON_24H_KIND : PERSON_1H_KIND,
    to: c.person_email,
    subject: (which === '24h' ? r.subject24h : r.subject1h)(name, dayAndTime(c.slot_date, start, locale)),
    text: [
      which === '24h' ? r.intro24h : r.intro1h,
      '',
      table([
        [t.lawyer(c.lawyer_form_of_address ?? null), name],
        [t.when, t.whenValue(day, start, end, zoneLabel(c.slot_date, c.start_time, c.lawyer_timezone, locale))],
        ...(theirs ? [[t.yourWhen, theirs] as const] : []),
        [r.page, `${ctx.siteUrl}/consultations/${c.id}`],
        [t.reference, c.id],
      ]),
      ...(join ? ['', join] : []),
      ...(policyLine ? ['', policyLine] : []),
      '',
      `— ${t.signature}`,
    ].join('\n'),
  };
}

/** The invitation to review a held consultation. */
export function reviewInvitationMail(c: ReminderCandidate & { person_email: string }, siteUrl: string): OutgoingMail {
  const locale = personLocale(c);
  const m = messages(locale);
  const r = m.reminders;
  const name = sanitizeShortText(c.lawyer_name);
  return {
    kind: REVIEW_INVITATION_KIND,
    to: c.person_email,
    subject: r.reviewSubject(name),
    text: [r.reviewIntro(name, formatDay(c.slot_date, locale)), '', `${r.reviewAsk}:`, `${siteUrl}/consultations/${c.id}/review`, '', r.reviewNote, '', `— ${m.mail.receipt.signature}`].join('\n'),
  };
}

/** The lawyer's digest of her consultations on `date` (her zone), sent the evening before. */
export function lawyerDigestMail(to: string, date: string, consultations: readonly ReminderCandidate[], siteUrl: string): OutgoingMail {
  const first = consultations[0]!;
  const locale = lawyerLocale(first);
  const m = messages(locale);
  const r = m.reminders;
  const day = formatDay(date, locale);
  const lines = consultations.map((c) => {
    const parts = [`${c.start_time.slice(0, 5)}–${c.end_time.slice(0, 5)}`, c.person_email ?? '—'];
    if (c.format === 'video' || c.format === 'phone' || c.format === 'in_person') parts.push(r.digestFormat[c.format]);
    if (c.format === 'phone' && c.phone_e164) parts.push(r.digestPhone(c.phone_e164));
    return `- ${parts.join(' · ')}`;
  });
  return {
    kind: LAWYER_DAY_BEFORE_KIND,
    to,
    subject: r.digestSubject(day, consultations.length),
    text: [
      r.digestIntro,
      '',
      ...lines,
      '',
      r.digestZone(zoneLabel(date, first.start_time, first.lawyer_timezone, locale)),
      `${r.digestAll}: ${siteUrl}/lawyer/consultations`,
      '',
      `— ${m.mail.lawyerNotice.signature}`,
    ].join('\n'),
  };
}
