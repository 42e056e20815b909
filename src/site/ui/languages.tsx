/**
 * The page's languages in its frame: the `hreflang` alternates in `<head>` (public pages only)
 * and the switcher's links. Every language is the same URL with `?lang=` (the explicit choice,
 * remembered in a cookie); the URL without it is `x-default`, which negotiates
 * (cookie, then the account's language, then Accept-Language).
 */
import { LOCALES } from '../../i18n/index.ts';
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

/** The switcher: a link to this page in each other language, named in that language. */
export function LanguageLinks({ ctx }: { ctx: SiteContext }) {
  return (
    <>
      {LOCALES.filter((l) => l !== ctx.locale).map((l) => (
        <a class="lang" href={withLang(ctx.path, l)} hreflang={l} lang={l}>
          {LOCALE_INFO[l]?.name ?? l}
        </a>
      ))}
    </>
  );
}
