/**
 * A lawyer cancels a consultation (DESIGN.md §10 "Lawyer cancels"; docs/lawyers.md#cancelling-by-the-lawyer).
 *
 * One transaction decides everything: the consultation goes confirmed → cancelled_by_lawyer only
 * if it is still confirmed (a conditional update: of two concurrent cancellations exactly one
 * proceeds), its invitation's SEQUENCE goes up, a `consultation_refunds` row is written (pending;
 * unique per consultation), the time is freed (the booked hold deleted: slot generation offers it
 * again), the lawyer change is recorded for other processes' caches, and the person's email — in
 * their language, with an RFC 5546 METHOD:CANCEL invitation of the same UID — is queued.
 *
 * After the commit the money goes back: a captured payment is refunded in full, keyed at the
 * provider by the refund row's id (asked twice, refunded once); an authorization that was never
 * captured is released (voided) instead — nothing was charged, so nothing is refunded. A process
 * that dies between the commit and the provider call leaves the row pending: the jobs' sweep
 * finishes pending refunds older than a minute with the same idempotency key.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  cancelIfConfirmed,
  findConsultationOfLawyer,
  findPaidAttempt,
  findRefund,
  finishRefund,
  freeConsultationTime,
  insertRefund,
  listStalePendingRefunds,
  listUpcomingConfirmedOfLawyer,
  type LawyerConsultationRow,
} from '../../db/repositories/lawyer-consultations.repository.ts';
import { findAttempt, transitionAttempt } from '../../db/repositories/payment.repository.ts';
import { recordLawyerChanges } from '../../db/repositories/reference.repository.ts';
import type { ConsultationRefundTable } from '../../db/schema.ts';
import { euros, formatDay } from '../../i18n/format.ts';
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import { zoneName } from '../../i18n/reference.ts';
import type { PaymentProvider } from '../../payments/provider.ts';
import { idempotencyKey } from '../../payments/provider.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { formatInZone, zonedToUtcMs } from '../directory/zoned-time.ts';
import { conflict, invalidRequest, notFound } from '../errors.ts';
import { buildIcs } from '../notify/ics.ts';
import type { Logger } from '../notify/mailer.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';
import { consultationUid } from './consultation-mail.ts';
import { quote } from './quote.ts';

export const LAWYER_CANCELLATION_KIND = 'consultation_cancelled_by_lawyer';
/** A pending refund untouched this long is presumed orphaned by a dead process: the sweep finishes it. */
export const REFUND_SWEEP_AFTER_MS = 60_000;
export const REASON_MAX = 1000;
const SWEEP_BATCH = 100;
const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What became of the money: refunded, released (never captured), nothing to give back (free), or still pending (the sweep retries). */
export type RefundOutcome = 'refunded' | 'released' | 'none' | 'pending' | 'failed';

export type CancelResult =
  | { outcome: 'cancelled'; consultationId: string; refund: RefundOutcome; refundId: string | null }
  /** It was no longer confirmed when this call got to it (cancelled meanwhile, moved, held…): nothing done. */
  | { outcome: 'not_confirmed'; status: string };

export interface LawyerCancellationDeps {
  database: Database;
  clock: Clock;
  mail: MailQueue;
  provider: PaymentProvider;
  siteUrl: string;
  /** This process's cached lawyer rows (availability): dropped after the time is freed. */
  cache?: { lawyersChanged(ids: Iterable<string>): void };
  logger?: Logger;
}

const silent: Logger = { info() {}, warn() {}, error() {} };

/** The lawyer's reason: one plain line (it is mailed to the person), 1…REASON_MAX characters. */
export function cancellationReason(raw: unknown): string {
  const reason = typeof raw === 'string' ? sanitizeShortText(raw.slice(0, REASON_MAX * 2)) : '';
  if (reason === '') throw invalidRequest('give a reason: it is sent to the person', [{ pointer: '/reason', detail: 'give a reason' }]);
  if (reason.length > REASON_MAX) throw invalidRequest('the reason is too long', [{ pointer: '/reason', detail: `at most ${REASON_MAX} characters` }]);
  return reason;
}

/** When the consultation starts (UTC ms): the slot's wall-clock time in her zone. */
export function startsAtMs(row: Pick<LawyerConsultationRow, 'slot_date' | 'start_time' | 'lawyer_timezone'>): number {
  return zonedToUtcMs(row.slot_date, row.start_time, row.lawyer_timezone) ?? Date.parse(`${row.slot_date}T${row.start_time}Z`);
}

export class LawyerCancellationService {
  private readonly logger: Logger;

  constructor(private readonly deps: LawyerCancellationDeps) {
    this.logger = deps.logger ?? silent;
  }

  /**
   * Cancels one of her upcoming confirmed consultations with a reason. Another lawyer's id is
   * not found; one that has started or is no longer confirmed changes nothing.
   */
  async cancel(lawyerId: string, consultationId: string, rawReason: unknown): Promise<CancelResult> {
    if (!UUID.test(consultationId)) throw notFound('no such consultation');
    const reason = cancellationReason(rawReason);
    return this.cancelOne(lawyerId, consultationId, () => reason);
  }

  /**
   * She can no longer hold her consultations (suspended, or her verification expired: issue 18
   * item 2, docs/lawyers.md#suspension-and-expiry): every upcoming confirmed one is cancelled as if
   * she had cancelled it — full refund, the person emailed with METHOD:CANCEL, the time freed —
   * with a fixed reason in the person's language. Safe to run twice at once (two sweeps, a sweep
   * and the console): each consultation's conditional update lets exactly one call cancel it.
   * One that fails (a provider outage is not a failure: its refund stays pending for the sweep)
   * is logged and the others still go.
   */
  async cancelAllUpcoming(lawyerId: string): Promise<{ cancelled: number }> {
    const now = this.deps.clock.now();
    const fromDate = new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10);
    const rows = await listUpcomingConfirmedOfLawyer(this.deps.database.db, lawyerId, fromDate);
    let cancelled = 0;
    for (const row of rows) {
      if (startsAtMs(row) <= now.getTime()) continue;
      try {
        const result = await this.cancelOne(lawyerId, row.id, (r) => messages(isLocale(r.person_locale) ? r.person_locale : 'es').mail.lawyerCancellation.unlistedReason);
        if (result.outcome === 'cancelled') cancelled++;
      } catch (err) {
        this.logger.error({ err, consultation: row.id, lawyer: lawyerId }, 'could not cancel a consultation of an unlisted lawyer');
      }
    }
    return { cancelled };
  }

  private async cancelOne(lawyerId: string, consultationId: string, reasonOf: (row: LawyerConsultationRow) => string): Promise<CancelResult> {
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const done = await this.deps.database.db.transaction().execute(async (tx) => {
      const row = await findConsultationOfLawyer(tx, lawyerId, consultationId.toLowerCase());
      if (!row) throw notFound('no such consultation');
      if (row.status !== 'confirmed') return { outcome: 'not_confirmed' as const, status: row.status };
      if (startsAtMs(row) <= now.getTime()) throw conflict('this consultation has started: mark it held or a no-show instead');
      const reason = reasonOf(row);
      // The row lock of this update serialises concurrent cancellations; the loser changes nothing.
      if (!(await cancelIfConfirmed(tx, { id: row.id, lawyerId, reason, at }))) return { outcome: 'not_confirmed' as const, status: 'cancelled_by_lawyer' };
      await freeConsultationTime(tx, row.booking_intent_id);
      await recordLawyerChanges(tx, [lawyerId], at);
      const attempt = await findPaidAttempt(tx, row.booking_intent_id);
      let refund: ConsultationRefundTable | null = null;
      if (attempt) {
        refund = {
          id: randomUUID(),
          consultation_id: row.id,
          payment_attempt_id: attempt.id,
          provider: attempt.provider,
          amount_cents: attempt.amount_cents,
          currency: attempt.currency,
          initiated_by: 'lawyer',
          status: 'pending',
          provider_ref: null,
          failure_code: null,
          created_at: at,
          updated_at: at,
        };
        await insertRefund(tx, refund);
      }
      const money = !attempt ? 'none' : attempt.status === 'captured' ? 'refund' : 'release';
      const mailIds = await this.deps.mail.enqueue(tx, [cancellationMail({ row, reason, now, money, amountCents: attempt?.amount_cents ?? 0, siteUrl: this.deps.siteUrl })]);
      return { outcome: 'cancelled' as const, row, refundId: refund?.id ?? null, mailIds };
    });
    if (done.outcome === 'not_confirmed') return done;
    this.deps.cache?.lawyersChanged([lawyerId]);
    void this.deps.mail.deliver(done.mailIds);
    const refund = done.refundId ? await this.settleRefund(done.refundId) : 'none';
    return { outcome: 'cancelled', consultationId: done.row.id, refund, refundId: done.refundId };
  }

  /**
   * Gives the money of a pending refund back at the provider and records the outcome. Safe to
   * run twice at once (the original request and the sweep): the provider sees the same
   * idempotency key and the row is finished once. A network failure leaves it pending.
   */
  async settleRefund(refundId: string): Promise<RefundOutcome> {
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
  async finishPendingRefunds(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - REFUND_SWEEP_AFTER_MS).toISOString();
    let finished = 0;
    for (const id of await listStalePendingRefunds(this.deps.database.db, before, SWEEP_BATCH)) {
      const outcome = await this.settleRefund(id);
      if (outcome !== 'pending') finished++;
    }
    return finished;
  }
}

/** "hora peninsular, UTC+01:00" at the start of the consultation. */
function zoneLabel(date: string, time: string, timezone: string, locale: Locale): string {
  const ms = zonedToUtcMs(date, time, timezone) ?? Date.parse(`${date}T${time}Z`);
  return `${zoneName(locale, timezone)}, UTC${formatInZone(ms, timezone).slice(-6)}`;
}

/**
 * The person's email: in their language, the lawyer's reason, what happens to the money, and the
 * cancellation of the invitation they were sent (same UID, SEQUENCE above the original's).
 */
export function cancellationMail(c: { row: LawyerConsultationRow; reason: string; now: Date; money: 'refund' | 'release' | 'none'; amountCents: number; siteUrl: string }): OutgoingMail {
  const { row } = c;
  const locale: Locale = isLocale(row.person_locale) ? row.person_locale : 'es';
  const t = messages(locale).mail;
  const m = t.lawyerCancellation;
  const name = sanitizeShortText(row.lawyer_name);
  const day = formatDay(row.slot_date, locale);
  const start = row.start_time.slice(0, 5);
  const end = row.end_time.slice(0, 5);
  const link = `${c.siteUrl}/confirm/${row.confirmation_token}`;
  const amount = euros(c.amountCents || quote(row).totalCents, locale);
  const ics = buildIcs(
    {
      uid: consultationUid(row.booking_intent_id, c.siteUrl),
      stamp: c.now,
      date: row.slot_date,
      startTime: row.start_time,
      endTime: row.end_time,
      timezone: row.lawyer_timezone,
      summary: t.invitation.summary(name),
      ...(row.city_name ? { location: row.city_name } : {}),
      url: link,
      sequence: row.ics_sequence + 1,
    },
    'CANCEL',
  );
  const width = Math.max(m.lawyer.length, m.when.length, m.reason.length, m.reference.length) + 2;
  const line = (label: string, value: string) => `${`${label}:`.padEnd(width)}${value}`;
  return {
    kind: LAWYER_CANCELLATION_KIND,
    to: row.person_email,
    subject: m.subject(name, `${day}, ${start}`),
    text: [
      m.intro(name),
      '',
      line(m.lawyer, row.city_name ? `${name} (${row.city_name})` : name),
      line(m.when, m.whenValue(day, start, end, zoneLabel(row.slot_date, row.start_time, row.lawyer_timezone, locale))),
      line(m.reason, c.reason),
      line(m.reference, row.booking_intent_id),
      '',
      c.money === 'refund' ? m.refund(amount) : c.money === 'release' ? m.released(amount) : m.nothingPaid,
      m.calendar(m.filename),
      m.rebook(`${c.siteUrl}/`),
      '',
      `— ${m.signature}`,
    ].join('\n'),
    attachments: [{ filename: m.filename, contentType: 'text/calendar; charset=utf-8; method=CANCEL', content: ics }],
  };
}
