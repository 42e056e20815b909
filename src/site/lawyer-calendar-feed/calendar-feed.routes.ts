/**
 * /lawyer/calendar-feed (docs/lawyers.md#busy-times-from-her-own-calendar): her own calendar's
 * secret address. The rules are CalendarFeedService's; these routes find the signed-in user's
 * lawyer record, read the form, call the service and pick the page (post/redirect/get). No
 * lawyer id is ever taken from the request: she can only see and change her own feed.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { Database } from '../../db/database.ts';
import { FeedAddressError, type CalendarFeedService } from '../../domain/calendar-feed/calendar-feed.service.ts';
import { CalendarFeedPage, NotLawyerPage } from './calendar-feed.page.tsx';
import { requireLawyer } from './guard.ts';

const PATH = '/lawyer/calendar-feed';
const DONE = new Set(['saved', 'savedLater', 'savedFailed', 'refreshed', 'refreshFailed', 'tooSoon', 'removed']);

export function calendarFeedArea({ calendarFeeds, database }: { calendarFeeds: CalendarFeedService; database: Database }) {
  return async (site: FastifyInstance) => {
    site.get(PATH, { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, database);
      if (lawyer === null) return reply;
      if (lawyer === 'not_lawyer') return reply.page(h(NotLawyerPage, { ctx: request.site }), 403);
      const q = (request.query ?? {}) as Record<string, unknown>;
      const done = typeof q.done === 'string' && DONE.has(q.done) ? q.done : null;
      return reply.page(h(CalendarFeedPage, { ctx: request.site, lawyer, status: await calendarFeeds.status(lawyer.id), done }));
    });

    site.post(PATH, { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, database);
      if (lawyer === null) return reply;
      if (lawyer === 'not_lawyer') return reply.page(h(NotLawyerPage, { ctx: request.site }), 403);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const url = typeof body.url === 'string' ? body.url.slice(0, 4000) : '';
      try {
        const { read } = await calendarFeeds.set(lawyer.id, url);
        const done = read === null ? 'savedLater' : read.outcome === 'failed' ? 'savedFailed' : 'saved';
        return reply.code(303).redirect(`${PATH}?done=${done}`);
      } catch (err) {
        if (!(err instanceof FeedAddressError)) throw err;
        const t = request.site.t.calendarFeed;
        const status = await calendarFeeds.status(lawyer.id);
        return reply.page(h(CalendarFeedPage, { ctx: request.site, lawyer, status, done: null, form: { url: url.slice(0, 2000), error: t.invalid[err.problem] ?? t.invalid.not_url! } }), 422);
      }
    });

    site.post(`${PATH}/refresh`, { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, database);
      if (lawyer === null) return reply;
      if (lawyer === 'not_lawyer') return reply.page(h(NotLawyerPage, { ctx: request.site }), 403);
      const result = await calendarFeeds.refreshNow(lawyer.id);
      const done = result.outcome === 'too_soon' ? 'tooSoon' : result.outcome === 'failed' ? 'refreshFailed' : result.outcome === 'no_feed' ? null : 'refreshed';
      return reply.code(303).redirect(done ? `${PATH}?done=${done}` : PATH);
    });

    site.post(`${PATH}/remove`, { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, database);
      if (lawyer === null) return reply;
      if (lawyer === 'not_lawyer') return reply.page(h(NotLawyerPage, { ctx: request.site }), 403);
      const removed = await calendarFeeds.remove(lawyer.id);
      return reply.code(303).redirect(removed ? `${PATH}?done=removed` : PATH);
    });
  };
}
