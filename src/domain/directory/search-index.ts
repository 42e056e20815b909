/**
 * Search over the public lawyers (verified and listed) in memory, one index per directory version.
 * Counting a filter combination or finding one of its pages in SQL means semi-joining tens of
 * thousands of language and practice-area links (40–240 ms at 100,000 lawyers); here it is a few
 * thousand word operations on bitsets and, for a page, a walk along a precomputed sort order.
 *
 * Lawyers are numbered 0…n-1 (ordinals). The index keeps, per ordinal, the city (Uint16Array),
 * the fee (Int32Array) and the id (one UTF-8 buffer with offsets); per language and per practice
 * area a bitset of the ordinals that have it; per city the list of its ordinals; and the four sort
 * orders as permutations of the ordinals, in exactly the SQL order (`searchPublicLawyers`), ties
 * broken by id ascending in plain string order (SQLite's BINARY and PostgreSQL's "C" collation on
 * lower-case ids). A count is the population count of the AND of the filters' bitsets; a page walks
 * the sort order (from the end when the page is past the middle) testing the filter bitset.
 */
import type { Database } from '../../db/database.ts';
import {
  listLinksForIndex,
  listPublicLawyersForIndex,
  type LawyerFilters,
  type LawyerIndexRow,
  type LawyerSort,
} from '../../db/repositories/lawyer.repository.ts';
import { getDirectoryVersion } from '../../db/repositories/reference.repository.ts';

const SORTS: readonly LawyerSort[] = ['rating', 'reviews', 'price_asc', 'price_desc'];

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

function countBits(mask: Uint32Array): number {
  let n = 0;
  for (let w = 0; w < mask.length; w++) if (mask[w] !== 0) n += popcount(mask[w]!);
  return n;
}

/**
 * How far a search reaches beyond its filters (DESIGN.md §13; docs/lawyers.md#online-from-anywhere-in-spain):
 * `remote` adds, to a city search, the lawyers from elsewhere who offer video or phone (`false`
 * also counts how many that would add: `remoteExtra`); `prefer`
 * (the person's languages) puts the lawyers who speak one of them first, each group in the sort's order.
 */
export interface SearchReach {
  remote?: boolean;
  prefer?: readonly string[];
}

/** A search's answer: the total, one page's ids, and what the reach adds. */
export interface IndexSearchResult {
  total: number;
  ids: string[];
  /** Lawyers (of `total`) who speak one of the preferred languages; with `prefer` only. */
  preferred?: number;
  /** A city search without `remote`: how many more lawyers it would find with it. */
  remoteExtra?: number;
}

export class SearchIndex {
  private readonly words: number;
  // The filter bitset and one temporary (a union or a city's lawyers), reused by every search.
  private readonly scratch: Uint32Array;
  private readonly scratchTmp: Uint32Array;
  private readonly scratchPref: Uint32Array;

  /** @internal Built by SearchIndexBuilder. */
  constructor(
    /** The directory version the index was read at. */
    readonly version: number,
    /** Public lawyers indexed. */
    readonly size: number,
    private readonly idBytes: Buffer,
    private readonly idEnd: Uint32Array,
    private readonly fee: Int32Array,
    private readonly cityCode: ReadonlyMap<string, number>,
    /** Ordinals grouped by city: those of city c are cityOrds[cityStart[c] … cityStart[c+1]). */
    private readonly cityStart: Uint32Array,
    private readonly cityOrds: Int32Array,
    private readonly languages: ReadonlyMap<string, Uint32Array>,
    private readonly areas: ReadonlyMap<string, Uint32Array>,
    private readonly orders: Readonly<Record<LawyerSort, Int32Array>>,
    /** The lawyers who offer video or phone. */
    private readonly remote: Uint32Array = new Uint32Array((size + 31) >>> 5),
  ) {
    this.words = (size + 31) >>> 5;
    this.scratch = new Uint32Array(this.words);
    this.scratchTmp = new Uint32Array(this.words);
    this.scratchPref = new Uint32Array(this.words);
  }

  /** Approximate bytes held (typed arrays and buffers). */
  get bytes(): number {
    let n = this.idBytes.byteLength + this.idEnd.byteLength + this.fee.byteLength + this.cityStart.byteLength + this.cityOrds.byteLength + this.scratch.byteLength + this.scratchTmp.byteLength + this.scratchPref.byteLength + this.remote.byteLength;
    for (const b of this.languages.values()) n += b.byteLength;
    for (const b of this.areas.values()) n += b.byteLength;
    for (const s of SORTS) n += this.orders[s].byteLength;
    return n;
  }

  /** The number of public lawyers matching the filters (countPublicLawyers). */
  count(filters: LawyerFilters): number {
    const mask = this.mask(filters);
    return mask === undefined ? this.size : countBits(mask);
  }

  /** The total and one page's ids, from one evaluation of the filters. */
  search(filters: LawyerFilters, sort: LawyerSort, limit: number, offset: number, reach: SearchReach = {}): IndexSearchResult {
    const city = filters.citySlug !== undefined;
    let remoteExtra: number | undefined;
    if (city && reach.remote === false) {
      // Counted first: the answer's mask below reuses the same scratch space.
      const wider = this.mask(filters, true);
      remoteExtra = wider === undefined ? 0 : countBits(wider);
    }
    let mask = this.mask(filters, city && reach.remote === true);
    const total = mask === undefined ? this.size : countBits(mask);
    if (remoteExtra !== undefined) remoteExtra -= total;
    const prefer = reach.prefer ?? [];
    if (prefer.length === 0) return { total, ids: offset < total ? this.pageOf(mask, sort, limit, offset) : [], ...(remoteExtra !== undefined ? { remoteExtra } : {}) };

    // Languages in common first: the preferred lawyers in the sort's order, then the others in it.
    if (mask === undefined) mask = this.all();
    const pref = this.scratchPref;
    pref.fill(0);
    for (const code of new Set(prefer)) {
      const bits = this.languages.get(code);
      if (bits) for (let w = 0; w < this.words; w++) pref[w]! |= bits[w]!;
    }
    for (let w = 0; w < this.words; w++) {
      pref[w]! &= mask[w]!;
      mask[w]! &= ~pref[w]!;
    }
    const preferred = countBits(pref);
    const ids: string[] = [];
    if (offset < preferred) ids.push(...this.pageOf(pref, sort, Math.min(limit, preferred - offset), offset));
    const rest = limit - ids.length;
    const restOffset = Math.max(0, offset - preferred);
    if (rest > 0 && restOffset < total - preferred) ids.push(...this.pageOf(mask, sort, rest, restOffset));
    return { total, ids, preferred, ...(remoteExtra !== undefined ? { remoteExtra } : {}) };
  }

  /** Every ordinal, as the scratch bitset. */
  private all(): Uint32Array {
    const out = this.scratch;
    out.fill(0xffffffff);
    const tail = this.size & 31;
    if (tail !== 0) out[this.words - 1] = (1 << tail) - 1;
    return out;
  }

  /** The ids of one page, in order (searchPublicLawyers). */
  page(filters: LawyerFilters, sort: LawyerSort, limit: number, offset: number): string[] {
    return this.pageOf(this.mask(filters), sort, limit, offset);
  }

  private pageOf(mask: Uint32Array | undefined, sort: LawyerSort, limit: number, offset: number): string[] {
    const order = this.orders[sort];
    const out: number[] = [];
    if (mask === undefined) {
      for (let i = offset; i < offset + limit && i < order.length; i++) out.push(order[i]!);
    } else {
      const total = countBits(mask);
      const take = Math.min(limit, total - offset);
      if (take > 0 && offset <= total / 2) {
        let skip = offset;
        for (let i = 0; out.length < take; i++) {
          const o = order[i]!;
          if ((mask[o >>> 5]! & (1 << (o & 31))) === 0) continue;
          if (skip > 0) skip--;
          else out.push(o);
        }
      } else if (take > 0) {
        // Past the middle: walk from the end, skipping the matches after this page.
        let skip = total - offset - take;
        for (let i = order.length - 1; out.length < take; i--) {
          const o = order[i]!;
          if ((mask[o >>> 5]! & (1 << (o & 31))) === 0) continue;
          if (skip > 0) skip--;
          else out.push(o);
        }
        out.reverse();
      }
    }
    return out.map((o) => this.idBytes.toString('utf8', this.idEnd[o - 1] ?? 0, this.idEnd[o]));
  }

  /**
   * The ordinals matching the filters as a bitset; undefined when there is no filter (all match).
   * The bitset is scratch space, valid until the next call: a search used to evaluate its
   * filters into two or three new arrays (12.5 KB each at 100,000 lawyers, allocated outside the
   * JavaScript heap) that were garbage at once. Searches are synchronous, so one pair is enough.
   */
  private mask(f: LawyerFilters, remote = false): Uint32Array | undefined {
    const words = this.words;
    const out = this.scratch;
    const tmp = this.scratchTmp;
    let mask: Uint32Array | undefined;
    const and = (bits: Uint32Array) => {
      if (mask === undefined) {
        out.set(bits);
        mask = out;
      } else for (let w = 0; w < words; w++) out[w]! &= bits[w]!;
    };
    if (f.language !== undefined) and(this.languages.get(f.language) ?? tmp.fill(0));
    if (f.areaSlugs !== undefined) {
      tmp.fill(0);
      for (const slug of new Set(f.areaSlugs)) {
        const bits = this.areas.get(slug);
        if (bits) for (let w = 0; w < words; w++) tmp[w]! |= bits[w]!;
      }
      and(tmp);
    }
    if (f.citySlug !== undefined) {
      tmp.fill(0);
      const c = this.cityCode.get(f.citySlug);
      if (c !== undefined) {
        for (let i = this.cityStart[c]!; i < this.cityStart[c + 1]!; i++) {
          const o = this.cityOrds[i]!;
          tmp[o >>> 5]! |= 1 << (o & 31);
        }
      }
      // Video and phone consultations are national: lawyers from elsewhere who offer them.
      if (remote) for (let w = 0; w < words; w++) tmp[w]! |= this.remote[w]!;
      and(tmp);
    }
    if (f.minFeeCents !== undefined || f.maxFeeCents !== undefined) {
      // The price_asc order is sorted by fee: the range is one slice of it.
      const order = this.orders.price_asc;
      const lo = f.minFeeCents === undefined ? 0 : this.feeBound(f.minFeeCents, false);
      const hi = f.maxFeeCents === undefined ? order.length : this.feeBound(f.maxFeeCents, true);
      if (lo === 0 && hi === order.length) {
        // Every fee is in range: nothing to narrow.
      } else if (mask !== undefined) {
        // Narrow the lawyers already matched (fewer than the range, typically) by their fee.
        const min = f.minFeeCents ?? -Infinity;
        const max = f.maxFeeCents ?? Infinity;
        for (let w = 0; w < words; w++) {
          let word = out[w]!;
          while (word !== 0) {
            const bit = word & -word;
            const o = (w << 5) + (31 - Math.clz32(bit));
            const fee = this.fee[o]!;
            if (fee < min || fee > max) out[w]! &= ~bit;
            word ^= bit;
          }
        }
      } else {
        out.fill(0);
        for (let i = lo; i < hi; i++) {
          const o = order[i]!;
          out[o >>> 5]! |= 1 << (o & 31);
        }
        mask = out;
      }
    }
    return mask;
  }

  /** The first position in price_asc order whose fee is >= cents (> cents when `after`). */
  private feeBound(cents: number, after: boolean): number {
    const order = this.orders.price_asc;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const fee = this.fee[order[mid]!]!;
      if (fee < cents || (after && fee === cents)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/**
 * Collects public lawyers (in any order), then their languages and practice areas, then builds the
 * index. Links of lawyers not added (not public) are ignored.
 */
export class SearchIndexBuilder {
  private readonly ids: string[] = [];
  private readonly ordById = new Map<string, number>();
  private readonly cities: string[] = [];
  private readonly fees: number[] = [];
  private readonly ratingKeys: number[] = [];
  private readonly reviewCounts: number[] = [];
  private readonly remotes: boolean[] = [];
  private readonly languages = new Map<string, Uint32Array>();
  private readonly areas = new Map<string, Uint32Array>();
  private sealed = false;

  addLawyers(rows: readonly LawyerIndexRow[]): void {
    if (this.sealed) throw new Error('lawyers must be added before their links');
    for (const r of rows) {
      if (this.ordById.has(r.id)) continue;
      this.ordById.set(r.id, this.ids.length);
      this.ids.push(r.id);
      this.cities.push(r.city_slug);
      this.fees.push(r.consultation_fee_cents);
      this.ratingKeys.push(r.rating_key);
      this.reviewCounts.push(r.review_count);
      this.remotes.push(r.remote === true);
    }
  }

  /** The lawyers who speak `language` (ids of lawyers not added are ignored). */
  addLanguage(language: string, lawyerIds: readonly string[]): void {
    for (const id of lawyerIds) this.link(this.languages, language, id);
  }

  /** The lawyers with practice area `slug` (ids of lawyers not added are ignored). */
  addPracticeArea(slug: string, lawyerIds: readonly string[]): void {
    for (const id of lawyerIds) this.link(this.areas, slug, id);
  }

  private link(sets: Map<string, Uint32Array>, value: string, lawyerId: string): void {
    this.sealed = true;
    const o = this.ordById.get(lawyerId);
    if (o === undefined) return;
    let bits = sets.get(value);
    if (bits === undefined) {
      bits = new Uint32Array((this.ids.length + 31) >>> 5);
      sets.set(value, bits);
    }
    bits[o >>> 5]! |= 1 << (o & 31);
  }

  /** Sorts the four orders (pausing between them when `pause` is given) and returns the index. */
  async build(version: number, pause: () => Promise<void> = async () => {}): Promise<SearchIndex> {
    const n = this.ids.length;
    const ids = this.ids;
    // The rank of each id in string order (ids usually arrive sorted: then the identity).
    let rank = Int32Array.from({ length: n }, (_, i) => i);
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = ids[i - 1]! < ids[i]!;
    if (!sorted) {
      const byId = rank.slice().sort((a, b) => (ids[a]! < ids[b]! ? -1 : ids[a]! > ids[b]! ? 1 : 0));
      rank = new Int32Array(n);
      byId.forEach((o, r) => (rank[o] = r));
    }
    const fee = Int32Array.from(this.fees);
    const rk = Int32Array.from(this.ratingKeys);
    const rc = Int32Array.from(this.reviewCounts);
    const compare: Record<LawyerSort, (a: number, b: number) => number> = {
      rating: (a, b) => rk[b]! - rk[a]! || rc[b]! - rc[a]! || rank[a]! - rank[b]!,
      reviews: (a, b) => rc[b]! - rc[a]! || rk[b]! - rk[a]! || rank[a]! - rank[b]!,
      price_asc: (a, b) => fee[a]! - fee[b]! || rank[a]! - rank[b]!,
      price_desc: (a, b) => fee[b]! - fee[a]! || rank[a]! - rank[b]!,
    };
    // Faster: each sort key packed into one exact float, (p, q, id rank) → (p·(Q+1) + q)·n + rank
    // with p ≤ P and q ≤ Q small non-negative integers, sorted natively.
    const range = (xs: Int32Array): [number, number] => {
      let min = 0;
      let max = 0;
      xs.forEach((x, i) => {
        if (i === 0 || x < min) min = x;
        if (i === 0 || x > max) max = x;
      });
      return [min, max];
    };
    const [minRk, maxRk] = range(rk);
    const [minRc, maxRc] = range(rc);
    const [minFee, maxFee] = range(fee);
    const keys: Record<LawyerSort, [(o: number) => number, number, (o: number) => number, number]> = {
      rating: [(o) => maxRk - rk[o]!, maxRk - minRk, (o) => maxRc - rc[o]!, maxRc - minRc],
      reviews: [(o) => maxRc - rc[o]!, maxRc - minRc, (o) => maxRk - rk[o]!, maxRk - minRk],
      price_asc: [(o) => fee[o]! - minFee, maxFee - minFee, () => 0, 0],
      price_desc: [(o) => maxFee - fee[o]!, maxFee - minFee, () => 0, 0],
    };
    const byRank = new Int32Array(n);
    rank.forEach((r, o) => (byRank[r] = o));
    const orders = {} as Record<LawyerSort, Int32Array>;
    for (const sort of SORTS) {
      await pause();
      const [p, P, q, Q] = keys[sort];
      if (n === 0 || (P + 1) * (Q + 1) * n > Number.MAX_SAFE_INTEGER) {
        orders[sort] = Int32Array.from({ length: n }, (_, i) => i).sort(compare[sort]);
        continue;
      }
      const packed = new Float64Array(n);
      for (let o = 0; o < n; o++) packed[o] = (p(o) * (Q + 1) + q(o)) * n + rank[o]!;
      packed.sort();
      const order = new Int32Array(n);
      for (let i = 0; i < n; i++) order[i] = byRank[packed[i]! % n]!;
      orders[sort] = order;
    }
    await pause();

    const idEnd = new Uint32Array(n);
    let end = 0;
    ids.forEach((id, i) => (idEnd[i] = end += Buffer.byteLength(id, 'utf8')));
    // Its own memory (not a slice of Node's shared pool), sized exactly.
    const idBytes = Buffer.allocUnsafeSlow(end);
    ids.forEach((id, i) => idBytes.write(id, idEnd[i - 1] ?? 0, 'utf8'));

    const cityCode = new Map<string, number>();
    const city = new Uint16Array(n);
    this.cities.forEach((slug, o) => {
      let c = cityCode.get(slug);
      if (c === undefined) cityCode.set(slug, (c = cityCode.size));
      city[o] = c;
    });
    if (cityCode.size > 0xffff) throw new Error('too many cities for the search index');
    const cityStart = new Uint32Array(cityCode.size + 1);
    for (let o = 0; o < n; o++) cityStart[city[o]! + 1]!++;
    for (let c = 0; c < cityCode.size; c++) cityStart[c + 1]! += cityStart[c]!;
    const cityOrds = new Int32Array(n);
    const fill = cityStart.slice(0, cityCode.size);
    for (let o = 0; o < n; o++) cityOrds[fill[city[o]!]!++] = o;

    const remote = new Uint32Array((n + 31) >>> 5);
    this.remotes.forEach((r, o) => {
      if (r) remote[o >>> 5]! |= 1 << (o & 31);
    });
    return new SearchIndex(version, n, idBytes, idEnd, fee, cityCode, cityStart, cityOrds, this.languages, this.areas, orders, remote);
  }
}

/** Lawyers read per query while building; the pauses between queries bound the event-loop stall. */
const BUILD_CHUNK = 4096;

/** Lets other work run between the build's steps (on SQLite every query blocks the event loop). */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Reads the public lawyers and their links in chunks (by id range, no transaction) and builds the
 * index. If the directory version changed meanwhile the chunks may disagree: it starts again (at
 * most twice; the caller's next refresh sees the new version and drops the index anyway).
 */
export async function loadSearchIndex(database: Database, options: { chunk?: number } = {}): Promise<SearchIndex> {
  const db = database.db;
  const chunk = options.chunk ?? BUILD_CHUNK;
  for (let attempt = 0; ; attempt++) {
    const version = await getDirectoryVersion(db);
    const builder = new SearchIndexBuilder();
    // Each chunk's last id: the link ranges (last[k-1], last[k]] cover every public lawyer.
    const lasts: string[] = [];
    for (;;) {
      const { rows, lastId } = await listPublicLawyersForIndex(db, lasts[lasts.length - 1], chunk);
      builder.addLawyers(rows);
      if (lastId !== undefined) lasts.push(lastId);
      await yieldToEventLoop();
      if (rows.length < chunk) break;
    }
    for (let k = 0; k < lasts.length; k++) {
      const after = k === 0 ? undefined : lasts[k - 1];
      const upTo = k === lasts.length - 1 ? undefined : lasts[k];
      for (const g of await listLinksForIndex(db, 'languages', after, upTo)) builder.addLanguage(g.value, g.lawyerIds);
      await yieldToEventLoop();
      for (const g of await listLinksForIndex(db, 'practice_areas', after, upTo)) builder.addPracticeArea(g.value, g.lawyerIds);
      await yieldToEventLoop();
    }
    const index = await builder.build(version, yieldToEventLoop);
    if (attempt >= 2 || (await getDirectoryVersion(db)) === version) return index;
  }
}
