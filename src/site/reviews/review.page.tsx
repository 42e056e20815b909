/**
 * Reviews on the site (docs/reviews.md): the review form of one's own consultation
 * (/consultations/:id/review), the invitation in My consultations, and the reviews on a lawyer's
 * profile. Every third-party text (comment, answer, names) is rendered as escaped plain text.
 */
import type { Consultation } from '../../domain/booking/consultations.service.ts';
import type { PublicReview } from '../../domain/directory/trust.service.ts';
import { REVIEW_COMMENT_MAX, type ReviewFieldErrors, type ReviewState } from '../../domain/reviews/reviews.service.ts';
import { formatDay, formatInstant, formatMonth } from '../../i18n/format.ts';
import { textDirection } from '../../i18n/locales.ts';
import { languageName } from '../../i18n/reference.ts';
import type { SiteContext } from '../context.ts';
import { BackLink, Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';

/** The page explaining how reviews are verified (built with the moderation). */
export const HOW_REVIEWS_ARE_VERIFIED = '/help/reviews';

export type ReviewDone = 'published' | 'updated';

export interface ReviewPageProps {
  ctx: SiteContext;
  state: ReviewState;
  /** What the form shows: the stored review, or what was just sent back with errors. */
  values: { rating: number | null; comment: string };
  errors: ReviewFieldErrors;
  done: ReviewDone | null;
}

export function reviewPath(consultationId: string): string {
  return `/consultations/${consultationId}/review`;
}

export function ReviewPage({ ctx, state, values, errors, done }: ReviewPageProps) {
  const t = ctx.t.reviews;
  const { consultation: c, review, refusal, editableUntil } = state;
  const messages: Array<[string, string]> = [];
  if (errors.rating) messages.push(['f-rating-1', t.ratingError]);
  if (errors.comment) messages.push(['f-comment', t.commentError]);
  const zone = ctx.zone ?? c.lawyer.timezone;
  return (
    <Layout ctx={ctx} title={review ? t.edit : t.title} section="consultations" narrow>
      {messages.length > 0 ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">{t.errorTitle}</h2>
          <ul>
            {messages.map(([anchor, text]) => (
              <li>
                <a href={`#${anchor}`}>{text}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <h1>{review ? t.edit : t.title}</h1>
      <p>{t.intro(c.lawyer.name, formatDay(c.date, ctx.locale))}</p>
      {done ? (
        <Notice kind="ok" role="status">
          {done === 'published' ? t.published : t.updated}
        </Notice>
      ) : null}
      {refusal ? (
        <Notice kind="warn">{refusal === 'edit_closed' ? t.editClosed : refusal === 'not_ended' ? t.notEnded : t.notHeld}</Notice>
      ) : (
        <PostForm ctx={ctx} action={reviewPath(c.id)} once>
          <fieldset aria-describedby={errors.rating ? 'f-rating-error' : undefined}>
            <legend>{t.rating}</legend>
            <div class="checks">
              {t.ratings.map((label, i) => (
                <label>
                  <input type="radio" name="rating" id={`f-rating-${i + 1}`} value={String(i + 1)} checked={values.rating === i + 1} required /> {label}
                </label>
              ))}
            </div>
            {errors.rating ? (
              <span class="field-error" id="f-rating-error">
                {t.ratingError}
              </span>
            ) : null}
          </fieldset>
          <div class="field">
            <label for="f-comment">{t.comment}</label>
            <textarea
              id="f-comment"
              name="comment"
              dir="auto"
              maxLength={REVIEW_COMMENT_MAX}
              aria-invalid={errors.comment ? 'true' : undefined}
              aria-describedby={errors.comment ? 'f-comment-hint f-comment-error' : 'f-comment-hint'}
            >
              {values.comment}
            </textarea>
            <span class="hint" id="f-comment-hint">
              {t.commentHint}
            </span>
            {errors.comment ? (
              <span class="field-error" id="f-comment-error">
                {t.commentError}
              </span>
            ) : null}
          </div>
          {editableUntil ? <p class="meta">{t.editableUntil(formatInstant(editableUntil, zone, ctx.locale))}</p> : null}
          <button type="submit">{review ? t.save : t.publish}</button>
        </PostForm>
      )}
      <p>
        <a href={HOW_REVIEWS_ARE_VERIFIED}>{t.howVerified}</a>
      </p>
      <p>
        <BackLink ctx={ctx} href="/consultations">
          {ctx.t.account.title}
        </BackLink>
      </p>
    </Layout>
  );
}

/**
 * In My consultations: "Rate your consultation" for a held consultation (the reminders job marks
 * it held once its end has passed) not yet reviewed; nothing otherwise. The review page itself
 * also accepts a confirmed one whose end has passed (ReviewsService).
 */
export function ReviewInvitation({ ctx, c }: { ctx: SiteContext; c: Pick<Consultation, 'id' | 'status' | 'reviewId'> }) {
  const t = ctx.t.reviews;
  if (c.reviewId || c.status !== 'held') return null;
  return (
    <p>
      <a class="button" href={reviewPath(c.id)}>
        {t.invite}
      </a>
    </p>
  );
}

/** "Verified consultation, November 2026" for a review written here; "Review from a client, …" for an imported one. */
function provenance(ctx: SiteContext, r: PublicReview): string {
  const t = ctx.t.reviews;
  if (r.consultationDate) return t.verified(formatMonth(r.consultationDate, ctx.locale));
  return t.imported(r.date ? formatMonth(r.date, ctx.locale) : null);
}

/** The reviews on a lawyer's profile: never a hidden one (the repository leaves them out). */
/** Which page of a profile's reviews is shown, how many there are, and the address of page `n`. */
export interface ReviewsPaging {
  page: number;
  pages: number;
  link: (page: number) => string;
}

/**
 * Her answer is her words, quoted, never passed off as the page's text: in another language than
 * the page's it says which ("Answer from the lawyer's office, in Spanish") and carries its `lang`
 * and direction, so a screen reader speaks it in its own voice (DESIGN.md §13). When its language
 * is the page's, or cannot be told, the quote has no `lang` and its direction follows the text.
 */
function ReviewAnswer({ ctx, answer, language }: { ctx: SiteContext; answer: string; language: string | null }) {
  const t = ctx.t.reviews;
  const foreign = language !== null && language !== ctx.locale ? language : null;
  return (
    <div class="review-answer">
      <p class="meta">
        <strong>{foreign ? t.answerIn(languageName(ctx.locale, foreign)) : t.answer}</strong>
      </p>
      <blockquote class="review-text" lang={foreign ?? undefined} dir={foreign ? textDirection(foreign) : 'auto'}>
        {answer}
      </blockquote>
    </div>
  );
}

export function ProfileReviews({ ctx, reviews, reviewCount, paging }: { ctx: SiteContext; reviews: readonly PublicReview[]; reviewCount: number; paging: ReviewsPaging }) {
  const tt = ctx.t.lawyer.trust;
  const t = ctx.t.reviews;
  const { page, pages, link } = paging;
  return (
    <section id="reviews" aria-labelledby="reviews-heading">
      <h2 id="reviews-heading">
        {tt.reviews} <small class="meta">({tt.reviewCount(reviewCount)})</small>
      </h2>
      {reviews.length === 0 ? (
        <p>{tt.noReviews}</p>
      ) : (
        <ul class="reviews">
          {reviews.map((r) => (
            <li class="card" id={`review-${r.id}`}>
              <p>
                <span class="stars" aria-hidden="true">
                  {'★'.repeat(Math.round(r.rating))}
                  {'☆'.repeat(5 - Math.round(r.rating))}
                </span>{' '}
                <span class="visually-hidden">{tt.stars(r.rating)}</span>
                {' · '}
                <span class="meta">{provenance(ctx, r)}</span>
              </p>
              <p class="review-text" dir="auto">
                {r.comment && r.comment.trim() !== '' ? r.comment : tt.noComment}
              </p>
              {r.answer ? <ReviewAnswer ctx={ctx} answer={r.answer} language={r.answerLanguage} /> : null}
              <p class="meta">
                <a href={`/reviews/${r.id}/report`} rel="nofollow">
                  {t.report}
                </a>
              </p>
            </li>
          ))}
        </ul>
      )}
      {pages > 1 ? (
        <nav class="pager" aria-label={tt.reviewsPages}>
          {page > 1 ? <a href={link(page - 1)} rel="prev">{tt.newerReviews}</a> : <span />}
          <span class="meta" aria-current="page">{tt.reviewsPage(page, pages)}</span>
          {page < pages ? <a href={link(page + 1)} rel="next">{tt.olderReviews}</a> : <span />}
        </nav>
      ) : null}
      <p class="meta">
        {tt.reviewsVerified} <a href={HOW_REVIEWS_ARE_VERIFIED}>{t.howVerified}</a>
      </p>
    </section>
  );
}
