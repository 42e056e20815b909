/**
 * A lawyer's own calendar feed (issue 18, item 4; docs/lawyers.md#busy-times-from-her-own-calendar):
 * she gives the secret iCalendar address of her calendar; its busy times are read every 15
 * minutes (and on demand, at most once a minute) and replace her `lawyer_busy_intervals` (source
 * 'ical') as a whole, in the transaction that records the read and the lawyer change, so
 * availability follows within a second. A read that fails keeps the last good intervals and
 * records why. Nothing of the calendar but the instants is stored.
 *
 * Every method takes the lawyer id the caller has already established as the signed-in user's
 * own (the portal's guard): nothing here takes an id from a request.
 *
 * Only a lawyer the operator has verified may have a feed read (issue 25): anyone who fills in
 * /join has a lawyer record, and reading a feed spends the server's CPU on someone else's text.
 * That text is expanded in a worker thread (calendar-thread.ts), within a work budget and a cap on
 * events (ics-busy.ts) and a wall-clock limit; past them the feed is refused with a reason she
 * can read (docs/security.md#untrusted-input-that-costs-cpu-issue-25).
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  claimFeed,
  claimManualRefresh,
  deleteFeed,
  findFeed,
  findLawyerCalendarFacts,
  listDueFeeds,
  recordFeedFailure,
  recordFeedNotModified,
  recordFeedSuccess,
  upsertFeed,
  type CalendarFeedRow,
} from '../../db/repositories/calendar-feed.repository.ts';
import { replaceBusyIntervals } from '../../db/repositories/schedule.repository.ts';
import { resolveTarget, systemResolver, TargetRefusedError, type AddressPolicy, type HostResolver } from '../webhooks/address-policy.ts';
import { CalendarThread } from './calendar-thread.ts';
import { FeedHttpClient, type FeedErrorCode } from './feed-http.ts';
import { MAX_EVENTS, WORK_BUDGET } from './ics-busy.ts';

/** How often the jobs runner reads each feed. */
export const REFRESH_EVERY_MS = 15 * 60_000;
/** Her "refresh now": at most one a minute. */
export const MANUAL_REFRESH_EVERY_MS = 60_000;
/** Validators (ETag, Last-Modified) are sent only while the stored intervals are this fresh: the window moves every day. */
const FULL_READ_EVERY_MS = 24 * 3_600_000;
export const FEED_MAX_BYTES = 5 * 1024 * 1024;
export const FEED_TIMEOUT_MS = 10_000;
export const MAX_BUSY_INTERVALS = 5_000;
/** Wall-clock time the worker may spend on one feed before it is terminated. */
export const PARSE_TIME_LIMIT_MS = 10_000;
/** The worker's heap: a 5 MB feed parses in well under it. */
const READER_HEAP_MB = 256;
const MAX_URL_LENGTH = 2_000;
/** Her horizon is capped here whatever lawyers.horizon_days says. */
const MAX_HORIZON_DAYS = 366;

/** Why an address was not accepted (calendarFeed.invalid in the catalogues). */
export type FeedAddressProblem = 'empty' | 'too_long' | 'not_url' | 'scheme' | 'credentials' | 'refused';

/** She is not (or no longer) verified: no feed is saved or read (calendarFeed.notVerified). */
export class FeedNotAllowedError extends Error {
  constructor() {
    super('only a verified lawyer may add her calendar');
    this.name = 'FeedNotAllowedError';
  }
}

export class FeedAddressError extends Error {
  constructor(
    readonly problem: FeedAddressProblem,
    detail: string,
  ) {
    super(detail);
    this.name = 'FeedAddressError';
  }
}

/** What the portal shows of her feed: never the address itself. */
export interface FeedStatus {
  /** Host and the last characters of the address ("calendar.google.com … a1b2"). */
  hint: string;
  addedAt: string;
  lastAttemptAt: string | null;
  lastSuccessAt: string | null;
  busyCount: number;
  lastError: { code: FeedErrorCode; detail: string; at: string } | null;
  /** When she may press "refresh now" again (null: now). */
  refreshAllowedAt: string | null;
}

export type RefreshOutcome =
  | { outcome: 'stored'; intervals: number; truncated: boolean }
  | { outcome: 'not_modified' }
  | { outcome: 'failed'; code: FeedErrorCode; detail: string }
  /** The feed was removed or its address replaced while it was being read: nothing recorded. */
  | { outcome: 'superseded' };

export interface CalendarFeedDeps {
  database: Database;
  clock: Clock;
  /** This process's directory cache: forgets her availability at once (other processes through lawyer_changes). */
  cache?: { lawyersChanged(ids: Iterable<string>): void };
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http and any address (local development and tests only). */
  allowInsecureTargets: boolean;
  resolver?: HostResolver;
  policy?: AddressPolicy;
  tls?: { ca: string };
  timeoutMs?: number;
  maxBytes?: number;
  maxIntervals?: number;
  /** Bounds of the expansion (tests): PARSE_TIME_LIMIT_MS, WORK_BUDGET, MAX_EVENTS. */
  parseTimeLimitMs?: number;
  workBudget?: number;
  maxEvents?: number;
}

/**
 * The address without its secret, as Stripe shows key endings: the host, and the last 4
 * characters of the path and query before a final `….ics` file name (Google's `…/basic.ics`,
 * Outlook's `…/calendar.ics` are the same for everyone; the token before them is not).
 */
export function addressHint(url: string): string {
  const u = new URL(url);
  const segments = u.pathname.split('/').filter(Boolean);
  let file = '';
  const last = segments[segments.length - 1];
  if (segments.length > 1 && last !== undefined && /\.ics$/i.test(last) && last.length <= 24) {
    segments.pop();
    file = `/${last}`;
  }
  const tail = `${segments.join('/')}${u.search}`.slice(-4);
  return `${u.host} … ${tail}${file}`;
}

export class CalendarFeedService {
  private readonly http: FeedHttpClient;
  private readonly resolver: HostResolver;
  private readonly reader: CalendarThread;

  constructor(private readonly deps: CalendarFeedDeps) {
    this.resolver = deps.resolver ?? systemResolver;
    this.http = new FeedHttpClient({
      timeoutMs: deps.timeoutMs ?? FEED_TIMEOUT_MS,
      maxBytes: deps.maxBytes ?? FEED_MAX_BYTES,
      allowInsecureTargets: deps.allowInsecureTargets,
      resolver: deps.resolver,
      policy: deps.policy,
      tls: deps.tls,
    });
    this.reader = new CalendarThread({ timeLimitMs: deps.parseTimeLimitMs ?? PARSE_TIME_LIMIT_MS, maxHeapMb: READER_HEAP_MB });
  }

  /** Whether she may have a feed: verified by the operator and not expired (lawyers.verified). */
  async allowed(lawyerId: string): Promise<boolean> {
    return (await findLawyerCalendarFacts(this.deps.database.db, lawyerId))?.verified === 1;
  }

  private now(): Date {
    return this.deps.clock.now();
  }

  /**
   * Checks an address as she typed it and returns the one to store: trimmed, `webcal://` read as
   * `https://`, https only, no user name or password, at most 2,000 characters, and (outside the
   * test affordance) a host whose every address is public.
   */
  async normalizeAddress(raw: string): Promise<string> {
    const text = raw.trim();
    if (text === '') throw new FeedAddressError('empty', 'no address');
    if (text.length > MAX_URL_LENGTH) throw new FeedAddressError('too_long', `more than ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(/^webcals?:\/\//i.test(text) ? text.replace(/^webcals?:\/\//i, 'https://') : text);
    } catch {
      throw new FeedAddressError('not_url', 'not an address');
    }
    if (!this.http.schemeAllowed(url)) throw new FeedAddressError('scheme', `only https addresses, not ${url.protocol}`);
    if (url.username !== '' || url.password !== '') throw new FeedAddressError('credentials', 'a user name or password in the address');
    url.hash = '';
    if (!this.deps.allowInsecureTargets) {
      try {
        await resolveTarget(url.hostname, this.resolver, this.deps.policy);
      } catch (err) {
        if (err instanceof TargetRefusedError) throw new FeedAddressError('refused', err.message);
        throw err;
      }
    }
    return url.href;
  }

  async status(lawyerId: string): Promise<FeedStatus | null> {
    const row = await findFeed(this.deps.database.db, lawyerId);
    return row ? this.toStatus(row) : null;
  }

  private toStatus(row: CalendarFeedRow): FeedStatus {
    const allowed = row.manual_refresh_at ? new Date(Date.parse(row.manual_refresh_at) + MANUAL_REFRESH_EVERY_MS) : null;
    return {
      hint: row.url_hint,
      addedAt: row.updated_at,
      lastAttemptAt: row.last_attempt_at,
      lastSuccessAt: row.last_success_at,
      busyCount: Number(row.busy_count),
      lastError: row.last_error_code ? { code: row.last_error_code as FeedErrorCode, detail: row.last_error_message ?? '', at: row.last_error_at ?? row.last_attempt_at ?? row.updated_at } : null,
      refreshAllowedAt: allowed && allowed > this.now() ? allowed.toISOString() : null,
    };
  }

  /**
   * Adds her feed or replaces its address, then reads it at once (the first read counts as her
   * "refresh now"; when she had one less than a minute ago, the jobs runner reads it on its next
   * tick). Replacing drops the old calendar's intervals in the same transaction.
   */
  async set(lawyerId: string, rawAddress: string): Promise<{ status: FeedStatus | null; read: RefreshOutcome | null }> {
    if (!(await this.allowed(lawyerId))) throw new FeedNotAllowedError();
    const url = await this.normalizeAddress(rawAddress);
    const nowIso = this.now().toISOString();
    await this.deps.database.db.transaction().execute(async (trx) => {
      await upsertFeed(trx, { lawyer_id: lawyerId, url, url_hint: addressHint(url), nowIso });
      await replaceBusyIntervals(trx, lawyerId, 'ical', [], nowIso);
    });
    this.deps.cache?.lawyersChanged([lawyerId]);
    const read = await this.refreshNow(lawyerId);
    // Null only when she removed it meanwhile (another tab).
    const status = await this.status(lawyerId);
    return { status, read: read.outcome === 'too_soon' || read.outcome === 'no_feed' || read.outcome === 'not_verified' ? null : read };
  }

  /** Removes her feed and its busy times. */
  async remove(lawyerId: string): Promise<boolean> {
    const nowIso = this.now().toISOString();
    const removed = await this.deps.database.db.transaction().execute(async (trx) => {
      const gone = await deleteFeed(trx, lawyerId);
      if (gone) await replaceBusyIntervals(trx, lawyerId, 'ical', [], nowIso);
      return gone;
    });
    if (removed) this.deps.cache?.lawyersChanged([lawyerId]);
    return removed;
  }

  /** Her "refresh now": reads the feed at once, at most once a minute. */
  async refreshNow(lawyerId: string): Promise<RefreshOutcome | { outcome: 'too_soon'; retryAfterSeconds: number } | { outcome: 'no_feed' } | { outcome: 'not_verified' }> {
    if (!(await this.allowed(lawyerId))) return { outcome: 'not_verified' };
    const now = this.now();
    const db = this.deps.database.db;
    const claimed = await claimManualRefresh(db, lawyerId, now.toISOString(), new Date(now.getTime() - MANUAL_REFRESH_EVERY_MS).toISOString(), new Date(now.getTime() + REFRESH_EVERY_MS).toISOString());
    const row = await findFeed(db, lawyerId);
    if (!row) return { outcome: 'no_feed' };
    if (!claimed) {
      const at = Date.parse(row.manual_refresh_at ?? now.toISOString()) + MANUAL_REFRESH_EVERY_MS;
      return { outcome: 'too_soon', retryAfterSeconds: Math.max(1, Math.ceil((at - now.getTime()) / 1000)) };
    }
    return this.read(row);
  }

  /**
   * The jobs runner's pass: claims the feeds that are due (one process wins each, by a
   * conditional update of its next-due time) and reads them one after another.
   */
  async refreshDue(limit = 20): Promise<{ read: number; failed: number }> {
    const now = this.now();
    const db = this.deps.database.db;
    const due = await listDueFeeds(db, now.toISOString(), limit);
    let read = 0;
    let failed = 0;
    for (const candidate of due) {
      const next = new Date(this.now().getTime() + REFRESH_EVERY_MS).toISOString();
      if (!(await claimFeed(db, candidate.lawyer_id, candidate.next_due_at, next))) continue;
      const row = await findFeed(db, candidate.lawyer_id);
      if (!row) continue;
      const outcome = await this.read(row);
      read++;
      if (outcome.outcome === 'failed') failed++;
    }
    return { read, failed };
  }

  /** Reads one feed and records what it came to. */
  private async read(row: CalendarFeedRow): Promise<RefreshOutcome> {
    const db = this.deps.database.db;
    const lawyerId = row.lawyer_id;
    // Verification can lapse between the claim and here: nothing is fetched, nothing recorded.
    if (!(await this.allowed(lawyerId))) return { outcome: 'superseded' };
    const started = this.now();
    const fresh = row.parsed_at !== null && started.getTime() - Date.parse(row.parsed_at) < FULL_READ_EVERY_MS;
    const answer = await this.http.read(row.url, fresh ? { etag: row.etag, lastModified: row.last_modified } : { etag: null, lastModified: null });
    const nowIso = this.now().toISOString();
    const fail = async (code: FeedErrorCode, detail: string): Promise<RefreshOutcome> => {
      const recorded = await recordFeedFailure(db, lawyerId, row.url, { nowIso, code, message: detail.slice(0, 300) });
      return recorded ? { outcome: 'failed', code, detail } : { outcome: 'superseded' };
    };
    if (answer.kind === 'failed') return fail(answer.code, answer.detail);
    if (answer.kind === 'not_modified') return (await recordFeedNotModified(db, lawyerId, row.url, nowIso)) ? { outcome: 'not_modified' } : { outcome: 'superseded' };

    const facts = await findLawyerCalendarFacts(db, lawyerId);
    if (!facts) return { outcome: 'superseded' };
    const horizonDays = Math.min(Math.max(Number(facts.horizon_days) || 90, 1), MAX_HORIZON_DAYS);
    const fromMs = this.now().getTime();
    const expanded = await this.reader.expand(answer.bytes, {
      fromMs,
      toMs: fromMs + horizonDays * 86_400_000,
      defaultZone: facts.timezone,
      cap: this.deps.maxIntervals ?? MAX_BUSY_INTERVALS,
      budget: this.deps.workBudget ?? WORK_BUDGET,
      maxEvents: this.deps.maxEvents ?? MAX_EVENTS,
    });
    if (!expanded.ok) return fail(expanded.code, expanded.detail);
    const intervals = expanded.intervals.map((i) => ({ starts_at: new Date(i.start).toISOString(), ends_at: new Date(i.end).toISOString() }));
    const stored = await db.transaction().execute(async (trx) => {
      // Conditional on the address: a feed removed or replaced during the read records nothing.
      const ok = await recordFeedSuccess(trx, lawyerId, row.url, { nowIso, etag: answer.etag, lastModified: answer.lastModified, busyCount: intervals.length });
      if (!ok) return false;
      await replaceBusyIntervals(trx, lawyerId, 'ical', intervals, nowIso);
      return true;
    });
    if (!stored) return { outcome: 'superseded' };
    this.deps.cache?.lawyersChanged([lawyerId]);
    return { outcome: 'stored', intervals: intervals.length, truncated: expanded.truncated };
  }

  async close(): Promise<void> {
    await Promise.all([this.http.close(), this.reader.close()]);
  }
}
