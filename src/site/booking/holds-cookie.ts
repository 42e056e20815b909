/**
 * The holds cookie: the confirmation tokens of the holds this browser made on the site, so that
 * choosing another time with the same lawyer replaces the earlier hold instead of counting against
 * the hourly limit, and so that only this browser may let its hold go ("Choose another time").
 * HttpOnly, SameSite=Lax, `__Host-` on HTTPS; an hour long (the limit's window), rewritten on each
 * hold with only the holds still worth knowing (waiting, or made within the hour), at most
 * MAX_REMEMBERED. The tokens are the holds' own capability links: the cookie grants nothing the
 * link does not.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BookingService, SiteHolder } from '../../domain/booking/booking.service.ts';
import { siteCookies } from '../plugin.ts';
import { CONFIRM_TOKEN } from './hold.ts';

const MAX_REMEMBERED = 12;
const MAX_AGE_SECONDS = 3600;

export interface HoldsCookie {
  /** The person on this request: the browser's tokens and who is signed in. */
  holder(request: FastifyRequest): SiteHolder;
  /** Rewrites the cookie: `add` first, `drop` left out, then the remembered holds still worth knowing. */
  remember(request: FastifyRequest, reply: FastifyReply, change: { add?: string; drop?: string }): Promise<void>;
}

export function holdsCookie(siteUrl: string, booking: BookingService): HoldsCookie {
  const cookies = siteCookies(siteUrl);
  const tokensOf = (request: FastifyRequest): string[] => {
    const raw = request.cookies[cookies.holds];
    if (typeof raw !== 'string') return [];
    return [...new Set(raw.split('.').filter((t) => CONFIRM_TOKEN.test(t)))].slice(0, MAX_REMEMBERED);
  };
  const holder = (request: FastifyRequest): SiteHolder => ({ tokens: tokensOf(request), userId: request.site?.user?.id ?? null });
  return {
    holder,
    async remember(request, reply, change) {
      const who = holder(request);
      const known = new Set((await booking.siteHoldsRemembered({ tokens: who.tokens, userId: null })).map((r) => r.confirmation_token));
      const kept = [change.add, ...who.tokens.filter((t) => known.has(t))].filter((t): t is string => t !== undefined && t !== change.drop);
      const tokens = [...new Set(kept)].slice(0, MAX_REMEMBERED);
      const options = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: cookies.secure };
      if (tokens.length === 0) reply.clearCookie(cookies.holds, options);
      else reply.setCookie(cookies.holds, tokens.join('.'), { ...options, maxAge: MAX_AGE_SECONDS });
    },
  };
}
