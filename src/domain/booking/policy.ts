/**
 * The cancellation and move policy (DESIGN.md §11; docs/booking-intents.md#cancel-or-move), one
 * function for every place that states or applies it: the profile, the free times, the hold and
 * payment pages, the receipt, My consultations, the cancel and move pages, and MCP's
 * `get_my_booking`. Stated before paying, applied on the server.
 *
 * - Up to 24 hours before the start the person may cancel with a full refund, or move it to
 *   another free time of the same lawyer (the payment is kept).
 * - Later, they may still cancel (the time is freed for others), but there is no refund, unless
 *   the lawyer refunds; they can no longer move it.
 * - Nothing can be done once the consultation has started, or when it is no longer `confirmed`
 *   (cancelled by either side, held, or a no-show). A move leaves it `confirmed` at its new time.
 * - A consultation is moved at most MAX_MOVES times (issue 25 item 2): each move mails both sides
 *   and reshuffles the lawyer's day; after that the person cancels (refunded in time) and books again.
 */
import type { ConsultationStatus } from '../../db/schema.ts';

/** How long before the start a person may still cancel for free or move. */
export const FREE_CHANGE_HOURS = 24;
export const FREE_CHANGE_MS = FREE_CHANGE_HOURS * 3_600_000;
/** How many times the person may move one consultation. */
export const MAX_MOVES = 2;

export interface PolicyState {
  /** The instant until which cancelling refunds in full and moving is allowed (start − 24 h), ISO. */
  freeUntil: string;
  /** Cancel now with a full refund. */
  canCancelWithRefund: boolean;
  /** Cancel now without a refund (less than 24 h before the start, not started yet). */
  canCancelWithoutRefund: boolean;
  /** Move now to another free time of the same lawyer (in time, and moved fewer than MAX_MOVES times). */
  canMove: boolean;
}

/**
 * What the person may do with a consultation starting at `startsAtMs`, at `nowMs`.
 * `status` is the consultation's own state; anything but `confirmed` allows nothing. `moveCount`:
 * how many times it was moved already (a booking not yet made: 0).
 */
export function personPolicy(startsAtMs: number, nowMs: number, status: ConsultationStatus = 'confirmed', moveCount = 0): PolicyState {
  const freeUntilMs = startsAtMs - FREE_CHANGE_MS;
  const open = status === 'confirmed' && nowMs < startsAtMs;
  const inTime = open && nowMs <= freeUntilMs;
  return {
    freeUntil: new Date(freeUntilMs).toISOString(),
    canCancelWithRefund: inTime,
    canCancelWithoutRefund: open && !inTime,
    canMove: inTime && moveCount < MAX_MOVES,
  };
}
