/**
 * The published rate limits: per API-key tier, per anonymous client address and endpoint group,
 * and for failed API-key attempts. The HTTP layer picks the rules; the store enforces them.
 */
import type { WindowRule } from './rate-limit.ts';
import type { Tier } from './types.ts';

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
/** A UTC calendar day: epoch-aligned day windows start at 00:00 UTC (Unix time has no leap seconds). */
export const DAY_MS = 86_400_000;

export const TIER_LIMITS: Record<Tier, { perMinute: number; perDay: number | null }> = {
  free: { perMinute: 60, perDay: 5_000 },
  partner: { perMinute: 300, perDay: 50_000 },
  internal: { perMinute: 1_000, perDay: null },
};

function rule(id: string, limit: number, windowMs: number): WindowRule {
  return Object.freeze({ id, limit, windowMs });
}

// Built once: keyRules runs on every keyed request.
const KEY_RULES = Object.fromEntries(
  Object.entries(TIER_LIMITS).map(([tier, { perMinute, perDay }]) => [
    tier,
    Object.freeze(perDay === null ? [rule('minute', perMinute, MINUTE_MS)] : [rule('minute', perMinute, MINUTE_MS), rule('day', perDay, DAY_MS)]),
  ]),
) as Record<Tier, WindowRule[]>;

/** A tier's windows: the minute burst, then the daily quota (none for internal). Shared and frozen. */
export function keyRules(tier: Tier): WindowRule[] {
  return KEY_RULES[tier];
}

export type AnonymousGroup = 'availability' | 'initiate' | 'default';

/**
 * Per client address. Groups share window ids ('minute'), so callers must put the group in the
 * bucket name (e.g. `ip:<address>:availability`) to keep their counters apart.
 */
export const ANONYMOUS_RULES: Record<AnonymousGroup, readonly WindowRule[]> = {
  availability: Object.freeze([rule('minute', 10, MINUTE_MS)]),
  initiate: Object.freeze([rule('hour', 5, HOUR_MS)]),
  default: Object.freeze([rule('minute', 30, MINUTE_MS)]),
};

/** Failed API-key attempts per client address (config `maxFailedAuthPerMinute`, default 20). */
export function failedAuthRules(perMinute: number): WindowRule[] {
  return [rule('minute', perMinute, MINUTE_MS)];
}
