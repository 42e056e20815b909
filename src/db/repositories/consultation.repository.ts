/** Consultations (confirmed bookings) as their owner sees them, with the lawyer's name and zone. */
import type { ConsultationFormat, ConsultationStatus } from '../schema.ts';
import type { Executor } from './types.ts';

export interface ConsultationRow {
  id: string;
  booking_intent_id: string;
  user_id: string;
  lawyer_id: string;
  lawyer_name: string;
  lawyer_timezone: string;
  lawyer_form_of_address?: 'female' | 'male' | 'neutral' | null;
  city_slug: string;
  city_name: string | null;
  consultation_fee_cents: number;
  platform_commission_percent: number;
  slot_date: string;
  start_time: string;
  end_time: string;
  created_at: string;
  confirmation_token: string;
  /** The consultation's own state (0027): confirmed, cancelled_by_lawyer, held… */
  status: ConsultationStatus;
  /** Its refund after a cancellation by the lawyer (pending/succeeded/failed), if any. */
  refund_status: string | null;
  /** The payment the refund gives back: `voided` when the authorization was released, never captured. */
  refund_payment_status: string | null;
  /** Its review, when the person wrote one (issue 20; docs/reviews.md). */
  review_id: string | null;
  /** Its invitation's SEQUENCE: 0 when booked, +1 with every move or cancellation. */
  ics_sequence: number;
  /** How many times the person moved it (0034; capped by MAX_MOVES). */
  move_count?: number;
  // -- what was bought (0033; src/domain/booking/purchase.ts) --
  format?: ConsultationFormat | null;
  note?: string | null;
  phone_e164?: string | null;
  person_timezone?: string | null;
  consultation_minutes: number;
  video_url: string | null;
  office_address: string | null;
}

function base(db: Executor) {
  return db
    .selectFrom('consultations as c')
    .innerJoin('lawyers as l', 'l.id', 'c.lawyer_id')
    .innerJoin('booking_intents as i', 'i.id', 'c.booking_intent_id')
    .leftJoin('cities as ct', 'ct.slug', 'l.city_slug')
    .leftJoin('consultation_refunds as r', 'r.consultation_id', 'c.id')
    .leftJoin('payment_attempts as pa', 'pa.id', 'r.payment_attempt_id')
    .leftJoin('reviews as rv', 'rv.consultation_id', 'c.id')
    .select([
      'c.id',
      'c.booking_intent_id',
      'c.user_id',
      'c.lawyer_id',
      'l.name as lawyer_name',
      'l.timezone as lawyer_timezone',
      'l.form_of_address as lawyer_form_of_address',
      'l.city_slug',
      'ct.name as city_name',
      'l.consultation_fee_cents',
      'l.platform_commission_percent',
      'c.slot_date',
      'c.start_time',
      'c.end_time',
      'c.created_at',
      'i.confirmation_token',
      'c.status',
      'r.status as refund_status',
      'pa.status as refund_payment_status',
      'rv.id as review_id',
      'c.ics_sequence',
      'c.move_count',
      'c.format',
      'c.note',
      'c.phone_e164',
      'c.person_timezone',
      'l.consultation_minutes',
      'l.video_url',
      'l.office_address',
    ]);
}

/** A user's consultations, soonest first. */
export function listConsultationsOfUser(db: Executor, userId: string): Promise<ConsultationRow[]> {
  return base(db).where('c.user_id', '=', userId).orderBy('c.slot_date').orderBy('c.start_time').limit(500).execute();
}

/** One consultation, only if it belongs to the user. */
export function findConsultationOfUser(db: Executor, userId: string, id: string): Promise<ConsultationRow | undefined> {
  return base(db).where('c.user_id', '=', userId).where('c.id', '=', id).executeTakeFirst();
}

/** The consultation a booking intent became, only if it belongs to the user. */
export function findConsultationOfUserByIntent(db: Executor, userId: string, intentId: string): Promise<ConsultationRow | undefined> {
  return base(db).where('c.user_id', '=', userId).where('c.booking_intent_id', '=', intentId).executeTakeFirst();
}
