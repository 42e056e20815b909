// Frozen migration: never import application code here.
// Sign-in challenges and sessions (the site).
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // The language a person last used on the site: emails to them are written in it.
  await db.schema.alterTable('users').addColumn('locale', 'text').execute();

  // One email sign-in: a 6-digit code and a link, both stored only as hashes. The link completes
  // only in the browser that asked (it holds the secret whose hash is browser_hash).
  await db.schema
    .createTable('sign_in_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('code_hash', 'text', (c) => c.notNull())
    .addColumn('link_hash', 'text', (c) => c.notNull().unique())
    .addColumn('browser_hash', 'text', (c) => c.notNull())
    .addColumn('return_to', 'text')
    .addColumn('locale', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('client_ip', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // Set once, by whichever of code or link completed it; a used challenge never works again.
    .addColumn('consumed_at', 'text')
    .execute();
  await db.schema.createIndex('sign_in_challenges_expiry').on('sign_in_challenges').column('expires_at').execute();

  // A signed-in browser. Only the SHA-256 of the cookie's token is stored.
  await db.schema
    .createTable('sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    // Absolute end; the idle end is last_seen_at + the idle timeout (a setting).
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('client_ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').columns(['user_id', 'created_at']).execute();
  await db.schema.createIndex('sessions_expiry').on('sessions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sessions').ifExists().execute();
  await db.schema.dropTable('sign_in_challenges').ifExists().execute();
  await db.schema.alterTable('users').dropColumn('locale').execute();
}
