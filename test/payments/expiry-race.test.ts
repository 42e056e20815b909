/**
 * Paying races the expiry sweeper at the expiry instant, 50 times per database. The clock ticks
 * a millisecond on every read, the card is authorized with exactly 90 s left, and then the clock
 * jumps to a few milliseconds around `expires_at` while the sweeper starts after a varying
 * number of event-loop turns: the confirmation and the expiry interleave differently each run.
 * Whatever the interleaving, the database decides once: never confirmed at or after expiry,
 * never a charge without a consultation, never a consultation without a charge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Clock } from '../../src/clock.ts';
import { BookingService } from '../../src/domain/booking/booking.service.ts';
import { MIN_SECONDS_TO_PAY, type PayOutcome } from '../../src/domain/payments/payments.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, T0 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { attemptsOf, consultationsOf, GOOD_CARD, hold, intentStatus, paymentsService, ScriptedCardProvider } from './support.ts';

const RUNS = 50;
const DAY = '2026-11-24';

/** A clock that moves forward a millisecond every time it is read. */
class TickingClock implements Clock {
  constructor(private ms: number) {}
  now(): Date {
    return new Date(this.ms++);
  }
  set(ms: number): void {
    this.ms = ms;
  }
}

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

for (const target of databaseTargets()) {
  describe(`payments: paying races the expiry sweeper (${target.name})`, () => {
    let ctx: TestContext;
    let lawyers: string[];
    let user: string;

    before(async () => {
      ctx = await createTestContext(target);
      lawyers = await insertLawyers(ctx.database, Array.from({ length: RUNS / 5 }, () => lawyerRecord()));
      user = await createUser(ctx, 'racer@example.com');
    });
    after(() => ctx.close());

    it(`keeps every invariant over ${RUNS} runs at the expiry edge`, async () => {
      const seen = new Map<string, number>();
      for (let run = 0; run < RUNS; run++) {
        ctx.clock.set(T0);
        const h = await hold(ctx, lawyers[run % lawyers.length]!, DAY, String(9 + Math.floor(run / lawyers.length)).padStart(2, '0'));
        const clock = new TickingClock(h.expiresAtMs - MIN_SECONDS_TO_PAY * 1000);
        const booking = new BookingService({
          database: ctx.database,
          clock,
          config: ctx.config,
          cache: ctx.app.services.directoryCache,
          idempotency: ctx.app.services.idempotency,
        });
        const provider = new ScriptedCardProvider(clock);
        const payments = paymentsService(ctx, { clock, booking, provider });
        let sweeper: Promise<number> = Promise.resolve(0);
        provider.onAuthorize = () => {
          clock.set(h.expiresAtMs - 3 + (run % 5));
          sweeper = turns(run % 4).then(() => booking.expireDue());
        };

        const outcome: PayOutcome = await payments.payWithCard(h.token, user, GOOD_CARD);
        await sweeper;
        seen.set(outcome.kind, (seen.get(outcome.kind) ?? 0) + 1);

        const intent = await intentStatus(ctx.database, h.id);
        const attempts = await attemptsOf(ctx.database, h.id);
        const consultations = await consultationsOf(ctx.database, h.id);
        const captured = attempts.filter((a) => a.status === 'captured').length;
        const where = `run ${run}: ${outcome.kind}, intent ${intent.status}, attempts ${attempts.map((a) => a.status).join()}`;
        assert.equal(attempts.length, 1, where);
        assert.ok(attempts.every((a) => a.status === 'captured' || a.status === 'voided'), where);
        if (intent.status === 'confirmed') {
          assert.equal(outcome.kind, 'confirmed', where);
          assert.ok(intent.confirmed_at! < intent.expires_at, `${where}: confirmed at ${intent.confirmed_at}, expires ${intent.expires_at}`);
          assert.equal(consultations, 1, where);
          assert.equal(captured, 1, where);
        } else {
          assert.equal(intent.status, 'expired', where);
          assert.equal(outcome.kind, 'expired_voided', where);
          assert.equal(consultations, 0, where);
          assert.equal(captured, 0, where);
        }
        // What the provider did matches the rows: a capture exactly for a booking, a void otherwise.
        assert.equal(provider.done('capture'), captured, where);
        assert.equal(provider.done('void'), 1 - captured, where);
        // A later sweep changes nothing.
        assert.equal(await payments.sweep(), 0, where);
      }
      // Both sides of the edge were exercised.
      assert.ok((seen.get('confirmed') ?? 0) > 0 && (seen.get('expired_voided') ?? 0) > 0, JSON.stringify([...seen]));
    });
  });
}
