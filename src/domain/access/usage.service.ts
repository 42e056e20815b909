/** What a key can learn about itself: its description and its usage (GET /key, GET /usage). */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { latencyBucketUpperMs, listUsageDaily, listUsageLatency, sumUsageErrors, sumUsageRoutes } from '../../db/repositories/request-log.repository.ts';
import type { KeyResponse, UsageResponse } from '../../contract/access.ts';
import { addDays } from '../../zoned-time.ts';
import { TIER_LIMITS, keyRules } from './limits.ts';
import type { RateLimitStore } from './rate-limit.ts';
import type { ApiKeyRecord } from './types.ts';

export const USAGE_DAYS = 30;
export const TOP_ENDPOINTS = 10;

/**
 * The smallest bucket bound at or above the q-quantile of a histogram (bucket → count), ms,
 * rounded to 2 significant decimals; null for an empty histogram. Nearest-rank: the value of the
 * ceil(q·n)-th smallest request, rounded up to its bucket's bound.
 */
export function histogramQuantile(buckets: ReadonlyArray<{ bucket: number; count: number }>, q: number): number | null {
  const sorted = [...buckets].sort((a, b) => a.bucket - b.bucket);
  const n = sorted.reduce((sum, b) => sum + b.count, 0);
  if (n === 0) return null;
  const rank = Math.max(1, Math.ceil(q * n));
  let seen = 0;
  for (const b of sorted) {
    seen += b.count;
    if (seen >= rank) return Number(latencyBucketUpperMs(b.bucket).toPrecision(2));
  }
  return Number(latencyBucketUpperMs(sorted.at(-1)!.bucket).toPrecision(2));
}

/** Fastify's `/lawyers/:lawyerId` as the API reference writes it, `/lawyers/{lawyerId}`. */
const routeLabel = (route: string) => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

export class UsageService {
  constructor(private readonly deps: { database: Database; clock: Clock; limiter: RateLimitStore }) {}

  describe(key: ApiKeyRecord): KeyResponse {
    const nowMs = this.deps.clock.now().getTime();
    const limits = TIER_LIMITS[key.tier];
    return {
      id: key.id,
      prefix: key.prefix,
      name: key.name,
      mode: key.mode,
      tier: key.tier,
      scopes: key.scopes,
      owner: key.owner.type === 'user' ? { type: 'user', email: key.owner.email } : { type: 'firm', slug: key.owner.slug },
      limits: { per_minute: limits.perMinute, per_day: limits.perDay },
      expires_at: key.expiresAt,
      expired: key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs,
      suspension: key.suspension,
      allowed_ips: key.allowedIps,
      created_at: key.createdAt,
    };
  }

  async usage(key: ApiKeyRecord): Promise<UsageResponse> {
    const nowMs = this.deps.clock.now().getTime();
    const today = new Date(nowMs).toISOString().slice(0, 10);
    const from = addDays(today, -(USAGE_DAYS - 1));
    const db = this.deps.database.db;
    // Daily aggregates only (a few hundred rows at most): never a scan of the request log.
    const [windows, rows, errors, routes, latency] = await Promise.all([
      this.deps.limiter.peek(`key:${key.id}`, keyRules(key.tier), nowMs),
      listUsageDaily(db, key.id, from, today),
      sumUsageErrors(db, key.id, from, today),
      sumUsageRoutes(db, key.id, from, today, TOP_ENDPOINTS),
      listUsageLatency(db, key.id, from, today),
    ]);
    const byDay = new Map(rows.map((r) => [r.day, r]));
    const latencyByDay = new Map<string, typeof latency>();
    for (const r of latency) latencyByDay.set(r.day, [...(latencyByDay.get(r.day) ?? []), r]);
    const limits = TIER_LIMITS[key.tier];
    return {
      key_id: key.id,
      mode: key.mode,
      tier: key.tier,
      limits: { per_minute: limits.perMinute, per_day: limits.perDay },
      windows: windows.map((w) => ({
        id: w.id,
        limit: w.limit,
        used: w.used,
        remaining: w.remaining,
        reset_seconds: Math.max(0, Math.ceil((w.resetAtMs - nowMs) / 1000)),
        resets_at: new Date(w.resetAtMs).toISOString(),
      })),
      daily: Array.from({ length: USAGE_DAYS }, (_, i) => {
        const date = addDays(from, i);
        const r = byDay.get(date);
        const histogram = latencyByDay.get(date) ?? [];
        return {
          date,
          requests: r?.requests ?? 0,
          errors: r?.errors ?? 0,
          rate_limited: r?.rate_limited ?? 0,
          server_errors: r?.server_errors ?? 0,
          latency_ms: { p50: histogramQuantile(histogram, 0.5), p95: histogramQuantile(histogram, 0.95) },
        };
      }),
      errors_by_code: errors.map((e) => ({ code: e.code === '' ? null : e.code, count: e.count })),
      top_endpoints: routes.map((r) => ({ method: r.method, route: routeLabel(r.route), requests: r.requests, errors: r.errors })),
    };
  }
}
