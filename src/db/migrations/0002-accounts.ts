// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // One account per address whatever its casing: the service lower-cases, the CHECK makes sure.
  await db.schema
    .createTable('users')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique().check(sql`email = lower(email)`))
    .addColumn('name', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('firms')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('firm_memberships')
    .addColumn('firm_id', 'text', (c) => c.notNull().references('firms.id').onDelete('cascade'))
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('firm_memberships_pk', ['firm_id', 'user_id'])
    .execute();
  await db.schema.createIndex('firm_memberships_user').on('firm_memberships').columns(['user_id', 'firm_id']).execute();

  // No CHECK on tier: tiers are a product decision that may grow, and SQLite cannot alter a CHECK
  // without rebuilding the table. Mode and suspension party are fixed by the contract.
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('name', 'text')
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('live', 'test')`))
    .addColumn('tier', 'text', (c) => c.notNull())
    .addColumn('scopes', 'text', (c) => c.notNull())
    .addColumn('owner_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('owner_firm_id', 'text', (c) => c.references('firms.id'))
    .addColumn('created_by_user_id', 'text', (c) => c.references('users.id'))
    .addColumn('expires_at', 'text')
    .addColumn('revoked_at', 'text')
    .addColumn('suspended_by', 'text', (c) => c.check(sql`suspended_by in ('firm', 'operator')`))
    .addColumn('suspension_reason', 'text')
    .addColumn('suspended_at', 'text')
    .addColumn('allowed_ips', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    // A key belongs to a user or to a firm, never both, never neither.
    .addCheckConstraint('api_keys_one_owner', sql`(owner_user_id is null) <> (owner_firm_id is null)`)
    // A suspension is whole: who, why and when are set and cleared together.
    .addCheckConstraint(
      'api_keys_suspension_whole',
      sql`(suspended_by is null and suspended_at is null and suspension_reason is null) or (suspended_by is not null and suspended_at is not null and suspension_reason is not null)`,
    )
    .execute();
  await db.schema.createIndex('api_keys_owner_user').on('api_keys').columns(['owner_user_id', 'created_at']).execute();
  await db.schema.createIndex('api_keys_owner_firm').on('api_keys').columns(['owner_firm_id', 'created_at']).execute();
  await db.schema.createIndex('api_keys_created_by').on('api_keys').columns(['created_by_user_id']).execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('firm_id', 'text', (c) => c.references('firms.id').onDelete('cascade'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('emailed_at', 'text')
    .execute();
  await db.schema.createIndex('notifications_user_recent').on('notifications').columns(['user_id', 'created_at desc']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['notifications', 'api_keys', 'firm_memberships', 'firms', 'users']) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
