/**
 * `confirmation_url` (/confirm/{token}), the payment step (/confirm/{token}/pay) and the test-mode
 * page. Thin: the PaymentsService decides what can be paid (the 90-second rule, one attempt at a
 * time, the race with expiry); these routes turn its answers into pages and redirects.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { h } from 'preact';
import type { BookingService } from '../../domain/booking/booking.service.ts';
import type { ConsultationsService } from '../../domain/booking/consultations.service.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { DomainError } from '../../domain/errors.ts';
import type { PaymentsService } from '../../domain/payments/payments.service.ts';
import type { SiteContext } from '../context.ts';
import { ConfirmPage, OtherAccountPage, PayPage, SignInToSeePage, type CardError, type ConfirmState } from './confirm.page.tsx';
import { CONFIRM_TOKEN, loadHold } from './hold.ts';
import { holdNoticeOf } from './hold-limit.page.tsx';
import { holdsCookie } from './holds-cookie.ts';


export interface ConfirmAreaDeps {
  payments: PaymentsService;
  directory: DirectoryService;
  consultations: ConsultationsService;
  booking: BookingService;
  siteUrl: string;
}

export function confirmArea({ payments, directory, consultations, booking, siteUrl }: ConfirmAreaDeps) {
  const load = (token: string, ctx: SiteContext) => loadHold({ payments, directory }, token, ctx.user?.id ?? null);
  const holds = holdsCookie(siteUrl, booking);

  // Capability links: never indexed, never sent to another origin in a Referer. (Not no-referrer:
  // with it browsers send `Origin: null` on our own forms, which the CSRF origin check refuses.)
  const capability = (reply: FastifyReply) => reply.header('x-robots-tag', 'noindex').header('referrer-policy', 'same-origin');

  return async (site: FastifyInstance) => {
    site.get<{ Params: { token: string }; Querystring: { paid?: string; voided?: string; replaced?: string; taken?: string; paying?: string } }>('/confirm/:token', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      const ctx = request.site;
      const loaded = await load(request.params.token, ctx);
      if ('private' in loaded) {
        // Signed out: sign in here and come back. Another account: a page that says so, nothing more.
        const returnTo = `/confirm/${request.params.token}`;
        return loaded.private.signedIn ? reply.page(h(OtherAccountPage, { ctx, returnTo }), 403) : reply.page(h(SignInToSeePage, { ctx, returnTo }));
      }
      const { view, hold } = loaded;
      const state = view.state as ConfirmState;
      const consultation = state === 'confirmed' && ctx.user ? await consultations.findForIntent(ctx.user.id, view.intent.id) : null;
      const flash = request.query.voided !== undefined ? 'voided' : null;
      const mine = booking.isSiteHoldOf(view.intent, holds.holder(request));
      return reply.page(h(ConfirmPage, { ctx, hold, state, consultationId: consultation?.id ?? null, flash, mine, holdNotice: holdNoticeOf(request.query) }));
    });

    /**
     * "Choose another time": the person lets their own hold go (this browser made it, or they were
     * signed in) and is back on the lawyer's free times for that day. Anyone else's hold is the
     * 404 page. The token stays in the holds cookie: the next hold with her replaces, not counts.
     */
    site.post<{ Params: { token: string } }>('/confirm/:token/release', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      const token = request.params.token;
      if (!CONFIRM_TOKEN.test(token)) throw new DomainError('not_found', 'unknown confirmation link');
      const outcome = await booking.releaseOnSite(token, holds.holder(request));
      if (outcome.kind === 'paying') return reply.code(303).redirect(`/confirm/${token}?paying=1`);
      if (outcome.kind === 'not_pending') return reply.code(303).redirect(`/confirm/${token}`);
      return reply.code(303).redirect(`/lawyers/${outcome.lawyerId}/book?week=${outcome.date}&day=${outcome.date}`);
    });

    site.get<{ Params: { token: string }; Querystring: { error?: string } }>('/confirm/:token/pay', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      const ctx = request.site;
      const token = request.params.token;
      if (!ctx.user) return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(`/confirm/${token}/pay`)}`);
      const loaded = await load(token, ctx);
      // Only a hold that can still be paid shows the card form; anything else is the status page.
      if ('private' in loaded || loaded.view.state !== 'payable') return reply.code(303).redirect(`/confirm/${token}`);
      return reply.page(h(PayPage, { ctx, hold: loaded.hold, provider: loaded.view.provider }));
    });

    site.post<{ Params: { token: string }; Body: Record<string, unknown> }>('/confirm/:token/pay', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      const ctx = request.site;
      const token = request.params.token;
      if (!ctx.user) return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(`/confirm/${token}/pay`)}`);
      if (!CONFIRM_TOKEN.test(token)) throw new DomainError('not_found', 'unknown confirmation link');
      const body = request.body ?? {};
      const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 100) : '');
      const outcome =
        payments.provider === 'stripe'
          ? await payments.startHostedCheckout(token, { id: ctx.user.id, email: ctx.user.email }, { successUrl: `${siteUrl}/confirm/${token}?paid=1`, cancelUrl: `${siteUrl}/confirm/${token}/pay` }, ctx.zone)
          : await payments.payWithCard(token, ctx.user.id, { number: text(body.number), expiry: text(body.expiry), cvc: text(body.cvc), name: text(body.name) }, ctx.zone);
      switch (outcome.kind) {
        case 'redirect':
          // Stripe's hosted Checkout (its origin is in the CSP's form-action).
          return reply.code(303).redirect(outcome.url);
        case 'declined': {
          const loaded = await load(token, ctx);
          if ('private' in loaded) return reply.code(303).redirect(`/confirm/${token}`);
          const { hold } = loaded;
          return reply.page(h(PayPage, { ctx, hold, provider: 'demo', error: outcome.code as CardError, values: { number: text(body.number), expiry: text(body.expiry), name: text(body.name) } }), 422);
        }
        case 'expired_voided':
          return reply.code(303).redirect(`/confirm/${token}?voided=1`);
        case 'not_found':
          throw new DomainError('not_found', 'unknown confirmation link');
        default:
          // confirmed, already_confirmed, too_late, expired, in_progress: the status page says which.
          return reply.code(303).redirect(`/confirm/${token}`);
      }
    });
  };
}
