/**
 * A lawyer's cancellation refunded through Stripe, on every database: the real SDK against the
 * stand-in (test/support/stripe-stand-in.ts). The refund is `refunds.create` for the captured
 * PaymentIntent, the whole amount, keyed by the refund row's id; an outage that outlasts the
 * SDK's retries leaves it pending and the sweep finishes it with the same key — one refund at
 * Stripe. With destination charges (Connect, later) the provider asks for reverse_transfer and
 * refund_application_fee.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StripePaymentProvider } from '../../src/payments/stripe.provider.ts';
import { SITE, type TestContext } from '../support/app.ts';
import { createUser } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import type { StripeStandIn } from '../support/stripe-stand-in.ts';
import { GOOD_CARD, STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET, attemptsOf, hold, stripeContext } from './support.ts';

const DAY = '2026-11-24';
const URLS = { successUrl: `${SITE}/confirm/t?paid=1`, cancelUrl: `${SITE}/confirm/t/pay` };

for (const target of databaseTargets()) {
  describe(`lawyer cancellation refunded through Stripe (${target.name})`, () => {
    let ctx: TestContext;
    let standIn: StripeStandIn;
    let lawyer: string;
    let maria: { id: string; email: string };

    before(async () => {
      ({ ctx, standIn } = await stripeContext(target));
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ consultation_fee_cents: 7450 })])) as [string];
      maria = { id: await createUser(ctx, 'maria@example.com'), email: 'maria@example.com' };
    });
    after(async () => {
      await ctx?.close();
      await standIn?.close();
    });

    /** A consultation paid and captured through Checkout and the signed webhook. */
    async function paid(hour: string) {
      const h = await hold(ctx, lawyer, DAY, hour);
      assert.equal((await ctx.app.services.payments.startHostedCheckout(h.token, maria, URLS)).kind, 'redirect');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      const done = standIn.completeSession(attempt!.checkout_ref!, GOOD_CARD.number);
      assert.ok(done.ok);
      const event = standIn.resign(done.event);
      assert.deepEqual(await ctx.app.services.payments.handleStripeWebhook(Buffer.from(event.body), event.header), { status: 'applied' });
      const [captured] = await attemptsOf(ctx.database, h.id);
      assert.equal(captured!.status, 'captured');
      const c = await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { consultationId: c.id, paymentIntent: done.paymentIntent.id };
    }
    const refundRow = (consultationId: string) => ctx.database.db.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', consultationId).executeTakeFirstOrThrow();

    it('refunds the captured PaymentIntent in full, keyed by the refund row', async () => {
      const p = await paid('10');
      const result = await ctx.app.services.lawyerCancellation.cancel(lawyer, p.consultationId, 'Estoy enferma');
      assert.equal(result.outcome === 'cancelled' && result.refund, 'refunded');
      const row = await refundRow(p.consultationId);
      const calls = standIn.callsTo('POST', /^\/v1\/refunds$/);
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.idempotencyKey, row.id, 'Idempotency-Key is the refund row id');
      assert.equal(calls[0]!.params.payment_intent, p.paymentIntent);
      assert.equal(calls[0]!.params.amount, '7450');
      assert.equal(calls[0]!.params.reverse_transfer, undefined, 'not a destination charge yet');
      const refunds = standIn.refunds.filter((r) => r.payment_intent === p.paymentIntent);
      assert.equal(refunds.length, 1);
      assert.equal(row.status, 'succeeded');
      assert.equal(row.provider, 'stripe');
      assert.equal(row.provider_ref, refunds[0]!.id);
      assert.equal(refunds[0]!.metadata.consultation_id, p.consultationId);
    });

    it('an outage past the SDK\'s retries: pending, then the sweep refunds once with the same key', async () => {
      const p = await paid('11');
      standIn.failNext(3, { method: 'POST', path: /^\/v1\/refunds$/ });
      const result = await ctx.app.services.lawyerCancellation.cancel(lawyer, p.consultationId, 'Juicio');
      assert.equal(result.outcome === 'cancelled' && result.refund, 'pending');
      assert.equal((await refundRow(p.consultationId)).status, 'pending');
      ctx.clock.advance(61_000);
      assert.equal(await ctx.app.services.lawyerCancellation.finishPendingRefunds(), 1);
      assert.equal(await ctx.app.services.lawyerCancellation.finishPendingRefunds(), 0);
      const row = await refundRow(p.consultationId);
      assert.equal(row.status, 'succeeded');
      const keys = new Set(standIn.callsTo('POST', /^\/v1\/refunds$/).filter((c) => c.params.payment_intent === p.paymentIntent).map((c) => c.idempotencyKey));
      assert.deepEqual([...keys], [row.id], 'every try carried the same key');
      assert.equal(standIn.refunds.filter((r) => r.payment_intent === p.paymentIntent).length, 1, 'refunded once');
      // Asked again (a second sweeper that read it pending): Stripe replays, nothing new.
      await ctx.database.db.updateTable('consultation_refunds').set({ status: 'pending' }).where('id', '=', row.id).execute();
      assert.equal(await ctx.app.services.lawyerCancellation.settleRefund(row.id), 'refunded');
      assert.equal(standIn.refunds.filter((r) => r.payment_intent === p.paymentIntent).length, 1, 'still once');
    });

    it('destination charges: reverse_transfer and refund_application_fee', async () => {
      const p = await paid('12');
      const provider = new StripePaymentProvider({ secretKey: STRIPE_SECRET_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET, apiBase: standIn.url });
      const result = await provider.refund({ paymentRef: p.paymentIntent, amountCents: 7450, idempotencyKey: 'refund-connect-1', reverseTransfer: true, consultationId: p.consultationId });
      assert.ok(result.ok);
      const call = standIn.callsTo('POST', /^\/v1\/refunds$/).at(-1)!;
      assert.equal(call.params.reverse_transfer, 'true');
      assert.equal(call.params.refund_application_fee, 'true');
      // Refunding the same payment again (another key): Stripe refuses — a code, not a throw.
      const again = await provider.refund({ paymentRef: p.paymentIntent, amountCents: 7450, idempotencyKey: 'refund-connect-2', reverseTransfer: true, consultationId: p.consultationId });
      assert.deepEqual(again, { ok: false, code: 'charge_already_refunded' });
    });
  });
}
