// Frozen migration: never import application code here.
// Her bookings feed (issue 18, item 5; docs/lawyers.md#her-bookings): a secret, rotatable address
// of an iCalendar feed of a lawyer's consultations. Only the SHA-256 of the token is stored (as for
// sessions): the address is shown once per rotation and cannot be read back from the database.
// One feed per lawyer: rotating replaces the hash, so the old address stops working at once.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lawyer_booking_feeds')
    .addColumn('lawyer_id', 'text', (c) => c.primaryKey().references('lawyers.id').onDelete('cascade'))
    // hex SHA-256 of the token in the URL.
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    // When a calendar last fetched it (at most once a minute written): shown to her.
    .addColumn('last_fetched_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lawyer_booking_feeds').ifExists().execute();
}
