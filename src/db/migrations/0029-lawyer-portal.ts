// Frozen migration: never import application code here.
// The lawyer's portal (issue 18 item 3; docs/lawyers.md#the-portal):
// - `lawyer_bios`: her bio per language (es, en …), one row per language she wrote. The existing
//   `lawyers.bio` stays the default one — what the API and MCP show (fenced) — and the portal
//   keeps it equal to her Spanish bio, or her English one when she wrote no Spanish one.
// - `lawyer_photos`: her photo, one per lawyer, stored in the database (no file system to back up
//   or share between processes): the bytes as base64 text (the same column type on SQLite and
//   PostgreSQL), its media type (JPEG, PNG or WebP only) and a content hash that names its URL,
//   so the URL can be cached for ever and changes when the photo does.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lawyer_bios')
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    // ISO 639-1 code.
    .addColumn('language', 'text', (c) => c.notNull())
    .addColumn('bio', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('lawyer_bios_pk', ['lawyer_id', 'language'])
    .execute();

  await db.schema
    .createTable('lawyer_photos')
    .addColumn('lawyer_id', 'text', (c) => c.primaryKey().references('lawyers.id').onDelete('cascade'))
    .addColumn('content_type', 'text', (c) => c.notNull().check(sql`content_type in ('image/jpeg', 'image/png', 'image/webp')`))
    // SHA-256 of the bytes, hex: the photo's URL carries it (cache for ever, new photo, new URL).
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('byte_size', 'integer', (c) => c.notNull())
    .addColumn('data_base64', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('lawyer_photos').ifExists().execute();
  await db.schema.dropTable('lawyer_bios').ifExists().execute();
}
