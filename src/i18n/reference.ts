/**
 * Reference names as people read them, in the page's language: practice areas, languages and
 * time zones. The API and MCP keep their contract fields (English area names, ISO codes, IANA
 * zones); these are for the site and the emails only. Pure functions; Intl objects are built
 * once per language and kept (building one costs far more than using it).
 */
import { messages, type Locale } from './index.ts';
import { intlTag } from './locales.ts';
import { dayAndTime } from './format.ts';
import { dateInZone, formatInZone } from '../zoned-time.ts';

/**
 * A practice area's name in `locale`: the catalogue's translation of its slug; an area the
 * catalogue does not know (added to the data after the catalogue) shows `fallback`, its stored
 * name. The completeness test keeps every seeded area translated.
 */
export function practiceAreaName(locale: Locale, slug: string, fallback: string): string {
  return (messages(locale).reference.areas as Record<string, string>)[slug] ?? fallback;
}

const languageNames = new Map<Locale, Intl.DisplayNames>();

/**
 * An ISO 639 language code as a name in `locale` ("ar" → "árabe" / "Arabic"), by
 * Intl.DisplayNames; a code Intl does not know is shown as it is.
 */
export function languageName(locale: Locale, code: string): string {
  let names = languageNames.get(locale);
  if (!names) languageNames.set(locale, (names = new Intl.DisplayNames([intlTag(locale)], { type: 'language', fallback: 'code' })));
  try {
    return names.of(code) ?? code;
  } catch {
    // A malformed code (the data is checked on import, but never let a name break a page).
    return code;
  }
}

/** "árabe" → "Árabe": for list entries and labels, where a sentence does not carry the name. */
export function capitalized(locale: Locale, text: string): string {
  return text.charAt(0).toLocaleUpperCase(intlTag(locale)) + text.slice(1);
}

/** Names joined as the language lists them: "español, inglés y árabe" / "Spanish, English and Arabic". */
export function listOf(locale: Locale, items: readonly string[]): string {
  let f = lists.get(locale);
  if (!f) lists.set(locale, (f = new Intl.ListFormat(intlTag(locale), { style: 'long', type: 'conjunction' })));
  return f.format(items);
}
const lists = new Map<Locale, Intl.ListFormat>();

const zoneNames = new Map<string, string>();
/**
 * The instant a zone is named at: a recent one, because Intl names a zone by what it was then.
 * At the epoch (1970) Kyiv and Chișinău kept Moscow time, and were named "Moscow Standard Time".
 */
const NAMED_AT = new Date('2026-01-15T12:00:00Z');

/**
 * A time zone as people say it: the lawyers' zones by the catalogue ("hora peninsular",
 * "hora de Canarias"); any other zone (a visitor's, say) by Intl's generic name in `locale`
 * ("hora de Colombia", "Morocco Time"), or the IANA id if Intl cannot name it. This is the one
 * function pages and emails call to name a zone.
 */
export function zoneName(locale: Locale, timeZone: string): string {
  const known = messages(locale).reference.zones[timeZone];
  if (known) return known;
  const id = `${locale}|${timeZone}`;
  let out = zoneNames.get(id);
  if (out === undefined) {
    out = intlZoneName(locale, timeZone) ?? timeZone;
    // Bounded: zones come from browsers, and there are only a few hundred real ones.
    if (zoneNames.size < 1000) zoneNames.set(id, out);
  }
  return out;
}

/**
 * Intl's generic name of a zone in `locale`, as the zone is now ("hora de Colombia", "Eastern
 * European Time"), or undefined when Intl cannot name it. Not cached: callers keep what they ask.
 * Ukrainian Intl data names a zone as an adverbial, "за східноєвропейським часом" ("by Eastern
 * European time"), which reads twice over after "ваш час:" or in brackets; it is given in the
 * nominative, "східноєвропейський час", "час у Венесуелі".
 */
export function intlZoneName(locale: string, timeZone: string): string | undefined {
  let name: string | undefined;
  try {
    name = new Intl.DateTimeFormat(intlTag(locale), { timeZone, timeZoneName: 'longGeneric' }).formatToParts(NAMED_AT).find((p) => p.type === 'timeZoneName')?.value;
  } catch {
    return undefined;
  }
  if (name && locale === 'fr') return name.replace(/ ([:;!?])/g, '\u00a0$1'); // Intl writes "heure : Royaume-Uni"; French wants a no-break space.
  return name && locale === 'uk' ? ukrainianNominative(name) : name;
}

/** "за стандартним часом у Перу" → "стандартний час у Перу"; a name of another shape ("час: Марокко") as it is. */
function ukrainianNominative(name: string): string {
  const m = /^за ((?:[\p{L}’ʼ-]+(?:им|ім) )*)часом(.*)$/u.exec(name);
  // "за Гринвічем" (GMT) → "час за Гринвічем".
  if (!m) return name.startsWith('за ') ? `час ${name}` : name;
  const adjectives = (m[1] ?? '').split(' ').filter(Boolean).map((w) => w.replace(/им$/u, 'ий').replace(/ім$/u, 'ій'));
  return [...adjectives, 'час'].join(' ') + (m[2] ?? '');
}

/**
 * An instant on a person's page (when their account was made, when an app was connected), as
 * people say it: "jueves, 26 de noviembre de 2026, 07:33 (hora peninsular)" — the day, the time
 * and the zone by `zoneName`, never Intl's "CET" or "غرينتش+1" (found on the Account page in the
 * 390 px walk). The developer pages keep `formatInstant` (short, with seconds where needed).
 */
export function peopleInstant(locale: Locale, iso: string, timeZone: string): string {
  const ms = Date.parse(iso);
  return `${dayAndTime(dateInZone(ms, timeZone), formatInZone(ms, timeZone).slice(11, 16), locale)} (${zoneName(locale, timeZone)})`;
}
