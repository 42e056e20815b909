/**
 * The person cancels or moves their own consultation (DESIGN.md §11; docs/booking-intents.md#cancel-or-move),
 * under the one policy (`personPolicy`, policy.ts): up to 24 hours before the start a cancellation
 * refunds in full and a move is allowed; later a cancellation frees the time without a refund and
 * a move is refused; once started, or no longer `confirmed`, nothing.
 *
 * Cancel — one transaction: confirmed → cancelled_by_person only if still confirmed (a conditional
 * update: of concurrent cancellations, or a cancellation and a move, exactly one applies), SEQUENCE
 * + 1, the time freed (the booked hold and its cells deleted), in time a pending refund row
 * (`initiated_by` 'person'; refunds.ts), and both sides' emails with a METHOD:CANCEL invitation of
 * the same UID. After the commit the refund is settled at the provider (the sweep finishes it if
 * this process dies first).
 *
 * Move — confirmed on a page that showed "from X to Y" (the form carries X and the move count it
 * was shown with); the new time must be exactly one of her free candidates now (the same check as
 * initiating a hold); then one transaction: the consultation takes the new time — one guarded
 * UPDATE (still confirmed, still at X with that move count, moved fewer than MAX_MOVES times), so
 * of concurrent moves exactly one applies and the others are `already_moved` —, its old booked hold and cells are deleted and the new hold and cells taken
 * (`takeHold`: the cells' keys decide between this move and anyone else's hold of the same time);
 * if the new time is lost the transaction rolls back, so the old time is still hers — never both
 * times held, never neither. Payment untouched; status stays `confirmed`; both sides get the
 * updated invitation (same UID, higher SEQUENCE, METHOD:PUBLISH like the first one).
 *
 * The booking intent is never touched: it stays `confirmed` with the slot it held (no events).
 */
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import {
  cancelByPersonIfConfirmed,
  findConsultationOfPerson,
  freeConsultationTime,
  moveIfUnchanged,
  type LawyerConsultationRow,
} from '../../db/repositories/lawyer-consultations.repository.ts';
import { findPublicLawyer } from '../../db/repositories/lawyer.repository.ts';
import { recordLawyerChanges } from '../../db/repositories/reference.repository.ts';
import { takeHold } from '../../db/repositories/schedule.repository.ts';
import { euros, dayAndTime, formatDay } from '../../i18n/format.ts';
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import type { PaymentProvider } from '../../payments/provider.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { cellsCovering } from '../directory/slots.ts';
import { notFound } from '../errors.ts';
import type { Logger } from '../notify/mailer.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';
import { requestableSlot } from './booking.service.ts';
import { consultationIcs, table, zoneLabel } from './consultation-mail.ts';
import { startsAtMs } from './lawyer-cancellation.service.ts';
import { MAX_MOVES, personPolicy, type PolicyState } from './policy.ts';
import { quote } from './quote.ts';
import { ConsultationRefunds, openRefund, type MoneyBack, type RefundOutcome } from './refunds.ts';

export const PERSON_CANCELLATION_KIND = 'consultation_cancelled_by_person';
export const PERSON_CANCELLATION_LAWYER_KIND = 'consultation_cancelled_by_person_lawyer_notice';
export const MOVE_KIND = 'consultation_moved';
export const MOVE_LAWYER_KIND = 'consultation_moved_lawyer_notice';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}$/;

export interface NewSlot {
  date: string;
  start_time: string;
  end_time: string;
}

export type PersonCancelResult =
  /** `refunded`: it was cancelled in time (a full refund was started); `refund`: what became of the money now. */
  | { outcome: 'cancelled'; consultationId: string; inTime: boolean; refund: RefundOutcome }
  /** Not cancellable any more: started, or no longer confirmed (cancelled meanwhile, held…). Nothing done. */
  | { outcome: 'not_allowed'; status: string }
  /** The person confirmed a refund (or no refund) that no longer applies (the limit passed while they read): nothing done. */
  | { outcome: 'changed'; policy: PolicyState };

/** What the move's confirmation page showed: the consultation's time then, and how many times it had been moved. */
export interface SeenTime {
  date: string;
  start_time: string;
  moveCount: number;
}

export type MoveResult =
  | { outcome: 'moved'; consultationId: string; from: { date: string; start_time: string }; to: NewSlot }
  /** `late`: under 24 hours before the start (it may still be cancelled); `closed`: started or no longer confirmed; `limit`: moved MAX_MOVES times already. */
  | { outcome: 'not_allowed'; reason: 'late' | 'closed' | 'limit' }
  /** It was moved since the page the person confirmed on (another tab, a second tap): nothing done. */
  | { outcome: 'already_moved' }
  /** The time is not one of her free times (any more): taken by someone else meanwhile, or never offered. The consultation keeps its time. */
  | { outcome: 'unavailable' };

export interface PersonChangeDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'siteUrl' | 'minLeadTimeMinutes'>;
  mail: MailQueue;
  provider: PaymentProvider;
  cache?: { lawyersChanged(ids: Iterable<string>): void };
  logger?: Logger;
}

/** Thrown inside the move's transaction (rolled back) when the new time was lost to another hold. */
class TimeTaken extends Error {}
/** Thrown inside the move's transaction when the guarded update found the consultation changed. */
class Changed extends Error {}

export class PersonChangeService {
  private readonly refunds: ConsultationRefunds;

  constructor(private readonly deps: PersonChangeDeps) {
    this.refunds = new ConsultationRefunds({ database: deps.database, clock: deps.clock, provider: deps.provider, logger: deps.logger });
  }

  /** What the person may do with their consultation now (null: not theirs, or no such id). */
  async policyFor(userId: string, consultationId: string): Promise<PolicyState | null> {
    const row = await this.find(userId, consultationId);
    return row ? personPolicy(startsAtMs(row), this.deps.clock.now().getTime(), row.status, row.move_count ?? 0) : null;
  }

  private async find(userId: string, consultationId: string): Promise<LawyerConsultationRow | undefined> {
    if (!UUID.test(consultationId)) return undefined;
    return findConsultationOfPerson(this.deps.database.db, userId, consultationId.toLowerCase());
  }

  /**
   * Cancels the person's own consultation. `expectRefund`: what the page they confirmed on said
   * (refund or not); when the policy now says otherwise nothing is done (`changed`), so nobody is
   * ever cancelled under terms they were not shown. Another person's id is not found.
   */
  async cancel(userId: string, consultationId: string, options: { expectRefund?: boolean } = {}): Promise<PersonCancelResult> {
    if (!UUID.test(consultationId)) throw notFound('no such consultation');
    const now = this.deps.clock.now();
    const at = now.toISOString();
    const done = await this.deps.database.db.transaction().execute(async (tx) => {
      const read = await findConsultationOfPerson(tx, userId, consultationId.toLowerCase());
      if (!read) throw notFound('no such consultation');
      const policy = personPolicy(startsAtMs(read), now.getTime(), read.status);
      if (!policy.canCancelWithRefund && !policy.canCancelWithoutRefund) return { outcome: 'not_allowed' as const, status: read.status };
      if (options.expectRefund !== undefined && options.expectRefund !== policy.canCancelWithRefund) return { outcome: 'changed' as const, policy };
      // The row lock of this update serialises concurrent changes; the loser changes nothing.
      if (!(await cancelByPersonIfConfirmed(tx, { id: read.id, userId, at }))) return { outcome: 'not_allowed' as const, status: 'cancelled_by_person' };
      // Read again under the lock: a move that committed first changed its time.
      const row = (await findConsultationOfPerson(tx, userId, read.id))!;
      await freeConsultationTime(tx, row.booking_intent_id);
      await recordLawyerChanges(tx, [row.lawyer_id], at);
      const refund = policy.canCancelWithRefund
        ? await openRefund(tx, { consultationId: row.id, bookingIntentId: row.booking_intent_id, initiatedBy: 'person', at })
        : { refundId: null, money: 'none' as const, amountCents: 0 };
      const paidCents = quote(row).totalCents;
      const mailIds = await this.deps.mail.enqueue(tx, personCancellationMails({ row, now, inTime: policy.canCancelWithRefund, money: refund.money, amountCents: refund.amountCents || paidCents, siteUrl: this.deps.config.siteUrl }));
      return { outcome: 'cancelled' as const, row, inTime: policy.canCancelWithRefund, refundId: refund.refundId, mailIds };
    });
    if (done.outcome !== 'cancelled') return done;
    this.deps.cache?.lawyersChanged([done.row.lawyer_id]);
    void this.deps.mail.deliver(done.mailIds);
    const refund = done.refundId ? await this.refunds.settle(done.refundId) : 'none';
    return { outcome: 'cancelled', consultationId: done.row.id, inTime: done.inTime, refund };
  }

  /**
   * Moves the person's own consultation to `wanted`, one of the same lawyer's free times now.
   * `seen`: what the confirmation page showed (the site always sends it); when the consultation is
   * no longer there — moved meanwhile — nothing is done (`already_moved`). Without it, the time read
   * here stands in (still one guarded update).
   */
  async move(userId: string, consultationId: string, wanted: NewSlot, seen?: SeenTime): Promise<MoveResult> {
    const row = await this.find(userId, consultationId);
    if (!row) throw notFound('no such consultation');
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const from = { date: seen?.date ?? row.slot_date, start_time: seen?.start_time ?? row.start_time, moveCount: seen?.moveCount ?? row.move_count ?? 0 };
    const check = await this.target(row, wanted, now, from);
    if (check.outcome !== 'ok') return check;
    const { slot, lawyer } = check;
    const cells = cellsCovering(slot.startsAtMs, slot.endsAtMs + lawyer.buffer_minutes * 60_000);
    let mailIds: string[];
    try {
      mailIds = await this.deps.database.db.transaction().execute(async (tx) => {
        // The guard is the UPDATE itself, not the read above: concurrent moves all pass the read.
        const moved = await moveIfUnchanged(tx, {
          id: row.id,
          userId,
          from: { slot_date: from.date, start_time: from.start_time, move_count: from.moveCount },
          to: { slot_date: slot.date, start_time: slot.start_time, end_time: slot.end_time },
          maxMoves: MAX_MOVES,
          at: nowIso,
        });
        if (!moved) throw new Changed();
        // Old time out, new time in, in this one transaction: a lost new time rolls both back.
        await freeConsultationTime(tx, row.booking_intent_id);
        const held = await takeHold(
          tx,
          {
            lawyer_id: row.lawyer_id,
            slot_date: slot.date,
            start_time: slot.start_time,
            end_time: slot.end_time,
            status: 'booked',
            booking_intent_id: row.booking_intent_id,
            expires_at: null,
            created_at: nowIso,
            occupied_until: new Date(slot.endsAtMs + lawyer.buffer_minutes * 60_000).toISOString(),
          },
          cells,
          nowIso,
        );
        if (!held) throw new TimeTaken();
        await recordLawyerChanges(tx, [row.lawyer_id], nowIso);
        const after = (await findConsultationOfPerson(tx, userId, row.id))!;
        return this.deps.mail.enqueue(tx, moveMails({ row: after, from, now, siteUrl: this.deps.config.siteUrl }));
      });
    } catch (err) {
      if (err instanceof TimeTaken) return { outcome: 'unavailable' };
      if (err instanceof Changed) return this.whyUnchanged(userId, row.id);
      throw err;
    } finally {
      this.deps.cache?.lawyersChanged([row.lawyer_id]);
    }
    void this.deps.mail.deliver(mailIds);
    return { outcome: 'moved', consultationId: row.id, from: { date: from.date, start_time: from.start_time }, to: { date: slot.date, start_time: slot.start_time, end_time: slot.end_time } };
  }

  /**
   * What the move's confirmation page may offer (GET, nothing changed): `ok` with the exact free
   * time when `wanted` is one, else why not — the same checks the move makes before its update.
   */
  async previewMove(userId: string, consultationId: string, wanted: NewSlot): Promise<Exclude<MoveResult, { outcome: 'moved' }> | { outcome: 'ok'; to: NewSlot }> {
    const row = await this.find(userId, consultationId);
    if (!row) throw notFound('no such consultation');
    const check = await this.target(row, wanted, this.deps.clock.now(), { date: row.slot_date, start_time: row.start_time, moveCount: row.move_count ?? 0 });
    return check.outcome === 'ok' ? { outcome: 'ok', to: { date: check.slot.date, start_time: check.slot.start_time, end_time: check.slot.end_time } } : check;
  }

  /** The move's checks before its update: the page's view still current, the policy, and `wanted` exactly one of her free times. */
  private async target(row: LawyerConsultationRow, wanted: NewSlot, now: Date, seen: SeenTime) {
    if (row.status !== 'confirmed') return { outcome: 'not_allowed' as const, reason: 'closed' as const };
    if (row.slot_date !== seen.date || row.start_time !== seen.start_time || (row.move_count ?? 0) !== seen.moveCount) return { outcome: 'already_moved' as const };
    const policy = personPolicy(startsAtMs(row), now.getTime(), row.status, row.move_count ?? 0);
    if (!policy.canMove) return { outcome: 'not_allowed' as const, reason: policy.canCancelWithRefund ? ('limit' as const) : policy.canCancelWithoutRefund ? ('late' as const) : ('closed' as const) };
    if (!DATE.test(wanted.date) || !TIME.test(wanted.start_time) || !TIME.test(wanted.end_time)) return { outcome: 'unavailable' as const };
    if (wanted.date === row.slot_date && wanted.start_time === row.start_time) return { outcome: 'unavailable' as const };
    // Only an exact free candidate of hers, as for a new hold (her current time is not free: it is this booking).
    const lawyer = await findPublicLawyer(this.deps.database.db, row.lawyer_id);
    if (!lawyer) return { outcome: 'unavailable' as const };
    const slot = await requestableSlot(this.deps.database.db, lawyer, wanted, now.getTime(), this.deps.config.minLeadTimeMinutes * 60_000);
    if (!slot) return { outcome: 'unavailable' as const };
    return { outcome: 'ok' as const, slot, lawyer };
  }

  /** After a guarded update changed nothing: cancelled meanwhile (`closed`), else moved by another request. */
  private async whyUnchanged(userId: string, id: string): Promise<MoveResult> {
    const row = await findConsultationOfPerson(this.deps.database.db, userId, id);
    return row?.status === 'confirmed' ? { outcome: 'already_moved' } : { outcome: 'not_allowed', reason: 'closed' };
  }
}

/** The person's language: their account's, else the one they booked in, else Spanish. */
function personLocale(row: LawyerConsultationRow): Locale {
  if (isLocale(row.person_locale)) return row.person_locale;
  return isLocale(row.consultation_locale) ? row.consultation_locale : 'es';
}

function invitation(row: LawyerConsultationRow, now: Date, siteUrl: string, locale: Locale, method: 'PUBLISH' | 'CANCEL'): string {
  return consultationIcs({
    intentId: row.booking_intent_id,
    confirmedAt: now,
    date: row.slot_date,
    startTime: row.start_time,
    endTime: row.end_time,
    lawyer: { name: row.lawyer_name, timezone: row.lawyer_timezone, city: row.city_name },
    siteUrl,
    link: `${siteUrl}/consultations/${row.id}`,
    locale,
    // Already raised by this change's update (the row is read after it).
    sequence: row.ics_sequence,
    method,
  });
}

function whenText(row: Pick<LawyerConsultationRow, 'lawyer_timezone'>, date: string, start: string, end: string, locale: Locale): string {
  return messages(locale).mail.receipt.whenValue(formatDay(date, locale), start.slice(0, 5), end.slice(0, 5), zoneLabel(date, start, row.lawyer_timezone, locale));
}

/** The cancellation's emails: the person's (in their language) and the lawyer's (Spanish), each with METHOD:CANCEL. */
export function personCancellationMails(c: { row: LawyerConsultationRow; now: Date; inTime: boolean; money: MoneyBack; amountCents: number; siteUrl: string }): OutgoingMail[] {
  const { row } = c;
  const locale = personLocale(row);
  const t = messages(locale);
  const m = t.changeBooking.mail;
  const r = t.mail.receipt;
  const name = sanitizeShortText(row.lawyer_name);
  const amount = euros(c.amountCents, locale);
  const money = !c.inTime ? (c.amountCents > 0 ? m.noRefund(amount) : m.nothingPaid) : c.money === 'refund' ? m.refund(amount) : c.money === 'release' ? m.released(amount) : m.nothingPaid;
  const person: OutgoingMail = {
    kind: PERSON_CANCELLATION_KIND,
    to: row.person_email,
    subject: m.cancelledSubject(name, dayAndTime(row.slot_date, row.start_time, locale)),
    text: [
      m.cancelledIntro,
      '',
      table([
        [r.lawyer(row.lawyer_form_of_address ?? null), row.city_name ? `${name} (${row.city_name})` : name],
        [r.when, whenText(row, row.slot_date, row.start_time, row.end_time, locale)],
        [r.reference, row.booking_intent_id],
      ]),
      '',
      money,
      m.cancelCalendar(m.cancelFile),
      '',
      `— ${r.signature}`,
    ].join('\n'),
    attachments: [{ filename: m.cancelFile, contentType: 'text/calendar; charset=utf-8; method=CANCEL', content: invitation(row, c.now, c.siteUrl, locale, 'CANCEL') }],
  };
  if (!row.lawyer_email) return [person];
  // Lawyers practise in Spain and have no language setting: their notices are in Spanish.
  const es = messages('es');
  const n = es.changeBooking.mail;
  const ln = es.mail.lawyerNotice;
  const lawyer: OutgoingMail = {
    kind: PERSON_CANCELLATION_LAWYER_KIND,
    to: row.lawyer_email,
    subject: n.lawyerCancelledSubject(dayAndTime(row.slot_date, row.start_time, 'es')),
    text: [
      n.lawyerCancelledIntro,
      '',
      table([
        [ln.when, whenText(row, row.slot_date, row.start_time, row.end_time, 'es')],
        [ln.client, row.person_email],
        [ln.reference, row.booking_intent_id],
      ]),
      '',
      c.inTime ? n.lawyerRefunded : n.lawyerNotRefunded,
      '',
      `— ${ln.signature}`,
    ].join('\n'),
    attachments: [{ filename: n.cancelFile, contentType: 'text/calendar; charset=utf-8; method=CANCEL', content: invitation(row, c.now, c.siteUrl, 'es', 'CANCEL') }],
  };
  return [person, lawyer];
}

/** The move's emails: the updated invitation (same UID, higher SEQUENCE) to the person and to the lawyer. */
export function moveMails(c: { row: LawyerConsultationRow; from: { date: string; start_time: string }; now: Date; siteUrl: string }): OutgoingMail[] {
  const { row } = c;
  const locale = personLocale(row);
  const t = messages(locale);
  const m = t.changeBooking.mail;
  const r = t.mail.receipt;
  const name = sanitizeShortText(row.lawyer_name);
  const wasText = (loc: Locale) => dayAndTime(c.from.date, c.from.start_time, loc);
  const person: OutgoingMail = {
    kind: MOVE_KIND,
    to: row.person_email,
    subject: m.movedSubject(name, dayAndTime(row.slot_date, row.start_time, locale)),
    text: [
      m.movedIntro,
      '',
      table([
        [r.lawyer(row.lawyer_form_of_address ?? null), row.city_name ? `${name} (${row.city_name})` : name],
        [r.when, whenText(row, row.slot_date, row.start_time, row.end_time, locale)],
        [m.was, wasText(locale)],
        [r.booking, `${c.siteUrl}/consultations/${row.id}`],
        [r.reference, row.booking_intent_id],
      ]),
      '',
      m.moveCalendar(m.moveFile),
      '',
      `— ${r.signature}`,
    ].join('\n'),
    attachments: [{ filename: m.moveFile, contentType: 'text/calendar; charset=utf-8; method=PUBLISH', content: invitation(row, c.now, c.siteUrl, locale, 'PUBLISH') }],
  };
  if (!row.lawyer_email) return [person];
  const es = messages('es');
  const n = es.changeBooking.mail;
  const ln = es.mail.lawyerNotice;
  const lawyer: OutgoingMail = {
    kind: MOVE_LAWYER_KIND,
    to: row.lawyer_email,
    subject: n.lawyerMovedSubject(dayAndTime(row.slot_date, row.start_time, 'es')),
    text: [
      n.lawyerMovedIntro,
      '',
      table([
        [ln.when, whenText(row, row.slot_date, row.start_time, row.end_time, 'es')],
        [n.was, wasText('es')],
        [ln.client, row.person_email],
        [ln.reference, row.booking_intent_id],
      ]),
      '',
      `— ${ln.signature}`,
    ].join('\n'),
    attachments: [{ filename: n.moveFile, contentType: 'text/calendar; charset=utf-8; method=PUBLISH', content: invitation(row, c.now, c.siteUrl, 'es', 'PUBLISH') }],
  };
  return [person, lawyer];
}
