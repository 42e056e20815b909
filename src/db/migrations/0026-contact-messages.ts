// Frozen migration: never import application code here.
// The contact form (issue 19, item 7; docs/site.md#contact): every message a person sends from
// /contact, stored before it is emailed to the operator (CONTACT_EMAIL) through the mail outbox,
// so a message is never lost to a mail server being down. `user_id` is set when the sender was
// signed in; deleting that account erases the account's messages (DELETION_DECISIONS), and the
// messages sent with its address while signed out.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('contact_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.references('users.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('topic', 'text', (c) => c.notNull().check(sql`topic in ('booking', 'payment', 'account', 'lawyer', 'privacy', 'other')`))
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('locale', 'text', (c) => c.notNull())
    // The outbox mail that carried it to the operator.
    .addColumn('mail_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('contact_messages_created').on('contact_messages').column('created_at').execute();
  await db.schema.createIndex('contact_messages_email').on('contact_messages').column('email').execute();
  await db.schema.createIndex('contact_messages_user').on('contact_messages').column('user_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('contact_messages').ifExists().execute();
}
