/**
 * /consultations/:id/cancel and /consultations/:id/move (docs/booking-intents.md#cancel-or-move):
 * the person cancels or moves their own consultation. Every page and form first finds the
 * consultation among the signed-in person's own (another person's id is the 404 page, like an
 * unknown one); signed out, GET goes to sign-in and back. Forms carry the CSRF token (the site
 * plugin refuses a POST without it). The rules are PersonChangeService's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { ConsultationsService } from '../../domain/booking/consultations.service.ts';
import type { PersonChangeService } from '../../domain/booking/person-change.service.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { requireUser } from '../guards.ts';
import { loadWeek } from '../lawyers/week-strip.ts';
import { CancelPage, MovePage } from './change.page.tsx';

type Body = Record<string, unknown>;
const hidden = { schema: { hide: true } };

export interface ConsultationChangeDeps {
  consultations: ConsultationsService;
  change: PersonChangeService;
  directory: Pick<DirectoryService, 'getAvailability'>;
}

export function consultationChangeArea({ consultations, change, directory }: ConsultationChangeDeps) {
  /** The signed-in person's own consultation, or the 404 page (someone else's reads as unknown). */
  const own = async (userId: string, id: string) => {
    const c = await consultations.getForUser(userId, id);
    if (!c) throw new DomainError('not_found', 'no such consultation');
    return c;
  };

  /** The move page's free times: the lawyer's week strip, or null when she is no longer listed. */
  const times = async (c: { id: string; lawyer: { id: string } }, query: { week?: unknown; day?: unknown }) => {
    try {
      const loaded = await loadWeek((start) => directory.getAvailability(c.lawyer.id, start ? { start_date: start } : {}), query);
      const link = (w: string, d?: string) => `/consultations/${c.id}/move?week=${w}${d ? `&day=${d}` : ''}`;
      return {
        availability: loaded.availability,
        strip: loaded.strip,
        dayLink: (d: string) => link(loaded.week, d),
        prev: loaded.prevWeek ? link(loaded.prevWeek) : null,
        next: loaded.nextWeek ? link(loaded.nextWeek) : null,
      };
    } catch (err) {
      if (err instanceof DomainError && err.code === 'not_found') return null;
      throw err;
    }
  };

  const query = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;

  return async (site: FastifyInstance) => {
    site.get<{ Params: { id: string } }>('/consultations/:id/cancel', hidden, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const c = await own(user.id, request.params.id);
      const done = query(request).done !== undefined && c.status === 'cancelled_by_person';
      return reply.header('cache-control', 'private, no-store').page(h(CancelPage, { ctx: request.site, c, notice: done ? 'done' : null }));
    });

    site.post<{ Params: { id: string }; Body: Body }>('/consultations/:id/cancel', hidden, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const c = await own(user.id, request.params.id);
      const said = (request.body ?? {}).refund;
      const expectRefund = said === '1' ? true : said === '0' ? false : undefined;
      const result = await change.cancel(user.id, c.id, expectRefund === undefined ? {} : { expectRefund });
      if (result.outcome === 'cancelled') return reply.code(303).redirect(`/consultations/${c.id}/cancel?done=1`);
      const now = await own(user.id, c.id);
      return reply.header('cache-control', 'private, no-store').page(h(CancelPage, { ctx: request.site, c: now, notice: result.outcome === 'changed' ? 'changed' : null }), 409);
    });

    site.get<{ Params: { id: string } }>('/consultations/:id/move', hidden, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const c = await own(user.id, request.params.id);
      const q = query(request);
      const done = q.done !== undefined;
      const free = !done && c.policy.canMove ? await times(c, q) : null;
      return reply.header('cache-control', 'private, no-store').page(h(MovePage, { ctx: request.site, c, times: free, notice: done ? 'done' : null }));
    });

    site.post<{ Params: { id: string }; Body: Body }>('/consultations/:id/move', hidden, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const c = await own(user.id, request.params.id);
      // The chosen time's button sends `slot` = `date|start|end`; the service accepts only an exact free time.
      const raw = (request.body ?? {}).slot;
      const [date = '', start = '', end = ''] = typeof raw === 'string' ? raw.slice(0, 40).split('|', 3) : [];
      const result = await change.move(user.id, c.id, { date, start_time: start, end_time: end });
      if (result.outcome === 'moved') return reply.code(303).redirect(`/consultations/${c.id}/move?done=1`);
      const now = await own(user.id, c.id);
      const free = now.policy.canMove ? await times(now, /^\d{4}-\d{2}-\d{2}$/.test(date) ? { week: date, day: date } : {}) : null;
      return reply.header('cache-control', 'private, no-store').page(h(MovePage, { ctx: request.site, c: now, times: free, notice: result.outcome === 'unavailable' ? 'taken' : null }), 409);
    });
  };
}
