/**
 * Sign-in (email code or same-browser link), sign-out, and "My consultations". The rules —
 * attempts, expiry, limits, no enumeration, safe return paths — are the identity services'; these
 * routes move cookies and pick pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { Config } from '../../config.ts';
import type { ConsultationsService } from '../../domain/booking/consultations.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { parseEmailAddress } from '../../domain/identity/email-address.ts';
import { safeReturnTo } from '../../domain/identity/return-to.ts';
import type { SessionService } from '../../domain/identity/session.service.ts';
import type { SignInResult, SignInService } from '../../domain/identity/sign-in.service.ts';
import type { SiteContext } from '../context.ts';
import { requireUser } from '../guards.ts';
import type { SiteCookies } from '../plugin.ts';
import { ConsultationPage, ConsultationsPage } from './consultations.page.tsx';
import { CodePage, SignInPage } from './sign-in.page.tsx';
import { holdForReturnTo, type HoldDeps } from '../booking/hold.ts';

export interface AccountAreaDeps {
  config: Config;
  cookies: SiteCookies;
  signIn: SignInService;
  sessions: SessionService;
  consultations: ConsultationsService;
  /** Loads the held booking a sign-in is for, shown on the code page. */
  holds?: HoldDeps;
}

const SIGN_IN_COOKIE_SECONDS = 10 * 60;

/** What to tell a person whose address was refused: the two common slips get their own words. */
function emailError(t: SiteContext['t'], email: string): string {
  const parsed = parseEmailAddress(email);
  if (parsed.ok) return t.signIn.emailInvalid;
  if (parsed.reason === 'not_bare' || parsed.reason === 'ip_literal') return t.signIn.emailNotBare;
  if (parsed.reason === 'local_part_not_ascii') return t.signIn.emailAccents;
  return t.signIn.emailInvalid;
}

/**
 * The session cookie, set and cleared the same way by every way of signing in and out (email
 * code or link here, passkeys in passkeys.routes.ts).
 */
export function sessionCookie(config: Pick<Config, 'sessionMaxDays'>, cookies: SiteCookies) {
  const base = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: cookies.secure };
  return {
    set: (reply: FastifyReply, token: string) => reply.setCookie(cookies.session, token, { ...base, maxAge: config.sessionMaxDays * 86_400 }),
    clear: (reply: FastifyReply) => reply.clearCookie(cookies.session, base),
  };
}

export function accountArea({ config, cookies, signIn, sessions, consultations, holds }: AccountAreaDeps) {
  const cookieBase = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: cookies.secure };
  const session = sessionCookie(config, cookies);

  /** The pending challenge of this browser: `<challengeId>.<browserSecret>`. */
  const pending = (request: FastifyRequest): { challengeId: string; browserSecret: string } | null => {
    const [challengeId, browserSecret] = (request.cookies[cookies.signIn] ?? '').split('.', 2);
    return challengeId && browserSecret ? { challengeId, browserSecret } : null;
  };

  /** A completed sign-in: the session cookie, the challenge cookie gone, on to where the person was going. */
  const finish = (reply: FastifyReply, result: Extract<SignInResult, { ok: true }>) => {
    session.set(reply, result.session.token);
    reply.clearCookie(cookies.signIn, cookieBase);
    return reply.code(303).redirect(safeReturnTo(result.returnTo) ?? '/consultations');
  };

  /**
   * The code page's view of this browser's pending sign-in: the challenge, the address the code
   * went to, how many more codes may be sent, and — when the sign-in is for a hold — the booking.
   */
  const codeProps = async (request: FastifyRequest) => {
    const mine = pending(request);
    const info = mine ? await signIn.pending(mine) : null;
    const hold = info && holds ? await holdForReturnTo(holds, info.returnTo) : null;
    return {
      ctx: request.site,
      challengeId: mine?.challengeId ?? null,
      booking: info ? { email: info.email, sendsLeft: info.sendsLeft, sendsPerHour: info.sendsPerHour, hold } : null,
    };
  };

  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { return_to?: string } }>('/sign-in', { schema: { hide: true } }, async (request, reply) => {
      const returnTo = safeReturnTo(request.query.return_to);
      if (request.site.user) return reply.code(303).redirect(returnTo ?? '/consultations');
      return reply.page(h(SignInPage, { ctx: request.site, returnTo }));
    });

    site.post<{ Body: Record<string, unknown> }>('/sign-in', { schema: { hide: true } }, async (request, reply) => {
      const ctx = request.site;
      const body = request.body ?? {};
      const email = typeof body.email === 'string' ? body.email.trim().slice(0, 254) : '';
      const returnTo = safeReturnTo(body.return_to);
      try {
        const started = await signIn.start({ email, ip: request.ip, locale: ctx.locale, returnTo });
        reply.setCookie(cookies.signIn, `${started.challengeId}.${started.browserSecret}`, { ...cookieBase, maxAge: SIGN_IN_COOKIE_SECONDS });
        return reply.code(303).redirect('/sign-in/code');
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invalid_request') {
          return reply.page(h(SignInPage, { ctx, returnTo, email, error: emailError(ctx.t, email) }), 400);
        }
        throw err;
      }
    });

    site.get<{ Querystring: { resent?: string } }>('/sign-in/code', { schema: { hide: true } }, async (request, reply) => {
      const props = await codeProps(request);
      return reply.page(h(CodePage, { ...props, resent: request.query.resent !== undefined }));
    });

    // "Send a new code": the same address and return path, under the sign-in limits.
    site.post('/sign-in/resend', { schema: { hide: true } }, async (request, reply) => {
      const mine = pending(request);
      if (!mine) return reply.code(303).redirect('/sign-in/code');
      try {
        const again = await signIn.resend({ ...mine, ip: request.ip, locale: request.site.locale });
        if (!again) return reply.code(303).redirect('/sign-in/code');
        reply.setCookie(cookies.signIn, `${again.challengeId}.${again.browserSecret}`, { ...cookieBase, maxAge: SIGN_IN_COOKIE_SECONDS });
        return reply.code(303).redirect('/sign-in/code?resent=1');
      } catch (err) {
        if (!(err instanceof DomainError && err.code === 'rate_limited')) throw err;
        if (err.headers) reply.headers(err.headers);
        const minutes = Math.max(1, Math.ceil(Number(err.headers?.['retry-after'] ?? 60) / 60));
        return reply.page(h(CodePage, { ...(await codeProps(request)), tooMany: minutes }), 429);
      }
    });

    site.post<{ Body: Record<string, unknown> }>('/sign-in/code', { schema: { hide: true } }, async (request, reply) => {
      const body = request.body ?? {};
      const challengeId = typeof body.challenge === 'string' ? body.challenge.slice(0, 64) : pending(request)?.challengeId;
      if (!challengeId) return reply.page(h(CodePage, { ctx: request.site, challengeId: null, problem: 'unknown' }), 400);
      const code = typeof body.code === 'string' ? body.code.slice(0, 20) : '';
      const result = await signIn.verifyCode({ challengeId, code, ip: request.ip, userAgent: request.headers['user-agent'] });
      if (result.ok) return finish(reply, result);
      const status = result.reason === 'wrong_code' ? 422 : 400;
      return reply.page(h(CodePage, { ...(await codeProps(request)), challengeId, problem: result.reason, attemptsLeft: result.attemptsLeft }), status);
    });

    site.get<{ Params: { token: string } }>('/sign-in/link/:token', { schema: { hide: true } }, async (request, reply) => {
      // The token is a credential: keep it out of Referer headers and search engines.
      reply.header('referrer-policy', 'same-origin').header('x-robots-tag', 'noindex');
      const token = request.params.token.slice(0, 128);
      const result = await signIn.completeWithLink({ token, browserSecret: pending(request)?.browserSecret, ip: request.ip, userAgent: request.headers['user-agent'] });
      if (result.ok) return finish(reply, result);
      return reply.page(h(CodePage, { ctx: request.site, challengeId: result.challengeId ?? null, problem: result.reason }), result.reason === 'other_browser' ? 200 : 400);
    });

    site.post('/sign-out', { schema: { hide: true } }, async (request, reply) => {
      const token = request.cookies[cookies.session];
      if (token) await sessions.signOut(token);
      session.clear(reply);
      // A page may ask to continue somewhere of ours (sign in as another account, then back).
      return reply.code(303).redirect(safeReturnTo((request.body as Record<string, unknown> | undefined)?.return_to) ?? '/');
    });

    site.post('/sign-out/everywhere', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      await sessions.signOutEverywhere(user.id);
      session.clear(reply);
      return reply.code(303).redirect('/');
    });

    site.get('/consultations', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const { upcoming, past } = await consultations.listForUser(user.id);
      return reply.page(h(ConsultationsPage, { ctx: request.site, upcoming, past }));
    });

    site.get<{ Params: { id: string } }>('/consultations/:id', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const id = request.params.id;
      if (id.endsWith('.ics')) {
        const ics = await consultations.calendar(user.id, id.slice(0, -4), request.site.locale);
        if (!ics) throw new DomainError('not_found', 'no such consultation');
        return reply.type('text/calendar; charset=utf-8').header('content-disposition', 'attachment; filename="consulta.ics"').send(ics);
      }
      const c = await consultations.getForUser(user.id, id);
      // Someone else's consultation reads exactly like one that does not exist.
      if (!c) throw new DomainError('not_found', 'no such consultation');
      return reply.page(h(ConsultationPage, { ctx: request.site, c }));
    });
  };
}
