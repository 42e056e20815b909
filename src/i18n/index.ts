/**
 * The site's languages. Spanish and English are complete catalogues (`en.ts`, `es.ts`; `es` is
 * typed by the shape of `en`, so a missing Spanish string is a type error, and
 * test/site/languages.test.ts checks it again at run time, key by key).
 *
 * Languages beyond Spanish and English (French, Arabic, Ukrainian, Romanian) cover what a person
 * who books sees (PeopleMessages) and are either complete for all of it or absent; the developer
 * area, firms and operator console are shown to them in English (DEVELOPER_FALLBACK; DESIGN §12).
 * Adding one is its file, an import and one entry in PEOPLE_ONLY below; its Intl tag and writing
 * direction are in locales.ts. See docs/site.md, "Languages".
 */
import { en, type Messages } from './en.ts';
import { es } from './es.ts';
import { ar } from './ar.ts';
import { fr } from './fr.ts';
import { ro } from './ro.ts';
import { uk } from './uk.ts';

/**
 * The people-only languages that are enabled, each a complete PeopleMessages. To enable another:
 * `import { ar } from './ar.ts';` and add `ar` here — LOCALES, the switcher, `hreflang`, the
 * Account page's choice, Accept-Language and the language test all follow from this table.
 */
const PEOPLE_ONLY = { fr, ar, uk, ro } satisfies Record<string, PeopleMessages>;

export type Locale = 'en' | 'es' | keyof typeof PEOPLE_ONLY;
/** Every enabled language, in the switcher's order: Spanish (the default), English, then the people-only ones. */
export const LOCALES: readonly Locale[] = ['es', 'en', ...(Object.keys(PEOPLE_ONLY) as Array<keyof typeof PEOPLE_ONLY>)];
export const DEFAULT_LOCALE: Locale = 'es';

/**
 * The language a people-only language's developer area is shown in. English, as Stripe, GitHub
 * and Cal.com do: their dashboards and API references exist in fewer languages than their
 * customer-facing pages, and fall back to English, the language of the API reference and its
 * error codes. The pages mark that part `lang="en"` (`developerLanguage`).
 */
export const DEVELOPER_FALLBACK = 'en' as const;

/**
 * The catalogue sections a person who books a consultation sees: search, profile, free times,
 * hold, sign-in, payment, confirmation, My consultations, Account, connected AI apps, error
 * pages, emails and `.ics` text, the reference names, and the footer, help and contact (`face`). A language for people only (French,
 * Arabic, Ukrainian, Romanian) must fill every key of these, typed from `en`.
 */
export const PEOPLE_SECTIONS = ['lang', 'common', 'layout', 'errors', 'home', 'lawyer', 'languageMatch', 'book', 'confirm', 'pay', 'signIn', 'account', 'myAccount', 'passkeys', 'oauth', 'lawyerMail', 'mail', 'reference', 'face', 'bookingPath', 'policy', 'purchase', 'reminders', 'changeBooking', 'reviews', 'reviewReports', 'holdLimit', 'widget'] as const satisfies ReadonlyArray<keyof Messages>;
export type PeopleSection = (typeof PEOPLE_SECTIONS)[number];
/** The catalogue a people-only language writes: every key of these sections, as `en` has them. */
export type PeopleMessages = Pick<Messages, PeopleSection>;

/**
 * A full catalogue from a people-only one: its own sections, and the developer area (dashboard,
 * keys, webhooks, firms, operator…) from `fallback` (English, DEVELOPER_FALLBACK).
 */
export function withDeveloperArea(people: PeopleMessages, fallback: Messages = en): Messages {
  return { ...fallback, ...people };
}

const CATALOGUES = {
  en,
  es,
  ...Object.fromEntries(Object.entries(PEOPLE_ONLY).map(([code, people]) => [code, withDeveloperArea(people)])),
} as Record<Locale, Messages>;

/** The people-only catalogues as written (their PEOPLE_SECTIONS only), for the completeness test. */
export function peopleCatalogues(): ReadonlyArray<[Locale, PeopleMessages]> {
  return Object.entries(PEOPLE_ONLY) as Array<[Locale, PeopleMessages]>;
}

/** Whether `locale` is a people-only language (its developer area is in DEVELOPER_FALLBACK). */
export function isPeopleOnly(locale: Locale): boolean {
  return Object.hasOwn(PEOPLE_ONLY, locale);
}

/** The language the developer area, firms and operator console are written in for `locale`. */
export function developerLanguage(locale: Locale): Locale {
  return isPeopleOnly(locale) ? DEVELOPER_FALLBACK : locale;
}

export function messages(locale: Locale): Messages {
  return CATALOGUES[locale];
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The language to answer in: an explicit choice (`?lang=`, then the switcher's cookie) wins;
 * then the signed-in account's language (passed by the caller as `account`); otherwise the best
 * match of Accept-Language among the enabled languages (q-values honoured, `es-MX` matches `es`,
 * `fr-CA` matches `fr`); otherwise Spanish.
 */
export function negotiateLocale(choice: { query?: unknown; cookie?: unknown; account?: unknown; acceptLanguage?: string | undefined }): Locale {
  if (isLocale(choice.query)) return choice.query;
  if (isLocale(choice.cookie)) return choice.cookie;
  if (isLocale(choice.account)) return choice.account;
  const header = choice.acceptLanguage ?? '';
  let best: { locale: Locale; q: number } | null = null;
  for (const part of header.split(',').slice(0, 20)) {
    const [tag = '', ...params] = part.trim().split(';');
    const primary = tag.trim().toLowerCase().split('-')[0];
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!isLocale(primary) || !(q > 0)) continue;
    if (!best || q > best.q) best = { locale: primary, q };
  }
  return best?.locale ?? DEFAULT_LOCALE;
}

export { intlTag, textDirection } from './locales.ts';
export type { Messages };
