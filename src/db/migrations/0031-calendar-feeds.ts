// Frozen migration: never import application code here.
// A lawyer's own calendar feed (issue 18, item 4; docs/lawyers.md#busy-times-from-her-own-calendar):
// the secret iCalendar address she gave (Google, Outlook, Apple publish one), one per lawyer, and
// what the last fetches came to. Its busy times live in `lawyer_busy_intervals` (0027, source
// 'ical'), replaced as a whole on every good fetch; nothing of the calendar's text is kept.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lawyer_calendar_feeds')
    .addColumn('lawyer_id', 'text', (c) => c.primaryKey().references('lawyers.id').onDelete('cascade'))
    // The secret address (https; webcal:// is stored as https://). Never shown back in full.
    .addColumn('url', 'text', (c) => c.notNull())
    // What the portal shows of it: the host and the last characters ("calendar.google.com … a1b2").
    .addColumn('url_hint', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    // When the jobs runner should read it next; a process claims a feed by moving this forward
    // with a conditional update (only one of several processes wins).
    .addColumn('next_due_at', 'text', (c) => c.notNull())
    // Her last "refresh now" (limited to one a minute).
    .addColumn('manual_refresh_at', 'text')
    .addColumn('last_attempt_at', 'text')
    .addColumn('last_success_at', 'text')
    // When the intervals were last computed from a full body (a 304 keeps them; a full read at least daily).
    .addColumn('parsed_at', 'text')
    // The last failure, null after a success: a code the portal explains, and a short technical detail.
    .addColumn('last_error_code', 'text')
    .addColumn('last_error_message', 'text')
    .addColumn('last_error_at', 'text')
    // Conditional GET validators of the last good answer.
    .addColumn('etag', 'text')
    .addColumn('last_modified', 'text')
    // How many busy intervals the last good read stored.
    .addColumn('busy_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('lawyer_calendar_feeds_due').on('lawyer_calendar_feeds').column('next_due_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lawyer_calendar_feeds').ifExists().execute();
}
