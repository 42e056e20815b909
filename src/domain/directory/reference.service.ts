/**
 * Reference data (provinces, cities, the practice-area tree) and everything derived from the
 * directory that is expensive to recompute per request (search totals), cached per process and
 * keyed by the directory version, which every directory write bumps. A process notices a write
 * by another process within `refreshIntervalMs`.
 */
import type { Database } from '../../db/database.ts';
import {
  countPublicLawyersByCity,
  getDirectoryVersion,
  listCities,
  listPracticeAreas,
  listProvinces,
} from '../../db/repositories/reference.repository.ts';
import type { CityTable, PracticeAreaTable, ProvinceTable } from '../../db/schema.ts';
import { normalizeKey } from './languages.ts';

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

const MAX_CACHED_COUNTS = 10_000;

export class DirectoryCache {
  private data: ReferenceData | undefined;
  private loading: Promise<ReferenceData> | undefined;
  private checkedAt = -Infinity;
  private counts = new Map<string, number>();

  constructor(
    private readonly database: Database,
    private readonly refreshIntervalMs = 1000,
  ) {}

  /** The current reference data; re-reads the directory version at most once per interval. */
  async current(): Promise<ReferenceData> {
    const data = this.data;
    if (data && performance.now() - this.checkedAt < this.refreshIntervalMs) return data;
    this.loading ??= this.refresh().finally(() => {
      this.loading = undefined;
    });
    return this.loading;
  }

  /** Forget everything now (after a write in this process). */
  invalidate(): void {
    this.checkedAt = -Infinity;
    this.data = undefined;
    this.counts.clear();
  }

  /** A cached count for a filter key at the current version, computing it on a miss. */
  async count(version: number, key: string, compute: () => Promise<number>): Promise<number> {
    const k = `${version}|${key}`;
    const hit = this.counts.get(k);
    if (hit !== undefined) return hit;
    const n = await compute();
    if (this.counts.size >= MAX_CACHED_COUNTS) this.counts.clear();
    this.counts.set(k, n);
    return n;
  }

  private async refresh(): Promise<ReferenceData> {
    const version = await getDirectoryVersion(this.database.db);
    this.checkedAt = performance.now();
    if (this.data && this.data.version === version) return this.data;
    const db = this.database.db;
    const [provinces, cities, areas, byCity] = await Promise.all([
      listProvinces(db),
      listCities(db),
      listPracticeAreas(db),
      countPublicLawyersByCity(db),
    ]);
    this.counts.clear();
    this.data = buildReferenceData(version, provinces, cities, areas, byCity);
    return this.data;
  }
}
