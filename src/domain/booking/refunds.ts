/**
 * Refunds of a cancelled consultation, whoever cancelled it (the lawyer: lawyer-cancellation;
 * the person: person-change; docs/payments.md#refunds). One `consultation_refunds` row per
 * consultation (unique), written in the cancelling transaction by `openRefund`; after the commit
 * `settle` gives the money back at the provider, keyed by the row's id (asked twice, refunded
 * once): a captured payment is refunded in full, an authorization never captured is released
 * (voided) instead. A process that dies between the commit and the provider call leaves the row
 * pending: `finishPending` (the jobs' sweep) finishes it with the same idempotency key.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findPaidAttempt, findRefund, finishRefund, insertRefund, listStalePendingRefunds } from '../../db/repositories/lawyer-consultations.repository.ts';
import { findAttempt, transitionAttempt } from '../../db/repositories/payment.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { ConsultationRefundTable } from '../../db/schema.ts';
import type { PaymentProvider } from '../../payments/provider.ts';
import { idempotencyKey } from '../../payments/provider.ts';
import type { Logger } from '../notify/mailer.ts';

/** A pending refund untouched this long is presumed orphaned by a dead process: the sweep finishes it. */
export const REFUND_SWEEP_AFTER_MS = 60_000;
const SWEEP_BATCH = 100;

/** What became of the money: refunded, released (never captured), nothing to give back (free), or still pending (the sweep retries). */
export type RefundOutcome = 'refunded' | 'released' | 'none' | 'pending' | 'failed';

/** What a cancellation does with the money, as its emails say it: refund, release the card hold, or nothing was paid. */
export type MoneyBack = 'refund' | 'release' | 'none';

export interface OpenedRefund {
  refundId: string | null;
  money: MoneyBack;
  amountCents: number;
}

/**
 * Inside the cancelling transaction: the pending refund row of a consultation whose payment is
 * given back in full (none when nothing was paid). The row's uniqueness per consultation is the
 * last guard against two refunds.
 */
export async function openRefund(tx: Executor, c: { consultationId: string; bookingIntentId: string; initiatedBy: ConsultationRefundTable['initiated_by']; at: string }): Promise<OpenedRefund> {
  const attempt = await findPaidAttempt(tx, c.bookingIntentId);
  if (!attempt) return { refundId: null, money: 'none', amountCents: 0 };
  const refund: ConsultationRefundTable = {
    id: randomUUID(),
    consultation_id: c.consultationId,
    payment_attempt_id: attempt.id,
    provider: attempt.provider,
    amount_cents: attempt.amount_cents,
    currency: attempt.currency,
    initiated_by: c.initiatedBy,
    status: 'pending',
    provider_ref: null,
    failure_code: null,
    created_at: c.at,
    updated_at: c.at,
  };
  await insertRefund(tx, refund);
  return { refundId: refund.id, money: attempt.status === 'captured' ? 'refund' : 'release', amountCents: attempt.amount_cents };
}

export class ConsultationRefunds {
  private readonly logger: Logger;

  constructor(private readonly deps: { database: Database; clock: Clock; provider: PaymentProvider; logger?: Logger | undefined }) {
    this.logger = deps.logger ?? { info() {}, warn() {}, error() {} };
  }

  /**
   * Gives the money of a pending refund back at the provider and records the outcome. Safe to
   * run twice at once (the original request and the sweep): the provider sees the same
   * idempotency key and the row is finished once. A network failure leaves it pending.
   */
  async settle(refundId: string): Promise<RefundOutcome> {
    const db = this.deps.database.db;
    const refund = await findRefund(db, refundId);
    if (!refund) return 'none';
    if (refund.status !== 'pending') return refund.status === 'succeeded' ? 'refunded' : 'failed';
    const { provider } = this.deps;
    if (refund.provider !== provider.name) {
      this.logger.warn({ refund: refund.id, provider: refund.provider }, 'refund of another payment provider left pending');
      return 'pending';
    }
    try {
      for (let tries = 0; tries < 3; tries++) {
        const attempt = await findAttempt(db, refund.payment_attempt_id);
        if (!attempt?.payment_ref) return this.finish(refund, 'failed', null, 'no_payment');
        const at = this.deps.clock.now().toISOString();
        if (attempt.status === 'authorized') {
          // Never captured: release the authorization instead of capturing and refunding. Claimed
          // first, so the payments sweep does not capture it meanwhile; a lost claim reads again.
          if (!(await transitionAttempt(db, attempt.id, ['authorized'], { status: 'voided', voided_at: at, updated_at: at }))) continue;
          await provider.void(attempt.payment_ref, idempotencyKey(attempt.id, 'void'));
          return this.finish(refund, 'succeeded', attempt.payment_ref, null, 'released');
        }
        if (attempt.status === 'voided') {
          // Claimed earlier by a process that may have died before telling the provider: voiding again is a no-op there.
          await provider.void(attempt.payment_ref, idempotencyKey(attempt.id, 'void'));
          return this.finish(refund, 'succeeded', attempt.payment_ref, null, 'released');
        }
        if (attempt.status !== 'captured') return this.finish(refund, 'failed', null, `payment_${attempt.status}`);
        const result = await provider.refund({
          paymentRef: attempt.payment_ref,
          amountCents: refund.amount_cents,
          idempotencyKey: refund.id,
          // A destination charge (Stripe Connect, docs/payments.md#connect): the refund also takes
          // back the transfer to her account and the platform's fee, so both sides return in full.
          reverseTransfer: attempt.destination_account != null,
          consultationId: refund.consultation_id,
        });
        return result.ok ? this.finish(refund, 'succeeded', result.ref, null) : this.finish(refund, 'failed', null, result.code);
      }
      return 'pending';
    } catch (err) {
      this.logger.error({ err, refund: refund.id }, 'refund failed; the sweep retries it');
      return 'pending';
    }
  }

  private async finish(refund: ConsultationRefundTable, status: 'succeeded' | 'failed', ref: string | null, code: string | null, what: RefundOutcome = 'refunded'): Promise<RefundOutcome> {
    const finished = await finishRefund(this.deps.database.db, refund.id, { status, provider_ref: ref, failure_code: code, at: this.deps.clock.now().toISOString() });
    if (!finished) {
      const now = await findRefund(this.deps.database.db, refund.id);
      return now?.status === 'succeeded' ? what : now?.status === 'failed' ? 'failed' : 'pending';
    }
    if (status === 'failed') this.logger.error({ refund: refund.id, code }, 'refund refused by the payment provider: settle it by hand');
    return status === 'succeeded' ? what : 'failed';
  }

  /** The sweep: finishes refunds left pending by a process that stopped (or a provider outage). */
  async finishPending(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - REFUND_SWEEP_AFTER_MS).toISOString();
    let finished = 0;
    for (const id of await listStalePendingRefunds(this.deps.database.db, before, SWEEP_BATCH)) {
      const outcome = await this.settle(id);
      if (outcome !== 'pending') finished++;
    }
    return finished;
  }
}
