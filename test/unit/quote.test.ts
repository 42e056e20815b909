import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { quote } from '../../src/domain/booking/quote.ts';

describe('quote()', () => {
  it('the person pays exactly the fee; the commission is the platform\'s share of it', () => {
    assert.deepEqual(quote({ consultation_fee_cents: 6000, platform_commission_percent: 12 }), {
      totalCents: 6000,
      currency: 'EUR',
      commissionPercent: 12,
      platformShareCents: 720,
      lawyerPayoutCents: 5280,
    });
  });

  it('rounds the share half up to whole cents, and share + payout always equal the total', () => {
    assert.equal(quote({ consultation_fee_cents: 4550, platform_commission_percent: 15 }).platformShareCents, 683); // 682.5
    assert.equal(quote({ consultation_fee_cents: 4549, platform_commission_percent: 15 }).platformShareCents, 682); // 682.35
    for (let fee = 0; fee <= 20_000; fee += 37) {
      for (const pct of [0, 1, 7, 12, 15, 33, 100]) {
        const q = quote({ consultation_fee_cents: fee, platform_commission_percent: pct });
        assert.equal(q.platformShareCents + q.lawyerPayoutCents, fee);
        assert.ok(Math.abs(q.platformShareCents - (fee * pct) / 100) <= 0.5);
      }
    }
  });

  it('refuses fees that are not whole cents and commissions outside 0–100', () => {
    assert.throws(() => quote({ consultation_fee_cents: 10.5, platform_commission_percent: 10 }), RangeError);
    assert.throws(() => quote({ consultation_fee_cents: 1000, platform_commission_percent: 101 }), RangeError);
  });
});
