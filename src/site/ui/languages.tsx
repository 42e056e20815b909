/**
 * The page's languages in its frame: the `hreflang` alternates in `<head>` (public pages only)
 * and the switcher's links. Every language is the same URL with `?lang=` (the explicit choice,
 * remembered in a cookie); the URL without it is `x-default`, which negotiates
 * (cookie, then the account's language, then Accept-Language).
 */
import { LOCALES } from '../../i18n/index.ts';
import { colon } from '../../i18n/format.ts';
import { LOCALE_INFO } from '../../i18n/locales.ts';
import type { SiteContext } from '../context.ts';

/** `path` with `lang=<locale>` set, keeping the rest of its query. */
export function withLang(path: string, locale: string): string {
  const [p, q = ''] = path.split('?', 2) as [string, string?];
  const params = new URLSearchParams(q);
  params.set('lang', locale);
  return `${p}?${params.toString()}`;
}

/**
 * Pages that belong to one person (their bookings, account, keys, a held time's capability
 * link, a sign-in in progress): no alternates, nothing there for search engines or for sharing.
 * Every other page is public, so a new public page gets its alternates without a change here.
 */
const PRIVATE = /^\/(?:confirm|consultations|account|developer|firms|operator|oauth|sign-in\/|sign-out|invitations|passkeys)(?:[/?.]|$)/;

/** Whether the page at `path` (path and query) carries `hreflang` alternates: public, and not on its way back to a private one. */
export function hasAlternates(path: string): boolean {
  return !PRIVATE.test(path) && !/[?&]return_to=/.test(path);
}

/** `<link rel="alternate" hreflang>` for every language of a public page, and `x-default`. */
export function AlternateLinks({ ctx, none }: { ctx: SiteContext; none?: boolean }) {
  if (none || !hasAlternates(ctx.path)) return null;
  return (
    <>
      {LOCALES.map((l) => (
        <link rel="alternate" hreflang={l} href={`${ctx.origin}${withLang(ctx.path, l)}`} />
      ))}
      <link rel="alternate" hreflang="x-default" href={`${ctx.origin}${ctx.path}`} />
    </>
  );
}

/**
 * The switcher: every language, each named in itself ("Français", "العربية"), as links to this
 * page with `?lang=` — a list, not a toggle, since there are six. Without JavaScript it is a
 * `<details>` disclosure: the summary shows a globe and the current language (a person who cannot
 * read the page's language still recognises both); opened, the list, one tap target per line.
 */
export function LanguageLinks({ ctx }: { ctx: SiteContext }) {
  const current = LOCALE_INFO[ctx.locale]?.name ?? ctx.locale;
  return (
    <details class="lang-menu">
      <summary>
        <svg class="globe" viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
          <circle cx="12" cy="12" r="9.25" fill="none" stroke="currentColor" stroke-width="1.5" />
          <path d="M2.75 12h18.5M12 2.75c2.6 2.6 3.9 5.7 3.9 9.25S14.6 18.65 12 21.25M12 2.75C9.4 5.35 8.1 8.45 8.1 12s1.3 6.65 3.9 9.25" fill="none" stroke="currentColor" stroke-width="1.5" />
        </svg>
        <span class="visually-hidden">{`${ctx.t.myAccount.languageLabel}${colon(ctx.locale)}`}</span>
        {current}
      </summary>
      <ul>
        {LOCALES.map((l) => (
          <li>
            {/* The name isolated in its own direction (<bdi>), the line aligned as the page is. */}
            <a href={withLang(ctx.path, l)} hreflang={l} lang={l} aria-current={l === ctx.locale ? 'true' : undefined}>
              <bdi>{LOCALE_INFO[l]?.name ?? l}</bdi>
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}
