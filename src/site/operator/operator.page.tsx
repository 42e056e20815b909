/**
 * The operator console's pages: search, a person, a firm, a key (tier, suspension), lawyers
 * (verification, listing), request lookup and the audit log. They render what the routes hand
 * them; they never query.
 */
import type { ComponentChildren } from 'preact';
import { keyStatus } from '../../domain/access/api-key.ts';
import type { Firm, User } from '../../domain/access/accounts.service.ts';
import { TIER_LIMITS } from '../../domain/access/limits.ts';
import { TIERS, type ApiKeyRecord, type FirmMember, type FirmRole } from '../../domain/access/types.ts';
import type { AuditEntry } from '../../domain/operator/audit.ts';
import type { LawyerStatus, RequestLookup, SearchResults } from '../../domain/operator/operator.service.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { RequestFacts } from '../developer/requests.page.tsx';
import { ModeBadge, StatusBadge } from '../developer/keys.page.tsx';
import { Field, Notice, PostForm, Select } from '../ui/components.tsx';
import { DashboardLayout } from '../ui/dashboard.tsx';

export type ConsoleTab = 'search' | 'applications' | 'reviews' | 'lawyers' | 'requests' | 'audit';

const when = (ctx: SiteContext, iso: string | null, empty = '—') => (iso ? formatInstant(iso, 'Europe/Madrid', ctx.locale) : empty);
const enc = encodeURIComponent;

/** The console's own tabs, under the dashboard frame (also the applications queue's, applications.page.tsx). */
export function Frame({ ctx, title, tab, children }: { ctx: SiteContext; title: string; tab: ConsoleTab | null; children: ComponentChildren }) {
  const t = ctx.t.operator;
  const tabs: Array<[ConsoleTab, string, string]> = [
    ['search', '/operator', t.tabSearch],
    ['applications', '/operator/applications', ctx.t.applicationsQueue.tab],
    ['reviews', '/operator/reviews', ctx.t.reviewModeration.tab],
    ['lawyers', '/operator/lawyers', t.tabLawyers],
    ['requests', '/operator/requests', t.tabRequests],
    ['audit', '/operator/audit', t.tabAudit],
  ];
  return (
    <DashboardLayout ctx={ctx} title={title} current="operator">
      <p class="firm-name">{t.title}</p>
      <nav class="firm-tabs" aria-label={t.tabsLabel}>
        <ul>
          {tabs.map(([id, href, label]) => (
            <li>
              <a href={href} aria-current={id === tab ? 'page' : undefined}>{label}</a>
            </li>
          ))}
        </ul>
      </nav>
      {children}
    </DashboardLayout>
  );
}

/** A notice after a redirect (`?done=`), if any. */
function Done({ ctx, done }: { ctx: SiteContext; done?: string }) {
  const text = done ? ctx.t.operator.done[done] : undefined;
  return text ? <Notice kind="ok" role="status">{text}</Notice> : null;
}

function KeyCards({ ctx, keys, now, showOwner }: { ctx: SiteContext; keys: ApiKeyRecord[]; now: Date; showOwner?: boolean }) {
  const t = ctx.t.operator;
  if (keys.length === 0) return <p>{t.none}</p>;
  return (
    <ul class="cards">
      {keys.map((key) => (
        <li class="card">
          <p class="key-title">
            <a href={`/operator/keys/${key.id}`} class="mono">{key.prefix}…</a> <ModeBadge ctx={ctx} mode={key.mode} /> <StatusBadge ctx={ctx} status={keyStatus(key, now)} />
          </p>
          <div class="meta">
            {key.name ?? t.unnamed} · {t.tier}: {key.tier}
            {showOwner ? <> · {key.owner.type === 'user' ? key.owner.email : t.ownerFirm(key.owner.slug)}</> : null}
          </div>
        </li>
      ))}
    </ul>
  );
}

export function SearchPage({ ctx, results, now }: { ctx: SiteContext; results: SearchResults; now: Date }) {
  const t = ctx.t.operator;
  const empty = results.users.length + results.keys.length + results.firms.length === 0;
  return (
    <Frame ctx={ctx} title={t.title} tab="search">
      <h1>{t.title}</h1>
      <p>{t.intro}</p>
      <form method="get" action="/operator" class="card find-request" role="search">
        <Field name="q" label={t.searchLabel} hint={t.searchHint} value={results.query} maxLength={200} autocomplete="off" />
        <button type="submit">{t.searchButton}</button>
      </form>
      {results.query === '' ? null : (
        <>
          <h2>{t.results(results.query)}</h2>
          {empty ? <p>{t.noResults}</p> : null}
          {results.users.length > 0 ? (
            <>
              <h3>{t.people}</h3>
              <ul class="cards">
                {results.users.map((u) => (
                  <li class="card">
                    <a href={`/operator/users/${u.id}`}>{u.email}</a>
                    {u.name ? <span class="meta"> · {u.name}</span> : null}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
          {results.keys.length > 0 ? (
            <>
              <h3>{t.keys}</h3>
              <KeyCards ctx={ctx} keys={results.keys} now={now} showOwner />
            </>
          ) : null}
          {results.firms.length > 0 ? (
            <>
              <h3>{t.firms}</h3>
              <ul class="cards">
                {results.firms.map((f) => (
                  <li class="card">
                    <a href={`/operator/firms/${enc(f.slug)}`}>{f.name}</a> <span class="meta mono">{f.slug}</span>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
    </Frame>
  );
}

export function UserPage(props: { ctx: SiteContext; user: User; operatorSince: string | null; keys: ApiKeyRecord[]; firms: Array<Firm & { role: FirmRole }>; now: Date }) {
  const { ctx, user } = props;
  const t = ctx.t.operator;
  return (
    <Frame ctx={ctx} title={t.userTitle(user.email)} tab={null}>
      <h1 class="break-anywhere">{user.email}</h1>
      <dl class="facts">
        <dt>{t.name}</dt>
        <dd>{user.name ?? t.unnamed}</dd>
        <dt>{t.created}</dt>
        <dd>{when(ctx, user.createdAt)}</dd>
        <dt>{t.operatorSince}</dt>
        <dd>{props.operatorSince ? when(ctx, props.operatorSince) : t.notOperator}</dd>
      </dl>
      <h2>{t.personalKeys}</h2>
      <KeyCards ctx={ctx} keys={props.keys} now={props.now} />
      <h2>{t.memberOf}</h2>
      {props.firms.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul class="cards">
          {props.firms.map((f) => (
            <li class="card">
              <a href={`/operator/firms/${enc(f.slug)}`}>{f.name}</a> <span class="meta">· {t.roles[f.role] ?? f.role}</span>
            </li>
          ))}
        </ul>
      )}
    </Frame>
  );
}

export function FirmPage({ ctx, firm, members, keys, now }: { ctx: SiteContext; firm: Firm; members: FirmMember[]; keys: ApiKeyRecord[]; now: Date }) {
  const t = ctx.t.operator;
  return (
    <Frame ctx={ctx} title={t.firmTitle(firm.name)} tab={null}>
      <h1>{firm.name}</h1>
      <dl class="facts">
        <dt>{t.slug}</dt>
        <dd class="mono">{firm.slug}</dd>
        <dt>{t.created}</dt>
        <dd>{when(ctx, firm.createdAt)}</dd>
      </dl>
      <h2>{t.members}</h2>
      <ul class="cards">
        {members.map((m) => (
          <li class="card">
            <a href={`/operator/users/${m.userId}`}>{m.email}</a> <span class="meta">· {t.roles[m.role] ?? m.role}</span>
          </li>
        ))}
      </ul>
      <h2>{t.firmKeys}</h2>
      <KeyCards ctx={ctx} keys={keys} now={now} />
    </Frame>
  );
}

/** What a key page shows besides the key: a notice, and a form's values and errors. */
export interface KeyPageState {
  done?: string;
  problem?: string;
  tier?: string;
  tierError?: string;
  reason?: string;
  reasonError?: string;
}

export function KeyPage(props: { ctx: SiteContext; apiKey: ApiKeyRecord; lastUsed: string | null; history: AuditEntry[]; now: Date; state?: KeyPageState }) {
  const { ctx, apiKey: key, state = {} } = props;
  const t = ctx.t.operator;
  const url = `/operator/keys/${key.id}`;
  const revoked = key.revokedAt !== null;
  return (
    <Frame ctx={ctx} title={t.keyTitle(key.prefix)} tab={null}>
      <h1>{t.keyTitle(key.prefix)}</h1>
      <Done ctx={ctx} done={state.done} />
      {state.problem ? <Notice kind="bad" role="alert">{state.problem}</Notice> : null}
      {key.suspension ? (
        <Notice kind="warn">{key.suspension.by === 'operator' ? t.suspendedByOperator(key.suspension.reason) : t.suspendedByFirm(key.suspension.reason)}</Notice>
      ) : null}
      <dl class="facts">
        <dt>{t.name}</dt>
        <dd>{key.name ?? t.unnamed}</dd>
        <dt>{t.owner}</dt>
        <dd>
          {key.owner.type === 'user' ? (
            <a href={`/operator/users/${key.owner.userId}`}>{key.owner.email}</a>
          ) : (
            <a href={`/operator/firms/${enc(key.owner.slug)}`}>{t.ownerFirm(key.owner.slug)}</a>
          )}
        </dd>
        <dt>{t.mode}</dt>
        <dd>
          <ModeBadge ctx={ctx} mode={key.mode} />
        </dd>
        <dt>{t.status}</dt>
        <dd>
          <StatusBadge ctx={ctx} status={keyStatus(key, props.now)} />
        </dd>
        <dt>{t.tier}</dt>
        <dd>{key.tier}</dd>
        <dt>{t.scopes}</dt>
        <dd class="mono">{key.scopes.join(', ')}</dd>
        <dt>{t.lastUsed}</dt>
        <dd>{when(ctx, props.lastUsed, t.never)}</dd>
        <dt>{t.created}</dt>
        <dd>{when(ctx, key.createdAt)}</dd>
        <dt>{t.expires}</dt>
        <dd>{when(ctx, key.expiresAt, t.never)}</dd>
        <dt>{t.allowList}</dt>
        <dd class="mono">{key.allowedIps === null ? t.anyAddress : key.allowedIps.join(', ')}</dd>
      </dl>
      {revoked ? (
        <p>{t.revokedNote}</p>
      ) : (
        <>
          <p class="meta">{t.stepUpNote}</p>
          <h2>{t.tierHeading}</h2>
          <PostForm ctx={ctx} action={`${url}/tier`} class="card">
            <Select
              name="tier"
              label={t.tierLabel}
              value={state.tier ?? key.tier}
              error={state.tierError}
              options={TIERS.map((tier) => ({ value: tier, label: t.tierOption(tier, TIER_LIMITS[tier].perMinute, TIER_LIMITS[tier].perDay) }))}
            />
            <button type="submit">{t.tierButton}</button>
          </PostForm>
          <h2>{t.suspendHeading}</h2>
          {key.suspension?.by === 'operator' ? (
            <PostForm ctx={ctx} action={`${url}/unsuspend`} class="card">
              <button type="submit" class="secondary">{t.liftButton}</button>
            </PostForm>
          ) : (
            <PostForm ctx={ctx} action={`${url}/suspend`} class="card">
              <Field name="reason" label={t.suspendReason} hint={t.suspendHint} value={state.reason ?? ''} maxLength={500} error={state.reasonError} required />
              <button type="submit" class="danger">{t.suspendButton}</button>
            </PostForm>
          )}
        </>
      )}
      <h2>{t.history}</h2>
      <AuditList ctx={ctx} entries={props.history} />
    </Frame>
  );
}

function LawyerBadges({ ctx, lawyer }: { ctx: SiteContext; lawyer: LawyerStatus }) {
  const t = ctx.t.operator;
  return (
    <>
      <span class={lawyer.verified ? 'badge ok' : 'badge bad'}>{lawyer.verified ? t.verified : t.notVerified}</span>{' '}
      <span class={lawyer.listed ? 'badge ok' : 'badge bad'}>{lawyer.listed ? t.listed : t.notListed}</span>
    </>
  );
}

export function LawyersPage({ ctx, query, lawyers }: { ctx: SiteContext; query: string; lawyers: LawyerStatus[] }) {
  const t = ctx.t.operator;
  return (
    <Frame ctx={ctx} title={t.lawyersTitle} tab="lawyers">
      <h1>{t.lawyersTitle}</h1>
      <form method="get" action="/operator/lawyers" class="card find-request" role="search">
        <Field name="q" label={t.lawyersLabel} hint={t.lawyersHint} value={query} maxLength={200} autocomplete="off" />
        <button type="submit">{t.searchButton}</button>
      </form>
      <h2>{query === '' ? t.lawyersHidden : t.results(query)}</h2>
      {lawyers.length === 0 ? (
        <p>{t.noLawyers}</p>
      ) : (
        <ul class="cards">
          {lawyers.map((l) => (
            <li class="card">
              <p class="key-title">
                <a href={`/operator/lawyers/${l.id}`}>{l.name}</a>
              </p>
              <div class="meta">
                {l.cityName ?? l.citySlug} · <LawyerBadges ctx={ctx} lawyer={l} />
              </div>
            </li>
          ))}
        </ul>
      )}
    </Frame>
  );
}

export function LawyerPage({ ctx, lawyer, history, done }: { ctx: SiteContext; lawyer: LawyerStatus; history: AuditEntry[]; done?: string }) {
  const t = ctx.t.operator;
  const url = `/operator/lawyers/${lawyer.id}`;
  const isPublic = lawyer.public;
  return (
    <Frame ctx={ctx} title={t.lawyerTitle(lawyer.name)} tab="lawyers">
      <h1>{lawyer.name}</h1>
      <Done ctx={ctx} done={done} />
      <dl class="facts">
        <dt>{t.id}</dt>
        <dd class="mono">{lawyer.id}</dd>
        <dt>{t.city}</dt>
        <dd>{lawyer.cityName ?? lawyer.citySlug}</dd>
        <dt>{t.verification}</dt>
        <dd>
          <LawyerBadges ctx={ctx} lawyer={lawyer} />
        </dd>
        <dt>{t.public}</dt>
        <dd>{isPublic ? <a href={`/lawyers/${lawyer.id}`}>{t.publicYes}</a> : t.publicNo}</dd>
        <dt>{t.updated}</dt>
        <dd>{when(ctx, lawyer.updatedAt)}</dd>
      </dl>
      <p class="meta">
        {t.stepUpNote} {t.freshness}
      </p>
      <h2>{t.verification}</h2>
      <PostForm ctx={ctx} action={`${url}/verification`}>
        <input type="hidden" name="verified" value={lawyer.verified ? 'no' : 'yes'} />
        <button type="submit" class={lawyer.verified ? 'danger' : undefined}>{lawyer.verified ? t.unverifyButton : t.verifyButton}</button>
      </PostForm>
      <h2>{t.listing}</h2>
      <PostForm ctx={ctx} action={`${url}/listing`}>
        <input type="hidden" name="listed" value={lawyer.listed ? 'no' : 'yes'} />
        <button type="submit" class={lawyer.listed ? 'danger' : undefined}>{lawyer.listed ? t.unlistButton : t.listButton}</button>
      </PostForm>
      <h2>{t.history}</h2>
      <AuditList ctx={ctx} entries={history} />
    </Frame>
  );
}

export function RequestLookupPage({ ctx, value, error }: { ctx: SiteContext; value?: string; error?: string }) {
  const t = ctx.t.operator;
  return (
    <Frame ctx={ctx} title={t.requestsTitle} tab="requests">
      <h1>{t.requestsTitle}</h1>
      <p>{t.requestsIntro}</p>
      <form method="get" action="/operator/requests" class="card find-request" role="search">
        <Field name="request_id" label={t.requestIdLabel} hint={t.requestIdHint} value={value ?? ''} error={error} maxLength={64} autocomplete="off" />
        <button type="submit">{t.findButton}</button>
      </form>
    </Frame>
  );
}

export function RequestPage({ ctx, lookup }: { ctx: SiteContext; lookup: RequestLookup }) {
  const t = ctx.t.operator;
  const { row, key } = lookup;
  return (
    <Frame ctx={ctx} title={`${t.requestTitle} ${row.request_id}`} tab="requests">
      <h1>{t.requestTitle}</h1>
      <RequestFacts ctx={ctx} row={row} keyLabel={key ? `${key.prefix}…${key.name ? ` (${key.name})` : ''}` : row.key_id === null ? t.anonymous : null} widget={key?.kind === 'publishable'} />
      {key ? (
        <dl class="facts">
          <dt>{t.keyOwner}</dt>
          <dd>
            {key.owner.type === 'user' ? (
              <a href={`/operator/users/${key.owner.userId}`}>{key.owner.email}</a>
            ) : (
              <a href={`/operator/firms/${enc(key.owner.slug)}`}>{t.ownerFirm(key.owner.slug)}</a>
            )}
          </dd>
        </dl>
      ) : null}
      <p class="actions">
        {key ? <a href={`/operator/keys/${key.id}`}>{t.openKey}</a> : null}
        <a href="/operator/requests">{t.requestsTitle}</a>
      </p>
    </Frame>
  );
}

/** The words for an entry's details (what changed), in the page's language. */
function detailText(ctx: SiteContext, entry: AuditEntry): string {
  const t = ctx.t.operator;
  const d = entry.details;
  const s = (v: unknown) => (typeof v === 'string' ? v : '');
  switch (entry.action) {
    case 'key.set_tier':
      return t.detailTier(s(d.from), s(d.to));
    case 'key.suspend': {
      const replaced = d.replaced as { by?: unknown } | null | undefined;
      return [t.detailReason(s(d.reason)), replaced ? t.detailReplaced(s(replaced.by)) : ''].filter(Boolean).join('; ');
    }
    case 'key.unsuspend': {
      const lifted = (d.lifted ?? {}) as { by?: unknown; reason?: unknown };
      return t.detailLifted(s(lifted.by), s(lifted.reason));
    }
    case 'lawyer.verify':
    case 'lawyer.unverify':
    case 'lawyer.list':
    case 'lawyer.unlist':
      return t.detailPublic(d.public_before === true, d.public_after === true);
    case 'review.hide':
    case 'review.restore':
    case 'review.keep':
      return ctx.t.reviewModeration.auditDetail(s(d.reason) || s(d.hidden_reason), s(d.note));
    default:
      return '';
  }
}

function targetHref(entry: AuditEntry): string | null {
  if (entry.target.type === 'key') return `/operator/keys/${entry.target.id}`;
  if (entry.target.type === 'lawyer') return `/operator/lawyers/${entry.target.id}`;
  if (entry.target.type === 'user') return `/operator/users/${entry.target.id}`;
  if (entry.target.type === 'review') return `/operator/reviews/${entry.target.id}`;
  return null;
}

function AuditList({ ctx, entries }: { ctx: SiteContext; entries: AuditEntry[] }) {
  const t = ctx.t.operator;
  if (entries.length === 0) return <p>{t.noHistory}</p>;
  return (
    <ol class="cards audit-log">
      {entries.map((e) => {
        const href = targetHref(e);
        const label = e.target.label === null ? e.target.id : e.target.type === 'key' ? `${e.target.label}…` : e.target.label;
        const detail = detailText(ctx, e);
        return (
          <li class="card">
            <p class="key-title">
              <strong>{t.actions[e.action] ?? e.action}</strong>
            </p>
            <dl class="facts">
              <dt>{t.when}</dt>
              <dd>{when(ctx, e.at)}</dd>
              <dt>{t.who}</dt>
              <dd>{e.actor.kind === 'cli' ? t.cli : e.actor.userId ? <a href={`/operator/users/${e.actor.userId}`}>{e.actor.email}</a> : e.actor.email}</dd>
              <dt>{t.target}</dt>
              <dd class="mono">{href ? <a href={href}>{label}</a> : label}</dd>
              {detail ? (
                <>
                  <dt>{t.details}</dt>
                  <dd>{detail}</dd>
                </>
              ) : null}
              {e.requestId ? (
                <>
                  <dt>{t.requestId}</dt>
                  <dd class="mono small">{e.requestId}</dd>
                </>
              ) : null}
            </dl>
          </li>
        );
      })}
    </ol>
  );
}

export function AuditPage({ ctx, entries, next, paged }: { ctx: SiteContext; entries: AuditEntry[]; next: number | null; paged: boolean }) {
  const t = ctx.t.operator;
  return (
    <Frame ctx={ctx} title={t.auditTitle} tab="audit">
      <h1>{t.auditTitle}</h1>
      <p>{t.auditIntro}</p>
      {entries.length === 0 ? <p>{t.noEntries}</p> : <AuditList ctx={ctx} entries={entries} />}
      <p class="pager">
        {paged ? <a href="/operator/audit">{t.newest}</a> : <span />}
        {next !== null ? <a href={`/operator/audit?before=${next}`}>{t.older}</a> : null}
      </p>
    </Frame>
  );
}
