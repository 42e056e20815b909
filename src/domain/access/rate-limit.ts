/**
 * Fixed-window rate limiting: the store contract, the memory/Redis factory, and the pure helpers
 * that turn window states into response headers.
 *
 * Windows are aligned to the Unix epoch and indexed with the caller's clock (`nowMs`), never the
 * store's, so tests can move time and several processes agree on which window a request is in.
 */
import { DomainError } from '../errors.ts';
import { MemoryRateLimitStore } from './rate-limit.memory.ts';
import { RedisRateLimitStore } from './rate-limit.redis.ts';

/** A fixed window aligned to the Unix epoch: 'minute' windows start on the minute, 'day' at 00:00 UTC. */
export interface WindowRule {
  id: string;
  limit: number;
  windowMs: number;
}

export interface WindowState {
  id: string;
  limit: number;
  used: number;
  remaining: number;
  /** epoch ms when the window resets */
  resetAtMs: number;
  /**
   * The window's length. The stores always set it; it is optional only so hand-built states stay
   * valid. `RateLimit-Policy` needs it for the `w` parameter.
   */
  windowMs?: number;
}

export interface ConsumeResult {
  allowed: boolean;
  windows: WindowState[];
}

export interface RateLimitStore {
  /** Atomically: when every window has room, count one request in all of them; otherwise count nothing (a refused request does not use quota). */
  consume(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<ConsumeResult>;
  /** The same as consume, answered synchronously: only a store in this process has it (the memory store). */
  consumeNow?(bucket: string, rules: readonly WindowRule[], nowMs: number): ConsumeResult;
  /** The windows' state without counting. */
  peek(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<WindowState[]>;
  close(): Promise<void>;
}

export const DEFAULT_RATE_LIMIT_PREFIX = 'consulta:rl';

/** Epoch ms at which the window containing `nowMs` ends. */
export function windowResetAt(rule: WindowRule, nowMs: number): number {
  return (Math.floor(nowMs / rule.windowMs) + 1) * rule.windowMs;
}

/** The window nearest exhaustion: lowest remaining; on a tie the one that resets later. */
export function bindingWindow(windows: readonly WindowState[]): WindowState {
  let best = windows[0];
  if (best === undefined) throw new RangeError('bindingWindow needs at least one window');
  for (let i = 1; i < windows.length; i++) {
    const w = windows[i]!;
    if (w.remaining < best.remaining || (w.remaining === best.remaining && w.resetAtMs > best.resetAtMs)) best = w;
  }
  return best;
}

/** Whole seconds until `resetAtMs`, rounded up so a client that waits that long finds the window reset. */
function secondsUntil(resetAtMs: number, nowMs: number): number {
  return Math.max(0, Math.ceil((resetAtMs - nowMs) / 1000));
}

// Lengths for the ids the limits use, so hand-built states without `windowMs` still get `w`.
const KNOWN_WINDOW_MS: Readonly<Record<string, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

const sfStrings = new Map<string, string>();

/** An RFC 8941 sf-string; memoised because the same few policy ids are serialised on every response. */
function sfString(value: string): string {
  let out = sfStrings.get(value);
  if (out === undefined) {
    if (!/^[\x20-\x7e]*$/.test(value)) throw new RangeError(`rate-limit policy id is not printable ASCII: ${JSON.stringify(value)}`);
    out = `"${value.replace(/[\\"]/g, '\\$&')}"`;
    if (sfStrings.size < 256) sfStrings.set(value, out);
  }
  return out;
}

/**
 * X-RateLimit-Limit/Remaining/Reset, RateLimit-Policy, RateLimit (lower-case header names).
 *
 * The IETF fields follow draft-ietf-httpapi-ratelimit-headers-10 (September 2025; unchanged in
 * -11): both are Structured Field Lists whose items are sf-strings naming a quota policy.
 * `RateLimit-Policy` lists every window (`"minute";q=60;w=60, "day";q=5000;w=86400`), and
 * `RateLimit` reports only the window nearest exhaustion (`"minute";r=12;t=42`), as the draft
 * asks for multi-window policies and so that it agrees with X-RateLimit-* and Retry-After.
 */
export function rateLimitHeaders(windows: readonly WindowState[], nowMs: number): Record<string, string> {
  if (windows.length === 0) return {};
  const binding = bindingWindow(windows);
  const reset = String(secondsUntil(binding.resetAtMs, nowMs));
  let policy = '';
  for (const w of windows) {
    const windowMs = w.windowMs ?? KNOWN_WINDOW_MS[w.id];
    if (policy !== '') policy += ', ';
    policy += `${sfString(w.id)};q=${w.limit}`;
    // `w` is optional in the draft: a window of unknown length is better left out than guessed.
    if (windowMs !== undefined) policy += `;w=${Math.ceil(windowMs / 1000)}`;
  }
  return {
    'x-ratelimit-limit': String(binding.limit),
    'x-ratelimit-remaining': String(binding.remaining),
    'x-ratelimit-reset': reset,
    'ratelimit-policy': policy,
    ratelimit: `${sfString(binding.id)};r=${binding.remaining};t=${reset}`,
  };
}

/** For a refused request: seconds until every exhausted window has room again (ceil, ≥ 1). */
export function retryAfterSeconds(windows: readonly WindowState[], nowMs: number): number {
  let seconds = 1;
  for (const w of windows) {
    if (w.remaining <= 0) seconds = Math.max(seconds, secondsUntil(w.resetAtMs, nowMs));
  }
  return seconds;
}

/**
 * Counts one event in `bucket` and throws `rate_limited` (with its Retry-After) when a window is
 * exhausted. A limiter outage lets the event through, as the API does, and is reported to
 * `onError`: a Redis hiccup must not lock people out of signing in or their apps out of working.
 */
export async function admitOrThrow(
  limiter: RateLimitStore,
  bucket: string,
  rules: readonly WindowRule[],
  nowMs: number,
  message: string,
  onError?: (err: unknown) => void,
): Promise<void> {
  let result: ConsumeResult;
  try {
    result = await limiter.consume(bucket, rules, nowMs);
  } catch (err) {
    onError?.(err);
    return;
  }
  if (!result.allowed) throw new DomainError('rate_limited', message, undefined, { 'retry-after': String(retryAfterSeconds(result.windows, nowMs)) });
}

/** Redis when a URL is given (shared by every process), else memory (this process only). */
export function createRateLimitStore(options: { redisUrl: string | null; prefix?: string }): RateLimitStore {
  if (options.redisUrl) return new RedisRateLimitStore({ url: options.redisUrl, prefix: options.prefix ?? DEFAULT_RATE_LIMIT_PREFIX });
  return new MemoryRateLimitStore();
}
