/**
 * The dashboard frame: the site layout with the dashboard's own navigation (developer area,
 * firms, account, and the operator console for operators). Every dashboard page renders in it.
 */
import type { ComponentChildren } from 'preact';
import { developerLanguage, isPeopleOnly } from '../../i18n/index.ts';
import type { SiteContext } from '../context.ts';
import { BackLink } from './components.tsx';
import { Layout } from './layout.tsx';

export type DashboardSection = 'overview' | 'keys' | 'webhooks' | 'requests' | 'usage' | 'widget' | 'firms' | 'passkeys' | 'apps' | 'operator';

export interface DashboardLayoutProps {
  ctx: SiteContext;
  title: string;
  current: DashboardSection;
  children: ComponentChildren;
}

/** The dashboard's own pages that a person who books reaches from Account (passkeys, connected apps): people's pages, in every language. */
const PEOPLE_PAGES: ReadonlySet<DashboardSection> = new Set(['passkeys', 'apps']);

export function DashboardLayout({ ctx, title, current, children }: DashboardLayoutProps) {
  const { t } = ctx;
  // In a people-only language the dashboard's navigation is the developer area's, in English
  // (DEVELOPER_FALLBACK): the people's pages in it get the people's frame instead, and the
  // developer pages say which language they are in.
  if (isPeopleOnly(ctx.locale) && PEOPLE_PAGES.has(current)) {
    return (
      <Layout ctx={ctx} title={title} section="account">
        {children}
      </Layout>
    );
  }
  const lang = developerLanguage(ctx.locale);
  const link = (section: DashboardSection, href: string, label: string) => (
    <li>
      <a href={href} aria-current={section === current ? 'page' : undefined}>{label}</a>
    </li>
  );
  return (
    <Layout ctx={ctx} title={title} section="dashboard">
      <div class="dashboard" lang={lang !== ctx.locale ? lang : undefined}>
        <nav class="dash-nav" aria-label={t.dashboard.navLabel}>
          <p class="dash-nav-heading">{t.dashboard.developer}</p>
          <ul>
            {link('overview', '/developer', t.dashboard.overview)}
            {link('keys', '/developer/keys', t.dashboard.keys)}
            {link('webhooks', '/developer/webhooks', t.dashboard.webhooks)}
            {link('requests', '/developer/requests', t.dashboard.requests)}
            {link('usage', '/developer/usage', t.dashboard.usage)}
            {link('widget', '/developer/widget', t.widgetDev.nav)}
          </ul>
          <p class="dash-nav-heading">{t.dashboard.account}</p>
          <ul>
            {link('firms', '/firms', t.dashboard.firms)}
            {link('passkeys', '/account/passkeys', t.dashboard.passkeys)}
            {link('apps', '/account/apps', t.oauth.appsNav)}
          </ul>
          {ctx.user?.operator ? (
            <>
              <p class="dash-nav-heading">{t.dashboard.operatorHeading}</p>
              <ul>{link('operator', '/operator', t.dashboard.operator)}</ul>
            </>
          ) : null}
        </nav>
        <div class="dash-main">{children}</div>
      </div>
    </Layout>
  );
}

/**
 * A secret shown once (an API key, a webhook signing secret): readable, selectable, with a copy
 * button that site.js wires up (without JavaScript the text is still there to select).
 */
export function SecretOnce({ ctx, label, value, warning }: { ctx: SiteContext; label: string; value: string; warning: string }) {
  return (
    <div class="notice warn secret-once" role="status">
      <p>
        <strong>{warning}</strong>
      </p>
      <label class="label" for="secret-value">{label}</label>
      <div class="secret-row">
        <input id="secret-value" type="text" readonly value={value} class="secret" spellcheck={false} autocomplete="off" />
        <button type="button" class="secondary" data-copy="secret-value" data-copied={ctx.t.dashboard.copied} hidden>
          {ctx.t.dashboard.copy}
        </button>
      </div>
    </div>
  );
}

/**
 * A copy button for the read-only field `source`, wired by site.js: hidden until the script finds
 * a clipboard (without JavaScript the field is there to select). "Copied" is also written to a
 * polite live region, because screen readers do not announce a button whose text changes.
 */
export function CopyButton({ source, label, copied }: { source: string; label: string; copied: string }) {
  return (
    <>
      <button type="button" class="secondary copy" data-copy={source} data-copied={copied} data-copy-status={`${source}-copied`} hidden>
        {label}
      </button>
      <span id={`${source}-copied`} class="visually-hidden" role="status" aria-live="polite" />
    </>
  );
}

export type FirmTab = 'overview' | 'members' | 'lawyers' | 'keys' | 'webhooks' | 'requests' | 'usage';

/** The tabs of one firm's pages (`/firms/:slug/…`); each area renders its own tab's content. */
export function FirmTabs({ ctx, slug, current }: { ctx: SiteContext; slug: string; current: FirmTab }) {
  const t = ctx.t.dashboard;
  const base = `/firms/${encodeURIComponent(slug)}`;
  const tabs: Array<[FirmTab, string, string]> = [
    ['overview', base, t.firmOverview],
    ['members', `${base}/members`, t.firmMembers],
    ['lawyers', `${base}/lawyers`, ctx.t.firmLawyers.nav],
    ['keys', `${base}/keys`, t.keys],
    ['webhooks', `${base}/webhooks`, t.webhooks],
    ['requests', `${base}/requests`, t.requests],
    ['usage', `${base}/usage`, t.usage],
  ];
  return (
    <nav class="firm-tabs" aria-label={t.firmTabsLabel}>
      <ul>
        {tabs.map(([tab, href, label]) => (
          <li>
            <a href={href} aria-current={tab === current ? 'page' : undefined}>{label}</a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The languages the developer area is written in (DESIGN §12); the others cover people's pages only. */
const DEVELOPER_LANGUAGES: readonly string[] = ['es', 'en'];

/**
 * The frame of a page both areas link to — passkeys, connected apps: the dashboard's, with its
 * side navigation, in a language the developer area is written in; in a people-only language
 * (Arabic…) the people's frame under Account, with the way back to it, so that no untranslated
 * developer navigation shows on a page a person who books reaches from Account.
 */
export function AccountAreaLayout({ ctx, title, current, children }: DashboardLayoutProps) {
  if (DEVELOPER_LANGUAGES.includes(ctx.locale)) {
    return (
      <DashboardLayout ctx={ctx} title={title} current={current}>
        {children}
      </DashboardLayout>
    );
  }
  return (
    <Layout ctx={ctx} title={title} section="account">
      <p class="account-back">
        <BackLink ctx={ctx} href="/account">
          {ctx.t.myAccount.title}
        </BackLink>
      </p>
      {children}
    </Layout>
  );
}
