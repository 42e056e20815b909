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
 * `request-log`, `availability`, `initiate`, or `booking` for the last two; all by default),
 * `--rounds N` (1: how many on/off pairs the request-log part, and how many raw/service rounds
 * the initiate part, measures; each round is printed, then their median and range),
 * `--db sqlite|postgres` (initiate: one database; both by default), `--ab DIR` (initiate: also
 * run the server of the tree at DIR, e.g. a worktree of an earlier commit, alternating with this
 * tree's in the same run: raw, this, DIR, DIR, this, raw; each on its own copy of the data),
 * `--env K=V` (initiate: extra environment for the servers, repeatable),
 * `--profile` (run the servers under `node --cpu-prof` and print where each thread's time went:
 * the request-log part measures each once, log on and off; the initiate part profiles its whole
 * run; profiles under .bench/access-booking/profiles/).
 *
 * Initiate is reported as holds per second (201s) as a **share of raw**: a bare node:http server
 * answering the bytes of a real hold's 201 to the same 50-connection load (same bodies and
 * Idempotency-Key headers) in the same run (issue 28: ≥ 0.15 on SQLite, ≥ 0.10 on PostgreSQL).
 */
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort, ROOT, runToCompletion, spawnServer, type Child } from './children.ts';
import { measure, type Measurement } from './load.ts';
import { cpuMs, systemCpu } from './proc.ts';
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
const PARTS = ['access', 'request-log', 'availability', 'initiate', 'booking'];
for (const part of ONLY ?? []) if (!PARTS.includes(part)) throw new Error(`--only: unknown part ${part} (known: ${PARTS.join(', ')})`);
// `booking` is the old name of availability + initiate together.
const runs = (part: string) => ONLY === undefined || ONLY.has(part) || (ONLY.has('booking') && (part === 'availability' || part === 'initiate'));
const dbAt = args.indexOf('--db');
const DBS = (dbAt >= 0 ? args[dbAt + 1]!.split(',') : ['sqlite', 'postgres']) as Array<'sqlite' | 'postgres'>;
for (const db of DBS) if (db !== 'sqlite' && db !== 'postgres') throw new Error(`--db: sqlite or postgres, not ${db}`);
// `--env K=V` (repeatable): extra environment for the initiate servers (e.g. REQUEST_LOG=off).
const EXTRA_ENV: Record<string, string> = {};
args.forEach((a, i) => {
  if (a === '--env') {
    const [k, ...v] = args[i + 1]!.split('=');
    EXTRA_ENV[k!] = v.join('=');
  }
});
const abAt = args.indexOf('--ab');
const AB_DIR = abAt >= 0 ? args[abAt + 1] : undefined;
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

interface InitiateRun {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  created: number;
  non2xx: number;
  errors: number;
  serverCpuMsPerReq: number;
  otherCores: number;
}

/**
 * One initiate load: 50 connections, each request the next distinct free slot from `slots` (a
 * shared cursor) with its own Idempotency-Key. The same load goes to the raw baseline, which
 * answers the captured 201 whatever it is sent. Latencies per response, sub-millisecond.
 */
async function initiateLoad(target: { url: string; pid: number }, token: string, slots: { next(): Body }, seconds: number): Promise<InitiateRun> {
  let i = 0;
  const run = `${Date.now()}-${target.pid}`;
  const latencies: number[] = [];
  const cpu0 = cpuMs(target.pid);
  const client0 = process.cpuUsage();
  const sys0 = systemCpu();
  const t0 = performance.now();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: `${target.url}/api/v1/bookings/initiate`,
        connections: 50,
        duration: seconds,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            setupRequest: (req) => {
              const n = i++;
              return { ...req, body: JSON.stringify(slots.next()), headers: { ...req.headers, 'idempotency-key': `bench-${run}-${n}` } };
            },
          },
        ],
      },
      (err, res) => (err ? reject(err) : resolve(res)),
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      if (status === 201) latencies.push(ms);
    });
  });
  const wallMs = performance.now() - t0;
  const serverMs = cpuMs(target.pid) - cpu0;
  const client = process.cpuUsage(client0);
  const clientMs = (client.user + client.system) / 1000;
  const sys1 = systemCpu();
  const sorted = Float64Array.from(latencies).sort();
  const pct = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! : Number.NaN);
  const created = result.statusCodeStats['201']?.count ?? 0;
  const requests = result.requests.total;
  return {
    rps: created / result.duration,
    p50Ms: pct(0.5),
    p99Ms: pct(0.99),
    created,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    serverCpuMsPerReq: requests ? serverMs / requests : Number.NaN,
    otherCores: Math.max(0, sys1.busyMs - sys0.busyMs - serverMs - clientMs) / wallMs,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const spread = (xs: number[], digits = 3) => `median ${median(xs).toFixed(digits)} (range ${Math.min(...xs).toFixed(digits)} … ${Math.max(...xs).toFixed(digits)})`;

/** A raw node:http server answering the captured 201 (status, content type, body) to every request. */
async function rawInitiateServer(name: string, body: string, contentType: string): Promise<Child> {
  const file = path.join(WORK, `raw-${name}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify([
      { path: '/api/v1/bookings/initiate', status: 201, content_type: contentType, body: Buffer.from(body).toString('base64') },
      { path: '/ready', status: 200, content_type: 'text/plain', body: '' },
    ]),
  );
  const port = await freePort();
  return spawnServer({ nodeArgs: ['--import', 'tsx', 'bench/baseline-server.ts', file, String(port)], env: {}, port, readyPath: '/ready', logFile: path.join(WORK, `raw-${name}.log`) });
}

/** Availability before/after a fifth of the slots of 40 lawyers are held (SQLite, 20,000 lawyers). */
async function availabilityScenario(): Promise<void> {
  const url = await sqliteCopy('availability-sqlite');
  const token = await createKey(url);
  const s = await server('availability-sqlite', { DATABASE_URL: url });
  try {
    const bodies = await freeSlots(s.url, token, 40);
    const sample = [...new Set(bodies.map((b) => b.lawyer_id))].slice(0, 40);
    const paths = sample.map((id) => `/api/v1/lawyers/${id}/availability`);
    const headers = { authorization: `Bearer ${token}` };
    const before = await measure({ url: s.url, pid: s.pid }, paths, { ...LOAD, headers });
    const toHold = bodies.filter((_, k) => k % 5 === 0);
    for (const b of toHold) {
      await fetch(`${s.url}/api/v1/bookings/initiate`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(b) });
    }
    const after = await measure({ url: s.url, pid: s.pid }, paths, { ...LOAD, headers });
    say(row('availability, nothing held', before));
    say(row(`availability, a fifth held (${toHold.length} holds)`, after, `change ${(((after.rps - before.rps) / before.rps) * 100).toFixed(1)} %`));
  } finally {
    await s.stop();
  }
}

/** A server of this tree (`A`) or of `--ab DIR`'s tree (`B`, e.g. a worktree of the start commit). */
interface Side {
  name: string;
  bin: string;
}

async function initiateServer(side: Side, name: string, env: Record<string, string>, nodeArgs: string[]): Promise<Child> {
  const port = await freePort();
  return spawnServer({
    nodeArgs: [...nodeArgs, side.bin, 'serve'],
    env: { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', RATE_LIMIT_MULTIPLIER: '1000000', MAX_PENDING_INTENTS_PER_KEY: '100000', ...env },
    port,
    readyPath: '/readyz',
    logFile: path.join(WORK, `${name}.log`),
  });
}

/** A database for one side: a copy of the 20,000-lawyer SQLite file, or a fresh seeded PostgreSQL database. */
async function initiateDatabase(db: 'sqlite' | 'postgres', name: string, cleanups: Array<() => Promise<void>>): Promise<string> {
  if (db === 'sqlite') return sqliteCopy(name);
  const dbName = `consulta_bench_${name.replaceAll('-', '_')}_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`drop database if exists ${dbName} with (force)`);
  await admin.query(`create database ${dbName}`);
  cleanups.push(async () => {
    await admin.query(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  });
  const pgUrl = new URL(PG_ADMIN);
  pgUrl.pathname = `/${dbName}`;
  // 5,000 lawyers: the hold's cost does not depend on the directory's size (its reads are by key).
  await runToCompletion(['bin/consulta.js', 'seed', '--lawyers', '5000', '--seed', '7', '--json'], { DATABASE_URL: pgUrl.toString(), LOG_LEVEL: 'silent' }, 600_000);
  return pgUrl.toString();
}

/**
 * Holds per second as a share of raw: the service (and, with `--ab DIR`, the service of another
 * tree) against a raw node:http server answering the same 201 body, under the same load, in
 * alternation (raw, A, B, B, A, raw per round), `--rounds` times.
 */
async function initiateScenarios(db: 'sqlite' | 'postgres'): Promise<void> {
  const sides: Side[] = [{ name: 'this tree', bin: path.join(ROOT, 'bin', 'consulta.js') }];
  if (AB_DIR) sides.push({ name: `--ab ${AB_DIR}`, bin: path.join(path.resolve(AB_DIR), 'bin', 'consulta.js') });
  const cleanups: Array<() => Promise<void>> = [];
  const children: Child[] = [];
  const profileDir = (k: number) => path.join(WORK, 'profiles', `initiate-${db}-${k}`);
  try {
    const servers: Array<{ side: Side; child: Child; token: string; slots: { next(): Body; left(): number } }> = [];
    for (const [k, side] of sides.entries()) {
      const url = await initiateDatabase(db, `initiate-${db}-${k}`, cleanups);
      const token = await createKey(url);
      if (PROFILE) fs.rmSync(profileDir(k), { recursive: true, force: true });
      const child = await initiateServer(side, `initiate-${db}-${k}`, { DATABASE_URL: url, ...(db === 'postgres' ? { DB_POOL_SIZE: '20' } : {}), ...EXTRA_ENV }, PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir(k)}`] : []);
      children.push(child);
      // Enough distinct free slots for every run at a few thousand holds a second.
      const bodies = await freeSlots(child.url, token, db === 'sqlite' ? 1500 : 1000);
      let cursor = 0;
      servers.push({ side, child, token, slots: { next: () => bodies[cursor++ % bodies.length]!, left: () => bodies.length - cursor } });
    }
    // The 201 the raw server answers: one real hold's bytes.
    const first = servers[0]!;
    const sample = await fetch(`${first.child.url}/api/v1/bookings/initiate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/json', 'idempotency-key': `sample-${Date.now()}` },
      body: JSON.stringify(first.slots.next()),
    });
    const sampleBody = await sample.text();
    if (sample.status !== 201) throw new Error(`sample hold: ${sample.status} ${sampleBody}`);
    const raw = await rawInitiateServer(db, sampleBody, sample.headers.get('content-type') ?? 'application/json; charset=utf-8');
    children.push(raw);
    // The raw server answers the same bytes whatever it is sent: it walks its own cursor, so the services' free slots are theirs.
    const rawBodies = await freeSlots(first.child.url, first.token, 20);
    let rawCursor = 0;
    const rawSlots = { next: () => rawBodies[rawCursor++ % rawBodies.length]! };
    // Warm-up of each (JIT, caches, pools): numbers discarded.
    await initiateLoad({ url: raw.url, pid: raw.pid }, first.token, rawSlots, 2);
    for (const s of servers) await initiateLoad({ url: s.child.url, pid: s.child.pid }, s.token, s.slots, 2);

    const shares: number[][] = servers.map(() => []);
    const ratios: number[] = [];
    const runRaw = async (tag: string) => {
      const m = await initiateLoad({ url: raw.url, pid: raw.pid }, first.token, rawSlots, DURATION);
      say(initiateRow(`initiate ${db}, raw node:http ${tag}`, m));
      return m;
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const tag = ROUNDS > 1 ? `[${round}/${ROUNDS}]` : '';
      const raw1 = await runRaw(tag);
      const order = [...servers.keys(), ...[...servers.keys()].reverse()];
      const got: InitiateRun[][] = servers.map(() => []);
      for (const k of order) {
        const s = servers[k]!;
        const m = await initiateLoad({ url: s.child.url, pid: s.child.pid }, s.token, s.slots, DURATION);
        got[k]!.push(m);
        say(initiateRow(`initiate ${db}, ${s.side.name} ${tag}`, m, `slots left ${s.slots.left()}`));
      }
      const raw2 = await runRaw(tag);
      const rawRps = (raw1.rps + raw2.rps) / 2;
      const rps = got.map((ms) => ms.reduce((a, m) => a + m.rps, 0) / ms.length);
      rps.forEach((r, k) => shares[k]!.push(r / rawRps));
      if (rps.length === 2) ratios.push(rps[0]! / rps[1]!);
      say(`  share of raw ${tag}: ${servers.map((s, k) => `${s.side.name} ${(rps[k]! / rawRps).toFixed(3)}`).join(', ')}${rps.length === 2 ? `; this ÷ other ${(rps[0]! / rps[1]!).toFixed(2)}` : ''}`);
    }
    for (const [k, s] of servers.entries()) say(`initiate ${db}, ${s.side.name}: holds/s as a share of raw ${spread(shares[k]!)} over ${ROUNDS} round(s)`);
    if (ratios.length > 0) say(`initiate ${db}: this tree ÷ --ab tree ${spread(ratios, 2)}`);
  } finally {
    for (const c of children) await c.stop();
    for (const c of cleanups.reverse()) await c();
  }
  if (PROFILE) {
    for (const [k, side] of sides.entries()) {
      const dir = profileDir(k);
      for (const file of fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []) {
        const thread = /\.(\d+)\.\d+\.cpuprofile$/.exec(file)?.[1];
        const summary = summarizeProfile(path.join(dir, file), 30);
        if (summary.busyMs < 50) continue;
        say(`\n${renderProfile(`initiate ${db}, ${side.name}, thread ${thread} (whole run, warm-up and fetches included)`, summary, 25)}\n  profile: ${path.relative(ROOT, path.join(dir, file))}`);
      }
    }
  }
}

const initiateRow = (label: string, m: InitiateRun, extra = '') =>
  `${label.padEnd(46)} ${m.rps.toFixed(0).padStart(7)} 201/s  p50 ${m.p50Ms.toFixed(1).padStart(6)} ms  p99 ${m.p99Ms.toFixed(1).padStart(7)} ms  cpu ${m.serverCpuMsPerReq.toFixed(3)} ms/req  non-2xx ${m.non2xx}  errors ${m.errors}  other load ${m.otherCores.toFixed(2)} cores  ${extra}`;

const started = new Date().toISOString();
if (runs('access')) await accessScenarios();
if (runs('request-log')) await requestLogScenarios();
if (runs('availability')) await availabilityScenario();
if (runs('initiate')) for (const db of DBS) await initiateScenarios(db);
fs.writeFileSync(path.join(WORK, 'results.txt'), `${started} duration ${DURATION}s\n${lines.join('\n')}\n`);
