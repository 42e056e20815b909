/**
 * /lawyer/reviews (docs/reviews.md, "Answers, reports and moderation"): her reviews and her one
 * public answer to each. Every route works on the signed-in account's own lawyer record
 * (requireLawyer); a review id in the URL that is not hers is the ordinary 404 page. The rules
 * are ReviewModerationService's.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { PortalService } from '../../domain/lawyers/portal.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { MODERATION_LIMITS, type ReviewModerationService } from '../../domain/reviews/review-moderation.service.ts';
import { requireLawyer } from '../lawyer/guard.ts';
import { LawyerReviewsPage } from './lawyer-reviews.page.tsx';

type Body = Record<string, unknown>;

export function lawyerReviewsArea({ moderation, portal }: { moderation: ReviewModerationService; portal: Pick<PortalService, 'forUser'> }) {
  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { answered?: string } }>('/lawyer/reviews', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const reviews = await moderation.lawyerReviews(lawyer.id);
      // A fixed sentence only: nothing typed into the address is shown back.
      const flash = request.query.answered === '1' ? request.site.t.reviewAnswers.published : undefined;
      return reply.header('cache-control', 'private, no-store').page(h(LawyerReviewsPage, { ctx: request.site, reviews, timezone: lawyer.timezone, flash }));
    });

    site.post<{ Params: { id: string }; Body: Body }>('/lawyer/reviews/:id/answer', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      // Hers, or 404 before anything is read from the form.
      const review = await moderation.lawyerReview(lawyer.id, request.params.id);
      const raw = request.body?.answer;
      const answer = typeof raw === 'string' ? raw.slice(0, MODERATION_LIMITS.answerMax + 200) : '';
      const t = request.site.t.reviewAnswers;
      try {
        await moderation.answer(lawyer.id, review.id, answer);
      } catch (err) {
        if (!(err instanceof DomainError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
        const reviews = await moderation.lawyerReviews(lawyer.id);
        const page =
          err.code === 'conflict'
            ? h(LawyerReviewsPage, { ctx: request.site, reviews, timezone: lawyer.timezone, problem: t.already })
            : h(LawyerReviewsPage, { ctx: request.site, reviews, timezone: lawyer.timezone, form: { reviewId: review.id, answer, error: t.errAnswer(MODERATION_LIMITS.answerMax) } });
        return reply.header('cache-control', 'private, no-store').page(page, err.code === 'conflict' ? 409 : 400);
      }
      return reply.code(303).redirect(`/lawyer/reviews?answered=1#review-${encodeURIComponent(review.id)}`);
    });
  };
}
