/**
 * Reporting a review (docs/reviews.md, "Answers, reports and moderation"): the review as it is
 * shown (escaped: it is a client's text), a reason from a short list, optional details; then a
 * thank-you page saying what happens next. Works signed out and without JavaScript.
 */
import { REPORT_REASONS, MODERATION_LIMITS, type ModeratedReview } from '../../domain/reviews/review-moderation.service.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';

export const REVIEWS_HELP = '/help/reviews';

export interface ReportForm {
  reason: string;
  details: string;
  errors: Partial<Record<'reason' | 'details', string>>;
}

/** The review as the public sees it: rating, comment and answer (all escaped by the renderer). */
export function ReviewQuote({ ctx, review }: { ctx: SiteContext; review: ModeratedReview }) {
  const t = ctx.t.reviewReports;
  return (
    <section class="card review-quote" aria-labelledby="review-heading">
      <h2 id="review-heading">{t.reviewHeading}</h2>
      <p class="meta">
        <span class="stars" aria-hidden="true">{'★'.repeat(review.rating)}{'☆'.repeat(Math.max(0, 5 - review.rating))}</span> {t.stars(review.rating)} · {t.verified}
      </p>
      {review.comment ? <blockquote class="review-text">{review.comment}</blockquote> : <p>{t.noComment}</p>}
      {review.answer ? (
        <div class="review-answer">
          <p class="meta">{t.answerBy}</p>
          <blockquote class="review-text">{review.answer}</blockquote>
        </div>
      ) : null}
    </section>
  );
}

export function ReportPage({ ctx, review, form }: { ctx: SiteContext; review: ModeratedReview; form: ReportForm }) {
  const t = ctx.t.reviewReports;
  const e = form.errors;
  const hasErrors = Object.keys(e).length > 0;
  return (
    <Layout ctx={ctx} title={t.title} narrow>
      <h1>{t.title}</h1>
      <p class="lead">{t.intro(review.lawyer_name)}</p>
      {hasErrors ? <Notice kind="bad" role="alert">{t.fixErrors}</Notice> : null}
      <ReviewQuote ctx={ctx} review={review} />
      <PostForm ctx={ctx} action={`/reviews/${encodeURIComponent(review.id)}/report`} once>
        <fieldset aria-describedby={e.reason ? 'f-reason-error' : undefined}>
          <legend>{t.reason}</legend>
          <div class="checks">
            {REPORT_REASONS.map((r, i) => (
              <label>
                <input type="radio" name="reason" value={r} checked={form.reason === r} required={i === 0} autofocus={i === 0 && e.reason !== undefined} /> {t.reasons[r]}
              </label>
            ))}
          </div>
          {e.reason ? <span class="field-error" id="f-reason-error">{e.reason}</span> : null}
        </fieldset>
        <div class="field">
          <label for="f-details">{t.details}</label>
          <textarea
            id="f-details"
            name="details"
            rows={5}
            maxLength={MODERATION_LIMITS.detailsMax}
            aria-invalid={e.details ? 'true' : undefined}
            aria-describedby={e.details ? 'f-details-hint f-details-error' : 'f-details-hint'}
            autofocus={e.details !== undefined && e.reason === undefined}
          >
            {form.details}
          </textarea>
          <span class="hint" id="f-details-hint">{t.detailsHint(MODERATION_LIMITS.detailsMax)}</span>
          {e.details ? <span class="field-error" id="f-details-error">{e.details}</span> : null}
        </div>
        <p class="meta">{t.privacy}</p>
        <button type="submit">{t.submit}</button>
      </PostForm>
      <p>
        <a href={REVIEWS_HELP}>{t.sentRules}</a>
      </p>
    </Layout>
  );
}

export function ReportSentPage({ ctx }: { ctx: SiteContext }) {
  const t = ctx.t.reviewReports;
  return (
    <Layout ctx={ctx} title={t.sentTitle} narrow>
      <div class="prose">
        <h1>{t.sentTitle}</h1>
        <p class="lead">{t.sentBody}</p>
        <p>
          <a href={REVIEWS_HELP}>{t.sentRules}</a>
        </p>
        <p>
          <a href="/">{t.backHome}</a>
        </p>
      </div>
    </Layout>
  );
}
