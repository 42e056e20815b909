/**
 * Stripe Connect Express (issue 18 item 7; docs/payments.md#connect), on every database, with the
 * real `stripe` SDK against the local stand-in: she connects from her earnings page (an Express
 * account in ES, an onboarding link back to the portal), the account's state is stored and kept
 * current by the signed `account.updated` event and on her return; once it takes charges, the
 * Checkout Session is a destination charge whose application fee is quote()'s platform share, and
 * the attempt records the account (what a refund needs for `reverse_transfer`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { quote } from '../../src/domain/booking/quote.ts';
import { connectKey } from '../../src/domain/payments/payouts.service.ts';
import { SITE, type TestContext } from '../support/app.ts';
import { T0 } from '../support/booking.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';
import type { SignedEvent, StripeStandIn } from '../support/stripe-stand-in.ts';
import { linkLawyer } from './earnings-support.ts';
import { attemptsOf, GOOD_CARD, hold, stripeContext } from './support.ts';

const FEE = 8050;
const COMMISSION = 13;
const URLS = { successUrl: `${SITE}/confirm/t?paid=1`, cancelUrl: `${SITE}/confirm/t/pay` };

for (const target of databaseTargets()) {
  describe(`Stripe Connect Express against the stand-in (${target.name})`, () => {
    let ctx: TestContext;
    let standIn: StripeStandIn;
    let lawyer: string;
    let her: SignedIn;
    let maria: { id: string; email: string };
    let hour = 8;
    const webhook = (event: SignedEvent, header = event.header) =>
      ctx.app.fastify.inject({ method: 'POST', url: '/payments/stripe/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': header }, payload: event.body });
    const account = () => ctx.database.db.selectFrom('lawyer_payout_accounts').selectAll().where('lawyer_id', '=', lawyer).executeTakeFirst();
    const checkout = async () => {
      ctx.clock.set(T0);
      const h = await hold(ctx, lawyer, '2026-11-24', String(++hour).padStart(2, '0'));
      const started = await ctx.app.services.payments.startHostedCheckout(h.token, maria, URLS);
      assert.equal(started.kind, 'redirect');
      const [attempt] = await attemptsOf(ctx.database, h.id);
      return { h, attempt: attempt!, params: standIn.sessionParams.get(attempt!.checkout_ref!)! };
    };

    before(async () => {
      ({ ctx, standIn } = await stripeContext(target));
      [lawyer] = (await insertLawyers(ctx.database, [
        lawyerRecord({ consultation_fee_cents: FEE, platform_commission_percent: COMMISSION, weekly_hours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const })) }),
      ])) as [string];
      her = await signedIn(ctx, 'lucia@example.com');
      await linkLawyer(ctx.database, lawyer, her.userId);
      const m = await signedIn(ctx, 'maria@example.com');
      maria = { id: m.userId, email: m.email };
    });
    after(async () => {
      await ctx?.close();
      await standIn?.close();
    });

    it('without a connected account, the checkout is a platform charge (as before)', async () => {
      const { attempt, params } = await checkout();
      const data = params.payment_intent_data as Record<string, unknown>;
      assert.equal(data.transfer_data, undefined);
      assert.equal(data.application_fee_amount, undefined);
      assert.equal(attempt.destination_account, null);
      assert.equal(Number(attempt.platform_fee_cents), quote({ consultation_fee_cents: FEE, platform_commission_percent: COMMISSION }).platformShareCents);
    });

    it('connects from the earnings page: an Express account in ES, then Stripe’s onboarding with links back to the portal', async () => {
      const page = await her.client.get('/lawyer/earnings');
      assert.match(pageText(page.body), /Connect with Stripe/);
      assert.match(String(page.headers['content-security-policy']), /form-action 'self' https:\/\/checkout\.stripe\.com https:\/\/connect\.stripe\.com/);
      const go = await her.client.post('/lawyer/earnings/connect', {});
      assert.equal(go.statusCode, 303);
      const link = standIn.accountLinks.get(String(go.headers.location));
      assert.ok(link, 'redirected to the account link Stripe made');

      const [create] = standIn.callsTo('POST', /^\/v1\/accounts$/);
      assert.equal(create!.idempotencyKey, connectKey(lawyer));
      assert.deepEqual(create!.params, {
        type: 'express',
        country: 'ES',
        email: 'lucia@example.com',
        capabilities: { card_payments: { requested: 'true' }, transfers: { requested: 'true' } },
        metadata: { lawyer_id: lawyer },
      });
      const [linkCall] = standIn.callsTo('POST', /^\/v1\/account_links$/);
      assert.deepEqual(linkCall!.params, { account: link.account, type: 'account_onboarding', refresh_url: `${SITE}/lawyer/earnings?connect=expired`, return_url: `${SITE}/lawyer/earnings/connect/return` });
      const row = await account();
      assert.equal(row?.account_id, link.account);
      assert.deepEqual([row?.charges_enabled, row?.payouts_enabled, row?.details_submitted].map(Number), [0, 0, 0]);

      // Tapping again (or a link that expired) gives a new link for the same account.
      await her.client.get('/lawyer/earnings?connect=expired');
      assert.match(pageText(her.client.last!.body), /That Stripe link expired/);
      assert.match(pageText(her.client.last!.body), /Continue setting up with Stripe/);
      const again = await her.client.post('/lawyer/earnings/connect', {});
      assert.equal(standIn.accountLinks.get(String(again.headers.location))?.account, link.account);
      assert.equal(standIn.callsTo('POST', /^\/v1\/accounts$/).filter((c) => !c.replayed).length, 1);
      assert.equal(standIn.accounts.size, 1);

      // Not yet able to take charges: still a platform charge.
      const { attempt } = await checkout();
      assert.equal(attempt.destination_account, null);
    });

    it('account.updated (signed) stores what her account can do; a duplicate and a forged one change nothing', async () => {
      const row = (await account())!;
      const event = standIn.finishOnboarding(row.account_id);
      const forged = await webhook(event, standIn.signedEvent('account.updated', {}, { secret: 'whsec_wrong' }).header);
      assert.equal(forged.statusCode, 400);
      assert.equal(Number((await account())!.charges_enabled), 0);

      const res = await webhook(event);
      assert.equal(res.statusCode, 200, res.body);
      const after = (await account())!;
      assert.deepEqual([after.charges_enabled, after.payouts_enabled, after.details_submitted].map(Number), [1, 1, 1]);
      assert.equal((await ctx.database.db.selectFrom('payment_events').select('event_id').where('event_id', '=', event.id).execute()).length, 1);
      assert.deepEqual(await ctx.app.services.payments.handleStripeWebhook(Buffer.from(event.body), standIn.resign(event).header), { status: 'duplicate' });

      // Someone else's account on the same Stripe platform: ignored.
      const foreign = standIn.signedEvent('account.updated', { id: 'acct_test_somebodyelse', object: 'account', charges_enabled: true, payouts_enabled: true, details_submitted: true });
      assert.deepEqual(await ctx.app.services.payments.handleStripeWebhook(Buffer.from(foreign.body), foreign.header), { status: 'ignored' });
    });

    it('once it takes charges, the checkout is a destination charge: her account, and quote()’s platform share as the application fee', async () => {
      const row = (await account())!;
      const { h, attempt, params } = await checkout();
      const share = quote({ consultation_fee_cents: FEE, platform_commission_percent: COMMISSION }).platformShareCents;
      assert.equal(share, 1047);
      const data = params.payment_intent_data as Record<string, unknown>;
      assert.deepEqual(data.transfer_data, { destination: row.account_id });
      assert.equal(data.application_fee_amount, String(share));
      assert.equal(data.capture_method, 'manual');
      assert.equal(attempt.destination_account, row.account_id, 'a refund needs to know: reverse_transfer');
      assert.equal(Number(attempt.platform_fee_cents), share);

      const paid = standIn.completeSession(attempt.checkout_ref!, GOOD_CARD.number);
      assert.ok(paid.ok);
      assert.deepEqual(paid.paymentIntent.transfer_data, { destination: row.account_id });
      assert.equal(paid.paymentIntent.application_fee_amount, share);
      assert.equal((await webhook(paid.event)).statusCode, 200);
      assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'captured');

      // Her month says where the money went.
      const month = pageText((await her.client.get('/lawyer/earnings?month=2026-11')).body);
      assert.match(month, /Paid to Your Stripe account/);
      assert.match(month, /Platform’s share €10\.47 Yours €70\.03/);
    });

    it('back from onboarding, her account is read again (Stripe may have paused payouts meanwhile)', async () => {
      const row = (await account())!;
      standIn.accounts.get(row.account_id)!.payouts_enabled = false;
      const back = await her.client.get('/lawyer/earnings/connect/return');
      assert.equal(back.statusCode, 303);
      assert.equal(back.headers.location, '/lawyer/earnings?connect=returned#payouts');
      assert.equal(Number((await account())!.payouts_enabled), 0);
      const page = pageText((await her.client.get('/lawyer/earnings?connect=returned')).body);
      assert.match(page, /This is what Stripe says about your account now/);
      assert.match(page, /Takes payments Yes Pays out to your bank Not yet/);

      // Stripe pauses charges (a requirement came due): the next checkout is a platform charge again.
      const paused = standIn.finishOnboarding(row.account_id, { charges_enabled: false, payouts_enabled: false, details_submitted: true });
      assert.equal((await webhook(paused)).statusCode, 200);
      const { attempt, params } = await checkout();
      assert.equal(attempt.destination_account, null);
      assert.equal((params.payment_intent_data as Record<string, unknown>).transfer_data, undefined);
      // And back once it takes charges again.
      assert.equal((await webhook(standIn.finishOnboarding(row.account_id))).statusCode, 200);

      // Stripe down: she is told, nothing breaks.
      standIn.failNext(5, { path: /^\/v1\/accounts\// });
      const down = await her.client.get('/lawyer/earnings/connect/return');
      assert.equal(down.headers.location, '/lawyer/earnings?connect=unavailable');
    });

    it('attacks: a person who is not a lawyer cannot connect; the return URL only ever refreshes her own', async () => {
      const creates = standIn.callsTo('POST', /^\/v1\/accounts$/).length;
      const stranger = await signedIn(ctx, 'nobody@example.com');
      await stranger.client.get('/lawyer/earnings');
      // The portal's one guard: a signed-in account without a lawyer record gets 403 and a page
      // pointing to /join, on every /lawyer URL and form alike.
      assert.equal(stranger.client.last!.statusCode, 403);
      assert.match(stranger.client.last!.body, /href="\/join"/);
      const res = await stranger.client.post('/lawyer/earnings/connect', {});
      assert.equal(res.statusCode, 403);
      assert.equal((await stranger.client.get(`/lawyer/earnings/connect/return?lawyer_id=${lawyer}`)).statusCode, 403);
      assert.equal(standIn.callsTo('POST', /^\/v1\/accounts$/).length, creates);
    });
  });
}
