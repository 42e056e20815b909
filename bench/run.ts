/**
 * `npm run bench`: measures the hot read endpoints of the service against a raw `node:http`
 * server answering the same bytes, in the same run, on the same machine, and checks how search
 * scales with the size of the directory. Prints Markdown tables and writes .bench/results.json.
 * A benchmark, not a test: it never fails the build (exit 0 whatever the figures), and nothing
 * in the test suite depends on it. Method and figures: docs/performance.md.
 *
 *   npm run bench -- [--duration S] [--warmup S] [--connections N] [--quick] [--only NAMES]
 *                    [--lawyers N] [--scale-sizes A,B] [--skip-scale] [--seed N] [--reseed]
 *                    [--ids N] [--profile]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { capture, discoverLawyerIds, serializeCapture, verifyReplay, type Capture } from './capture.ts';
import { HOST, ROOT, freePort, spawnServer, type Child } from './children.ts';
import { combine, measure, waitForQuiet, type LoadOptions, type Measurement, type Target } from './load.ts';
import { clockTicksPerSecond, cpuModel, memory } from './proc.ts';
import { renderProfile, summarizeProfile, type ProfileSummary } from './profile.ts';
import { anomalies, memoryTable, scaleTable, scenarioTable, type MemoryRow, type ScaleRow, type ScenarioResult } from './report.ts';
import { RSS_TARGET_MB, SCALE_TARGET, SCENARIOS, SEARCH_SCENARIOS, UNCACHED_COUNT_SCENARIO, WIDGET_HOST, type BenchContext, type ScenarioSpec } from './scenarios.ts';
import { benchDatabase, widgetKey, type BenchDatabase } from './seed.ts';
import { MCP_SCENARIO, mcpBench, mcpTable } from './mcp.ts';

const BENCH_DIR = path.join(ROOT, '.bench');

const HELP = `npm run bench -- [options]

  --duration S       seconds measured per scenario and server (default 8, env BENCH_DURATION)
  --warmup S         seconds of discarded warm-up before each measurement (default 2, env BENCH_WARMUP)
  --connections N    concurrent keep-alive connections (default 10, env BENCH_CONNECTIONS)
  --quick            3 s measured, 1 s warm-up, 50 lawyer ids: a fast sanity run
  --only NAMES       comma-separated substrings of scenario names (e.g. "search,profile")
  --lawyers N        directory size for the main table (default 20000)
  --scale-sizes A,B  directory sizes for the scale check (default 1000,100000)
  --skip-scale       skip the scale check
  --seed N           generator seed (default 7)
  --reseed           seed again even if .bench/db holds a matching database
  --ids N            distinct lawyer ids rotated in per-lawyer scenarios (default 200)
  --quiet-wait S     before each scenario, wait up to S seconds for other processes on the
                     machine to use < 0.25 cores (default 30; 0 to skip)
  --retries N        measure a scenario again, up to N times, when other processes used
                     ≥ 0.25 cores during it; the least disturbed run is kept (default 2)
  --skip-cold        skip the cold-cache pass (the per-lawyer scenarios and a search of a new
                     filter on every request, against a server whose directory cache is too
                     small to hold them: what an answer costs when it is not cached)
  --header 'K: V'    add a request header to every request (repeatable), e.g. an API key
  --env K=V          set an environment variable of every service process (repeatable), e.g.
                     HEAP_GROWTH_PERCENT=0 to compare a setting against its default
  --profile          instead of benchmarking, CPU-profile the service (node --cpu-prof)
                     under each selected scenario and print where the time goes`;

interface Options {
  /** Extra environment of every service process (--env). */
  serverEnv: Record<string, string>;
  load: LoadOptions;
  only: string[];
  lawyers: number;
  scaleSizes: number[];
  skipScale: boolean;
  skipCold: boolean;
  seed: number;
  reseed: boolean;
  ids: number;
  profile: boolean;
  quick: boolean;
  quietWaitMs: number;
  retries: number;
}

function positiveInt(name: string, raw: string | undefined, fallback: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} expects a whole number from 1 to ${max}, got "${raw}"`);
  return n;
}

function parseOptions(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      quick: { type: 'boolean' },
      only: { type: 'string' },
      lawyers: { type: 'string' },
      'scale-sizes': { type: 'string' },
      'skip-scale': { type: 'boolean' },
      'skip-cold': { type: 'boolean' },
      seed: { type: 'string' },
      reseed: { type: 'boolean' },
      ids: { type: 'string' },
      profile: { type: 'boolean' },
      'quiet-wait': { type: 'string' },
      retries: { type: 'string' },
      header: { type: 'string', multiple: true },
      env: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) return null;
  const quick = values.quick === true;
  const env = process.env;
  const warmupRaw = values.warmup ?? env.BENCH_WARMUP;
  const warmup = warmupRaw === '0' ? 0 : positiveInt('warmup', warmupRaw, quick ? 1 : 2, 60);
  const scaleSizes = (values['scale-sizes'] ?? '1000,100000').split(',').map((s) => positiveInt('scale-sizes', s.trim(), 0, 1_000_000));
  if (scaleSizes.length < 2) throw new Error('--scale-sizes needs at least two sizes');
  const headers: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const i = h.indexOf(':');
    if (i < 1) throw new Error(`--header expects "Name: value", got "${h}"`);
    headers[h.slice(0, i).trim().toLowerCase()] = h.slice(i + 1).trim();
  }
  const serverEnv: Record<string, string> = {};
  for (const kv of values.env ?? []) {
    const i = kv.indexOf('=');
    if (i < 1) throw new Error(`--env expects "NAME=value", got "${kv}"`);
    serverEnv[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return {
    serverEnv,
    load: {
      headers,
      duration: positiveInt('duration', values.duration ?? env.BENCH_DURATION, quick ? 3 : 8, 600),
      warmup,
      connections: positiveInt('connections', values.connections ?? env.BENCH_CONNECTIONS, 10, 1000),
    },
    only: (values.only ?? '').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean),
    lawyers: positiveInt('lawyers', values.lawyers, 20_000, 1_000_000),
    scaleSizes: scaleSizes.sort((a, b) => a - b),
    skipScale: values['skip-scale'] === true,
    skipCold: values['skip-cold'] === true,
    seed: positiveInt('seed', values.seed, 7, 2 ** 31 - 1),
    reseed: values.reseed === true,
    ids: positiveInt('ids', values.ids, quick ? 50 : 200, 5000),
    profile: values.profile === true,
    quick,
    quietWaitMs: values['quiet-wait'] === '0' ? 0 : positiveInt('quiet-wait', values['quiet-wait'], 30, 3600) * 1000,
    retries: values.retries === '0' ? 0 : positiveInt('retries', values.retries, quick ? 0 : 2, 10),
  };
}

function selected(options: Options, list: ScenarioSpec[]): ScenarioSpec[] {
  if (options.only.length === 0) return list;
  return list.filter((s) => options.only.some((o) => s.name.toLowerCase().includes(o)));
}

/**
 * The service writes while it serves (request log, usage counters, migrations), so it runs on
 * a fresh copy of the cached database: every run starts from the same data.
 */
function scratchCopy(db: BenchDatabase): string {
  const dir = path.join(BENCH_DIR, 'run');
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, path.basename(db.file));
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${copy}${suffix}`, { force: true });
  for (const suffix of ['', '-wal']) {
    if (fs.existsSync(`${db.file}${suffix}`)) fs.copyFileSync(`${db.file}${suffix}`, `${copy}${suffix}`);
  }
  return copy;
}

async function startApp(db: BenchDatabase, extraNodeArgs: string[] = [], extraEnv: Record<string, string> = {}): Promise<Child> {
  const file = scratchCopy(db);
  const port = await freePort();
  const removeCopy = () => {
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  };
  let child: Child;
  try {
    child = await spawnServer({
      nodeArgs: [...extraNodeArgs, 'bin/consulta.js', 'serve'],
      // Request logging stays on: one JSON line per request is part of the hot path measured.
      // TRUST_PROXY: clients are told apart by X-Forwarded-For, as behind a proxy (addresses.ts).
      env: { PORT: String(port), HOST, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', TRUST_PROXY: HOST, ...extraEnv },
      port,
      readyPath: '/readyz',
      logFile: path.join(BENCH_DIR, 'logs', `app-${db.lawyers}.log`),
    });
  } catch (err) {
    removeCopy();
    throw err;
  }
  return { ...child, stop: () => child.stop().finally(removeCopy) };
}

async function startBaseline(captured: Capture): Promise<Child> {
  const file = path.join(BENCH_DIR, 'baseline-responses.json');
  fs.writeFileSync(file, serializeCapture(captured));
  const port = await freePort();
  const first = captured.keys().next().value;
  if (first === undefined) throw new Error('nothing captured for the baseline');
  return spawnServer({
    nodeArgs: ['--import', 'tsx', 'bench/baseline-server.ts', file, String(port)],
    env: {},
    port,
    readyPath: first,
    logFile: path.join(BENCH_DIR, 'logs', 'baseline.log'),
  });
}

const fmt = (m: Measurement) =>
  `${Math.round(m.rps).toLocaleString('en').padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2).padStart(6)} ms  p99 ${m.p99Ms.toFixed(2).padStart(6)} ms  cpu ${m.serverCpuMsPerReq.toFixed(3)} ms/req (${(m.serverCores * 100).toFixed(0)} % core)  other load ${m.otherCores.toFixed(2)}`;

/** Quiet threshold: other processes below a quarter of a core barely move the figures. */
const QUIET_CORES = 0.25;

async function quiet(options: Options, pids: number[]): Promise<void> {
  if (options.quietWaitMs === 0) return;
  const load = await waitForQuiet(pids, options.quietWaitMs, QUIET_CORES, (cores) =>
    process.stdout.write(`    (waiting up to ${options.quietWaitMs / 1000} s: other processes use ${cores.toFixed(2)} cores)\n`),
  );
  if (load >= QUIET_CORES) process.stdout.write(`    (machine still busy: ${load.toFixed(2)} cores used by other processes; measuring anyway)\n`);
}

function warn(label: string, m: Measurement, notes: string[]): void {
  const a = anomalies(label, m);
  if (a) {
    notes.push(a);
    process.stdout.write(`    ! ${a}\n`);
  }
}

/** Which code the figures belong to: the commit, marked when src/ has uncommitted changes. Read-only. */
function gitDescribe(): string | null {
  try {
    const git = (...args: string[]) => execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', timeout: 5000 }).trim();
    const dirty = git('status', '--porcelain', '--', 'src', 'bin') !== '';
    return `${git('rev-parse', '--short', 'HEAD')}${dirty ? ' + uncommitted src/ changes' : ''}`;
  } catch {
    return null;
  }
}

async function withServers<T>(children: Array<Child | undefined>, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } finally {
    await Promise.all(children.map((c) => c?.stop()));
  }
}

/**
 * Runs `attempt` until one is undisturbed by other processes (load below QUIET_CORES), at most
 * 1 + options.retries times, and keeps the least disturbed attempt.
 */
async function leastDisturbed<T>(options: Options, attempt: () => Promise<T>, disturbance: (r: T) => number): Promise<T> {
  let best: T | undefined;
  for (let i = 0; i <= options.retries; i++) {
    if (i > 0) process.stdout.write(`    (other processes were busy during that run: measuring again, ${i}/${options.retries})\n`);
    const r = await attempt();
    if (best === undefined || disturbance(r) < disturbance(best)) best = r;
    if (disturbance(r) < QUIET_CORES) break;
  }
  return best!;
}

/**
 * The service alone on `paths` (no baseline beside it), after waiting for quiet and again while
 * disturbed. A few answers are captured first to check they are 200s; capturing thousands would
 * warm the cache the cold pass and the uncached search want cold.
 */
async function measureApp(options: Options, app: Child, paths: string[], label: string): Promise<Measurement> {
  await capture(app.url, paths.slice(0, 3), options.load.headers);
  return leastDisturbed(options, async () => {
    await quiet(options, [app.pid]);
    const run = await measure({ url: app.url, pid: app.pid }, paths, options.load);
    process.stdout.write(`  ${label} ${fmt(run)}\n`);
    return run;
  }, (run) => run.otherCores);
}

/**
 * The widget's scenarios need the bench's publishable key, and a service whose limits let one
 * key carry the whole load: every request of the frame counts against the key's tier (internal:
 * 1,000 a minute), which the bench passes in seconds. RATE_LIMIT_MULTIPLIER scales the limits,
 * not their cost (each request is still counted twice: per visitor address and per key).
 */
async function benchContext(db: BenchDatabase, specs: ScenarioSpec[]): Promise<{ bench: BenchContext; env: Record<string, string> }> {
  if (!specs.some((s) => s.kind === 'widget')) return { bench: { widgetKey: '' }, env: {} };
  return { bench: { widgetKey: await widgetKey(db, WIDGET_HOST) }, env: { RATE_LIMIT_MULTIPLIER: '1000' } };
}

async function mainBench(options: Options, db: BenchDatabase, notes: string[]) {
  const scenarios = selected(options, SCENARIOS);
  const { bench, env } = await benchContext(db, scenarios);
  const app = await startApp(db, [], { ...env, ...options.serverEnv });
  let baseline: Child | undefined;
  return withServers([app], async () => {
    const ids = await discoverLawyerIds(app.url, options.ids, options.load.headers);
    const plan = scenarios.map((spec) => ({ spec, paths: spec.paths(ids, bench) }));
    const captured = await capture(app.url, plan.flatMap((p) => p.paths), options.load.headers);
    baseline = await startBaseline(captured);
    return withServers([baseline], async () => {
      await verifyReplay(baseline!.url, captured);
      process.stdout.write(`\n${db.lawyers.toLocaleString('en')} lawyers: ${plan.length} scenarios, ${ids.length} lawyer ids rotated, ${options.load.connections} connections, ${options.load.warmup} s warm-up + ${options.load.duration} s measured\n`);
      const results: ScenarioResult[] = [];
      for (const { spec, paths } of plan) {
        process.stdout.write(`  ${spec.name}\n`);
        const { app: appM, raw: rawM } = await leastDisturbed(options, async () => {
          await quiet(options, [app.pid, baseline!.pid]);
          // App, raw, raw, app (one pair with --quick): the sums of each side are compared, so a
          // drift of the machine's speed during the scenario weighs on both alike.
          const appTarget = { url: app.url, pid: app.pid };
          const rawTarget = { url: baseline!.url, pid: baseline!.pid };
          const run = async (name: string, target: Target) => {
            const m = await measure(target, paths, options.load);
            process.stdout.write(`    ${name}  ${fmt(m)}\n`);
            return m;
          };
          const app1 = await run('app', appTarget);
          const raw1 = await run('raw', rawTarget);
          if (options.quick) return { app: app1, raw: raw1 };
          const raw2 = await run('raw', rawTarget);
          const app2 = await run('app', appTarget);
          return { app: combine(app1, app2), raw: combine(raw1, raw2) };
        }, (pair) => Math.max(pair.app.otherCores, pair.raw.otherCores));
        warn(`${spec.name} (app)`, appM, notes);
        warn(`${spec.name} (raw)`, rawM, notes);
        const ratio = appM.rps / rawM.rps;
        results.push({ name: spec.name, kind: spec.kind, paths: paths.length, target: spec.target, app: appM, baseline: rawM, ratio, pass: ratio >= spec.target });
      }
      const appMem = memory(app.pid);
      const rawMem = memory(baseline!.pid);
      const memoryRows: MemoryRow[] = [
        { server: 'app', lawyers: db.lawyers, peakRssMb: appMem.peakRssMb, maxRssUnderLoadMb: Math.max(...results.map((r) => r.app.serverRssMaxMb)), targetMb: null, pass: null },
        { server: 'raw baseline', lawyers: db.lawyers, peakRssMb: rawMem.peakRssMb, maxRssUnderLoadMb: Math.max(...results.map((r) => r.baseline.serverRssMaxMb)), targetMb: null, pass: null },
      ];
      const logBytes = fs.statSync(path.join(BENCH_DIR, 'logs', `app-${db.lawyers}.log`)).size;
      return { results, memoryRows, ids: ids.length, logBytes };
    });
  });
}

/**
 * The cold-cache pass: the per-lawyer scenarios against a server whose directory cache (1 MB)
 * cannot hold the rotated lawyers, so nearly every answer is computed from the database; and a
 * search with a new filter combination on every request. Compared with the raw baseline's
 * figures for the same scenario from the main table (for the search, residence+ar's).
 */
const COLD_IDS = 2000;

async function coldRun(options: Options, db: BenchDatabase, main: ScenarioResult[], notes: string[]): Promise<ScenarioResult[]> {
  const specs = selected(options, [...SCENARIOS.filter((s) => s.kind === 'lawyer'), UNCACHED_COUNT_SCENARIO]);
  if (specs.length === 0) return [];
  const app = await startApp(db, [], { ...options.serverEnv, DIRECTORY_CACHE_MB: '1' });
  return withServers([app], async () => {
    // Far more lawyers than 1 MB holds (a profile takes ~8 KB, an availability answer ~30 KB).
    const ids = await discoverLawyerIds(app.url, COLD_IDS, options.load.headers);
    process.stdout.write(`\ncold cache (DIRECTORY_CACHE_MB=1), ${db.lawyers.toLocaleString('en')} lawyers, ${ids.length} lawyer ids rotated\n`);
    const out: ScenarioResult[] = [];
    for (const spec of specs) {
      const rawOf = spec === UNCACHED_COUNT_SCENARIO ? 'search: residence+ar' : spec.name;
      const raw = main.find((r) => r.name === rawOf)?.baseline;
      if (!raw) continue;
      const paths = spec.paths(ids, { widgetKey: '' });
      const m = await measureApp(options, app, paths, spec.name.padEnd(30));
      warn(`${spec.name} (cold)`, m, notes);
      const target = spec === UNCACHED_COUNT_SCENARIO ? 0.3 : spec.target;
      const ratio = m.rps / raw.rps;
      out.push({ name: `${spec === UNCACHED_COUNT_SCENARIO ? 'search: new filter each request' : spec.name} (cold)`, kind: spec.kind, paths: paths.length, target, app: m, baseline: raw, ratio, pass: ratio >= target });
    }
    return out;
  });
}

async function scaleRun(options: Options, db: BenchDatabase, notes: string[]) {
  const scenarios = selected(options, [...SEARCH_SCENARIOS, UNCACHED_COUNT_SCENARIO]);
  const app = await startApp(db, [], options.serverEnv);
  return withServers([app], async () => {
    process.stdout.write(`\nscale check, ${db.lawyers.toLocaleString('en')} lawyers\n`);
    const search: Array<{ name: string; path: string; m: Measurement }> = [];
    for (const spec of scenarios) {
      const paths = spec.paths([], { widgetKey: '' });
      const m = await measureApp(options, app, paths, spec.name.padEnd(26));
      warn(`${spec.name} @${db.lawyers}`, m, notes);
      search.push({ name: spec.name, path: paths[0]!, m });
    }
    const mem = memory(app.pid);
    return { lawyers: db.lawyers, search, peakRssMb: mem.peakRssMb, maxRssUnderLoadMb: Math.max(0, ...search.map((s) => s.m.serverRssMaxMb)) };
  });
}

async function profileRun(options: Options, db: BenchDatabase): Promise<Record<string, ProfileSummary>> {
  const out: Record<string, ProfileSummary> = {};
  const { bench, env } = await benchContext(db, selected(options, SCENARIOS));
  const serverEnv = { ...env, ...options.serverEnv };
  const ids = await (async () => {
    const app = await startApp(db, [], serverEnv);
    return withServers([app], () => discoverLawyerIds(app.url, options.ids, options.load.headers));
  })();
  for (const spec of selected(options, SCENARIOS)) {
    const dir = path.join(BENCH_DIR, 'profiles', spec.name.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, ''));
    fs.rmSync(dir, { recursive: true, force: true });
    // A fresh process per scenario, so each profile holds one endpoint's work only.
    const app = await startApp(db, ['--cpu-prof', `--cpu-prof-dir=${dir}`], serverEnv);
    const paths = spec.paths(ids, bench);
    let m: Measurement;
    try {
      await capture(app.url, paths, options.load.headers);
      m = await measure({ url: app.url, pid: app.pid }, paths, options.load);
    } finally {
      await app.stop();
    }
    // Files are named CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main
    // thread (others are loader-hook workers).
    const file = fs.readdirSync(dir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (!file) {
      process.stdout.write(`${spec.name}: no profile written (did the server exit cleanly?)\n`);
      continue;
    }
    const summary = summarizeProfile(path.join(dir, file), 30, m.windowUs);
    out[spec.name] = summary;
    process.stdout.write(`\n${renderProfile(`${spec.name} (${db.lawyers.toLocaleString('en')} lawyers, profiled: ${fmt(m)})`, summary)}\n  profile: ${path.relative(ROOT, path.join(dir, file))}\n`);
  }
  return out;
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2));
  if (!options) {
    process.stdout.write(`${HELP}\n`);
    return;
  }
  fs.mkdirSync(BENCH_DIR, { recursive: true });
  const started = new Date();
  const machine = {
    cpu: cpuModel(),
    cores: os.availableParallelism(),
    memory_gb: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    clk_tck: clockTicksPerSecond(),
  };
  const commit = gitDescribe();
  process.stdout.write(`consulta bench — ${started.toISOString()} — ${machine.cores} × ${machine.cpu}, Node ${machine.node}, commit ${commit ?? '?'}${Object.keys(options.serverEnv).length ? `, service env ${Object.entries(options.serverEnv).map(([k, v]) => `${k}=${v}`).join(' ')}` : ''}\n`);

  const dbDir = path.join(BENCH_DIR, 'db');
  const mainDb = await benchDatabase(dbDir, options.lawyers, options.seed, options.reseed);

  if (options.profile) {
    const profiles = await profileRun(options, mainDb);
    const file = path.join(BENCH_DIR, 'profile-summary.json');
    fs.writeFileSync(file, `${JSON.stringify({ date: started.toISOString(), commit, machine, lawyers: mainDb.lawyers, load: options.load, profiles }, null, 2)}\n`);
    process.stdout.write(`\nwrote ${path.relative(ROOT, file)}\n`);
    return;
  }

  const scaleDbs: BenchDatabase[] = [];
  if (!options.skipScale) {
    for (const size of options.scaleSizes) {
      scaleDbs.push(size === mainDb.lawyers ? mainDb : await benchDatabase(dbDir, size, options.seed, options.reseed));
    }
  }

  const notes: string[] = [];
  // `--only mcp` selects none of the main table's scenarios.
  const main = selected(options, SCENARIOS).length > 0 ? await mainBench(options, mainDb, notes) : { results: [], memoryRows: [], ids: 0, logBytes: 0 };

  const cold = options.skipCold ? [] : await coldRun(options, mainDb, main.results, notes);

  // MCP: tools/call search_lawyers with an OAuth token, against its own raw baseline (bench/mcp.ts).
  const runMcp = options.only.length === 0 || options.only.some((o) => MCP_SCENARIO.toLowerCase().includes(o));
  const mcp = runMcp ? await mcpBench(mainDb, { load: options.load, quick: options.quick, quietWaitMs: options.quietWaitMs, serverEnv: options.serverEnv }) : null;

  const scaleRuns: Awaited<ReturnType<typeof scaleRun>>[] = [];
  for (const db of scaleDbs) scaleRuns.push(await scaleRun(options, db, notes));

  if (main.results.length > 0) process.stdout.write(`\n## Hot read endpoints, ${mainDb.lawyers.toLocaleString('en')} lawyers (SQLite)\n\n${scenarioTable(main.results)}\n`);
  if (cold.length > 0) {
    process.stdout.write(`\n## Cold cache (informational: raw figures from the table above)\n\n${scenarioTable(cold)}\n`);
  }
  if (mcp) process.stdout.write(`\n## MCP, ${mainDb.lawyers.toLocaleString('en')} lawyers (SQLite)\n\n${mcpTable(mcp)}\n`);
  const memoryRows = [...main.memoryRows];
  let scaleRows: ScaleRow[] = [];
  if (scaleRuns.length >= 2) {
    const small = scaleRuns[0]!;
    const large = scaleRuns[scaleRuns.length - 1]!;
    const sizes = scaleRuns.map((r) => r.lawyers);
    // The main run's search figures sit between the two sizes when its size is not one of them.
    const mainSearch = main.results.filter((r) => r.kind === 'search');
    const withMain = !sizes.includes(mainDb.lawyers) && mainSearch.length > 0;
    const tableSizes = withMain ? [...sizes, mainDb.lawyers].sort((a, b) => a - b) : sizes;
    scaleRows = small.search.map((s) => {
      const bySize: ScaleRow['bySize'] = {};
      for (const run of scaleRuns) {
        const m = run.search.find((x) => x.name === s.name)?.m;
        if (m) bySize[run.lawyers] = { p50Ms: m.p50Ms, p99Ms: m.p99Ms, rps: m.rps, cpuMsPerReq: m.serverCpuMsPerReq, otherCores: m.otherCores };
      }
      const fromMain = mainSearch.find((r) => r.name === s.name)?.app;
      if (withMain && fromMain) {
        bySize[mainDb.lawyers] = { p50Ms: fromMain.p50Ms, p99Ms: fromMain.p99Ms, rps: fromMain.rps, cpuMsPerReq: fromMain.serverCpuMsPerReq, otherCores: fromMain.otherCores };
      }
      const ratio = (bySize[large.lawyers]?.p50Ms ?? Number.NaN) / (bySize[small.lawyers]?.p50Ms ?? Number.NaN);
      const informational = s.name === UNCACHED_COUNT_SCENARIO.name;
      return { name: s.name, bySize, ratio, pass: informational ? null : ratio <= SCALE_TARGET };
    });
    process.stdout.write(`\n## Search scale check\n\n${scaleTable(scaleRows, tableSizes, SCALE_TARGET)}\n`);
    for (const run of scaleRuns) {
      const isLargest = run === large;
      memoryRows.push({
        server: 'app (search load)',
        lawyers: run.lawyers,
        peakRssMb: run.peakRssMb,
        maxRssUnderLoadMb: run.maxRssUnderLoadMb,
        targetMb: isLargest ? RSS_TARGET_MB : null,
        pass: isLargest ? run.peakRssMb < RSS_TARGET_MB : null,
      });
    }
  }
  if (memoryRows.length > 0) process.stdout.write(`\n## Server memory\n\n${memoryTable(memoryRows)}\n`);
  if (notes.length) process.stdout.write(`\nAnomalies (non-2xx answers or socket errors during load):\n${notes.map((n) => `  - ${n}`).join('\n')}\n`);
  const missed = [
    ...main.results.filter((r) => !r.pass).map((r) => `${r.name}: ${(r.ratio * 100).toFixed(0)} % of raw (target ${(r.target * 100).toFixed(0)} %)`),
    ...scaleRows.filter((r) => r.pass === false).map((r) => `${r.name}: p50 grows ${r.ratio.toFixed(2)} × (target ≤ ${SCALE_TARGET} ×)`),
    ...memoryRows.filter((r) => r.pass === false).map((r) => `RSS with ${r.lawyers} lawyers: ${r.peakRssMb.toFixed(0)} MB (target < ${r.targetMb} MB)`),
    ...(mcp && !mcp.pass ? [`${mcp.name}: ${(mcp.ratio * 100).toFixed(0)} % of raw (target ${(mcp.target * 100).toFixed(0)} %)`] : []),
    ...(mcp && !mcp.tokenCheckPass ? [`cached token check: ${(mcp.tokenCheck.cachedMs * 1000).toFixed(1)} µs (target ≤ 50 µs)`] : []),
  ];
  process.stdout.write(missed.length ? `\nTargets missed:\n${missed.map((m) => `  ✗ ${m}`).join('\n')}\n` : '\nAll targets met.\n');

  const file = path.join(BENCH_DIR, 'results.json');
  const report = {
    date: started.toISOString(),
    finished: new Date().toISOString(),
    commit,
    machine,
    options: { ...options.load, headers: Object.keys(options.load.headers ?? {}), quick: options.quick, only: options.only, ids: main.ids, seed: options.seed, quiet_wait_s: options.quietWaitMs / 1000, retries: options.retries, server_env: options.serverEnv },
    databases: [mainDb, ...scaleDbs.filter((d) => d !== mainDb)].map((d) => ({ lawyers: d.lawyers, seed: d.seed, reference_date: d.referenceDate, file: path.relative(ROOT, d.file), seeded_seconds: d.seededSeconds })),
    targets: { search: 0.3, lawyer: 0.4, reference: 0.7, scale_p50_ratio: SCALE_TARGET, rss_mb: RSS_TARGET_MB },
    scenarios: main.results,
    cold,
    mcp,
    app_log_bytes: main.logBytes,
    scale: { runs: scaleRuns.map((r) => ({ lawyers: r.lawyers, peak_rss_mb: r.peakRssMb, max_rss_under_load_mb: r.maxRssUnderLoadMb, search: r.search })), rows: scaleRows },
    memory: memoryRows,
    anomalies: notes,
    missed,
  };
  fs.writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  process.stdout.write(`\nwrote ${path.relative(ROOT, file)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    // Missed targets exit 0 (a benchmark is not a gate); a bench that could not run exits 1.
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
