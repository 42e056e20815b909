/**
 * Rate-limit counters in Redis, shared by every process of a deployment. One Lua script checks
 * every window and then counts in all of them, so concurrent requests (from any process) can
 * never overshoot a limit, and a refused request uses no quota.
 *
 * Redis must never hang a request: commands time out quickly, are not queued while the
 * connection is down, and are retried at most once. Failures reject `consume`; the HTTP layer
 * decides whether to fail open.
 */
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import type { ConsumeResult, RateLimitStore, WindowRule, WindowState } from './rate-limit.ts';

// KEYS: one counter per window. ARGV: the n limits, then the n TTLs in ms.
// Returns { allowed (1|0), count_1, …, count_n } with counts after counting (or as found, if refused).
const CONSUME_LUA = `
local n = #KEYS
local result = { 1 }
for i = 1, n do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  result[i + 1] = count
  if count >= tonumber(ARGV[i]) then result[1] = 0 end
end
if result[1] == 1 then
  for i = 1, n do
    local count = redis.call('INCR', KEYS[i])
    result[i + 1] = count
    if count == 1 then redis.call('PEXPIRE', KEYS[i], ARGV[n + i]) end
  end
end
return result
`;
const CONSUME_SHA = createHash('sha1').update(CONSUME_LUA).digest('hex');

// Keys outlive their window a little so a process whose clock lags slightly still finds the count.
const EXPIRY_GRACE_MS = 5_000;

export interface RedisRateLimitStoreOptions {
  url: string;
  prefix: string;
  commandTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export class RedisRateLimitStore implements RateLimitStore {
  private readonly redis: Redis;
  private readonly prefix: string;
  private connection: Promise<void> | null = null;

  constructor(options: RedisRateLimitStoreOptions) {
    this.prefix = options.prefix;
    this.redis = new Redis(options.url, {
      // Connect on first use, so building the app (tests, CLI commands) opens no socket.
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs ?? 1_000,
      commandTimeout: options.commandTimeoutMs ?? 250,
      maxRetriesPerRequest: 1,
      // Fail at once while disconnected instead of queueing requests behind a dead connection.
      enableOfflineQueue: false,
      // The ready check (INFO) and client-info handshake are not covered by commandTimeout, so a
      // server that accepts but never answers would hold the first requests for seconds; without
      // them the first command is sent at once and times out like any other.
      enableReadyCheck: false,
      disableClientInfo: true,
    });
    // Connection errors surface as rejected commands; ioredis keeps reconnecting in the background.
    // Without a listener, ioredis would print every reconnection failure to stderr.
    this.redis.on('error', () => {});
  }

  async consume(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<ConsumeResult> {
    const pending = this.ready();
    if (pending !== null) await pending;
    const n = rules.length;
    const args: (string | number)[] = new Array<string | number>(2 * n);
    const keys: string[] = new Array<string>(n);
    for (let i = 0; i < n; i++) {
      const rule = rules[i]!;
      const index = Math.floor(nowMs / rule.windowMs);
      keys[i] = `${this.prefix}:${bucket}:${rule.id}:${index}`;
      args[i] = rule.limit;
      // PEXPIRE (relative), not PEXPIREAT: windows follow the caller's clock, and an absolute
      // time in that frame would delete the key at once wherever the Redis clock is ahead
      // (a manual clock in tests, or plain skew).
      args[n + i] = (index + 1) * rule.windowMs - nowMs + EXPIRY_GRACE_MS;
    }
    const reply = await this.evalConsume(keys, args);
    const allowed = reply[0] === 1;
    const windows: WindowState[] = new Array<WindowState>(n);
    for (let i = 0; i < n; i++) windows[i] = state(rules[i]!, Number(reply[i + 1] ?? 0), nowMs);
    return { allowed, windows };
  }

  async peek(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<WindowState[]> {
    if (rules.length === 0) return [];
    const pending = this.ready();
    if (pending !== null) await pending;
    const keys = rules.map((rule) => `${this.prefix}:${bucket}:${rule.id}:${Math.floor(nowMs / rule.windowMs)}`);
    const counts = await this.redis.mget(keys);
    return rules.map((rule, i) => state(rule, Number(counts[i] ?? 0), nowMs));
  }

  async close(): Promise<void> {
    if (this.redis.status === 'ready') {
      try {
        await this.redis.quit();
        return;
      } catch {
        // Fall through: the connection went away while quitting.
      }
    }
    this.redis.disconnect();
  }

  /**
   * The first call connects; calls made while that is in progress wait for it rather than fail.
   * Later, while ioredis reconnects after a drop, commands fail fast (no offline queue).
   */
  private ready(): Promise<void> | null {
    const status = this.redis.status;
    if (status === 'ready') return null;
    if (status === 'wait') this.connection = this.redis.connect();
    return this.connection;
  }

  private async evalConsume(keys: string[], args: (string | number)[]): Promise<number[]> {
    try {
      return (await this.redis.evalsha(CONSUME_SHA, keys.length, ...keys, ...args)) as number[];
    } catch (error) {
      // The script cache is empty after a Redis restart or on a fresh server: load it once.
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await this.redis.eval(CONSUME_LUA, keys.length, ...keys, ...args)) as number[];
    }
  }
}

function state(rule: WindowRule, used: number, nowMs: number): WindowState {
  const resetAtMs = (Math.floor(nowMs / rule.windowMs) + 1) * rule.windowMs;
  return { id: rule.id, limit: rule.limit, used, remaining: Math.max(0, rule.limit - used), resetAtMs, windowMs: rule.windowMs };
}
