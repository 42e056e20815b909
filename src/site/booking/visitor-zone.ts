/**
 * The visitor's time zone on the booking path: validated IANA names, the names people say
 * ("hora peninsular", "hora de Canarias"), and times shown in it. Pure functions.
 *
 * A zone comes from a cookie the browser set (zone.js) or the chooser form, so it is untrusted
 * text: anything that is not a name Intl knows is ignored (never an error page).
 */
import { offsetMinutesAt } from '../../zoned-time.ts';
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import { intlZoneName } from '../../i18n/reference.ts';
import { intlTag } from '../../i18n/locales.ts';

/** The cookie that remembers the visitor's zone (strictly necessary: docs/site.md, "Booking path"). */
export const ZONE_COOKIE = 'consulta_tz';
export const ZONE_COOKIE_MAX_AGE = 365 * 86_400;

const SHAPE = /^[A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+){0,2}$/;
const valid = new Map<string, boolean>();

/**
 * Old IANA names browsers still report (Chromium's and Node's ICU answer `Europe/Kiev` for Kyiv),
 * by their current names: the chooser offers the current one, and a page in Ukrainian must not
 * say "(Kiev)" — found on the 390 px walk, where the chooser also listed Kyiv twice.
 */
const RENAMED: Readonly<Record<string, string>> = {
  'Europe/Kiev': 'Europe/Kyiv',
  'Europe/Uzhgorod': 'Europe/Kyiv',
  'Europe/Zaporozhye': 'Europe/Kyiv',
  'Asia/Calcutta': 'Asia/Kolkata',
  'Asia/Saigon': 'Asia/Ho_Chi_Minh',
  'Asia/Rangoon': 'Asia/Yangon',
  'Asia/Katmandu': 'Asia/Kathmandu',
  'America/Buenos_Aires': 'America/Argentina/Buenos_Aires',
};

/** `value` when it is an IANA zone name Intl knows (`Europe/Madrid`; an old name as its current one), otherwise null. */
export function validZone(value: unknown): string | null {
  if (typeof value === 'string' && Object.hasOwn(RENAMED, value)) return RENAMED[value]!;
  if (typeof value !== 'string' || value.length === 0 || value.length > 64 || !SHAPE.test(value)) return null;
  let ok = valid.get(value);
  if (ok === undefined) {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
      ok = true;
    } catch {
      ok = false;
    }
    // Bounded: only shapes that pass the regex get here, but a visitor may send many.
    if (valid.size < 1000) valid.set(value, ok);
  }
  return ok ? value : null;
}

/**
 * Zones the chooser offers: Spain's three, then where the people who book come from. The
 * visitor's own zone is added when it is not among them.
 */
export const CHOOSER_ZONES = [
  'Europe/Madrid',
  'Atlantic/Canary',
  'Europe/London',
  'Europe/Lisbon',
  'Europe/Paris',
  'Europe/Bucharest',
  'Europe/Kyiv',
  'Europe/Moscow',
  'Africa/Casablanca',
  'Africa/Algiers',
  'Africa/Dakar',
  'Africa/Lagos',
  'Africa/Cairo',
  'Asia/Dubai',
  'Asia/Karachi',
  'Asia/Kolkata',
  'Asia/Manila',
  'Asia/Shanghai',
  'America/New_York',
  'America/Mexico_City',
  'America/Bogota',
  'America/Lima',
  'America/Caracas',
  'America/Santiago',
  'America/Argentina/Buenos_Aires',
  'America/Sao_Paulo',
  'UTC',
] as const;

const names = new Map<string, string>();

/**
 * The country of each zone the chooser offers, so a name is told apart in the reader's language
 * ("hora de Europa oriental (Rumanía)", «توقيت شرق أوروبا (أوكرانيا)») rather than by the English city
 * of the IANA name ("(Bucharest)", "(Bogota)" on a Spanish or Arabic page). Intl has no zone →
 * country table; a zone not listed here keeps its city.
 */
const ZONE_COUNTRY: Readonly<Record<string, string>> = {
  'Europe/London': 'GB', 'Europe/Lisbon': 'PT', 'Europe/Paris': 'FR', 'Europe/Bucharest': 'RO', 'Europe/Kyiv': 'UA',
  'Europe/Moscow': 'RU', 'Africa/Casablanca': 'MA', 'Africa/Algiers': 'DZ', 'Africa/Dakar': 'SN', 'Africa/Lagos': 'NG',
  'Africa/Cairo': 'EG', 'Asia/Dubai': 'AE', 'Asia/Karachi': 'PK', 'Asia/Kolkata': 'IN', 'Asia/Manila': 'PH',
  'Asia/Shanghai': 'CN', 'America/New_York': 'US', 'America/Mexico_City': 'MX', 'America/Bogota': 'CO', 'America/Lima': 'PE',
  'America/Caracas': 'VE', 'America/Santiago': 'CL', 'America/Argentina/Buenos_Aires': 'AR', 'America/Sao_Paulo': 'BR',
};

const regionNames = new Map<string, Intl.DisplayNames>();
function countryName(zone: string, locale: Locale): string | null {
  const region = ZONE_COUNTRY[zone];
  if (!region) return null;
  let d = regionNames.get(locale);
  if (!d) regionNames.set(locale, (d = new Intl.DisplayNames([intlTag(locale)], { type: 'region' })));
  return d.of(region) ?? null;
}

/** The languages whose zone names say the place after a comma, not in brackets. */
const COMMA_ASIDE: ReadonlySet<string> = new Set(['fr', 'ro', 'uk']);

const shared = new Map<string, Set<string>>();
/** The generic names two or more of the chooser's zones share in `locale` ("hora de Europa oriental": Bucharest, Kyiv, Cairo). */
function sharedNames(locale: Locale): Set<string> {
  let out = shared.get(locale);
  if (!out) {
    const seen = new Set<string>();
    out = new Set<string>();
    for (const z of CHOOSER_ZONES) {
      const generic = intlZoneName(locale, z);
      if (!generic) continue;
      if (seen.has(generic)) out.add(generic);
      seen.add(generic);
    }
    shared.set(locale, out);
  }
  return out;
}

/**
 * "hora peninsular", "hora de Canarias" (the catalogue's names, `reference.zones`, as everywhere
 * on the site); any other zone by Intl's generic name ("hora estándar de Colombia") and, when one
 * of the chooser's other zones has the same name, where it is so the two stay apart: its country
 * in the reader's language ("hora de Europa oriental (Rumanía)"), or for a zone of unknown country
 * its city ("Central European Time (Warsaw)"); a chooser zone whose name does not say its country
 * gets it too ("hora oriental (Estados Unidos)"). Never the IANA name's English city for a zone
 * whose country is known ("(Bogota)" on a Spanish or Arabic page).
 */
export function zoneName(zone: string, locale: string): string {
  const lang: Locale = isLocale(locale) ? locale : 'en';
  const known = messages(lang).reference.zones[zone];
  if (known) return known;
  const key = `${lang}|${zone}`;
  let name = names.get(key);
  if (name === undefined) {
    const country = countryName(zone, lang);
    const place = country ?? (zone.split('/').pop() ?? zone).replace(/_/g, ' ');
    const generic = intlZoneName(lang, zone);
    // A bare offset ("GMT-03:00") says little: the country or city says where.
    // French, Romanian and Ukrainian sentences put a zone in brackets ("(heure d’Europe de l’Est)"),
    // where a bracketed place nested: "(heure d’Europe de l’Est (Roumanie))" (issue 25 item 15).
    const aside = (main: string, extra: string) => (COMMA_ASIDE.has(lang) ? `${main}, ${extra}` : `${main} (${extra})`);
    if (!generic || /^GMT|^غرينتش[+-]/.test(generic)) name = generic ? aside(place, generic) : place;
    else if (sharedNames(lang).has(generic)) name = aside(generic, place);
    // A name that does not say its country ("hora oriental", "hora estándar central") gets it;
    // one that does, in any grammatical case ("Ora standard a Columbiei"), is left alone.
    else name = country && !generic.toLocaleLowerCase(lang).includes(country.toLocaleLowerCase(lang).slice(0, 5)) ? aside(generic, country) : generic;
    if (names.size < 2000) names.set(key, name);
  }
  return name;
}

/** Whether two zones show a different wall-clock time at the instant (Paris and Madrid do not). */
export function zonesDiffer(a: string, b: string, atMs: number): boolean {
  return a !== b && offsetMinutesAt(atMs, a) !== offsetMinutesAt(atMs, b);
}

// The page's language as Intl writes it (es-ES, en-GB, ar…), so an Arabic page's times are not in English.
const tag = intlTag;
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(kind: 'time' | 'dayTime', locale: string, timeZone: string): Intl.DateTimeFormat {
  const key = `${kind}|${locale}|${timeZone}`;
  let f = formatters.get(key);
  if (!f) {
    f =
      kind === 'time'
        ? new Intl.DateTimeFormat(tag(locale), { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone })
        : new Intl.DateTimeFormat(tag(locale), { weekday: 'long', day: 'numeric', month: 'long', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZone });
    if (formatters.size < 400) formatters.set(key, f);
  }
  return f;
}

/** "09:00" — the wall-clock time of an instant in a zone. */
export function timeIn(atMs: number, zone: string, locale: string): string {
  return formatter('time', locale, zone).format(new Date(atMs));
}

/** "lunes, 30 de noviembre, 09:00" — day and time of an instant in a zone. */
export function dayTimeIn(atMs: number, zone: string, locale: string): string {
  return formatter('dayTime', locale, zone).format(new Date(atMs));
}

/** The chooser's options: the list above, and the visitor's zone first when it is not in it. */
export function chooserOptions(current: string | null, locale: string): Array<{ value: string; label: string }> {
  const zones: string[] = [...CHOOSER_ZONES];
  if (current && !zones.includes(current)) zones.unshift(current);
  return zones.map((z) => ({ value: z, label: zoneName(z, locale) }));
}
