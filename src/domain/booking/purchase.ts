/**
 * What a person buys, and what happens next (issue 20 items 1–2; docs/booking-intents.md#the-hold-pages-choices).
 * Pure rules, one place for the site, the emails and MCP:
 *
 * - the choices on the hold page: the format among those the lawyer offers (chosen for the
 *   person when she offers one only), a note for the lawyer (third-party text, ≤ NOTE_MAX
 *   characters) and, for a phone consultation, a number checked with libphonenumber-js and
 *   stored in E.164 (a number without a country code is read as Spanish);
 * - what happens next: the video link (shown from VIDEO_LINK_LEAD_MS before the start), the
 *   office with a map link, or "the lawyer calls you on …";
 * - the booking reference people quote (the consultation id's first 8 characters, uppercased);
 * - Add to calendar: Google Calendar and Outlook links (the `.ics` is notify/ics.ts).
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { ConsultationFormat } from '../../db/schema.ts';
import { offeredFormats } from '../lawyers/listing.ts';
import { sanitizeShortText } from '../directory/fence.ts';

export type { ConsultationFormat };
export { offeredFormats };

/** The longest note for the lawyer, in characters (Unicode code points). */
export const NOTE_MAX = 1000;
/** The video link is shown from this long before the start. */
export const VIDEO_LINK_LEAD_MS = 15 * 60_000;
/** A number without a country code is read in this region. */
export const DEFAULT_PHONE_REGION = 'ES';

/** The lawyer's offer as the rules need it (a row of `lawyers`). */
export interface LawyerOffer {
  consultation_minutes: number;
  video_url: string | null;
  offers_phone: number;
  office_address: string | null;
}

/** What the person typed on the hold page (untrusted form values). */
export interface ChoiceInput {
  format?: unknown;
  note?: unknown;
  phone?: unknown;
}

export interface Choices {
  format: ConsultationFormat;
  note: string | null;
  phone_e164: string | null;
}

export type ChoiceError = 'format_required' | 'format_not_offered' | 'phone_required' | 'phone_invalid' | 'note_too_long';

export type ChoiceOutcome = { ok: true; choices: Choices } | { ok: false; errors: Partial<Record<'format' | 'phone' | 'note', ChoiceError>> };

const isFormat = (v: unknown): v is ConsultationFormat => v === 'video' || v === 'phone' || v === 'in_person';

/**
 * The format the person has, without asking: the only one the lawyer offers, else the one
 * already chosen (when still offered), else null (they must choose).
 */
export function effectiveFormat(formats: readonly ConsultationFormat[], chosen: ConsultationFormat | null | undefined): ConsultationFormat | null {
  if (formats.length === 1) return formats[0]!;
  return chosen && formats.includes(chosen) ? chosen : null;
}

/** Whether paying must wait for the hold page's choice: she offers several formats and none is chosen. */
export function needsFormatChoice(formats: readonly ConsultationFormat[], chosen: ConsultationFormat | null | undefined): boolean {
  return formats.length > 1 && effectiveFormat(formats, chosen) === null;
}

/** A phone number in E.164 (`+34612345678`), or null when it is not a valid number. */
export function toE164(input: string): string | null {
  const text = input.trim();
  if (text === '' || text.length > 40) return null;
  const parsed = parsePhoneNumberFromString(text, DEFAULT_PHONE_REGION);
  return parsed && parsed.isValid() ? parsed.number : null;
}

/** "+34 612 34 56 78": an E.164 number as people read it. */
export function formatPhone(e164: string): string {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}

/**
 * The note as stored: line endings made `\n`, controls (but tab and newline) and invisible format
 * characters removed, trimmed; null when blank. Its length is checked on this text.
 */
export function cleanNote(text: string): string | null {
  const out = text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, '')
    .replace(/[\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu, '')
    .trim();
  return out === '' ? null : out;
}

/** Checks the hold page's choices against the lawyer's offer. */
export function validateChoices(offer: LawyerOffer, input: ChoiceInput): ChoiceOutcome {
  const formats = offeredFormats(offer);
  const errors: Partial<Record<'format' | 'phone' | 'note', ChoiceError>> = {};
  let format: ConsultationFormat | null = null;
  if (formats.length === 1) format = formats[0]!;
  else if (input.format === undefined || input.format === null || input.format === '') errors.format = 'format_required';
  else if (!isFormat(input.format) || !formats.includes(input.format)) errors.format = 'format_not_offered';
  else format = input.format;

  let phone: string | null = null;
  const phoneText = typeof input.phone === 'string' ? input.phone : '';
  if (format === 'phone') {
    if (phoneText.trim() === '') errors.phone = 'phone_required';
    else if (!(phone = toE164(phoneText))) errors.phone = 'phone_invalid';
  }

  const note = typeof input.note === 'string' ? cleanNote(input.note) : null;
  if (note !== null && [...note].length > NOTE_MAX) errors.note = 'note_too_long';

  if (Object.keys(errors).length > 0 || format === null) return { ok: false, errors };
  return { ok: true, choices: { format, note, phone_e164: phone } };
}

/** "3F2A9C1B": the reference a person quotes (the consultation id's first 8 hex characters). */
export function bookingReference(consultationId: string): string {
  return consultationId.replace(/-/g, '').slice(0, 8).toUpperCase();
}

/** What happens at the time of the consultation, for the confirmed page, the receipt and My consultations. */
export type NextStep =
  /** `url` null until VIDEO_LINK_LEAD_MS before the start. */
  | { kind: 'video'; url: string | null; showsFromMs: number }
  | { kind: 'in_person'; address: string; mapUrl: string }
  | { kind: 'phone'; phone: string | null }
  /** No format recorded (a booking from before the choice existed). */
  | { kind: 'unknown' };

/** An OpenStreetMap search for an address (a plain link: no third-party script on our pages). */
export function mapLink(address: string): string {
  return `https://www.openstreetmap.org/search?query=${encodeURIComponent(address)}`;
}

export function nextStep(format: ConsultationFormat | null | undefined, offer: Pick<LawyerOffer, 'video_url' | 'office_address'>, phoneE164: string | null | undefined, startMs: number, nowMs: number, revealVideo = false): NextStep {
  switch (format) {
    case 'video': {
      const showsFromMs = startMs - VIDEO_LINK_LEAD_MS;
      const url = offer.video_url && offer.video_url.startsWith('https://') ? offer.video_url : null;
      return { kind: 'video', url: revealVideo || nowMs >= showsFromMs ? url : null, showsFromMs };
    }
    case 'in_person': {
      const address = sanitizeShortText(offer.office_address ?? '');
      return { kind: 'in_person', address, mapUrl: mapLink(address) };
    }
    case 'phone':
      return { kind: 'phone', phone: phoneE164 ?? null };
    default:
      return { kind: 'unknown' };
  }
}

export interface CalendarEvent {
  title: string;
  startMs: number;
  endMs: number;
  details: string;
  location?: string | null;
}

/** `20261201T090000Z`: an instant as Google Calendar's `dates` wants it. */
const compactUtc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
/** `2026-12-01T09:00:00Z`. */
const isoUtc = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** Add to calendar: a Google Calendar template link and an Outlook (outlook.live.com) compose link; times in UTC. */
export function calendarLinks(e: CalendarEvent): { google: string; outlook: string } {
  const google = new URL('https://calendar.google.com/calendar/render');
  google.searchParams.set('action', 'TEMPLATE');
  google.searchParams.set('text', e.title);
  google.searchParams.set('dates', `${compactUtc(e.startMs)}/${compactUtc(e.endMs)}`);
  google.searchParams.set('details', e.details);
  if (e.location) google.searchParams.set('location', e.location);
  const outlook = new URL('https://outlook.live.com/calendar/0/deeplink/compose');
  outlook.searchParams.set('path', '/calendar/action/compose');
  outlook.searchParams.set('rru', 'addevent');
  outlook.searchParams.set('subject', e.title);
  outlook.searchParams.set('startdt', isoUtc(e.startMs));
  outlook.searchParams.set('enddt', isoUtc(e.endMs));
  outlook.searchParams.set('body', e.details);
  if (e.location) outlook.searchParams.set('location', e.location);
  return { google: google.toString(), outlook: outlook.toString() };
}
