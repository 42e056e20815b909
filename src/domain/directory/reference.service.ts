/**
 * Reference data (provinces, cities, the practice-area tree) and everything derived from the
 * directory that is expensive to recompute per request (search totals and pages, lawyer rows,
 * profiles, reviews, next_available, availability), cached per process; search totals and page
 * ids come from an in-memory index of the public lawyers (search-index.ts). Everything is keyed by
 * the directory version, which every directory write bumps; per-lawyer entries are also dropped
 * by that lawyer's changes (holds, counted bookings), at once in the process that made them and
 * through the `lawyer_changes` feed in the others. A process notices another process's write
 * within `refreshIntervalMs` (DIRECTORY_REFRESH_MS). Time-dependent values carry their validity.
 */
import { systemClock, type Clock } from '../../clock.ts';
import type { LawyerTrust, ProfileTrust } from './trust.service.ts';
import type { Database } from '../../db/database.ts';
import type { LawyerProfileRow, LawyerSummaryRow } from '../../db/repositories/lawyer.repository.ts';
import {
  countPublicLawyersByCity,
  deleteLawyerChangesBefore,
  getDirectoryVersion,
  latestLawyerChangeId,
  listCities,
  listLawyerChanges,
  listPracticeAreas,
  listProvinces,
} from '../../db/repositories/reference.repository.ts';
import type { CityTable, PracticeAreaTable, ProvinceTable } from '../../db/schema.ts';
import type { AvailabilityResponse, LawyerProfile, ReviewsResponse, SearchResponse } from '../../contract/directory.ts';
import { drainInBatches } from '../operations/batches.ts';
import { BoundedCache, type Weighed } from './bounded-cache.ts';
import { normalizeKey } from './languages.ts';
import { loadSearchIndex, type SearchIndex } from './search-index.ts';

export interface PracticeAreaNode {
  slug: string;
  name: string;
  description: string;
  parent_slug: string | null;
  children: PracticeAreaNode[];
}

export interface CityEntry {
  slug: string;
  name: string;
  province_code: string;
  province: string;
  autonomous_community: string;
  timezone: string;
  lawyer_count: number;
}

export interface ProvinceEntry {
  code: string;
  slug: string;
  name: string;
  autonomous_community: string;
  timezone: string;
}

export interface ReferenceData {
  readonly version: number;
  readonly provinces: readonly ProvinceEntry[];
  readonly cities: readonly CityEntry[];
  readonly cityBySlug: ReadonlyMap<string, CityEntry>;
  readonly practiceAreaTree: readonly PracticeAreaNode[];
  readonly practiceAreaBySlug: ReadonlyMap<string, PracticeAreaTable>;
  /** Resolves a city slug or name (case- and accent-insensitive) to its slug. */
  resolveCity(input: string): string | undefined;
  /** An area's slug followed by all of its descendants' slugs; undefined when unknown. */
  expandPracticeArea(slug: string): readonly string[] | undefined;
}

function buildReferenceData(
  version: number,
  provinces: ProvinceTable[],
  cities: CityTable[],
  areas: PracticeAreaTable[],
  lawyersByCity: Map<string, number>,
): ReferenceData {
  const provinceByCode = new Map(provinces.map((p) => [p.code, p]));
  const cityEntries: CityEntry[] = cities.map((c) => {
    const p = provinceByCode.get(c.province_code);
    return {
      slug: c.slug,
      name: c.name,
      province_code: c.province_code,
      province: p?.name ?? '',
      autonomous_community: p?.autonomous_community ?? '',
      timezone: p?.timezone ?? 'Europe/Madrid',
      lawyer_count: lawyersByCity.get(c.slug) ?? 0,
    };
  });
  const cityBySlug = new Map(cityEntries.map((c) => [c.slug, c]));
  const cityLookup = new Map<string, string>();
  for (const c of cityEntries) cityLookup.set(normalizeKey(c.slug), c.slug);
  // Names second: a slug is never shadowed by another city's name.
  for (const c of cityEntries) {
    const key = normalizeKey(c.name);
    if (!cityLookup.has(key)) cityLookup.set(key, c.slug);
  }

  const nodes = new Map<string, PracticeAreaNode>();
  for (const a of areas) nodes.set(a.slug, { slug: a.slug, name: a.name, description: a.description, parent_slug: a.parent_slug, children: [] });
  const roots: PracticeAreaNode[] = [];
  for (const a of areas) {
    const node = nodes.get(a.slug)!;
    const parent = a.parent_slug ? nodes.get(a.parent_slug) : undefined;
    if (parent) parent.children.push(node);
    else roots.push(node);
  }
  const expansion = new Map<string, string[]>();
  const collect = (node: PracticeAreaNode): string[] => {
    const all = [node.slug, ...node.children.flatMap(collect)];
    expansion.set(node.slug, all);
    return all;
  };
  roots.forEach(collect);

  return {
    version,
    provinces: provinces.map((p) => ({ code: p.code, slug: p.slug, name: p.name, autonomous_community: p.autonomous_community, timezone: p.timezone })),
    cities: cityEntries,
    cityBySlug,
    practiceAreaTree: roots,
    practiceAreaBySlug: new Map(areas.map((a) => [a.slug, a])),
    resolveCity: (input) => cityLookup.get(normalizeKey(input)),
    expandPracticeArea: (slug) => expansion.get(slug.trim().toLowerCase()),
  };
}

/** How long lawyer-change feed entries are kept (processes read the feed within seconds). */
export const LAWYER_CHANGES_RETENTION_MS = 3_600_000;

/** Deletes lawyer-change feed entries older than an hour, in bounded batches. */
export async function sweepLawyerChanges(database: Database, clock: Clock, batch = 1000): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - LAWYER_CHANGES_RETENTION_MS).toISOString();
  return (await drainInBatches((limit) => deleteLawyerChangesBefore(database.db, cutoff, limit), batch)).deleted;
}

/** Default memory budget of the cached lawyers and search pages (estimated), in MB. */
export const DEFAULT_DIRECTORY_CACHE_MB = 32;
/** Changes read per poll; beyond it every lawyer entry is dropped (cheaper than reading on). */
const MAX_CHANGES_PER_POLL = 5_000;
/** How long an id skipped by the feed (a transaction not committed yet, or rolled back) is looked for. */
const GAP_WINDOW_MS = 60_000;
/** Ids skipped further back than this below a seen id are not looked for (far more than transactions in flight). */
const MAX_GAP_SPAN = 1_000;

/** A value computed at `computedAtMs` that stays correct until `validThroughMs` (both inclusive). */
export interface Timed<T> {
  value: T;
  computedAtMs: number;
  validThroughMs: number;
}

export function isFresh(t: Timed<unknown>, nowMs: number): boolean {
  return nowMs >= t.computedAtMs && nowMs <= t.validThroughMs;
}

/**
 * What is cached for one lawyer. Dropped whole by a directory write (new version) and by a
 * change to that lawyer (a hold, a counted booking), in this process at once and in other
 * processes when they next read the change feed. Values that depend on the time of day carry
 * their own validity.
 */
export interface LawyerEntry extends Weighed {
  id: string;
  /** The public row; `null` when the lawyer is not public. */
  row?: LawyerProfileRow | null;
  /** The row as search reads it (no bio). */
  summary?: LawyerSummaryRow;
  profile?: Omit<LawyerProfile, 'next_available'>;
  /** The last profile answer, handed out again (the same object) while next_available is unchanged. */
  lastProfile?: LawyerProfile;
  /** The same, unfenced, for the site (people read the bio as escaped text). */
  lastPlainProfile?: LawyerProfile;
  next?: Timed<string | null>;
  reviews: Map<number, ReviewsResponse>;
  /** Keyed `start|end`. */
  availability: Map<string, Timed<AvailabilityResponse>>;
  /** What the site's cards show beside her (TrustService), valid until her verification lapses. */
  trust?: Timed<LawyerTrust>;
  /** The profile's bios and reviews (TrustService), by page of reviews (1 = the latest). */
  profileTrust?: Map<number, ProfileTrust>;
}

export interface SearchPage extends Weighed {
  ids: readonly string[];
  total: number;
  /** With the person's languages: how many of `total` speak one of them (SearchIndex.search). */
  preferred?: number;
  /** A city search without remote lawyers: how many more it would find with them. */
  remoteExtra?: number;
  /** The last answer for this page, handed out again (the same object) while its inputs are the same objects and values. */
  last?: {
    rows: readonly object[];
    next: ReadonlyArray<string | null>;
    response: SearchResponse;
    /**
     * The answer holds, without looking at its lawyers again, while no lawyer entry has been
     * dropped since it was read (`stamp`, DirectoryCache.stamp()) and the clock is within every
     * one of its next_available values' validity (`fromMs`..`throughMs`, inclusive).
     */
    stamp: number;
    fromMs: number;
    throughMs: number;
  };
}

export class DirectoryCache {
  private data: ReferenceData | undefined;
  private loading: Promise<ReferenceData> | undefined;
  private checkedAt = -Infinity;
  /** The search index of a version (being built or built); dropped with the version. */
  private index: { version: number; promise: Promise<SearchIndex>; ready: boolean } | undefined;
  /** The last build started: builds run one at a time. */
  private indexBuild: Promise<unknown> = Promise.resolve();
  /** Set once a search used the index: a new version then rebuilds it at once, not on the next search. */
  private indexUsed = false;
  private readonly pages: BoundedCache<SearchPage>;
  private readonly lawyers: BoundedCache<LawyerEntry>;
  /** The change feed: the highest id read, and ids skipped below it (with when they were first missed). */
  private feedCursor: number | undefined;
  private feedGaps = new Map<number, number>();
  /** Counts every drop of lawyer entries, so a reader can tell whether one happened while it read. */
  private drops = 0;

  private readonly refreshIntervalMs: number;
  private readonly clock: Clock;

  /** `clock` paces the refresh (tests move it); 0 ms re-reads on every call. */
  constructor(
    private readonly database: Database,
    options: { refreshIntervalMs?: number; clock?: Clock; budgetMb?: number } = {},
  ) {
    this.refreshIntervalMs = options.refreshIntervalMs ?? 1000;
    this.clock = options.clock ?? systemClock;
    // Lawyers (rows, profiles, reviews, availability) take three quarters, search pages the rest.
    const budget = (options.budgetMb ?? DEFAULT_DIRECTORY_CACHE_MB) * 1024 * 1024;
    this.lawyers = new BoundedCache(budget * 0.75);
    this.pages = new BoundedCache(budget * 0.25);
  }

  /** Estimated bytes held by cached lawyers and pages (for diagnostics and tests). */
  get cachedBytes(): number {
    return this.lawyers.bytes + this.pages.bytes;
  }

  /** The version whose search index is built and held, if any (diagnostics and tests). */
  get indexedVersion(): number | undefined {
    return this.index?.ready ? this.index.version : undefined;
  }

  /**
   * Reads the reference data and builds the search index now, so that the first search after
   * start-up does not wait for it (about 1 s at 100,000 lawyers).
   */
  async warm(): Promise<void> {
    const ref = await this.current();
    await this.searchIndex(ref.version);
  }

  /** Counts `bytes` more held by a lawyer entry (as it is filled) against the budget. */
  charge(entry: LawyerEntry, bytes: number): void {
    this.lawyers.charge(entry.id, entry, bytes);
  }

  /** Counts `bytes` more held by a search page (its last answer) against the budget. */
  chargePage(key: string, page: SearchPage, bytes: number): void {
    this.pages.charge(key, page, bytes);
  }

  /** Whether the interval has passed since the last refresh (a clock set back counts as passed). */
  private due(): boolean {
    const elapsed = this.clock.now().getTime() - this.checkedAt;
    return !(elapsed >= 0 && elapsed < this.refreshIntervalMs);
  }

  /**
   * The current reference data. At most once per interval it re-reads the directory version
   * (a new version drops everything cached) and the lawyer change feed (drops those lawyers).
   */
  async current(): Promise<ReferenceData> {
    const data = this.data;
    if (data && !this.due()) return data;
    this.loading ??= this.refresh().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** Forget everything now (after a directory write in this process). */
  invalidate(): void {
    this.checkedAt = -Infinity;
    this.data = undefined;
    this.clearDerived();
  }

  /** These lawyers changed (a hold, a counted booking): drop what is cached for them. */
  lawyersChanged(ids: Iterable<string>): void {
    this.drops++;
    for (const id of ids) this.lawyers.delete(id);
  }

  /** Taken before reading the database; `lawyer(id, stamp)` then refuses to cache what was read across a change. */
  stamp(): number {
    return this.drops;
  }

  /**
   * The search index at `version`, built on first use. One build runs at a time; searches arriving
   * during a build await it; a new version drops it (and, once search is in use, starts the next
   * build right away). A build for a version that is no longer current is used but not kept.
   */
  searchIndex(version: number): Promise<SearchIndex> {
    this.indexUsed = true;
    if (this.index?.version === version) return this.index.promise;
    const promise = this.indexBuild.then(() => loadSearchIndex(this.database));
    this.indexBuild = promise.catch(() => undefined);
    if (this.data?.version === version) {
      const slot = { version, promise, ready: false };
      this.index = slot;
      // A failed build is not kept: the next search tries again.
      promise.then(
        () => (slot.ready = true),
        () => {
          if (this.index === slot) this.index = undefined;
        },
      );
    }
    return promise;
  }

  /** A search page (ids in order, and the total) for `key` at `version`, computing it on a miss. */
  async page(version: number, key: string, compute: () => Promise<{ ids: readonly string[]; total: number; preferred?: number; remoteExtra?: number }>): Promise<SearchPage> {
    const hit = this.pages.get(key);
    if (hit !== undefined) return hit;
    const { ids, total, preferred, remoteExtra } = await compute();
    const page: SearchPage = { ids, total, bytes: 200 + key.length + ids.length * 100 };
    if (preferred !== undefined) page.preferred = preferred;
    if (remoteExtra !== undefined) page.remoteExtra = remoteExtra;
    // A version that changed meanwhile must not leave an old page under the new version.
    if (this.data?.version === version) this.pages.set(key, page);
    return page;
  }

  /**
   * The cache entry of a lawyer, created if absent. Callers fill it after reading the database.
   * If any lawyer entry was dropped since `stamp` (a change may have landed while they read), or
   * is dropped before they fill it, they get a detached entry: what they write is never served.
   */
  lawyer(id: string, stamp: number): LawyerEntry {
    if (stamp !== this.drops) return { id, bytes: 0, reviews: new Map(), availability: new Map() };
    let entry = this.lawyers.get(id);
    if (entry === undefined) {
      entry = { id, bytes: 300, reviews: new Map(), availability: new Map() };
      this.lawyers.set(id, entry);
    }
    return entry;
  }

  private clearDerived(): void {
    this.drops++;
    this.index = undefined;
    this.pages.clear();
    this.lawyers.clear();
  }

  private async refresh(): Promise<ReferenceData> {
    const db = this.database.db;
    const [version] = await Promise.all([getDirectoryVersion(db), this.readChanges()]);
    this.checkedAt = this.clock.now().getTime();
    if (this.data && this.data.version === version) return this.data;
    const [provinces, cities, areas, byCity] = await Promise.all([
      listProvinces(db),
      listCities(db),
      listPracticeAreas(db),
      countPublicLawyersByCity(db),
    ]);
    this.clearDerived();
    this.data = buildReferenceData(version, provinces, cities, areas, byCity);
    // Failures are retried by the next search, which awaits its own build.
    if (this.indexUsed) this.searchIndex(version).catch(() => {});
    return this.data;
  }

  /**
   * Reads the change feed since the last poll and drops the lawyers it names. Ids are assigned
   * before commit, so on PostgreSQL a lower id can become visible after a higher one: ids skipped
   * over are kept as gaps and looked for again for a minute (a rolled-back id never appears).
   */
  private async readChanges(): Promise<void> {
    const db = this.database.db;
    if (this.feedCursor === undefined) {
      // Nothing is cached yet, so earlier changes do not matter.
      this.feedCursor = await latestLawyerChangeId(db);
      return;
    }
    const nowMs = performance.now();
    for (const [id, since] of this.feedGaps) if (nowMs - since > GAP_WINDOW_MS) this.feedGaps.delete(id);
    const rows = await listLawyerChanges(db, this.feedCursor, [...this.feedGaps.keys()], MAX_CHANGES_PER_POLL);
    if (rows.length === 0) return;
    this.drops++;
    if (rows.length >= MAX_CHANGES_PER_POLL) {
      this.lawyers.clear();
      this.feedGaps.clear();
      this.feedCursor = await latestLawyerChangeId(db);
      return;
    }
    let expected = this.feedCursor + 1;
    for (const row of rows) {
      this.lawyers.delete(row.lawyer_id);
      if (this.feedGaps.delete(row.id) || row.id <= this.feedCursor) continue;
      for (expected = Math.max(expected, row.id - MAX_GAP_SPAN); expected < row.id; expected++) this.feedGaps.set(expected, nowMs);
      expected = row.id + 1;
      this.feedCursor = row.id;
    }
  }
}
