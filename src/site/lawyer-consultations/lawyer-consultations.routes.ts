/**
 * /lawyer/consultations (docs/lawyers.md#her-bookings): her consultations, one consultation
 * (cancel with a reason; held or no-show once it started), her bookings feed's address, and the
 * feed itself at /lawyer/consultations/feed/TOKEN.ics — read without a session by calendar apps.
 * Every page and form first finds the signed-in user's own lawyer record; consultation ids are
 * looked up within it (another lawyer's id is the 404 page). The rules are the domain services'.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { LawyerCancellationService } from '../../domain/booking/lawyer-cancellation.service.ts';
import type { LawyerConsultationsService } from '../../domain/booking/lawyer-consultations.service.ts';
import { DomainError } from '../../domain/errors.ts';
import type { PortalService } from '../../domain/lawyers/portal.service.ts';
import { requireLawyer } from '../lawyer/guard.ts';
import { LawyerConsultationPage, LawyerConsultationsPage } from './lawyer-consultations.page.tsx';

type Body = Record<string, unknown>;
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const hidden = { schema: { hide: true } };

export function lawyerConsultationsArea({ consultations, cancellation, portal }: { consultations: LawyerConsultationsService; cancellation: LawyerCancellationService; portal: Pick<PortalService, 'forUser'> }) {
  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { done?: string } }>('/lawyer/consultations', hidden, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const [{ upcoming, past }, feed, privateDetails] = await Promise.all([consultations.list(lawyer.id), consultations.feed(lawyer.id), consultations.feedPrivateDetails(lawyer.id)]);
      return reply
        .header('cache-control', 'private, no-store')
        .page(h(LawyerConsultationsPage, { ctx: request.site, lawyer, upcoming, past, feed: { state: feed, privateDetails }, done: text(request.query.done, 20) || undefined }));
    });

    // Her feed's phone numbers, emails and notes: on only when the checkbox is sent checked (an unchecked box sends nothing).
    site.post<{ Body: Body }>('/lawyer/consultations/feed/private', hidden, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const on = (request.body ?? {}).private_details === 'on';
      await consultations.setFeedPrivateDetails(lawyer.id, on);
      return reply.code(303).redirect(`/lawyer/consultations?done=${on ? 'privateOn' : 'privateOff'}#feed-private-title`);
    });

    // A new feed address: shown in the answer to this POST only (it is not stored), never in a URL.
    site.post('/lawyer/consultations/feed', hidden, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const { token } = await consultations.rotateFeed(lawyer.id);
      const [{ upcoming, past }, feed, privateDetails] = await Promise.all([consultations.list(lawyer.id), consultations.feed(lawyer.id), consultations.feedPrivateDetails(lawyer.id)]);
      return reply
        .header('cache-control', 'private, no-store')
        .page(h(LawyerConsultationsPage, { ctx: request.site, lawyer, upcoming, past, feed: { state: feed, privateDetails, fresh: consultations.feedUrls(token) }, done: 'feed' }));
    });

    // The feed: no session, no cookies needed; the token is the capability. Unknown or rotated → 404.
    site.get<{ Params: { file: string } }>('/lawyer/consultations/feed/:file', hidden, async (request, reply) => {
      const match = /^([A-Za-z0-9_-]{1,100})\.ics$/.exec(request.params.file);
      const ics = match ? await consultations.feedIcs(match[1]!) : null;
      if (ics === null) throw new DomainError('not_found', 'no such calendar');
      return reply
        .header('content-type', 'text/calendar; charset=utf-8')
        .header('content-disposition', 'inline; filename="consultas.ics"')
        // Personal data behind a secret address: never stored by shared caches, not indexed, not leaked as a referrer.
        .header('cache-control', 'private, no-store, max-age=0')
        .header('x-robots-tag', 'noindex, nofollow')
        .header('referrer-policy', 'no-referrer')
        .send(ics);
    });

    site.get<{ Params: { id: string }; Querystring: { done?: string } }>('/lawyer/consultations/:id', hidden, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const consultation = await consultations.get(lawyer.id, request.params.id);
      return reply.header('cache-control', 'private, no-store').page(h(LawyerConsultationPage, { ctx: request.site, lawyer, consultation, done: text(request.query.done, 20) || undefined }));
    });

    site.post<{ Params: { id: string }; Body: Body }>('/lawyer/consultations/:id/cancel', hidden, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      // Hers, or the 404 page before anything else is read.
      const consultation = await consultations.get(lawyer.id, request.params.id);
      const url = `/lawyer/consultations/${consultation.id}`;
      const reason = text((request.body ?? {}).reason, 2000);
      const t = request.site.t.lawyerBookings;
      try {
        const result = await cancellation.cancel(lawyer.id, consultation.id, reason);
        if (result.outcome === 'not_confirmed') {
          const now = await consultations.get(lawyer.id, consultation.id);
          return reply.page(h(LawyerConsultationPage, { ctx: request.site, lawyer, consultation: now, problem: t.notCancellable(t.statuses[now.status] ?? now.status) }), 409);
        }
        const done = result.refund === 'pending' ? 'cancelledPending' : 'cancelled';
        return reply.code(303).redirect(`${url}?done=${done}`);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        if (err.code === 'invalid_request') {
          const error = reason.trim().length > 1000 ? t.errReasonLong : t.errReason;
          return reply.page(h(LawyerConsultationPage, { ctx: request.site, lawyer, consultation, form: { reason, error } }), 422);
        }
        if (err.code === 'conflict') return reply.page(h(LawyerConsultationPage, { ctx: request.site, lawyer, consultation, problem: t.started }), 409);
        throw err;
      }
    });

    site.post<{ Params: { id: string }; Body: Body }>('/lawyer/consultations/:id/outcome', hidden, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const consultation = await consultations.get(lawyer.id, request.params.id);
      const outcome = text((request.body ?? {}).outcome, 10);
      // Only the form's own values: anything else is a bad request (the 400 page), not a guess.
      const { changed } = await consultations.markOutcome(lawyer.id, consultation.id, outcome);
      return reply.code(303).redirect(`/lawyer/consultations/${consultation.id}?done=${changed ? outcome : 'unchanged'}`);
    });
  };
}
