// Frozen migration: never import application code here.
// Operators (the service's own staff) and the passkey step-up mark on sessions.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // Who may use the operator console. Added and removed with `consulta operators add|remove`.
  await db.schema
    .createTable('operators')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('added_at', 'text', (c) => c.notNull())
    .execute();

  // When this session last proved a passkey (sign-in with one, or a step-up): sensitive operator
  // actions need it within the last 10 minutes.
  await db.schema.alterTable('sessions').addColumn('step_up_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sessions').dropColumn('step_up_at').execute();
  await db.schema.dropTable('operators').ifExists().execute();
}
