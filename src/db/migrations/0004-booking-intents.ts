// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('booking_intents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id'))
    .addColumn('slot_date', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'confirmed', 'expired')`))
    // Null for anonymous intents: owned by nobody, never pollable, no webhooks.
    .addColumn('key_id', 'text')
    .addColumn('owner_type', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('source', 'text')
    .addColumn('agent_name', 'text')
    .addColumn('confirmation_token', 'text', (c) => c.notNull().unique())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('confirmed_at', 'text')
    .addColumn('confirmed_by_user_id', 'text')
    .addColumn('expired_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('booking_intents_key_status').on('booking_intents').columns(['key_id', 'status', 'expires_at']).execute();
  await db.schema.createIndex('booking_intents_due').on('booking_intents').columns(['status', 'expires_at']).execute();

  // Idempotency-Key records: scope is `key:<id>` or `ip:<address>`.
  await db.schema
    .createTable('idempotency_keys')
    .addColumn('scope', 'text', (c) => c.notNull())
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('fingerprint', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('in_progress', 'completed')`))
    // While in progress: the claim lasts until then; a claim left by a crashed process lapses.
    .addColumn('locked_until', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('response_body', 'text')
    .addColumn('response_headers', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['scope', 'key'])
    .execute();
  await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();

  // The event outbox: written in the same transaction as the state change it records.
  await db.schema
    .createTable('outbox_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('booking_intent_id', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('owner_type', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('published_at', 'text')
    .execute();
  await db.schema.createIndex('outbox_events_unpublished').on('outbox_events').columns(['published_at', 'created_at']).execute();
  // One event of each type per intent, whatever races happen.
  await db.schema.createIndex('outbox_events_once').on('outbox_events').columns(['booking_intent_id', 'type']).unique().execute();

  await db.schema
    .createTable('consultations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('booking_intent_id', 'text', (c) => c.notNull().unique().references('booking_intents.id'))
    .addColumn('user_id', 'text', (c) => c.notNull())
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id'))
    .addColumn('slot_date', 'text', (c) => c.notNull())
    .addColumn('start_time', 'text', (c) => c.notNull())
    .addColumn('end_time', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('consultations_user').on('consultations').columns(['user_id', 'slot_date']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['consultations', 'outbox_events', 'idempotency_keys', 'booking_intents']) await db.schema.dropTable(t).ifExists().execute();
}
