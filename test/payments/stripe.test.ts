/**
 * Paying with Stripe, on every database: the real SDK and the real webhook signature
 * verification, against the local stand-in (test/support/stripe-stand-in.ts) because Stripe's
 * own mock server cannot be installed here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Stripe from 'stripe';
import { DomainError } from '../../src/domain/errors.ts';
import { ATTEMPT_LEASE_MS } from '../../src/domain/payments/payments.service.ts';
import { idempotencyKey } from '../../src/payments/provider.ts';
import { CHECKOUT_LIFETIME_SECONDS } from '../../src/payments/stripe.provider.ts';
import { SITE, type TestContext } from '../support/app.ts';
import { createUser, T0 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import type { SignedEvent, StripeStandIn } from '../support/stripe-stand-in.ts';
import { GOOD_CARD, STRIPE_SECRET_KEY, attemptsOf, consultationsOf, hold, intentStatus, stripeContext, type Hold } from './support.ts';

const DAY = '2026-11-24';
const URLS = { successUrl: `${SITE}/confirm/t?paid=1`, cancelUrl: `${SITE}/confirm/t/pay` };

const isInvalidRequest = (err: unknown) => err instanceof DomainError && err.code === 'invalid_request';

for (const target of databaseTargets()) {
  describe(`payments: Stripe hosted checkout against the stand-in (${target.name})`, () => {
    let ctx: TestContext;
    let standIn: StripeStandIn;
    let lawyer: string;
    let maria: { id: string; email: string };
    let jon: { id: string; email: string };
    let slot = 8;
    const nextHold = async (): Promise<Hold> => {
      ctx.clock.set(T0);
      return hold(ctx, lawyer, DAY, String(++slot).padStart(2, '0'));
    };
    /** Starts Maria's checkout for a fresh hold; returns the hold, the attempt id and the session id. */
    const started = async () => {
      const h = await nextHold();
      const outcome = await ctx.app.services.payments.startHostedCheckout(h.token, maria, URLS);
      assert.equal(outcome.kind, 'redirect');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      return { h, attemptId: attempt!.id, sessionId: attempt!.checkout_ref! };
    };
    /** Delivers an event with the signature it carries. */
    const raw = (event: SignedEvent) => ctx.app.services.payments.handleStripeWebhook(Buffer.from(event.body), event.header);
    /** Delivers an event now (signed at the moment of delivery, as Stripe does). */
    const deliver = (event: SignedEvent) => ctx.app.services.payments.handleStripeWebhook(Buffer.from(event.body), standIn.resign(event).header);
    const completed = (sessionId: string) => {
      const paid = standIn.completeSession(sessionId, GOOD_CARD.number);
      assert.ok(paid.ok);
      return paid;
    };

    before(async () => {
      ({ ctx, standIn } = await stripeContext(target));
      // Mondays to Sundays, so later days stay bookable whatever the test does to the clock.
      [lawyer] = (await insertLawyers(ctx.database, [
        lawyerRecord({ consultation_fee_cents: 7450, weekly_hours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const })) }),
      ])) as [string];
      maria = { id: await createUser(ctx, 'maria@example.com'), email: 'maria@example.com' };
      jon = { id: await createUser(ctx, 'jon@example.com'), email: 'jon@example.com' };
    });
    after(async () => {
      await ctx.close();
      await standIn.close();
    });

    it('opens a hosted checkout: card only, manual capture, exactly the fee in EUR, keyed by the attempt', async () => {
      const h = await nextHold();
      const payments = ctx.app.services.payments;
      assert.equal(payments.provider, 'stripe');
      const creates = standIn.callsTo('POST', /^\/v1\/checkout\/sessions$/).length;
      const outcome = await payments.startHostedCheckout(h.token, maria, URLS);
      assert.equal(outcome.kind, 'redirect');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      assert.equal(attempt!.status, 'open');
      assert.equal(attempt!.provider, 'stripe');
      assert.equal(attempt!.amount_cents, 7450);
      const session = standIn.sessions.get(attempt!.checkout_ref!)!;
      assert.ok(outcome.kind === 'redirect' && outcome.url === session.url && attempt!.checkout_url === session.url);

      const calls = standIn.callsTo('POST', /^\/v1\/checkout\/sessions$/);
      assert.equal(calls.length, creates + 1);
      const call = calls.at(-1)!;
      assert.equal(call.idempotencyKey, idempotencyKey(attempt!.id, 'checkout'));
      assert.deepEqual(call.params, {
        mode: 'payment',
        allowed_payment_method_types: ['card'],
        line_items: [{ quantity: '1', price_data: { currency: 'eur', unit_amount: '7450', product_data: { name: `Consultation with Lucía Fernández Ruiz, ${DAY} ${String(slot).padStart(2, '0')}:00 (Europe/Madrid)` } } }],
        payment_intent_data: { capture_method: 'manual', metadata: { payment_attempt_id: attempt!.id, booking_intent_id: h.id } },
        metadata: { payment_attempt_id: attempt!.id, booking_intent_id: h.id },
        client_reference_id: attempt!.id,
        customer_email: 'maria@example.com',
        success_url: URLS.successUrl,
        cancel_url: URLS.cancelUrl,
        expires_at: String(Math.floor(T0 / 1000) + CHECKOUT_LIFETIME_SECONDS),
      });
      assert.equal(session.amount_total, 7450);
      assert.equal(session.currency, 'eur');

      // Back from the checkout page: the same person returns to the same checkout; others wait.
      assert.deepEqual(await payments.startHostedCheckout(h.token, maria, URLS), outcome);
      assert.deepEqual(await payments.startHostedCheckout(h.token, jon, URLS), { kind: 'in_progress' });
      assert.equal(standIn.callsTo('POST', /^\/v1\/checkout\/sessions$/).length, creates + 1);
      assert.equal((await payments.checkout(h.token, jon.id)).state, 'in_progress');
      await assert.rejects(payments.payWithCard(h.token, maria.id, GOOD_CARD), /needs a card provider/);
      // Left open: the sweep closes it once the hold lapses (tested below); close it now.
      ctx.clock.set(h.expiresAtMs);
      assert.equal(await payments.sweep(), 1);
    });

    it('confirms and captures once on a signed completion; a redelivered event is a duplicate', async () => {
      const { h, attemptId, sessionId } = await started();
      const paid = completed(sessionId);
      assert.equal(standIn.sessions.get(sessionId)!.payment_status, 'unpaid', 'manual capture: nothing paid yet');
      assert.deepEqual(await deliver(paid.event), { status: 'applied' });

      const intent = await intentStatus(ctx.database, h.id);
      assert.equal(intent.status, 'confirmed');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      assert.equal(attempt!.status, 'captured');
      assert.equal(attempt!.payment_ref, paid.paymentIntent.id);
      assert.equal(standIn.paymentIntents.get(paid.paymentIntent.id)!.status, 'succeeded');
      const captures = standIn.callsTo('POST', new RegExp(`^/v1/payment_intents/${paid.paymentIntent.id}/capture$`));
      assert.deepEqual(captures.map((c) => [c.status, c.idempotencyKey]), [[200, idempotencyKey(attemptId, 'capture')]]);
      const consultation = await ctx.database.db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      assert.equal(consultation.user_id, maria.id);

      // Stripe delivers at least once: the same event again, as a string this time.
      assert.deepEqual(await ctx.app.services.payments.handleStripeWebhook(paid.event.body, paid.event.header), { status: 'duplicate' });
      assert.equal(standIn.callsTo('POST', /\/capture$/).filter((c) => c.path.includes(paid.paymentIntent.id)).length, 1);
      assert.equal(await consultationsOf(ctx.database, h.id), 1);
      const events = await ctx.database.db.selectFrom('payment_events').selectAll().where('event_id', '=', paid.event.id).execute();
      assert.deepEqual(events.map((e) => [e.provider, e.type]), [['stripe', 'checkout.session.completed']]);
      assert.equal((await ctx.app.services.payments.checkout(h.token, maria.id)).state, 'confirmed');
    });

    it('leaves the intent pending when the card is declined on Stripe\'s page; a good card then pays', async () => {
      const { h, sessionId } = await started();
      assert.deepEqual(standIn.completeSession(sessionId, '4000 0000 0000 0002'), { ok: false, code: 'card_declined' });
      assert.deepEqual(standIn.completeSession(sessionId, '4000 0000 0000 9995'), { ok: false, code: 'insufficient_funds' });
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'pending');
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'open');
      assert.deepEqual(await deliver(completed(sessionId).event), { status: 'applied' });
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
    });

    it('refuses tampered, wrongly signed, stale and unsigned events, and applies none of them', async () => {
      const { h, sessionId } = await started();
      const paid = completed(sessionId);
      const nowS = Math.floor(ctx.clock.now().getTime() / 1000);
      const session = standIn.sessions.get(sessionId)!;
      const payments = ctx.app.services.payments;
      const forged = [
        // The body changed after signing.
        payments.handleStripeWebhook(paid.event.body.replace('"livemode": false', '"livemode": true'), paid.event.header),
        // Signed with another endpoint's secret.
        raw(standIn.signedEvent('checkout.session.completed', session, { secret: 'whsec_someone_else', id: paid.event.id })),
        // A genuine signature, replayed more than five minutes later.
        raw(standIn.signedEvent('checkout.session.completed', session, { timestamp: nowS - 301, id: paid.event.id })),
        // No signature at all, or one for another body.
        payments.handleStripeWebhook(paid.event.body, undefined),
        payments.handleStripeWebhook(paid.event.body, standIn.signedEvent('checkout.session.completed', { id: 'cs_other' }).header),
      ];
      for (const attempt of forged) await assert.rejects(attempt, isInvalidRequest);
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'pending');
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'open');
      assert.equal(standIn.callsTo('POST', /\/capture$/).filter((c) => c.path.includes(paid.paymentIntent.id)).length, 0);
      assert.equal((await ctx.database.db.selectFrom('payment_events').select('event_id').where('event_id', '=', paid.event.id).execute()).length, 0);
      // Within the tolerance, the genuine event, signed 299 s ago, is applied.
      ctx.clock.advance(299_000);
      assert.deepEqual(await raw(paid.event), { status: 'applied' });
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
    });

    it('cancels the authorization when the hold lapsed before the completion arrived: nothing charged', async () => {
      const { h, attemptId, sessionId } = await started();
      const paid = completed(sessionId);
      ctx.clock.set(h.expiresAtMs + 1000);
      assert.deepEqual(await deliver(paid.event), { status: 'applied' });
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'expired');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      assert.equal(attempt!.status, 'voided');
      assert.equal(attempt!.payment_ref, paid.paymentIntent.id);
      assert.equal(standIn.paymentIntents.get(paid.paymentIntent.id)!.status, 'canceled');
      const cancels = standIn.callsTo('POST', new RegExp(`^/v1/payment_intents/${paid.paymentIntent.id}/cancel$`));
      assert.deepEqual(cancels.map((c) => [c.status, c.idempotencyKey]), [[200, idempotencyKey(attemptId, 'void')]]);
      assert.equal(standIn.callsTo('POST', /\/capture$/).filter((c) => c.path.includes(paid.paymentIntent.id)).length, 0);
      assert.equal(await consultationsOf(ctx.database, h.id), 0);
      assert.deepEqual(await deliver(paid.event), { status: 'duplicate' });
      assert.equal(standIn.callsTo('POST', /\/cancel$/).filter((c) => c.path.includes(paid.paymentIntent.id)).length, 1);
    });

    it('expires the checkout of a lapsed hold from the sweep, once', async () => {
      const { h, attemptId, sessionId } = await started();
      const payments = ctx.app.services.payments;
      const expiring = () => standIn.callsTo('POST', new RegExp(`^/v1/checkout/sessions/${sessionId}/expire$`));
      ctx.clock.set(h.expiresAtMs - 1);
      assert.equal(await payments.sweep(), 0);
      assert.equal(expiring().length, 0);

      ctx.clock.set(h.expiresAtMs);
      assert.equal(await payments.sweep(), 1);
      assert.deepEqual(expiring().map((c) => [c.status, c.idempotencyKey]), [[200, idempotencyKey(attemptId, 'expire')]]);
      assert.equal(standIn.sessions.get(sessionId)!.status, 'expired');
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'expired');
      assert.equal(await payments.sweep(), 0);
      assert.equal(expiring().length, 1);
      assert.throws(() => standIn.completeSession(sessionId, GOOD_CARD.number), /cannot be paid/);
      // Stripe then reports the expiry; it changes nothing more, once.
      const expired = standIn.signedEvent('checkout.session.expired', standIn.sessions.get(sessionId)!);
      assert.deepEqual(await deliver(expired), { status: 'applied' });
      assert.deepEqual(await deliver(expired), { status: 'duplicate' });
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'expired');
    });

    it('voids from the sweep a checkout completed just before the hold lapsed whose event has not come; the late event changes nothing', async () => {
      const { h, sessionId } = await started();
      const paid = completed(sessionId);
      ctx.clock.set(h.expiresAtMs);
      assert.equal(await ctx.app.services.payments.sweep(), 1);
      assert.equal(standIn.callsTo('POST', new RegExp(`^/v1/checkout/sessions/${sessionId}/expire$`))[0]!.status, 400);
      const [attempt] = await attemptsOf(ctx.database, h.id);
      assert.equal(attempt!.status, 'voided');
      assert.equal(standIn.paymentIntents.get(paid.paymentIntent.id)!.status, 'canceled');
      assert.deepEqual(await deliver(paid.event), { status: 'ignored' });
      assert.deepEqual(await deliver(paid.event), { status: 'duplicate' });
      assert.equal(standIn.callsTo('POST', /\/cancel$/).filter((c) => c.path.includes(paid.paymentIntent.id)).length, 1);
      assert.equal(standIn.callsTo('POST', /\/capture$/).filter((c) => c.path.includes(paid.paymentIntent.id)).length, 0);
      assert.equal(await consultationsOf(ctx.database, h.id), 0);
    });

    it('keeps the booking through a capture outage and captures on a later sweep with the same key', async () => {
      const { h, attemptId, sessionId } = await started();
      const paid = completed(sessionId);
      // More failures than the SDK's retries (3 tries): the capture fails for now.
      standIn.failNext(3, { method: 'POST', path: /\/capture$/ });
      assert.deepEqual(await deliver(paid.event), { status: 'applied' });
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'authorized');
      ctx.clock.advance(ATTEMPT_LEASE_MS);
      assert.equal(await ctx.app.services.payments.sweep(), 1);
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'captured');
      const captures = standIn.callsTo('POST', /\/capture$/).filter((c) => c.path.includes(paid.paymentIntent.id));
      assert.deepEqual(captures.map((c) => c.status), [500, 500, 500, 200]);
      assert.ok(captures.every((c) => c.idempotencyKey === idempotencyKey(attemptId, 'capture')));
      assert.equal(standIn.paymentIntents.get(paid.paymentIntent.id)!.amount_received, 7450);
    });

    it('answers service_unavailable when Stripe cannot be reached, and the next try opens a checkout', async () => {
      const h = await nextHold();
      standIn.failNext(3, { method: 'POST', path: /^\/v1\/checkout\/sessions$/ });
      await assert.rejects(ctx.app.services.payments.startHostedCheckout(h.token, maria, URLS), (err: unknown) => err instanceof DomainError && err.code === 'service_unavailable');
      assert.deepEqual((await attemptsOf(ctx.database, h.id)).map((a) => [a.status, a.failure_code]), [['canceled', 'provider_error']]);
      // One failure is absorbed by the SDK's retry under the same idempotency key.
      standIn.failNext(1, { method: 'POST', path: /^\/v1\/checkout\/sessions$/ });
      ctx.clock.advance(1000);
      assert.equal((await ctx.app.services.payments.startHostedCheckout(h.token, maria, URLS)).kind, 'redirect');
      const attempts = await attemptsOf(ctx.database, h.id);
      assert.deepEqual(attempts.map((a) => a.status), ['canceled', 'open']);
      const tries = standIn.callsTo('POST', /^\/v1\/checkout\/sessions$/).filter((c) => c.idempotencyKey === idempotencyKey(attempts[1]!.id, 'checkout'));
      assert.deepEqual(tries.map((c) => c.status), [500, 200]);
      ctx.clock.set(h.expiresAtMs);
      await ctx.app.services.payments.sweep();
    });

    it('lets a new checkout start once Stripe reports the last one expired', async () => {
      const { h, sessionId } = await started();
      const session = standIn.sessions.get(sessionId)!;
      assert.deepEqual(await deliver(standIn.signedEvent('checkout.session.expired', { ...session, status: 'expired' })), { status: 'applied' });
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'expired');
      ctx.clock.advance(1000);
      const again = await ctx.app.services.payments.startHostedCheckout(h.token, jon, URLS);
      assert.ok(again.kind === 'redirect' && again.url !== session.url);
      assert.deepEqual((await attemptsOf(ctx.database, h.id)).map((a) => a.status), ['expired', 'open']);
      ctx.clock.set(h.expiresAtMs);
      assert.equal(await ctx.app.services.payments.sweep(), 1);
    });

    it('ignores events that are not about our checkouts', async () => {
      const payments = ctx.app.services.payments;
      assert.deepEqual(await deliver(standIn.signedEvent('payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' })), { status: 'ignored' });
      assert.deepEqual(await deliver(standIn.signedEvent('checkout.session.completed', { id: 'cs_not_ours', object: 'checkout.session', metadata: {}, payment_intent: 'pi_y' })), { status: 'ignored' });
      assert.equal(await payments.sweep(), 0);
    });

    it('stand-in: replays a repeated Idempotency-Key and refuses one reused with other parameters, like Stripe', async () => {
      const stripe = new Stripe(STRIPE_SECRET_KEY, { host: '127.0.0.1', port: Number(new URL(standIn.url).port), protocol: 'http', maxNetworkRetries: 0 });
      const params = {
        mode: 'payment' as const,
        line_items: [{ quantity: 1, price_data: { currency: 'eur', unit_amount: 100, product_data: { name: 'x' } } }],
        success_url: `${SITE}/ok`,
        expires_at: Math.floor(ctx.clock.now().getTime() / 1000) + 3600,
      };
      const first = await stripe.checkout.sessions.create(params, { idempotencyKey: 'standin-self-test' });
      const again = await stripe.checkout.sessions.create(params, { idempotencyKey: 'standin-self-test' });
      assert.equal(again.id, first.id);
      assert.equal(standIn.calls.at(-1)!.replayed, true);
      await assert.rejects(stripe.checkout.sessions.create({ ...params, success_url: `${SITE}/other` }, { idempotencyKey: 'standin-self-test' }), Stripe.errors.StripeIdempotencyError);
      await assert.rejects(stripe.checkout.sessions.create({ ...params, expires_at: params.expires_at - 1801 }), (err: unknown) => err instanceof Stripe.errors.StripeInvalidRequestError && err.param === 'expires_at');
      await assert.rejects(new Stripe('sk_test_wrong', { host: '127.0.0.1', port: Number(new URL(standIn.url).port), protocol: 'http' }).paymentIntents.retrieve('pi_x'), Stripe.errors.StripeAuthenticationError);
      await stripe.checkout.sessions.expire(first.id);
    });
  });
}
