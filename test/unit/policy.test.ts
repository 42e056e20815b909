import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FREE_CHANGE_MS, MAX_MOVES, personPolicy } from '../../src/domain/booking/policy.ts';

const start = Date.parse('2026-12-10T10:00:00.000Z');

describe('the cancellation and move policy', () => {
  it('more than 24 hours ahead: cancel with a full refund, or move', () => {
    const p = personPolicy(start, start - FREE_CHANGE_MS - 1);
    assert.deepEqual(p, { freeUntil: '2026-12-09T10:00:00.000Z', canCancelWithRefund: true, canCancelWithoutRefund: false, canMove: true });
  });

  it(`moved ${MAX_MOVES} times: no more moves, but it may still be cancelled with a refund`, () => {
    assert.equal(personPolicy(start, start - FREE_CHANGE_MS - 1, 'confirmed', MAX_MOVES - 1).canMove, true);
    const p = personPolicy(start, start - FREE_CHANGE_MS - 1, 'confirmed', MAX_MOVES);
    assert.deepEqual([p.canCancelWithRefund, p.canCancelWithoutRefund, p.canMove], [true, false, false]);
  });

  it('exactly 24 hours ahead is still in time', () => {
    const p = personPolicy(start, start - FREE_CHANGE_MS);
    assert.equal(p.canCancelWithRefund, true);
    assert.equal(p.canMove, true);
  });

  it('less than 24 hours ahead: cancel without a refund, no move', () => {
    const p = personPolicy(start, start - FREE_CHANGE_MS + 1);
    assert.deepEqual([p.canCancelWithRefund, p.canCancelWithoutRefund, p.canMove], [false, true, false]);
  });

  it('once started, nothing', () => {
    const p = personPolicy(start, start);
    assert.deepEqual([p.canCancelWithRefund, p.canCancelWithoutRefund, p.canMove], [false, false, false]);
  });

  it('a consultation that is no longer confirmed allows nothing, however far ahead', () => {
    for (const status of ['cancelled_by_person', 'cancelled_by_lawyer', 'held', 'no_show', 'moved'] as const) {
      const p = personPolicy(start, start - 10 * FREE_CHANGE_MS, status);
      assert.deepEqual([p.canCancelWithRefund, p.canCancelWithoutRefund, p.canMove], [false, false, false], status);
    }
  });
});
