// Frozen migration: never import application code here.
// The parts of the lawyers' side (issue 18) and of after-the-booking (issue 20) that several
// areas share, laid down once so that each area adds only its own tables:
// - `lawyer_busy_intervals`: busy times from a lawyer's own calendar feed (written by the feed
//   refresher, read by slot generation). Intervals only: no titles, no descriptions.
// - the consultation's own state (DESIGN.md §11): `confirmed` until the lawyer or the person
//   cancels, it is moved, held or marked a no-show; the iCalendar SEQUENCE of its invitation.
// - `consultation_refunds`: at most one refund per consultation (full refunds only), the row that
//   makes "a refund is never sent twice" a constraint rather than a hope.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lawyer_busy_intervals')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    // Where it came from: 'ical' (her calendar feed). Replaced as a whole on every good fetch.
    .addColumn('source', 'text', (c) => c.notNull())
    // Epoch instants as ISO 8601 UTC text (as everywhere), [starts_at, ends_at).
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('ends_at', 'text', (c) => c.notNull())
    .addCheckConstraint('lawyer_busy_intervals_order', sql`starts_at < ends_at`)
    .execute();
  await db.schema.createIndex('lawyer_busy_intervals_lawyer').on('lawyer_busy_intervals').columns(['lawyer_id', 'starts_at']).execute();

  await db.schema
    .alterTable('consultations')
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('confirmed').check(sql`status in ('confirmed', 'moved', 'cancelled_by_person', 'cancelled_by_lawyer', 'held', 'no_show')`),
    )
    .execute();
  await db.schema.alterTable('consultations').addColumn('status_reason', 'text').execute();
  await db.schema.alterTable('consultations').addColumn('status_changed_at', 'text').execute();
  // The invitation's SEQUENCE (RFC 5545): 0 when booked, +1 on every update or cancellation.
  await db.schema.alterTable('consultations').addColumn('ics_sequence', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.createIndex('consultations_lawyer').on('consultations').columns(['lawyer_id', 'slot_date']).execute();

  await db.schema
    .createTable('consultation_refunds')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('consultation_id', 'text', (c) => c.notNull().unique().references('consultations.id'))
    .addColumn('payment_attempt_id', 'text', (c) => c.notNull().references('payment_attempts.id'))
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // Who asked for it: the lawyer cancelling, the person cancelling in time, the operator.
    .addColumn('initiated_by', 'text', (c) => c.notNull().check(sql`initiated_by in ('lawyer', 'person', 'operator')`))
    // pending → succeeded | failed. A pending row is what the sweep finishes after a crash.
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn('provider_ref', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('consultation_refunds_status').on('consultation_refunds').columns(['status', 'updated_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('consultation_refunds').ifExists().execute();
  await db.schema.dropIndex('consultations_lawyer').ifExists().execute();
  for (const column of ['ics_sequence', 'status_changed_at', 'status_reason', 'status']) {
    await db.schema.alterTable('consultations').dropColumn(column).execute();
  }
  await db.schema.dropTable('lawyer_busy_intervals').ifExists().execute();
}
