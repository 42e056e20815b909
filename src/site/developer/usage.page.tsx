/**
 * Usage of one live key over 30 days: requests per day by outcome, p50/p95 latency per day,
 * errors by code, top endpoints and today's use against the tier's limits. Every chart is SVG
 * drawn here (no chart script) and every figure in it is also in a table. The figures are
 * GET /usage's for the same key, from the daily aggregates.
 */
import type { UsageResponse } from '../../contract/access.ts';
import type { ApiKeyRecord } from '../../domain/access/types.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Select } from '../ui/components.tsx';
import { CellBar, LineChart, StackedBars, UseBar } from '../ui/charts.tsx';
import { DashboardLayout, FirmTabs } from '../ui/dashboard.tsx';
import type { LogOwner } from './requests.page.tsx';

type Day = UsageResponse['daily'][number];

/** A day's requests by outcome; 3xx (a 304 to If-None-Match) counts as success. */
export function outcomes(d: Day): { ok: number; client: number; limited: number; server: number } {
  return { ok: d.requests - d.errors, client: d.errors - d.rate_limited - d.server_errors, limited: d.rate_limited, server: d.server_errors };
}

/** A route that may wrap after each slash on a phone, never inside a word. */
function Breakable({ text }: { text: string }) {
  const parts = text.split('/');
  return (
    <>
      {parts.map((part, i) => (
        <>
          {i > 0 ? '/' : null}
          {part}
          {i < parts.length - 1 && i > 0 ? <wbr /> : null}
        </>
      ))}
    </>
  );
}

function Swatch({ className }: { className: string }) {
  return <span class={`swatch ${className}`} aria-hidden="true" />;
}

export function UsagePage({ ctx, owner, keys, selected, usage }: { ctx: SiteContext; owner: LogOwner; keys: ApiKeyRecord[]; selected: ApiKeyRecord | null; usage: UsageResponse | null }) {
  const t = ctx.t.usage;
  const title = owner.kind === 'firm' ? t.firmTitle(owner.name) : t.title;
  const live = keys.filter((k) => k.mode === 'live');
  const daily = usage?.daily ?? [];
  const days = daily.map((d) => d.date);
  const split = daily.map(outcomes);
  const sum = (f: (o: ReturnType<typeof outcomes>) => number) => split.reduce((s, o) => s + f(o), 0);
  const totals = { requests: daily.reduce((s, d) => s + d.requests, 0), ok: sum((o) => o.ok), client: sum((o) => o.client), limited: sum((o) => o.limited), server: sum((o) => o.server) };
  const ms = (v: number | null) => (v === null ? '–' : t.ms(v));
  const p95s = daily.map((d) => d.latency_ms.p95).filter((v): v is number => v !== null);
  const errorsMax = Math.max(0, ...(usage?.errors_by_code ?? []).map((e) => e.count));
  const routesMax = Math.max(0, ...(usage?.top_endpoints ?? []).map((e) => e.requests));
  const base = `${owner.base}/usage`;
  // Today's bar counts what the request log saw; the day window what the limiter counted. When the
  // bar is higher, say why (GET /key, GET /usage and 429 refusals are logged but not counted).
  const dayWindow = usage?.windows.find((w) => w.id === 'day');
  const inChart = daily.at(-1)?.requests ?? 0;
  const todayGap = dayWindow && inChart > dayWindow.used ? { inChart, counted: dayWindow.used } : null;
  return (
    <DashboardLayout ctx={ctx} title={title} current={owner.kind === 'user' ? 'usage' : 'firms'}>
      {owner.kind === 'firm' ? (
        <>
          <p class="firm-name">{owner.name}</p>
          <FirmTabs ctx={ctx} slug={owner.slug} current="usage" />
        </>
      ) : null}
      <h1>{title}</h1>
      <p>{t.intro}</p>
      {live.length === 0 || !selected || !usage ? (
        <p>
          {t.noKeys} {owner.kind === 'user' ? <a href="/developer/keys/new">{t.createKey}</a> : null}
        </p>
      ) : (
        <>
          <form method="get" action={base} class="key-choice">
            <Select name="key" label={t.key} value={selected.id} options={live.map((k) => ({ value: k.id, label: `${k.prefix}…${k.name ? ` (${k.name})` : ''}` }))} />
            <button type="submit" class="secondary">{t.show}</button>
          </form>

          <h2 id="per-day">{t.perDay}</h2>
          <figure class="chart-figure">
            <StackedBars
              id="chart-requests"
              title={t.perDay}
              description={t.chartDescription(totals)}
              labels={days}
              series={[
                { className: 'bar-ok', label: t.legendOk, values: split.map((o) => o.ok) },
                { className: 'bar-error', label: t.legend4xx, values: split.map((o) => o.client) },
                { className: 'bar-limited', label: t.legendLimited, values: split.map((o) => o.limited) },
                { className: 'bar-server', label: t.legend5xx, values: split.map((o) => o.server) },
              ]}
            />
            <figcaption>
              <ul class="legend">
                <li><Swatch className="bar-ok" /> {t.legendOk}</li>
                <li><Swatch className="bar-error" /> {t.legend4xx}</li>
                <li><Swatch className="bar-limited" /> {t.legendLimited}</li>
                <li><Swatch className="bar-server" /> {t.legend5xx}</li>
              </ul>
              <p class="meta">{t.chartDescription(totals)}</p>
              <p class="meta">{t.perDayNote}</p>
            </figcaption>
          </figure>
          <details class="chart-table">
            <summary>{t.tableSummary}</summary>
            <div class="table-scroll" tabindex={0} role="region" aria-label={t.perDay}>
              <table class="usage-table">
                <caption class="visually-hidden">{t.perDay}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t.colDay}</th>
                    <th scope="col" class="num">{t.colRequests}</th>
                    <th scope="col" class="num">{t.colOk}</th>
                    <th scope="col" class="num">{t.col4xx}</th>
                    <th scope="col" class="num">{t.colLimited}</th>
                    <th scope="col" class="num">{t.col5xx}</th>
                  </tr>
                </thead>
                <tbody>
                  {daily.map((d, i) => (
                    <tr>
                      <th scope="row">{d.date}</th>
                      <td class="num">{d.requests}</td>
                      <td class="num">{split[i]!.ok}</td>
                      <td class="num">{split[i]!.client}</td>
                      <td class="num">{split[i]!.limited}</td>
                      <td class="num">{split[i]!.server}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>

          <h2 id="latency">{t.latency}</h2>
          <figure class="chart-figure">
            <LineChart
              id="chart-latency"
              title={t.latency}
              description={p95s.length ? t.latencyDescription(Math.max(...p95s)) : t.noRequests}
              labels={days}
              unit=" ms"
              series={[
                { className: 'line-p50', label: t.p50, values: daily.map((d) => d.latency_ms.p50) },
                { className: 'line-p95', label: t.p95, values: daily.map((d) => d.latency_ms.p95) },
              ]}
            />
            <figcaption>
              <ul class="legend">
                <li><span class="swatch line-p50" aria-hidden="true" /> {t.p50}</li>
                <li><span class="swatch line-p95" aria-hidden="true" /> {t.p95}</li>
              </ul>
              <p class="meta">{t.latencyNote}</p>
            </figcaption>
          </figure>
          <details class="chart-table">
            <summary>{t.tableSummary}</summary>
            <div class="table-scroll" tabindex={0} role="region" aria-label={t.latency}>
              <table class="usage-table latency-table">
                <caption class="visually-hidden">{t.latency}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t.colDay}</th>
                    <th scope="col" class="num">{t.p50}</th>
                    <th scope="col" class="num">{t.p95}</th>
                  </tr>
                </thead>
                <tbody>
                  {daily.map((d) => (
                    <tr>
                      <th scope="row">{d.date}</th>
                      <td class="num">{ms(d.latency_ms.p50)}</td>
                      <td class="num">{ms(d.latency_ms.p95)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </details>

          <h2 id="errors">{t.errorsByCode}</h2>
          {usage.errors_by_code.length === 0 ? (
            <p>{t.noErrors}</p>
          ) : (
            <table class="bar-table errors-table">
              <caption class="visually-hidden">{t.errorsByCode}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.colCode}</th>
                  <th scope="col" class="num">{t.colErrors}</th>
                </tr>
              </thead>
              <tbody>
                {usage.errors_by_code.map((e) => (
                  <tr>
                    <th scope="row">
                      {e.code ? <a class="mono" href={`/docs/errors/${encodeURIComponent(e.code)}`}>{e.code}</a> : <span>{t.noCode}</span>}
                      <CellBar value={e.count} max={errorsMax} className="bar-error" />
                    </th>
                    <td class="num">{e.count}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <p class="meta">
            <a href="/docs/errors">{t.errorsLink}</a>
          </p>

          <h2 id="endpoints">{t.topEndpoints}</h2>
          {usage.top_endpoints.length === 0 ? (
            <p>{t.noRequests}</p>
          ) : (
            <table class="bar-table endpoints-table">
              <caption class="visually-hidden">{t.topEndpoints}</caption>
              <thead>
                <tr>
                  <th scope="col">{t.colEndpoint}</th>
                  <th scope="col" class="num">{t.colRequests}</th>
                  <th scope="col" class="num">{t.colErrors}</th>
                </tr>
              </thead>
              <tbody>
                {usage.top_endpoints.map((e) => (
                  <tr>
                    <th scope="row">
                      <span class="mono route">
                        {e.method} {e.route === '*' ? t.noRoute : <Breakable text={e.route} />}
                      </span>
                      <CellBar value={e.requests} max={routesMax} />
                    </th>
                    <td class="num">{e.requests}</td>
                    <td class="num">{e.errors}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}

          <h2 id="today">{t.today}</h2>
          <p>{t.tier(usage.tier)}</p>
          <p>{t.todayCounts}</p>
          {todayGap ? <p class="notice">{t.todayDifference(todayGap.inChart, todayGap.counted)}</p> : null}
          <ul class="windows">
            {usage.windows.map((w) => (
              <li>
                <span class="label">{t.window(w.id)}</span> <strong>{t.used(w.used, w.limit)}</strong> <span class="meta">({t.resets(formatInstant(w.resets_at, 'Europe/Madrid', ctx.locale))})</span>
                <UseBar label={`${t.window(w.id)}: ${t.used(w.used, w.limit)}`} used={w.used} limit={w.limit} />
              </li>
            ))}
            {usage.limits.per_day === null ? (
              <li>
                <span class="label">{t.window('day')}</span> <strong>{t.noLimit}</strong>
              </li>
            ) : null}
          </ul>
        </>
      )}
    </DashboardLayout>
  );
}
