// Frozen migration: never import application code here.
// The developer dashboard (issue 19, item 9; docs/dashboard.md):
// - request_log.query: the query string of an API request as the client sent it (without the
//   `?`), bounded and with anything shaped like an API key blanked before it is stored; null
//   when there was none. Rows written before this migration have none.
// - users.request_log_seen_at: when the person first opened a request log that showed a request
//   made with one of their keys (the getting-started checklist's "see it in the log").
// Both are nullable columns without a default: on PostgreSQL and SQLite adding one rewrites no
// rows, so this is instant however large the log is.
import type { Kysely } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('request_log').addColumn('query', 'text').execute();
  await db.schema.alterTable('users').addColumn('request_log_seen_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').dropColumn('request_log_seen_at').execute();
  await db.schema.alterTable('request_log').dropColumn('query').execute();
}
