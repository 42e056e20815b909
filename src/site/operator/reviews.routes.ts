/**
 * The console's review moderation: /operator/reviews (open reports grouped by review, the hidden
 * reviews) and /operator/reviews/:id (one review, its reports; hide, restore, keep) through
 * ReviewModerationService, which audits and recomputes the lawyer's rating. As everywhere in the
 * console: for everyone but an operator every URL here, GET or POST, is the ordinary 404 page
 * (decided before the body or the CSRF token is read); a passkey on record for every page; a
 * decision needs a passkey proved within 10 minutes, else it changes nothing and goes to the
 * step-up page, which comes back to the review.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { Actor } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { MODERATION_LIMITS, type ReviewModerationService } from '../../domain/reviews/review-moderation.service.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireOperator, requirePasskeyEnrolled, requireStepUp } from '../guards.ts';
import { ModerationQueuePage, ModerationReviewPage, type ModerationForms } from './reviews.page.tsx';

type Body = Record<string, unknown>;
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');

async function operatorsOnly(request: FastifyRequest): Promise<void> {
  requireOperator(request);
}
const hidden = { schema: { hide: true }, onRequest: operatorsOnly };
const DONE = ['hidden', 'restored', 'kept'] as const;

export function reviewModerationArea({ dashboard, moderation }: { dashboard: Pick<DashboardDeps, 'sessions' | 'passkeys'>; moderation: ReviewModerationService }) {
  const { sessions, passkeys } = dashboard;
  const actorOf = (request: FastifyRequest): Actor => {
    const user = requireOperator(request);
    return { type: 'operator', by: { kind: 'user', userId: user.id, email: user.email, requestId: request.id } };
  };
  const enrolled = (request: FastifyRequest, reply: FastifyReply, returnTo?: string) => requirePasskeyEnrolled(request, reply, passkeys, returnTo);
  const mayChange = async (request: FastifyRequest, reply: FastifyReply, form: string) => (await enrolled(request, reply, form)) && requireStepUp(request, reply, sessions, form);

  /** A decision: the review must exist before anyone is sent to prove anything; refusals come back on its page. */
  const decision = (path: 'hide' | 'restore' | 'keep', done: (typeof DONE)[number], act: (actor: Actor, id: string, body: { reason: string; note: string }) => Promise<void>) =>
    async (site: FastifyInstance) =>
      site.post<{ Params: { id: string }; Body: Body }>(`/operator/reviews/:id/${path}`, hidden, async (request, reply) => {
        const actor = actorOf(request);
        const found = await moderation.review(actor, request.params.id);
        const page = `/operator/reviews/${encodeURIComponent(found.review.id)}`;
        if (!(await mayChange(request, reply, page))) return reply;
        const body = request.body ?? {};
        const values = { reason: text(body.reason, 40), note: text(body.note, MODERATION_LIMITS.noteMax + 200) };
        const t = request.site.t.reviewModeration;
        try {
          await act(actor, found.review.id, values);
        } catch (err) {
          if (!(err instanceof DomainError)) throw err;
          if (err.code === 'invalid_request') {
            const errors: ModerationForms['errors'] = {};
            for (const e of err.errors ?? []) {
              if (e.pointer === '/reason') errors.reason = t.errReason;
              else if (e.pointer === '/note') errors.note = t.errNote(MODERATION_LIMITS.noteMax);
            }
            return reply.page(h(ModerationReviewPage, { ctx: request.site, ...found, forms: { ...values, errors, form: path } }), 422);
          }
          if (err.code === 'conflict') {
            const now = await moderation.review(actor, found.review.id);
            return reply.page(h(ModerationReviewPage, { ctx: request.site, ...now, forms: { problem: t.conflict } }), 409);
          }
          throw err;
        }
        return reply.code(303).redirect(`/operator/reviews?done=${done}`);
      });

  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { done?: string } }>('/operator/reviews', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const actor = actorOf(request);
      const [queue, hiddenReviews] = await Promise.all([moderation.queue(actor), moderation.hidden(actor)]);
      const done = DONE.find((d) => d === request.query.done);
      return reply.header('cache-control', 'private, no-store').page(h(ModerationQueuePage, { ctx: request.site, queue, hidden: hiddenReviews, done }));
    });

    site.get<{ Params: { id: string } }>('/operator/reviews/:id', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const found = await moderation.review(actorOf(request), request.params.id);
      return reply.header('cache-control', 'private, no-store').page(h(ModerationReviewPage, { ctx: request.site, ...found }));
    });

    await decision('hide', 'hidden', (actor, id, body) => moderation.hide(actor, id, body))(site);
    await decision('restore', 'restored', (actor, id, body) => moderation.restore(actor, id, { note: body.note }))(site);
    await decision('keep', 'kept', (actor, id, body) => moderation.keep(actor, id, { note: body.note }))(site);
  };
}
