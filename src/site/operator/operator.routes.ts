/**
 * The operator console: users, keys, firms, tiers, suspensions, lawyers, request lookup, audit
 * log. Who may open it is decided before anything else — even before the CSRF check — so that
 * for everyone but an operator every console URL, GET or POST, is the ordinary 404 page. An
 * operator must have a passkey (every page), and the changes (tier, suspension, lifting,
 * verification, listing) need it proved in this session within 10 minutes: otherwise the POST
 * changes nothing and goes to the step-up page, which comes back to the page of the form.
 * Every rule and the audit log are OperatorService's; these routes read forms and pick pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { Actor, ApiKeyRecord } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Messages } from '../../i18n/index.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireOperator, requirePasskeyEnrolled, requireStepUp } from '../guards.ts';
import { AuditPage, FirmPage, KeyPage, LawyerPage, LawyersPage, RequestLookupPage, RequestPage, SearchPage, UserPage, type KeyPageState } from './operator.page.tsx';

type Body = Record<string, unknown>;
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const REQUEST_ID = /^req_[0-9a-f]{32}$/;

/** Runs before the body is parsed or the CSRF token checked: nobody but an operator learns the console exists. */
async function operatorsOnly(request: FastifyRequest): Promise<void> {
  requireOperator(request);
}

const hidden = { schema: { hide: true }, onRequest: operatorsOnly };

export function operatorArea({ operator, sessions, passkeys, clock }: DashboardDeps) {
  /** The operator actor naming this person and request, for the audit log. */
  const actorOf = (request: FastifyRequest): Actor => {
    const user = requireOperator(request);
    return { type: 'operator', by: { kind: 'user', userId: user.id, email: user.email, requestId: request.id } };
  };

  /** Every console page: a passkey on record (else the enrolment page, and false). */
  const enrolled = (request: FastifyRequest, reply: FastifyReply, returnTo?: string) => requirePasskeyEnrolled(request, reply, passkeys, returnTo);

  /** A change: enrolled, and a passkey proved within 10 minutes (else the step-up page, back to `form`). */
  const mayChange = async (request: FastifyRequest, reply: FastifyReply, form: string) =>
    (await enrolled(request, reply, form)) && requireStepUp(request, reply, sessions, form);

  const keyPage = async (request: FastifyRequest, reply: FastifyReply, keyId: string, state: KeyPageState, status = 200) => {
    const { key, lastUsed, history } = await operator.key(actorOf(request), keyId);
    return reply.page(h(KeyPage, { ctx: request.site, apiKey: key, lastUsed, history, now: clock.now(), state }), status);
  };

  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { q?: string } }>('/operator', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const results = await operator.search(actorOf(request), text(request.query.q, 200));
      // A pasted secret is not shown back on a page: straight to its key.
      if (results.wholeKey) return reply.code(303).redirect(`/operator/keys/${results.keys[0]!.id}`);
      return reply.page(h(SearchPage, { ctx: request.site, results, now: clock.now() }));
    });

    site.get<{ Params: { id: string } }>('/operator/users/:id', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const found = await operator.user(actorOf(request), request.params.id);
      return reply.page(h(UserPage, { ctx: request.site, ...found, now: clock.now() }));
    });

    site.get<{ Params: { slug: string } }>('/operator/firms/:slug', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const found = await operator.firm(actorOf(request), request.params.slug);
      return reply.page(h(FirmPage, { ctx: request.site, ...found, now: clock.now() }));
    });

    site.get<{ Params: { id: string }; Querystring: { done?: string } }>('/operator/keys/:id', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      return keyPage(request, reply, request.params.id, { done: text(request.query.done, 20) || undefined });
    });

    /** A key change: step-up first, then the action; the domain's refusals come back on the key page. */
    const keyChange = (path: string, act: (actor: Actor, key: ApiKeyRecord, body: Body, t: Messages['operator']) => Promise<{ done: string } | KeyPageState>) =>
      site.post<{ Params: { id: string }; Body: Body }>(`/operator/keys/:id/${path}`, hidden, async (request, reply) => {
        const actor = actorOf(request);
        // The key must exist before anyone is sent to prove anything about it.
        const { key } = await operator.key(actor, request.params.id);
        const form = `/operator/keys/${key.id}`;
        if (!(await mayChange(request, reply, form))) return reply;
        let outcome: { done: string } | KeyPageState;
        try {
          outcome = await act(actor, key, request.body ?? {}, request.site.t.operator);
        } catch (err) {
          if (err instanceof DomainError && (err.code === 'conflict' || err.code === 'forbidden')) {
            return keyPage(request, reply, key.id, { problem: request.site.t.operator.conflict }, err.code === 'conflict' ? 409 : 403);
          }
          throw err;
        }
        if ('done' in outcome) return reply.code(303).redirect(`${form}?done=${outcome.done}`);
        return keyPage(request, reply, key.id, outcome, 400);
      });

    keyChange('tier', async (actor, key, body, t) => {
      const tier = text(body.tier, 20);
      try {
        await operator.setTier(actor, key.id, tier);
        return { done: tier === key.tier ? 'unchanged' : 'tier' };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invalid_request') return { tier, tierError: t.errTier };
        throw err;
      }
    });
    keyChange('suspend', async (actor, key, body, t) => {
      const reason = text(body.reason, 600);
      try {
        await operator.suspend(actor, key.id, reason);
        return { done: 'suspended' };
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invalid_request') return { reason, reasonError: t.errReason };
        throw err;
      }
    });
    keyChange('unsuspend', async (actor, key) => {
      await operator.unsuspend(actor, key.id);
      return { done: key.suspension ? 'unsuspended' : 'unchanged' };
    });

    site.get<{ Querystring: { q?: string } }>('/operator/lawyers', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const query = text(request.query.q, 200).trim();
      return reply.page(h(LawyersPage, { ctx: request.site, query, lawyers: await operator.lawyers(actorOf(request), query) }));
    });

    site.get<{ Params: { id: string }; Querystring: { done?: string } }>('/operator/lawyers/:id', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const { lawyer, history } = await operator.lawyer(actorOf(request), request.params.id);
      return reply.page(h(LawyerPage, { ctx: request.site, lawyer, history, done: text(request.query.done, 20) || undefined }));
    });

    for (const [path, field, on, off] of [
      ['verification', 'verified', 'verified', 'unverified'],
      ['listing', 'listed', 'listed', 'unlisted'],
    ] as const) {
      site.post<{ Params: { id: string }; Body: Body }>(`/operator/lawyers/:id/${path}`, hidden, async (request, reply) => {
        const actor = actorOf(request);
        const { lawyer } = await operator.lawyer(actor, request.params.id);
        const form = `/operator/lawyers/${lawyer.id}`;
        if (!(await mayChange(request, reply, form))) return reply;
        const value = text((request.body ?? {})[field], 5);
        // Only the form's own values: anything else is a bad request (the 400 page), not a guess.
        if (value !== 'yes' && value !== 'no') throw new DomainError('invalid_request', `${field} must be yes or no`);
        const { changed } = await operator.setLawyerStatus(actor, lawyer.id, { [field]: value === 'yes' });
        return reply.code(303).redirect(`${form}?done=${changed ? (value === 'yes' ? on : off) : 'unchanged'}`);
      });
    }

    site.get<{ Querystring: { request_id?: string } }>('/operator/requests', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const raw = text(request.query.request_id, 100).trim();
      if (raw === '') return reply.page(h(RequestLookupPage, { ctx: request.site }));
      const id = raw.toLowerCase();
      if (REQUEST_ID.test(id)) return reply.code(303).redirect(`/operator/requests/${id}`);
      return reply.page(h(RequestLookupPage, { ctx: request.site, value: raw, error: request.site.t.operator.badRequestId }), 400);
    });

    site.get<{ Params: { requestId: string } }>('/operator/requests/:requestId', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      return reply.page(h(RequestPage, { ctx: request.site, lookup: await operator.request(actorOf(request), request.params.requestId) }));
    });

    site.get<{ Querystring: { before?: string } }>('/operator/audit', hidden, async (request, reply) => {
      if (!(await enrolled(request, reply))) return reply;
      const raw = text(request.query.before, 20);
      const before = raw === '' ? undefined : /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
      const page = await operator.audit(actorOf(request), before);
      return reply.page(h(AuditPage, { ctx: request.site, entries: page.entries, next: page.next, paged: before !== undefined }));
    });
  };
}
