/**
 * What the site knows about each language besides its strings: the tag Intl formats with, and
 * the writing direction (`<html dir>`, so Arabic mirrors through the stylesheet's logical
 * properties). Languages that are prepared but not enabled are listed too, so adding one is its
 * catalogue plus a line in LOCALES (index.ts). No imports: the catalogues and formatters use it.
 */
export interface LocaleInfo {
  /** The BCP 47 tag Intl formats with (dates, numbers, money, plurals, names). */
  tag: string;
  dir: 'ltr' | 'rtl';
  /** The language's name in itself, for the switcher. */
  name: string;
}

export const LOCALE_INFO: Readonly<Record<string, LocaleInfo>> = {
  es: { tag: 'es-ES', dir: 'ltr', name: 'Español' },
  en: { tag: 'en-GB', dir: 'ltr', name: 'English' },
  // Prepared, not enabled: each needs a complete people catalogue (index.ts, PeopleMessages) first.
  fr: { tag: 'fr-FR', dir: 'ltr', name: 'Français' },
  ar: { tag: 'ar', dir: 'rtl', name: 'العربية' },
  uk: { tag: 'uk-UA', dir: 'ltr', name: 'Українська' },
  ro: { tag: 'ro-RO', dir: 'ltr', name: 'Română' },
};

/** The Intl tag of a site language ("es" → "es-ES"); an unknown one is passed through. */
export function intlTag(locale: string): string {
  return LOCALE_INFO[locale]?.tag ?? locale;
}

/** The writing direction of a language: from the table, else from Intl, else left to right. */
export function textDirection(locale: string): 'ltr' | 'rtl' {
  const known = LOCALE_INFO[locale]?.dir;
  if (known) return known;
  try {
    // V8 exposes text direction as `textInfo` (a getter); the proposal's method is `getTextInfo()`.
    const info = (new Intl.Locale(locale) as Intl.Locale & { textInfo?: { direction?: string } }).textInfo;
    return info?.direction === 'rtl' ? 'rtl' : 'ltr';
  } catch {
    return 'ltr';
  }
}
