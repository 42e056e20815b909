/**
 * Reviews by verified clients (DESIGN.md §11; docs/reviews.md) and the lawyer's aggregates that
 * are computed from them and from her consultations: `rating_avg`, `rating_key`, `review_count`,
 * `total_bookings`. The one rule for the aggregates is `lawyerAggregates` (the import writer
 * uses it too); `recomputeLawyerAggregates` applies it to the stored records.
 */
import { sql } from 'kysely';
import type { ReviewTable } from '../schema.ts';
import { bumpDirectoryVersion, recordLawyerChanges } from './reference.repository.ts';
import type { Executor } from './types.ts';

export type ReviewRow = Pick<ReviewTable, 'id' | 'lawyer_id' | 'rating' | 'comment' | 'created_at'> & {
  consultation_id: string | null;
  user_id: string | null;
  updated_at: string | null;
  hidden_at: string | null;
};

const COLUMNS = ['id', 'lawyer_id', 'rating', 'comment', 'created_at', 'consultation_id', 'user_id', 'updated_at', 'hidden_at'] as const;

export function findReviewOfConsultation(db: Executor, consultationId: string): Promise<ReviewRow | undefined> {
  return db.selectFrom('reviews').select(COLUMNS).where('consultation_id', '=', consultationId).executeTakeFirst() as Promise<ReviewRow | undefined>;
}

/** Inserts the review unless the consultation already has one (the unique index decides); true when this call wrote it. */
export async function insertReviewOnce(db: Executor, row: ReviewTable): Promise<boolean> {
  const done = await db
    .insertInto('reviews')
    .values(row)
    .onConflict((oc) => oc.column('consultation_id').doNothing())
    .executeTakeFirst();
  return Number(done.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function updateReviewText(db: Executor, id: string, values: { rating: number; comment: string | null; updated_at: string }): Promise<void> {
  await db.updateTable('reviews').set(values).where('id', '=', id).execute();
}

export interface PublicReviewRow {
  id: string;
  rating: number;
  comment: string | null;
  created_at: string | null;
  answer: string | null;
  answered_at: string | null;
  /** The consultation's day (`YYYY-MM-DD`) for a review written here; null for an imported one. */
  consultation_date: string | null;
}

/**
 * A lawyer's reviews as the public sees them: verified clients only, never a hidden one, newest
 * first (undated imported ones last), `limit` of them after skipping `offset`. The order is total
 * (date, then id), so consecutive pages never repeat or skip a review.
 */
export function listPublicReviews(db: Executor, lawyerId: string, limit: number, offset = 0): Promise<PublicReviewRow[]> {
  return db
    .selectFrom('reviews as r')
    .leftJoin('consultations as c', 'c.id', 'r.consultation_id')
    .select(['r.id', 'r.rating', 'r.comment', 'r.created_at', 'r.answer', 'r.answered_at', 'c.slot_date as consultation_date'])
    .where('r.lawyer_id', '=', lawyerId)
    .where('r.verified_client', '=', 1)
    .where('r.hidden_at', 'is', null)
    .orderBy('r.created_at', (ob) => ob.desc().nullsLast())
    .orderBy('r.id')
    .limit(limit)
    .offset(offset)
    .execute() as Promise<PublicReviewRow[]>;
}

export interface AggregateInputs {
  /** Visible verified-client reviews: how many, and the sum of their ratings. */
  visibleReviews: number;
  ratingSum: number;
  /** The lawyer's consultation records, every status. */
  consultations: number;
  /** Imported verified-client reviews (no consultation here): each stands for one consultation held before. */
  importedVerifiedReviews: number;
}

export interface LawyerAggregates {
  rating_avg: number | null;
  rating_key: number;
  review_count: number;
  total_bookings: number;
}

/** THE rule for a lawyer's aggregates (docs/reviews.md#aggregates). */
export function lawyerAggregates(i: AggregateInputs): LawyerAggregates {
  const avg = i.visibleReviews > 0 ? Math.round((i.ratingSum / i.visibleReviews) * 100) / 100 : null;
  return {
    rating_avg: avg,
    rating_key: avg === null ? 0 : Math.round(avg * 100),
    review_count: i.visibleReviews,
    total_bookings: i.consultations + i.importedVerifiedReviews,
  };
}

/**
 * Recomputes a lawyer's aggregates from the stored records, inside the caller's transaction.
 * The lawyer's row is locked first (a no-op update), so of two concurrent writers the later one
 * counts what the earlier one committed: the last value written is always the true one.
 */
export async function recomputeLawyerAggregates(db: Executor, lawyerId: string): Promise<LawyerAggregates> {
  await db.updateTable('lawyers').set({ review_count: sql`review_count` }).where('id', '=', lawyerId).execute();
  const [visible, imported, consultations] = await Promise.all([
    db
      .selectFrom('reviews')
      .select((eb) => [eb.fn.countAll().as('n'), eb.fn.sum<number | string | null>('rating').as('s')])
      .where('lawyer_id', '=', lawyerId)
      .where('verified_client', '=', 1)
      .where('hidden_at', 'is', null)
      .executeTakeFirstOrThrow(),
    db
      .selectFrom('reviews')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('lawyer_id', '=', lawyerId)
      .where('verified_client', '=', 1)
      .where('consultation_id', 'is', null)
      .executeTakeFirstOrThrow(),
    db.selectFrom('consultations').select((eb) => eb.fn.countAll().as('n')).where('lawyer_id', '=', lawyerId).executeTakeFirstOrThrow(),
  ]);
  const values = lawyerAggregates({
    visibleReviews: Number(visible.n),
    ratingSum: Number(visible.s ?? 0),
    consultations: Number(consultations.n),
    importedVerifiedReviews: Number(imported.n),
  });
  await db.updateTable('lawyers').set(values).where('id', '=', lawyerId).execute();
  return values;
}

/**
 * A review was written, edited, hidden or restored: her aggregates recomputed, and, since the
 * rating orders search results, the directory version bumped (the search index is rebuilt) and the
 * change recorded for every process's caches (the caller's process drops its own after the commit).
 * Call it inside the transaction that changed the reviews.
 */
export async function reviewsChanged(db: Executor, lawyerId: string, nowIso: string): Promise<LawyerAggregates> {
  const values = await recomputeLawyerAggregates(db, lawyerId);
  await bumpDirectoryVersion(db, nowIso);
  await recordLawyerChanges(db, [lawyerId], nowIso);
  return values;
}
