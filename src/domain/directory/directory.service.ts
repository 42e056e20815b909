/**
 * The lawyer directory: search, profiles, reviews and availability. Every directory rule lives
 * here; REST routes and MCP tools are thin adapters over these methods.
 */
import { offeredFormats } from '../lawyers/listing.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import {
  findPublicLawyer,
  findPublicLawyersByIds,
  listBarMemberships,
  type LawyerFilters,
  type LawyerProfileRow,
  type LawyerSort,
  type LawyerSummaryRow,
} from '../../db/repositories/lawyer.repository.ts';
import type {
  AvailabilityQuery,
  AvailabilityResponse,
  LawyerProfile,
  LawyerSummary,
  ReviewsResponse,
  SearchQuery,
  SearchResponse,
} from '../../contract/directory.ts';
import { DomainError, invalidRequest, notFound, type FieldError } from '../errors.ts';
import { listPublicReviews } from '../../db/repositories/review.repository.ts';
import { sanitizeShortText, type Fencer } from './fence.ts';
import { resolveLanguage } from './languages.ts';
import { isFresh, type CityEntry, type DirectoryCache, type LawyerEntry, type ReferenceData } from './reference.service.ts';
import {
  availabilityValidThrough,
  bookableCheck,
  nextAvailability,
  slotsOnDate,
  type GeneratedSlot,
  type LawyerOffer,
  type LawyerSchedule,
} from './slots.ts';
import { loadSchedules } from './schedules.ts';
import { addDays, dateInZone, daysBetween, formatInZone, utcMsToDate } from '../../zoned-time.ts';

/** How far ahead `next_available` looks. */
export const NEXT_AVAILABLE_HORIZON_DAYS = 90;
/** The availability range is at most 14 days, start and end included. */
export const MAX_AVAILABILITY_DAYS = 14;

export interface DirectoryServiceDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'siteUrl' | 'minLeadTimeMinutes'>;
  fencer: Fencer;
  cache: DirectoryCache;
}

const NOT_FOUND_DETAIL = 'No verified, publicly listed lawyer has this id.';

// Estimated memory held by cached values (objects, their strings, and their serialised bytes),
// for the cache's budget (DIRECTORY_CACHE_MB). Rough on purpose; measured in docs/performance.md.
const ROW_BYTES = 600;
const SUMMARY_ANSWER_BYTES = 1_500;
const SLOT_BYTES = 500;

export class DirectoryService {
  /** Each version of the reference data's cities in cities()' order, sorted once. */
  private readonly citiesByCount = new WeakMap<ReferenceData, CityEntry[]>();

  constructor(private readonly deps: DirectoryServiceDeps) {}

  /** Reference data (provinces, cities, practice areas) at the current directory version. */
  reference(): Promise<ReferenceData> {
    return this.deps.cache.current();
  }

  /**
   * Cities for someone choosing where to look: those with listed lawyers (every city with
   * `includeEmpty`), most lawyers first, then by name; the first `limit`, and how many match.
   */
  async cities(options: { includeEmpty: boolean; limit: number }): Promise<{ cities: CityEntry[]; total: number }> {
    const ref = await this.deps.cache.current();
    let ordered = this.citiesByCount.get(ref);
    if (!ordered) {
      ordered = [...ref.cities].sort((a, b) => b.lawyer_count - a.lawyer_count || a.name.localeCompare(b.name, 'es') || (a.slug < b.slug ? -1 : 1));
      this.citiesByCount.set(ref, ordered);
    }
    const matching = options.includeEmpty ? ordered.length : ordered.findLastIndex((c) => c.lawyer_count > 0) + 1;
    return { cities: ordered.slice(0, Math.min(matching, options.limit)), total: matching };
  }

  async search(query: SearchQuery): Promise<SearchResponse> {
    const cache = this.deps.cache;
    const ref = await cache.current();
    const stamp = cache.stamp();
    const filters = this.resolveFilters(query, ref);
    const prefer = query.languages === undefined ? undefined : parseLanguages(query.languages, '/query/languages');
    const remote = query.include_remote === true && filters.citySlug !== undefined;
    const sort: LawyerSort = query.sort ?? 'rating';
    const { page, limit } = query;
    const offset = (page - 1) * limit;
    const pageKey = `${JSON.stringify(filters)}|${sort}|${limit}|${offset}|${remote ? 'r' : ''}|${prefer?.join(',') ?? ''}`;
    const pageEntry = await cache.page(ref.version, pageKey, async () => {
      // Totals and page ids come from the in-memory index of this directory version.
      return (await cache.searchIndex(ref.version)).search(filters, sort, limit, offset, { remote, ...(prefer ? { prefer } : {}) });
    });
    const nowMs = this.deps.clock.now().getTime();
    // Nothing it was made of can have changed: no lawyer entry dropped since (a hold, a review, a
    // change read from the feed; a new version clears the pages) and every next_available still
    // valid. The same answer, without looking up its lawyers again.
    const held = pageEntry.last;
    if (held !== undefined && held.stamp === cache.stamp() && nowMs >= held.fromMs && nowMs <= held.throughMs) return held.response;
    const { ids, total } = pageEntry;
    const entries = ids.map((id) => cache.lawyer(id, stamp));
    const cached = entries.map((e) => e.summary ?? e.row ?? undefined);
    const missing = ids.filter((_, i) => cached[i] === undefined);
    if (missing.length > 0) {
      // Rows not cached yet, or dropped (a lawyer changed): read them, in any order.
      const found = new Map((await findPublicLawyersByIds(this.deps.database.db, missing)).map((r) => [r.id, r]));
      ids.forEach((id, i) => {
        const r = found.get(id);
        const e = entries[i]!;
        if (cached[i] !== undefined || r === undefined) return;
        cached[i] = r;
        if (e.summary === undefined) cache.charge(e, ROW_BYTES);
        e.summary = r;
      });
    }
    // A lawyer no longer public (another process's write not seen yet) is left out.
    const kept = entries.filter((_, i) => cached[i] !== undefined);
    const rows: readonly LawyerSummaryRow[] = cached.filter((r) => r !== undefined);
    const next = await this.nextAvailableFor(rows, kept, nowMs);
    // How long these next_available values all hold (each entry carries its own validity).
    let fromMs = -Infinity;
    let throughMs = Infinity;
    for (const e of kept) {
      if (e.next === undefined) throughMs = -Infinity;
      else {
        fromMs = Math.max(fromMs, e.next.computedAtMs);
        throughMs = Math.min(throughMs, e.next.validThroughMs);
      }
    }
    // Same rows (objects) and the same next_available values: the same answer, handed out again.
    const last = pageEntry.last;
    if (last && last.rows.length === rows.length && rows.every((r, i) => last.rows[i] === r && last.next[i] === next[i])) {
      Object.assign(last, { stamp, fromMs, throughMs });
      return last.response;
    }
    const response: SearchResponse = {
      total,
      page,
      limit,
      has_more: offset + ids.length < total,
      lawyers: rows.map((r, i) => {
        const summary = this.summary(r, ref, next[i] ?? null);
        if (remote) summary.remote = r.city_slug !== filters.citySlug;
        if (prefer) summary.languages_in_common = languagesInCommon(prefer, summary.languages);
        return summary;
      }),
      ...(pageEntry.preferred !== undefined ? { languages_matched: pageEntry.preferred } : {}),
      ...(pageEntry.remoteExtra !== undefined ? { remote_available: pageEntry.remoteExtra } : {}),
    };
    if (pageEntry.last === undefined) cache.chargePage(pageKey, pageEntry, rows.length * SUMMARY_ANSWER_BYTES);
    pageEntry.last = { rows, next, response, stamp, fromMs, throughMs };
    return response;
  }

  /**
   * A public profile. `fenced` (the default, for API and MCP consumers) wraps the bio as
   * untrusted text; the site shows it to people as plain escaped text instead.
   */
  async getProfile(lawyerId: string, options: { fenced?: boolean } = {}): Promise<LawyerProfile> {
    const { entry, row, ref } = await this.publicLawyer(lawyerId);
    let profile = entry.profile;
    if (profile === undefined) {
      const bars = await listBarMemberships(this.deps.database.db, row.id);
      const { next_available: _, ...summary } = this.summary(row, ref, null);
      profile = {
        ...summary,
        consultation_minutes: row.consultation_minutes as LawyerProfile['consultation_minutes'],
        formats: offeredFormats(row),
        timezone: row.timezone,
        bio: this.deps.fencer.fence(row.bio, 'lawyer_bio'),
        bar_memberships: bars.map((b) => ({ bar_name: sanitizeShortText(b.bar_name), verified: b.verified === 1 })),
      };
      entry.profile = profile;
      this.deps.cache.charge(entry, 2 * (profile.bio?.length ?? 0) + 2 * ROW_BYTES);
    }
    const [next = null] = await this.nextAvailableFor([row], [entry], this.deps.clock.now().getTime());
    if (options.fenced === false) {
      // Handed out again while unchanged, like the fenced answer (the site caches its page by it).
      if (entry.lastPlainProfile?.next_available !== next) {
        if (entry.lastPlainProfile === undefined) this.deps.cache.charge(entry, (row.bio?.length ?? 0) + SUMMARY_ANSWER_BYTES);
        entry.lastPlainProfile = { ...profile, next_available: next, bio: row.bio };
      }
      return entry.lastPlainProfile;
    }
    if (entry.lastProfile?.next_available !== next) {
      if (entry.lastProfile === undefined) this.deps.cache.charge(entry, (profile.bio?.length ?? 0) + SUMMARY_ANSWER_BYTES);
      entry.lastProfile = { ...profile, next_available: next };
    }
    return entry.lastProfile;
  }

  async getReviews(lawyerId: string, limit: number): Promise<ReviewsResponse> {
    const { entry, row } = await this.publicLawyer(lawyerId);
    const hit = entry.reviews.get(limit);
    if (hit) return hit;
    const reviews = await listPublicReviews(this.deps.database.db, row.id, limit);
    const response: ReviewsResponse = {
      lawyer_id: row.id,
      lawyer_name: sanitizeShortText(row.name),
      average_rating: row.rating_avg,
      total_bookings: row.total_bookings,
      total_reviews: row.review_count,
      reviews: reviews.map((r) => ({
        rating: r.rating,
        comment: this.deps.fencer.fence(r.comment, 'review_comment'),
        date: r.created_at,
        answer: this.deps.fencer.fence(r.answer, 'review_answer'),
      })),
    };
    entry.reviews.set(limit, response);
    this.deps.cache.charge(entry, ROW_BYTES + response.reviews.reduce((n, r) => n + 200 + 3 * ((r.comment?.length ?? 0) + (r.answer?.length ?? 0)), 0));
    return response;
  }

  async getAvailability(lawyerId: string, query: AvailabilityQuery): Promise<AvailabilityResponse> {
    const { entry, row } = await this.publicLawyer(lawyerId);
    const nowMs = this.deps.clock.now().getTime();
    const today = dateInZone(nowMs, row.timezone);
    const start = query.start_date ?? today;
    const end = query.end_date ?? addDays(start, MAX_AVAILABILITY_DAYS - 1);
    const errors: FieldError[] = [];
    if (start < today) {
      errors.push({ pointer: '/query/start_date', detail: `must not be in the past (today is ${today} in ${row.timezone}, the lawyer's time zone)` });
    }
    if (end < start) {
      errors.push({ pointer: '/query/end_date', detail: `must not be before start_date (${start})` });
    } else if (daysBetween(start, end) >= MAX_AVAILABILITY_DAYS) {
      errors.push({ pointer: '/query/end_date', detail: `the range may cover at most ${MAX_AVAILABILITY_DAYS} days; the latest end_date for start_date ${start} is ${addDays(start, MAX_AVAILABILITY_DAYS - 1)}` });
    }
    if (errors.length > 0) throw invalidRequest('The date range is not valid.', errors);

    const key = `${start}|${end}`;
    const hit = entry.availability.get(key);
    if (hit !== undefined && isFresh(hit, nowMs)) return hit.value;

    const schedule = (await this.schedulesFor([row], start, end, nowMs)).get(row.id)!;
    const rules = this.rules(nowMs);
    const generated: GeneratedSlot[] = [];
    for (let date = start; date <= end; date = addDays(date, 1)) generated.push(...slotsOnDate(schedule, date));
    const bookable = bookableCheck(schedule, rules);
    const slots: AvailabilityResponse['slots'] = generated.map((s) => ({
      date: s.date,
      start_time: s.start_time,
      end_time: s.end_time,
      available: bookable(s),
      timezone: row.timezone,
      starts_at: formatInZone(s.startsAtMs, row.timezone),
      ends_at: formatInZone(s.endsAtMs, row.timezone),
    }));
    const urls = this.urls(row.id);
    const response: AvailabilityResponse = {
      lawyer_id: row.id,
      lawyer_name: sanitizeShortText(row.name),
      consultation_fee_cents: row.consultation_fee_cents,
      currency: 'EUR',
      platform_commission_percent: row.platform_commission_percent,
      consultation_minutes: row.consultation_minutes as AvailabilityResponse['consultation_minutes'],
      formats: offeredFormats(row),
      timezone: row.timezone,
      start_date: start,
      end_date: end,
      slots,
      booking_url: urls.booking_url,
      profile_url: urls.profile_url,
    };
    entry.availability.set(key, { value: response, computedAtMs: nowMs, validThroughMs: availabilityValidThrough(schedule, generated, rules) });
    // Replacing an expired answer for the same range: count only the difference.
    this.deps.cache.charge(entry, SLOT_BYTES * (slots.length - (hit?.value.slots.length ?? -1)));
    return response;
  }

  /**
   * REST's availability (GET /lawyers/{id}/availability): getAvailability's answer, and with the
   * person's `languages` (checked as search checks them) the lawyer's `languages_in_common` too —
   * the field MCP's get_lawyer_availability gives (docs/lawyers.md#online-from-anywhere-in-spain).
   * Without `languages` the cached answer itself; with them one derived object per answer and list.
   */
  async availabilityFor(lawyerId: string, query: AvailabilityQuery): Promise<AvailabilityResponse> {
    const { languages, ...range } = query;
    const person = languages === undefined ? undefined : parseLanguages(languages, '/query/languages');
    const availability = await this.getAvailability(lawyerId, range);
    if (!person) return availability;
    return derivedWithLanguages(availability, person, await this.languagesInCommonWith(lawyerId, person));
  }

  /** The person's languages (in their order) that this listed lawyer speaks: `[]` is a mismatch (DESIGN.md §13); 404 when she is not listed. */
  async languagesInCommonWith(lawyerId: string, person: readonly string[]): Promise<string[]> {
    const { row } = await this.publicLawyer(lawyerId);
    return languagesInCommon(person, JSON.parse(row.languages_json) as string[]);
  }

  /**
   * A lawyer's first `count` free times from `nextAvailable` (a search result's next_available),
   * for a result card. Reads the same per-lawyer availability cache as getAvailability (the
   * 14-day window starting that day), so a card costs no query while that answer is fresh. Empty
   * when the lawyer has no free time soon, or is no longer listed.
   */
  async firstFreeSlots(lawyerId: string, nextAvailable: string | null, count = 3): Promise<AvailabilityResponse | null> {
    if (nextAvailable === null) return null;
    let availability: AvailabilityResponse;
    try {
      availability = await this.getAvailability(lawyerId, { start_date: nextAvailable });
    } catch (err) {
      // Hidden meanwhile, or next_available is yesterday after midnight in the lawyer's zone.
      if (!(err instanceof DomainError) || (err.code !== 'not_found' && err.code !== 'invalid_request')) throw err;
      if (err.code === 'not_found') return null;
      availability = await this.getAvailability(lawyerId, {});
    }
    return derivedFirst(availability, count);
  }

  /** A verified, publicly listed lawyer's row and cache entry; 404 otherwise. */
  private async publicLawyer(lawyerId: string): Promise<{ entry: LawyerEntry; row: LawyerProfileRow; ref: ReferenceData }> {
    const cache = this.deps.cache;
    const ref = await cache.current();
    const stamp = cache.stamp();
    // Ids are stored in lower case; a UUID is the same whatever case a client writes it in.
    const id = lawyerId.toLowerCase();
    const entry = cache.lawyer(id, stamp);
    if (entry.row === undefined) {
      entry.row = (await findPublicLawyer(this.deps.database.db, id)) ?? null;
      cache.charge(entry, ROW_BYTES + 2 * (entry.row?.bio?.length ?? 0));
    }
    if (entry.row === null) throw notFound(NOT_FOUND_DETAIL);
    return { entry, row: entry.row, ref };
  }

  private rules(nowMs: number) {
    return { nowMs, minLeadTimeMs: this.deps.config.minLeadTimeMinutes * 60_000 };
  }

  private urls(id: string) {
    const site = this.deps.config.siteUrl;
    return { profile_url: `${site}/lawyers/${id}`, booking_url: `${site}/lawyers/${id}/book` };
  }

  private summary(row: LawyerSummaryRow, ref: ReferenceData, nextAvailable: string | null): LawyerSummary {
    const urls = this.urls(row.id);
    return {
      id: row.id,
      // Third-party short text: cleaned as the fence cleans (docs/fencing.md#short-texts).
      name: sanitizeShortText(row.name),
      city: ref.cityBySlug.get(row.city_slug)?.name ?? row.city_slug,
      practice_areas: JSON.parse(row.practice_areas_json) as LawyerSummary['practice_areas'],
      languages: JSON.parse(row.languages_json) as string[],
      consultation_fee_cents: row.consultation_fee_cents,
      currency: 'EUR',
      platform_commission_percent: row.platform_commission_percent,
      average_rating: row.rating_avg,
      review_count: row.review_count,
      total_bookings: row.total_bookings,
      next_available: nextAvailable,
      profile_url: urls.profile_url,
      booking_url: urls.booking_url,
    };
  }

  private resolveFilters(query: SearchQuery, ref: ReferenceData): LawyerFilters {
    const errors: FieldError[] = [];
    const filters: LawyerFilters = {};
    if (query.city !== undefined) {
      const slug = ref.resolveCity(query.city);
      if (slug === undefined) errors.push({ pointer: '/query/city', detail: `unknown city "${query.city}"`, see: 'cities' });
      else filters.citySlug = slug;
    }
    if (query.practice_area !== undefined) {
      const areas = ref.expandPracticeArea(query.practice_area);
      if (areas === undefined) errors.push({ pointer: '/query/practice_area', detail: `unknown practice area "${query.practice_area}"`, see: 'practice_areas' });
      else filters.areaSlugs = [...areas];
    }
    if (query.language !== undefined) {
      const code = resolveLanguage(query.language);
      if (code === undefined) errors.push({ pointer: '/query/language', detail: `unknown language "${query.language}"; use an ISO 639-1 code such as "ar" or a language name such as "Arabic"` });
      else filters.language = code;
    }
    if (query.min_fee_eur !== undefined) filters.minFeeCents = Math.ceil(query.min_fee_eur * 100 - 1e-9);
    if (query.max_fee_eur !== undefined) filters.maxFeeCents = Math.floor(query.max_fee_eur * 100 + 1e-9);
    if (query.min_fee_eur !== undefined && query.max_fee_eur !== undefined && query.min_fee_eur > query.max_fee_eur) {
      errors.push({ pointer: '/query/max_fee_eur', detail: `must not be less than min_fee_eur (${query.min_fee_eur})` });
    }
    if (errors.length > 0) throw invalidRequest('One or more search parameters are not valid.', errors);
    return filters;
  }

  private schedulesFor(lawyers: ReadonlyArray<Pick<LawyerSummaryRow, 'id'> & LawyerOffer>, fromDate: string, toDate: string, nowMs: number): Promise<Map<string, LawyerSchedule>> {
    return loadSchedules(this.deps.database.db, lawyers, fromDate, toDate, nowMs);
  }

  /** next_available for each row, from the entries' cached values where they are still valid. */
  private async nextAvailableFor(
    rows: ReadonlyArray<Pick<LawyerSummaryRow, 'id'> & LawyerOffer>,
    entries: readonly LawyerEntry[],
    nowMs: number,
  ): Promise<Array<string | null>> {
    const result: Array<string | null> = new Array<string | null>(rows.length).fill(null);
    const missing: number[] = [];
    rows.forEach((row, i) => {
      const cached = entries[i]?.next;
      if (cached !== undefined && isFresh(cached, nowMs)) result[i] = cached.value;
      else missing.push(i);
    });
    if (missing.length === 0) return result;
    const stale = missing.map((i) => rows[i]!);
    // Dates in the lawyers' zones are within a day of the UTC date.
    const from = addDays(utcMsToDate(nowMs - (nowMs % 86_400_000)), -1);
    const to = addDays(from, NEXT_AVAILABLE_HORIZON_DAYS + 2);
    const schedules = await this.schedulesFor(stale, from, to, nowMs);
    const rules = this.rules(nowMs);
    for (const i of missing) {
      const next = nextAvailability(schedules.get(rows[i]!.id)!, rules, NEXT_AVAILABLE_HORIZON_DAYS);
      result[i] = next.value;
      const entry = entries[i];
      if (entry) {
        if (entry.next === undefined) this.deps.cache.charge(entry, 100);
        entry.next = { value: next.value, computedAtMs: nowMs, validThroughMs: next.validThroughMs };
      }
    }
    return result;
  }
}

/** The most languages a person may list (search, hold, Account). */
export const MAX_PERSON_LANGUAGES = 6;

/**
 * A person's languages from a comma-separated list of ISO 639-1 codes or names, most preferred
 * first, duplicates dropped; a 400 naming the unknown one (at `pointer`) otherwise.
 */
export function parseLanguages(text: string, pointer: string): string[] {
  const out: string[] = [];
  for (const part of text.split(',')) {
    const name = part.trim();
    if (name === '') continue;
    const code = resolveLanguage(name);
    if (code === undefined) throw invalidRequest('One or more search parameters are not valid.', [{ pointer, detail: `unknown language "${name}"; use ISO 639-1 codes such as "ar,fr" or language names` }]);
    if (!out.includes(code)) out.push(code);
  }
  if (out.length === 0) throw invalidRequest('One or more search parameters are not valid.', [{ pointer, detail: 'must name at least one language' }]);
  if (out.length > MAX_PERSON_LANGUAGES) throw invalidRequest('One or more search parameters are not valid.', [{ pointer, detail: `at most ${MAX_PERSON_LANGUAGES} languages` }]);
  return out;
}

/** The person's languages (in their order) that the lawyer speaks: empty is a mismatch (DESIGN.md §13). */
export function languagesInCommon(person: readonly string[], lawyer: readonly string[]): string[] {
  return person.filter((code) => lawyer.includes(code));
}

/** An availability answer with `languages_in_common` for one list of the person's languages: the same object while that answer is unchanged. */
const withLanguages = new WeakMap<AvailabilityResponse, Map<string, AvailabilityResponse>>();
function derivedWithLanguages(availability: AvailabilityResponse, person: readonly string[], inCommon: string[]): AvailabilityResponse {
  let byList = withLanguages.get(availability);
  if (!byList) withLanguages.set(availability, (byList = new Map()));
  const key = person.join(',');
  let out = byList.get(key);
  if (!out || out.languages_in_common?.join(',') !== inCommon.join(',')) byList.set(key, (out = { ...availability, languages_in_common: inCommon }));
  return out;
}

/** The first `count` free slots of an availability answer: the same object while that answer is unchanged. */
const firstSlots = new WeakMap<AvailabilityResponse, Map<number, AvailabilityResponse>>();
function derivedFirst(availability: AvailabilityResponse, count: number): AvailabilityResponse {
  let byCount = firstSlots.get(availability);
  if (!byCount) firstSlots.set(availability, (byCount = new Map()));
  let out = byCount.get(count);
  if (!out) byCount.set(count, (out = { ...availability, slots: availability.slots.filter((s) => s.available).slice(0, count) }));
  return out;
}
