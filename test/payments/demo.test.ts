/**
 * Paying with the demo provider, on every database: the test cards, retries after a decline,
 * double submissions, the 90-second rule, the hold lapsing mid-payment, and crash recovery by
 * the sweep.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ATTEMPT_LEASE_MS, MIN_SECONDS_TO_PAY } from '../../src/domain/payments/payments.service.ts';
import { idempotencyKey } from '../../src/payments/provider.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, MIN, T0 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { attemptsOf, consultationsOf, DECLINED_CARD, GOOD_CARD, hold, intentStatus, paymentsService, ScriptedCardProvider } from './support.ts';

const DAY = '2026-11-24';

for (const target of databaseTargets()) {
  describe(`payments: demo provider (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let freeLawyer: string;
    let maria: string;
    let jon: string;
    let hour = 8;
    let day = 24;
    /** A fresh slot each call (five a day, Tuesday to Friday and on). */
    const nextSlot = async (lawyerId = lawyer) => {
      if (++hour > 13) {
        hour = 9;
        day++;
      }
      ctx.clock.set(T0);
      return hold(ctx, lawyerId, `2026-11-${day}`, String(hour).padStart(2, '0'));
    };

    const waitForAttempt = async (intentId: string) => {
      while ((await attemptsOf(ctx.database, intentId)).length === 0) await new Promise((r) => setImmediate(r));
    };

    before(async () => {
      ctx = await createTestContext(target);
      [lawyer, freeLawyer] = (await insertLawyers(ctx.database, [
        lawyerRecord({ consultation_fee_cents: 6000, weekly_hours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '14:00:00', slot_minutes: 60 as const })) }),
        lawyerRecord({ consultation_fee_cents: 0 }),
      ])) as [string, string];
      maria = await createUser(ctx, 'maria@example.com');
      jon = await createUser(ctx, 'jon@example.com');
    });
    after(() => ctx.close());

    it('pays with 4242 4242 4242 4242: confirmed, consultation recorded for the payer, captured once', async () => {
      const h = await nextSlot();
      const payments = ctx.app.services.payments;
      assert.equal(payments.provider, 'demo');
      const view = await payments.checkout(h.token, maria);
      assert.ok(view.state === 'payable');
      assert.equal(view.quote.totalCents, 6000);
      assert.equal(view.secondsLeft, 15 * 60);
      assert.equal(view.provider, 'demo');
      assert.equal(view.startsAt, `${DAY.slice(0, 8)}${String(day).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00+01:00`);

      const outcome = await payments.payWithCard(h.token, maria, GOOD_CARD);
      assert.equal(outcome.kind, 'confirmed');
      assert.ok(outcome.kind === 'confirmed');
      assert.equal(outcome.intentId, h.id);
      assert.equal(outcome.consultation?.user_id, maria);
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
      const [attempt, ...more] = await attemptsOf(ctx.database, h.id);
      assert.equal(more.length, 0);
      assert.equal(attempt!.status, 'captured');
      assert.equal(attempt!.amount_cents, 6000);
      assert.equal(attempt!.currency, 'EUR');
      assert.equal(attempt!.payment_ref, `demo_auth_${attempt!.id}`);
      assert.equal(attempt!.user_id, maria);
      assert.ok(attempt!.authorized_at && attempt!.captured_at);
      assert.equal(attempt!.voided_at, null);
      assert.equal((await payments.checkout(h.token, maria)).state, 'confirmed');
      // Paying again is refused without a new attempt.
      assert.deepEqual(await payments.payWithCard(h.token, jon, GOOD_CARD), { kind: 'already_confirmed' });
      assert.equal((await attemptsOf(ctx.database, h.id)).length, 1);
    });

    it('gives each test card its outcome and leaves the intent pending on every decline', async () => {
      const h = await nextSlot();
      const payments = ctx.app.services.payments;
      const cases: Array<[{ number: string; expiry: string; cvc: string }, string]> = [
        [DECLINED_CARD, 'card_declined'],
        [{ ...GOOD_CARD, number: '4000-0000-0000-9995' }, 'insufficient_funds'],
        [{ ...GOOD_CARD, number: '4242 4242 4242 4241' }, 'invalid_number'],
        [{ ...GOOD_CARD, number: '4111 1111 1111 1111' }, 'card_declined'], // passes Luhn, not a test card
        [{ ...GOOD_CARD, number: '4242' }, 'invalid_number'],
        [{ ...GOOD_CARD, expiry: '10/26' }, 'expired_card'], // the clock says November 2026
        [{ ...GOOD_CARD, expiry: '13/30' }, 'invalid_expiry'],
        [{ ...GOOD_CARD, expiry: '1330' }, 'invalid_expiry'],
        [{ ...GOOD_CARD, cvc: '12' }, 'invalid_cvc'],
        [{ ...GOOD_CARD, cvc: 'abc' }, 'invalid_cvc'],
      ];
      for (const [card, code] of cases) {
        ctx.clock.advance(1000);
        assert.deepEqual(await payments.payWithCard(h.token, maria, card), { kind: 'declined', code }, `${card.number} ${card.expiry} ${card.cvc}`);
        assert.equal((await intentStatus(ctx.database, h.id)).status, 'pending');
        const view = await payments.checkout(h.token, maria);
        assert.ok(view.state === 'payable');
        assert.equal(view.lastFailure, code);
        // Another person sees no failure of Maria's.
        const other = await payments.checkout(h.token, jon);
        assert.ok(other.state !== 'not_found' && other.state !== 'owner_only' && other.lastFailure === undefined);
      }
      const attempts = await attemptsOf(ctx.database, h.id);
      assert.deepEqual(attempts.map((a) => a.status), cases.map(() => 'failed'));
      assert.deepEqual(attempts.map((a) => a.failure_code), cases.map(([, code]) => code));
      assert.equal(await consultationsOf(ctx.database, h.id), 0);
      // The expiry month itself is still valid: 11/26 on 23 November 2026.
      assert.equal((await payments.payWithCard(h.token, maria, { ...GOOD_CARD, expiry: '11/26' })).kind, 'confirmed');
    });

    it('lets the person retry after a decline: the second attempt pays', async () => {
      const h = await nextSlot();
      const payments = ctx.app.services.payments;
      assert.deepEqual(await payments.payWithCard(h.token, maria, DECLINED_CARD), { kind: 'declined', code: 'card_declined' });
      ctx.clock.advance(1000);
      assert.equal((await payments.payWithCard(h.token, maria, GOOD_CARD)).kind, 'confirmed');
      const attempts = await attemptsOf(ctx.database, h.id);
      assert.deepEqual(attempts.map((a) => a.status), ['failed', 'captured']);
      assert.equal(await consultationsOf(ctx.database, h.id), 1);
      const view = await payments.checkout(h.token, maria);
      assert.ok(view.state === 'confirmed' && view.lastFailure === undefined);
    });

    it('charges a double submission once: one captured attempt, one consultation', async () => {
      for (const payers of [[maria, maria, maria, maria, maria], [maria, jon, maria, jon]]) {
        const h = await nextSlot();
        const provider = new ScriptedCardProvider(ctx.clock);
        const payments = paymentsService(ctx, { provider });
        const outcomes = await Promise.all(payers.map((user) => payments.payWithCard(h.token, user, GOOD_CARD)));
        const kinds = outcomes.map((o) => o.kind);
        assert.equal(kinds.filter((k) => k === 'confirmed').length, 1, kinds.join());
        assert.ok(kinds.every((k) => ['confirmed', 'in_progress', 'already_confirmed'].includes(k)), kinds.join());
        const attempts = await attemptsOf(ctx.database, h.id);
        assert.equal(attempts.filter((a) => a.status === 'captured').length, 1);
        assert.equal(attempts.length, 1, 'the losers never started an attempt');
        assert.equal(await consultationsOf(ctx.database, h.id), 1);
        assert.equal(provider.done('capture'), 1);
        assert.equal(provider.calls.filter((c) => c.op === 'authorize').length, 1);
      }
    });

    it('starts no payment with less than 90 s left (exactly 90 s is enough)', async () => {
      const h = await nextSlot();
      const payments = ctx.app.services.payments;
      ctx.clock.set(h.expiresAtMs - MIN_SECONDS_TO_PAY * 1000 + 1);
      const view = await payments.checkout(h.token, maria);
      assert.ok(view.state === 'too_late');
      assert.equal(view.secondsLeft, 89);
      assert.deepEqual(await payments.payWithCard(h.token, maria, GOOD_CARD), { kind: 'too_late' });
      assert.deepEqual(await attemptsOf(ctx.database, h.id), []);

      const h2 = await nextSlot();
      ctx.clock.set(h2.expiresAtMs - MIN_SECONDS_TO_PAY * 1000);
      assert.equal((await payments.checkout(h2.token, maria)).state, 'payable');
      assert.equal((await payments.payWithCard(h2.token, maria, GOOD_CARD)).kind, 'confirmed');
    });

    it('voids the authorization when the hold lapses between authorize and confirm: nothing charged, slot released', async () => {
      const h = await nextSlot();
      const provider = new ScriptedCardProvider(ctx.clock);
      provider.onAuthorize = () => ctx.clock.set(h.expiresAtMs);
      const payments = paymentsService(ctx, { provider });
      assert.deepEqual(await payments.payWithCard(h.token, maria, GOOD_CARD), { kind: 'expired_voided' });
      const [attempt] = await attemptsOf(ctx.database, h.id);
      assert.equal(attempt!.status, 'voided');
      assert.ok(attempt!.authorized_at && attempt!.voided_at);
      assert.equal(attempt!.captured_at, null);
      assert.equal(provider.done('capture'), 0);
      assert.deepEqual(provider.calls.filter((c) => c.op === 'void').map((c) => c.key), [idempotencyKey(attempt!.id, 'void')]);
      assert.equal((await intentStatus(ctx.database, h.id)).status, 'expired');
      assert.equal(await consultationsOf(ctx.database, h.id), 0);
      assert.equal((await payments.checkout(h.token, maria)).state, 'expired');
      assert.deepEqual(await payments.payWithCard(h.token, maria, GOOD_CARD), { kind: 'expired' });
    });

    it('answers unknown and malformed links with not_found, and expired holds with expired', async () => {
      const payments = ctx.app.services.payments;
      assert.deepEqual(await payments.checkout('A'.repeat(32), maria), { state: 'not_found' });
      assert.deepEqual(await payments.checkout('../../etc', null), { state: 'not_found' });
      assert.deepEqual(await payments.payWithCard('A'.repeat(32), maria, GOOD_CARD), { kind: 'not_found' });
      const h = await nextSlot();
      ctx.clock.set(h.expiresAtMs);
      assert.equal((await payments.checkout(h.token, null)).state, 'expired');
      assert.deepEqual(await payments.payWithCard(h.token, maria, GOOD_CARD), { kind: 'expired' });
      assert.deepEqual(await attemptsOf(ctx.database, h.id), []);
    });

    it('confirms a free consultation without a payment', async () => {
      ctx.clock.set(T0);
      const h = await hold(ctx, freeLawyer, DAY, '11');
      const outcome = await ctx.app.services.payments.payWithCard(h.token, maria, { number: '', expiry: '', cvc: '' });
      assert.equal(outcome.kind, 'confirmed');
      assert.deepEqual(await attemptsOf(ctx.database, h.id), []);
      assert.equal(await consultationsOf(ctx.database, h.id), 1);
    });

    describe('crash recovery by the sweep', () => {
      it('captures on the next sweep when the process died between the confirmation and the capture', async () => {
        const h = await nextSlot();
        const provider = new ScriptedCardProvider(ctx.clock);
        const booking = ctx.app.services.booking;
        const crashing = paymentsService(ctx, {
          provider,
          booking: {
            expireDue: (batch?: number) => booking.expireDue(batch),
            confirm: async (token: string, userId: string) => {
              await booking.confirm(token, userId);
              throw new Error('process killed after the commit');
            },
          },
        });
        await assert.rejects(crashing.payWithCard(h.token, maria, GOOD_CARD), /process killed/);
        assert.equal((await intentStatus(ctx.database, h.id)).status, 'confirmed');
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'authorized');
        assert.equal(provider.done('capture'), 0);

        // Even once the hold's time is over, the confirmed booking's payment is captured, once.
        ctx.clock.set(h.expiresAtMs + MIN);
        const sweeper = paymentsService(ctx, { provider });
        assert.equal(await sweeper.sweep(), 1);
        const [attempt] = await attemptsOf(ctx.database, h.id);
        assert.equal(attempt!.status, 'captured');
        assert.deepEqual(provider.calls.filter((c) => c.op === 'capture').map((c) => c.key), [idempotencyKey(attempt!.id, 'capture')]);
        assert.equal(await sweeper.sweep(), 0);
        assert.equal(provider.done('capture'), 1);
        assert.equal(await consultationsOf(ctx.database, h.id), 1);
      });

      it('retries a failed capture on the next sweep; the booking stands meanwhile', async () => {
        const h = await nextSlot();
        const provider = new ScriptedCardProvider(ctx.clock);
        provider.failCaptures = 1;
        const payments = paymentsService(ctx, { provider });
        assert.equal((await payments.payWithCard(h.token, maria, GOOD_CARD)).kind, 'confirmed');
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'authorized');
        assert.equal(await payments.sweep(), 1);
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'captured');
        assert.equal(provider.done('capture'), 1, 'the retry reused the idempotency key');
        assert.equal(provider.calls.filter((c) => c.op === 'capture').length, 2);
      });

      it('finishes a payment whose process died between authorize and confirm: confirmed and captured after the lease', async () => {
        const h = await nextSlot();
        const provider = new ScriptedCardProvider(ctx.clock);
        const crashing = paymentsService(ctx, {
          provider,
          booking: { expireDue: (b?: number) => ctx.app.services.booking.expireDue(b), confirm: async () => { throw new Error('process killed before confirming'); } },
        });
        await assert.rejects(crashing.payWithCard(h.token, maria, GOOD_CARD), /process killed/);
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'authorized');
        const sweeper = paymentsService(ctx, { provider });
        // Within the lease the attempt may still be in someone's hands: left alone.
        assert.equal(await sweeper.sweep(), 0);
        assert.equal((await sweeper.checkout(h.token, jon)).state, 'in_progress');
        assert.deepEqual(await sweeper.payWithCard(h.token, jon, GOOD_CARD), { kind: 'in_progress' });
        ctx.clock.advance(ATTEMPT_LEASE_MS);
        assert.equal(await sweeper.sweep(), 1);
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'captured');
        const intent = await intentStatus(ctx.database, h.id);
        assert.equal(intent.status, 'confirmed');
        assert.ok(intent.confirmed_at! < intent.expires_at);
        assert.equal(await consultationsOf(ctx.database, h.id), 1);
        assert.equal(provider.done('capture'), 1);
        assert.equal(provider.done('void'), 0);
      });

      it('voids such a payment when the hold lapsed before the sweep came: never charged without a booking', async () => {
        const h = await nextSlot();
        const provider = new ScriptedCardProvider(ctx.clock);
        const crashing = paymentsService(ctx, {
          provider,
          booking: { expireDue: (b?: number) => ctx.app.services.booking.expireDue(b), confirm: async () => { throw new Error('process killed before confirming'); } },
        });
        await assert.rejects(crashing.payWithCard(h.token, maria, GOOD_CARD), /process killed/);
        ctx.clock.set(h.expiresAtMs);
        const sweeper = paymentsService(ctx, { provider });
        assert.equal(await sweeper.sweep(), 1);
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'voided');
        assert.equal((await intentStatus(ctx.database, h.id)).status, 'expired');
        assert.equal(await consultationsOf(ctx.database, h.id), 0);
        assert.equal(provider.done('capture'), 0);
        assert.equal(provider.done('void'), 1);
      });

      it('gives up an attempt abandoned before authorization, so the person can pay again', async () => {
        const h = await nextSlot();
        const provider = new ScriptedCardProvider(ctx.clock);
        // A process that never comes back from authorizing (killed): its attempt stays open.
        provider.onAuthorize = () => new Promise<void>(() => {});
        void paymentsService(ctx, { provider }).payWithCard(h.token, maria, GOOD_CARD);
        await waitForAttempt(h.id);
        assert.equal((await attemptsOf(ctx.database, h.id))[0]!.status, 'open');

        const payments = ctx.app.services.payments;
        assert.deepEqual(await payments.payWithCard(h.token, maria, GOOD_CARD), { kind: 'in_progress' });
        ctx.clock.advance(ATTEMPT_LEASE_MS);
        assert.equal(await payments.sweep(), 1);
        assert.deepEqual((await attemptsOf(ctx.database, h.id)).map((a) => [a.status, a.failure_code]), [['canceled', 'abandoned']]);
        ctx.clock.advance(1000);
        assert.equal((await payments.payWithCard(h.token, maria, GOOD_CARD)).kind, 'confirmed');
        assert.deepEqual((await attemptsOf(ctx.database, h.id)).map((a) => a.status), ['canceled', 'captured']);
      });
    });
  });
}
