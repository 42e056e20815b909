/**
 * The console's applications queue: /operator/applications (oldest first) and one application,
 * verified (a note, what was checked) or refused (a reason, emailed) through VerificationService,
 * which audits. As everywhere in the console: for everyone but an operator every URL here, GET or
 * POST, is the ordinary 404 page (decided before the body or the CSRF token is read); a passkey
 * on record for every page; a decision needs a passkey proved within 10 minutes, else it changes
 * nothing and goes to the step-up page, which comes back to the application.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { Actor } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import type { ApplicationReviewService } from '../../domain/lawyers/application-review.ts';
import type { CheckedSource, VerificationService } from '../../domain/lawyers/verification.service.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireOperator, requirePasskeyEnrolled, requireStepUp } from '../guards.ts';
import { ApplicationPage, ApplicationsPage, type DecisionForms } from './applications.page.tsx';

type Body = Record<string, unknown>;
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v : typeof v === 'string' ? [v] : []).filter((x): x is string => typeof x === 'string').slice(0, 5);

async function operatorsOnly(request: FastifyRequest): Promise<void> {
  requireOperator(request);
}
const hidden = { schema: { hide: true }, onRequest: operatorsOnly };

export function applicationsQueueArea({ dashboard, review, verification }: { dashboard: Pick<DashboardDeps, 'sessions' | 'passkeys'>; review: ApplicationReviewService; verification: VerificationService }) {
  const { sessions, passkeys } = dashboard;
  const actorOf = (request: FastifyRequest): Actor => {
    const user = requireOperator(request);
    return { type: 'operator', by: { kind: 'user', userId: user.id, email: user.email, requestId: request.id } };
  };
  const enrolled = (request: FastifyRequest, reply: FastifyReply, returnTo?: string) => requirePasskeyEnrolled(request, reply, passkeys, returnTo);
  const mayChange = async (request: FastifyRequest, reply: FastifyReply, form: string) => (await enrolled(request, reply, form)) && requireStepUp(request, reply, sessions, form);

  /** The form fields a refusal names (pointer → message), in the operator's language. */
  const fieldErrors = (err: DomainError, t: FastifyRequest['site']['t']['applicationsQueue'], typed: Record<string, string>): DecisionForms['errors'] => {
    const out: NonNullable<DecisionForms['errors']> = {};
    for (const e of err.errors ?? []) {
      const field = e.pointer.replace(/^\//, '');
      if (field === 'note') out.note = typed.note?.trim() ? t.errText : t.errNote;
      else if (field === 'checked') out.checked = t.errChecked;
      else if (field === 'reason') out.reason = typed.reason?.trim() ? t.errText : t.errReason;
    }
    return out;
  };

  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { done?: string } }>('/operator/applications', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      return reply.page(h(ApplicationsPage, { ctx: request.site, applications: await review.queue(actorOf(request)), done: text(request.query.done, 20) || undefined }));
    });

    site.get<{ Params: { id: string } }>('/operator/applications/:id', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      return reply.page(h(ApplicationPage, { ctx: request.site, review: await review.review(actorOf(request), request.params.id) }));
    });

    site.post<{ Params: { id: string }; Body: Body }>('/operator/applications/:id/verify', hidden, async (request, reply) => {
      const actor = actorOf(request);
      // The application must exist before anyone is sent to prove anything about it.
      const found = await review.review(actor, request.params.id);
      const form = `/operator/applications/${found.application.id}`;
      if (!(await mayChange(request, reply, form))) return reply;
      const body = request.body ?? {};
      const note = text(body.note, 2100);
      const checked = list(body.checked);
      const t = request.site.t.applicationsQueue;
      try {
        await verification.verify(actor, found.application.id, { note, checked: checked as CheckedSource[] });
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        if (err.code === 'invalid_request') {
          // The service stops at the first missing part; the form names every one at once.
          const errors = { ...fieldErrors(err, t, { note }), ...(checked.length === 0 ? { checked: t.errChecked } : {}) };
          return reply.page(h(ApplicationPage, { ctx: request.site, review: found, forms: { note, checked, errors } }), 422);
        }
        if (err.code === 'conflict') return reply.page(h(ApplicationPage, { ctx: request.site, review: found, forms: { note, checked, problem: err.message } }), 409);
        throw err;
      }
      return reply.code(303).redirect('/operator/applications?done=verified');
    });

    site.post<{ Params: { id: string }; Body: Body }>('/operator/applications/:id/refuse', hidden, async (request, reply) => {
      const actor = actorOf(request);
      const found = await review.review(actor, request.params.id);
      const form = `/operator/applications/${found.application.id}`;
      if (!(await mayChange(request, reply, form))) return reply;
      const reason = text((request.body ?? {}).reason, 2100);
      const t = request.site.t.applicationsQueue;
      try {
        await verification.refuse(actor, found.application.id, reason);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        if (err.code === 'invalid_request') return reply.page(h(ApplicationPage, { ctx: request.site, review: found, forms: { reason, errors: fieldErrors(err, t, { reason }) } }), 422);
        if (err.code === 'conflict') return reply.page(h(ApplicationPage, { ctx: request.site, review: found, forms: { reason, problem: t.notPending(t.statuses[found.application.status] ?? found.application.status) } }), 409);
        throw err;
      }
      return reply.code(303).redirect('/operator/applications?done=refused');
    });
  };
}
