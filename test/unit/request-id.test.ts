import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newRequestId } from '../../src/http/request-id.ts';

describe('newRequestId', () => {
  it('is req_ and 32 hex: the time in ms, then random, so ids sort by time and never repeat', () => {
    const before = Date.now();
    const ids = Array.from({ length: 10_000 }, () => newRequestId());
    const after = Date.now();
    for (const id of ids) {
      assert.match(id, /^req_[0-9a-f]{32}$/);
      const ms = Number.parseInt(id.slice(4, 16), 16);
      assert.ok(ms >= before && ms <= after, `${id} carries ${ms}, outside [${before}, ${after}]`);
    }
    assert.equal(new Set(ids).size, ids.length);
    const prefixes = ids.map((id) => id.slice(0, 16));
    assert.deepEqual([...prefixes].sort(), prefixes, 'generated in time order, they sort in time order');
  });
});
