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
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  cancelIfConfirmed,
  findConsultationOfLawyer,
  freeConsultationTime,
  listUpcomingConfirmedOfLawyer,
  type LawyerConsultationRow,
} from '../../db/repositories/lawyer-consultations.repository.ts';
import { recordLawyerChanges } from '../../db/repositories/reference.repository.ts';
import { dayAndTime, euros, formatDay } from '../../i18n/format.ts';
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import type { PaymentProvider } from '../../payments/provider.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { zonedToUtcMs } from '../../zoned-time.ts';
import { conflict, invalidRequest, notFound } from '../errors.ts';
import { buildIcs } from '../notify/ics.ts';
import type { Logger } from '../notify/mailer.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';
// The receipt's zone label: its comma is the language's (a Latin one read in the Arabic email, issue 25 item 15).
import { consultationUid, zoneLabel } from './consultation-mail.ts';
import { detectNoteLanguage } from './note-language.ts';
import { bookingReference } from './purchase.ts';
import { languageName } from '../../i18n/reference.ts';
import { quote } from './quote.ts';
import { ConsultationRefunds, openRefund, type MoneyBack, type RefundOutcome } from './refunds.ts';

export { REFUND_SWEEP_AFTER_MS, type RefundOutcome } from './refunds.ts';
export const LAWYER_CANCELLATION_KIND = 'consultation_cancelled_by_lawyer';
export const REASON_MAX = 1000;
const DAY_MS = 86_400_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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
  private readonly refunds: ConsultationRefunds;

  constructor(private readonly deps: LawyerCancellationDeps) {
    this.logger = deps.logger ?? silent;
    this.refunds = new ConsultationRefunds({ database: deps.database, clock: deps.clock, provider: deps.provider, logger: deps.logger });
  }

  /**
   * Cancels one of her upcoming confirmed consultations with a reason. Another lawyer's id is
   * not found; one that has started or is no longer confirmed changes nothing.
   */
  async cancel(lawyerId: string, consultationId: string, rawReason: unknown): Promise<CancelResult> {
    if (!UUID.test(consultationId)) throw notFound('no such consultation');
    const reason = cancellationReason(rawReason);
    return this.cancelOne(lawyerId, consultationId, () => reason, true);
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
        const result = await this.cancelOne(lawyerId, row.id, (r) => messages(isLocale(r.person_locale) ? r.person_locale : 'es').mail.lawyerCancellation.unlistedReason(r.lawyer_form_of_address ?? null));
        if (result.outcome === 'cancelled') cancelled++;
      } catch (err) {
        this.logger.error({ err, consultation: row.id, lawyer: lawyerId }, 'could not cancel a consultation of an unlisted lawyer');
      }
    }
    return { cancelled };
  }

  /** `lawyerWords`: the reason is hers (quoted and labelled in the person's email), not our own text in their language. */
  private async cancelOne(lawyerId: string, consultationId: string, reasonOf: (row: LawyerConsultationRow) => string, lawyerWords = false): Promise<CancelResult> {
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
      const refund = await openRefund(tx, { consultationId: row.id, bookingIntentId: row.booking_intent_id, initiatedBy: 'lawyer', at });
      const mailIds = await this.deps.mail.enqueue(tx, [cancellationMail({ row, reason, now, money: refund.money, amountCents: refund.amountCents, siteUrl: this.deps.siteUrl, lawyerWords })]);
      return { outcome: 'cancelled' as const, row, refundId: refund.refundId, mailIds };
    });
    if (done.outcome === 'not_confirmed') return done;
    this.deps.cache?.lawyersChanged([lawyerId]);
    void this.deps.mail.deliver(done.mailIds);
    const refund = done.refundId ? await this.refunds.settle(done.refundId) : 'none';
    return { outcome: 'cancelled', consultationId: done.row.id, refund, refundId: done.refundId };
  }

  /** Gives the money of a pending refund back (ConsultationRefunds.settle): kept for the console and the tests. */
  settleRefund(refundId: string): Promise<RefundOutcome> {
    return this.refunds.settle(refundId);
  }

  /** The sweep (jobs): finishes every pending refund, the lawyer's and the person's alike. */
  finishPendingRefunds(): Promise<number> {
    return this.refunds.finishPending();
  }
}

/**
 * The person's email: in their language, the lawyer's reason, what happens to the money, and the
 * cancellation of the invitation they were sent (same UID, SEQUENCE above the original's).
 */
/** "From the lawyer, in Spanish, as written" (the language told only when it is not the email's and can be told). */
export function lawyerWordsLabel(text: string, locale: Locale): string {
  const t = messages(locale).lawyerMail;
  const language = detectNoteLanguage(text);
  return language && language !== locale ? t.fromLawyerIn(languageName(locale, language)) : t.fromLawyer;
}

export function cancellationMail(c: { row: LawyerConsultationRow; reason: string; now: Date; money: MoneyBack; amountCents: number; siteUrl: string; lawyerWords?: boolean }): OutgoingMail {
  const { row } = c;
  const locale: Locale = isLocale(row.person_locale) ? row.person_locale : 'es';
  const t = messages(locale).mail;
  const m = t.lawyerCancellation;
  const name = sanitizeShortText(row.lawyer_name);
  const form = row.lawyer_form_of_address ?? null;
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
  const width = Math.max(m.lawyer(form).length, m.when.length, m.reason.length, m.reference.length) + 2;
  const line = (label: string, value: string) => `${`${label}:`.padEnd(width)}${value}`;
  return {
    kind: LAWYER_CANCELLATION_KIND,
    to: row.person_email,
    subject: m.subject(form, name, dayAndTime(row.slot_date, start, locale)),
    text: [
      m.intro(form, name),
      '',
      line(m.lawyer(form), row.city_name ? `${name} (${row.city_name})` : name),
      line(m.when, m.whenValue(day, start, end, zoneLabel(row.slot_date, row.start_time, row.lawyer_timezone, locale))),
      ...(c.lawyerWords ? [] : [line(m.reason, c.reason)]),
      line(m.reference, bookingReference(row.id)),
      '',
      // Her words reach the person as hers (issue 26 item 5): quoted, labelled with their language when it is not the email's, never translated.
      ...(c.lawyerWords ? [`${m.reason}:`, lawyerWordsLabel(c.reason, locale), '-----', c.reason, '-----', ''] : []),
      c.money === 'refund' ? m.refund(amount) : c.money === 'release' ? m.released(amount) : m.nothingPaid,
      m.calendar(m.filename),
      m.rebook(`${c.siteUrl}/`),
      '',
      `— ${m.signature}`,
    ].join('\n'),
    attachments: [{ filename: m.filename, contentType: 'text/calendar; charset=utf-8; method=CANCEL', content: ics }],
  };
}
