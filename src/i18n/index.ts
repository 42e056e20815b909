/**
 * The site's languages. One catalogue per language (`en.ts`, `es.ts`); `es` is typed by the
 * shape of `en`, so a missing Spanish string is a type error. Another language is another file
 * and a line in LOCALES.
 */
import { en, type Messages } from './en.ts';
import { es } from './es.ts';

export const LOCALES = ['en', 'es'] as const;
export type Locale = (typeof LOCALES)[number];
export const DEFAULT_LOCALE: Locale = 'es';

const CATALOGUES: Record<Locale, Messages> = { en, es };

export function messages(locale: Locale): Messages {
  return CATALOGUES[locale];
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The language to answer in: an explicit choice (`?lang=`, then the cookie) wins; otherwise the
 * best match of Accept-Language (q-values honoured, `es-MX` matches `es`); otherwise Spanish.
 */
export function negotiateLocale(choice: { query?: unknown; cookie?: unknown; acceptLanguage?: string | undefined }): Locale {
  if (isLocale(choice.query)) return choice.query;
  if (isLocale(choice.cookie)) return choice.cookie;
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

export type { Messages };
