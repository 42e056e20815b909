/**
 * `consulta reviews …`: the operator's review moderation from the shell, the same as the
 * console's /operator/reviews (docs/reviews.md#answers-reports-and-moderation): the open reports, one review, hide
 * (a published reason and a note), restore (a note), keep (the open reports dismissed). Thin:
 * parse, call ReviewModerationService, print. Audited as `cli`; a running server sees a change
 * within DIRECTORY_REFRESH_MS. Exit codes: 0 ok, 1 refused or not found, 2 usage error.
 */
import { systemClock } from '../clock.ts';
import type { Actor } from '../domain/access/types.ts';
import { createRateLimitStore } from '../domain/access/rate-limit.ts';
import type { ReviewReportTable } from '../db/schema.ts';
import { HIDE_REASONS, ReviewModerationService, type ModeratedReview } from '../domain/reviews/review-moderation.service.ts';
import { AccessUsageError, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const CLI: Actor = { type: 'operator', by: { kind: 'cli' } };
export const REVIEWS_USAGE = [
  'usage: consulta reviews reports',
  '       consulta reviews show REVIEW_ID',
  `       consulta reviews hide REVIEW_ID --reason ${HIDE_REASONS.join('|')} --note TEXT`,
  '       consulta reviews restore REVIEW_ID --note TEXT',
  '       consulta reviews keep REVIEW_ID [--note TEXT]',
].join('\n');

function needOne(rest: string[]): string {
  if (rest.length !== 1 || !rest[0]) throw new AccessUsageError(REVIEWS_USAGE);
  return rest[0];
}

function reviewJson(r: ModeratedReview): Record<string, unknown> {
  return { id: r.id, lawyer_id: r.lawyer_id, lawyer_name: r.lawyer_name, rating: r.rating, comment: r.comment, created_at: r.created_at, answer: r.answer, answered_at: r.answered_at, hidden_at: r.hidden_at, hidden_reason: r.hidden_reason };
}

function reportJson(r: ReviewReportTable): Record<string, unknown> {
  return { id: r.id, reason: r.reason, details: r.details, signed_in: r.user_id !== null, reporter_hash: r.reporter_hash, created_at: r.created_at, resolved_at: r.resolved_at };
}

/** One line of third-party text for a terminal: control characters shown as \\uXXXX, never obeyed. */
const oneLine = (s: string | null) => (s ?? '').replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`);

export function runReviewsCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  return runAccessCommand(ctx, async () => {
    if (ctx.flags.as !== undefined) throw new AccessUsageError('--as does not apply: reviews commands act as the operator');
    const moderation = new ReviewModerationService({ database: ctx.database, clock: systemClock, limiter: createRateLimitStore({ redisUrl: null }), reporterSalt: `review-reports:${ctx.config.fenceSecret}` });
    const show = async (id: string) => {
      const { review, reports } = await moderation.review(CLI, id);
      const text = [
        `id        ${review.id}`,
        `lawyer    ${oneLine(review.lawyer_name)} (${review.lawyer_id})`,
        `rating    ${review.rating}/5, written ${review.created_at ?? '-'}`,
        `status    ${review.hidden_at ? `hidden since ${review.hidden_at} (${review.hidden_reason})` : 'shown'}`,
        `comment   ${oneLine(review.comment) || '-'}`,
        ...(review.answer ? [`answer    ${oneLine(review.answer)}`] : []),
        ...reports.map((r) => `report    ${r.created_at} ${r.reason}${r.resolved_at ? ' (resolved)' : ' (open)'}${r.details ? `: ${oneLine(r.details)}` : ''}`),
      ].join('\n');
      return { data: { ...reviewJson(review), reports: reports.map(reportJson) }, text };
    };
    switch (sub) {
      case 'reports': {
        if (rest.length > 0) throw new AccessUsageError(REVIEWS_USAGE);
        const queue = await moderation.queue(CLI);
        const lines = queue.map(({ review, reports }) => `${review.id}  ${reports.length} open  ${review.rating}/5  ${oneLine(review.lawyer_name)}  ${reports.map((r) => r.reason).join(',')}`);
        print(ctx.json, { reviews: queue.map(({ review, reports }) => ({ ...reviewJson(review), reports: reports.map(reportJson) })) }, lines.length ? lines.join('\n') : 'no open reports');
        return 0;
      }
      case 'show': {
        const { data, text } = await show(needOne(rest));
        print(ctx.json, data, text);
        return 0;
      }
      case 'hide': {
        const id = needOne(rest);
        await moderation.hide(CLI, id, { reason: stringFlag(ctx.flags, 'reason'), note: stringFlag(ctx.flags, 'note') });
        const { data, text } = await show(id);
        print(ctx.json, data, `Hidden:\n${text}`);
        return 0;
      }
      case 'restore': {
        const id = needOne(rest);
        await moderation.restore(CLI, id, { note: stringFlag(ctx.flags, 'note') });
        const { data, text } = await show(id);
        print(ctx.json, data, `Restored:\n${text}`);
        return 0;
      }
      case 'keep': {
        const id = needOne(rest);
        await moderation.keep(CLI, id, { note: stringFlag(ctx.flags, 'note') });
        const { data, text } = await show(id);
        print(ctx.json, data, `Kept; its reports are dismissed:\n${text}`);
        return 0;
      }
      default:
        throw new AccessUsageError(REVIEWS_USAGE);
    }
  });
}
