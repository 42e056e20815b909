/**
 * Passkeys: list, add, remove, sign in with one, and the step-up. The rules — challenges used
 * once within 5 minutes and bound to the session, counters, who may add one, an operator's last
 * passkey — are PasskeysService's; these routes pick pages and move cookies.
 *
 * The ceremonies' endpoints answer JSON to passkeys.js but take urlencoded bodies like every
 * form of the site, so the site's CSRF token (`_csrf`) and same-origin checks apply unchanged;
 * the browser's WebAuthn answer travels as JSON text in the `response` field.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import { DomainError } from '../../domain/errors.ts';
import { parseCredentialJson, type PasskeyFailure } from '../../domain/identity/passkeys.service.ts';
import { safeReturnTo } from '../../domain/identity/return-to.ts';
import { sessionCookie } from './account.routes.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import { PasskeysPage, RemovePasskeyPage, StepUpPage } from './passkeys.page.tsx';

type Body = Record<string, unknown> | undefined;

const field = (body: Body, name: string): unknown => (body ?? {})[name];
const text = (body: Body, name: string, max: number): string => {
  const v = field(body, name);
  return typeof v === 'string' ? v.slice(0, max) : '';
};

/** Where a ceremony failure is reported: 400 with a message in the page's language. */
const STATUS: Record<PasskeyFailure, number> = { expired: 400, unknown_credential: 400, invalid: 400, counter: 400, duplicate: 409, not_fresh: 403, too_many: 409 };

export function passkeysArea({ config, cookies, sessions, passkeys }: DashboardDeps) {
  const session = sessionCookie(config, cookies);

  const failure = (request: FastifyRequest, reply: FastifyReply, reason: PasskeyFailure) =>
    reply.code(STATUS[reason]).send({ ok: false, error: reason, message: request.site.t.passkeys.problems[reason] });

  /** The signed-in person for a JSON endpoint; otherwise a 401 answer (the script says "reload"). */
  const jsonUser = (request: FastifyRequest, reply: FastifyReply) => {
    const user = request.site.user;
    const current = request.site.session;
    if (user && current) return { user, sessionId: current.id };
    void reply.code(401).send({ ok: false, error: 'signed_out', message: request.site.t.passkeys.failed });
    return null;
  };

  /** Limits on the anonymous endpoints answer JSON too (the page would not show an HTML 429). */
  const limited = async <T>(request: FastifyRequest, reply: FastifyReply, run: () => Promise<T>): Promise<T | FastifyReply> => {
    try {
      return await run();
    } catch (err) {
      if (err instanceof DomainError && err.code === 'rate_limited') {
        if (err.headers) reply.headers(err.headers);
        return reply.code(429).send({ ok: false, error: 'rate_limited', message: request.site.t.errors.tooMany(Number(err.headers?.['retry-after'] ?? 60)) });
      }
      throw err;
    }
  };

  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { added?: string; removed?: string } }>('/account/passkeys', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const list = await passkeys.list(user.id);
      const fresh = await passkeys.sessionIsFresh(request.site.session!.id);
      const notice = request.query.added !== undefined ? 'added' : request.query.removed !== undefined ? 'removed' : null;
      return reply.page(h(PasskeysPage, { ctx: request.site, passkeys: list, operator: user.operator, fresh, notice }));
    });

    site.post('/account/passkeys/register/options', { schema: { hide: true } }, async (request, reply) => {
      const me = jsonUser(request, reply);
      if (!me) return reply;
      const result = await passkeys.registrationOptions(me.user, me.sessionId);
      if (!result.ok) return failure(request, reply, result.reason);
      return reply.send({ ok: true, options: result.options });
    });

    site.post<{ Body: Body }>('/account/passkeys/register', { schema: { hide: true } }, async (request, reply) => {
      const me = jsonUser(request, reply);
      if (!me) return reply;
      const response = parseCredentialJson(field(request.body, 'response'));
      const count = (await passkeys.list(me.user.id)).length;
      const name = text(request.body, 'name', 200).trim() || request.site.t.passkeys.defaultName(count + 1);
      const result = await passkeys.register(me.user.id, me.sessionId, response, name);
      if (!result.ok) return failure(request, reply, result.reason);
      return reply.send({ ok: true, redirect: '/account/passkeys?added=1' });
    });

    site.get<{ Params: { id: string } }>('/account/passkeys/:id/remove', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const passkey = await passkeys.get(user.id, request.params.id);
      return reply.page(h(RemovePasskeyPage, { ctx: request.site, passkey }));
    });

    site.post<{ Params: { id: string } }>('/account/passkeys/:id/remove', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      // Someone else's passkey: the 404 page (thrown by the service), nothing removed.
      const passkey = await passkeys.get(user.id, request.params.id);
      const result = await passkeys.remove(user.id, passkey.id);
      if (!result.ok) return reply.page(h(RemovePasskeyPage, { ctx: request.site, passkey, error: request.site.t.passkeys.lastOperatorPasskey }), 409);
      return reply.code(303).redirect('/account/passkeys?removed=1');
    });

    // A session too old to add a passkey: end it and sign in again, coming back here.
    site.post<{ Body: Body }>('/account/passkeys/reauth', { schema: { hide: true } }, async (request, reply) => {
      const token = request.cookies[cookies.session];
      if (token) await sessions.signOut(token);
      session.clear(reply);
      const back = safeReturnTo(field(request.body, 'return_to')) ?? '/account/passkeys';
      return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(back)}`);
    });

    site.get<{ Querystring: { return_to?: string } }>('/account/passkeys/step-up', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const returnTo = safeReturnTo(request.query.return_to) ?? '/account/passkeys';
      const list = await passkeys.list(user.id);
      const fresh = list.length === 0 && (await passkeys.sessionIsFresh(request.site.session!.id));
      return reply.page(h(StepUpPage, { ctx: request.site, returnTo, hasPasskey: list.length > 0, operator: user.operator, fresh, passkeyCount: list.length }));
    });

    site.post('/account/passkeys/step-up/options', { schema: { hide: true } }, async (request, reply) => {
      const me = jsonUser(request, reply);
      if (!me) return reply;
      const options = await passkeys.stepUpOptions(me.user.id, me.sessionId);
      if (!options) return failure(request, reply, 'unknown_credential');
      return reply.send({ ok: true, options });
    });

    site.post<{ Body: Body }>('/account/passkeys/step-up', { schema: { hide: true } }, async (request, reply) => {
      const me = jsonUser(request, reply);
      if (!me) return reply;
      const result = await passkeys.stepUp(me.user.id, me.sessionId, parseCredentialJson(field(request.body, 'response')));
      if (!result.ok) return failure(request, reply, result.reason);
      return reply.send({ ok: true, redirect: safeReturnTo(field(request.body, 'return_to')) ?? '/account/passkeys' });
    });

    site.post('/sign-in/passkey/options', { schema: { hide: true } }, async (request, reply) =>
      limited(request, reply, async () => reply.send({ ok: true, options: await passkeys.signInOptions(request.ip) })),
    );

    site.post<{ Body: Body }>('/sign-in/passkey', { schema: { hide: true } }, async (request, reply) =>
      limited(request, reply, async () => {
        const result = await passkeys.signIn(parseCredentialJson(field(request.body, 'response')), { ip: request.ip, userAgent: request.headers['user-agent'] });
        if (!result.ok) return failure(request, reply, result.reason);
        session.set(reply, result.session.token);
        return reply.send({ ok: true, redirect: safeReturnTo(field(request.body, 'return_to')) ?? '/consultations' });
      }),
    );
  };
}
