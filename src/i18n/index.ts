/**
 * The site's languages. One catalogue per language (`en.ts`, `es.ts`); `es` is typed by the
 * shape of `en`, so a missing Spanish string is a type error (and test/i18n/completeness.test.ts
 * checks it again at run time, key by key). Another language is another file and a line in
 * LOCALES; its writing direction and Intl tag are in locales.ts.
 *
 * Languages beyond Spanish and English cover what a person who books sees (PeopleMessages) and
 * are either complete for all of it or absent; the developer area stays in Spanish and English
 * (DESIGN §12). See docs/site.md, "Languages".
 */
import { en, type Messages } from './en.ts';
import { es } from './es.ts';
import { ar } from './ar.ts';

export const LOCALES = ['en', 'es', 'ar'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'es';

const CATALOGUES: Record<Locale, Messages> = { en, es, ar: withDeveloperArea(ar) };

/**
 * The catalogue sections a person who books a consultation sees: search, profile, free times,
 * hold, sign-in, payment, confirmation, My consultations, Account, connected AI apps, error
 * pages, emails and `.ics` text, the reference names, and the footer, help and contact (`face`). A language for people only (French,
 * Arabic, Ukrainian, Romanian) must fill every key of these, typed from `en`.
 */
export const PEOPLE_SECTIONS = ['lang', 'common', 'layout', 'errors', 'home', 'lawyer', 'book', 'confirm', 'pay', 'signIn', 'account', 'myAccount', 'passkeys', 'oauth', 'mail', 'reference', 'face', 'bookingPath'] as const satisfies ReadonlyArray<keyof Messages>;
export type PeopleSection = (typeof PEOPLE_SECTIONS)[number];
/** The catalogue a people-only language writes: every key of these sections, as `en` has them. */
export type PeopleMessages = Pick<Messages, PeopleSection>;

/**
 * A full catalogue from a people-only one: its own sections, and the developer area (dashboard,
 * keys, webhooks, firms, operator…) from `fallback`. Not used until such a language exists.
 */
export function withDeveloperArea(people: PeopleMessages, fallback: Messages = en): Messages {
  return { ...fallback, ...people };
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
 * match of Accept-Language (q-values honoured, `es-MX` matches `es`); otherwise Spanish.
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
