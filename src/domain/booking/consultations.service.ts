/**
 * A person's consultations (confirmed bookings). Every read is scoped to the user: another
 * person's consultation id reads as not found, never as forbidden (no existence leak).
 */
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import type { Executor } from '../../db/repositories/types.ts';
import {
  findConsultationOfUser,
  findConsultationOfUserByIntent,
  listConsultationsOfUser,
  type ConsultationRow,
} from '../../db/repositories/consultation.repository.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { zonedToUtcMs } from '../../zoned-time.ts';
import type { Locale } from '../../i18n/index.ts';
import type { ConsultationStatus } from '../../db/schema.ts';
import { consultationIcs } from './consultation-mail.ts';
import { personPolicy, type PolicyState } from './policy.ts';
import { quote, type Quote } from './quote.ts';
import type { ConsultationFormat } from '../../db/schema.ts';
import { bookingReference, nextStep, type NextStep } from './purchase.ts';

export interface Consultation {
  id: string;
  bookingIntentId: string;
  /** `formOfAddress`: how she wants to be named (null: neutral wording; docs/lawyers.md#how-she-is-named). */
  lawyer: { id: string; name: string; timezone: string; citySlug: string; city: string | null; formOfAddress: FormOfAddress | null };
  date: string;
  startTime: string;
  endTime: string;
  /** UTC instants of the start and end (the times are the lawyer's wall-clock times). */
  startsAt: string;
  endsAt: string;
  quote: Quote;
  confirmationToken: string;
  createdAt: string;
  /**
   * The consultation's state. The booking intent stays `confirmed` whatever happens after
   * (DESIGN.md §11); this says whether it was cancelled by the lawyer, held or a no-show.
   */
  status: ConsultationStatus;
  /** After a cancellation: the money given back, being given back, or the card hold released; null when nothing was paid back. */
  refund: PersonRefundState | null;
  /** Its review's id when the person wrote one (docs/reviews.md), else null. */
  reviewId: string | null;
  /** Its invitation's SEQUENCE (the calendar file carries it: a moved consultation's is higher). */
  icsSequence: number;
  /** How many times the person moved it (at most MAX_MOVES; the move form carries it back). */
  moveCount: number;
  /** What the person may still do now, and until when (personPolicy at the service's clock). */
  policy: PolicyState;
  /** What was bought and what happens next (issue 20; src/domain/booking/purchase.ts). */
  bought: BoughtView;
}

export interface BoughtView {
  minutes: number;
  format: ConsultationFormat | null;
  /** The person's own note to the lawyer (third-party text to anyone else: fenced for agents). */
  note: string | null;
  phoneE164: string | null;
  /** The person's zone when they booked (for the receipt; pages use the visitor's current one). */
  personZone: string | null;
  /** "3F2A9C1B" */
  reference: string;
  next: NextStep;
}

export type PersonRefundState = 'refunded' | 'refunding' | 'released';

/** A failed refund is settled by hand by the operator: to the person it is still being refunded. */
function refundState(row: ConsultationRow): PersonRefundState | null {
  if (row.refund_status === null) return null;
  if (row.refund_status === 'succeeded') return row.refund_payment_status === 'voided' ? 'released' : 'refunded';
  return 'refunding';
}

/** Still to come: confirmed and not yet ended. Everything else (ended, cancelled, held, no-show, moved) is the past list. */
export function isUpcoming(c: Pick<Consultation, 'status' | 'endsAt'>, nowIso: string): boolean {
  return c.status === 'confirmed' && c.endsAt > nowIso;
}

/** Cancelled by either side: the site lists these apart, with no next steps (issue 25 item 9). */
export function isCancelled(c: Pick<Consultation, 'status'>): boolean {
  return c.status === 'cancelled_by_lawyer' || c.status === 'cancelled_by_person';
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function view(row: ConsultationRow, nowMs: number): Consultation {
  const at = (time: string) => new Date(zonedToUtcMs(row.slot_date, time, row.lawyer_timezone) ?? Date.parse(`${row.slot_date}T${time}Z`)).toISOString();
  const startsAt = at(row.start_time);
  const startMs = Date.parse(startsAt);
  return {
    id: row.id,
    bookingIntentId: row.booking_intent_id,
    lawyer: { id: row.lawyer_id, name: sanitizeShortText(row.lawyer_name), timezone: row.lawyer_timezone, citySlug: row.city_slug, city: row.city_name, formOfAddress: row.lawyer_form_of_address ?? null },
    date: row.slot_date,
    startTime: row.start_time,
    endTime: row.end_time,
    startsAt,
    endsAt: at(row.end_time),
    quote: quote(row),
    confirmationToken: row.confirmation_token,
    createdAt: row.created_at,
    status: row.status,
    refund: refundState(row),
    reviewId: row.review_id,
    icsSequence: row.ics_sequence,
    moveCount: row.move_count ?? 0,
    policy: personPolicy(startMs, nowMs, row.status, row.move_count ?? 0),
    bought: {
      minutes: row.consultation_minutes,
      format: row.format ?? null,
      note: row.note ?? null,
      phoneE164: row.phone_e164 ?? null,
      personZone: row.person_timezone ?? null,
      reference: bookingReference(row.id),
      next: nextStep(row.format, row, row.phone_e164, startMs, nowMs),
    },
  };
}

export class ConsultationsService {
  constructor(private readonly deps: { database: Database; clock: Clock; siteUrl: string }) {}

  /**
   * Upcoming (confirmed, not yet ended) soonest first, and the rest — ended, cancelled, held,
   * no-show — most recent first. `db` may be a transaction
   * (account deletion decides on upcoming consultations inside its own).
   */
  async listForUser(userId: string, db: Executor = this.deps.database.db): Promise<{ upcoming: Consultation[]; past: Consultation[] }> {
    const nowMs = this.deps.clock.now().getTime();
    const all = (await listConsultationsOfUser(db, userId)).map((row) => view(row, nowMs));
    const now = new Date(nowMs).toISOString();
    return { upcoming: all.filter((c) => isUpcoming(c, now)), past: all.filter((c) => !isUpcoming(c, now)).reverse() };
  }

  /** One of the user's consultations; null for anyone else's or an unknown id. */
  async getForUser(userId: string, id: string): Promise<Consultation | null> {
    if (!UUID.test(id)) return null;
    const row = await findConsultationOfUser(this.deps.database.db, userId, id.toLowerCase());
    return row ? view(row, this.deps.clock.now().getTime()) : null;
  }

  /**
   * The calendar file of one of the user's consultations (the same invitation as the receipt's:
   * same UID); null otherwise. Once cancelled it is the cancellation — METHOD:CANCEL,
   * STATUS:CANCELLED, the SEQUENCE the cancellation raised — so importing it removes the event
   * instead of adding it back.
   */
  async calendar(userId: string, id: string, locale: Locale): Promise<string | null> {
    const c = await this.getForUser(userId, id);
    if (!c) return null;
    const link = `${this.deps.siteUrl}/confirm/${c.confirmationToken}`;
    const method = isCancelled(c) ? 'CANCEL' : 'PUBLISH';
    return consultationIcs({ intentId: c.bookingIntentId, confirmedAt: new Date(c.createdAt), date: c.date, startTime: c.startTime, endTime: c.endTime, lawyer: c.lawyer, siteUrl: this.deps.siteUrl, link, locale, sequence: c.icsSequence, next: c.bought.next, method });
  }

  /** The consultation an intent became, if it is the user's. */
  async findForIntent(userId: string, intentId: string): Promise<Consultation | null> {
    const row = await findConsultationOfUserByIntent(this.deps.database.db, userId, intentId);
    return row ? view(row, this.deps.clock.now().getTime()) : null;
  }
}
