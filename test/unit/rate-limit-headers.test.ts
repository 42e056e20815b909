import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  bindingWindow,
  rateLimitHeaders,
  retryAfterSeconds,
  windowResetAt,
  type WindowRule,
  type WindowState,
} from '../../src/domain/access/rate-limit.ts';
import { ANONYMOUS_RULES, DAY_MS, HOUR_MS, MINUTE_MS, TIER_LIMITS, failedAuthRules, keyRules } from '../../src/domain/access/limits.ts';

const minute: WindowRule = { id: 'minute', limit: 60, windowMs: MINUTE_MS };
const hour: WindowRule = { id: 'hour', limit: 5, windowMs: HOUR_MS };
const day: WindowRule = { id: 'day', limit: 5000, windowMs: DAY_MS };

const at = (iso: string): number => Date.parse(iso);

function windowState(id: string, limit: number, used: number, resetAtMs: number, windowMs?: number): WindowState {
  return { id, limit, used, remaining: Math.max(0, limit - used), resetAtMs, ...(windowMs ? { windowMs } : {}) };
}

describe('window alignment', () => {
  it('minute windows start on the minute', () => {
    assert.equal(windowResetAt(minute, at('2025-11-20T10:15:00.000Z')), at('2025-11-20T10:16:00.000Z'));
    assert.equal(windowResetAt(minute, at('2025-11-20T10:15:42.500Z')), at('2025-11-20T10:16:00.000Z'));
    assert.equal(windowResetAt(minute, at('2025-11-20T10:15:59.999Z')), at('2025-11-20T10:16:00.000Z'));
  });

  it('hour windows start on the hour', () => {
    assert.equal(windowResetAt(hour, at('2025-11-20T10:00:00.000Z')), at('2025-11-20T11:00:00.000Z'));
    assert.equal(windowResetAt(hour, at('2025-11-20T10:59:59.999Z')), at('2025-11-20T11:00:00.000Z'));
  });

  it('day windows are UTC calendar days', () => {
    assert.equal(windowResetAt(day, at('2025-11-20T00:00:00.000Z')), at('2025-11-21T00:00:00.000Z'));
    assert.equal(windowResetAt(day, at('2025-11-20T23:59:59.999Z')), at('2025-11-21T00:00:00.000Z'));
    assert.equal(windowResetAt(day, at('2025-12-31T23:59:59.999Z')), at('2026-01-01T00:00:00.000Z'));
    // A day in Madrid (UTC+1) still resets at 00:00 UTC.
    assert.equal(windowResetAt(day, at('2025-11-20T23:30:00.000+01:00')), at('2025-11-21T00:00:00.000Z'));
  });
});

describe('bindingWindow', () => {
  const minuteReset = at('2025-11-20T10:16:00Z');
  const dayReset = at('2025-11-21T00:00:00Z');

  it('picks the lowest remaining', () => {
    const m = windowState('minute', 60, 48, minuteReset);
    const d = windowState('day', 5000, 4995, dayReset);
    assert.equal(bindingWindow([m, d]), d);
    assert.equal(bindingWindow([d, m]), d);
    const m2 = windowState('minute', 60, 59, minuteReset);
    assert.equal(bindingWindow([m2, d]), m2);
  });

  it('on a tie, picks the window that resets later', () => {
    const m = windowState('minute', 60, 60, minuteReset);
    const d = windowState('day', 5000, 5000, dayReset);
    assert.equal(bindingWindow([m, d]), d);
    assert.equal(bindingWindow([d, m]), d);
  });

  it('a single window binds', () => {
    const m = windowState('minute', 30, 3, minuteReset);
    assert.equal(bindingWindow([m]), m);
  });

  it('refuses an empty list', () => {
    assert.throws(() => bindingWindow([]), RangeError);
  });
});

describe('rateLimitHeaders', () => {
  const now = at('2025-11-20T10:15:18Z');

  it('describes the binding window and lists every policy (draft-ietf-httpapi-ratelimit-headers-10)', () => {
    const windows = [
      windowState('minute', 60, 48, at('2025-11-20T10:16:00Z'), MINUTE_MS),
      windowState('day', 5000, 1200, at('2025-11-21T00:00:00Z'), DAY_MS),
    ];
    assert.deepEqual(rateLimitHeaders(windows, now), {
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '12',
      'x-ratelimit-reset': '42',
      'ratelimit-policy': '"minute";q=60;w=60, "day";q=5000;w=86400',
      ratelimit: '"minute";r=12;t=42',
    });
  });

  it('switches to the day window when the quota is nearer exhaustion', () => {
    const windows = [
      windowState('minute', 60, 1, at('2025-11-20T10:16:00Z'), MINUTE_MS),
      windowState('day', 5000, 4990, at('2025-11-21T00:00:00Z'), DAY_MS),
    ];
    const headers = rateLimitHeaders(windows, now);
    assert.equal(headers['x-ratelimit-limit'], '5000');
    assert.equal(headers['x-ratelimit-remaining'], '10');
    assert.equal(headers['x-ratelimit-reset'], String(13 * 3600 + 44 * 60 + 42));
    assert.equal(headers.ratelimit, `"day";r=10;t=${13 * 3600 + 44 * 60 + 42}`);
  });

  it('rounds the reset up to whole seconds and never below 1 inside a window', () => {
    const w = [windowState('day', 5000, 10, at('2025-11-21T00:00:00Z'), DAY_MS)];
    assert.equal(rateLimitHeaders(w, at('2025-11-20T23:59:59.999Z'))['x-ratelimit-reset'], '1');
    assert.equal(rateLimitHeaders(w, at('2025-11-20T23:59:58.001Z'))['x-ratelimit-reset'], '2');
    assert.equal(rateLimitHeaders(w, at('2025-11-20T00:00:00.000Z'))['x-ratelimit-reset'], '86400');
  });

  it('knows the length of the standard windows when a state does not carry it', () => {
    const headers = rateLimitHeaders([windowState('hour', 5, 2, at('2025-11-20T11:00:00Z'))], now);
    assert.equal(headers['ratelimit-policy'], '"hour";q=5;w=3600');
    assert.equal(headers.ratelimit, '"hour";r=3;t=2682');
  });

  it('leaves out w for a window of unknown length, and escapes ids as sf-strings', () => {
    const headers = rateLimitHeaders([windowState('odd"id\\', 7, 0, now + 5000)], now);
    assert.equal(headers['ratelimit-policy'], '"odd\\"id\\\\";q=7');
    assert.equal(headers.ratelimit, '"odd\\"id\\\\";r=7;t=5');
    assert.throws(() => rateLimitHeaders([windowState('naïve', 1, 0, now + 1000)], now), RangeError);
  });

  it('uses lower-case names and string values only', () => {
    const headers = rateLimitHeaders(keyRules('free').map((r) => windowState(r.id, r.limit, 0, windowResetAt(r, now), r.windowMs)), now);
    for (const [name, value] of Object.entries(headers)) {
      assert.equal(name, name.toLowerCase());
      assert.equal(typeof value, 'string');
    }
    assert.equal(headers['x-ratelimit-remaining'], '60');
  });

  it('is empty without windows', () => {
    assert.deepEqual(rateLimitHeaders([], now), {});
  });
});

describe('retryAfterSeconds', () => {
  const now = at('2025-11-20T10:15:18.200Z');

  it('is the ceiling of the time until the exhausted window resets', () => {
    assert.equal(retryAfterSeconds([windowState('minute', 60, 60, at('2025-11-20T10:16:00Z'))], now), 42);
  });

  it('waits for every exhausted window, ignoring windows with room', () => {
    const windows = [windowState('minute', 60, 60, at('2025-11-20T10:16:00Z')), windowState('day', 5000, 5000, at('2025-11-21T00:00:00Z'))];
    assert.equal(retryAfterSeconds(windows, now), Math.ceil((at('2025-11-21T00:00:00Z') - now) / 1000));
    const minuteOnly = [windowState('minute', 60, 60, at('2025-11-20T10:16:00Z')), windowState('day', 5000, 10, at('2025-11-21T00:00:00Z'))];
    assert.equal(retryAfterSeconds(minuteOnly, now), 42);
  });

  it('is at least 1', () => {
    assert.equal(retryAfterSeconds([windowState('minute', 60, 60, at('2025-11-20T10:16:00Z'))], at('2025-11-20T10:15:59.999Z')), 1);
    assert.equal(retryAfterSeconds([windowState('minute', 60, 60, at('2025-11-20T10:16:00Z'))], at('2025-11-20T10:16:00Z')), 1);
    assert.equal(retryAfterSeconds([windowState('minute', 60, 3, at('2025-11-20T10:16:00Z'))], now), 1);
  });

  it('agrees with the RateLimit reset on a refused request', () => {
    const windows = [windowState('minute', 60, 60, at('2025-11-20T10:16:00Z'), MINUTE_MS), windowState('day', 5000, 70, at('2025-11-21T00:00:00Z'), DAY_MS)];
    const headers = rateLimitHeaders(windows, now);
    assert.equal(headers['x-ratelimit-reset'], String(retryAfterSeconds(windows, now)));
  });
});

describe('limits', () => {
  it('publishes the tier limits', () => {
    assert.deepEqual(TIER_LIMITS, {
      free: { perMinute: 60, perDay: 5000 },
      partner: { perMinute: 300, perDay: 50000 },
      internal: { perMinute: 1000, perDay: null },
    });
  });

  it('gives keyed requests a minute burst and a daily quota', () => {
    assert.deepEqual(keyRules('free'), [
      { id: 'minute', limit: 60, windowMs: 60_000 },
      { id: 'day', limit: 5000, windowMs: 86_400_000 },
    ]);
    assert.deepEqual(keyRules('partner'), [
      { id: 'minute', limit: 300, windowMs: 60_000 },
      { id: 'day', limit: 50000, windowMs: 86_400_000 },
    ]);
  });

  it('gives internal keys no daily limit', () => {
    assert.deepEqual(keyRules('internal'), [{ id: 'minute', limit: 1000, windowMs: 60_000 }]);
  });

  it('shares frozen rules between calls', () => {
    assert.equal(keyRules('free'), keyRules('free'));
    assert.throws(() => {
      (keyRules('free')[0] as { limit: number }).limit = 1e9;
    }, TypeError);
  });

  it('limits anonymous clients per endpoint group', () => {
    assert.deepEqual(ANONYMOUS_RULES.availability, [{ id: 'minute', limit: 10, windowMs: 60_000 }]);
    assert.deepEqual(ANONYMOUS_RULES.initiate, [{ id: 'hour', limit: 5, windowMs: 3_600_000 }]);
    assert.deepEqual(ANONYMOUS_RULES.default, [{ id: 'minute', limit: 30, windowMs: 60_000 }]);
  });

  it('limits failed key attempts per minute', () => {
    assert.deepEqual(failedAuthRules(20), [{ id: 'minute', limit: 20, windowMs: 60_000 }]);
    assert.deepEqual(failedAuthRules(3), [{ id: 'minute', limit: 3, windowMs: 60_000 }]);
  });
});
