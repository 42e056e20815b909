// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // The (key_id, at) index serves a key's own requests (the dashboard's request log). Anonymous
  // requests have no key and are never looked up that way, yet every one of them paid for an
  // entry: a third of each request-log row's index writes. Keyed rows only.
  await db.schema.dropIndex('request_log_key_at').execute();
  await db.schema.createIndex('request_log_key_at').on('request_log').columns(['key_id', 'at']).where('key_id', 'is not', null).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('request_log_key_at').execute();
  await db.schema.createIndex('request_log_key_at').on('request_log').columns(['key_id', 'at']).execute();
}
