/**
 * The console's review moderation (docs/operations.md#review-moderation): open reports grouped by
 * review, the reviews hidden now, and one review with its reports and the forms to hide it (one
 * of the published reasons and a note), restore it (a note) or keep it (its reports dismissed).
 * Clients' comments, lawyers' answers and reporters' details are third-party text: escaped.
 */
import type { ReviewReportTable } from '../../db/schema.ts';
import { HIDE_REASONS, MODERATION_LIMITS, type ModeratedReview, type ReportedReview } from '../../domain/reviews/review-moderation.service.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { Frame } from './operator.page.tsx';

const when = (ctx: SiteContext, iso: string | null) => (iso ? formatInstant(iso, 'Europe/Madrid', ctx.locale) : '—');

export interface ModerationForms {
  reason?: string;
  note?: string;
  errors?: Partial<Record<'reason' | 'note', string>>;
  /** Which form the errors belong to. */
  form?: 'hide' | 'restore' | 'keep';
  problem?: string;
}

function Stars({ n }: { n: number }) {
  return <span class="stars" aria-hidden="true">{'★'.repeat(n)}{'☆'.repeat(Math.max(0, 5 - n))}</span>;
}

function ReviewFacts({ ctx, review }: { ctx: SiteContext; review: ModeratedReview }) {
  const t = ctx.t.reviewModeration;
  return (
    <dl class="facts">
      <dt>{t.lawyer}</dt>
      <dd>
        <a href={`/operator/lawyers/${encodeURIComponent(review.lawyer_id)}`}>{review.lawyer_name}</a>
      </dd>
      <dt>{t.rating}</dt>
      <dd>
        <Stars n={review.rating} /> {t.stars(review.rating)}
      </dd>
      <dt>{t.written}</dt>
      <dd>{when(ctx, review.created_at)}</dd>
      <dt>{t.status}</dt>
      <dd>{review.hidden_at ? t.hiddenSince(when(ctx, review.hidden_at), t.reasons[review.hidden_reason ?? ''] ?? review.hidden_reason ?? '') : t.visible}</dd>
      <dt>{t.comment}</dt>
      <dd>{review.comment ? <blockquote class="review-text">{review.comment}</blockquote> : t.noComment}</dd>
      {review.answer ? (
        <>
          <dt>{t.answer}</dt>
          <dd>
            <blockquote class="review-text">{review.answer}</blockquote>
          </dd>
        </>
      ) : null}
    </dl>
  );
}

function ReportList({ ctx, reports }: { ctx: SiteContext; reports: ReviewReportTable[] }) {
  const t = ctx.t.reviewModeration;
  const reasons = ctx.t.reviewReports.reasons;
  return (
    <ol class="cards">
      {reports.map((r) => (
        <li class="card">
          <p class="key-title">
            <strong>{reasons[r.reason] ?? r.reason}</strong>
          </p>
          <p class="meta">
            {t.reportedAt(when(ctx, r.created_at))} · {t.reporter}: {r.user_id ? t.reporterUser : t.reporterAnonymous((r.reporter_hash ?? '').slice(0, 8))} ·{' '}
            {r.resolved_at ? t.resolved(when(ctx, r.resolved_at)) : t.open}
          </p>
          {r.details ? <blockquote class="review-text">{r.details}</blockquote> : null}
        </li>
      ))}
    </ol>
  );
}

export function ModerationQueuePage({ ctx, queue, hidden, done }: { ctx: SiteContext; queue: ReportedReview[]; hidden: ModeratedReview[]; done?: string }) {
  const t = ctx.t.reviewModeration;
  const doneText = done ? t.done[done] : undefined;
  return (
    <Frame ctx={ctx} title={t.title} tab="reviews">
      <h1>{t.title}</h1>
      {doneText ? <Notice kind="ok" role="status">{doneText}</Notice> : null}
      <p>{t.intro}</p>
      {queue.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ol class="cards">
          {queue.map(({ review, reports }) => (
            <li class="card">
              <p class="key-title">
                <a href={`/operator/reviews/${encodeURIComponent(review.id)}`}>
                  {review.lawyer_name} · {t.stars(review.rating)}
                </a>{' '}
                <span class="badge bad">{t.reportCount(reports.length)}</span>
              </p>
              {review.comment ? <blockquote class="review-text">{review.comment}</blockquote> : <p class="meta">{t.noComment}</p>}
              <p class="meta">{reports.map((r) => ctx.t.reviewReports.reasons[r.reason] ?? r.reason).join(' · ')}</p>
            </li>
          ))}
        </ol>
      )}
      <h2>{t.hiddenTitle}</h2>
      {hidden.length === 0 ? (
        <p>{t.noHidden}</p>
      ) : (
        <ol class="cards">
          {hidden.map((review) => (
            <li class="card">
              <p class="key-title">
                <a href={`/operator/reviews/${encodeURIComponent(review.id)}`}>
                  {review.lawyer_name} · {t.stars(review.rating)}
                </a>
              </p>
              <p class="meta">{t.hiddenSince(when(ctx, review.hidden_at), t.reasons[review.hidden_reason ?? ''] ?? review.hidden_reason ?? '')}</p>
            </li>
          ))}
        </ol>
      )}
    </Frame>
  );
}

function NoteField({ id, label, value, error, required }: { id: string; label: string; value?: string; error?: string; required: boolean }) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} name="note" rows={3} required={required} maxLength={MODERATION_LIMITS.noteMax} aria-invalid={error ? 'true' : undefined} aria-describedby={error ? `${id}-error` : undefined} autofocus={error ? true : undefined}>
        {value ?? ''}
      </textarea>
      {error ? <span class="field-error" id={`${id}-error`}>{error}</span> : null}
    </div>
  );
}

export function ModerationReviewPage({ ctx, review, reports, forms = {} }: { ctx: SiteContext; review: ModeratedReview; reports: ReviewReportTable[]; forms?: ModerationForms }) {
  const t = ctx.t.reviewModeration;
  const base = `/operator/reviews/${encodeURIComponent(review.id)}`;
  const open = reports.filter((r) => r.resolved_at === null).length;
  const e = forms.errors ?? {};
  const mine = (f: ModerationForms['form']) => (forms.form === f ? forms : {});
  return (
    <Frame ctx={ctx} title={`${t.title} — ${review.lawyer_name}`} tab="reviews">
      <p>
        <a href="/operator/reviews">{t.title}</a>
      </p>
      <h1>{review.lawyer_name}</h1>
      {forms.problem ? <Notice kind="bad" role="alert">{forms.problem}</Notice> : null}
      <ReviewFacts ctx={ctx} review={review} />
      {review.hidden_at === null ? (
        <section class="card" aria-labelledby="hide-heading">
          <h2 id="hide-heading">{t.hideHeading}</h2>
          <PostForm ctx={ctx} action={`${base}/hide`}>
            <div class="field">
              <label for="f-reason">{t.hideReason}</label>
              <select id="f-reason" name="reason" required aria-invalid={forms.form === 'hide' && e.reason ? 'true' : undefined} aria-describedby={forms.form === 'hide' && e.reason ? 'f-reason-error' : undefined}>
                <option value="">—</option>
                {HIDE_REASONS.map((r) => (
                  <option value={r} selected={mine('hide').reason === r}>
                    {t.reasons[r]}
                  </option>
                ))}
              </select>
              {forms.form === 'hide' && e.reason ? <span class="field-error" id="f-reason-error">{e.reason}</span> : null}
            </div>
            <NoteField id="f-hide-note" label={t.note} value={mine('hide').note} error={forms.form === 'hide' ? e.note : undefined} required />
            <button type="submit" class="danger">{t.hideButton}</button>
          </PostForm>
        </section>
      ) : (
        <section class="card" aria-labelledby="restore-heading">
          <h2 id="restore-heading">{t.restoreHeading}</h2>
          <PostForm ctx={ctx} action={`${base}/restore`}>
            <NoteField id="f-restore-note" label={t.note} value={mine('restore').note} error={forms.form === 'restore' ? e.note : undefined} required />
            <button type="submit">{t.restoreButton}</button>
          </PostForm>
        </section>
      )}
      {open > 0 && review.hidden_at === null ? (
        <section class="card" aria-labelledby="keep-heading">
          <h2 id="keep-heading">{t.keepHeading}</h2>
          <PostForm ctx={ctx} action={`${base}/keep`}>
            <NoteField id="f-keep-note" label={t.noteOptional} value={mine('keep').note} error={forms.form === 'keep' ? e.note : undefined} required={false} />
            <button type="submit">{t.keepButton}</button>
          </PostForm>
        </section>
      ) : null}
      <h2>{t.reportsHeading}</h2>
      {reports.length === 0 ? <p>{t.none}</p> : <ReportList ctx={ctx} reports={reports} />}
    </Frame>
  );
}
