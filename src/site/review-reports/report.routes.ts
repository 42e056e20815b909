/**
 * GET/POST /reviews/:id/report and GET /reviews/:id/report/sent: anyone, signed in or not,
 * reports a visible review (a hidden or unknown one is the ordinary 404 page). Thin: the rules
 * (reasons, lengths, the reporter's hash, 10 reports an hour) are ReviewModerationService's.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { DomainError } from '../../domain/errors.ts';
import { checkReport, MODERATION_LIMITS, type ReviewModerationService } from '../../domain/reviews/review-moderation.service.ts';
import type { SiteContext } from '../context.ts';
import { ReportPage, ReportSentPage, type ReportForm } from './report.page.tsx';

type Body = Record<string, unknown>;
const str = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');

/** The form's messages for the field errors the checks name. */
function formErrors(ctx: SiteContext, pointers: string[]): ReportForm['errors'] {
  const t = ctx.t.reviewReports;
  const errors: ReportForm['errors'] = {};
  for (const p of pointers) {
    if (p === '/reason') errors.reason = t.errReason;
    else if (p === '/details') errors.details = t.errDetails(MODERATION_LIMITS.detailsMax);
  }
  return errors;
}

export function reviewReportsArea({ moderation }: { moderation: ReviewModerationService }) {
  return async (site: FastifyInstance) => {
    site.get<{ Params: { id: string } }>('/reviews/:id/report', { schema: { hide: true } }, async (request, reply) => {
      const review = await moderation.reportable(request.params.id);
      return reply.header('cache-control', 'private, no-store').page(h(ReportPage, { ctx: request.site, review, form: { reason: '', details: '', errors: {} } }));
    });

    site.post<{ Params: { id: string }; Body: Body }>('/reviews/:id/report', { schema: { hide: true } }, async (request, reply) => {
      const ctx = request.site;
      const review = await moderation.reportable(request.params.id);
      const body = request.body ?? {};
      const form = { reason: str(body.reason, 40), details: str(body.details, MODERATION_LIMITS.detailsMax + 200) };
      // The same checks first: a mistyped form costs no allowance.
      const checked = checkReport(form);
      if (checked.errors.length > 0) return reply.page(h(ReportPage, { ctx, review, form: { ...form, errors: formErrors(ctx, checked.errors.map((e) => e.pointer)) } }), 400);
      try {
        await moderation.report({ reviewId: review.id, ...form, userId: ctx.user?.id ?? null, ip: request.ip });
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invalid_request') {
          return reply.page(h(ReportPage, { ctx, review, form: { ...form, errors: formErrors(ctx, (err.errors ?? []).map((e) => e.pointer)) } }), 400);
        }
        throw err;
      }
      return reply.code(303).redirect(`/reviews/${encodeURIComponent(review.id)}/report/sent`);
    });

    // Says what happens next; names nothing about the review, so it needs no look-up.
    site.get('/reviews/:id/report/sent', { schema: { hide: true } }, async (request, reply) => reply.header('cache-control', 'private, no-store').page(h(ReportSentPage, { ctx: request.site })));
  };
}
