/** What a key can learn about itself: its description and its usage (GET /key, GET /usage). */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { listUsageDaily } from '../../db/repositories/request-log.repository.ts';
import type { KeyResponse, UsageResponse } from '../../contract/access.ts';
import { addDays } from '../directory/zoned-time.ts';
import { TIER_LIMITS, keyRules } from './limits.ts';
import type { RateLimitStore } from './rate-limit.ts';
import type { ApiKeyRecord } from './types.ts';

export const USAGE_DAYS = 30;

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
    const [windows, rows] = await Promise.all([
      this.deps.limiter.peek(`key:${key.id}`, keyRules(key.tier), nowMs),
      listUsageDaily(this.deps.database.db, key.id, from, today),
    ]);
    const byDay = new Map(rows.map((r) => [r.day, r]));
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
        return { date, requests: r?.requests ?? 0, errors: r?.errors ?? 0, rate_limited: r?.rate_limited ?? 0 };
      }),
    };
  }
}
