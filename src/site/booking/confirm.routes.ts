/**
 * `confirmation_url` (/confirm/{token}), the payment step (/confirm/{token}/pay) and the test-mode
 * page. Thin: the PaymentsService decides what can be paid (the 90-second rule, one attempt at a
 * time, the race with expiry); these routes turn its answers into pages and redirects.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { BookingService } from '../../domain/booking/booking.service.ts';
import type { ConsultationsService } from '../../domain/booking/consultations.service.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { DomainError } from '../../domain/errors.ts';
import type { PaymentsService } from '../../domain/payments/payments.service.ts';
import type { Clock } from '../../clock.ts';
import type { PurchaseService } from '../../domain/booking/purchase.service.ts';
import { needsFormatChoice, offeredFormats } from '../../domain/booking/purchase.ts';
import { ChoicesForm, ChosenFacts, PayChoices, PolicyStatement, WhatNext, type ChoiceErrors, type ChoiceValues } from './purchase.tsx';
import type { SiteContext } from '../context.ts';
import type { ConsultationFormat } from '../../db/schema.ts';
import { ConfirmPage, OtherAccountPage, PayPage, SignInToSeePage, type CardError, type ConfirmState } from './confirm.page.tsx';
import { CONFIRM_TOKEN, loadHold } from './hold.ts';
import { holdNoticeOf } from './hold-limit.page.tsx';
import { holdsCookie } from './holds-cookie.ts';
import type { PersonLanguagesService } from '../../domain/people/person-languages.service.ts';
import { languageMatch, offerLanguages, type Chooser, type PersonErrors } from '../../domain/booking/purchase.service.ts';
import { AckDone, MismatchNotice, PersonFields } from '../lawyers/language-match.tsx';


export interface ConfirmAreaDeps {
  payments: PaymentsService;
  directory: DirectoryService;
  consultations: ConsultationsService;
  booking: BookingService;
  /** The hold page's choices and the visitor's zone on the intent (docs/booking-intents.md#the-hold-pages-choices). */
  purchase: PurchaseService;
  clock: Clock;
  siteUrl: string;
  /** The person's languages, compared with the lawyer's before paying (DESIGN.md §13). */
  people: PersonLanguagesService;
}

export function confirmArea({ payments, directory, consultations, booking, purchase, clock, siteUrl, people }: ConfirmAreaDeps) {
  const load = (token: string, ctx: SiteContext) => loadHold({ payments, directory }, token, ctx.user?.id ?? null);
  const holds = holdsCookie(siteUrl, booking);
  /** The signed-in person as the hold page needs them: name and languages (Account, else the site language). */
  const chooser = async (ctx: SiteContext): Promise<Chooser | null> =>
    ctx.user ? { userId: ctx.user.id, name: ctx.user.name, languages: await people.of(ctx.user.id, ctx.locale) } : null;
  /** The mismatch notice for this hold's lawyer, or null when they share a language (or nobody is signed in). */
  const mismatchOf = async (ctx: SiteContext, person: Chooser | null, offer: { languages_json?: string } | undefined, citySlug: string) => {
    if (!person || !offer) return { mismatch: false, notice: null };
    const lawyerLanguages = offerLanguages(offer);
    const { mismatch } = languageMatch(person.languages, lawyerLanguages);
    return { mismatch, notice: mismatch ? h(MismatchNotice, { ctx, person: person.languages, lawyerLanguages, citySlug }) : null };
  };

  /**
   * The hold page: facts, then (signed in, payable) the choices form, or after paying what
   * happens next. `form` carries a refused submission's values and errors back (status 400).
   */
  const holdPage = async (
    request: FastifyRequest,
    token: string,
    ctx: SiteContext,
    reply: FastifyReply,
    flash: 'voided' | null,
    form?: { values: ChoiceValues & { person_name?: string; language_ack?: string }; errors: ChoiceErrors & PersonErrors },
  ) => {
    const loaded = await load(token, ctx);
    if ('private' in loaded) {
      // Signed out: sign in here and come back. Another account: a page that says so, nothing more.
      const returnTo = `/confirm/${token}`;
      return loaded.private.signedIn ? reply.page(h(OtherAccountPage, { ctx, returnTo }), 403) : reply.page(h(SignInToSeePage, { ctx, returnTo }));
    }
    const { view, hold } = loaded;
    const state = view.state as ConfirmState;
    const nowMs = clock.now().getTime();
    const startMs = Date.parse(view.startsAt);
    if (state === 'payable') await purchase.rememberZone(view.intent.id, ctx.zone ?? null);
    const consultation = state === 'confirmed' && ctx.user ? await consultations.findForIntent(ctx.user.id, view.intent.id) : null;
    const offer = await purchase.offer(view.lawyer.id);
    const person = state === 'confirmed' ? null : await chooser(ctx);
    const { mismatch, notice } = await mismatchOf(ctx, person, offer, view.lawyer.city_slug);
    // Their name: asked here once when the account has none, else said (with where to change it).
    const knownName = view.intent.person_name || person?.name || null;
    const personFields = person
      ? h(PersonFields, { ctx, mismatch, askName: knownName === null, knownName, values: { person_name: form?.values.person_name, language_ack: form?.values.language_ack ?? view.intent.language_ack ?? undefined }, errors: form?.errors })
      : null;
    const choices =
      state === 'payable' && ctx.user && offer
        ? [notice, h(ChoicesForm, { ctx, hold, offer, intent: view.intent, ...(form ?? {}), person: personFields }), h(PolicyStatement, { ctx, startMs, nowMs, lawyerZone: hold.lawyer.timezone })]
        : null;
    // Before choosing: the length (the policy comes with the form; signed out, with the facts).
    const before = offer && state !== 'confirmed' ? [h(ChosenFacts, { ctx, minutes: offer.consultation_minutes, format: null, phoneE164: null, note: null }), ...(choices ? [] : state === 'payable' ? [h(PolicyStatement, { ctx, startMs, nowMs, lawyerZone: hold.lawyer.timezone })] : [])] : null;
    const after = consultation ? h(WhatNext, { ctx, c: consultation }) : null;
    const mine = booking.isSiteHoldOf(view.intent, holds.holder(request));
    const holdNotice = holdNoticeOf(request.query as Record<string, unknown>);
    return reply.page(h(ConfirmPage, { ctx, hold, state, consultationId: consultation?.id ?? null, flash, choices, before, after, mine, holdNotice }), form ? 400 : 200);
  };

  /** What the payment page shows of the choices; `choose` when paying must wait for them. */
  const chosenOf = async (view: { intent: { lawyer_id: string; format?: ConsultationFormat | null; note?: string | null; phone_e164?: string | null }; startsAt: string }) => {
    const offer = await purchase.offer(view.intent.lawyer_id);
    if (!offer) return undefined;
    const formats = offeredFormats(offer);
    if (needsFormatChoice(formats, view.intent.format)) return 'choose' as const;
    return { offer, intent: view.intent, startMs: Date.parse(view.startsAt), nowMs: clock.now().getTime() };
  };
  const chosenView = (ctx: SiteContext, token: string, timezone: string, c: Awaited<ReturnType<typeof chosenOf>>) =>
    c && c !== 'choose' ? h(PayChoices, { ctx, token, offer: c.offer, intent: c.intent, startMs: c.startMs, nowMs: c.nowMs, lawyerZone: timezone }) : undefined;

  /** The payment page says the mismatch again, with the person's answer. */
  const payLanguage = async (ctx: SiteContext, person: Chooser, view: { lawyer: { id: string; city_slug: string }; intent: { language_ack?: 'interpreter' | 'spanish' | null } }) => {
    const { notice } = await mismatchOf(ctx, person, await purchase.offer(view.lawyer.id), view.lawyer.city_slug);
    if (!notice) return null;
    return [notice, view.intent.language_ack ? h(AckDone, { ctx, ack: view.intent.language_ack }) : null];
  };

  // Capability links: never indexed, never sent to another origin in a Referer. (Not no-referrer:
  // with it browsers send `Origin: null` on our own forms, which the CSRF origin check refuses.)
  const capability = (reply: FastifyReply) => reply.header('x-robots-tag', 'noindex').header('referrer-policy', 'same-origin');

  return async (site: FastifyInstance) => {
    site.get<{ Params: { token: string }; Querystring: { paid?: string; voided?: string; replaced?: string; taken?: string; paying?: string } }>('/confirm/:token', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      return holdPage(request, request.params.token, request.site, reply, request.query.voided !== undefined ? 'voided' : null);
    });

    // A language or zone switch from a refused form's page comes back here: the hold page.
    site.get<{ Params: { token: string } }>('/confirm/:token/choices', { schema: { hide: true } }, async (request, reply) => reply.code(303).redirect(`/confirm/${request.params.token}`));

    // The hold page's choices: stored on the pending intent by whoever may confirm it, then to payment.
    site.post<{ Params: { token: string }; Body: Record<string, unknown> }>('/confirm/:token/choices', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      const ctx = request.site;
      const token = request.params.token;
      if (!CONFIRM_TOKEN.test(token)) throw new DomainError('not_found', 'unknown confirmation link');
      if (!ctx.user) return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(`/confirm/${token}`)}`);
      const body = request.body ?? {};
      const text = (v: unknown, max: number) => (typeof v === 'string' ? v.slice(0, max) : undefined);
      const values = { format: text(body.format, 20), phone: text(body.phone, 40), note: text(body.note, 5000), person_name: text(body.person_name, 1000), language_ack: text(body.language_ack, 20) };
      const outcome = await purchase.choose(token, (await chooser(ctx))!, values);
      switch (outcome.kind) {
        case 'saved':
          return reply.code(303).redirect(`/confirm/${token}/pay`);
        case 'invalid':
          return holdPage(request, token, ctx, reply, null, { values, errors: outcome.errors });
        case 'not_found':
          throw new DomainError('not_found', 'unknown confirmation link');
        default:
          // Confirmed or expired meanwhile: the status page says which.
          return reply.code(303).redirect(`/confirm/${token}`);
      }
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
      const chosen = await chosenOf(loaded.view);
      if (chosen === 'choose') return reply.code(303).redirect(`/confirm/${token}#choices-heading`);
      // The language answer (and a name) come before paying, whatever the formats.
      const person = (await chooser(ctx))!;
      if ((await purchase.personMissing(loaded.view.intent, person)) !== null) return reply.code(303).redirect(`/confirm/${token}#choices-heading`);
      await purchase.rememberZone(loaded.view.intent.id, ctx.zone ?? null);
      return reply.page(h(PayPage, { ctx, hold: loaded.hold, provider: loaded.view.provider, chosen: [await payLanguage(ctx, person, loaded.view), chosenView(ctx, token, loaded.hold.lawyer.timezone, chosen)] }));
    });

    site.post<{ Params: { token: string }; Body: Record<string, unknown> }>('/confirm/:token/pay', { schema: { hide: true } }, async (request, reply) => {
      capability(reply);
      const ctx = request.site;
      const token = request.params.token;
      if (!ctx.user) return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(`/confirm/${token}/pay`)}`);
      if (!CONFIRM_TOKEN.test(token)) throw new DomainError('not_found', 'unknown confirmation link');
      // Several formats and none chosen: back to the hold page's choices before any payment starts.
      const gate = await load(token, ctx);
      if (!('private' in gate) && gate.view.state === 'payable' && (await chosenOf(gate.view)) === 'choose') return reply.code(303).redirect(`/confirm/${token}#choices-heading`);
      if (!('private' in gate) && gate.view.state === 'payable') {
        // A language mismatch not answered (or no name): back to the hold page, nothing charged.
        const person = (await chooser(ctx))!;
        if ((await purchase.personMissing(gate.view.intent, person)) !== null) return reply.code(303).redirect(`/confirm/${token}#choices-heading`);
        await purchase.rememberPerson(gate.view.intent, person);
      }
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
          const chosen = await chosenOf(loaded.view);
          const language = await payLanguage(ctx, (await chooser(ctx))!, loaded.view);
          return reply.page(h(PayPage, { ctx, hold, provider: 'demo', error: outcome.code as CardError, values: { number: text(body.number), expiry: text(body.expiry), name: text(body.name) }, chosen: [language, chosenView(ctx, token, hold.lawyer.timezone, chosen)] }), 422);
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
