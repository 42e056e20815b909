/**
 * Who is calling and what they may do: the one place that turns an `Authorization` header and
 * a client address into a caller, applies the rate limits, and checks a route's requirements.
 * The HTTP layer (and later MCP) only asks; every rule is here.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { DomainError } from '../errors.ts';
import { keyStatus } from './api-key.ts';
import { compileAllowList } from './ip-allowlist.ts';
import { ANONYMOUS_RULES, failedAuthRules, keyRules, type AnonymousGroup } from './limits.ts';
import { retryAfterSeconds, type ConsumeResult, type RateLimitStore, type WindowRule, type WindowState } from './rate-limit.ts';
import type { ApiKeyRecord, Scope } from './types.ts';
import { originAllowed } from './web-origins.ts';

export type Caller =
  | { kind: 'anonymous'; ip: string }
  | { kind: 'key'; ip: string; key: ApiKeyRecord };

/** What a route needs from its caller. */
export interface RouteAccess {
  /** Required scope for keyed callers; anonymous callers may use the route unless `keyRequired`. */
  scope?: Scope;
  keyRequired?: boolean;
  /** Which anonymous per-address limit applies. */
  anonymousGroup?: AnonymousGroup;
  /**
   * Diagnostic routes (GET /key, GET /usage) work while the key's windows are exhausted and for
   * expired or suspended keys, so an agent can find out why it is refused. They have their own limit.
   */
  diagnostic?: boolean;
  /**
   * Replays come before limits: an anonymous caller over its limit who sends an Idempotency-Key
   * is let through to the route, which answers a stored outcome for that key or else refuses with
   * the limit's error (issue 17: a retry after the hourly limit got 429 instead of its hold).
   */
  replayBeforeLimit?: boolean;
}

export interface KeyLookup {
  findByToken(token: string): Promise<ApiKeyRecord | null>;
}

export interface AccessServiceDeps {
  keys: KeyLookup;
  limiter: RateLimitStore;
  clock: Clock;
  keyCacheTtlMs: number;
  maxFailedAuthPerMinute: number;
  /** Scales every limit (load tests only; 1 otherwise). */
  rateLimitMultiplier?: number;
  /** Called when the limiter store fails; the request is then let through (fail open). */
  onLimiterError?: (err: unknown) => void;
}

/** Diagnostic routes: generous, separate from the key's quota. */
const DIAGNOSTIC_RULES: readonly WindowRule[] = [{ id: 'minute', limit: 60, windowMs: 60_000 }];

interface CachedKey {
  record: ApiKeyRecord | null;
  allowed: ((ip: string) => boolean) | null;
  fetchedAt: number;
}

const BEARER = /^Bearer[ ]+(\S+)\s*$/i;
const MAX_CACHED_KEYS = 10_000;

/** An anonymous caller's counter and rules: per address, in the route's group (both admission paths use it). */
function anonymousLimit(route: RouteAccess, ip: string): { bucket: string; rules: readonly WindowRule[] } {
  const group = route.anonymousGroup ?? 'default';
  return { bucket: `anon:${group}:${ip}`, rules: ANONYMOUS_RULES[group] };
}

export class AccessService {
  private readonly cache = new Map<string, CachedKey>();
  private readonly failedRules: readonly WindowRule[];
  private readonly scaled = new Map<readonly WindowRule[], readonly WindowRule[]>();

  constructor(private readonly deps: AccessServiceDeps) {
    this.failedRules = failedAuthRules(deps.maxFailedAuthPerMinute);
  }

  /** The rules as enforced: scaled by the multiplier, computed once per rule set. */
  private enforced(rules: readonly WindowRule[]): readonly WindowRule[] {
    const m = this.deps.rateLimitMultiplier ?? 1;
    if (m === 1) return rules;
    let out = this.scaled.get(rules);
    if (!out) {
      out = rules.map((r) => ({ ...r, limit: r.limit * m }));
      this.scaled.set(rules, out);
    }
    return out;
  }

  /**
   * Who is calling: anonymous (no Authorization header) or a valid key. Throws for a bad key
   * (401), an address outside the key's allow-list, an expired or a suspended key.
   */
  async authenticate(authorization: string | undefined, ip: string, route: RouteAccess, origin?: string): Promise<Caller> {
    const caller = await this.resolve(authorization, ip, this.deps.clock.now().getTime(), route.diagnostic === true);
    // A publishable key works only from a browser page on its list (a server sends no Origin).
    if (caller.kind === 'key' && caller.key.kind === 'publishable' && !originAllowed(caller.key.allowedOrigins ?? [], origin)) {
      throw new DomainError('origin_not_allowed', 'This publishable key works only from the web origins its owner listed; this request came from elsewhere.');
    }
    return caller;
  }

  /**
   * The widget frame's key (src/site/widget/), from one cached lookup: the record as stored,
   * whatever its state (the frame names its origins even to say it is off), and whether it may
   * serve — the same checks as a bearer token (revoked, expired, suspended, IP allow-list),
   * without the Origin test: the browser enforces `frame-ancestors` there. Null for anything
   * that is not a publishable key's well-formed token.
   */
  async publishableFrameKey(token: string, ip: string): Promise<{ record: ApiKeyRecord; active: boolean } | null> {
    if (!token.startsWith('pk_')) return null;
    const nowMs = this.deps.clock.now().getTime();
    const entry = await this.lookup(token, nowMs);
    const record = entry.record;
    if (record?.kind !== 'publishable') return null;
    const active = keyStatus(record, new Date(nowMs)) === 'active' && (entry.allowed === null || entry.allowed(ip));
    return { record, active };
  }

  /**
   * Counts the request against the caller's rate limits and checks the route's requirements
   * (key required, scope). Returns the windows to describe in headers; throws when refused
   * (a 429 error carries its windows). Every admitted request counts, whatever its outcome.
   */
  async admit(caller: Caller, route: RouteAccess): Promise<WindowState[] | null> {
    const windows = await this.consume(caller, route, this.deps.clock.now().getTime());
    this.checkRoute(caller, route);
    return windows;
  }

  /**
   * authenticate and admit for a request without an `Authorization` header, answered at once when
   * the limiter is in this process (the memory store; a cached API read is about 20 µs of CPU and
   * the two promise chains were a few percent of it): the same caller, windows, errors and
   * headers. `undefined` when the limiter is not (Redis): then authenticate and admit as usual.
   */
  admitAnonymousNow(ip: string, route: RouteAccess): WindowState[] | null | undefined {
    const limiter = this.deps.limiter;
    if (limiter.consumeNow === undefined) return undefined;
    const caller: Caller = { kind: 'anonymous', ip };
    const { bucket, rules } = anonymousLimit(route, ip);
    const nowMs = this.deps.clock.now().getTime();
    let result: ConsumeResult;
    try {
      result = limiter.consumeNow(bucket, this.enforced(rules), nowMs);
    } catch (err) {
      this.deps.onLimiterError?.(err);
      this.checkRoute(caller, route);
      return null;
    }
    this.refuseIfExhausted(caller, result, nowMs);
    this.checkRoute(caller, route);
    return result.windows;
  }

  /** The route's requirements: a key where one is required, and its scope. */
  private checkRoute(caller: Caller, route: RouteAccess): void {
    if (caller.kind === 'anonymous') {
      if (route.keyRequired) {
        throw new DomainError('authentication_required', 'This endpoint needs an API key: send Authorization: Bearer <API_KEY>.', undefined, {
          'www-authenticate': 'Bearer realm="consulta"',
        });
      }
    } else if (route.scope && !caller.key.scopes.includes(route.scope)) {
      throw new DomainError('insufficient_scope', `This API key lacks the scope "${route.scope}" that this endpoint requires.`, undefined, {
        'www-authenticate': `Bearer realm="consulta", error="insufficient_scope", scope="${route.scope}"`,
      });
    }
  }

  /** Forgets cached keys (after a change in this process). */
  invalidate(): void {
    this.cache.clear();
  }

  private async resolve(authorization: string | undefined, ip: string, nowMs: number, diagnostic: boolean): Promise<Caller> {
    if (authorization === undefined || authorization === '') return { kind: 'anonymous', ip };
    // Brute-force guard: an address that keeps presenting bad keys is refused before any lookup.
    const failedBucket = `authfail:${ip}`;
    const failed = await this.safePeek(failedBucket, this.failedRules, nowMs);
    if (failed && failed.some((w) => w.remaining <= 0)) {
      throw new DomainError('rate_limited', 'Too many requests with invalid API keys from this address.', undefined, {
        'retry-after': String(retryAfterSeconds(failed, nowMs)),
      });
    }
    const match = BEARER.exec(authorization);
    const entry = match ? await this.lookup(match[1]!, nowMs) : null;
    const key = entry?.record ?? null;
    if (!key || key.revokedAt !== null) {
      await this.safeConsume(failedBucket, this.failedRules, nowMs);
      const detail = match
        ? 'The API key is not valid (unknown, revoked or malformed). MCP access tokens are not accepted by the REST API.'
        : 'The Authorization header must be "Bearer <API_KEY>".';
      throw new DomainError('invalid_api_key', detail, undefined, { 'www-authenticate': 'Bearer realm="consulta", error="invalid_token"' });
    }
    if (entry!.allowed && !entry!.allowed(ip)) {
      throw new DomainError('ip_not_allowed', 'This API key may not be used from this address (it is not on the key\'s IP allow-list).');
    }
    if (!diagnostic) {
      if (key.expiresAt !== null && Date.parse(key.expiresAt) <= nowMs) {
        throw new DomainError('expired_api_key', `This API key expired at ${key.expiresAt}.`, undefined, {
          'www-authenticate': 'Bearer realm="consulta", error="invalid_token", error_description="expired"',
        });
      }
      if (key.suspension) {
        const by = key.suspension.by === 'firm' ? 'by its firm' : 'by Consulta';
        throw new DomainError('api_key_suspended', `This API key was suspended ${by} at ${key.suspension.at}. GET /api/v1/key describes it.`);
      }
    }
    return { kind: 'key', ip, key };
  }

  private async lookup(token: string, nowMs: number): Promise<CachedKey> {
    // Secret keys are cached under their hash, never as text a heap dump could show; a publishable
    // key is public by design (it is in every embedding page's source), so its text is its own
    // cache key and a widget's frame or API call skips the hash.
    const cacheKey = token.startsWith('pk_') ? token : createHash('sha256').update(token).digest('hex');
    const hit = this.cache.get(cacheKey);
    if (hit && nowMs - hit.fetchedAt < this.deps.keyCacheTtlMs && nowMs >= hit.fetchedAt) return hit;
    const record = await this.deps.keys.findByToken(token);
    const entry: CachedKey = {
      record,
      // An allow-list, even an empty one, admits only its entries (fail closed); null means any address.
      allowed: record?.allowedIps ? compileAllowList(record.allowedIps) : null,
      fetchedAt: nowMs,
    };
    // Unknown tokens are not cached: they are counted against the address instead.
    if (record) {
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
      this.cache.set(cacheKey, entry);
    }
    return entry;
  }

  private async consume(caller: Caller, route: RouteAccess, nowMs: number): Promise<WindowState[] | null> {
    let bucket: string;
    let rules: readonly WindowRule[];
    if (caller.kind === 'key' && caller.key.kind === 'publishable' && !route.diagnostic) {
      // A publishable key is in every visitor's hands: each visitor address gets the anonymous
      // limits of its own under the key (so one visitor cannot use up the key), and all of them
      // together count against the key's tier.
      await this.consumeOrRefuse(caller, `pk:${caller.key.id}:${route.anonymousGroup ?? 'default'}:${caller.ip}`, ANONYMOUS_RULES[route.anonymousGroup ?? 'default'], nowMs);
    }
    if (caller.kind === 'key') {
      bucket = route.diagnostic ? `diag:${caller.key.id}` : `key:${caller.key.id}`;
      rules = route.diagnostic ? DIAGNOSTIC_RULES : keyRules(caller.key.tier);
    } else {
      ({ bucket, rules } = anonymousLimit(route, caller.ip));
    }
    return this.consumeOrRefuse(caller, bucket, rules, nowMs);
  }

  private async consumeOrRefuse(caller: Caller, bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<WindowState[] | null> {
    let result;
    try {
      result = await this.deps.limiter.consume(bucket, this.enforced(rules), nowMs);
    } catch (err) {
      this.deps.onLimiterError?.(err);
      return null;
    }
    this.refuseIfExhausted(caller, result, nowMs);
    return result.windows;
  }

  /** Throws rate_limited (with Retry-After, and the windows for the headers) when a window was full. */
  private refuseIfExhausted(caller: Caller, result: ConsumeResult, nowMs: number): void {
    if (!result.allowed) {
      const retryAfter = retryAfterSeconds(result.windows, nowMs);
      const who = caller.kind === 'key' ? 'this API key' : 'anonymous requests from this address';
      const err = new DomainError('rate_limited', `Rate limit exceeded for ${who}; retry after ${retryAfter} s.`, undefined, {
        'retry-after': String(retryAfter),
      });
      (err as DomainError & { windows?: WindowState[] }).windows = result.windows;
      throw err;
    }
  }

  private async safePeek(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<WindowState[] | null> {
    try {
      return await this.deps.limiter.peek(bucket, rules, nowMs);
    } catch (err) {
      this.deps.onLimiterError?.(err);
      return null;
    }
  }

  private async safeConsume(bucket: string, rules: readonly WindowRule[], nowMs: number): Promise<void> {
    try {
      await this.deps.limiter.consume(bucket, rules, nowMs);
    } catch (err) {
      this.deps.onLimiterError?.(err);
    }
  }
}
