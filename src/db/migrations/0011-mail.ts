// Frozen migration: never import application code here.
// The mail outbox and lawyers' contact email.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // Every email, stored in the transaction of the change it reports and sent after commit.
  // queued → sent (SMTP accepted it) | local (no SMTP: kept here for `consulta mail show`) |
  // failed (every attempt refused); a failed attempt leaves it queued with a later next_attempt_at.
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('recipient', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('text', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    // JSON array of {filename, contentType, content}.
    .addColumn('attachments', 'text', (c) => c.notNull().defaultTo('[]'))
    // A secret inside (a sign-in code): the body is erased once it can no longer be needed.
    .addColumn('sensitive', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('queued', 'sent', 'local', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    // A claim: the process holding it may send until then; a claim left by a dead process lapses.
    .addColumn('locked_until', 'text')
    .addColumn('claim_token', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('erased_at', 'text')
    .execute();
  // The retry sweep reads queued mail by due time.
  await db.schema.createIndex('mail_outbox_due').on('mail_outbox').columns(['status', 'next_attempt_at']).execute();
  // `consulta mail list|show --last [--to]` (newest first) and the retention purge (oldest first).
  await db.schema.createIndex('mail_outbox_created').on('mail_outbox').column('created_at').execute();
  await db.schema.createIndex('mail_outbox_recipient').on('mail_outbox').columns(['recipient', 'created_at']).execute();

  // Where consultation notices go. Never part of any API answer.
  await db.schema.alterTable('lawyers').addColumn('contact_email', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('lawyers').dropColumn('contact_email').execute();
  await db.schema.dropTable('mail_outbox').ifExists().execute();
}
