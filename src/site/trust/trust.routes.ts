/** GET /help/verification: how lawyers are verified (the badge on cards and profiles links here); GET /help/reviews: how reviews are verified. */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { ReviewsHelpPage } from './reviews-help.page.tsx';
import { VerificationPage } from './verification.page.tsx';

export function trustArea() {
  return async (site: FastifyInstance) => {
    site.get('/help/verification', { schema: { hide: true } }, async (request, reply) => reply.page(h(VerificationPage, { ctx: request.site })));
    site.get('/help/reviews', { schema: { hide: true } }, async (request, reply) => reply.page(h(ReviewsHelpPage, { ctx: request.site })));
  };
}
