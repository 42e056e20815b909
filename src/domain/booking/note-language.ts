/**
 * The note's language, as a label for the lawyer (DESIGN.md §13: no machine translation). franc-min
 * answers ISO 639-3; the label is ISO 639-1 like every other language code here. Short notes are
 * not guessed (a wrong label is worse than none).
 */
import { franc } from 'franc-min';

const ISO3_TO_1: Readonly<Record<string, string>> = {
  arb: 'ar', ary: 'ar', arz: 'ar', spa: 'es', eng: 'en', fra: 'fr', ron: 'ro', ukr: 'uk', rus: 'ru', por: 'pt', deu: 'de', ita: 'it',
  cmn: 'zh', urd: 'ur', ben: 'bn', hin: 'hi', wol: 'wo', tgl: 'tl', cat: 'ca', pol: 'pl', bul: 'bg', nld: 'nl', tur: 'tr', pes: 'fa',
};

/** The minimum length (characters) of a note whose language is told. */
export const NOTE_LANGUAGE_MIN_CHARS = 20;

/** The note's ISO 639-1 language, or null when it is too short or cannot be told. */
export function noteLanguage(note: string | null): string | null {
  if (note === null || [...note].length < NOTE_LANGUAGE_MIN_CHARS) return null;
  return ISO3_TO_1[franc(note, { minLength: NOTE_LANGUAGE_MIN_CHARS })] ?? null;
}
