// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // Every API request, written in batches off the hot path; swept after the retention period.
  await db.schema
    .createTable('request_log')
    .addColumn('request_id', 'text', (c) => c.primaryKey())
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text')
    .addColumn('owner_type', 'text')
    .addColumn('owner_id', 'text')
    .addColumn('test', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('path', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('duration_ms', 'double precision', (c) => c.notNull())
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .execute();
  await db.schema.createIndex('request_log_at').on('request_log').column('at').execute();
  await db.schema.createIndex('request_log_key_at').on('request_log').columns(['key_id', 'at']).execute();

  // Live traffic per key per UTC day (test traffic is excluded), maintained with each batch.
  await db.schema
    .createTable('usage_daily')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addColumn('rate_limited', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_pk', ['key_id', 'day'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_daily').ifExists().execute();
  await db.schema.dropTable('request_log').ifExists().execute();
}
