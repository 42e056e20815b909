// Frozen migration: never import application code here.
// The operator's audit log: one row per operator action, written in the action's own transaction.
import { PostgresAdapter, type Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // Ids only grow (AUTOINCREMENT on SQLite, a sequence on PostgreSQL): the log's order is the
  // order of insertion even when two actions share a millisecond. Who acted is copied (user id
  // and email at that time, or `cli`) rather than referenced: the log outlives accounts.
  await db.schema
    .createTable('operator_audit')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('at', 'text', (c) => c.notNull())
    // `user` (a person in the console) or `cli` (the command line at the server).
    .addColumn('actor_type', 'text', (c) => c.notNull())
    .addColumn('actor_user_id', 'text')
    .addColumn('actor_email', 'text')
    // `key.set_tier`, `key.suspend`, `key.unsuspend`, `lawyer.verify`, `lawyer.unverify`,
    // `lawyer.list`, `lawyer.unlist`, `operator.add`, `operator.remove`.
    .addColumn('action', 'text', (c) => c.notNull())
    // `key`, `lawyer` or `user`; the id, and a label readable after the target changes (prefix, name, email).
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('target_label', 'text')
    // JSON object: what changed (old and new tier, the reason, the suspension lifted…).
    .addColumn('details', 'text', (c) => c.notNull().defaultTo('{}'))
    // The X-Request-Id of the console request; null from the command line.
    .addColumn('request_id', 'text')
    .execute();
  // One object's history (the key page shows its own).
  await db.schema.createIndex('operator_audit_target').on('operator_audit').columns(['target_type', 'target_id', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('operator_audit').ifExists().execute();
}
