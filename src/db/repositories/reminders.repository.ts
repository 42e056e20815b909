/**
 * Reminders of consultations (docs/mail.md#reminders): the confirmed consultations around now,
 * read in keyset-paged batches, and the once-only claims in `consultation_reminders`.
 *
 * The look-up walks lawyers and, for each, her consultations by the `consultations_lawyer`
 * index (lawyer_id, slot_date) over a few days of slot dates: slot dates are in each lawyer's
 * zone, so the window is a UTC-date range wide enough for every zone; the service computes the
 * exact instants.
 */
import type { ConsultationReminderTable } from '../schema.ts';
import type { Executor } from './types.ts';

export type ReminderKind = ConsultationReminderTable['kind'];

/** A confirmed (or held) consultation with what its reminders say. */
export interface ReminderCandidate {
  id: string;
  status: 'confirmed' | 'held';
  lawyer_id: string;
  slot_date: string;
  start_time: string;
  end_time: string;
  created_at: string;
  status_changed_at: string | null;
  format: string | null;
  phone_e164: string | null;
  person_timezone: string | null;
  consultation_locale: string | null;
  person_email: string | null;
  person_locale: string | null;
  lawyer_name: string;
  lawyer_timezone: string;
  /** How she is named (0034): the person's reminders word her by it. */
  lawyer_form_of_address?: 'female' | 'male' | 'neutral' | null;
  lawyer_office_address: string | null;
  lawyer_contact_email: string | null;
  lawyer_user_email: string | null;
  lawyer_user_locale: string | null;
}

/**
 * Confirmed and held consultations with a slot date in [fromDate, toDate], ordered by (lawyer, date, id),
 * after the keyset `after` (the last row of the previous batch), at most `limit`.
 */
export function listConfirmedBetween(
  db: Executor,
  window: { fromDate: string; toDate: string },
  after: { lawyerId: string; slotDate: string; id: string } | null,
  limit: number,
): Promise<ReminderCandidate[]> {
  let q = db
    .selectFrom('lawyers as l')
    .innerJoin('consultations as c', (j) => j.onRef('c.lawyer_id', '=', 'l.id').on('c.slot_date', '>=', window.fromDate).on('c.slot_date', '<=', window.toDate))
    .leftJoin('users as u', 'u.id', 'c.user_id')
    .leftJoin('users as lu', 'lu.id', 'l.user_id')
    .select([
      'c.id',
      'c.status',
      'c.lawyer_id',
      'c.slot_date',
      'c.start_time',
      'c.end_time',
      'c.created_at',
      'c.status_changed_at',
      'c.format',
      'c.phone_e164',
      'c.person_timezone',
      'c.locale as consultation_locale',
      'u.email as person_email',
      'u.locale as person_locale',
      'l.name as lawyer_name',
      'l.timezone as lawyer_timezone',
      'l.form_of_address as lawyer_form_of_address',
      'l.office_address as lawyer_office_address',
      'l.contact_email as lawyer_contact_email',
      'lu.email as lawyer_user_email',
      'lu.locale as lawyer_user_locale',
    ])
    // Held ones too: a lawyer may mark a consultation held herself; its person is invited all the same.
    .where('c.status', 'in', ['confirmed', 'held']);
  if (after) {
    q = q.where((eb) =>
      eb.or([
        eb('c.lawyer_id', '>', after.lawyerId),
        eb.and([eb('c.lawyer_id', '=', after.lawyerId), eb('c.slot_date', '>', after.slotDate)]),
        eb.and([eb('c.lawyer_id', '=', after.lawyerId), eb('c.slot_date', '=', after.slotDate), eb('c.id', '>', after.id)]),
      ]),
    );
  }
  return q.orderBy('c.lawyer_id').orderBy('c.slot_date').orderBy('c.id').limit(limit).execute() as Promise<ReminderCandidate[]>;
}

/**
 * Claims one reminder: true when this call inserted the row, false when it exists (another
 * process, or an earlier run, queued it). On PostgreSQL a concurrent insert of the same key waits
 * for the first transaction and then does nothing.
 */
export async function claimReminder(db: Executor, row: { consultationId: string; kind: ReminderKind; startsAt: string; nowIso: string }): Promise<boolean> {
  const result = await db
    .insertInto('consultation_reminders')
    .values({ consultation_id: row.consultationId, kind: row.kind, starts_at: row.startsAt, mail_id: null, created_at: row.nowIso })
    .onConflict((oc) => oc.columns(['consultation_id', 'kind', 'starts_at']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Records which mail the claimed reminders queued (a digest: one mail for several rows). */
export async function setReminderMail(db: Executor, row: { keys: ReadonlyArray<{ consultationId: string; startsAt: string }>; kind: ReminderKind; mailId: string }): Promise<void> {
  for (const key of row.keys) {
    await db
      .updateTable('consultation_reminders')
      .set({ mail_id: row.mailId })
      .where('consultation_id', '=', key.consultationId)
      .where('kind', '=', row.kind)
      .where('starts_at', '=', key.startsAt)
      .execute();
  }
}

/** Whether a consultation is still confirmed at the slot it was read at (not cancelled or moved since). */
export async function isConfirmedAt(db: Executor, c: { id: string; slot_date: string; start_time: string }): Promise<boolean> {
  const row = await db
    .selectFrom('consultations')
    .select('id')
    .where('id', '=', c.id)
    .where('status', '=', 'confirmed')
    .where('slot_date', '=', c.slot_date)
    .where('start_time', '=', c.start_time)
    .executeTakeFirst();
  return row !== undefined;
}

/** Whether a consultation is (still) held: a lawyer's correction to no-show stops its review invitation. */
export async function isHeld(db: Executor, id: string): Promise<boolean> {
  const row = await db.selectFrom('consultations').select('id').where('id', '=', id).where('status', '=', 'held').executeTakeFirst();
  return row !== undefined;
}

/** confirmed → held, only if still confirmed (a no-show or a cancellation wins). True when this call changed it. */
export async function markHeldIfConfirmed(db: Executor, id: string, nowIso: string): Promise<boolean> {
  const result = await db.updateTable('consultations').set({ status: 'held', status_changed_at: nowIso }).where('id', '=', id).where('status', '=', 'confirmed').executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** The reminders already claimed for these consultations, as `consultation_id|kind|starts_at` keys. */
export async function listClaimedKeys(db: Executor, consultationIds: readonly string[]): Promise<Set<string>> {
  if (consultationIds.length === 0) return new Set();
  const rows = await db.selectFrom('consultation_reminders').select(['consultation_id', 'kind', 'starts_at']).where('consultation_id', 'in', consultationIds).execute();
  return new Set(rows.map((r) => reminderKey(r.consultation_id, r.kind, r.starts_at)));
}

export const reminderKey = (consultationId: string, kind: ReminderKind, startsAt: string): string => `${consultationId}|${kind}|${startsAt}`;

/** The reminders queued for a consultation (tests, support). */
export function listRemindersOf(db: Executor, consultationId: string): Promise<ConsultationReminderTable[]> {
  return db.selectFrom('consultation_reminders').selectAll().where('consultation_id', '=', consultationId).orderBy('created_at').orderBy('kind').execute();
}
