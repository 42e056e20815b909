// Frozen migration: never import application code here.
// Publishable keys for the booking widget (issue 27; DESIGN.md §14):
// - `kind`: 'secret' (svc_…, the API keys so far) or 'publishable' (pk_live_… / pk_test_…).
// - `allowed_origins`: the web origins a publishable key works from (JSON array; CORS and the
//   widget frame's `frame-ancestors`); null for secret keys.
// - `public_token`: a publishable key itself. It is public by design (it sits in pages' source),
//   so its owner's snippet generator shows it again; secret keys keep only their hash.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('api_keys')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('secret').check(sql`kind in ('secret', 'publishable')`))
    .execute();
  await db.schema.alterTable('api_keys').addColumn('allowed_origins', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('public_token', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['public_token', 'allowed_origins', 'kind']) await db.schema.alterTable('api_keys').dropColumn(column).execute();
}
