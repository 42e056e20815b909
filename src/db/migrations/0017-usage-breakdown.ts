// Frozen migration: never import application code here.
import { sql, type Kysely } from 'kysely';

// Latency buckets: bucket b holds durations in (2^((b-1)/4), 2^(b/4)] ms, b clamped to
// [-16, 64] (0.0625 ms … 65.5 s). Copied here, not imported: the application's definition may
// change, this backfill may not.
const MIN_BUCKET = -16;
const MAX_BUCKET = 64;

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  // The usage page's charts come from daily aggregates, never from a scan of the log (which may
  // hold millions of rows). usage_daily already counts requests, errors (>= 400) and 429s; the
  // outcome split needs 5xx apart from 4xx, and the other charts need errors by code, requests
  // per endpoint and a latency histogram (percentiles cannot be added up; histograms can).
  // All live keyed traffic only, per key and UTC day, added to with each request-log batch.
  await db.schema.alterTable('usage_daily').addColumn('server_errors', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema
    .createTable('usage_daily_errors')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('code', 'text', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_errors_pk', ['key_id', 'day', 'code'])
    .execute();
  await db.schema
    .createTable('usage_daily_routes')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addColumn('errors', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_routes_pk', ['key_id', 'day', 'method', 'route'])
    .execute();
  await db.schema
    .createTable('usage_daily_latency')
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('bucket', 'integer', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_latency_pk', ['key_id', 'day', 'bucket'])
    .execute();

  // Backfill from the log still held (the retention window, which is all the charts show).
  const live = sql`key_id is not null and test = 0`;
  const day = sql`substr(at, 1, 10)`;
  await sql`update usage_daily set server_errors = (
      select count(*) from request_log r
      where r.key_id = usage_daily.key_id and r.test = 0 and r.status >= 500 and substr(r.at, 1, 10) = usage_daily.day)`.execute(db);
  await sql`insert into usage_daily_errors (key_id, day, code, count)
      select key_id, ${day}, coalesce(error_code, ''), count(*) from request_log
      where ${live} and status >= 400 group by key_id, ${day}, coalesce(error_code, '')`.execute(db);
  // An unknown route is logged with its path as the route: one '*' row, not one per path tried.
  const route = sql`case when status = 404 and error_code = 'not_found' and route = path then '*' else route end`;
  await sql`insert into usage_daily_routes (key_id, day, method, route, requests, errors)
      select key_id, ${day}, method, ${route}, count(*), sum(case when status >= 400 then 1 else 0 end) from request_log
      where ${live} group by key_id, ${day}, method, ${route}`.execute(db);
  const whens = [];
  for (let b = MIN_BUCKET; b < MAX_BUCKET; b++) whens.push(sql`when duration_ms <= ${sql.lit(2 ** (b / 4))} then ${sql.lit(b)}`);
  const bucket = sql`case ${sql.join(whens, sql` `)} else ${sql.lit(MAX_BUCKET)} end`;
  await sql`insert into usage_daily_latency (key_id, day, bucket, count)
      select key_id, ${day}, ${bucket}, count(*) from request_log
      where ${live} group by key_id, ${day}, ${bucket}`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage_daily_latency').ifExists().execute();
  await db.schema.dropTable('usage_daily_routes').ifExists().execute();
  await db.schema.dropTable('usage_daily_errors').ifExists().execute();
  await db.schema.alterTable('usage_daily').dropColumn('server_errors').execute();
}
