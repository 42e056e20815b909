/** Ledger rows for the earnings suites: a consultation with its payment and refund, written as the payment flow writes them. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';

export interface LedgerEntry {
  lawyerId: string;
  userId: string;
  /** `YYYY-MM-DD`. */
  date: string;
  /** `HH`. */
  hour?: string;
  /** Captured amount; null: no payment (a free consultation). */
  paid: number | null;
  /** platform_fee_cents on the attempt; null: an attempt from before 0032. */
  fee?: number | null;
  destination?: string | null;
  refund?: { amount: number; status: 'pending' | 'succeeded' | 'failed' };
  status?: 'confirmed' | 'cancelled_by_person' | 'cancelled_by_lawyer' | 'held' | 'no_show' | 'moved';
}

/** Writes one consultation of the ledger; returns its id. */
export async function ledger(database: Database, e: LedgerEntry): Promise<string> {
  const db = database.db;
  const now = '2026-11-01T10:00:00.000Z';
  const intentId = randomUUID();
  const hour = e.hour ?? '10';
  await db
    .insertInto('booking_intents')
    .values({
      id: intentId,
      lawyer_id: e.lawyerId,
      slot_date: e.date,
      start_time: `${hour}:00:00`,
      end_time: `${hour}:59:00`,
      status: 'confirmed',
      key_id: null,
      owner_type: null,
      owner_id: null,
      source: 'site',
      agent_name: null,
      confirmation_token: randomBytes(24).toString('base64url'),
      client_ip: '203.0.113.9',
      expires_at: now,
      confirmed_at: now,
      confirmed_by_user_id: e.userId,
      expired_at: null,
      created_at: now,
    })
    .execute();
  const consultationId = randomUUID();
  await db
    .insertInto('consultations')
    .values({ id: consultationId, booking_intent_id: intentId, user_id: e.userId, lawyer_id: e.lawyerId, slot_date: e.date, start_time: `${hour}:00:00`, end_time: `${hour}:59:00`, created_at: now, status: e.status ?? 'confirmed', status_reason: null, status_changed_at: null })
    .execute();
  if (e.paid === null) return consultationId;
  const attemptId = randomUUID();
  await db
    .insertInto('payment_attempts')
    .values({
      id: attemptId,
      booking_intent_id: intentId,
      user_id: e.userId,
      provider: 'demo',
      status: 'captured',
      amount_cents: e.paid,
      currency: 'EUR',
      checkout_ref: null,
      checkout_url: null,
      payment_ref: `demo_auth_${attemptId}`,
      failure_code: null,
      created_at: now,
      updated_at: now,
      authorized_at: now,
      captured_at: now,
      voided_at: null,
      destination_account: e.destination ?? null,
      platform_fee_cents: e.fee === undefined ? null : e.fee,
    })
    .execute();
  if (e.refund) {
    await db
      .insertInto('consultation_refunds')
      .values({ id: randomUUID(), consultation_id: consultationId, payment_attempt_id: attemptId, provider: 'demo', amount_cents: e.refund.amount, currency: 'EUR', initiated_by: 'lawyer', status: e.refund.status, provider_ref: null, failure_code: null, created_at: now, updated_at: now })
      .execute();
  }
  return consultationId;
}

/** Links a lawyer record to an account (what verification of her application leaves). */
export async function linkLawyer(database: Database, lawyerId: string, userId: string): Promise<void> {
  await database.db.updateTable('lawyers').set({ user_id: userId }).where('id', '=', lawyerId).execute();
}
