/**
 * The payment step with PAYMENT_PROVIDER=stripe, through the site's pages: the pay page offers
 * Stripe's hosted Checkout (no card fields on our origin), the POST redirects there with our
 * return URLs, the CSP lets that redirect through, and after the signed webhook the confirmation
 * page reads confirmed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { attemptsOf, GOOD_CARD, hold, stripeContext } from '../payments/support.ts';
import type { TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText, SiteClient } from '../support/site.ts';
import type { StripeStandIn } from '../support/stripe-stand-in.ts';

for (const target of databaseTargets()) {
  describe(`paying with Stripe Checkout from the site (${target.name})`, () => {
    let ctx: TestContext;
    let standIn: StripeStandIn;
    let lawyer: string;
    before(async () => {
      ({ ctx, standIn } = await stripeContext(target));
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
    });
    after(async () => {
      await ctx?.close();
      await standIn?.close();
    });

    it('pay page → Stripe Checkout → signed webhook → confirmed', async () => {
      const h = await hold(ctx, lawyer, '2026-11-24', '10');
      const c = new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'accept-language': 'en' });
      await c.get('/sign-in');
      await c.post('/sign-in', { email: 'maria@example.com', return_to: `/confirm/${h.token}/pay` });
      const row = await ctx.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', 'maria@example.com').executeTakeFirstOrThrow();
      await c.get('/sign-in/code');
      const signedIn = await c.post('/sign-in/code', { code: /\b(\d{6})\b/.exec(row.text ?? '')![1]! });
      assert.equal(signedIn.headers.location, `/confirm/${h.token}/pay`);

      const page = await c.get(`/confirm/${h.token}/pay`);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Continue to secure payment/);
      assert.doesNotMatch(page.body, /name="number"/, 'no card field on our origin');
      assert.match(String(page.headers['content-security-policy']), /form-action 'self' https:\/\/checkout\.stripe\.com/);

      const go = await c.post(`/confirm/${h.token}/pay`, {});
      assert.equal(go.statusCode, 303);
      const [attempt] = await attemptsOf(ctx.database, h.id);
      const session = standIn.sessions.get(attempt!.checkout_ref!)!;
      assert.equal(go.headers.location, session.url);
      assert.equal(session.success_url, `http://consulta.test/confirm/${h.token}?paid=1`);
      assert.equal(session.cancel_url, `http://consulta.test/confirm/${h.token}/pay`);

      // Back from Stripe before its webhook: the page says the payment is being processed.
      const back = await c.get(`/confirm/${h.token}?paid=1`);
      assert.match(pageText(back.body), /already being processed/);

      const paid = standIn.completeSession(session.id, GOOD_CARD.number);
      assert.ok(paid.ok);
      const hook = await ctx.app.fastify.inject({ method: 'POST', url: '/payments/stripe/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': paid.event.header }, payload: paid.event.body });
      assert.equal(hook.statusCode, 200);
      const done = await c.get(`/confirm/${h.token}`);
      assert.match(pageText(done.body), /Your consultation is booked/);
      assert.match(pageText(done.body), /See it in My consultations/, 'the payer owns it now');
    });

    it('when Stripe cannot be reached, the pay button answers a 503 page that says nothing was charged', async () => {
      const h = await hold(ctx, lawyer, '2026-11-24', '11');
      const c = new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'accept-language': 'en' });
      const { token } = await ctx.app.services.sessions.create((await ctx.database.db.selectFrom('users').select('id').where('email', '=', 'maria@example.com').executeTakeFirstOrThrow()).id, { ip: '127.0.0.1' });
      c.cookies.set('consulta_session', token);
      await c.get(`/confirm/${h.token}/pay`);
      await standIn.close();
      const res = await c.post(`/confirm/${h.token}/pay`, {});
      assert.equal(res.statusCode, 503);
      assert.match(pageText(res.body), /Nothing was charged/);
      assert.doesNotMatch(res.body, /at [\w.]+ \(/, 'no stack trace');
    });
  });
}
