/**
 * Limits of AI apps acting for a person over MCP: tool calls per person and app (like an API
 * key's free tier), and holds per person (like anonymous initiation: 5 an hour). Counted with the
 * shared limiter (memory, or Redis with several processes).
 */
import type { Clock } from '../../clock.ts';
import { ANONYMOUS_RULES, DAY_MS, MINUTE_MS, TIER_LIMITS } from '../access/limits.ts';
import { admitOrThrow, type RateLimitStore, type WindowRule } from '../access/rate-limit.ts';

/** Tool calls one app may make for one person: the free tier's minute and day windows. */
export const TOOL_CALL_RULES: readonly WindowRule[] = Object.freeze([
  { id: 'minute', limit: TIER_LIMITS.free.perMinute, windowMs: MINUTE_MS },
  { id: 'day', limit: TIER_LIMITS.free.perDay!, windowMs: DAY_MS },
]);

/** Holds one person's apps may make together: as an anonymous address may initiate. */
export const HOLD_RULES: readonly WindowRule[] = ANONYMOUS_RULES.initiate;

export interface AgentLimitsDeps {
  limiter: RateLimitStore;
  clock: Clock;
  /** RATE_LIMIT_MULTIPLIER (load tests only). */
  multiplier: number;
  onLimiterError(err: unknown): void;
}

export class AgentLimits {
  private readonly callRules: readonly WindowRule[];
  private readonly holdRules: readonly WindowRule[];
  private readonly holdMessage: string;

  constructor(private readonly deps: AgentLimitsDeps) {
    const scale = (rules: readonly WindowRule[]) => rules.map((r) => ({ ...r, limit: r.limit * deps.multiplier }));
    this.callRules = scale(TOOL_CALL_RULES);
    this.holdRules = scale(HOLD_RULES);
    // Worded apart from the limit on holds waiting for confirmation (BookingService), which has its own code.
    this.holdMessage = `This person's apps have made ${this.holdRules[0]!.limit} new holds this hour, the most allowed an hour. Hold again after retry_after_seconds; asking again for a time already held still answers that hold.`;
  }

  /** Counts one tool call of `clientId` for `userId`; throws rate_limited beyond the limits. */
  admitCall(userId: string, clientId: string): Promise<void> {
    return this.admit(`mcp:call:${userId}:${clientId}`, this.callRules, 'Too many tool calls from this app for this person; slow down.');
  }

  /** Counts one new hold for `userId` (whatever the app; a replayed hold is not one); throws rate_limited beyond the limit. */
  admitHold(userId: string): Promise<void> {
    return this.admit(`mcp:hold:${userId}`, this.holdRules, this.holdMessage);
  }

  private admit(bucket: string, rules: readonly WindowRule[], message: string): Promise<void> {
    return admitOrThrow(this.deps.limiter, bucket, rules, this.deps.clock.now().getTime(), message, this.deps.onLimiterError);
  }
}
