// Frozen migration: never import application code here.
// Indexes for the retention purges: each purge finds what is past its window through an index,
// a bounded batch at a time, never by scanning the table. IF NOT EXISTS: on a large PostgreSQL
// database an operator may build them beforehand with CREATE INDEX CONCURRENTLY under the same
// names (docs/operations.md), and this migration then only records itself.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // Delivered and dead messages, by when their last attempt ended (their final outcome).
  await db.schema.createIndex('webhook_messages_settled').ifNotExists().on('webhook_messages').columns(['status', 'last_attempt_at']).execute();
  // The usage aggregates are keyed by (key_id, day, …): the day alone needs its own index.
  for (const table of ['usage_daily', 'usage_daily_errors', 'usage_daily_routes', 'usage_daily_latency']) {
    await db.schema.createIndex(`${table}_day`).ifNotExists().on(table).column('day').execute();
  }
  await db.schema.createIndex('firm_invitations_expiry').ifNotExists().on('firm_invitations').column('expires_at').execute();
  // Ended sessions are found by any of three ends: absolute (sessions_expiry), revoked, or idle.
  await db.schema.createIndex('sessions_revoked').ifNotExists().on('sessions').column('revoked_at').where('revoked_at', 'is not', null).execute();
  await db.schema.createIndex('sessions_last_seen').ifNotExists().on('sessions').column('last_seen_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const name of ['sessions_last_seen', 'sessions_revoked', 'firm_invitations_expiry', 'usage_daily_latency_day', 'usage_daily_routes_day', 'usage_daily_errors_day', 'usage_daily_day', 'webhook_messages_settled']) {
    await db.schema.dropIndex(name).execute();
  }
}
