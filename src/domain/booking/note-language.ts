/**
 * The language a person's note is written in, as a label for the lawyer ("note in Arabic";
 * DESIGN.md §13, docs/lawyers.md#what-she-sees-of-a-booking). Only a label: the note is never
 * translated. franc-min (a maintained trigram detector, 82 languages) answers in ISO 639-3; the
 * site speaks ISO 639-1, so its answers are mapped here. A short note says too little to be told
 * apart reliably (franc's own threshold is 10 characters; a greeting is not a language sample), so
 * below NOTE_LANGUAGE_MIN_CHARS, or when franc is unsure, the answer is null and nothing is shown.
 */
import { franc } from 'franc-min';

/** Fewer letters than this: no label (a two-word note is guessed wrong too often). */
export const NOTE_LANGUAGE_MIN_CHARS = 20;

/**
 * franc-min's ISO 639-3 answers that have an ISO 639-1 code (macrolanguage members map to their
 * macrolanguage: Standard Arabic → ar, Northern Uzbek → uz). Those without one (Cebuano, Ilocano…)
 * are not labelled: the lawyer's pages name languages by 639-1 code.
 */
const ISO_639_1: Readonly<Record<string, string>> = {
  spa: 'es', eng: 'en', por: 'pt', ind: 'id', fra: 'fr', deu: 'de', jav: 'jv', vie: 'vi', ita: 'it', tur: 'tr',
  pol: 'pl', swh: 'sw', sun: 'su', ron: 'ro', hau: 'ha', bos: 'bs', hrv: 'hr', nld: 'nl', srp: 'sr', ckb: 'ku',
  yor: 'yo', uzn: 'uz', zlm: 'ms', ibo: 'ig', tgl: 'tl', hun: 'hu', azj: 'az', ces: 'cs', run: 'rn', plt: 'mg',
  nya: 'ny', kin: 'rw', zul: 'zu', swe: 'sv', lin: 'ln', som: 'so', rus: 'ru', ukr: 'uk', bel: 'be', bul: 'bg',
  kaz: 'kk', arb: 'ar', urd: 'ur', pes: 'fa', pbu: 'ps', hin: 'hi', mar: 'mr', npi: 'ne', cmn: 'zh', ben: 'bn',
  jpn: 'ja', kor: 'ko', tel: 'te', tam: 'ta', guj: 'gu', kan: 'kn', mal: 'ml', mya: 'my', pan: 'pa', amh: 'am',
  tha: 'th', sin: 'si', ell: 'el',
};

/** The note's language (ISO 639-1), or null when it is empty, too short or cannot be told. */
export function detectNoteLanguage(note: string | null | undefined): string | null {
  if (typeof note !== 'string') return null;
  // Letters only: digits, dates and phone numbers say nothing of the language.
  const letters = note.replace(/[^\p{L}\p{M}\s]/gu, ' ').replace(/\s+/g, ' ').trim();
  if ([...letters.replace(/\s/g, '')].length < NOTE_LANGUAGE_MIN_CHARS) return null;
  return ISO_639_1[franc(letters, { minLength: NOTE_LANGUAGE_MIN_CHARS })] ?? null;
}
