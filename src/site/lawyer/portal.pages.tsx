/**
 * The lawyer's portal frame and its overview (docs/lawyers.md#the-portal). `PortalLayout` is the
 * site layout with the portal's own navigation; every /lawyer page renders in it (the
 * consultations, earnings and calendar-feed pages included).
 */
import type { ComponentChildren } from 'preact';
import type { PortalOverview } from '../../domain/lawyers/portal.service.ts';
import type { SiteContext } from '../context.ts';
import { Notice } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';

export type PortalSection = 'overview' | 'profile' | 'consultation' | 'calendar' | 'consultations' | 'earnings' | 'calendar-feed' | 'reviews';

/** The portal's pages, in the navigation's order. */
export const PORTAL_PAGES: ReadonlyArray<{ section: PortalSection; href: string; key: 'overview' | 'profile' | 'consultation' | 'calendar' | 'consultations' | 'earnings' | 'calendarFeed' | 'reviews' }> = [
  { section: 'overview', href: '/lawyer', key: 'overview' },
  { section: 'profile', href: '/lawyer/profile', key: 'profile' },
  { section: 'consultation', href: '/lawyer/consultation', key: 'consultation' },
  { section: 'calendar', href: '/lawyer/calendar', key: 'calendar' },
  { section: 'consultations', href: '/lawyer/consultations', key: 'consultations' },
  { section: 'earnings', href: '/lawyer/earnings', key: 'earnings' },
  { section: 'calendar-feed', href: '/lawyer/calendar-feed', key: 'calendarFeed' },
  { section: 'reviews', href: '/lawyer/reviews', key: 'reviews' },
];

export interface PortalLayoutProps {
  ctx: SiteContext;
  title: string;
  current: PortalSection;
  children: ComponentChildren;
}

/** The portal frame: the site layout with the portal's navigation beside (desktop) or above (phone) the page. */
export function PortalLayout({ ctx, title, current, children }: PortalLayoutProps) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={title} section="lawyer">
      <div class="dashboard portal">
        <nav class="dash-nav" aria-label={t.portal.navLabel}>
          <p class="dash-nav-heading">{t.portal.navHeading}</p>
          <ul>
            {PORTAL_PAGES.map((p) => (
              <li>
                <a href={p.href} aria-current={p.section === current ? 'page' : undefined}>
                  {t.portal.nav[p.key]}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="dash-main">{children}</div>
      </div>
    </Layout>
  );
}

/** Field name → its localised message, for the error summary and the fields. */
export type PortalErrors = Partial<Record<string, string>>;

/** The error summary at the top of a form sent back: it takes the focus; each message links to its field. */
export function ErrorSummary({ ctx, errors, anchor }: { ctx: SiteContext; errors: PortalErrors; anchor?: (field: string) => string }) {
  const list = Object.entries(errors).filter((e): e is [string, string] => typeof e[1] === 'string');
  if (list.length === 0) return null;
  const { t } = ctx;
  return (
    <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
      <h2 id="error-summary-title">{t.portal.errorTitle}</h2>
      <p>{t.portal.errorIntro}</p>
      <ul>
        {list.map(([field, message]) => (
          <li>
            <a href={`#${anchor ? anchor(field) : `f-${field}`}`}>{message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** "Saved" after a post/redirect/get. */
export function SavedNotice({ message }: { message: string | null }) {
  if (!message) return null;
  return (
    <Notice kind="ok" role="status">
      <p>{message}</p>
    </Notice>
  );
}

export function NotLawyerPage({ ctx }: { ctx: SiteContext }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.portal.notLawyerTitle} narrow>
      <h1>{t.portal.notLawyerTitle}</h1>
      <p>{t.portal.notLawyerText}</p>
      <p>
        <a class="button" href="/join">
          {t.portal.notLawyerButton}
        </a>
      </p>
    </Layout>
  );
}

/** Where each gap is fixed (the verification is the operator's: no link). */
const FIX_HREF: Partial<Record<string, string>> = {
  hidden: '/contact',
  fee: '/lawyer/profile#f-fee',
  length: '/lawyer/consultation#f-consultation_minutes',
  format: '/lawyer/consultation#f-formats',
  practice_area: '/lawyer/profile#f-practice_areas',
  weekly_hours: '/lawyer/calendar#week',
};

export function formatDate(iso: string, locale: string): string {
  return new Date(iso).toLocaleDateString(locale === 'es' ? 'es-ES' : 'en-GB', { timeZone: 'Europe/Madrid', dateStyle: 'long' });
}

export function OverviewPage({ ctx, overview }: { ctx: SiteContext; overview: PortalOverview }) {
  const { t, locale } = ctx;
  const o = overview;
  const status =
    o.status === 'verified' && o.verifiedUntil
      ? t.portal.verifiedUntil(o.formOfAddress, formatDate(o.verifiedUntil, locale))
      : o.status === 'verified'
        ? t.portal.status.expired!
        : (t.portal.status[o.status] ?? o.status);
  // Refused or suspended: the status and the operator's reason say it; "verification pending" would not be true.
  const gaps = o.status === 'refused' || o.status === 'suspended' ? o.gaps.filter((g) => g !== 'verification') : o.gaps;
  return (
    <PortalLayout ctx={ctx} title={t.portal.overviewTitle} current="overview">
      <div class="portal-head">
        {o.photoUrl ? <img class="portal-photo" src={o.photoUrl} alt={t.portal.photoAlt} width={96} height={96} /> : null}
        <div>
          <h1>{t.portal.overviewTitle}</h1>
          <p class="portal-name">{o.name}</p>
        </div>
      </div>
      <dl class="join-claim">
        <dt>{t.portal.statusLabel}</dt>
        <dd>{status}</dd>
        {o.statusReason && (o.status === 'refused' || o.status === 'suspended') ? (
          <>
            <dt>{t.portal.reason}</dt>
            <dd>{o.statusReason}</dd>
          </>
        ) : null}
        <dt>{t.portal.listedLabel}</dt>
        <dd>{o.listed ? t.portal.listedYes : t.portal.listedNo}</dd>
      </dl>
      {gaps.length > 0 ? (
        <section aria-labelledby="portal-missing">
          <h2 id="portal-missing">{t.portal.missingTitle}</h2>
          <ul class="portal-gaps">
            {gaps.map((gap) => (
              <li>
                {t.portal.gap[gap]}{' '}
                {FIX_HREF[gap] ? <a href={FIX_HREF[gap]}>{t.portal.fix[gap]}</a> : null}
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <section aria-labelledby="portal-pages">
        <h2 id="portal-pages">{t.portal.pagesTitle}</h2>
        <ul class="portal-pages">
          {PORTAL_PAGES.filter((p) => p.section !== 'overview').map((p) => (
            <li>
              <a href={p.href}>{t.portal.nav[p.key]}</a>
              <span>{t.portal.pages[p.key]}</span>
            </li>
          ))}
        </ul>
      </section>
    </PortalLayout>
  );
}
