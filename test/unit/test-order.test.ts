/**
 * The order scripts/test.mjs gives the runner (scripts/test-order.mjs): longest expected first, so
 * no long file starts last; every file named is run, once; ties keep path order.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
// @ts-expect-error: a plain JavaScript build script, without type declarations
import { expectedSeconds, longestFirst } from '../../scripts/test-order.mjs';

const order = longestFirst as (files: string[]) => string[];
const expected = expectedSeconds as (files: string[]) => Map<string, number>;

describe('test files, longest first', () => {
  // Only the committed times and the folder guesses: this checkout's own .test-times.json left out.
  before(() => {
    process.env.TEST_TIMES_FILE = path.join(os.tmpdir(), `no-test-times-${process.pid}.json`);
  });
  after(() => {
    delete process.env.TEST_TIMES_FILE;
  });

  it('puts the slowest files of the committed list first, then guesses by folder, and keeps every file once', () => {
    const files = ['test/unit/zoned-time.test.ts', 'test/http/search.test.ts', 'test/browser/lawyer-journey.test.ts', 'test/chaos/kill9.test.ts', 'test/browser/no-such-walk.test.ts'];
    const ordered = order(files);
    assert.deepEqual([...ordered].sort(), [...files].sort());
    const seconds = expected(ordered);
    for (let i = 1; i < ordered.length; i++) assert.ok(seconds.get(ordered[i - 1]!)! >= seconds.get(ordered[i]!)!, ordered.join('\n'));
    assert.equal(ordered.at(-1), 'test/unit/zoned-time.test.ts');
    // A browser walk no list has timed is still expected to take longer than an HTTP suite.
    assert.ok(ordered.indexOf('test/browser/no-such-walk.test.ts') < ordered.indexOf('test/http/search.test.ts'));
  });

  it('orders files expected to take as long by path, the same on every run', () => {
    const files = ['test/unit/b-never-timed.test.ts', 'test/unit/a-never-timed.test.ts'];
    assert.deepEqual(order(files), ['test/unit/a-never-timed.test.ts', 'test/unit/b-never-timed.test.ts']);
    assert.deepEqual(order([...files].reverse()), order(files));
  });
});
