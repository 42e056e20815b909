/**
 * The retention purges at scale (not a test):
 * `npx tsx bench/retention.ts [--database sqlite|postgres|both] [--rows 1000000] [--batch 1000] [--only a,b]`
 * (`npm run bench:retention`). Results also go to `.bench/retention/results.txt`.
 *
 * For each purge, fills its table(s) with `--rows` rows (default 1,000,000) of which half are past
 * the purge's window (some of those still kept by rule: pending webhook messages, queued mail,
 * unpublished events), runs ANALYZE, then runs the purge as the serving process's job does
 * (RetentionService, bounded batches) and reports rows deleted against the rows expected, batches,
 * total time and the longest single batch (the longest any purge statement held its locks).
 *
 * Meanwhile a probe, on a connection of its own, reads one request-log row by id and writes one
 * new row, over and over: its latency before (baseline) and during the purges shows what serving
 * requests see. On SQLite the probe shares the bench's event loop with the purge, exactly as
 * requests share the serving process's with its jobs: a batch delays them by its own duration.
 *
 * Finally prints the query plan of every statement the purges ran (EXPLAIN QUERY PLAN on SQLite,
 * EXPLAIN on PostgreSQL): each must use an index (migration 0019 adds the missing ones).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { sql, type KyselyPlugin, type RootOperationNode, type QueryResult, type UnknownRow } from 'kysely';
import pg from 'pg';
import { ManualClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { PURGES, RetentionService, type PurgeName, type PurgeResult } from '../src/domain/operations/retention.service.ts';
import { ROOT } from './children.ts';
import { cpuModel } from './proc.ts';

const { values } = parseArgs({
  options: {
    database: { type: 'string', default: 'both' },
    rows: { type: 'string', default: '1000000' },
    batch: { type: 'string', default: '1000' },
    only: { type: 'string' },
    help: { type: 'boolean' },
  },
});
if (values.help) {
  console.log('npx tsx bench/retention.ts [--database sqlite|postgres|both] [--rows 1000000] [--batch 1000] [--only request_log,webhook_messages,…]');
  console.log(`purges: ${PURGES.join(', ')}`);
  process.exit(0);
}
const DATABASES = values.database === 'both' ? (['sqlite', 'postgres'] as const) : ([values.database] as Array<'sqlite' | 'postgres'>);
const ROWS = Number(values.rows);
const BATCH = Number(values.batch);
const ONLY = (values.only?.split(',').map((s) => s.trim()) ?? [...PURGES]) as PurgeName[];
for (const name of ONLY) if (!(PURGES as readonly string[]).includes(name)) throw new Error(`unknown purge ${name}; one of ${PURGES.join(', ')}`);
if (!Number.isInteger(ROWS) || ROWS < 2 || ROWS % 2 !== 0) throw new Error('--rows must be an even number ≥ 2');
const WORK = path.join(ROOT, '.bench', 'retention');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PG_NAME = 'consulta_bench_retention';
const DAY_S = 86_400;

fs.mkdirSync(WORK, { recursive: true });
const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};

/** Every row is placed relative to this instant; the purges run with the clock stopped here. */
const NOW_S = Math.floor(Date.now() / 1000);
const config = loadConfig({ LOG_LEVEL: 'silent' });

// ------------------------------------------------------------------ filling, in SQL

interface Dialect {
  /** `from <series of i = 0 … n-1>` */
  series(n: number): string;
  /** ISO-8601 UTC text (as the service writes) of the unix time `seconds` (an SQL expression). */
  iso(seconds: string): string;
  /** YYYY-MM-DD of the day `days` (SQL expression) after `day`. */
  day(day: string, days: string): string;
}

const SQLITE: Dialect = {
  series: (n) => `(with recursive s(i) as (select 0 union all select i + 1 from s where i < ${n - 1}) select i from s) as s`,
  iso: (seconds) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`,
  day: (day, days) => `date('${day}', (${days}) || ' days')`,
};
const POSTGRES: Dialect = {
  series: (n) => `generate_series(0, ${n - 1}) as s(i)`,
  iso: (seconds) => `to_char(to_timestamp(${seconds}) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  day: (day, days) => `to_char(date '${day}' + (${days})::int, 'YYYY-MM-DD')`,
};

interface Fill {
  /** Which purge empties these tables. */
  purge: PurgeName;
  /** Rows the purge should delete (the rest are kept by rule or are inside the window). */
  expected: number;
  /** Tables and their row counts, for the report. */
  tables: string[];
  statements(d: Dialect, n: number): string[];
}

/** Row i's time: the purge's cutoff + (i − n/2) seconds: rows 0 … n/2−1 are past it. */
const around = (d: Dialect, cutoffS: number, n: number) => d.iso(`${cutoffS} + (i - ${n / 2})`);
const nowIso = new Date(NOW_S * 1000).toISOString();

const FILLS: Fill[] = [
  {
    purge: 'request_log',
    expected: ROWS / 2,
    tables: ['request_log'],
    statements: (d, n) => [
      `insert into request_log (request_id, at, key_id, owner_type, owner_id, test, method, route, path, status, duration_ms, client_ip, error_code)
       select 'req_' || i, ${around(d, NOW_S - config.requestLogRetentionDays * DAY_S, n)}, null, null, null, 0, 'GET', '/api/v1/lawyers', '/api/v1/lawyers', 200, 1.5, '127.0.0.1', null from ${d.series(n)}`,
    ],
  },
  {
    purge: 'lawyer_changes',
    expected: ROWS / 2,
    tables: ['lawyer_changes'],
    statements: (d, n) => [`insert into lawyer_changes (lawyer_id, changed_at) select 'lw_' || (i % 100), ${around(d, NOW_S - 3600, n)} from ${d.series(n)}`],
  },
  {
    purge: 'idempotency_keys',
    expected: ROWS / 2,
    tables: ['idempotency_keys'],
    statements: (d, n) => [
      `insert into idempotency_keys (scope, key, fingerprint, state, locked_until, response_status, response_body, response_headers, created_at)
       select 'key:k' || (i % 1000), 'idem_' || i, 'f', 'completed', null, 201, '{"booking_intent_id":"bi"}', '{}', ${around(d, NOW_S - DAY_S, n)} from ${d.series(n)}`,
    ],
  },
  {
    purge: 'mail_outbox',
    // One in 20 is still queued: kept however old.
    expected: ROWS / 2 - ROWS / 2 / 20,
    tables: ['mail_outbox'],
    statements: (d, n) => [
      `insert into mail_outbox (id, kind, recipient, subject, text, html, attachments, sensitive, status, attempts, next_attempt_at, locked_until, claim_token, last_error, created_at, sent_at, erased_at)
       select 'mail_' || i, 'test', 'someone@example.com', 'Subject', 'Body of the mail', null, '[]', 0, case when i % 20 = 0 then 'queued' else 'sent' end, 1, null, null, null, null,
              ${around(d, NOW_S - config.mailRetentionDays * DAY_S, n)}, null, null from ${d.series(n)}`,
    ],
  },
  {
    purge: 'webhook_messages',
    // One in 10 is still pending: kept however old. Each message has one attempt (deleted with it).
    expected: ROWS / 2 - ROWS / 2 / 10,
    tables: ['webhook_messages', 'webhook_attempts'],
    statements: (d, n) => {
      const t = around(d, NOW_S - config.webhookRetentionDays * DAY_S, n);
      return [
        `insert into webhook_endpoints (id, owner_type, owner_id, url, event_types, secret, previous_secret, previous_secret_expires_at, disabled_at, disabled_cause, disabled_reason, consecutive_failures, created_by_user_id, created_at, updated_at)
         values ('ep_bench', 'user', 'usr_bench', 'https://hooks.example.com/bench', null, 'whsec_bench', null, null, null, null, null, 0, null, '${nowIso}', '${nowIso}')`,
        `insert into webhook_messages (id, endpoint_id, event_id, event_type, payload, status, attempts, next_attempt_at, locked_until, claim_token, created_at, last_attempt_at, delivered_at)
         select 'msg_' || i, 'ep_bench', 'evt_' || i, 'booking_intent.confirmed', '{"type":"booking_intent.confirmed"}',
                case when i % 10 = 0 then 'pending' when i % 2 = 0 then 'delivered' else 'dead' end, 1, null, null, null, ${t}, ${t}, null from ${d.series(n)}`,
        `insert into webhook_attempts (id, message_id, endpoint_id, attempt, attempted_at, duration_ms, status_code, success, error, response_body)
         select 'att_' || i, 'msg_' || i, 'ep_bench', 1, ${t}, 12, 200, 1, null, 'ok' from ${d.series(n)}`,
      ];
    },
  },
  {
    purge: 'outbox_events',
    // One in 10 not yet fanned out: kept however old.
    expected: ROWS / 2 - ROWS / 2 / 10,
    tables: ['outbox_events'],
    statements: (d, n) => {
      const t = around(d, NOW_S - config.webhookRetentionDays * DAY_S, n);
      return [
        `insert into outbox_events (id, type, booking_intent_id, key_id, owner_type, owner_id, data, created_at, published_at)
         select 'evt_' || i, 'booking_intent.confirmed', 'bi_' || i, 'k', 'user', 'usr_bench', '{}', ${t}, case when i % 10 = 0 then null else ${t} end from ${d.series(n)}`,
      ];
    },
  },
  {
    purge: 'usage_daily',
    // A quarter of the rows in each of the four aggregates; 1,000 keys a day, half the days past the window.
    expected: ROWS / 2,
    tables: ['usage_daily', 'usage_daily_errors', 'usage_daily_routes', 'usage_daily_latency'],
    statements: (d, n) => {
      const quarter = n / 4;
      const days = Math.floor(quarter / 1000);
      const cutoffDay = new Date((NOW_S - (config.usageRetentionDays - 1) * DAY_S) * 1000).toISOString().slice(0, 10);
      const day = d.day(cutoffDay, `(i / 1000) - ${Math.floor(days / 2)}`);
      const key = `'key_' || (i % 1000)`;
      return [
        `insert into usage_daily (key_id, day, requests, errors, rate_limited, server_errors) select ${key}, ${day}, 100, 3, 1, 0 from ${d.series(quarter)}`,
        `insert into usage_daily_errors (key_id, day, code, count) select ${key}, ${day}, 'not_found', 3 from ${d.series(quarter)}`,
        `insert into usage_daily_routes (key_id, day, method, route, requests, errors) select ${key}, ${day}, 'GET', '/api/v1/lawyers', 100, 3 from ${d.series(quarter)}`,
        `insert into usage_daily_latency (key_id, day, bucket, count) select ${key}, ${day}, 8, 100 from ${d.series(quarter)}`,
      ];
    },
  },
  {
    purge: 'sessions',
    expected: ROWS / 2,
    tables: ['sessions'],
    statements: (d, n) => [
      `insert into users (id, email, name, created_at, locale) values ('usr_bench', 'bench@example.com', null, '${nowIso}', 'en')`,
      `insert into sessions (id, token_hash, user_id, created_at, last_seen_at, expires_at, revoked_at, client_ip, user_agent, step_up_at)
       select 'ses_' || i, 'th_' || i, 'usr_bench', '${nowIso}', '${nowIso}', ${around(d, NOW_S - DAY_S, n)}, null, '127.0.0.1', 'bench', null from ${d.series(n)}`,
    ],
  },
  {
    purge: 'passkey_challenges',
    expected: ROWS / 2,
    tables: ['passkey_challenges'],
    statements: (d, n) => [
      `insert into passkey_challenges (id, challenge, purpose, session_id, user_id, created_at, expires_at, consumed_at)
       select 'pkc_' || i, 'challenge_' || i, 'sign_in', null, null, '${nowIso}', ${around(d, NOW_S - 3600, n)}, null from ${d.series(n)}`,
    ],
  },
  {
    purge: 'oauth_records',
    expected: ROWS / 2,
    tables: ['oauth_records'],
    statements: (d, n) => [
      `insert into oauth_records (model, id, payload, grant_id, account_id, client_id, uid, expires_at, consumed_at, last_used_at, created_at)
       select 'AccessToken', 'tok_' || i, '{}', null, null, null, null, ${around(d, NOW_S, n)}, null, null, '${nowIso}' from ${d.series(n)}`,
    ],
  },
  {
    purge: 'firm_invitations',
    expected: ROWS / 2,
    tables: ['firm_invitations'],
    statements: (d, n) => [
      `insert into firms (id, slug, name, created_at) values ('firm_bench', 'bench-firm', 'Bench firm', '${nowIso}')`,
      `insert into firm_invitations (id, firm_id, email, role, permissions, token_hash, invited_by_user_id, locale, created_at, expires_at, accepted_at, accepted_by_user_id, revoked_at)
       select 'inv_' || i, 'firm_bench', 'invitee' || i || '@example.com', 'member', '[]', 'tok_' || i, null, 'en', '${nowIso}', ${around(d, NOW_S - 30 * DAY_S, n)}, null, null, null from ${d.series(n)}`,
    ],
  },
];

// ------------------------------------------------------------------ databases

async function freshDatabase(kind: 'sqlite' | 'postgres'): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const file = path.join(WORK, 'retention.db');
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
    // 2-3 GB at a million rows per purge: not kept.
    return { url: `sqlite:${file}`, drop: async () => ['', '-wal', '-shm'].forEach((suffix) => fs.rmSync(file + suffix, { force: true })) };
  }
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${PG_NAME} with (force)`);
    await admin.query(`create database ${PG_NAME}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN);
  url.pathname = `/${PG_NAME}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_ADMIN });
      await c.connect();
      try {
        await c.query(`drop database if exists ${PG_NAME} with (force)`);
      } finally {
        await c.end();
      }
    },
  };
}

const count = async (database: Database, table: string) => Number((await sql<{ n: number }>`select count(*) as n from ${sql.table(table)}`.execute(database.db)).rows[0]!.n);

// ------------------------------------------------------------------ the probe

interface Samples {
  read: number[];
  write: number[];
}

let probeWrites = 0;

/** Reads one request-log row by id and writes one new row, in a closed loop, until stopped. */
function startProbe(database: Database): { stop(): Promise<Samples> } {
  const samples: Samples = { read: [], write: [] };
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const id = `req_${Math.floor(Math.random() * ROWS)}`;
      let t0 = performance.now();
      await database.db.selectFrom('request_log').select(['request_id', 'status']).where('request_id', '=', id).executeTakeFirst();
      samples.read.push(performance.now() - t0);
      t0 = performance.now();
      await database.db
        .insertInto('request_log')
        .values({ request_id: `probe_${process.pid}_${probeWrites++}`, at: new Date().toISOString(), key_id: null, owner_type: null, owner_id: null, test: 0, method: 'GET', route: '/probe', path: '/probe', status: 200, duration_ms: 1, client_ip: '127.0.0.1', error_code: null })
        .execute();
      samples.write.push(performance.now() - t0);
      // A request every few ms, not a flood: the probe measures, it does not compete.
      await new Promise((r) => setTimeout(r, 2));
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      return samples;
    },
  };
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
};
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v.toFixed(2));
const probeRow = (label: string, s: Samples) =>
  `| ${label} | ${s.read.length} | ${ms(pct(s.read, 0.5))} | ${ms(pct(s.read, 0.99))} | ${ms(Math.max(...s.read))} | ${ms(pct(s.write, 0.5))} | ${ms(pct(s.write, 0.99))} | ${ms(Math.max(...s.write))} |`;

// ------------------------------------------------------------------ plans

/** Records the SQL of every statement run through it (the first parameters of each). */
function capturing(database: Database): { db: Database['db']; statements: Map<string, readonly unknown[]> } {
  const statements = new Map<string, readonly unknown[]>();
  const plugin: KyselyPlugin = {
    transformQuery(args): RootOperationNode {
      const compiled = database.db.getExecutor().compileQuery(args.node, args.queryId);
      if (!statements.has(compiled.sql)) statements.set(compiled.sql, compiled.parameters);
      return args.node;
    },
    transformResult(args): Promise<QueryResult<UnknownRow>> {
      return Promise.resolve(args.result);
    },
  };
  return { db: database.db.withPlugin(plugin), statements };
}

function inline(text: string, parameters: readonly unknown[], dialect: string): string {
  const lit = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  let next = 0;
  return dialect === 'sqlite' ? text.replace(/\?/g, () => lit(parameters[next++])) : text.replace(/\$(\d+)/g, (_, n: string) => lit(parameters[Number(n) - 1]));
}

async function plan(database: Database, text: string, parameters: readonly unknown[]): Promise<string> {
  const prefix = database.dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
  const rows = (await sql.raw(prefix + inline(text, parameters, database.dialect)).execute(database.db)).rows as Array<Record<string, unknown>>;
  return rows.map((r) => String(r.detail ?? r['QUERY PLAN'] ?? JSON.stringify(r)).trim()).join(' | ');
}

// ------------------------------------------------------------------ run

async function run(kind: 'sqlite' | 'postgres'): Promise<void> {
  say(`\n## ${kind}: ${ROWS.toLocaleString('en')} rows per purge, batches of ${BATCH}`);
  const target = await freshDatabase(kind);
  const database = openDatabase(target.url, { poolSize: 4 });
  const probeDb = openDatabase(target.url, { poolSize: 2 });
  try {
    await migrateToLatest(database);
    const d = kind === 'sqlite' ? SQLITE : POSTGRES;
    const fills = FILLS.filter((f) => ONLY.includes(f.purge));
    const t0 = performance.now();
    for (const f of fills) {
      for (const statement of f.statements(d, ROWS)) await sql.raw(statement).execute(database.db);
      process.stdout.write(`  filled ${f.tables.join(', ')}\n`);
    }
    // The probe reads request-log rows by id: there must be some even when that purge is not run.
    if (!ONLY.includes('request_log')) {
      await sql.raw(FILLS[0]!.statements(d, Math.min(ROWS, 100_000))[0]!).execute(database.db);
    }
    await database.analyze();
    say(`\n  filled in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const before = new Map<string, number>();
    for (const f of fills) for (const t of f.tables) before.set(t, await count(database, t));

    // Baseline: the probe alone.
    let probe = startProbe(probeDb);
    await new Promise((r) => setTimeout(r, 3000));
    const baseline = await probe.stop();

    const capture = capturing(database);
    const retention = new RetentionService({ database: { ...database, db: capture.db }, clock: new ManualClock(NOW_S * 1000), config });
    probe = startProbe(probeDb);
    const started = performance.now();
    const { results, failed } = await retention.run({ only: ONLY, batchSize: BATCH });
    const wall = performance.now() - started;
    const during = await probe.stop();
    for (const f of failed) say(`  FAILED ${f.name}: ${(f.error as Error).message}`);

    say('');
    say('| purge | rows before | deleted | expected | batches | total s | longest batch ms | rows/s |');
    say('|---|---:|---:|---:|---:|---:|---:|---:|');
    const byName = new Map<string, PurgeResult>(results.map((r) => [r.name, r]));
    for (const f of fills) {
      const r = byName.get(f.purge);
      if (!r) continue;
      const rows = f.tables.map((t) => before.get(t) ?? 0).reduce((a, b) => a + b, 0);
      say(`| ${f.purge} (${f.tables.join(' + ')}) | ${rows.toLocaleString('en')} | ${r.deleted.toLocaleString('en')} | ${f.expected.toLocaleString('en')}${r.deleted === f.expected ? '' : ' ≠'} | ${r.batches} | ${(r.totalMs / 1000).toFixed(2)} | ${ms(r.longestBatchMs)} | ${Math.round(r.deleted / (r.totalMs / 1000)).toLocaleString('en')} |`);
    }
    say(`\n  all purges: ${(wall / 1000).toFixed(1)} s`);
    say('');
    say('| probe (own connection) | samples | read p50 ms | read p99 ms | read max ms | write p50 ms | write p99 ms | write max ms |');
    say('|---|---:|---:|---:|---:|---:|---:|---:|');
    say(probeRow('before the purges (3 s)', baseline));
    say(probeRow('during the purges', during));

    say('\n  query plans of the purge statements:');
    for (const [text, parameters] of capture.statements) {
      if (!/^\s*(delete|select)/i.test(text)) continue;
      say(`  - ${text.replace(/\s+/g, ' ').slice(0, 160)}${text.length > 160 ? '…' : ''}`);
      say(`      ${(await plan(database, text, parameters)).replace(/'\{[^}]*\}'/g, "'{…}'").slice(0, 600)}`);
    }
  } finally {
    await probeDb.close();
    await database.close();
    await target.drop();
  }
}

say(`# retention purges, ${new Date().toISOString()}, ${cpuModel()}`);
for (const kind of DATABASES) await run(kind);
fs.writeFileSync(path.join(WORK, 'results.txt'), `${lines.join('\n')}\n`);
