/**
 * What happens to a review once it is published (docs/reviews.md, "Answers, reports and
 * moderation"; DESIGN.md §11):
 *
 * - The lawyer answers once, publicly. The answer is final: no edit, no second answer (the
 *   update only writes where there is no answer yet, so two tabs cannot both answer). Only her own
 *   reviews: another lawyer's review id is not found.
 * - Anyone may report a visible review, signed in (their account) or not (a salted hash of their
 *   address, never the address). At most 10 reports an hour per reporter.
 * - The operator hides a review with one of the published reasons (HIDE_REASONS, listed on
 *   /help/reviews) and a note, restores it with a note, or keeps it (the open reports are
 *   dismissed). Each action is audited in operator_audit in its own transaction, and hiding or
 *   restoring recomputes the lawyer's rating there too: a hidden review counts nowhere.
 *
 * Review comments and answers are third-party text: line breaks are allowed, control,
 * invisible-format and bidi characters are refused; pages escape them, agents get them fenced.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  findReview,
  hideReview,
  insertReviewReport,
  listHiddenReviews,
  listOpenReports,
  listReportsOfReview,
  listReviewsOfLawyer,
  resolveReportsOfReview,
  restoreReview,
  setReviewAnswerOnce,
  type ReviewRow,
} from '../../db/repositories/review-moderation.repository.ts';
import { recordLawyerChanges } from '../../db/repositories/reference.repository.ts';
import { reviewsChanged } from '../../db/repositories/review.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { ReviewReportTable } from '../../db/schema.ts';
import { admitOrThrow, type RateLimitStore, type WindowRule } from '../access/rate-limit.ts';
import type { Actor, OperatorIdentity } from '../access/types.ts';
import { conflict, forbidden, invalidRequest, notFound, type FieldError } from '../errors.ts';
import { recordOperatorAction } from '../operator/audit.ts';
import { findForbiddenCharacter } from '../third-party-text.ts';

/** Why a person reports a review (the report form's choices, in this order). */
export const REPORT_REASONS = ['not_genuine', 'offensive', 'personal_data', 'spam', 'other'] as const;
export type ReportReason = (typeof REPORT_REASONS)[number];

/** The only reasons a review is hidden for (published on /help/reviews). */
export const HIDE_REASONS = ['not_genuine', 'offensive', 'personal_data', 'spam', 'illegal'] as const;
export type HideReason = (typeof HIDE_REASONS)[number];

export const MODERATION_LIMITS = {
  answerMax: 1000,
  detailsMax: 1000,
  noteMax: 1000,
  perReporter: [{ id: 'hour', limit: 10, windowMs: 3_600_000 }] as readonly WindowRule[],
};

export type ModeratedReview = ReviewRow & { lawyer_name: string };

/** A review with its open reports, for the console's queue. */
export interface ReportedReview {
  review: ModeratedReview;
  reports: ReviewReportTable[];
  /** The newest open report's time: the queue's order. */
  latestAt: string;
}

export interface ReviewModerationDeps {
  database: Database;
  clock: Clock;
  limiter: RateLimitStore;
  /** Secret mixed into reporters' address hashes (the same address gives the same hash; the address cannot be read back). */
  reporterSalt: string;
  onLimiterError?: (err: unknown) => void;
  /** This process's directory cache: forgets at once (other processes through the version and lawyer_changes). */
  caches?: { directory?: { invalidate(): void; lawyersChanged?(ids: Iterable<string>): void } };
}

const isIn = <T extends string>(list: readonly T[], v: string): v is T => (list as readonly string[]).includes(v);

/**
 * Multi-line third-party text: CRLF → LF, tabs → spaces, trimmed; refused (a field error) when
 * too long or holding a control, invisible or bidi character on any line.
 */
export function checkLongText(raw: unknown, pointer: string, max: number, required: boolean): { value: string; error: FieldError | null } {
  const value = String(raw ?? '').replace(/\r\n?/g, '\n').replace(/\t/g, ' ').trim();
  if (value === '') return { value, error: required ? { pointer, detail: 'required' } : null };
  if ([...value].length > max) return { value, error: { pointer, detail: `at most ${max} characters` } };
  if (value.split('\n').some((line) => findForbiddenCharacter(line) !== null)) return { value, error: { pointer, detail: 'contains an invisible or control character' } };
  return { value, error: null };
}

export class ReviewModerationService {
  constructor(private readonly deps: ReviewModerationDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  private operator(actor: Actor): OperatorIdentity | undefined {
    if (actor.type !== 'operator') throw forbidden('operators only');
    return actor.by;
  }

  // ── the lawyer ──

  /** Her reviews, hidden ones included (marked), newest first. */
  lawyerReviews(lawyerId: string): Promise<ReviewRow[]> {
    return listReviewsOfLawyer(this.db, lawyerId);
  }

  /** Her review `reviewId`, or not_found (another lawyer's review is not found either). */
  async lawyerReview(lawyerId: string, reviewId: string): Promise<ReviewRow> {
    const review = await findReview(this.db, reviewId);
    if (!review || review.lawyer_id !== lawyerId) throw notFound('no such review');
    return review;
  }

  /**
   * Her one public answer: invalid_request (/answer) when empty, too long or holding forbidden
   * characters; conflict when the review already has an answer (it is final).
   */
  async answer(lawyerId: string, reviewId: string, text: unknown): Promise<void> {
    const review = await this.lawyerReview(lawyerId, reviewId);
    const { value, error } = checkLongText(text, '/answer', MODERATION_LIMITS.answerMax, true);
    if (error) throw invalidRequest('The answer cannot be published.', [error]);
    if (review.answer !== null) throw conflict('this review already has an answer');
    const at = this.now();
    const written = await this.db.transaction().execute(async (tx) => {
      const ok = await setReviewAnswerOnce(tx, reviewId, lawyerId, value, at);
      // The answer shows on her profile and in the API: her cached reviews go, in every process.
      if (ok) await recordLawyerChanges(tx, [lawyerId], at);
      return ok;
    });
    if (!written) throw conflict('this review already has an answer');
    this.deps.caches?.directory?.lawyersChanged?.([lawyerId]);
  }

  // ── anyone ──

  /** A review anyone may report: visible; a hidden or unknown one is not_found. */
  async reportable(reviewId: string): Promise<ModeratedReview> {
    const review = await findReview(this.db, reviewId);
    if (!review || review.hidden_at !== null) throw notFound('no such review');
    return review;
  }

  /** The reporter's key: their account, else a salted hash of their address (never the address). */
  reporterHash(ip: string): string {
    return createHmac('sha256', this.deps.reporterSalt).update(`review-report\0${ip}`).digest('hex');
  }

  /**
   * Stores a report. invalid_request (/reason, /details), not_found (hidden or unknown review),
   * rate_limited (10 an hour per reporter).
   */
  async report(input: { reviewId: string; reason: unknown; details: unknown; userId: string | null; ip: string }): Promise<{ id: string }> {
    const errors = checkReport(input);
    if (errors.errors.length > 0) throw invalidRequest('The report has errors.', errors.errors);
    await this.reportable(input.reviewId);
    const now = this.deps.clock.now();
    const reporterHash = input.userId === null ? this.reporterHash(input.ip) : null;
    const bucket = `review-report:${input.userId !== null ? `user:${input.userId}` : `addr:${reporterHash}`}`;
    await admitOrThrow(this.deps.limiter, bucket, MODERATION_LIMITS.perReporter, now.getTime(), 'Too many reports; try again later.', this.deps.onLimiterError);
    const id = randomUUID();
    await insertReviewReport(this.db, {
      id,
      review_id: input.reviewId,
      user_id: input.userId,
      reporter_hash: reporterHash,
      reason: errors.reason,
      details: errors.details === '' ? null : errors.details,
      created_at: now.toISOString(),
      resolved_at: null,
    });
    return { id };
  }

  // ── the operator ──

  /** Open reports grouped by review, the review with the newest report first. */
  async queue(actor: Actor): Promise<ReportedReview[]> {
    this.operator(actor);
    const open = await listOpenReports(this.db);
    const byReview = new Map<string, ReviewReportTable[]>();
    for (const r of open) {
      const list = byReview.get(r.review_id) ?? [];
      list.push(r);
      byReview.set(r.review_id, list);
    }
    const out: ReportedReview[] = [];
    for (const [reviewId, reports] of byReview) {
      const review = await findReview(this.db, reviewId);
      if (review) out.push({ review, reports, latestAt: reports[0]!.created_at });
    }
    return out.sort((a, b) => (a.latestAt < b.latestAt ? 1 : a.latestAt > b.latestAt ? -1 : 0));
  }

  /** Reviews hidden now (to restore). */
  async hidden(actor: Actor): Promise<ModeratedReview[]> {
    this.operator(actor);
    return listHiddenReviews(this.db);
  }

  /** One review with all its reports (open and resolved). */
  async review(actor: Actor, reviewId: string): Promise<{ review: ModeratedReview; reports: ReviewReportTable[] }> {
    this.operator(actor);
    const review = await findReview(this.db, reviewId);
    if (!review) throw notFound('no such review');
    return { review, reports: await listReportsOfReview(this.db, reviewId) };
  }

  /**
   * Hides a visible review for one of HIDE_REASONS with a note (audited `review.hide`), resolves
   * its open reports and recomputes the lawyer's rating, in one transaction. conflict when hidden.
   */
  async hide(actor: Actor, reviewId: string, input: { reason: unknown; note: unknown }): Promise<void> {
    const by = this.operator(actor);
    const reason = String(input.reason ?? '');
    const errors: FieldError[] = [];
    if (!isIn(HIDE_REASONS, reason)) errors.push({ pointer: '/reason', detail: `one of ${HIDE_REASONS.join(', ')}` });
    const note = checkLongText(input.note, '/note', MODERATION_LIMITS.noteMax, true);
    if (note.error) errors.push(note.error);
    if (errors.length > 0) throw invalidRequest('The review cannot be hidden.', errors);
    await this.change(reviewId, async (tx, review, at) => {
      if (!(await hideReview(tx, reviewId, reason, by?.kind === 'user' ? by.userId : null, at))) throw conflict('this review is already hidden');
      const resolved = await resolveReportsOfReview(tx, reviewId, at);
      await reviewsChanged(tx, review.lawyer_id, at);
      await recordOperatorAction(tx, { at, by, action: 'review.hide', target: target(review), details: { reason, note: note.value, reports_resolved: resolved } });
    });
  }

  /** Shows a hidden review again with a note (audited `review.restore`) and recomputes the rating. conflict when visible. */
  async restore(actor: Actor, reviewId: string, input: { note: unknown }): Promise<void> {
    const by = this.operator(actor);
    const note = checkLongText(input.note, '/note', MODERATION_LIMITS.noteMax, true);
    if (note.error) throw invalidRequest('The review cannot be restored.', [note.error]);
    await this.change(reviewId, async (tx, review, at) => {
      if (!(await restoreReview(tx, reviewId))) throw conflict('this review is not hidden');
      await reviewsChanged(tx, review.lawyer_id, at);
      await recordOperatorAction(tx, { at, by, action: 'review.restore', target: target(review), details: { hidden_reason: review.hidden_reason, note: note.value } });
    });
  }

  /** Keeps the review as it is and dismisses its open reports (audited `review.keep`). conflict when none is open. */
  async keep(actor: Actor, reviewId: string, input: { note: unknown }): Promise<void> {
    const by = this.operator(actor);
    const note = checkLongText(input.note, '/note', MODERATION_LIMITS.noteMax, false);
    if (note.error) throw invalidRequest('The reports cannot be dismissed.', [note.error]);
    await this.change(reviewId, async (tx, review, at) => {
      const resolved = await resolveReportsOfReview(tx, reviewId, at);
      if (resolved === 0) throw conflict('this review has no open report');
      await recordOperatorAction(tx, { at, by, action: 'review.keep', target: target(review), details: { note: note.value, reports_resolved: resolved } });
    }, false);
  }

  /** Runs `act` on the review in one transaction (not_found when unknown); drops this process's caches after. */
  private async change(reviewId: string, act: (tx: Executor, review: ModeratedReview, at: string) => Promise<void>, ratingChanged = true): Promise<void> {
    const at = this.now();
    const review = await this.db.transaction().execute(async (tx) => {
      const found = await findReview(tx, reviewId);
      if (!found) throw notFound('no such review');
      await act(tx, found, at);
      return found;
    });
    if (ratingChanged) {
      this.deps.caches?.directory?.invalidate();
      this.deps.caches?.directory?.lawyersChanged?.([review.lawyer_id]);
    }
  }
}

const target = (review: ModeratedReview) => ({ type: 'review' as const, id: review.id, label: review.lawyer_name });

/** The report form's checks (also run by the route first, so a mistyped form costs no allowance). */
export function checkReport(input: { reason: unknown; details: unknown }): { reason: ReportReason; details: string; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const reason = String(input.reason ?? '');
  if (!isIn(REPORT_REASONS, reason)) errors.push({ pointer: '/reason', detail: `one of ${REPORT_REASONS.join(', ')}` });
  const details = checkLongText(input.details, '/details', MODERATION_LIMITS.detailsMax, false);
  if (details.error) errors.push(details.error);
  return { reason: reason as ReportReason, details: details.value, errors };
}
