// Frozen migration: never import application code here.
// After the booking (issue 20; DESIGN.md §11), laid down once so that each part adds only code:
// - what the person chose on the hold page, kept on the booking intent while it is pending and
//   copied to the consultation when it is confirmed: the format (`video`, `phone`, `in_person`),
//   a note for the lawyer (third-party text, ≤ 1,000 characters), a phone number in E.164 for
//   phone consultations, and the visitor's own time zone (shown beside the lawyer's in receipts).
// - on the consultation, the language its emails are written in (the site's language at booking,
//   until the account has one) and where it was before its last move.
// - `consultation_reminders`: one row per (consultation, kind), inserted in the transaction that
//   queues the email, so a reminder is sent once whatever the number of processes and restarts.
// - reviews by verified clients: the consultation and the person behind each (one review per
//   consultation: a unique index), when it was last edited, the lawyer's one public answer, and the
//   operator's moderation; `review_reports` for anyone's reports.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  for (const table of ['booking_intents', 'consultations']) {
    await db.schema
      .alterTable(table)
      .addColumn('format', 'text', (c) => c.check(sql`format is null or format in ('video', 'phone', 'in_person')`))
      .execute();
    await db.schema.alterTable(table).addColumn('note', 'text').execute();
    await db.schema.alterTable(table).addColumn('phone_e164', 'text').execute();
    await db.schema.alterTable(table).addColumn('person_timezone', 'text').execute();
  }
  await db.schema.alterTable('consultations').addColumn('locale', 'text').execute();
  // Where it was before the last move (YYYY-MM-DD, HH:MM:SS), for the email that says "moved from".
  await db.schema.alterTable('consultations').addColumn('moved_from_date', 'text').execute();
  await db.schema.alterTable('consultations').addColumn('moved_from_start_time', 'text').execute();

  await db.schema
    .createTable('consultation_reminders')
    .addColumn('consultation_id', 'text', (c) => c.notNull().references('consultations.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('person_24h', 'person_1h', 'lawyer_day_before', 'review_invitation')`))
    // The consultation's start this reminder was for (a move makes a new reminder due).
    .addColumn('starts_at', 'text', (c) => c.notNull())
    .addColumn('mail_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('consultation_reminders_pk', ['consultation_id', 'kind', 'starts_at'])
    .execute();

  await db.schema.alterTable('reviews').addColumn('consultation_id', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('user_id', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('updated_at', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('answer', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('answered_at', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('hidden_at', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('hidden_reason', 'text').execute();
  await db.schema.alterTable('reviews').addColumn('hidden_by', 'text').execute();
  await db.schema.createIndex('reviews_consultation').unique().on('reviews').column('consultation_id').execute();
  await db.schema.createIndex('reviews_user').on('reviews').column('user_id').execute();

  await db.schema
    .createTable('review_reports')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('review_id', 'text', (c) => c.notNull().references('reviews.id').onDelete('cascade'))
    // The reporter's account when signed in; null for an anonymous report (its address hash then).
    .addColumn('user_id', 'text')
    .addColumn('reporter_hash', 'text')
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('details', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    // Set when the operator decided (hid or kept the review).
    .addColumn('resolved_at', 'text')
    .execute();
  await db.schema.createIndex('review_reports_open').on('review_reports').columns(['resolved_at', 'created_at']).execute();
  await db.schema.createIndex('review_reports_review').on('review_reports').column('review_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('review_reports').ifExists().execute();
  await db.schema.dropIndex('reviews_user').ifExists().execute();
  await db.schema.dropIndex('reviews_consultation').ifExists().execute();
  for (const column of ['hidden_by', 'hidden_reason', 'hidden_at', 'answered_at', 'answer', 'updated_at', 'user_id', 'consultation_id']) {
    await db.schema.alterTable('reviews').dropColumn(column).execute();
  }
  await db.schema.dropTable('consultation_reminders').ifExists().execute();
  for (const column of ['moved_from_start_time', 'moved_from_date', 'locale']) {
    await db.schema.alterTable('consultations').dropColumn(column).execute();
  }
  for (const table of ['consultations', 'booking_intents']) {
    for (const column of ['person_timezone', 'phone_e164', 'note', 'format']) {
      await db.schema.alterTable(table).dropColumn(column).execute();
    }
  }
}
