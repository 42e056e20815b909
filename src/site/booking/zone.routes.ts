/**
 * The time-zone chooser's form (POST /time-zone): remembers a valid IANA zone in the
 * `consulta_tz` cookie and goes back to the page it came from. An unknown zone is ignored (the
 * page again, unchanged), never an error. booking.js sets the same cookie from the browser.
 */
import type { FastifyInstance } from 'fastify';
import { safeReturnTo } from '../../domain/identity/return-to.ts';
import type { SiteCookies } from '../plugin.ts';
import { validZone, ZONE_COOKIE, ZONE_COOKIE_MAX_AGE } from './visitor-zone.ts';

export function zoneArea({ cookies }: { cookies: SiteCookies }) {
  return async (site: FastifyInstance) => {
    site.post<{ Body: Record<string, unknown> }>('/time-zone', { schema: { hide: true } }, async (request, reply) => {
      const body = request.body ?? {};
      const zone = validZone(body.zone);
      // Not HttpOnly: booking.js reads it to know whether the zone is known, and writes it.
      if (zone) reply.setCookie(ZONE_COOKIE, zone, { path: '/', httpOnly: false, sameSite: 'lax', secure: cookies.secure, maxAge: ZONE_COOKIE_MAX_AGE });
      return reply.code(303).redirect(safeReturnTo(body.return_to) ?? '/');
    });
  };
}
