/**
 * /consultations/:id/cancel and /consultations/:id/move (docs/booking-intents.md#cancel-or-move):
 * the person cancels or moves their own consultation. Every page and form first finds the
 * consultation among the signed-in person's own (another person's id is the 404 page, like an
 * unknown one); signed out, GET goes to sign-in and back. Forms carry the CSRF token (the site
 * plugin refuses a POST without it). The rules are PersonChangeService's. A move is two steps, like
 * a cancellation: a time chosen in the strip is `GET …/move?to=date|start|end`, which asks "move it
 * from X to Y?"; its POST carries X and the move count shown (`from`, `moves`), and the service's
 * guarded update applies it only if the consultation is still there — of concurrent moves, one.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { ConsultationsService } from '../../domain/booking/consultations.service.ts';
import type { NewSlot, PersonChangeService } from '../../domain/booking/person-change.service.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { requireUser } from '../guards.ts';
import { loadWeek } from '../lawyers/week-strip.ts';
import { CancelPage, MovePage, type MovePageProps } from './change.page.tsx';

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
      const page = (props: Omit<MovePageProps, 'ctx' | 'c'>, status = 200) => reply.header('cache-control', 'private, no-store').page(h(MovePage, { ctx: request.site, c, ...props }), status);
      const wanted = !done && typeof q.to === 'string' ? slotOf(q.to) : null;
      if (wanted) {
        const preview = await change.previewMove(user.id, c.id, wanted);
        if (preview.outcome === 'ok') return page({ times: null, confirm: { to: preview.to, back: dayOf(c.id, preview.to.date) } });
        if (preview.outcome === 'unavailable') return page({ times: c.policy.canMove ? await times(c, /^\d{4}-\d{2}-\d{2}$/.test(wanted.date) ? weekOf(wanted.date) : {}) : null, notice: 'taken' });
      }
      const free = !done && c.policy.canMove ? await times(c, q) : null;
      return page({ times: free, notice: done ? 'done' : null });
    });

    site.post<{ Params: { id: string }; Body: Body }>('/consultations/:id/move', hidden, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const c = await own(user.id, request.params.id);
      const body = request.body ?? {};
      const wanted = slotOf(body.slot) ?? { date: '', start_time: '', end_time: '' };
      // What the confirmation page showed; a form without it (not from that page) is asked to confirm first.
      const from = typeof body.from === 'string' ? /^(\d{4}-\d{2}-\d{2})\|(\d{2}:\d{2}:\d{2})$/.exec(body.from) : null;
      const moves = typeof body.moves === 'string' && /^\d{1,3}$/.test(body.moves) ? Number(body.moves) : null;
      if (!from || moves === null) return reply.code(303).redirect(`/consultations/${c.id}/move${wanted.date ? `?to=${encodeURIComponent(`${wanted.date}|${wanted.start_time}|${wanted.end_time}`)}` : ''}`);
      const result = await change.move(user.id, c.id, wanted, { date: from[1]!, start_time: from[2]!, moveCount: moves });
      if (result.outcome === 'moved') return reply.code(303).redirect(`/consultations/${c.id}/move?done=1`);
      const now = await own(user.id, c.id);
      const notice = result.outcome === 'unavailable' ? 'taken' : result.outcome === 'already_moved' ? 'already' : null;
      const free = notice !== 'already' && now.policy.canMove ? await times(now, /^\d{4}-\d{2}-\d{2}$/.test(wanted.date) ? weekOf(wanted.date) : {}) : null;
      return reply.header('cache-control', 'private, no-store').page(h(MovePage, { ctx: request.site, c: now, times: free, notice }), 409);
    });
  };
}

/** `date|start|end` as the strip's buttons send it (bounded), or null when it is not that shape. */
function slotOf(raw: unknown): NewSlot | null {
  if (typeof raw !== 'string') return null;
  const [date = '', start_time = '', end_time = ''] = raw.slice(0, 40).split('|', 3);
  return date && start_time && end_time ? { date, start_time, end_time } : null;
}

const weekOf = (date: string) => ({ week: date, day: date });
const dayOf = (id: string, date: string) => `/consultations/${id}/move?week=${date}&day=${date}`;
