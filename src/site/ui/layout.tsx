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
  section?: 'search' | 'consultations' | 'sign-in' | 'docs' | 'dashboard' | 'account' | 'lawyer' | 'help' | 'contact' | 'legal';
  narrow?: boolean;
  /** No `hreflang` alternates (error pages: the address is not a page in any language). */
  noAlternates?: boolean;
  children: ComponentChildren;
}

export { withLang } from './languages.tsx';

interface FooterLink {
  href: string;
  text: string;
  current?: 'page';
}

/** One footer column: a heading and its links. */
function FooterColumn({ heading, links }: { heading: string; links: FooterLink[] }) {
  return (
    <div>
      <h2>{heading}</h2>
      <ul>
        {links.map((l) => (
          <li key={l.href + l.text}>
            <a href={l.href} aria-current={l.current}>{l.text}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Layout({ ctx, title, section, narrow, noAlternates, children }: LayoutProps) {
  const { t } = ctx;
  const f = t.face;
  const current = (s: LayoutProps['section']) => (s === section ? ('page' as const) : undefined);
  const developers = section === 'dashboard';
  // The footer's columns: people's pages put help first, the developer area its own links.
  const helpLinks: FooterLink[] = [
    { href: '/help', text: f.footer.helpCentre, current: current('help') },
    { href: '/contact', text: f.footer.contact, current: current('contact') },
    { href: '/help/verification', text: t.lawyer.trust.howWeVerify },
    { href: '/help/reviews', text: t.reviewReports.howVerified },
    // Where a lawyer applies: nothing else on a person's page led to /join.
    { href: '/join', text: f.footer.forLawyers },
  ];
  const legalLinks: FooterLink[] = [
    { href: '/legal/aviso-legal', text: f.legalNav.notice },
    { href: '/legal/privacy', text: f.legalNav.privacy },
    { href: '/legal/terms', text: f.legalNav.terms },
    { href: '/legal/cookies', text: f.legalNav.cookies },
  ];
  const developerLinks: FooterLink[] = [
    { href: '/developer', text: f.footer.developerDashboard },
    { href: '/docs/api', text: t.layout.apiDocs },
    { href: '/docs/errors', text: t.layout.errorCodes },
  ];
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
                  {/* Only for an account linked to a lawyer record (its text is the portal's: en/es, English elsewhere). */}
                  {ctx.user.lawyer ? (
                    <a href="/lawyer" aria-current={current('lawyer')}>{t.portal.headerLink}</a>
                  ) : null}
                  <form method="post" action="/sign-out">
                    <CsrfField ctx={ctx} />
                    <button class="linklike" type="submit">{t.layout.signOut}</button>
                  </form>
                </>
              ) : (
                <a href={`/sign-in?return_to=${encodeURIComponent(ctx.path)}`} aria-current={current('sign-in')}>{t.layout.signIn}</a>
              )}
              {/* People are not developers: the entry is for those with developer work, and inside the area. */}
              {ctx.user?.developer || developers ? (
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
              <>
                <FooterColumn heading={f.footer.developers} links={[...developerLinks, { href: '/', text: f.footer.backToPeople }]} />
                <FooterColumn heading={f.footer.legal} links={legalLinks} />
                <FooterColumn heading={f.footer.help} links={helpLinks} />
              </>
            ) : (
              <>
                <FooterColumn heading={f.footer.help} links={[...helpLinks, { href: '/legal/terms', text: f.footer.howBooking }]} />
                <FooterColumn heading={f.footer.legal} links={legalLinks} />
                <FooterColumn heading={f.footer.developers} links={developerLinks} />
              </>
            )}
            {ctx.user ? <p class="operator-line">{t.layout.signedInAs(ctx.user.email)}</p> : null}
          </nav>
        </footer>
      </body>
    </html>
  );
}
