/** The page frame shared by every site page: header, language switcher, main, footer. */
import type { ComponentChildren } from 'preact';
import type { SiteContext } from '../context.ts';
import { textDirection } from '../../i18n/index.ts';
import { CsrfField } from './components.tsx';
import { AlternateLinks, LanguageLinks } from './languages.tsx';

export interface LayoutProps {
  ctx: SiteContext;
  title: string;
  /** Which nav entry is the current page. */
  section?: 'search' | 'consultations' | 'sign-in' | 'docs' | 'dashboard';
  narrow?: boolean;
  /** No `hreflang` alternates (error pages: the address is not a page in any language). */
  noAlternates?: boolean;
  children: ComponentChildren;
}

export { withLang } from './languages.tsx';

export function Layout({ ctx, title, section, narrow, noAlternates, children }: LayoutProps) {
  const { t } = ctx;
  const current = (s: LayoutProps['section']) => (s === section ? ('page' as const) : undefined);
  return (
    <html lang={ctx.locale} dir={textDirection(ctx.locale)}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width,initial-scale=1" />
        <title>{`${title} · ${t.common.siteName}`}</title>
        <link rel="icon" href={ctx.asset('favicon.svg')} type="image/svg+xml" />
        <link rel="stylesheet" href={ctx.asset('site.css')} />
        <AlternateLinks ctx={ctx} none={noAlternates} />
        <script src={ctx.asset('site.js')} defer></script>
      </head>
      <body>
        <a class="skip" href="#main">{t.layout.skip}</a>
        <header class="site-header">
          <div class="bar">
            <a class="brand" href="/">{t.common.siteName}</a>
            <nav class="site-nav" aria-label={t.layout.navLabel}>
              <a href="/" aria-current={current('search')}>{t.layout.findLawyer}</a>
              {ctx.user ? (
                <>
                  <a href="/consultations" aria-current={current('consultations')}>{t.layout.myConsultations}</a>
                  <a href="/developer/keys" aria-current={current('dashboard')}>{t.layout.dashboard}</a>
                  <form method="post" action="/sign-out">
                    <CsrfField ctx={ctx} />
                    <button class="linklike" type="submit">{t.layout.signOut}</button>
                  </form>
                </>
              ) : (
                <a href={`/sign-in?return_to=${encodeURIComponent(ctx.path)}`} aria-current={current('sign-in')}>{t.layout.signIn}</a>
              )}
              <LanguageLinks ctx={ctx} />
            </nav>
          </div>
        </header>
        <main id="main" class={narrow ? 'narrow' : undefined}>{children}</main>
        <footer class="site-footer">
          <div class="bar">
            <span>{t.layout.tagline}</span>
            <a href="/docs/api">{t.layout.apiDocs}</a>
            <a href="/docs/errors">{t.layout.errorCodes}</a>
            {ctx.user ? <span>{t.layout.signedInAs(ctx.user.email)}</span> : null}
          </div>
        </footer>
      </body>
    </html>
  );
}
