/**
 * /lawyer/calendar-feed (docs/lawyers.md#busy-times-from-her-own-calendar): her own calendar's
 * secret address. The rules are CalendarFeedService's; these routes find the signed-in user's
 * lawyer record, read the form, call the service and pick the page (post/redirect/get). No
 * lawyer id is ever taken from the request: she can only see and change her own feed.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { FeedAddressError, FeedNotAllowedError, type CalendarFeedService } from '../../domain/calendar-feed/calendar-feed.service.ts';
import type { PortalService } from '../../domain/lawyers/portal.service.ts';
import type { LawyerTable } from '../../db/schema.ts';
import { requireLawyer } from '../lawyer/guard.ts';
import { CalendarFeedPage, type FeedLawyer } from './calendar-feed.page.tsx';

const PATH = '/lawyer/calendar-feed';
const DONE = new Set(['saved', 'savedLater', 'savedFailed', 'refreshed', 'refreshFailed', 'tooSoon', 'removed', 'notVerified']);

/** What the page shows of her record: her time zone, how far ahead she takes bookings, whether she is verified. */
const feedLawyer = (l: LawyerTable): FeedLawyer => ({ id: l.id, timezone: l.timezone, horizonDays: Number(l.horizon_days), verified: l.verified === 1 });

export function calendarFeedArea({ calendarFeeds, portal }: { calendarFeeds: CalendarFeedService; portal: Pick<PortalService, 'forUser'> }) {
  return async (site: FastifyInstance) => {
    site.get(PATH, { schema: { hide: true } }, async (request, reply) => {
      const found = await requireLawyer(request, reply, portal);
      if (!found) return reply;
      const lawyer = feedLawyer(found);
      const q = (request.query ?? {}) as Record<string, unknown>;
      const done = typeof q.done === 'string' && DONE.has(q.done) ? q.done : null;
      return reply.page(h(CalendarFeedPage, { ctx: request.site, lawyer, status: await calendarFeeds.status(lawyer.id), done }));
    });

    site.post(PATH, { schema: { hide: true } }, async (request, reply) => {
      const found = await requireLawyer(request, reply, portal);
      if (!found) return reply;
      const lawyer = feedLawyer(found);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const url = typeof body.url === 'string' ? body.url.slice(0, 4000) : '';
      try {
        const { read } = await calendarFeeds.set(lawyer.id, url);
        const done = read === null ? 'savedLater' : read.outcome === 'failed' ? 'savedFailed' : 'saved';
        return reply.code(303).redirect(`${PATH}?done=${done}`);
      } catch (err) {
        // Not verified (the page offers no form then; a form posted anyway is answered so).
        if (err instanceof FeedNotAllowedError) return reply.code(303).redirect(`${PATH}?done=notVerified`);
        if (!(err instanceof FeedAddressError)) throw err;
        const t = request.site.t.calendarFeed;
        const status = await calendarFeeds.status(lawyer.id);
        return reply.page(h(CalendarFeedPage, { ctx: request.site, lawyer, status, done: null, form: { url: url.slice(0, 2000), error: t.invalid[err.problem] ?? t.invalid.not_url! } }), 422);
      }
    });

    site.post(`${PATH}/refresh`, { schema: { hide: true } }, async (request, reply) => {
      const found = await requireLawyer(request, reply, portal);
      if (!found) return reply;
      const lawyer = feedLawyer(found);
      const result = await calendarFeeds.refreshNow(lawyer.id);
      const done = result.outcome === 'too_soon' ? 'tooSoon' : result.outcome === 'failed' ? 'refreshFailed' : result.outcome === 'not_verified' ? 'notVerified' : result.outcome === 'no_feed' ? null : 'refreshed';
      return reply.code(303).redirect(done ? `${PATH}?done=${done}` : PATH);
    });

    site.post(`${PATH}/remove`, { schema: { hide: true } }, async (request, reply) => {
      const found = await requireLawyer(request, reply, portal);
      if (!found) return reply;
      const lawyer = feedLawyer(found);
      const removed = await calendarFeeds.remove(lawyer.id);
      return reply.code(303).redirect(removed ? `${PATH}?done=removed` : PATH);
    });
  };
}
