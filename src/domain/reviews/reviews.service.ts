/**
 * Reviews from verified clients (DESIGN.md §11; docs/reviews.md): every rule about writing one.
 *
 * - Only the consultation's own person may review it; anyone else's (or an unknown id) reads as
 *   not found (the site's 404), never as "not yours".
 * - Only once it has ended: status `held`, or `confirmed`/`moved` with its end passed. A no-show
 *   or a cancelled consultation (by either side) is never reviewable.
 * - One review per consultation: the unique index on `reviews.consultation_id` decides between
 *   concurrent submissions; the loser is told the review exists (and may edit it).
 * - Rating 1–5, comment optional, trimmed, at most 2,000 characters, any language.
 * - Editable for 30 days from `created_at`; after that the edit is refused with a clear reason.
 * - The lawyer's aggregates (`rating_avg`, `rating_key`, `review_count`, `total_bookings`) are
 *   recomputed from the records in the same transaction as each write (`recompute` is for the
 *   moderation's hide/restore), and the directory caches are told: this process's now, other
 *   processes' through `lawyer_changes`.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  findReviewOfConsultation,
  insertReviewOnce,
  reviewsChanged,
  updateReviewText,
  type LawyerAggregates,
  type ReviewRow,
} from '../../db/repositories/review.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { Consultation, ConsultationsService } from '../booking/consultations.service.ts';
import { DomainError } from '../errors.ts';

export const REVIEW_COMMENT_MAX = 2000;
export const REVIEW_EDIT_DAYS = 30;
const DAY_MS = 86_400_000;

export interface ReviewInput {
  rating: unknown;
  comment: unknown;
}

/** Why a review cannot be written (or edited) now. */
export type ReviewRefusal = 'not_ended' | 'not_held' | 'edit_closed';

export type ReviewFieldErrors = Partial<Record<'rating' | 'comment', 'rating' | 'comment_too_long'>>;

export type ReviewOutcome =
  | { ok: true; review: ReviewRow; created: boolean }
  | { ok: false; refusal: ReviewRefusal }
  | { ok: false; errors: ReviewFieldErrors; values: { rating: number | null; comment: string } }
  /** A second submission lost to the first: the review exists, the person may edit it. */
  | { ok: false; exists: ReviewRow };

export interface ReviewState {
  consultation: Consultation;
  review: ReviewRow | null;
  /** Null when a review may be written or edited now; else why not. */
  refusal: ReviewRefusal | null;
  /** Until when the existing review may be edited (ISO instant), null without one. */
  editableUntil: string | null;
}

export interface ReviewsServiceDeps {
  database: Database;
  clock: Clock;
  consultations: Pick<ConsultationsService, 'getForUser'>;
  cache?: { lawyersChanged(ids: Iterable<string>): void };
}

const CANCELLED = new Set(['cancelled_by_person', 'cancelled_by_lawyer']);

/**
 * Whether a consultation may be reviewed at `nowIso`: it has ended (held, or confirmed/moved with
 * its end passed) and the lawyer did not mark a no-show, nor was it cancelled.
 */
export function canReview(c: Pick<Consultation, 'status' | 'endsAt'>, nowIso: string): boolean {
  return reviewRefusal(c, nowIso) === null;
}

function reviewRefusal(c: Pick<Consultation, 'status' | 'endsAt'>, nowIso: string): 'not_ended' | 'not_held' | null {
  if (c.status === 'no_show' || CANCELLED.has(c.status)) return 'not_held';
  if (c.status === 'held') return null;
  return c.endsAt <= nowIso ? null : 'not_ended';
}

/** The end of the 30-day editing window of a review written at `createdAt`. */
export function editableUntil(createdAt: string): string {
  return new Date(Date.parse(createdAt) + REVIEW_EDIT_DAYS * DAY_MS).toISOString();
}

/** Reads the form's rating and comment; field errors name what to fix. */
export function parseReviewInput(input: ReviewInput): { rating: number; comment: string | null } | { errors: ReviewFieldErrors; values: { rating: number | null; comment: string } } {
  const raw = typeof input.rating === 'number' ? String(input.rating) : typeof input.rating === 'string' ? input.rating.trim() : '';
  const rating = /^[1-5]$/.test(raw) ? Number(raw) : null;
  const text = typeof input.comment === 'string' ? input.comment.replace(/\r\n?/g, '\n').trim() : '';
  const errors: ReviewFieldErrors = {};
  if (rating === null) errors.rating = 'rating';
  if ([...text].length > REVIEW_COMMENT_MAX) errors.comment = 'comment_too_long';
  if (rating === null || errors.comment) return { errors, values: { rating, comment: text } };
  return { rating, comment: text === '' ? null : text };
}

export class ReviewsService {
  constructor(private readonly deps: ReviewsServiceDeps) {}

  private nowIso(): string {
    return this.deps.clock.now().toISOString();
  }

  /** The person's own consultation, else not found (someone else's reads exactly like an unknown id). */
  private async own(userId: string, consultationId: string): Promise<Consultation> {
    const c = await this.deps.consultations.getForUser(userId, consultationId);
    if (!c) throw new DomainError('not_found', 'no such consultation');
    return c;
  }

  /** What the review page shows: the consultation, its review if any, and whether it may be written or edited now. */
  async state(userId: string, consultationId: string): Promise<ReviewState> {
    const consultation = await this.own(userId, consultationId);
    const review = (await findReviewOfConsultation(this.deps.database.db, consultation.id)) ?? null;
    return { consultation, review, ...this.decide(consultation, review) };
  }

  private decide(c: Consultation, review: ReviewRow | null): { refusal: ReviewRefusal | null; editableUntil: string | null } {
    const now = this.nowIso();
    if (review) {
      const until = editableUntil(review.created_at ?? now);
      return { refusal: now < until ? null : 'edit_closed', editableUntil: until };
    }
    return { refusal: reviewRefusal(c, now), editableUntil: null };
  }

  /** Whether the person may write a review of this consultation now (false for anyone else's). */
  async canReview(userId: string, consultationId: string): Promise<boolean> {
    const c = await this.deps.consultations.getForUser(userId, consultationId);
    if (!c) return false;
    const review = await findReviewOfConsultation(this.deps.database.db, c.id);
    return !review && canReview(c, this.nowIso());
  }

  /** Writes the person's review of their consultation (once). */
  async write(userId: string, consultationId: string, input: ReviewInput): Promise<ReviewOutcome> {
    const c = await this.own(userId, consultationId);
    const parsed = parseReviewInput(input);
    const nowIso = this.nowIso();
    const refusal = reviewRefusal(c, nowIso);
    if (refusal) return { ok: false, refusal };
    if ('errors' in parsed) return { ok: false, ...parsed };
    const row = {
      id: randomUUID(),
      lawyer_id: c.lawyer.id,
      rating: parsed.rating,
      comment: parsed.comment,
      created_at: nowIso,
      verified_client: 1,
      consultation_id: c.id,
      user_id: userId,
      updated_at: null,
    };
    const written = await this.deps.database.db.transaction().execute(async (trx) => {
      if (!(await insertReviewOnce(trx, row))) return false;
      await this.aggregatesChanged(trx, c.lawyer.id, nowIso);
      return true;
    });
    if (!written) {
      const existing = await findReviewOfConsultation(this.deps.database.db, c.id);
      if (!existing) throw new Error(`review of ${c.id}: lost a race but none is stored`);
      return { ok: false, exists: existing };
    }
    this.deps.cache?.lawyersChanged([c.lawyer.id]);
    return { ok: true, created: true, review: { ...row, hidden_at: null } };
  }

  /** Edits the person's review, within 30 days of when it was written. */
  async edit(userId: string, consultationId: string, input: ReviewInput): Promise<ReviewOutcome> {
    const c = await this.own(userId, consultationId);
    const review = await findReviewOfConsultation(this.deps.database.db, c.id);
    // The review must be theirs too: after an account deletion it belongs to no one.
    if (!review || review.user_id !== userId) throw new DomainError('not_found', 'no review of this consultation');
    const { refusal } = this.decide(c, review);
    if (refusal) return { ok: false, refusal };
    const parsed = parseReviewInput(input);
    if ('errors' in parsed) return { ok: false, ...parsed };
    const nowIso = this.nowIso();
    await this.deps.database.db.transaction().execute(async (trx) => {
      await updateReviewText(trx, review.id, { rating: parsed.rating, comment: parsed.comment, updated_at: nowIso });
      await this.aggregatesChanged(trx, c.lawyer.id, nowIso);
    });
    this.deps.cache?.lawyersChanged([c.lawyer.id]);
    return { ok: true, created: false, review: { ...review, rating: parsed.rating, comment: parsed.comment, updated_at: nowIso } };
  }

  /** Writes the review, or edits the existing one: what the site's one form does. */
  async save(userId: string, consultationId: string, input: ReviewInput): Promise<ReviewOutcome> {
    const c = await this.own(userId, consultationId);
    const existing = await findReviewOfConsultation(this.deps.database.db, c.id);
    if (!existing) {
      const first = await this.write(userId, consultationId, input);
      // Lost to a concurrent first submission of the same person: theirs stands, this one edits it.
      return 'exists' in first ? this.edit(userId, consultationId, input) : first;
    }
    return this.edit(userId, consultationId, input);
  }

  /**
   * Recomputes a lawyer's aggregates from the records (for moderation: hide/restore). In its own
   * transaction, the caches are told after the commit. Inside the caller's transaction (`trx`),
   * the caller calls `forget(lawyerId)` after its commit.
   */
  async recompute(lawyerId: string, trx?: Executor): Promise<LawyerAggregates> {
    const nowIso = this.nowIso();
    if (trx) return this.aggregatesChanged(trx, lawyerId, nowIso);
    const values = await this.deps.database.db.transaction().execute((t) => this.aggregatesChanged(t, lawyerId, nowIso));
    this.forget(lawyerId);
    return values;
  }

  /** This process's cached rows of the lawyer go now (other processes' through lawyer_changes). */
  forget(lawyerId: string): void {
    this.deps.cache?.lawyersChanged([lawyerId]);
  }

  private async aggregatesChanged(trx: Executor, lawyerId: string, nowIso: string): Promise<LawyerAggregates> {
    return reviewsChanged(trx, lawyerId, nowIso);
  }
}
