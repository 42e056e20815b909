/** Lawyers: the search query, single reads and bulk writes. */
import { sql, type SelectQueryBuilder } from 'kysely';
import type {
  BarMembershipTable,
  DateExceptionTable,
  DB,
  LawyerLanguageTable,
  LawyerPracticeAreaTable,
  LawyerTable,
  LawyerVerificationTable,
  ReviewTable,
  WeeklyHoursTable,
} from '../schema.ts';
import type { Insertable } from 'kysely';
import type { Executor } from './types.ts';

export type LawyerSort = 'rating' | 'price_asc' | 'price_desc' | 'reviews';

export interface LawyerFilters {
  citySlug?: string;
  /** The requested area and all of its sub-areas. */
  areaSlugs?: string[];
  language?: string;
  minFeeCents?: number;
  maxFeeCents?: number;
}

export type LawyerSummaryRow = Pick<
  LawyerTable,
  | 'id'
  | 'name'
  | 'city_slug'
  | 'timezone'
  | 'consultation_fee_cents'
  | 'platform_commission_percent'
  | 'rating_avg'
  | 'review_count'
  | 'total_bookings'
  | 'practice_areas_json'
  | 'languages_json'
  // The offer slot generation needs (next_available on every result).
  | 'consultation_minutes'
  | 'buffer_minutes'
  | 'min_notice_minutes'
  | 'horizon_days'
>;

export type LawyerProfileRow = LawyerSummaryRow & Pick<LawyerTable, 'bio' | 'video_url' | 'offers_phone' | 'office_address'>;

const SUMMARY_COLUMNS = [
  'id',
  'name',
  'city_slug',
  'timezone',
  'consultation_fee_cents',
  'platform_commission_percent',
  'rating_avg',
  'review_count',
  'total_bookings',
  'practice_areas_json',
  'languages_json',
  'consultation_minutes',
  'buffer_minutes',
  'min_notice_minutes',
  'horizon_days',
] as const;

function applyFilters<O>(query: SelectQueryBuilder<DB, 'lawyers', O>, f: LawyerFilters): SelectQueryBuilder<DB, 'lawyers', O> {
  // Written exactly as the partial indexes' predicate so both planners can use them.
  let q = query.where('lawyers.verified', '=', 1).where('lawyers.listed', '=', 1);
  if (f.citySlug !== undefined) q = q.where('lawyers.city_slug', '=', f.citySlug);
  if (f.minFeeCents !== undefined) q = q.where('lawyers.consultation_fee_cents', '>=', f.minFeeCents);
  if (f.maxFeeCents !== undefined) q = q.where('lawyers.consultation_fee_cents', '<=', f.maxFeeCents);
  if (f.language !== undefined) {
    const language = f.language;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('lawyer_languages')
          .select('lawyer_languages.lawyer_id')
          .whereRef('lawyer_languages.lawyer_id', '=', 'lawyers.id')
          .where('lawyer_languages.language', '=', language),
      ),
    );
  }
  if (f.areaSlugs !== undefined) {
    const areas = f.areaSlugs;
    q = q.where((eb) =>
      eb.exists(
        eb
          .selectFrom('lawyer_practice_areas')
          .select('lawyer_practice_areas.lawyer_id')
          .whereRef('lawyer_practice_areas.lawyer_id', '=', 'lawyers.id')
          .where('lawyer_practice_areas.area_slug', areas.length === 1 ? '=' : 'in', areas.length === 1 ? areas[0]! : areas),
      ),
    );
  }
  return q;
}

/** One page of public lawyers matching the filters, in a total, stable order. */
export function searchPublicLawyers(
  db: Executor,
  filters: LawyerFilters,
  sort: LawyerSort,
  limit: number,
  offset: number,
): Promise<LawyerSummaryRow[]> {
  let q = applyFilters(db.selectFrom('lawyers').select(SUMMARY_COLUMNS), filters);
  switch (sort) {
    case 'rating':
      q = q.orderBy('rating_key', 'desc').orderBy('review_count', 'desc');
      break;
    case 'reviews':
      q = q.orderBy('review_count', 'desc').orderBy('rating_key', 'desc');
      break;
    case 'price_asc':
      q = q.orderBy('consultation_fee_cents', 'asc');
      break;
    case 'price_desc':
      q = q.orderBy('consultation_fee_cents', 'desc');
      break;
  }
  return q.orderBy('id', 'asc').limit(limit).offset(offset).execute();
}

export async function countPublicLawyers(db: Executor, filters: LawyerFilters): Promise<number> {
  const row = await applyFilters(
    db.selectFrom('lawyers').select((eb) => eb.fn.countAll<number>().as('n')),
    filters,
  ).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The summary rows of these public lawyers (any order; ids that are not public are left out). */
export async function findPublicLawyersByIds(db: Executor, ids: readonly string[]): Promise<LawyerSummaryRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('lawyers')
    .select(SUMMARY_COLUMNS)
    .where('id', 'in', [...ids])
    .where('verified', '=', 1)
    .where('listed', '=', 1)
    .execute();
}

/** What the search index keeps of a public lawyer. */
export type LawyerIndexRow = Pick<LawyerTable, 'id' | 'city_slug' | 'consultation_fee_cents' | 'rating_key' | 'review_count'> & {
  /** Offers video or phone: serves every city for those formats (DESIGN.md §13). */
  remote?: boolean;
};

// The search index's bulk reads return a few rows of comma-joined values (`string_agg`, SQLite
// 3.44+ and PostgreSQL): decoding one row per lawyer or per link costs more than the query.
// Ids are UUIDs and slugs and language codes never contain commas; the counts are checked.
const joined = (column: string) => sql<string | null>`string_agg(cast(${sql.ref(column)} as text), ',')`;

function split(text: string | null, n: number): string[] {
  const parts = text === null || text === '' ? [] : text.split(',');
  if (parts.length !== n) throw new Error(`search index read: expected ${n} values, got ${parts.length}`);
  return parts;
}

/**
 * Public lawyers with an id after `afterId` (from the first when undefined), the first `limit` in
 * id order (returned in any order), and the last id of them (where the next chunk starts).
 */
export async function listPublicLawyersForIndex(
  db: Executor,
  afterId: string | undefined,
  limit: number,
): Promise<{ rows: LawyerIndexRow[]; lastId: string | undefined }> {
  let chunk = db
    .selectFrom('lawyers')
    .select(['id', 'city_slug', 'consultation_fee_cents', 'rating_key', 'review_count'])
    .select(sql<number>`case when video_url is not null or offers_phone = 1 then 1 else 0 end`.as('remote'))
    .where('verified', '=', 1)
    .where('listed', '=', 1);
  if (afterId !== undefined) chunk = chunk.where('id', '>', afterId);
  const r = await db
    .selectFrom(chunk.orderBy('id').limit(limit).as('p'))
    .select((eb) => [
      joined('p.id').as('ids'),
      joined('p.city_slug').as('cities'),
      joined('p.consultation_fee_cents').as('fees'),
      joined('p.rating_key').as('rating_keys'),
      joined('p.review_count').as('review_counts'),
      joined('p.remote').as('remotes'),
      eb.fn.max('p.id').as('last_id'),
      eb.fn.countAll<number>().as('n'),
    ])
    .executeTakeFirstOrThrow();
  const n = Number(r.n);
  const ids = split(r.ids, n);
  const cities = split(r.cities, n);
  const fees = split(r.fees, n);
  const ratingKeys = split(r.rating_keys, n);
  const reviewCounts = split(r.review_counts, n);
  const remotes = split(r.remotes, n);
  const rows = ids.map((id, i) => ({
    id,
    city_slug: cities[i]!,
    consultation_fee_cents: Number(fees[i]),
    rating_key: Number(ratingKeys[i]),
    review_count: Number(reviewCounts[i]),
    remote: remotes[i] === '1',
  }));
  return { rows, lastId: r.last_id ?? undefined };
}

const INDEX_LINKS = {
  languages: { table: 'lawyer_languages', column: 'language' },
  practice_areas: { table: 'lawyer_practice_areas', column: 'area_slug' },
} as const;

/**
 * Per language (or practice area), the lawyers with `afterId < lawyer_id <= upToId` (an
 * undefined end is open), public or not.
 */
export async function listLinksForIndex(
  db: Executor,
  link: keyof typeof INDEX_LINKS,
  afterId: string | undefined,
  upToId: string | undefined,
): Promise<Array<{ value: string; lawyerIds: string[] }>> {
  const { table, column } = INDEX_LINKS[link];
  const value = sql.ref<string>(column);
  let q = db
    .selectFrom(table)
    .select((eb) => [value.as('value'), joined('lawyer_id').as('ids'), eb.fn.countAll<number>().as('n')])
    .groupBy(value);
  if (afterId !== undefined) q = q.where('lawyer_id', '>', afterId);
  if (upToId !== undefined) q = q.where('lawyer_id', '<=', upToId);
  return (await q.execute()).map((r) => ({ value: r.value, lawyerIds: split(r.ids, Number(r.n)) }));
}

/** A lawyer only if verified and publicly listed; anything else reads as absent. */
export function findPublicLawyer(db: Executor, id: string): Promise<LawyerProfileRow | undefined> {
  return db
    .selectFrom('lawyers')
    .select([...SUMMARY_COLUMNS, 'bio', 'video_url', 'offers_phone', 'office_address'])
    // Ids are stored in lower case; a UUID is the same whatever case a client writes it in.
    .where('id', '=', id.toLowerCase())
    .where('verified', '=', 1)
    .where('listed', '=', 1)
    .executeTakeFirst();
}

export function listBarMemberships(db: Executor, lawyerId: string): Promise<Pick<BarMembershipTable, 'bar_name' | 'verified'>[]> {
  return db
    .selectFrom('bar_memberships')
    .select(['bar_name', 'verified'])
    .where('lawyer_id', '=', lawyerId)
    .orderBy('verified', 'desc')
    .orderBy('bar_name')
    .execute();
}

export async function lawyerExists(db: Executor, id: string): Promise<boolean> {
  const row = await db.selectFrom('lawyers').select('id').where('id', '=', id).executeTakeFirst();
  return row !== undefined;
}

export async function countLawyers(db: Executor): Promise<number> {
  const row = await db.selectFrom('lawyers').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface LawyerWrite {
  lawyer: LawyerTable;
  practiceAreas: LawyerPracticeAreaTable[];
  languages: LawyerLanguageTable[];
  barMemberships: BarMembershipTable[];
  verifications: Insertable<LawyerVerificationTable>[];
  weeklyHours: WeeklyHoursTable[];
  dateExceptions: DateExceptionTable[];
  reviews: ReviewTable[];
}

/** Bound parameters per statement stay under SQLite's and PostgreSQL's limits. */
async function insertChunked<T extends keyof DB>(db: Executor, table: T, rows: DB[T][], columnsPerRow: number): Promise<void> {
  const perChunk = Math.max(1, Math.floor(30_000 / columnsPerRow));
  for (let i = 0; i < rows.length; i += perChunk) {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    await db.insertInto(table).values(rows.slice(i, i + perChunk) as any).execute();
  }
}

/** Inserts lawyers with everything that belongs to them. Call inside a transaction. */
export async function insertLawyers(db: Executor, writes: LawyerWrite[]): Promise<void> {
  await insertChunked(db, 'lawyers', writes.map((w) => w.lawyer), 29);
  await insertChunked(db, 'lawyer_practice_areas', writes.flatMap((w) => w.practiceAreas), 3);
  await insertChunked(db, 'lawyer_languages', writes.flatMap((w) => w.languages), 2);
  await insertChunked(db, 'bar_memberships', writes.flatMap((w) => w.barMemberships), 5);
  await insertChunked(db, 'lawyer_verifications', writes.flatMap((w) => w.verifications) as never, 14);
  await insertChunked(db, 'lawyer_weekly_hours', writes.flatMap((w) => w.weeklyHours), 5);
  await insertChunked(db, 'lawyer_date_exceptions', writes.flatMap((w) => w.dateExceptions), 5);
  await insertChunked(db, 'reviews', writes.flatMap((w) => w.reviews), 6);
}

export async function existingLawyerIds(db: Executor, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db.selectFrom('lawyers').select('id').where('id', 'in', ids.slice(i, i + 500)).execute();
    for (const r of rows) found.add(r.id);
  }
  return found;
}

export type LawyerMailRow = Pick<LawyerTable, 'id' | 'name' | 'timezone' | 'consultation_fee_cents' | 'platform_commission_percent' | 'contact_email' | 'form_of_address'> & {
  city_name: string | null;
  /** Her account's language (the notice is written in it: consultation-mail.ts lawyerSideLocale); null without an account. */
  user_locale: string | null;
};

/**
 * What the consultation emails need of a lawyer, listed or not (a hold made before an unlisting
 * still confirms), contact email included: for mail only, never for an API answer.
 */
export function findLawyerForMail(db: Executor, id: string): Promise<LawyerMailRow | undefined> {
  return db
    .selectFrom('lawyers')
    .leftJoin('cities', 'cities.slug', 'lawyers.city_slug')
    .leftJoin('users', 'users.id', 'lawyers.user_id')
    .select(['lawyers.id', 'lawyers.name', 'lawyers.timezone', 'lawyers.consultation_fee_cents', 'lawyers.platform_commission_percent', 'lawyers.contact_email', 'lawyers.form_of_address', 'cities.name as city_name', 'users.locale as user_locale'])
    .where('lawyers.id', '=', id)
    .executeTakeFirst();
}
