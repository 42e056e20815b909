// Frozen migration: never import application code here.
// Passkeys (WebAuthn credentials), the per-person user handle, and single-use challenges.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // The WebAuthn user handle of a person: random bytes (base64url), never the email, the same for
  // all of their passkeys (an authenticator keeps one passkey per site and handle).
  await db.schema
    .createTable('passkey_user_handles')
    .addColumn('user_id', 'text', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('handle', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();

  // One registered passkey. `id` is ours (in URLs and forms); `credential_id` is the
  // authenticator's (base64url), unique across everyone.
  await db.schema
    .createTable('passkeys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('credential_id', 'text', (c) => c.notNull().unique())
    // The COSE public key, base64url.
    .addColumn('public_key', 'text', (c) => c.notNull())
    // The authenticator's signature counter (a uint32: past int4 in PostgreSQL).
    .addColumn('counter', 'bigint', (c) => c.notNull().defaultTo(0))
    // JSON array of transports ("internal", "hybrid", "usb"…), as the browser reported them.
    .addColumn('transports', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('name', 'text', (c) => c.notNull())
    // "singleDevice" or "multiDevice" (synced), and whether it is backed up now.
    .addColumn('device_type', 'text', (c) => c.notNull())
    .addColumn('backed_up', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('passkeys_user').on('passkeys').columns(['user_id', 'created_at']).execute();

  // A challenge handed to a browser: used once, within 5 minutes. `purpose` is register, sign_in
  // or step_up; registration and step-up are bound to the session that asked (and its person).
  await db.schema
    .createTable('passkey_challenges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('challenge', 'text', (c) => c.notNull().unique())
    .addColumn('purpose', 'text', (c) => c.notNull())
    .addColumn('session_id', 'text')
    .addColumn('user_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('consumed_at', 'text')
    .execute();
  await db.schema.createIndex('passkey_challenges_expiry').on('passkey_challenges').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('passkey_challenges').ifExists().execute();
  await db.schema.dropTable('passkeys').ifExists().execute();
  await db.schema.dropTable('passkey_user_handles').ifExists().execute();
}
