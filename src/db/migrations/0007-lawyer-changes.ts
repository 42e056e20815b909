// Frozen migration: never import application code here.
import { PostgresAdapter, type Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  // A feed of per-lawyer changes that are not directory writes (a slot held, a booking counted):
  // every serving process reads it to drop what it cached for those lawyers. Ids only grow
  // (AUTOINCREMENT on SQLite, a sequence on PostgreSQL); rows are swept after an hour.
  await db.schema
    .createTable('lawyer_changes')
    .addColumn('id', postgres ? 'bigserial' : 'integer', (c) => (postgres ? c.primaryKey() : c.primaryKey().autoIncrement()))
    .addColumn('lawyer_id', 'text', (c) => c.notNull())
    .addColumn('changed_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('lawyer_changes_at').on('lawyer_changes').column('changed_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lawyer_changes').ifExists().execute();
}
