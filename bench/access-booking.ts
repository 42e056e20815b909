/**
 * Benchmarks for the access layer and booking intents (not tests): `npx tsx bench/access-booking.ts`.
 *
 * - keyed vs anonymous search, with the in-memory and the Redis rate-limit store;
 * - the cost of request logging (REQUEST_LOG=on vs off, keyed search);
 * - initiate throughput on distinct free slots, keyed, with an Idempotency-Key, 50 connections,
 *   on SQLite and PostgreSQL;
 * - availability throughput before and after a fifth of the slots are held.
 * Figures are ratios within one run; absolute numbers on a 2-core machine are noise.
 *
 * Flags: `--duration S` (6), `--only NAMES` (comma-separated: `access` for keyed vs anonymous,
 * `request-log`, `booking`; all by default), `--rounds N` (1: how many on/off pairs the
 * request-log part measures; each round's cost is printed, then their median and range),
 * `--profile` (the request-log part only: run both servers under `node --cpu-prof`, measure each
 * once and print where each thread's time went, for the log on and off; profiles under
 * .bench/access-booking/profiles/).
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT, runToCompletion, spawnServer, type Child } from './children.ts';
import { measure, type Measurement } from './load.ts';
import { renderProfile, summarizeProfile } from './profile.ts';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const DURATION = flag('duration', 6);
const ROUNDS = flag('rounds', 1);
const PROFILE = args.includes('--profile');
const onlyAt = args.indexOf('--only');
const ONLY = onlyAt >= 0 ? new Set(args[onlyAt + 1]!.split(',')) : undefined;
const PARTS = ['access', 'request-log', 'booking'];
for (const part of ONLY ?? []) if (!PARTS.includes(part)) throw new Error(`--only: unknown part ${part} (known: ${PARTS.join(', ')})`);
const runs = (part: string) => ONLY === undefined || ONLY.has(part);
const WORK = path.join(ROOT, '.bench', 'access-booking');
const SOURCE_DB = path.join(ROOT, '.bench', 'db', 'lawyers-20000-seed-7.db');
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LOAD = { connections: 10, duration: DURATION, warmup: 2 };

fs.mkdirSync(WORK, { recursive: true });

async function sqliteCopy(name: string): Promise<string> {
  if (!fs.existsSync(SOURCE_DB)) {
    await runToCompletion(['bin/consulta.js', 'seed', '--lawyers', '20000', '--seed', '7', '--json'], { DATABASE_URL: `sqlite:${SOURCE_DB}` }, 600_000);
  }
  const file = path.join(WORK, `${name}.db`);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  fs.copyFileSync(SOURCE_DB, file);
  return `sqlite:${file}`;
}

async function createKey(databaseUrl: string): Promise<string> {
  const out = await runToCompletion(['bin/consulta.js', 'keys', 'create', '--owner', 'bench@example.com', '--tier', 'internal', '--json'], { DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' }, 60_000);
  return (JSON.parse(out.trim().split('\n').at(-1)!) as { token: string }).token;
}

async function server(name: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const port = await freePort();
  return spawnServer({
    nodeArgs: [...nodeArgs, 'bin/consulta.js', 'serve'],
    env: { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_MULTIPLIER: '1000000', MAX_PENDING_INTENTS_PER_KEY: '100000', ...env },
    port,
    readyPath: '/readyz',
    logFile: path.join(WORK, `${name}.log`),
  });
}

const row = (label: string, m: Measurement, extra = '') =>
  `${label.padEnd(46)} ${m.rps.toFixed(0).padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(7)} ms  cpu ${m.serverCpuMsPerReq.toFixed(3)} ms/req  ${extra}`;
const lines: string[] = [];
const say = (line: string) => {
  lines.push(line);
  console.log(line);
};

/** Alternates A and B twice in the same run and averages, so drift hits both alike. */
async function pair(a: () => Promise<Measurement>, b: () => Promise<Measurement>): Promise<[Measurement, Measurement]> {
  const a1 = await a();
  const b1 = await b();
  const b2 = await b();
  const a2 = await a();
  const avg = (x: Measurement, y: Measurement): Measurement => ({ ...x, rps: (x.rps + y.rps) / 2, p50Ms: (x.p50Ms + y.p50Ms) / 2, p99Ms: (x.p99Ms + y.p99Ms) / 2, serverCpuMsPerReq: (x.serverCpuMsPerReq + y.serverCpuMsPerReq) / 2, otherCores: Math.max(x.otherCores, y.otherCores) });
  return [avg(a1, a2), avg(b1, b2)];
}

const SEARCH = ['/api/v1/lawyers/search?city=madrid', '/api/v1/lawyers/search', '/api/v1/lawyers/search?practice_area=residence&language=ar'];

async function accessScenarios(): Promise<void> {
  const search = SEARCH;
  for (const store of ['memory', 'redis'] as const) {
    const url = await sqliteCopy(`access-${store}`);
    const token = await createKey(url);
    const s = await server(`access-${store}`, { DATABASE_URL: url, ...(store === 'redis' ? { REDIS_URL: REDIS } : {}) });
    try {
      const target = { url: s.url, pid: s.pid };
      const [anon, keyed] = await pair(
        () => measure(target, search, LOAD),
        () => measure(target, search, { ...LOAD, headers: { authorization: `Bearer ${token}` } }),
      );
      say(row(`search, anonymous (${store} store)`, anon));
      say(row(`search, keyed (${store} store)`, keyed, `keyed/anonymous ${((keyed.rps / anon.rps) * 100).toFixed(0)} %`));
    } finally {
      await s.stop();
    }
  }
}

/** Request logging: the same keyed search with the log on and off, in alternation. */
async function requestLogScenarios(): Promise<void> {
  const urlOn = await sqliteCopy('log-on');
  const token = await createKey(urlOn);
  if (PROFILE) return profileRequestLog(urlOn, token);
  const on = await server('log-on', { DATABASE_URL: urlOn });
  const off = await server('log-off', { DATABASE_URL: urlOn, REQUEST_LOG: 'off' });
  try {
    const headers = { authorization: `Bearer ${token}` };
    const costs: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const [withLog, without] = await pair(
        () => measure({ url: on.url, pid: on.pid }, SEARCH, { ...LOAD, headers }),
        () => measure({ url: off.url, pid: off.pid }, SEARCH, { ...LOAD, headers }),
      );
      const cost = ((without.rps - withLog.rps) / without.rps) * 100;
      costs.push(cost);
      const tag = ROUNDS > 1 ? ` [${round}/${ROUNDS}]` : '';
      say(row(`search, keyed, request log off${tag}`, without));
      say(row(`search, keyed, request log on${tag}`, withLog, `cost ${cost.toFixed(1)} % of throughput  (other load ${Math.max(withLog.otherCores, without.otherCores).toFixed(2)} cores)`));
    }
    if (ROUNDS > 1) {
      const sorted = [...costs].sort((a, b) => a - b);
      say(`request log cost over ${ROUNDS} rounds: median ${sorted[Math.floor((ROUNDS - 1) / 2)]!.toFixed(1)} %, range ${sorted[0]!.toFixed(1)} … ${sorted.at(-1)!.toFixed(1)} %`);
    }
  } finally {
    await on.stop();
    await off.stop();
  }
}

/** The same keyed search against a CPU-profiled server with the log on, then off: every thread's profile. */
async function profileRequestLog(url: string, token: string): Promise<void> {
  for (const [name, env] of [['log-on', {}], ['log-off', { REQUEST_LOG: 'off' }]] as const) {
    const dir = path.join(WORK, 'profiles', name);
    fs.rmSync(dir, { recursive: true, force: true });
    const s = await server(`profile-${name}`, { DATABASE_URL: url, ...env }, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
    let m: Measurement;
    try {
      m = await measure({ url: s.url, pid: s.pid }, SEARCH, { ...LOAD, headers: { authorization: `Bearer ${token}` } });
    } finally {
      await s.stop();
    }
    say(row(`search, keyed, ${name} (profiled)`, m));
    // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile: thread 0 is the main thread.
    for (const file of fs.readdirSync(dir).sort()) {
      const thread = /\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1];
      const summary = summarizeProfile(path.join(dir, file), 30, m.windowUs);
      if (summary.busyMs < 50) continue;
      say(`\n${renderProfile(`${name}, thread ${thread}`, summary, 20)}\n  profile: ${path.relative(ROOT, path.join(dir, file))}`);
    }
  }
}

interface Body {
  lawyer_id: string;
  date: string;
  start_time: string;
  end_time: string;
}

/** Free slots of the first `lawyers` lawyers, from the API itself. */
async function freeSlots(base: string, token: string, lawyers: number): Promise<Body[]> {
  const headers = { authorization: `Bearer ${token}` };
  const ids: string[] = [];
  for (let page = 1; ids.length < lawyers; page++) {
    const r = (await (await fetch(`${base}/api/v1/lawyers/search?limit=25&page=${page}`, { headers })).json()) as { lawyers: Array<{ id: string }>; has_more: boolean };
    ids.push(...r.lawyers.map((l) => l.id));
    if (!r.has_more) break;
  }
  const bodies: Body[] = [];
  for (const id of ids.slice(0, lawyers)) {
    const a = (await (await fetch(`${base}/api/v1/lawyers/${id}/availability`, { headers })).json()) as { slots: Array<{ date: string; start_time: string; end_time: string; available: boolean }> };
    for (const s of a.slots) if (s.available) bodies.push({ lawyer_id: id, date: s.date, start_time: s.start_time, end_time: s.end_time });
  }
  return bodies;
}

async function initiateLoad(base: string, token: string, bodies: Body[], label: string): Promise<void> {
  let i = 0;
  const run = Date.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
    url: `${base}/api/v1/bookings/initiate`,
    connections: 50,
    duration: DURATION,
    requests: [
      {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        setupRequest: (req) => {
          const n = i++;
          const body = bodies[n % bodies.length]!;
          return { ...req, body: JSON.stringify(body), headers: { ...req.headers, 'idempotency-key': `bench-${run}-${n}` } };
        },
      },
    ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
  });
  const created = result.statusCodeStats['201']?.count ?? 0;
  say(`${`initiate (${label}), 50 connections`.padEnd(46)} ${(result.requests.average).toFixed(0).padStart(7)} req/s  p50 ${String(result.latency.p50).padStart(6)} ms  p99 ${String(result.latency.p99).padStart(7)} ms  201s ${created}  non-2xx ${result.non2xx}  errors ${result.errors}  (distinct free slots: ${bodies.length})`);
}

async function bookingScenarios(): Promise<void> {
  // SQLite
  const url = await sqliteCopy('booking-sqlite');
  const token = await createKey(url);
  const s = await server('booking-sqlite', { DATABASE_URL: url });
  try {
    const bodies = await freeSlots(s.url, token, 400);
    // Availability before/after a fifth of the slots are held, on 40 lawyers.
    const sample = [...new Set(bodies.map((b) => b.lawyer_id))].slice(0, 40);
    const paths = sample.map((id) => `/api/v1/lawyers/${id}/availability`);
    const headers = { authorization: `Bearer ${token}` };
    const before = await measure({ url: s.url, pid: s.pid }, paths, { ...LOAD, headers });
    const toHold = bodies.filter((b) => sample.includes(b.lawyer_id)).filter((_, k) => k % 5 === 0);
    for (const b of toHold) {
      await fetch(`${s.url}/api/v1/bookings/initiate`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(b) });
    }
    const after = await measure({ url: s.url, pid: s.pid }, paths, { ...LOAD, headers });
    say(row('availability, nothing held', before));
    say(row(`availability, a fifth held (${toHold.length} holds)`, after, `change ${(((after.rps - before.rps) / before.rps) * 100).toFixed(1)} %`));
    const rest = bodies.filter((b) => !sample.includes(b.lawyer_id));
    await initiateLoad(s.url, token, rest, 'SQLite');
  } finally {
    await s.stop();
  }

  // PostgreSQL: a fresh database with 5,000 lawyers (initiate cost does not depend on directory size).
  const name = `consulta_bench_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const pgUrl = new URL(PG_ADMIN);
  pgUrl.pathname = `/${name}`;
  try {
    await runToCompletion(['bin/consulta.js', 'seed', '--lawyers', '5000', '--seed', '7', '--json'], { DATABASE_URL: pgUrl.toString(), LOG_LEVEL: 'silent' }, 600_000);
    const pgToken = await createKey(pgUrl.toString());
    const p = await server('booking-postgres', { DATABASE_URL: pgUrl.toString(), DB_POOL_SIZE: '20' });
    try {
      const bodies = await freeSlots(p.url, pgToken, 400);
      await initiateLoad(p.url, pgToken, bodies, 'PostgreSQL');
    } finally {
      await p.stop();
    }
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

const started = new Date().toISOString();
if (runs('access')) await accessScenarios();
if (runs('request-log')) await requestLogScenarios();
if (runs('booking')) await bookingScenarios();
fs.writeFileSync(path.join(WORK, 'results.txt'), `${started} duration ${DURATION}s\n${lines.join('\n')}\n`);
