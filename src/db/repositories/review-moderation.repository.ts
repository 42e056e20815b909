/**
 * Reviews after they are written (docs/reviews.md, "Answers, reports and moderation"): the
 * lawyer's one public answer, anyone's reports, the operator's hiding and restoring, and the
 * lawyer's rating aggregates recomputed from the visible reviews.
 */
import type { ReviewReportTable, ReviewTable } from '../schema.ts';
import type { Executor } from './types.ts';

export type ReviewRow = Pick<ReviewTable, 'id' | 'lawyer_id' | 'rating' | 'comment' | 'created_at' | 'verified_client'> & {
  answer: string | null;
  answered_at: string | null;
  hidden_at: string | null;
  hidden_reason: string | null;
  hidden_by: string | null;
};

const REVIEW_COLUMNS = ['id', 'lawyer_id', 'rating', 'comment', 'created_at', 'verified_client', 'answer', 'answered_at', 'hidden_at', 'hidden_reason', 'hidden_by'] as const;

const toRow = (r: Record<string, unknown>): ReviewRow => ({
  id: r.id as string,
  lawyer_id: r.lawyer_id as string,
  rating: Number(r.rating),
  comment: (r.comment as string | null) ?? null,
  created_at: (r.created_at as string | null) ?? null,
  verified_client: Number(r.verified_client),
  answer: (r.answer as string | null) ?? null,
  answered_at: (r.answered_at as string | null) ?? null,
  hidden_at: (r.hidden_at as string | null) ?? null,
  hidden_reason: (r.hidden_reason as string | null) ?? null,
  hidden_by: (r.hidden_by as string | null) ?? null,
});

/** One review, hidden or not, with the name of the lawyer it is about. */
export async function findReview(db: Executor, id: string): Promise<(ReviewRow & { lawyer_name: string }) | undefined> {
  const row = await db
    .selectFrom('reviews as v')
    .innerJoin('lawyers as l', 'l.id', 'v.lawyer_id')
    .select(['v.id', 'v.lawyer_id', 'v.rating', 'v.comment', 'v.created_at', 'v.verified_client', 'v.answer', 'v.answered_at', 'v.hidden_at', 'v.hidden_reason', 'v.hidden_by', 'l.name as lawyer_name'])
    .where('v.id', '=', id)
    .executeTakeFirst();
  return row ? { ...toRow(row), lawyer_name: row.lawyer_name } : undefined;
}

/** Every review of a lawyer, hidden ones included, newest first (her portal). */
export async function listReviewsOfLawyer(db: Executor, lawyerId: string, limit = 500): Promise<ReviewRow[]> {
  const rows = await db
    .selectFrom('reviews')
    .select([...REVIEW_COLUMNS])
    .where('lawyer_id', '=', lawyerId)
    .orderBy('created_at', (ob) => ob.desc().nullsLast())
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toRow);
}

/** Sets the answer only if there is none yet: true when this call wrote it (once, even under a race). */
export async function setReviewAnswerOnce(db: Executor, reviewId: string, lawyerId: string, answer: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('reviews')
    .set({ answer, answered_at: nowIso })
    .where('id', '=', reviewId)
    .where('lawyer_id', '=', lawyerId)
    .where('answer', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function insertReviewReport(db: Executor, row: ReviewReportTable): Promise<void> {
  await db.insertInto('review_reports').values(row).execute();
}

export type OpenReportRow = ReviewReportTable & { lawyer_name: string };

/** Open reports (not resolved), newest first, with the reviewed lawyer's name. */
export async function listOpenReports(db: Executor, limit = 500): Promise<OpenReportRow[]> {
  return db
    .selectFrom('review_reports as r')
    .innerJoin('reviews as v', 'v.id', 'r.review_id')
    .innerJoin('lawyers as l', 'l.id', 'v.lawyer_id')
    .select(['r.id', 'r.review_id', 'r.user_id', 'r.reporter_hash', 'r.reason', 'r.details', 'r.created_at', 'r.resolved_at', 'l.name as lawyer_name'])
    .where('r.resolved_at', 'is', null)
    .orderBy('r.created_at', 'desc')
    .orderBy('r.id')
    .limit(limit)
    .execute();
}

/** Every report of one review, newest first. */
export function listReportsOfReview(db: Executor, reviewId: string): Promise<ReviewReportTable[]> {
  return db.selectFrom('review_reports').selectAll().where('review_id', '=', reviewId).orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Reviews currently hidden, most recently hidden first (the console lists them to restore). */
export async function listHiddenReviews(db: Executor, limit = 200): Promise<Array<ReviewRow & { lawyer_name: string }>> {
  const rows = await db
    .selectFrom('reviews as v')
    .innerJoin('lawyers as l', 'l.id', 'v.lawyer_id')
    .select(['v.id', 'v.lawyer_id', 'v.rating', 'v.comment', 'v.created_at', 'v.verified_client', 'v.answer', 'v.answered_at', 'v.hidden_at', 'v.hidden_reason', 'v.hidden_by', 'l.name as lawyer_name'])
    .where('v.hidden_at', 'is not', null)
    .orderBy('v.hidden_at', 'desc')
    .orderBy('v.id')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...toRow(r), lawyer_name: r.lawyer_name }));
}

/** Hides a visible review: true when this call hid it. */
export async function hideReview(db: Executor, reviewId: string, reason: string, by: string | null, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('reviews')
    .set({ hidden_at: nowIso, hidden_reason: reason, hidden_by: by })
    .where('id', '=', reviewId)
    .where('hidden_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Shows a hidden review again: true when this call restored it. */
export async function restoreReview(db: Executor, reviewId: string): Promise<boolean> {
  const result = await db
    .updateTable('reviews')
    .set({ hidden_at: null, hidden_reason: null, hidden_by: null })
    .where('id', '=', reviewId)
    .where('hidden_at', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Marks every open report of a review resolved; returns how many. */
export async function resolveReportsOfReview(db: Executor, reviewId: string, nowIso: string): Promise<number> {
  const result = await db.updateTable('review_reports').set({ resolved_at: nowIso }).where('review_id', '=', reviewId).where('resolved_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Account deletion: the person's reports stay for the moderation record, without the link to the account. */
export async function detachReviewReports(db: Executor, userId: string): Promise<number> {
  const result = await db.updateTable('review_reports').set({ user_id: null }).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

