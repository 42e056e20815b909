/** GET /help/verification: how lawyers are verified (the badge on cards and profiles links here). */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { VerificationPage } from './verification.page.tsx';

export function trustArea() {
  return async (site: FastifyInstance) => {
    site.get('/help/verification', { schema: { hide: true } }, async (request, reply) => reply.page(h(VerificationPage, { ctx: request.site })));
  };
}
