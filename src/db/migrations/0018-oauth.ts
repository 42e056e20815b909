// Frozen migration: never import application code here.
// The OAuth authorization server's storage (one table for every oidc-provider model), the names
// of the clients people consented to, and holds made by AI agents for a signed-in person.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // One row per stored oidc-provider object: `model` is its kind (AccessToken, RefreshToken,
  // AuthorizationCode, Grant, Session, Interaction, Client…). For models whose id is a bearer
  // secret the id is stored as its SHA-256 (base64url) and the payload without it, so a copy of
  // the database signs nobody in. `payload` is the model's JSON.
  await db.schema
    .createTable('oauth_records')
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    // The person (users.id) a Grant or token belongs to, and its client: connected apps are listed by them.
    .addColumn('account_id', 'text')
    .addColumn('client_id', 'text')
    // Session uid (hashed like the id).
    .addColumn('uid', 'text')
    .addColumn('expires_at', 'text')
    .addColumn('consumed_at', 'text')
    // Grants only: when a token of this grant was last accepted (at most once a minute).
    .addColumn('last_used_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('oauth_records_pk', ['model', 'id'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').columns(['model', 'uid']).execute();
  await db.schema.createIndex('oauth_records_account').on('oauth_records').columns(['account_id', 'model']).execute();
  await db.schema.createIndex('oauth_records_expiry').on('oauth_records').column('expires_at').execute();

  // What a person saw on the consent page about a client: its name and redirect host, and
  // whether it was registered (DCR) or described by a Client ID Metadata Document. Connected
  // apps show it; Client ID Metadata Documents are not stored anywhere else.
  await db.schema
    .createTable('oauth_client_profiles')
    .addColumn('client_id', 'text', (c) => c.primaryKey())
    .addColumn('client_name', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('redirect_host', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  // Holds made over MCP belong to the person who connected the agent: only they may confirm.
  await db.schema.alterTable('booking_intents').addColumn('held_for_user_id', 'text').execute();
  await db.schema.alterTable('booking_intents').addColumn('oauth_client_id', 'text').execute();
  await db.schema.createIndex('booking_intents_held_for').on('booking_intents').columns(['held_for_user_id', 'status', 'expires_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('booking_intents_held_for').ifExists().execute();
  await db.schema.alterTable('booking_intents').dropColumn('oauth_client_id').execute();
  await db.schema.alterTable('booking_intents').dropColumn('held_for_user_id').execute();
  await db.schema.dropTable('oauth_client_profiles').ifExists().execute();
  await db.schema.dropTable('oauth_records').ifExists().execute();
}
