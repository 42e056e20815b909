/**
 * /consultations/:id/review (docs/reviews.md): the person writes, then may edit for 30 days, the
 * review of their own consultation. Signed in only; someone else's consultation (or an unknown
 * id) is the ordinary 404 page, on the page and on the form. The rules are ReviewsService's.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { DomainError } from '../../domain/errors.ts';
import type { ReviewsService } from '../../domain/reviews/reviews.service.ts';
import { requireUser } from '../guards.ts';
import { ReviewPage, reviewPath, type ReviewDone } from './review.page.tsx';

export interface ReviewsAreaDeps {
  reviews: ReviewsService;
}

const DONE: readonly ReviewDone[] = ['published', 'updated'];

export function reviewsArea({ reviews }: ReviewsAreaDeps) {
  return async (site: FastifyInstance) => {
    site.get<{ Params: { id: string }; Querystring: { done?: string } }>('/consultations/:id/review', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const state = await reviews.state(user.id, request.params.id);
      // Fixed sentences only: nothing typed into the address is shown back.
      const done = DONE.find((d) => d === request.query?.done) ?? null;
      const values = { rating: state.review?.rating ?? null, comment: state.review?.comment ?? '' };
      return reply.header('cache-control', 'private, no-store').page(h(ReviewPage, { ctx: request.site, state, values, errors: {}, done }));
    });

    site.post<{ Params: { id: string } }>('/consultations/:id/review', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const body = (request.body ?? {}) as Record<string, unknown>;
      const outcome = await reviews.save(user.id, request.params.id, { rating: body.rating, comment: body.comment });
      if (outcome.ok) return reply.code(303).redirect(`${reviewPath(outcome.review.consultation_id ?? request.params.id)}?done=${outcome.created ? 'published' : 'updated'}`);
      if ('exists' in outcome) throw new DomainError('not_found', 'no such consultation');
      const state = await reviews.state(user.id, request.params.id);
      if ('refusal' in outcome) {
        return reply.header('cache-control', 'private, no-store').page(h(ReviewPage, { ctx: request.site, state, values: { rating: null, comment: '' }, errors: {}, done: null }), 409);
      }
      return reply
        .header('cache-control', 'private, no-store')
        .page(h(ReviewPage, { ctx: request.site, state, values: outcome.values, errors: outcome.errors, done: null }), 422);
    });
  };
}
