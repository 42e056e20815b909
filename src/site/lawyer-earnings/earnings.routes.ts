/**
 * /lawyer/earnings (docs/lawyers.md#earnings-and-payouts): her earnings by month and per month,
 * the CSV, connecting Stripe (Connect Express) and firms' invitations. Every route works on the
 * signed-in account's own lawyer record (requireLawyer): nothing here takes a lawyer id from the
 * request. The rules are EarningsService's, PayoutsService's and FirmLawyersService's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { FirmLawyersService } from '../../domain/access/firm-lawyers.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { earningsCsv, isMonth, monthTotals, type EarningsService } from '../../domain/payments/earnings.service.ts';
import type { PayoutsService } from '../../domain/payments/payouts.service.ts';
import { EarningsMonthPage, EarningsPage } from './earnings.page.tsx';
import type { PortalService } from '../../domain/lawyers/portal.service.ts';
import { requireLawyer } from '../lawyer/guard.ts';

export interface LawyerEarningsDeps {
  earnings: EarningsService;
  payouts: PayoutsService;
  firmLawyers: FirmLawyersService;
  portal: Pick<PortalService, 'forUser'>;
  siteUrl: string;
}

const CONNECT_NOTICES = ['returned', 'expired', 'unavailable'] as const;
const FIRM_ANSWERS = ['accept', 'decline', 'leave'] as const;

export function lawyerEarningsArea({ earnings, payouts, firmLawyers, portal, siteUrl }: LawyerEarningsDeps) {
  const origin = new URL(siteUrl).origin;
  const query = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;

  return async (site: FastifyInstance) => {
    site.get('/lawyer/earnings', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const q = query(request);
      const month = typeof q.month === 'string' ? q.month : undefined;
      if (month !== undefined && isMonth(month)) {
        const lines = await earnings.lines([lawyer], month);
        return reply.header('cache-control', 'private, no-store').page(h(EarningsMonthPage, { ctx: request.site, month, lines, totals: monthTotals(lines).total }));
      }
      const [summary, payout, firms] = await Promise.all([earnings.summary([lawyer]), payouts.status(lawyer.id), firmLawyers.firmsOf(lawyer.id)]);
      const notice = CONNECT_NOTICES.find((n) => n === q.connect) ?? null;
      const t = request.site.t.firmLawyers;
      // Fixed sentences only: nothing typed into the address is shown back.
      const firmFlash = q.answered === 'accept' ? t.accepted : q.answered === 'decline' ? t.declined : q.answered === 'leave' ? t.left : null;
      return reply
        .header('cache-control', 'private, no-store')
        .page(h(EarningsPage, { ctx: request.site, lawyerName: lawyer.name, earnings: summary, payout, connectNotice: notice, firms, firmFlash, monthError: month !== undefined }), month !== undefined ? 400 : 200);
    });

    site.get('/lawyer/earnings.csv', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const q = query(request);
      const month = typeof q.month === 'string' && isMonth(q.month) ? q.month : undefined;
      const lines = await earnings.lines([lawyer], month);
      const t = request.site.t.earnings;
      const csv = earningsCsv(
        lines,
        { month: t.months, date: t.date, time: t.time, consultation: t.consultations, status: t.status, paid: t.paid, refunded: t.refunded, platformShare: t.platformShare, net: t.net, account: t.account },
        (status) => t.statuses[status] ?? status,
        (connected) => (connected ? t.toConnected : t.toPlatform),
      );
      return reply
        .code(200)
        .header('content-type', 'text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="earnings-${month ?? 'all'}.csv"`)
        .header('cache-control', 'private, no-store')
        .send(csv);
    });

    // Connect (Stripe Express): a fresh onboarding link each time; Stripe sends her back to /return.
    site.post('/lawyer/earnings/connect', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      try {
        const url = await payouts.onboardingUrl(
          { id: lawyer.id, email: request.site.user?.email ?? lawyer.contact_email },
          { refreshUrl: `${origin}/lawyer/earnings?connect=expired`, returnUrl: `${origin}/lawyer/earnings/connect/return` },
        );
        return reply.code(303).redirect(url);
      } catch (err) {
        if (!(err instanceof DomainError) || (err.code !== 'service_unavailable' && err.code !== 'conflict')) throw err;
        return reply.code(303).redirect(err.code === 'conflict' ? '/lawyer/earnings' : '/lawyer/earnings?connect=unavailable');
      }
    });

    site.get('/lawyer/earnings/connect/return', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      try {
        await payouts.refresh(lawyer.id);
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'service_unavailable') throw err;
        return reply.code(303).redirect('/lawyer/earnings?connect=unavailable');
      }
      return reply.code(303).redirect('/lawyer/earnings?connect=returned#payouts');
    });

    // Firms' invitations: she answers for her own record only; the firm is named, her id never.
    site.post('/lawyer/earnings/firms/:slug/:answer', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const { slug, answer } = request.params as { slug: string; answer: string };
      const verb = FIRM_ANSWERS.find((a) => a === answer);
      if (!verb) throw new DomainError('not_found', 'no such page');
      await firmLawyers.answer(lawyer.id, slug, verb);
      return reply.code(303).redirect(`/lawyer/earnings?answered=${verb}#firms`);
    });
  };
}
