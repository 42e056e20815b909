/**
 * The person's own cancellation refunded through Stripe, on every database: the real SDK against
 * the stand-in (test/support/stripe-stand-in.ts). In time: one `refunds.create` for the captured
 * PaymentIntent, the whole amount, keyed by the refund row (`initiated_by` 'person'); two
 * concurrent cancellations still make one refund at Stripe. Late: no call to Stripe at all.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SITE, type TestContext } from '../support/app.ts';
import { createUser } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import type { StripeStandIn } from '../support/stripe-stand-in.ts';
import { GOOD_CARD, attemptsOf, hold, stripeContext } from './support.ts';

const THU = '2026-11-26';
const TUE = '2026-11-24'; // 10:00 Madrid: 25 hours after the test clock's start
const URLS = { successUrl: `${SITE}/confirm/t?paid=1`, cancelUrl: `${SITE}/confirm/t/pay` };

for (const target of databaseTargets()) {
  describe(`the person's cancellation refunded through Stripe (${target.name})`, () => {
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
    async function paid(date: string, hour: string) {
      const h = await hold(ctx, lawyer, date, hour);
      assert.equal((await ctx.app.services.payments.startHostedCheckout(h.token, maria, URLS)).kind, 'redirect');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      const done = standIn.completeSession(attempt!.checkout_ref!, GOOD_CARD.number);
      assert.ok(done.ok);
      const event = standIn.resign(done.event);
      assert.deepEqual(await ctx.app.services.payments.handleStripeWebhook(Buffer.from(event.body), event.header), { status: 'applied' });
      const c = await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { consultationId: c.id, paymentIntent: done.paymentIntent.id };
    }

    it('in time: one refund of the whole amount at Stripe, keyed by the refund row, even when asked twice at once', async () => {
      const p = await paid(THU, '10');
      const svc = ctx.app.services.personChange;
      const results = await Promise.all([svc.cancel(maria.id, p.consultationId, { expectRefund: true }), svc.cancel(maria.id, p.consultationId, { expectRefund: true })]);
      assert.deepEqual(results.map((r) => r.outcome).sort(), ['cancelled', 'not_allowed']);
      const won = results.find((r) => r.outcome === 'cancelled')!;
      assert.equal(won.outcome === 'cancelled' && won.refund, 'refunded');
      const row = await ctx.database.db.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', p.consultationId).executeTakeFirstOrThrow();
      assert.deepEqual([row.initiated_by, row.status, row.provider, row.amount_cents], ['person', 'succeeded', 'stripe', 7450]);
      const calls = standIn.callsTo('POST', /^\/v1\/refunds$/).filter((c) => c.params.payment_intent === p.paymentIntent);
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.idempotencyKey, row.id);
      assert.equal(calls[0]!.params.amount, '7450');
      assert.equal(standIn.refunds.filter((r) => r.payment_intent === p.paymentIntent).length, 1);
    });

    it('late: cancelled without any call to Stripe', async () => {
      const p = await paid(TUE, '10');
      const before = standIn.callsTo('POST', /^\/v1\/refunds$/).length;
      const saved = ctx.clock.now().getTime();
      ctx.clock.set(new Date('2026-11-23T10:00:00.000Z'));
      try {
        const result = await ctx.app.services.personChange.cancel(maria.id, p.consultationId, { expectRefund: false });
        assert.deepEqual(result, { outcome: 'cancelled', consultationId: p.consultationId, inTime: false, refund: 'none' });
      } finally {
        ctx.clock.set(new Date(saved));
      }
      assert.equal(standIn.callsTo('POST', /^\/v1\/refunds$/).length, before);
      assert.equal((await ctx.database.db.selectFrom('consultation_refunds').select('id').where('consultation_id', '=', p.consultationId).execute()).length, 0);
      assert.equal((await attemptsOf(ctx.database, (await ctx.database.db.selectFrom('consultations').select('booking_intent_id').where('id', '=', p.consultationId).executeTakeFirstOrThrow()).booking_intent_id))[0]!.status, 'captured');
    });
  });
}
