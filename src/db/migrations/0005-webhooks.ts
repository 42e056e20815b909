// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // An owner's HTTPS endpoint. The secrets are stored as issued: signing needs the key itself.
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('owner_type', 'text', (c) => c.notNull().check(sql`owner_type in ('user', 'firm')`))
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('url', 'text', (c) => c.notNull())
    // JSON array of event types; null means every event type.
    .addColumn('event_types', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    // The secret replaced by the last rotation, still signed with until previous_secret_expires_at.
    .addColumn('previous_secret', 'text')
    .addColumn('previous_secret_expires_at', 'text')
    // Null while enabled.
    .addColumn('disabled_at', 'text')
    .addColumn('disabled_cause', 'text', (c) => c.check(sql`disabled_cause is null or disabled_cause in ('manual', 'failures', 'gone')`))
    .addColumn('disabled_reason', 'text')
    .addColumn('consecutive_failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_by_user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('webhook_endpoints_owner').on('webhook_endpoints').columns(['owner_type', 'owner_id']).execute();

  // One message per (event, endpoint): its id is the webhook-id, unchanged across retries.
  await db.schema
    .createTable('webhook_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('endpoint_id', 'text', (c) => c.notNull().references('webhook_endpoints.id'))
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('event_type', 'text', (c) => c.notNull())
    // The exact body sent on every attempt.
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'delivered', 'dead')`))
    // Attempts completed (recorded); the next one sent is attempts + 1.
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    // A claim: the dispatcher holding it may send until then; a claim left by a dead process lapses.
    .addColumn('locked_until', 'text')
    .addColumn('claim_token', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_attempt_at', 'text')
    .addColumn('delivered_at', 'text')
    .execute();
  // Fan-out is idempotent: an event reaches an endpoint as one message, whatever races happen.
  await db.schema.createIndex('webhook_messages_once').on('webhook_messages').columns(['endpoint_id', 'event_id']).unique().execute();
  await db.schema.createIndex('webhook_messages_due').on('webhook_messages').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('webhook_messages_endpoint').on('webhook_messages').columns(['endpoint_id', 'status']).execute();

  await db.schema
    .createTable('webhook_attempts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull().references('webhook_messages.id'))
    .addColumn('endpoint_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('attempted_at', 'text', (c) => c.notNull())
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    // Null when no response arrived (refused address, connection error, timeout).
    .addColumn('status_code', 'integer')
    .addColumn('success', 'integer', (c) => c.notNull())
    .addColumn('error', 'text')
    // The first KiB of the response body.
    .addColumn('response_body', 'text')
    .execute();
  await db.schema.createIndex('webhook_attempts_once').on('webhook_attempts').columns(['message_id', 'attempt']).unique().execute();
  await db.schema.createIndex('webhook_attempts_endpoint').on('webhook_attempts').columns(['endpoint_id', 'attempted_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const t of ['webhook_attempts', 'webhook_messages', 'webhook_endpoints']) await db.schema.dropTable(t).ifExists().execute();
}
