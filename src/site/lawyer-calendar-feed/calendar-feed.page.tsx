/**
 * /lawyer/calendar-feed: her own calendar's busy times (docs/lawyers.md#busy-times-from-her-own-calendar).
 * Status first (what we last read, how many busy times, the last error in plain words), then the
 * address form (add or replace; the stored address is never shown back), then where to find the
 * secret address in Google, Outlook and Apple. Phone first; no JavaScript needed.
 */
import type { FeedStatus } from '../../domain/calendar-feed/calendar-feed.service.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { PortalLayout } from '../lawyer/portal.pages.tsx';

/** What this page needs of her lawyer record. */
export interface FeedLawyer {
  id: string;
  timezone: string;
  horizonDays: number;
  /** Verified by the operator: only then may she add a calendar (issue 25). */
  verified: boolean;
}

function when(iso: string, ctx: SiteContext, zone: string): string {
  return new Date(iso).toLocaleString(ctx.locale === 'es' ? 'es-ES' : 'en-GB', { timeZone: zone, dateStyle: 'medium', timeStyle: 'short' });
}

function Steps({ title, steps, open }: { title: string; steps: readonly string[]; open: boolean }) {
  return (
    <details class="feed-how" open={open}>
      <summary>{title}</summary>
      <ol>
        {steps.map((s) => (
          <li>{s}</li>
        ))}
      </ol>
    </details>
  );
}

export interface CalendarFeedPageProps {
  ctx: SiteContext;
  lawyer: FeedLawyer;
  status: FeedStatus | null;
  /** A result of the last action (?done=…), already a key of calendarFeed.done. */
  done: string | null;
  /** What she typed and why it was refused, after a failed save. */
  form?: { url: string; error: string | null };
}

export function CalendarFeedPage({ ctx, lawyer, status, done, form }: CalendarFeedPageProps) {
  const t = ctx.t.calendarFeed;
  const error = form?.error ?? null;
  const doneText = done ? t.done[done] : undefined;
  const doneBad = done === 'savedFailed' || done === 'refreshFailed' || done === 'tooSoon' || done === 'notVerified';
  return (
    <PortalLayout ctx={ctx} title={error ? `${t.errorTitle} — ${t.title}` : t.title} current="calendar-feed">
      <h1>{t.title}</h1>
      {error ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">{t.errorTitle}</h2>
          <p>{t.errorIntro}</p>
          <ul>
            <li>
              <a href="#f-url">{error}</a>
            </li>
          </ul>
        </div>
      ) : null}
      {doneText ? (
        <Notice kind={doneBad ? 'warn' : 'ok'} role="status">
          <p>{doneText}</p>
        </Notice>
      ) : null}
      <p>{t.intro}</p>
      <p class="meta">{t.privacy}</p>
      {lawyer.verified ? null : (
        <Notice kind="warn">
          <h2>{t.notVerifiedTitle}</h2>
          <p>{t.notVerified}</p>
        </Notice>
      )}

      {status ? (
        <section aria-labelledby="feed-status">
          <h2 id="feed-status">{t.statusTitle}</h2>
          <dl class="join-claim">
            <dt>{t.address}</dt>
            <dd>
              <code>{status.hint}</code>
            </dd>
            <dt>{t.lastRead}</dt>
            <dd>{status.lastSuccessAt ? <time datetime={status.lastSuccessAt}>{when(status.lastSuccessAt, ctx, lawyer.timezone)}</time> : t.never}</dd>
            <dt>{t.busyCount}</dt>
            <dd>{t.busyCountValue(status.busyCount, lawyer.horizonDays)}</dd>
          </dl>
          {status.lastError ? (
            <Notice kind="bad">
              <h3>{t.lastErrorTitle}</h3>
              <p>{t.errors[status.lastError.code] ?? t.errors.network}</p>
              {status.lastSuccessAt ? <p>{t.keptNote}</p> : null}
              <p class="meta">
                {t.detail}: <time datetime={status.lastError.at}>{when(status.lastError.at, ctx, lawyer.timezone)}</time> — {status.lastError.detail}
              </p>
            </Notice>
          ) : null}
          <div class="feed-actions">
            {lawyer.verified ? (
              <PostForm ctx={ctx} action="/lawyer/calendar-feed/refresh" once>
                <button type="submit">{t.refresh}</button>
                <p class="hint">{t.refreshHint}</p>
              </PostForm>
            ) : null}
            <PostForm ctx={ctx} action="/lawyer/calendar-feed/remove" once>
              <button type="submit" class="secondary">
                {t.remove}
              </button>
              <p class="hint">{t.removeHint}</p>
            </PostForm>
          </div>
        </section>
      ) : null}

      {lawyer.verified ? (
        <section aria-labelledby="feed-form">
          <h2 id="feed-form">{status ? t.formReplaceTitle : t.formAddTitle}</h2>
          <PostForm ctx={ctx} action="/lawyer/calendar-feed" novalidate>
            <div class="field">
              <label for="f-url">{t.urlLabel}</label>
              <input
                id="f-url"
                name="url"
                type="url"
                inputmode="url"
                autocomplete="off"
                spellcheck={false}
                maxLength={2000}
                value={form?.url ?? ''}
                placeholder="https://"
                required
                aria-invalid={error ? 'true' : undefined}
                aria-describedby={error ? 'f-url-hint f-url-error' : 'f-url-hint'}
              />
              <span class="hint" id="f-url-hint">
                {t.urlHint}
              </span>
              {error ? (
                <span class="field-error" id="f-url-error">
                  {error}
                </span>
              ) : null}
            </div>
            <button class="wide" type="submit">
              {t.save}
            </button>
          </PostForm>
          <p class="meta">{t.secretNote}</p>
        </section>
      ) : null}

      <section aria-labelledby="feed-how">
        <h2 id="feed-how">{t.howTitle}</h2>
        {/* Open while she has no calendar yet: that is when she needs them. */}
        <Steps title={t.googleTitle} steps={t.googleSteps} open={!status} />
        <Steps title={t.outlookTitle} steps={t.outlookSteps} open={!status} />
        <Steps title={t.appleTitle} steps={t.appleSteps} open={!status} />
      </section>
    </PortalLayout>
  );
}
