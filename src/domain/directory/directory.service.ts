/**
 * The lawyer directory: search, profiles, reviews and availability. Every directory rule lives
 * here; REST routes and MCP tools are thin adapters over these methods.
 */
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import {
  countPublicLawyers,
  findPublicLawyer,
  listBarMemberships,
  listRecentReviews,
  searchPublicLawyers,
  type LawyerFilters,
  type LawyerSort,
  type LawyerSummaryRow,
} from '../../db/repositories/lawyer.repository.ts';
import { listDateExceptions, listOccupiedSlots, listWeeklyHours } from '../../db/repositories/schedule.repository.ts';
import type {
  AvailabilityQuery,
  AvailabilityResponse,
  LawyerProfile,
  LawyerSummary,
  ReviewsResponse,
  SearchQuery,
  SearchResponse,
} from '../../contract/directory.ts';
import { invalidRequest, notFound, type FieldError } from '../errors.ts';
import type { Fencer } from './fence.ts';
import { resolveLanguage } from './languages.ts';
import type { DirectoryCache, ReferenceData } from './reference.service.ts';
import {
  isBookable,
  nextAvailableDate,
  slotKey,
  slotsOnDate,
  type DateException,
  type LawyerSchedule,
  type WeeklyHours,
} from './slots.ts';
import { addDays, dateInZone, daysBetween, formatInZone, utcMsToDate } from './zoned-time.ts';

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

export class DirectoryService {
  constructor(private readonly deps: DirectoryServiceDeps) {}

  /** Reference data (provinces, cities, practice areas) at the current directory version. */
  reference(): Promise<ReferenceData> {
    return this.deps.cache.current();
  }

  async search(query: SearchQuery): Promise<SearchResponse> {
    const ref = await this.deps.cache.current();
    const filters = this.resolveFilters(query, ref);
    const sort: LawyerSort = query.sort ?? 'rating';
    const { page, limit } = query;
    const offset = (page - 1) * limit;
    const db = this.deps.database.db;
    const filterKey = JSON.stringify(filters);
    const total = await this.deps.cache.count(ref.version, filterKey, () => countPublicLawyers(db, filters));
    const rows = offset < total ? await searchPublicLawyers(db, filters, sort, limit, offset) : [];
    const nowMs = this.deps.clock.now().getTime();
    const next = await this.nextAvailableFor(rows, nowMs);
    return {
      total,
      page,
      limit,
      has_more: offset + rows.length < total,
      lawyers: rows.map((r) => this.summary(r, ref, next.get(r.id) ?? null)),
    };
  }

  /**
   * A public profile. `fenced` (the default, for API and MCP consumers) wraps the bio as
   * untrusted text; the site shows it to people as plain escaped text instead.
   */
  async getProfile(lawyerId: string, options: { fenced?: boolean } = {}): Promise<LawyerProfile> {
    const db = this.deps.database.db;
    const [row, ref] = await Promise.all([findPublicLawyer(db, lawyerId), this.deps.cache.current()]);
    if (!row) throw notFound(NOT_FOUND_DETAIL);
    const [bars, next] = await Promise.all([listBarMemberships(db, row.id), this.nextAvailableFor([row], this.deps.clock.now().getTime())]);
    return {
      ...this.summary(row, ref, next.get(row.id) ?? null),
      timezone: row.timezone,
      bio: options.fenced === false ? row.bio : this.deps.fencer.fence(row.bio, 'lawyer_bio'),
      bar_memberships: bars.map((b) => ({ bar_name: b.bar_name, verified: b.verified === 1 })),
    };
  }

  async getReviews(lawyerId: string, limit: number): Promise<ReviewsResponse> {
    const db = this.deps.database.db;
    const row = await findPublicLawyer(db, lawyerId);
    if (!row) throw notFound(NOT_FOUND_DETAIL);
    const reviews = await listRecentReviews(db, row.id, limit);
    return {
      lawyer_id: row.id,
      lawyer_name: row.name,
      average_rating: row.rating_avg,
      total_bookings: row.total_bookings,
      total_reviews: row.review_count,
      reviews: reviews.map((r) => ({
        rating: r.rating,
        comment: this.deps.fencer.fence(r.comment, 'review_comment'),
        date: r.created_at,
      })),
    };
  }

  async getAvailability(lawyerId: string, query: AvailabilityQuery): Promise<AvailabilityResponse> {
    const db = this.deps.database.db;
    const row = await findPublicLawyer(db, lawyerId);
    if (!row) throw notFound(NOT_FOUND_DETAIL);
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

    const schedule = (await this.schedulesFor([row], start, end, nowMs)).get(row.id)!;
    const rules = this.rules(nowMs);
    const slots: AvailabilityResponse['slots'] = [];
    for (let date = start; date <= end; date = addDays(date, 1)) {
      for (const s of slotsOnDate(schedule, date)) {
        slots.push({
          date: s.date,
          start_time: s.start_time,
          end_time: s.end_time,
          available: isBookable(schedule, s, rules),
          timezone: row.timezone,
          starts_at: formatInZone(s.startsAtMs, row.timezone),
          ends_at: formatInZone(s.endsAtMs, row.timezone),
        });
      }
    }
    const urls = this.urls(row.id);
    return {
      lawyer_id: row.id,
      lawyer_name: row.name,
      consultation_fee_cents: row.consultation_fee_cents,
      currency: 'EUR',
      platform_commission_percent: row.platform_commission_percent,
      timezone: row.timezone,
      start_date: start,
      end_date: end,
      slots,
      booking_url: urls.booking_url,
      profile_url: urls.profile_url,
    };
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
      name: row.name,
      city: ref.cityBySlug.get(row.city_slug)?.name ?? row.city_slug,
      practice_areas: JSON.parse(row.practice_areas_json) as LawyerSummary['practice_areas'],
      languages: JSON.parse(row.languages_json) as string[],
      consultation_fee_cents: row.consultation_fee_cents,
      currency: 'EUR',
      platform_commission_percent: row.platform_commission_percent,
      average_rating: row.rating_avg,
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
      if (slug === undefined) errors.push({ pointer: '/query/city', detail: `unknown city "${query.city}"; valid slugs and names are listed by GET /api/v1/cities` });
      else filters.citySlug = slug;
    }
    if (query.practice_area !== undefined) {
      const areas = ref.expandPracticeArea(query.practice_area);
      if (areas === undefined) errors.push({ pointer: '/query/practice_area', detail: `unknown practice area "${query.practice_area}"; valid slugs are listed by GET /api/v1/practice-areas` });
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

  /** Weekly hours, exceptions and occupied slots for these lawyers, for dates from..to. */
  private async schedulesFor(
    lawyers: ReadonlyArray<Pick<LawyerSummaryRow, 'id' | 'timezone'>>,
    fromDate: string,
    toDate: string,
    nowMs: number,
  ): Promise<Map<string, LawyerSchedule>> {
    const ids = lawyers.map((l) => l.id);
    const db = this.deps.database.db;
    const [weekly, exceptions, occupied] = await Promise.all([
      listWeeklyHours(db, ids),
      listDateExceptions(db, ids, fromDate, toDate),
      listOccupiedSlots(db, ids, fromDate, toDate, new Date(nowMs).toISOString()),
    ]);
    const out = new Map<string, { timezone: string; weekly: WeeklyHours[]; exceptions: Map<string, DateException[]>; busy: Set<string> }>();
    for (const l of lawyers) out.set(l.id, { timezone: l.timezone, weekly: [], exceptions: new Map(), busy: new Set() });
    for (const w of weekly) out.get(w.lawyer_id)?.weekly.push(w);
    for (const e of exceptions) {
      const s = out.get(e.lawyer_id);
      if (!s) continue;
      const list = s.exceptions.get(e.date);
      if (list) list.push(e);
      else s.exceptions.set(e.date, [e]);
    }
    for (const o of occupied) out.get(o.lawyer_id)?.busy.add(slotKey(o.slot_date, o.start_time));
    return out;
  }

  private async nextAvailableFor(rows: ReadonlyArray<Pick<LawyerSummaryRow, 'id' | 'timezone'>>, nowMs: number): Promise<Map<string, string | null>> {
    const result = new Map<string, string | null>();
    if (rows.length === 0) return result;
    // Dates in the lawyers' zones are within a day of the UTC date.
    const from = addDays(utcMsToDate(nowMs - (nowMs % 86_400_000)), -1);
    const to = addDays(from, NEXT_AVAILABLE_HORIZON_DAYS + 2);
    const schedules = await this.schedulesFor(rows, from, to, nowMs);
    const rules = this.rules(nowMs);
    for (const row of rows) result.set(row.id, nextAvailableDate(schedules.get(row.id)!, rules, NEXT_AVAILABLE_HORIZON_DAYS));
    return result;
  }
}
