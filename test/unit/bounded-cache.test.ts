import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedCache } from '../../src/domain/directory/bounded-cache.ts';

const value = (bytes: number) => ({ bytes });

describe('BoundedCache', () => {
  it('drops the oldest values once the estimated bytes exceed the budget', () => {
    const cache = new BoundedCache<{ bytes: number }>(1000);
    cache.set('a', value(400));
    cache.set('b', value(400));
    assert.equal(cache.bytes, 800);
    cache.set('c', value(400));
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('b') && cache.get('c'));
    assert.equal(cache.bytes, 800);
  });

  it('counts what a value grows by while held, and evicts for it', () => {
    const cache = new BoundedCache<{ bytes: number }>(1000);
    const a = value(100);
    const b = value(100);
    cache.set('a', a);
    cache.set('b', b);
    cache.charge('b', b, 850);
    assert.equal(cache.get('a'), undefined, 'a was the oldest');
    assert.equal(cache.bytes, 950);
    assert.equal(b.bytes, 950);
  });

  it('ignores growth of a value it no longer holds, and forgets deleted bytes', () => {
    const cache = new BoundedCache<{ bytes: number }>(1000);
    const a = value(100);
    cache.set('a', a);
    cache.delete('a');
    assert.equal(cache.bytes, 0);
    cache.charge('a', a, 5000);
    assert.equal(cache.bytes, 0);
    cache.set('a', value(10));
    cache.set('a', value(20));
    assert.equal(cache.bytes, 20, 'a replaced value no longer counts');
    cache.clear();
    assert.equal(cache.bytes, 0);
    assert.equal(cache.size, 0);
  });

  it('keeps the newest value even when it alone exceeds the budget', () => {
    const cache = new BoundedCache<{ bytes: number }>(100);
    cache.set('a', value(50));
    cache.set('big', value(500));
    assert.equal(cache.get('a'), undefined);
    assert.ok(cache.get('big'));
  });
});
