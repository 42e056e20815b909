// Frozen migration: never import application code here.
// Payment attempts and provider events.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // One try at paying for a booking intent. open → authorized → captured | voided, or
  // open → failed (declined) | expired (hosted checkout expired) | canceled (abandoned).
  await db.schema
    .createTable('payment_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('booking_intent_id', 'text', (c) => c.notNull().references('booking_intents.id'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('demo', 'stripe')`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('open', 'authorized', 'captured', 'voided', 'failed', 'expired', 'canceled')`),
    )
    .addColumn('amount_cents', 'integer', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    // The hosted checkout (a Stripe Checkout Session id) and where to send the person; null for the demo.
    .addColumn('checkout_ref', 'text')
    .addColumn('checkout_url', 'text')
    // The authorization: a Stripe PaymentIntent id or a demo authorization id.
    .addColumn('payment_ref', 'text')
    .addColumn('failure_code', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('authorized_at', 'text')
    .addColumn('captured_at', 'text')
    .addColumn('voided_at', 'text')
    .execute();
  // At most one attempt per intent may be open or authorized: the second of two concurrent
  // submissions cannot even start, so it can never be charged (a partial unique index, valid on
  // SQLite and PostgreSQL alike).
  await db.schema
    .createIndex('payment_attempts_one_open')
    .on('payment_attempts')
    .column('booking_intent_id')
    .unique()
    .where(sql<boolean>`status in ('open', 'authorized')`)
    .execute();
  await db.schema.createIndex('payment_attempts_intent').on('payment_attempts').columns(['booking_intent_id', 'created_at']).execute();
  // The sweep reads unfinished attempts only.
  await db.schema.createIndex('payment_attempts_status').on('payment_attempts').columns(['status', 'updated_at']).execute();
  await db.schema.createIndex('payment_attempts_checkout').on('payment_attempts').column('checkout_ref').unique().execute();

  // Provider events (webhooks) already applied: a redelivered event finds its row and is skipped.
  await db.schema
    .createTable('payment_events')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('payment_events_pk', ['provider', 'event_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('payment_events').ifExists().execute();
  await db.schema.dropTable('payment_attempts').ifExists().execute();
}
