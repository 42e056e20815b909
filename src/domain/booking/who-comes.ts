/**
 * What the lawyer is told of a booking (issue 26 item 4; DESIGN.md §13; docs/lawyers.md#what-she-sees-of-a-booking),
 * one set of facts for her notice email, her portal and her bookings feed: the person's name (the
 * one they gave, never their email as a name), the languages they read, their answer to a language
 * mismatch, the note's language (a label only), the format, the phone number, her meeting link and
 * the short reference the person was given (bookingReference: the same 8 characters everywhere).
 */
import type { ConsultationFormat, LanguageAck } from '../../db/schema.ts';
import { messages, type Locale } from '../../i18n/index.ts';
import { languageName, listOf } from '../../i18n/reference.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { bookingReference, formatPhone } from './purchase.ts';

const CODE = /^[a-z]{2}$/;

/** A stored JSON array of ISO 639-1 codes as a list; anything else (null, bad JSON, odd entries) reads as none. */
export function parseLanguages(json: string | null | undefined): string[] {
  if (!json) return [];
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? [...new Set(value.filter((c): c is string => typeof c === 'string' && CODE.test(c)))].slice(0, 10) : [];
  } catch {
    return [];
  }
}

export interface WhoComes {
  /** Their name, one plain line; null when they gave none (never their email). */
  name: string | null;
  languages: string[];
  languageAck: LanguageAck | null;
  noteLanguage: string | null;
  format: ConsultationFormat | null;
  phoneE164: string | null;
  note: string | null;
  /** Her meeting link, for a video consultation. */
  meetingUrl: string | null;
  /** The 8 characters the person quotes. */
  reference: string;
}

export function whoComes(c: {
  consultationId: string;
  name: string | null | undefined;
  languages: string | null | undefined;
  languageAck: LanguageAck | null | undefined;
  noteLanguage: string | null | undefined;
  format: ConsultationFormat | null | undefined;
  phoneE164: string | null | undefined;
  note: string | null | undefined;
  videoUrl: string | null | undefined;
}): WhoComes {
  const name = c.name ? sanitizeShortText(c.name) : '';
  const note = c.note ?? null;
  return {
    name: name === '' ? null : name,
    languages: parseLanguages(c.languages),
    languageAck: c.languageAck ?? null,
    noteLanguage: note && c.noteLanguage && CODE.test(c.noteLanguage) ? c.noteLanguage : null,
    format: c.format ?? null,
    phoneE164: c.format === 'phone' ? (c.phoneE164 ?? null) : null,
    note,
    meetingUrl: c.format === 'video' && c.videoUrl ? c.videoUrl : null,
    reference: bookingReference(c.consultationId),
  };
}

/** "Arabic, French" in `locale`. */
export function languagesText(locale: Locale, codes: readonly string[]): string {
  return listOf(locale, codes.map((code) => languageName(locale, code)));
}

/**
 * The lines the lawyer reads (her notice and her feed), in `locale`: "Persona: Amira Haddad",
 * "Lee árabe y francés", "Nota en árabe"… The phone number only when `privateDetails` (her feed's
 * switch; the notice goes to her alone). The note itself is the caller's: it is quoted, not a line.
 */
export function whoComesLines(w: WhoComes, locale: Locale, privateDetails: boolean): string[] {
  const t = messages(locale).lawyerBookings;
  const p = messages(locale).purchase;
  const lines = [`${t.person}: ${w.name ?? t.noName}`];
  if (w.languages.length > 0) lines.push(t.reads(languagesText(locale, w.languages)));
  if (w.languageAck) lines.push(t.ack[w.languageAck]);
  lines.push(`${p.client.format}: ${w.format ? p.formats[w.format] : '—'}`);
  if (privateDetails && w.phoneE164) lines.push(`${p.client.phone}: ${formatPhone(w.phoneE164)}`);
  if (w.meetingUrl) lines.push(`${t.meetingLink}: ${w.meetingUrl}`);
  if (w.noteLanguage) lines.push(t.noteIn(languageName(locale, w.noteLanguage)));
  lines.push(`${t.reference}: ${w.reference}`);
  return lines;
}
