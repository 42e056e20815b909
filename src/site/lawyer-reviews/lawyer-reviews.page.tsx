/**
 * /lawyer/reviews: her reviews, hidden ones marked (with the moderation's reason), each with
 * her public answer or the form to write it once. Clients' comments and her answers are shown
 * escaped (the renderer's default); nothing here is raw HTML.
 */
import type { ReviewRow } from '../../db/repositories/review-moderation.repository.ts';
import { MODERATION_LIMITS } from '../../domain/reviews/review-moderation.service.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { PortalLayout } from '../lawyer/portal.pages.tsx';

export interface AnswerForm {
  reviewId: string;
  answer: string;
  error: string;
}

export function LawyerReviewsPage({ ctx, reviews, timezone, flash, problem, form }: { ctx: SiteContext; reviews: ReviewRow[]; timezone: string; flash?: string; problem?: string; form?: AnswerForm }) {
  const t = ctx.t.reviewAnswers;
  const when = (iso: string | null) => (iso ? formatInstant(iso, timezone, ctx.locale) : '—');
  const reasons = ctx.t.reviewReports.help.hideReasons;
  return (
    <PortalLayout ctx={ctx} title={t.title} current="reviews">
      <h1>{t.title}</h1>
      {flash ? <Notice kind="ok" role="status">{flash}</Notice> : null}
      {problem ? <Notice kind="bad" role="alert">{problem}</Notice> : null}
      <p>{t.intro}</p>
      {reviews.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ol class="cards lawyer-reviews">
          {reviews.map((r) => {
            const mine = form && form.reviewId === r.id ? form : undefined;
            const fieldId = `f-answer-${r.id}`;
            return (
              <li class={r.hidden_at ? 'card review-hidden' : 'card'} id={`review-${r.id}`}>
                <p class="key-title">
                  <span class="stars" aria-hidden="true">{'★'.repeat(r.rating)}{'☆'.repeat(Math.max(0, 5 - r.rating))}</span> {t.stars(r.rating)}
                  {r.hidden_at ? <> <span class="badge bad">{t.hidden}</span></> : null}
                </p>
                <p class="meta">{t.written(when(r.created_at))}</p>
                {r.hidden_at ? <p class="meta">{t.hiddenWhy(reasons[r.hidden_reason ?? ''] ?? r.hidden_reason ?? '')}</p> : null}
                {r.comment ? <blockquote class="review-text">{r.comment}</blockquote> : <p>{t.noComment}</p>}
                {r.answer !== null ? (
                  <div class="review-answer">
                    <p class="meta">
                      {t.yourAnswer} · {t.answeredOn(when(r.answered_at))}
                    </p>
                    <blockquote class="review-text">{r.answer}</blockquote>
                  </div>
                ) : (
                  <PostForm ctx={ctx} action={`/lawyer/reviews/${encodeURIComponent(r.id)}/answer`} once>
                    <div class="field">
                      <label for={fieldId}>{t.answerLabel}</label>
                      <textarea
                        id={fieldId}
                        name="answer"
                        rows={4}
                        required
                        maxLength={MODERATION_LIMITS.answerMax}
                        aria-invalid={mine?.error ? 'true' : undefined}
                        aria-describedby={mine?.error ? `${fieldId}-hint ${fieldId}-error` : `${fieldId}-hint`}
                        autofocus={mine?.error ? true : undefined}
                      >
                        {mine?.answer ?? ''}
                      </textarea>
                      <span class="hint" id={`${fieldId}-hint`}>{t.answerHint(MODERATION_LIMITS.answerMax)}</span>
                      {mine?.error ? <span class="field-error" id={`${fieldId}-error`}>{mine.error}</span> : null}
                    </div>
                    <button type="submit">{t.submit}</button>
                  </PostForm>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </PortalLayout>
  );
}
