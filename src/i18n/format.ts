/**
 * Dates, times and money as people read them (site pages and emails), in the page's language. Pure functions. Intl formatters
 * are built once per language and kept: building one costs far more than formatting with it
 * (a booking page formats ~80 dates; built per call, that was 26 ms of CPU per page).
 */
import { intlTag as tag } from './locales.ts';

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(key: string, locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const id = `${key}|${locale}|${options.timeZone ?? ''}`;
  let f = formatters.get(id);
  if (!f) {
    f = new Intl.DateTimeFormat(tag(locale), options);
    // A handful of languages × zones; the bound only guards against an unexpected zone flood.
    if (formatters.size < 200) formatters.set(id, f);
  }
  return f;
}

const days = new Map<string, string>();

/** `2026-11-30` → "lunes, 30 de noviembre de 2026" / "Monday 30 November 2026". */
export function formatDay(date: string, locale: string): string {
  const id = `${locale}|${date}`;
  let out = days.get(id);
  if (out === undefined) {
    out = formatter('day', locale, { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date}T12:00:00Z`));
    if (days.size >= 2000) days.clear();
    days.set(id, out);
  }
  return out;
}

/** `2026-11-30` → "noviembre de 2026" / "November 2026". */
export function formatMonth(date: string, locale: string): string {
  return formatter('month', locale, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${date.slice(0, 10)}T12:00:00Z`));
}

/**
 * The colon between a label and its value as the language writes it: "Pagado: 60,00 €", but
 * French puts a no-break space before it ("Payée : 60,00 €"). For labels composed in pages;
 * catalogue sentences carry their own punctuation.
 */
export function colon(locale: string): string {
  return locale === 'fr' ? '\u00a0: ' : ': ';
}

/** `10:00:00` → "10:00". */
export function formatTime(time: string): string {
  return time.slice(0, 5);
}

/** An instant in a zone: "30 nov 2026, 10:00 CET"; with `seconds`, "30 nov 2026, 10:00:07 CET" (the request log, where requests come seconds apart). */
export function formatInstant(iso: string, timeZone: string, locale: string, options: { seconds?: boolean } = {}): string {
  if (options.seconds) {
    return formatter('instant-s', locale, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', timeZone, timeZoneName: 'short' }).format(new Date(iso));
  }
  return formatter('instant', locale, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', timeZone, timeZoneName: 'short' }).format(new Date(iso));
}

// English prices are written as in Ireland (`€60.00`), the euro-area English.
const money = new Map<string, Intl.NumberFormat>([['en', new Intl.NumberFormat('en-IE', { style: 'currency', currency: 'EUR' })]]);

/**
 * Euros from cents, in the language given (`60,00 €` / `€60.00`); one formatter per language.
 * Always the sign €, as prices are shown in Spain: Ukrainian and Romanian Intl data would write "EUR".
 */
export function euros(cents: number, locale: string): string {
  let f = money.get(locale);
  if (!f) {
    f = new Intl.NumberFormat(tag(locale), { style: 'currency', currency: 'EUR', currencyDisplay: 'narrowSymbol' });
    if (money.size < 20) money.set(locale, f);
  }
  return f.format(cents / 100);
}

// Arabic sets its own comma (U+060C) between a day and its times, as Intl does for `ar`.
const COMMAS: Readonly<Record<string, string>> = { ar: '، ' };

/** The comma between parts of a date in `locale`: ", " / Arabic "، " ("الاثنين، 30 نوفمبر 2026، 09:00–10:00"). */
export function comma(locale: string): string {
  return COMMAS[locale] ?? ', ';
}

/** A day and a time as a person reads them: "lunes, 30 de noviembre de 2026, 09:00" (Arabic with its own comma). `time` is HH:MM or HH:MM:SS. */
export function dayAndTime(date: string, time: string, locale: string): string {
  return `${formatDay(date, locale)}${comma(locale)}${formatTime(time)}`;
}
