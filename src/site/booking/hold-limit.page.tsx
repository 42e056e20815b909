/**
 * The page a person meets when the hourly limit on new holds stops them (docs/site.md#holding-a-time):
 * what happened in plain words, the times already held for them with links to finish them, and
 * what they can do now — another time with a lawyer they already hold one with (a replacement,
 * not a new hold), or wait the minutes the limit says.
 */
import type { SiteHoldRow } from '../../domain/booking/booking.service.ts';
import { comma, formatDay, formatTime } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';
import { timeIn } from './visitor-zone.ts';

export function HoldLimitPage({ ctx, limit, holds, retryAfterSeconds }: { ctx: SiteContext; limit: number; holds: readonly SiteHoldRow[]; retryAfterSeconds: number }) {
  const m = ctx.t.holdLimit;
  const minutes = Math.max(1, Math.ceil(retryAfterSeconds / 60));
  return (
    <Layout ctx={ctx} title={m.title} narrow>
      <h1>{m.title}</h1>
      <Notice kind="warn" role="status">
        <p>{m.happened(limit)}</p>
      </Notice>
      {holds.length > 0 ? (
        <section aria-labelledby="held-heading">
          <p id="held-heading">{m.yourHolds(holds.length)}</p>
          <ul class="cards held-list">
            {holds.map((r) => (
              <li class="card">
                <p>
                  <a href={`/confirm/${r.confirmation_token}`}>
                    <strong>{r.lawyer_name}</strong>
                  </a>
                </p>
                <p>
                  {formatDay(r.slot_date, ctx.locale)}
                  {comma(ctx.locale)}
                  {formatTime(r.start_time)}–{formatTime(r.end_time)}
                </p>
                <p class="meta">{m.heldUntil(timeIn(Date.parse(r.expires_at), ctx.zone ?? r.lawyer_timezone, ctx.locale))}</p>
                <PostForm ctx={ctx} action={`/confirm/${r.confirmation_token}/release`} once>
                  <button type="submit" class="secondary">
                    {m.chooseAnother}
                  </button>
                </PostForm>
              </li>
            ))}
          </ul>
        </section>
      ) : (
        <p>{m.noHolds}</p>
      )}
      <h2>{m.whatNow}</h2>
      <ul>
        <li>{m.sameLawyer}</li>
        <li>{m.retry(minutes)}</li>
      </ul>
      <p>
        <a href="/">{m.backToSearch}</a>
      </p>
    </Layout>
  );
}

/**
 * On the hold page, for the person whose hold it is: "Choose another time" lets it go (POST with
 * CSRF) and goes back to the lawyer's free times.
 */
export function ChooseAnotherTime({ ctx, token }: { ctx: SiteContext; token: string }) {
  const m = ctx.t.holdLimit;
  return (
    <PostForm ctx={ctx} action={`/confirm/${token}/release`} once class="choose-another">
      <button type="submit" class="secondary wide" aria-describedby="choose-another-hint">
        {m.chooseAnother}
      </button>
      <p class="meta" id="choose-another-hint">
        {m.chooseAnotherHint}
      </p>
    </PostForm>
  );
}

/** Why the person is on their hold page: a replacement happened, their new choice was taken, or a release was refused. */
export type HoldNotice = 'replaced' | 'taken' | 'paying';

export function HoldNoticeBox({ ctx, notice }: { ctx: SiteContext; notice: HoldNotice }) {
  const m = ctx.t.holdLimit;
  return (
    <Notice kind={notice === 'replaced' ? 'ok' : 'warn'} role="status">
      <p>{notice === 'replaced' ? m.replaced : notice === 'taken' ? m.keptTaken : m.paying}</p>
    </Notice>
  );
}

export const holdNoticeOf = (query: Record<string, unknown> | undefined): HoldNotice | null =>
  query?.replaced !== undefined ? 'replaced' : query?.taken !== undefined ? 'taken' : query?.paying !== undefined ? 'paying' : null;
