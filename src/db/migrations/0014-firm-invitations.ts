// Frozen migration: never import application code here.
// Invitations to join a firm: sent by email, accepted by the invited address after sign-in.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // One invitation per row. The link's token is stored only as its SHA-256 (hex); the row is
  // pending while accepted_at and revoked_at are null and expires_at is in the future.
  await db.schema
    .createTable('firm_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('firm_id', 'text', (c) => c.notNull().references('firms.id').onDelete('cascade'))
    // Lower-cased, like users.email: the signed-in address must equal it to accept.
    .addColumn('email', 'text', (c) => c.notNull().check(sql`email = lower(email)`))
    .addColumn('role', 'text', (c) => c.notNull().check(sql`role in ('owner', 'admin', 'member')`))
    // JSON array of permissions granted on joining (members only).
    .addColumn('permissions', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    // Null when the operator invited; set null if that person's account is deleted.
    .addColumn('invited_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    // The language of the email (en or es).
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('accepted_at', 'text')
    .addColumn('accepted_by_user_id', 'text', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revoked_at', 'text')
    .execute();
  // The members page lists a firm's pending invitations; re-inviting looks one up by address.
  await db.schema.createIndex('firm_invitations_firm').on('firm_invitations').columns(['firm_id', 'email', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('firm_invitations').ifExists().execute();
}
