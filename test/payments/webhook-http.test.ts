/**
 * POST /payments/stripe/webhook through the real app (`inject`), on every database: the raw body
 * reaches the SDK's signature check byte for byte; bad signatures are 400 problems.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, PROBLEM, T0 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import type { SignedEvent, StripeStandIn } from '../support/stripe-stand-in.ts';
import { attemptsOf, GOOD_CARD, hold, intentStatus, stripeContext } from './support.ts';

const URL_PATH = '/payments/stripe/webhook';

for (const target of databaseTargets()) {
  describe(`POST ${URL_PATH} (${target.name})`, () => {
    let ctx: TestContext;
    let standIn: StripeStandIn;
    let lawyer: string;
    let maria: { id: string; email: string };
    let hour = 8;

    const post = (body: string, headers: Record<string, string>) =>
      ctx.app.fastify.inject({ method: 'POST', url: URL_PATH, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, payload: body });
    /** A hold paid on the (stand-in) checkout page, and the completion event Stripe would send. */
    const paidHold = async () => {
      ctx.clock.set(T0);
      const h = await hold(ctx, lawyer, '2026-11-24', String(++hour).padStart(2, '0'));
      const started = await ctx.app.services.payments.startHostedCheckout(h.token, maria, { successUrl: 'http://consulta.test/ok', cancelUrl: 'http://consulta.test/back' });
      assert.equal(started.kind, 'redirect');
      const sessionId = (await attemptsOf(ctx.database, h.id))[0]!.checkout_ref!;
      const paid = standIn.completeSession(sessionId, GOOD_CARD.number);
      assert.ok(paid.ok);
      return { h, event: paid.event, paymentIntentId: paid.paymentIntent.id };
    };
    const captures = (paymentIntentId: string) => standIn.callsTo('POST', new RegExp(`^/v1/payment_intents/${paymentIntentId}/capture$`)).length;

    before(async () => {
      ({ ctx, standIn } = await stripeContext(target));
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
      maria = { id: await createUser(ctx, 'maria@example.com'), email: 'maria@example.com' };
    });
    after(async () => {
      await ctx.close();
      await standIn.close();
    });

    it('accepts a signed event: 200 {received: true}, the intent confirmed and captured once, also when delivered twice', async () => {
      const { h, event, paymentIntentId } = await paidHold();
      const res = await post(event.body, { 'stripe-signature': event.header });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { received: true });
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'captured');
      const again = await post(event.body, { 'stripe-signature': standIn.resign(event).header });
      assert.equal(again.statusCode, 200);
      assert.equal(captures(paymentIntentId), 1);
    });

    it('answers 400 invalid_request to a tampered body, a foreign signature or none, and applies nothing', async () => {
      const { h, event, paymentIntentId } = await paidHold();
      const attacks: Array<[string, Record<string, string>]> = [
        [event.body.replace('"payment_status": "unpaid"', '"payment_status": "paid"'), { 'stripe-signature': event.header }],
        [event.body, { 'stripe-signature': standIn.signedEvent('checkout.session.completed', {}, { secret: 'whsec_attacker', id: event.id }).header }],
        [event.body, { 'stripe-signature': 't=1,v1=deadbeef' }],
        [event.body, {}],
      ];
      for (const [body, headers] of attacks) {
        const res = await post(body, headers);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.equal(res.json().code, 'invalid_request');
        assert.match(res.json().instance, /^req_/);
      }
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'pending');
      assert.equal(captures(paymentIntentId), 0);
      // The genuine delivery still works afterwards.
      assert.equal((await post(event.body, { 'stripe-signature': event.header })).statusCode, 200);
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
    });

    it('verifies the exact bytes received: the same event re-serialised does not pass', async () => {
      const { h, event } = await paidHold();
      const compact = JSON.stringify(JSON.parse(event.body) as unknown);
      assert.notEqual(compact, event.body);
      assert.equal((await post(compact, { 'stripe-signature': event.header })).statusCode, 400);
      assert.equal((await post(event.body, { 'stripe-signature': event.header })).statusCode, 200);
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
    });

    it('refuses non-JSON bodies with 415, and leaves the API\'s own JSON parsing as it was', async () => {
      const signed: SignedEvent = standIn.signedEvent('payment_intent.created', { id: 'pi_z' });
      const res = await ctx.app.fastify.inject({ method: 'POST', url: URL_PATH, headers: { 'content-type': 'text/plain', 'stripe-signature': signed.header }, payload: signed.body });
      assert.equal(res.statusCode, 415);
      // A JSON body on the API is still parsed (and validated) as JSON.
      const api = await ctx.app.fastify.inject({ method: 'POST', url: '/api/v1/bookings/initiate', headers: { 'content-type': 'application/json' }, payload: '{"lawyer_id": 12}' });
      assert.equal(api.statusCode, 400);
      assert.equal(api.json().code, 'invalid_request');
      assert.ok((api.json().errors as Array<{ pointer: string }>).some((e) => e.pointer === '/body/lawyer_id'));
    });
  });
}

describe(`POST ${URL_PATH} with the demo provider`, () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(databaseTargets()[0]!);
  });
  after(() => ctx.close());

  it('does not exist', async () => {
    const res = await ctx.app.fastify.inject({ method: 'POST', url: URL_PATH, headers: { 'content-type': 'application/json' }, payload: '{}' });
    assert.equal(res.statusCode, 404);
  });
});
