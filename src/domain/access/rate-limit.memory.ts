/**
 * In-process rate-limit counters, for a single process (development, tests, one-node deployments).
 * Behaves exactly like the Redis store; consume is synchronous underneath, so it is atomic.
 */
import type { ConsumeResult, RateLimitStore, WindowRule, WindowState } from './rate-limit.ts';

interface Counter {
  count: number;
  expiresAtMs: number;
}

// Once a minute of caller time is often enough: a window's key stops being looked up the moment
// the window ends (the index is part of it), so expired entries only cost memory.
const SWEEP_INTERVAL_MS = 60_000;

export interface MemoryRateLimitStoreOptions {
  /** Upper bound on live counters; past it the oldest are dropped (default 200,000 ≈ 30 MB). */
  maxEntries?: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  // Keyed like the Redis store (`bucket:id:windowIndex`, no prefix): a new window is a new counter.
  private readonly counters = new Map<string, Counter>();
  private readonly maxEntries: number;
  private nextSweepMs = 0;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxEntries = options.maxEntries ?? 200_000;
  }

  /** Live counters, for tests and diagnostics. */
  get size(): number {
    return this.counters.size;
  }

  async consume(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<ConsumeResult> {
    return this.consumeNow(bucket, rules, nowMs);
  }

  /** consume, answered at once: the API's anonymous callers are admitted without a promise (AccessService.admitAnonymousNow). */
  consumeNow(bucket: string, rules: readonly WindowRule[], nowMs: number): ConsumeResult {
    if (nowMs >= this.nextSweepMs || this.counters.size > this.maxEntries) this.sweep(nowMs);
    const n = rules.length;
    const keys: string[] = new Array<string>(n);
    const found: (Counter | undefined)[] = new Array<Counter | undefined>(n);
    let allowed = true;
    for (let i = 0; i < n; i++) {
      const rule = rules[i]!;
      const key = `${bucket}:${rule.id}:${Math.floor(nowMs / rule.windowMs)}`;
      const counter = this.counters.get(key);
      keys[i] = key;
      found[i] = counter;
      if ((counter === undefined ? 0 : counter.count) >= rule.limit) allowed = false;
    }
    const windows: WindowState[] = new Array<WindowState>(n);
    for (let i = 0; i < n; i++) {
      const rule = rules[i]!;
      const resetAtMs = (Math.floor(nowMs / rule.windowMs) + 1) * rule.windowMs;
      let counter = found[i];
      if (allowed) {
        if (counter === undefined) {
          counter = { count: 1, expiresAtMs: resetAtMs };
          this.counters.set(keys[i]!, counter);
        } else {
          counter.count++;
        }
      }
      windows[i] = state(rule, counter === undefined ? 0 : counter.count, resetAtMs);
    }
    return { allowed, windows };
  }

  async peek(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<WindowState[]> {
    return rules.map((rule) => {
      const index = Math.floor(nowMs / rule.windowMs);
      const counter = this.counters.get(`${bucket}:${rule.id}:${index}`);
      return state(rule, counter === undefined ? 0 : counter.count, (index + 1) * rule.windowMs);
    });
  }

  async close(): Promise<void> {
    this.counters.clear();
  }

  private sweep(nowMs: number): void {
    this.nextSweepMs = nowMs + SWEEP_INTERVAL_MS;
    for (const [key, counter] of this.counters) {
      if (counter.expiresAtMs <= nowMs) this.counters.delete(key);
    }
    if (this.counters.size <= this.maxEntries) return;
    // Still over the bound with live counters (a flood of distinct addresses): drop the oldest,
    // down to 90% so the next sweep is thousands of requests away rather than the next one.
    let excess = this.counters.size - Math.floor(this.maxEntries * 0.9);
    for (const key of this.counters.keys()) {
      if (excess-- <= 0) break;
      this.counters.delete(key);
    }
  }
}

function state(rule: WindowRule, used: number, resetAtMs: number): WindowState {
  return { id: rule.id, limit: rule.limit, used, remaining: Math.max(0, rule.limit - used), resetAtMs, windowMs: rule.windowMs };
}
