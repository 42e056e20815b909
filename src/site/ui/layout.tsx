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
  section?: 'search' | 'consultations' | 'sign-in' | 'docs' | 'dashboard' | 'account' | 'help' | 'contact' | 'legal';
  narrow?: boolean;
  /** No `hreflang` alternates (error pages: the address is not a page in any language). */
  noAlternates?: boolean;
  children: ComponentChildren;
}

export { withLang } from './languages.tsx';

export function Layout({ ctx, title, section, narrow, noAlternates, children }: LayoutProps) {
  const { t } = ctx;
  const f = t.face;
  const current = (s: LayoutProps['section']) => (s === section ? ('page' as const) : undefined);
  const developers = section === 'dashboard';
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
            <a class="brand" href="/">
              {/* The mark is decoration: the name beside it is the link's text. */}
              <img src={ctx.asset('logo.svg')} alt="" width={32} height={32} />
              <span>{t.common.siteName}</span>
            </a>
            {/* People's navigation: find, their consultations, their account. Developers have their own entry. */}
            <nav class="site-nav" aria-label={t.layout.navLabel}>
              <a href="/" aria-current={current('search')}>{t.layout.findLawyer}</a>
              {ctx.user ? (
                <>
                  <a href="/consultations" aria-current={current('consultations')}>{t.layout.myConsultations}</a>
                  <a href="/account" aria-current={current('account')}>{f.nav.account}</a>
                  <form method="post" action="/sign-out">
                    <CsrfField ctx={ctx} />
                    <button class="linklike" type="submit">{t.layout.signOut}</button>
                  </form>
                </>
              ) : (
                <a href={`/sign-in?return_to=${encodeURIComponent(ctx.path)}`} aria-current={current('sign-in')}>{t.layout.signIn}</a>
              )}
              {ctx.user || developers ? (
                <a class="nav-developers" href="/developer" aria-current={current('dashboard')}>{f.nav.developers}</a>
              ) : null}
              <LanguageLinks ctx={ctx} />
            </nav>
          </div>
        </header>
        <main id="main" class={narrow ? 'narrow' : undefined}>{children}</main>
        <footer class="site-footer">
          <nav class="bar" aria-label={f.footer.label}>
            <div class="footer-brand">
              <p>
                <strong>{t.common.siteName}</strong>
              </p>
              <p>{developers ? f.footer.developerIntro : t.layout.tagline}</p>
            </div>
            {developers ? (
              <div>
                <h2>{f.footer.developers}</h2>
                <ul>
                  <li><a href="/developer">{f.footer.developerDashboard}</a></li>
                  <li><a href="/docs/api">{t.layout.apiDocs}</a></li>
                  <li><a href="/docs/errors">{t.layout.errorCodes}</a></li>
                  <li><a href="/">{f.footer.backToPeople}</a></li>
                </ul>
              </div>
            ) : (
              <div>
                <h2>{f.footer.help}</h2>
                <ul>
                  <li><a href="/help" aria-current={current('help')}>{f.footer.helpCentre}</a></li>
                  <li><a href="/contact" aria-current={current('contact')}>{f.footer.contact}</a></li>
                  <li><a href="/legal/terms">{f.footer.howBooking}</a></li>
                </ul>
              </div>
            )}
            <div>
              <h2>{f.footer.legal}</h2>
              <ul>
                <li><a href="/legal/aviso-legal">{f.legalNav.notice}</a></li>
                <li><a href="/legal/privacy">{f.legalNav.privacy}</a></li>
                <li><a href="/legal/terms">{f.legalNav.terms}</a></li>
                <li><a href="/legal/cookies">{f.legalNav.cookies}</a></li>
              </ul>
            </div>
            {developers ? (
              <div>
                <h2>{f.footer.help}</h2>
                <ul>
                  <li><a href="/help">{f.footer.helpCentre}</a></li>
                  <li><a href="/contact">{f.footer.contact}</a></li>
                </ul>
              </div>
            ) : (
              <div>
                <h2>{f.footer.developers}</h2>
                <ul>
                  <li><a href="/developer">{f.footer.developerDashboard}</a></li>
                  <li><a href="/docs/api">{t.layout.apiDocs}</a></li>
                  <li><a href="/docs/errors">{t.layout.errorCodes}</a></li>
                </ul>
              </div>
            )}
            {ctx.user ? <p class="operator-line">{t.layout.signedInAs(ctx.user.email)}</p> : null}
          </nav>
        </footer>
      </body>
    </html>
  );
}
