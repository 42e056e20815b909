// Frozen migration: never import application code here.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // The dashboard's request log: one owner's (a person's or a firm's) keyed requests, newest
  // first, a page at a time. Keyed rows only, like request_log_key_at.
  await db.schema
    .createIndex('request_log_owner_at')
    .on('request_log')
    .columns(['owner_type', 'owner_id', 'at', 'request_id'])
    .where('owner_id', 'is not', null)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('request_log_owner_at').execute();
}
