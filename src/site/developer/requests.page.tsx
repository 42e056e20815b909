/**
 * The request log: a person's (or a firm's) API requests, newest first, with filters, the
 * X-Request-Id search, and one request's detail. Renders what the route hands it.
 */
import type { ComponentChildren } from 'preact';
import type { RequestLogTable } from '../../db/schema.ts';
import { REQUEST_LOG_DAYS, STATUS_CLASSES, type RequestFilters } from '../../domain/access/request-history.service.ts';
import type { ApiKeyRecord } from '../../domain/access/types.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Field, Select } from '../ui/components.tsx';
import { DashboardLayout, FirmTabs } from '../ui/dashboard.tsx';

export type LogOwner = { kind: 'user'; base: '/developer' } | { kind: 'firm'; base: string; slug: string; name: string };

// With seconds: requests come seconds apart, and support matches them to a client's own logs.
const at = (ctx: SiteContext, iso: string) => formatInstant(iso, 'Europe/Madrid', ctx.locale, { seconds: true });

function Frame({ ctx, owner, title, children }: { ctx: SiteContext; owner: LogOwner; title: string; children: ComponentChildren }) {
  return (
    <DashboardLayout ctx={ctx} title={title} current={owner.kind === 'user' ? 'requests' : 'firms'}>
      {owner.kind === 'firm' ? (
        <>
          <p class="firm-name">{owner.name}</p>
          <FirmTabs ctx={ctx} slug={owner.slug} current="requests" />
        </>
      ) : null}
      {children}
    </DashboardLayout>
  );
}

/**
 * A status code as a badge coloured by its class: success green, client errors orange, 429 violet,
 * server errors dark red (the usage charts' colours). The code is the badge's text, so colour is
 * never the only signal; every pair passes AA contrast (axe-core in test/browser/dashboard-usage.test.ts).
 */
function StatusCell({ status }: { status: number }) {
  const cls = status >= 500 ? 'status-5xx' : status === 429 ? 'status-429' : status >= 400 ? 'status-4xx' : 'status-2xx';
  return <span class={`badge ${cls}`}>{status}</span>;
}

/** A key as the log names it: its name first, then its prefix (`production server · svc_4Fh2…`). */
export function keyLabel(key: Pick<ApiKeyRecord, 'name' | 'prefix'>): string {
  return key.name ? `${key.name} · ${key.prefix}…` : `${key.prefix}…`;
}

/** The query string of these filters (and a cursor), for links that keep them. */
export function filterQuery(filters: RequestFilters, cursor?: string): string {
  const p = new URLSearchParams();
  if (filters.keyId) p.set('key', filters.keyId);
  if (filters.mode) p.set('mode', filters.mode);
  if (filters.source) p.set('source', filters.source);
  if (filters.status) p.set('status', filters.status);
  if (filters.path) p.set('path', filters.path);
  if (cursor) p.set('cursor', cursor);
  const q = p.toString();
  return q ? `?${q}` : '';
}

export function RequestLogPage(props: { ctx: SiteContext; owner: LogOwner; rows: RequestLogTable[]; keys: ApiKeyRecord[]; filters: RequestFilters; next: string | null; searchedTo?: string | null; idError?: string }) {
  const { ctx, owner, rows, keys, filters, next } = props;
  const t = ctx.t.requests;
  const title = owner.kind === 'firm' ? t.firmTitle(owner.name) : t.title;
  const label = new Map(keys.map((k) => [k.id, keyLabel(k)]));
  const widgetKeys = new Set(keys.filter((k) => k.kind === 'publishable').map((k) => k.id));
  const base = `${owner.base}/requests`;
  return (
    <Frame ctx={ctx} owner={owner} title={title}>
      <h1>{title}</h1>
      <p>{t.intro(REQUEST_LOG_DAYS)}</p>
      <form method="get" action={`${base}/find`} class="card find-request">
        <Field name="request_id" label={t.find} hint={t.requestIdHint} error={props.idError} autocomplete="off" maxLength={40} />
        <button type="submit" class="secondary">{t.go}</button>
      </form>
      <details class="filters card" open={Boolean(filters.keyId || filters.mode || filters.source || filters.status || filters.path)}>
        <summary>{t.filters}</summary>
        <form method="get" action={base}>
        <div class="grid four">
          <Select name="key" label={t.key} empty={t.anyKey} value={filters.keyId ?? ''} options={keys.map((k) => ({ value: k.id, label: keyLabel(k) }))} />
          <Select name="mode" label={t.mode} empty={t.anyMode} value={filters.mode ?? ''} options={[{ value: 'live', label: t.live }, { value: 'test', label: t.test }]} />
          <Select name="source" label={t.source} empty={t.anySource} value={filters.source ?? ''} options={[{ value: 'widget', label: t.widgetOnly }, { value: 'server', label: t.serverOnly }]} />
          <Select name="status" label={t.status} empty={t.anyStatus} value={filters.status ?? ''} options={STATUS_CLASSES.map((c) => ({ value: c, label: c }))} />
          <Field name="path" label={t.path} hint={t.pathHint} value={filters.path ?? ''} maxLength={300} />
        </div>
        <div class="actions">
          <button type="submit">{t.apply}</button>
          <a href={base}>{t.clear}</a>
        </div>
        </form>
      </details>
      {rows.length === 0 && !props.searchedTo ? (
        <p>{t.none}</p>
      ) : rows.length === 0 ? null : (
        <div class="table-scroll" tabindex={0} role="region" aria-label={t.caption}>
          <table class="request-log">
            <caption class="visually-hidden">{t.caption}</caption>
            <thead>
              <tr>
                <th scope="col">{t.colStatus}</th>
                <th scope="col">{t.colTime}</th>
                <th scope="col">{t.colRequest}</th>
                <th scope="col" class="num">{t.colDuration}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr class={r.test ? 'test' : undefined}>
                  <td>
                    <StatusCell status={r.status} />
                  </td>
                  <td class="when">{at(ctx, r.at)}</td>
                  <td class="what">
                    <span class="mono">
                      {r.method} {r.path}
                      {r.query ? <span class="log-query">?{r.query}</span> : null}
                    </span>
                    <br />
                    <a class="mono small" href={`${base}/${r.request_id}`}>{r.request_id}</a>
                    <span class="meta small">
                      {' '}
                      {r.key_id ? label.get(r.key_id) ?? '?' : ''}
                    </span>{' '}
                    {r.test ? <span class="badge test">{t.testBadge}</span> : null}{' '}
                    {r.key_id && widgetKeys.has(r.key_id) ? <span class="badge widget">{t.widgetBadge}</span> : null}
                  </td>
                  <td class="num">{t.ms(Math.round(r.duration_ms))}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {props.searchedTo ? <p class="notice">{t.searchedTo(at(ctx, props.searchedTo))}</p> : null}
      <p class="pager">
        {filters.cursor ? <a href={`${base}${filterQuery({ ...filters, cursor: undefined })}`}>{t.newest}</a> : <span />}
        {next ? <a href={`${base}${filterQuery(filters, next)}`}>{props.searchedTo ? t.searchOlder : t.older}</a> : null}
      </p>
    </Frame>
  );
}

/**
 * One request's facts; also used by the operator's request lookup. `widget`: the key is
 * publishable (the booking widget's), which the log row itself does not record.
 */
export function RequestFacts({ ctx, row, keyLabel, widget }: { ctx: SiteContext; row: RequestLogTable; keyLabel: string | null; widget: boolean }) {
  const t = ctx.t.requests;
  return (
    <dl class="facts">
      <dt>{t.colId}</dt>
      <dd class="mono">{row.request_id}</dd>
      <dt>{t.colTime}</dt>
      <dd>{at(ctx, row.at)}</dd>
      <dt>{t.method}</dt>
      <dd>{row.method}</dd>
      <dt>{t.colPath}</dt>
      <dd class="mono">{row.path}</dd>
      <dt>{t.colQuery}</dt>
      <dd class={row.query ? 'mono' : undefined}>{row.query ? `?${row.query}` : t.noQuery}</dd>
      <dt>{t.route}</dt>
      <dd class="mono">{row.route}</dd>
      <dt>{t.colStatus}</dt>
      <dd>
        <StatusCell status={row.status} />
      </dd>
      <dt>{t.colDuration}</dt>
      <dd>{t.ms(Math.round(row.duration_ms * 100) / 100)}</dd>
      <dt>{t.errorCode}</dt>
      <dd>{row.error_code ? <a href={`/docs/errors/${encodeURIComponent(row.error_code)}`}>{row.error_code}</a> : t.noError}</dd>
      <dt>{t.colKey}</dt>
      <dd class="mono">{keyLabel ?? t.keyGone}</dd>
      <dt>{t.mode_}</dt>
      <dd>{row.test ? <span class="badge test">{t.modeTest}</span> : t.modeLive}</dd>
      {row.key_id ? (
        <>
          <dt>{t.source_}</dt>
          <dd>{widget ? <span class="badge widget">{t.sourceWidget}</span> : t.sourceServer}</dd>
        </>
      ) : null}
      <dt>{t.clientIp}</dt>
      <dd class="mono">{row.client_ip}</dd>
    </dl>
  );
}

/** `apiKey`, not `key`: Preact keeps a `key` prop for itself and never hands it to the component. */
export function RequestDetailPage({ ctx, owner, row, apiKey: key }: { ctx: SiteContext; owner: LogOwner; row: RequestLogTable; apiKey: ApiKeyRecord | null }) {
  const t = ctx.t.requests;
  return (
    <Frame ctx={ctx} owner={owner} title={`${t.detailTitle} ${row.request_id}`}>
      <h1>{t.detailTitle}</h1>
      <RequestFacts ctx={ctx} row={row} keyLabel={key ? keyLabel(key) : null} widget={key?.kind === 'publishable'} />
      <p>
        <a href={`${owner.base}/requests`}>{t.backToLog}</a>
      </p>
    </Frame>
  );
}
