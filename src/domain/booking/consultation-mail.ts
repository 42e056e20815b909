/**
 * The emails of a confirmed consultation: the receipt to the person who confirmed (in their
 * language, with an `.ics` invitation) and the notice to the lawyer (at their contact email, if
 * they have one). Pure: BookingService reads the facts and enqueues what this returns.
 *
 * Every price comes from quote(): the person paid exactly the fee, and the platform's share is
 * shown as a part of it. Times are the lawyer's wall-clock times with the zone named as people say
 * it ("hora peninsular") and its UTC offset that day, and — when the person's own zone is known
 * and differs — their time on the line below; the invitation carries the exact instants.
 * No card data exists here.
 */
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import { comma, euros, dayAndTime, formatDay } from '../../i18n/format.ts';
import { zoneName } from '../../i18n/reference.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { dateInZone, formatInZone, offsetMinutesAt, zonedToUtcMs } from '../../zoned-time.ts';
import { buildIcs } from '../notify/ics.ts';
import type { OutgoingMail } from '../notify/outbox.ts';
import { quote } from './quote.ts';
import type { ConsultationFormat, LanguageAck } from '../../db/schema.ts';
import type { LawyerOfferRow } from '../../db/repositories/purchase.repository.ts';
import { bookingReference, calendarLinks, formatPhone, nextStep, type NextStep } from './purchase.ts';
import { personPolicy } from './policy.ts';
import { whoComes, whoComesLines } from './who-comes.ts';

export const RECEIPT_KIND = 'consultation_receipt';
export const LAWYER_NOTICE_KIND = 'consultation_lawyer_notice';

export interface ConsultationMailFacts {
  intent: { id: string; slot_date: string; start_time: string; end_time: string; confirmation_token: string };
  /** When the consultation was confirmed (the invitation's DTSTAMP). */
  confirmedAt: Date;
  /**
   * `zone`: the person's own time zone when the site knew it as they confirmed (the `consulta_tz`
   * cookie; untrusted text, checked here). When it shows another wall-clock time than the
   * lawyer's, the receipt gives their time too.
   */
  person: { email: string; locale: string | null; zone?: string | null };
  lawyer: {
    name: string;
    timezone: string;
    city: string | null;
    consultation_fee_cents: number;
    platform_commission_percent: number;
    contact_email: string | null;
    /** How she is named (0034): the receipt's labels word her by it; neutral when absent. */
    form_of_address?: FormOfAddress | null;
    /** Her account's language, when she has an account: her notice is written in it (lawyerSideLocale). */
    locale?: string | null;
  };
  siteUrl: string;
  /**
   * What was bought (issue 20): the consultation's id (its booking reference), the hold page's
   * choices and the lawyer's offer. Absent in older callers: the mails then say nothing of it.
   */
  bought?: {
    consultationId: string;
    format: ConsultationFormat | null;
    note: string | null;
    phone_e164: string | null;
    offer: LawyerOfferRow | null;
    /** Who comes (0034), as the hold kept it: the lawyer's notice names them, never by their email. */
    person_name?: string | null;
    person_languages?: string | null;
    language_ack?: LanguageAck | null;
    note_language?: string | null;
  };
}

/** "hora peninsular, UTC+01:00" (Arabic: «توقيت شبه الجزيرة، UTC+01:00»): the zone as people say it, and its offset at the start of the consultation. */
export function zoneLabel(date: string, time: string, timezone: string, locale: Locale): string {
  const ms = zonedToUtcMs(date, time, timezone) ?? Date.parse(`${date}T${time}Z`);
  return `${zoneName(locale, timezone)}${comma(locale)}UTC${formatInZone(ms, timezone).slice(-6)}`;
}

/** `zone` when it is an IANA zone Intl knows, else null (it came from a browser cookie). */
export function knownZone(zone: string | null | undefined): string | null {
  if (typeof zone !== 'string' || zone.length === 0 || zone.length > 64 || !/^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/.test(zone)) return null;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

/**
 * The consultation in the person's own zone — "martes, 1 de diciembre de 2026, 09:00–10:00 (hora
 * de Canarias, UTC+00:00)" — when it differs from the lawyer's wall-clock time; else null.
 */
export function personWhen(intent: Pick<ConsultationMailFacts['intent'], 'slot_date' | 'start_time' | 'end_time'>, lawyerZone: string, personZone: string | null | undefined, locale: Locale): string | null {
  const zone = knownZone(personZone);
  const startMs = zonedToUtcMs(intent.slot_date, intent.start_time, lawyerZone);
  const endMs = zonedToUtcMs(intent.slot_date, intent.end_time, lawyerZone);
  if (!zone || startMs === null || endMs === null || zone === lawyerZone || offsetMinutesAt(startMs, zone) === offsetMinutesAt(startMs, lawyerZone)) return null;
  const start = formatInZone(startMs, zone);
  const label = `${zoneName(locale, zone)}${comma(locale)}UTC${start.slice(-6)}`;
  return messages(locale).mail.receipt.whenValue(formatDay(dateInZone(startMs, zone), locale), start.slice(11, 16), formatInZone(endMs, zone).slice(11, 16), label);
}

/**
 * The language of what Consulta writes to a lawyer about her bookings (her notice, her evening
 * digest): her account's when the lawyer's side is written in it (Spanish and English: the
 * portal's `lawyerBookings` and the notice's who-comes lines), else Spanish — lawyers practise in
 * Spain. The verification emails (`lawyerMail`) exist in all six languages and use hers as is.
 */
export function lawyerSideLocale(locale: string | null | undefined): 'es' | 'en' {
  return locale === 'en' ? 'en' : 'es';
}

/** Label–value lines, the values aligned. */
export function table(rows: ReadonlyArray<readonly [string, string]>): string {
  const width = Math.max(...rows.map(([label]) => label.length)) + 2;
  return rows.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`).join('\n');
}

/** The UID of a consultation's invitation: one per consultation for its whole life (updates and cancellations reuse it). */
export const consultationUid = (intentId: string, siteUrl: string): string => `${intentId}@${new URL(siteUrl).hostname}`;

/** The calendar invitation of a consultation (the receipt's attachment, and the download on the site). */
export function consultationIcs(c: {
  intentId: string;
  confirmedAt: Date;
  date: string;
  startTime: string;
  endTime: string;
  lawyer: { name: string; timezone: string; city: string | null };
  siteUrl: string;
  link: string;
  locale: Locale;
  /** 0 when booked; higher for the updated invitation of a move, or the cancellation. */
  sequence?: number;
  /**
   * PUBLISH (the invitation, and its update after a move: same UID, higher SEQUENCE) or CANCEL
   * (RFC 5546 §3.2.5): docs/booking-intents.md#cancel-or-move says why not REQUEST.
   */
  method?: 'PUBLISH' | 'CANCEL';
  /**
   * What happens at the time (purchase.ts `nextStep`), when known: the invitation's LOCATION is
   * then where the person goes (the video link, the office's address), not the lawyer's city — a
   * person in Bogotá with a video call saw "Madrid" in their calendar (icsLocation).
   */
  next?: NextStep;
}): string {
  const t = messages(c.locale).mail;
  // The lawyer's name is third-party text: one plain line in a calendar too.
  const name = sanitizeShortText(c.lawyer.name);
  return buildIcs({
    uid: consultationUid(c.intentId, c.siteUrl),
    stamp: c.confirmedAt,
    date: c.date,
    startTime: c.startTime,
    endTime: c.endTime,
    timezone: c.lawyer.timezone,
    summary: t.invitation.summary(name),
    ...withLocation(icsLocation(c.next, c.lawyer.city)),
    description: t.invitation.description(name, c.link),
    url: c.link,
    sequence: c.sequence ?? 0,
  }, c.method ?? 'PUBLISH');
}

/**
 * Where the consultation takes place, for a calendar: the video link (once it is shown), the
 * office's address; nothing for a phone call or a video link not shown yet (the person stays where
 * they are); the lawyer's city only when the format is unknown (a booking made before the choice).
 */
export function icsLocation(next: NextStep | undefined, city: string | null): string | null {
  switch (next?.kind) {
    case 'video':
      return next.url;
    case 'in_person':
      return next.address || city;
    case 'phone':
      return null;
    default:
      return city;
  }
}

function withLocation(location: string | null): { location?: string } {
  return location ? { location } : {};
}

/** The receipt and (when the lawyer has a contact email) the lawyer's notice. */
export function consultationMails(facts: ConsultationMailFacts): OutgoingMail[] {
  const { intent, lawyer, siteUrl } = facts;
  const price = quote(lawyer);
  const start = intent.start_time.slice(0, 5);
  const end = intent.end_time.slice(0, 5);
  const link = `${siteUrl}/confirm/${intent.confirmation_token}`;
  const name = sanitizeShortText(lawyer.name);
  const lawyerText = lawyer.city ? `${name} (${lawyer.city})` : name;
  const form = lawyer.form_of_address ?? null;

  const locale: Locale = isLocale(facts.person.locale) ? facts.person.locale : 'es';
  const t = messages(locale).mail;
  const day = formatDay(intent.slot_date, locale);
  const zone = zoneLabel(intent.slot_date, intent.start_time, lawyer.timezone, locale);
  const theirs = personWhen(intent, lawyer.timezone, facts.person.zone, locale);
  const p = messages(locale).purchase;
  const policy = messages(locale).policy;
  const bought = facts.bought ? boughtFacts(facts, locale, link) : null;
  const ics = consultationIcs({ intentId: intent.id, confirmedAt: facts.confirmedAt, date: intent.slot_date, startTime: intent.start_time, endTime: intent.end_time, lawyer, siteUrl, link, locale, ...(bought ? { next: bought.step } : {}) });
  const receipt: OutgoingMail = {
    kind: RECEIPT_KIND,
    to: facts.person.email,
    // The language's comma: an Arabic subject read "…، الخميس، 26 نوفمبر 2026, 18:30".
    subject: t.receipt.subject(name, dayAndTime(intent.slot_date, start, locale)),
    text: [
      t.receipt.intro,
      '',
      table([
        [t.receipt.lawyer(form), lawyerText],
        [t.receipt.when, t.receipt.whenValue(day, start, end, zone)],
        ...(theirs ? [[t.receipt.yourWhen, theirs] as const] : []),
        [t.receipt.paid, euros(price.totalCents, locale)],
        [`  ${t.receipt.toLawyer(form)}`, euros(price.lawyerPayoutCents, locale)],
        [`  ${t.receipt.platformShare(price.commissionPercent)}`, euros(price.platformShareCents, locale)],
        ...(bought ? ([[p.lengthLabel, p.length(bought.minutes)], [p.formatLabel, bought.formatName], [p.reference, bought.reference]] as const) : []),
        [t.receipt.booking, link],
        [t.receipt.reference, intent.id],
      ]),
      '',
      t.receipt.priceNote(form),
      ...(bought ? ['', `${p.nextHeading}:`, bought.next, '', `${policy.title}: ${policy.summary}`, policy.move, bought.policyLine] : []),
      '',
      t.receipt.calendar(t.invitation.filename),
      ...(bought ? [`${p.calendarLinks}:`, `  ${p.google}: ${bought.links.google}`, `  ${p.outlook}: ${bought.links.outlook}`] : []),
      '',
      `— ${t.receipt.signature}`,
    ].join('\n'),
    attachments: [{ filename: t.invitation.filename, contentType: 'text/calendar; charset=utf-8; method=PUBLISH', content: ics }],
  };
  if (!lawyer.contact_email) return [receipt];

  // In her language (her account's, Spanish or English; else Spanish), whatever the person's.
  const her = lawyerSideLocale(lawyer.locale);
  const n = messages(her).mail.lawyerNotice;
  const lawyerDay = formatDay(intent.slot_date, her);
  const b = facts.bought;
  const who = b
    ? whoComes({ consultationId: b.consultationId, name: b.person_name, languages: b.person_languages, languageAck: b.language_ack, noteLanguage: b.note_language, format: b.format, phoneE164: b.phone_e164, note: b.note, videoUrl: b.offer?.video_url })
    : null;
  const notice: OutgoingMail = {
    kind: LAWYER_NOTICE_KIND,
    to: lawyer.contact_email,
    subject: n.subject(`${lawyerDay}${comma(her)}${start}`),
    text: [
      n.intro,
      '',
      table([
        [n.when, n.whenValue(lawyerDay, start, end, zoneLabel(intent.slot_date, intent.start_time, lawyer.timezone, her))],
        // Their contact address, labelled as one: the name is the line below ('Persona'), never the email.
        [who ? messages(her).lawyerBookings.email : n.client, facts.person.email],
        [n.fee, euros(price.totalCents, her)],
        [`  ${n.platformShare(price.commissionPercent)}`, euros(price.platformShareCents, her)],
        [`  ${n.payout}`, euros(price.lawyerPayoutCents, her)],
        ...(who ? [] : [[n.reference, intent.id] as const]),
      ]),
      // Who comes and how, the same lines as her portal and her feed (the notice is hers alone: the phone number too).
      ...(who ? ['', ...whoComesLines(who, her, true)] : []),
      '',
      ...(b?.note ? [`${messages(her).purchase.client.note}:`, '-----', b.note, '-----', ''] : []),
      n.clientNote,
      '',
      `— ${n.signature}`,
    ].join('\n'),
  };
  return [receipt, notice];
}

/** The receipt's words for what was bought, in the person's language. */
function boughtFacts(facts: ConsultationMailFacts, locale: Locale, link: string) {
  const b = facts.bought!;
  const p = messages(locale).purchase;
  const startMs = zonedToUtcMs(facts.intent.slot_date, facts.intent.start_time, facts.lawyer.timezone) ?? Date.parse(`${facts.intent.slot_date}T${facts.intent.start_time}Z`);
  const endMs = zonedToUtcMs(facts.intent.slot_date, facts.intent.end_time, facts.lawyer.timezone) ?? startMs;
  const offer = b.offer ?? { video_url: null, office_address: null, consultation_minutes: Math.round((endMs - startMs) / 60_000) };
  // The receipt is read later: it carries the video link itself (the site shows it from 15 minutes before).
  const step = nextStep(b.format, offer, b.phone_e164, startMs, facts.confirmedAt.getTime(), true);
  const name = sanitizeShortText(facts.lawyer.name);
  const policy = personPolicy(startMs, facts.confirmedAt.getTime());
  const t = messages(locale);
  return {
    minutes: offer.consultation_minutes,
    formatName: b.format ? p.formats[b.format] : '—',
    reference: bookingReference(b.consultationId),
    step,
    next: nextStepText(step, locale),
    policyLine: policy.canCancelWithRefund ? t.policy.freeUntil(dayAndTime(dateInZone(Date.parse(policy.freeUntil), facts.lawyer.timezone), formatInZone(Date.parse(policy.freeUntil), facts.lawyer.timezone).slice(11, 16), locale)) : t.policy.late,
    links: calendarLinks({
      title: t.mail.invitation.summary(name),
      startMs,
      endMs,
      details: t.mail.invitation.description(name, link),
      location: step.kind === 'in_person' ? step.address : step.kind === 'video' ? step.url : null,
    }),
  };
}

/** "The lawyer calls you on +34 612 34 56 78 …", "At the lawyer's office: …", the video link. */
export function nextStepText(step: NextStep, locale: Locale): string {
  const p = messages(locale).purchase;
  switch (step.kind) {
    case 'video':
      return step.url ? p.videoMail(step.url) : p.nextVideo;
    case 'phone':
      return step.phone ? p.nextPhone(formatPhone(step.phone)) : p.nextPhoneNone;
    case 'in_person':
      return `${p.nextInPerson(step.address)}\n${p.map}: ${step.mapUrl}`;
    default:
      return p.nextUnknown;
  }
}
