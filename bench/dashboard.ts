/**
 * The dashboard's request-log and usage pages over a large log (not a test):
 * `npx tsx bench/dashboard.ts [--database sqlite|postgres|both] [--rows N] [--samples N] [--duration S] [--reseed]`
 * (`npm run bench:dashboard`). Results also go to `.bench/dashboard/results.txt`.
 *
 * Seeds N request-log rows (default 1,000,000) over the last 30 days through the request log's
 * own writer (so the daily aggregates are what the service would have written): 30 % anonymous,
 * 25 % one signed-in owner's two keys (a tenth of those with the test key), the rest spread over
 * 300 other owners. Then serves them with `consulta serve` and measures, for each page:
 *
 * - server time: `duration_ms` of the service's own log line for each request (Fastify's
 *   elapsed time from the request arriving to the response sent), over `--samples` sequential
 *   requests after a warm-up: p50 and p95. The targets (issue 11) are on this figure;
 * - throughput under load (autocannon, 4 connections) against a raw `node:http` server
 *   answering the same bytes, measured app, raw, raw, app in the same run (docs/performance.md).
 *
 * It also prints the query plans of the request-log and usage queries (EXPLAIN QUERY PLAN on
 * SQLite, EXPLAIN on PostgreSQL). Figures are ratios within one run; absolute numbers on a
 * shared 2-core machine are noise.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../src/clock.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { listUsageDaily, listUsageLatency, openRequestLogWriter, ownerRequestsQuery } from '../src/db/repositories/request-log.repository.ts';
import type { RequestLogTable } from '../src/db/schema.ts';
import { REQUEST_LOG_PAGE, REQUEST_LOG_SCAN } from '../src/domain/access/request-history.service.ts';
import { SessionService } from '../src/domain/identity/session.service.ts';
import { siteCookies } from '../src/site/plugin.ts';
import { serializeCapture, type Capture } from './capture.ts';
import { freePort, ROOT, runToCompletion, spawnServer, type Child } from './children.ts';
import { combine, measure, type Measurement } from './load.ts';
import { cpuModel } from './proc.ts';

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
};
if (args.includes('--help')) {
  console.log('npx tsx bench/dashboard.ts [--database sqlite|postgres|both] [--rows 1000000] [--samples 300] [--duration 4] [--reseed]');
  process.exit(0);
}
const DATABASES = option('database', 'both') === 'both' ? (['sqlite', 'postgres'] as const) : ([option('database', 'both')] as Array<'sqlite' | 'postgres'>);
const ROWS = Number(option('rows', '1000000'));
const SAMPLES = Number(option('samples', '300'));
const DURATION = Number(option('duration', '4'));
const RESEED = args.includes('--reseed');
const WORK = path.join(ROOT, '.bench', 'dashboard');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const OWNER_EMAIL = 'bench-dashboard@example.com';
const OTHER_OWNERS = 300;
const DAY_MS = 86_400_000;

fs.mkdirSync(WORK, { recursive: true });
const lines: string[] = [];
const say = (line = '') => {
  lines.push(line);
  console.log(line);
};

/** A small deterministic generator, so every seeding gives the same log. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ROUTES: Array<{ weight: number; method: string; route: string; path: (r: () => number) => string }> = [
  { weight: 40, method: 'GET', route: '/api/v1/lawyers/search', path: () => '/api/v1/lawyers/search' },
  { weight: 20, method: 'GET', route: '/api/v1/lawyers/:lawyerId', path: (r) => `/api/v1/lawyers/${lawyerId(r)}` },
  { weight: 15, method: 'GET', route: '/api/v1/lawyers/:lawyerId/availability', path: (r) => `/api/v1/lawyers/${lawyerId(r)}/availability` },
  { weight: 8, method: 'GET', route: '/api/v1/lawyers/:lawyerId/reviews', path: (r) => `/api/v1/lawyers/${lawyerId(r)}/reviews` },
  { weight: 5, method: 'POST', route: '/api/v1/bookings/initiate', path: () => '/api/v1/bookings/initiate' },
  { weight: 5, method: 'GET', route: '/api/v1/booking-intents/:intentId', path: (r) => `/api/v1/booking-intents/${lawyerId(r)}` },
  { weight: 3, method: 'GET', route: '/api/v1/practice-areas', path: () => '/api/v1/practice-areas' },
  { weight: 3, method: 'GET', route: '/api/v1/cities', path: () => '/api/v1/cities' },
  { weight: 1, method: 'GET', route: '/api/v1/usage', path: () => '/api/v1/usage' },
];
const ROUTE_TOTAL = ROUTES.reduce((s, r) => s + r.weight, 0);
const lawyerId = (r: () => number) => `00000000-0000-4000-8000-${String(Math.floor(r() * 5000)).padStart(12, '0')}`;

interface Owner {
  userId: string;
  liveKeyId: string;
  testKeyId: string;
}

/** One log row at `atMs`, drawn from the mix described above. */
function makeRow(r: () => number, atMs: number, i: number, owner: Owner): RequestLogTable {
  const who = r();
  let key: { id: string; ownerId: string; test: number } | null = null;
  if (who >= 0.3 && who < 0.55) key = r() < 0.1 ? { id: owner.testKeyId, ownerId: owner.userId, test: 1 } : { id: owner.liveKeyId, ownerId: owner.userId, test: 0 };
  else if (who >= 0.55) {
    const n = Math.floor(r() * OTHER_OWNERS);
    key = { id: `key_bench_${n}`, ownerId: `usr_bench_${n}`, test: 0 };
  }
  let pick = r() * ROUTE_TOTAL;
  const route = ROUTES.find((x) => (pick -= x.weight) < 0) ?? ROUTES[0]!;
  const s = r();
  const [status, code] = s < 0.887 ? [route.method === 'POST' ? 201 : 200, null] : s < 0.967 ? (r() < 0.6 ? [404, 'not_found'] : [400, 'invalid_request']) : s < 0.997 ? [429, 'rate_limited'] : [503, 'service_unavailable'];
  const duration = r() < 0.01 ? 20 + r() * 200 : 0.2 + -Math.log(1 - r()) * 1.5;
  const rand = Math.floor(r() * 2 ** 32).toString(16).padStart(8, '0');
  return {
    request_id: `req_${atMs.toString(16).padStart(12, '0')}${i.toString(16).padStart(12, '0')}${rand}`,
    at: new Date(atMs).toISOString(),
    key_id: key?.id ?? null,
    owner_type: key ? 'user' : null,
    owner_id: key?.ownerId ?? null,
    test: key?.test ?? 0,
    method: route.method,
    route: route.route,
    path: route.path(r),
    status,
    duration_ms: Math.round(duration * 100) / 100,
    client_ip: `203.0.113.${i % 250}`,
    error_code: code,
  };
}

async function createKey(databaseUrl: string, test: boolean): Promise<{ id: string; owner: { id: string } }> {
  const out = await runToCompletion(['bin/consulta.js', 'keys', 'create', '--owner', OWNER_EMAIL, '--tier', 'partner', ...(test ? ['--test'] : []), '--json'], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, 60_000);
  return JSON.parse(out.trim().split('\n').at(-1)!) as { id: string; owner: { id: string } };
}

/** Migrates, creates the owner's keys and writes the log through the request log's writer. */
async function seed(databaseUrl: string): Promise<Owner> {
  const database = openDatabase(databaseUrl);
  await migrateToLatest(database);
  await database.close();
  const live = await createKey(databaseUrl, false);
  const test = await createKey(databaseUrl, true);
  const owner: Owner = { userId: live.owner.id, liveKeyId: live.id, testKeyId: test.id };
  const db = openDatabase(databaseUrl);
  const writer = openRequestLogWriter(db);
  const r = prng(11);
  // The last 30 days less an hour, oldest first (ids begin with the time, as the service's do).
  const end = Date.now();
  const span = 30 * DAY_MS - 3_600_000;
  const t0 = performance.now();
  const BATCH = 20_000;
  for (let i = 0; i < ROWS; i += BATCH) {
    const batch: RequestLogTable[] = [];
    for (let j = i; j < Math.min(ROWS, i + BATCH); j++) batch.push(makeRow(r, Math.floor(end - span + (j * span) / ROWS), j, owner));
    await writer.write(batch);
    if ((i / BATCH) % 10 === 0) process.stdout.write(`\r  seeded ${(i + batch.length).toLocaleString('en')} rows`);
  }
  await writer.close();
  if (db.dialect === 'postgres') await sql`analyze`.execute(db.db);
  await db.close();
  say(`\n  seeded ${ROWS.toLocaleString('en')} rows in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return owner;
}

async function sqliteDatabase(): Promise<{ url: string; owner: Owner }> {
  const file = path.join(WORK, `log-${ROWS}.db`);
  const note = `${file}.json`;
  const migrations = fs.readdirSync(path.join(ROOT, 'src', 'db', 'migrations')).sort().join(',');
  const url = `sqlite:${file}`;
  if (!RESEED && fs.existsSync(file) && fs.existsSync(note)) {
    const meta = JSON.parse(fs.readFileSync(note, 'utf8')) as { owner: Owner; seededAt: number; migrations: string };
    // Rows are placed relative to the seeding time: after a few hours the newest are not "now".
    if (meta.migrations === migrations && Date.now() - meta.seededAt < 6 * 3_600_000) {
      say(`  reusing ${path.relative(ROOT, file)} (seeded ${new Date(meta.seededAt).toISOString()})`);
      return { url, owner: meta.owner };
    }
  }
  for (const suffix of ['', '-wal', '-shm', '.json']) fs.rmSync(file + suffix, { force: true });
  const owner = await seed(url);
  fs.writeFileSync(note, JSON.stringify({ owner, seededAt: Date.now(), migrations }));
  return { url, owner };
}

async function postgresDatabase(): Promise<{ url: string; owner: Owner }> {
  const name = 'consulta_bench_dashboard';
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return { url: url.toString(), owner: await seed(url.toString()) };
}

/** The query plans of the pages' queries, as the database will run them. */
async function plans(database: Database, owner: Owner, cursor: { at: string; requestId: string }): Promise<void> {
  const since = new Date(Date.now() - 30 * DAY_MS).toISOString();
  // As RequestHistoryService.page builds them.
  const base = { ownerType: 'user' as const, ownerId: owner.userId, since, limit: REQUEST_LOG_PAGE + 1, scanLimit: REQUEST_LOG_SCAN };
  const queries: Array<[string, { sql: string; parameters: readonly unknown[] }]> = [
    ['first page', ownerRequestsQuery(database.db, base).compile()],
    ['4xx + path', ownerRequestsQuery(database.db, { ...base, status: { from: 400, to: 499 }, pathPrefix: '/api/v1/bookings' }).compile()],
    ['5xx + path (rare)', ownerRequestsQuery(database.db, { ...base, status: { from: 500, to: 599 }, pathPrefix: '/api/v1/usage' }).compile()],
    ['deep page (cursor)', ownerRequestsQuery(database.db, { ...base, before: cursor }).compile()],
  ];
  const today = new Date().toISOString().slice(0, 10);
  const from = new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10);
  const usage = database.db.selectFrom('usage_daily').selectAll().where('key_id', '=', owner.liveKeyId).where('day', '>=', from).where('day', '<=', today).orderBy('day').compile();
  const latency = database.db.selectFrom('usage_daily_latency').selectAll().where('key_id', '=', owner.liveKeyId).where('day', '>=', from).where('day', '<=', today).orderBy('day').orderBy('bucket').compile();
  queries.push(['usage_daily', usage], ['usage_daily_latency', latency]);
  for (const [label, q] of queries) {
    const prefix = database.dialect === 'sqlite' ? 'explain query plan ' : 'explain ';
    const rows = (await sql.raw(prefix + inline(q.sql, q.parameters, database.dialect)).execute(database.db)).rows as Array<Record<string, unknown>>;
    const text = rows.map((r) => String(r.detail ?? r['QUERY PLAN'] ?? JSON.stringify(r))).join(' | ');
    say(`  plan, ${label}: ${text}`);
  }
  // Make sure the repository functions still read what the plans describe.
  await listUsageDaily(database.db, owner.liveKeyId, from, today);
  await listUsageLatency(database.db, owner.liveKeyId, from, today);
}

/** The compiled query with its parameters written in (EXPLAIN takes no parameters on SQLite here). */
function inline(text: string, parameters: readonly unknown[], dialect: string): string {
  const lit = (v: unknown) => (typeof v === 'number' ? String(v) : `'${String(v).replace(/'/g, "''")}'`);
  let next = 0;
  return dialect === 'sqlite' ? text.replace(/\?/g, () => lit(parameters[next++])) : text.replace(/\$(\d+)/g, (_, n: string) => lit(parameters[Number(n) - 1]));
}

interface Scenario {
  name: string;
  path: string;
  target: number;
}

/** The server's own log lines of the measured requests: duration_ms, which Fastify measured. */
function serverTimes(logFile: string, marker: string): number[] {
  const out: number[] = [];
  for (const line of fs.readFileSync(logFile, 'utf8').split('\n')) {
    if (!line.includes(marker)) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; url?: string; duration_ms?: number; status?: number };
      if (entry.msg === 'request' && entry.url?.includes(marker) && typeof entry.duration_ms === 'number' && entry.status === 200) out.push(entry.duration_ms);
    } catch {
      // a partial line at the end of the buffer
    }
  }
  return out.sort((a, b) => a - b);
}
const pct = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] ?? Number.NaN;
const withMarker = (p: string, marker: string) => `${p}${p.includes('?') ? '&' : '?'}bench=${marker}`;

async function run(kind: 'sqlite' | 'postgres'): Promise<void> {
  say(`\n## ${kind}`);
  const { url, owner } = kind === 'sqlite' ? await sqliteDatabase() : await postgresDatabase();
  const database = openDatabase(url);
  const count = await database.db.selectFrom('request_log').select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
  const mine = await database.db.selectFrom('request_log').select((eb) => eb.fn.countAll<string>().as('n')).where('owner_id', '=', owner.userId).executeTakeFirstOrThrow();
  say(`  request_log: ${Number(count.n).toLocaleString('en')} rows, ${Number(mine.n).toLocaleString('en')} of them the measured owner's`);
  // A cursor half-way back: the owner's row nearest 15 days ago.
  const middle = await database.db
    .selectFrom('request_log')
    .select(['at', 'request_id'])
    .where('owner_type', '=', 'user')
    .where('owner_id', '=', owner.userId)
    .where('at', '<=', new Date(Date.now() - 15 * DAY_MS).toISOString())
    .orderBy('owner_type', 'desc')
    .orderBy('owner_id', 'desc')
    .orderBy('at', 'desc')
    .orderBy('request_id', 'desc')
    .limit(1)
    .executeTakeFirstOrThrow();
  const cursor = Buffer.from(`${middle.at}|${middle.request_id}`).toString('base64url');
  await plans(database, owner, { at: middle.at, requestId: middle.request_id });
  const session = await new SessionService({ database, clock: systemClock, config: { sessionIdleDays: 7, sessionMaxDays: 30 } }).create(owner.userId, { ip: '127.0.0.1' });
  await database.close();

  const port = await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  const logFile = path.join(WORK, `server-${kind}.log`);
  const app = await spawnServer({
    nodeArgs: ['bin/consulta.js', 'serve'],
    env: { PORT: String(port), HOST: '127.0.0.1', SITE_URL: siteUrl, DATABASE_URL: url, LOG_LEVEL: 'info', DEMO_LAWYERS: '0' },
    port,
    readyPath: '/readyz',
    logFile,
  });
  const headers = { cookie: `${siteCookies(siteUrl).session}=${session.token}`, 'accept-language': 'en' };
  const scenarios: Scenario[] = [
    { name: 'request log, first page', path: '/developer/requests', target: 50 },
    { name: 'request log, 4xx + path /api/v1/bookings', path: '/developer/requests?status=4xx&path=%2Fapi%2Fv1%2Fbookings', target: 50 },
    { name: 'request log, 5xx + path /api/v1/usage (rare)', path: '/developer/requests?status=5xx&path=%2Fapi%2Fv1%2Fusage', target: 50 },
    { name: 'request log, 15 days back (cursor)', path: `/developer/requests?cursor=${cursor}`, target: 50 },
    { name: 'usage, 30 days', path: '/developer/usage', target: 100 },
  ];
  let baseline: Child | undefined;
  try {
    const captured: Capture = new Map();
    for (const s of scenarios) {
      const res = await fetch(`${siteUrl}${s.path}`, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      if (res.status !== 200) throw new Error(`${s.path} answered ${res.status}: ${body.toString('utf8').slice(0, 300)}`);
      const rowsShown = (body.toString('utf8').match(/<tr(?: class="test")?>\s*<td>/g) ?? []).length;
      if (s.path.startsWith('/developer/requests')) say(`  ${s.name}: ${rowsShown} rows shown`);
      captured.set(s.path, { status: res.status, contentType: res.headers.get('content-type') ?? 'text/html', body });
    }
    const captureFile = path.join(WORK, `capture-${kind}.json`);
    fs.writeFileSync(captureFile, serializeCapture(captured));
    const basePort = await freePort();
    baseline = await spawnServer({ nodeArgs: ['--import', 'tsx', 'bench/baseline-server.ts', captureFile, String(basePort)], env: {}, port: basePort, readyPath: scenarios[0]!.path, logFile: path.join(WORK, 'baseline.log') });

    say('');
    say(`| ${kind} | server p50 ms | server p95 ms | target (p50) | | app req/s | raw req/s | app ÷ raw | app CPU ms/req | raw CPU ms/req | other load |`);
    say('|:--|--:|--:|--:|:--|--:|--:|--:|--:|--:|--:|');
    for (const s of scenarios) {
      // Server time: sequential requests, one at a time, each timed by the server itself.
      for (let i = 0; i < 20; i++) await (await fetch(`${siteUrl}${withMarker(s.path, 'warm')}`, { headers })).arrayBuffer();
      const marker = `m${scenarios.indexOf(s)}`;
      for (let i = 0; i < SAMPLES; i++) await (await fetch(`${siteUrl}${withMarker(s.path, marker)}`, { headers })).arrayBuffer();
      // The service buffers its log output (8 KB or 500 ms).
      await new Promise((resolve) => setTimeout(resolve, 700));
      const times = serverTimes(logFile, `bench=${marker}`);
      // Throughput against the raw server: app, raw, raw, app.
      const load = { connections: 4, duration: DURATION, warmup: 1, headers };
      const a1 = await measure({ url: app.url, pid: app.pid }, [s.path], load);
      const r1 = await measure({ url: baseline.url, pid: baseline.pid }, [s.path], load);
      const r2 = await measure({ url: baseline.url, pid: baseline.pid }, [s.path], load);
      const a2 = await measure({ url: app.url, pid: app.pid }, [s.path], load);
      const a: Measurement = combine(a1, a2);
      const r: Measurement = combine(r1, r2);
      const p50 = pct(times, 0.5);
      say(
        `| ${s.name} | ${p50.toFixed(2)} | ${pct(times, 0.95).toFixed(2)} | ≤ ${s.target} | ${p50 <= s.target ? '✓' : '✗'} | ${Math.round(a.rps).toLocaleString('en')} | ${Math.round(r.rps).toLocaleString('en')} | ${((100 * a.rps) / r.rps).toFixed(1)} % | ${a.serverCpuMsPerReq.toFixed(3)} | ${r.serverCpuMsPerReq.toFixed(3)} | ${Math.max(a.otherCores, r.otherCores).toFixed(2)} |`,
      );
      if (times.length < SAMPLES * 0.95) say(`  (only ${times.length} of ${SAMPLES} log lines found for ${s.name})`);
      if (a.non2xx > 0) say(`  (${a.non2xx} non-2xx answers from the service during ${s.name}: ${JSON.stringify(a.statusCodes)})`);
    }
  } finally {
    await baseline?.stop();
    await app.stop();
  }
}

say(`# Dashboard pages over a ${ROWS.toLocaleString('en')}-row request log — ${new Date().toISOString()}`);
say(`${cpuModel()}, ${os.cpus().length} cores, load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, Node ${process.version}`);
say(`${SAMPLES} sequential requests per page for server time; throughput: 4 connections, 1 s warm-up + ${DURATION} s, app, raw, raw, app`);
for (const kind of DATABASES) await run(kind);
say(`\nload average at the end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
fs.writeFileSync(path.join(WORK, 'results.txt'), lines.join('\n') + '\n');
