// Frozen migration: never import application code here.
// Issue 26 (the lawyer's side; DESIGN.md §10, §13):
// - `lawyer_holiday_choices`: Spain's national and her autonomous community's holidays are closed
//   for every lawyer by default (computed from a maintained data library, not stored); she may
//   open one of those days ('open') or close a local holiday of her city ('closed'). One row per
//   (lawyer, date): the last click wins.
// - `lawyer_verification_notices`: the emails of her verification (verified, refused, 30 and 7
//   days before it expires, expired, suspended), each sent once: the row is inserted in the
//   transaction that queues the mail, and a second process's insert of the same key does nothing.
//   `cycle` tells one verification from the next (the expiry it is about; the event's time for
//   refusals and suspensions).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lawyer_holiday_choices')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('date', 'text', (c) => c.notNull())
    .addColumn('choice', 'text', (c) => c.notNull().check(sql`choice in ('open', 'closed')`))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lawyer_holiday_choices_pk', ['lawyer_id', 'date'])
    .execute();
  await db.schema
    .createTable('lawyer_verification_notices')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('verified', 'refused', 'expires_30', 'expires_7', 'expired', 'suspended')`))
    .addColumn('cycle', 'text', (c) => c.notNull())
    .addColumn('mail_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lawyer_verification_notices_pk', ['lawyer_id', 'kind', 'cycle'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lawyer_verification_notices').ifExists().execute();
  await db.schema.dropTable('lawyer_holiday_choices').ifExists().execute();
}
