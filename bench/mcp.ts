/**
 * The MCP benchmark: `tools/call search_lawyers` over HTTP with a valid OAuth access token, as a
 * 2026-07-28 client sends it (one stateless POST, no session), against the raw `node:http`
 * server answering the same bytes; and the token check in-process, with a warm cache.
 *
 * The token is minted through the real OAuth flow (registration, PKCE, sign-in, consent, code
 * exchange: test/mcp/support.ts over `app.inject()`) by an app built in this process on the
 * service's database, before the service starts: the service then finds it in the token store
 * as it would any token. Part of `npm run bench` (scenario "mcp"); alone:
 *
 *   npx tsx bench/mcp.ts [--duration S] [--warmup S] [--connections N] [--quick]
 *
 * Targets: app ÷ raw ≥ 0.35; a cached token check ≤ 0.05 ms. Figures: docs/performance.md, MCP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { DatabaseAccessTokenVerifier } from '../src/domain/oauth/access-token-verifier.ts';
import { LEVELS } from '../src/domain/oauth/levels.ts';
import type { TestContext } from '../test/support/app.ts';
import { connectedAgent } from '../test/mcp/support.ts';
import { HOST, ROOT, freePort, spawnServer, type Child } from './children.ts';
import { combine, measure, waitForQuiet, type LoadOptions, type Measurement } from './load.ts';
import { renderProfile, summarizeProfile } from './profile.ts';
import { benchDatabase, type BenchDatabase } from './seed.ts';

export const MCP_SCENARIO = 'mcp: tools/call search_lawyers';
export const MCP_TARGET = 0.35;
/** The most a cached token check may add to a call, ms. */
export const TOKEN_CHECK_TARGET_MS = 0.05;

const BENCH_DIR = path.join(ROOT, '.bench');
const ARGUMENTS = { city: 'madrid', practice_area: 'residence' };

export interface McpBenchOptions {
  load: LoadOptions;
  quick: boolean;
  /** Wait up to this long for other processes to go quiet before measuring (0: do not wait). */
  quietWaitMs: number;
  serverEnv?: Record<string, string>;
  /** CPU-profile the service (node --cpu-prof) into this folder. */
  profileDir?: string;
  log?: (line: string) => void;
}

export interface TokenCheckFigures {
  /** A cached answer: SHA-256 of the token, a map read, the expiry check. */
  cachedMs: number;
  /** Every call a cache miss: the token store is read (SQLite, the service's own database). */
  uncachedMs: number;
  iterations: number;
}

export interface McpBenchResult {
  name: string;
  target: number;
  app: Measurement;
  raw: Measurement;
  ratio: number;
  pass: boolean;
  responseBytes: number;
  tokenCheck: TokenCheckFigures;
  tokenCheckPass: boolean;
}

/** The request a 2026-07-28 client sends for one call: no session, the revision in `_meta` and a header. */
function callRequest(token: string): { headers: Record<string, string>; body: string } {
  return {
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'search_lawyers',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'search_lawyers',
        arguments: ARGUMENTS,
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'consulta-bench', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    }),
  };
}

function scratchCopy(db: BenchDatabase): string {
  const dir = path.join(BENCH_DIR, 'run');
  fs.mkdirSync(dir, { recursive: true });
  const copy = path.join(dir, `mcp-${path.basename(db.file)}`);
  for (const suffix of ['', '-wal', '-shm', '-journal']) fs.rmSync(`${copy}${suffix}`, { force: true });
  for (const suffix of ['', '-wal']) if (fs.existsSync(`${db.file}${suffix}`)) fs.copyFileSync(`${db.file}${suffix}`, `${copy}${suffix}`);
  return copy;
}

/** Times `fn` over `iterations` calls after a warm-up; ms per call. */
async function perCall(iterations: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < Math.min(2000, iterations); i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < iterations; i++) await fn();
  return (performance.now() - t0) / iterations;
}

/**
 * Mints an access token for a person who connected an app at every level, in the database the
 * service will open, and measures the token check in-process on that database.
 */
async function mintAndMeasureVerifier(file: string, site: string, quick: boolean): Promise<{ token: string; tokenCheck: TokenCheckFigures }> {
  const config = loadConfig(
    { SITE_URL: site, LOG_LEVEL: 'silent', REQUEST_LOG: 'off' },
    // An hour: long enough for the whole of `npm run bench`.
    { databaseUrl: `sqlite:${file}`, oauthAccessTokenTtlSeconds: 3600, rateLimitMultiplier: 1000 },
  );
  const database = openDatabase(config.databaseUrl);
  try {
    const app = await buildApp({ config, database, clock: systemClock });
    try {
      await app.fastify.ready();
      const ctx = { app, config, database, clock: systemClock } as unknown as TestContext;
      const agent = await connectedAgent(ctx, 'bench-mcp@example.com', LEVELS.join(' '), 'Consulta Bench');
      const iterations = quick ? 50_000 : 200_000;
      // The service's verifier caches answers for 1 s; here for a minute, so every call is a hit.
      const cached = new DatabaseAccessTokenVerifier({ database, clock: systemClock, audience: config.mcpUrl, cacheTtlMs: 60_000 });
      const cachedMs = await perCall(iterations, () => cached.verify(agent.accessToken));
      const uncached = new DatabaseAccessTokenVerifier({ database, clock: systemClock, audience: config.mcpUrl, cacheTtlMs: 0 });
      const uncachedMs = await perCall(Math.round(iterations / 20), () => uncached.verify(agent.accessToken));
      if (!(await cached.verify(agent.accessToken))) throw new Error('the minted token does not verify');
      return { token: agent.accessToken, tokenCheck: { cachedMs, uncachedMs, iterations } };
    } finally {
      await app.fastify.close();
    }
  } finally {
    await database.close();
  }
}

/** One call's answer, checked: a 200 whose result is not an error. */
async function call(url: string, request: { headers: Record<string, string>; body: string }): Promise<{ status: number; contentType: string; body: Buffer }> {
  const res = await fetch(url, { method: 'POST', headers: request.headers, body: request.body, signal: AbortSignal.timeout(30_000) });
  const body = Buffer.from(await res.arrayBuffer());
  const text = body.toString('utf8');
  if (res.status !== 200) throw new Error(`tools/call answered ${res.status}: ${text.slice(0, 300)}`);
  const json = JSON.parse(text) as { result?: { isError?: boolean; structuredContent?: { lawyers?: unknown[] } }; error?: unknown };
  if (!json.result || json.result.isError || !Array.isArray(json.result.structuredContent?.lawyers)) throw new Error(`tools/call did not answer a search: ${text.slice(0, 300)}`);
  return { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', body };
}

export async function mcpBench(db: BenchDatabase, options: McpBenchOptions): Promise<McpBenchResult> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const file = scratchCopy(db);
  const port = await freePort();
  const site = `http://${HOST}:${port}`;
  const children: Child[] = [];
  try {
    const { token, tokenCheck } = await mintAndMeasureVerifier(file, site, options.quick);
    const app = await spawnServer({
      nodeArgs: [...(options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : []), 'bin/consulta.js', 'serve'],
      // As the main table's service (LOG_LEVEL=info, request log on), with the limits raised so
      // one person's app may call this often (RATE_LIMIT_MULTIPLIER scales every limit alike).
      env: { PORT: String(port), HOST, SITE_URL: site, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', TRUST_PROXY: HOST, RATE_LIMIT_MULTIPLIER: '100000', ...options.serverEnv },
      port,
      readyPath: '/readyz',
      logFile: path.join(BENCH_DIR, 'logs', `app-mcp-${db.lawyers}.log`),
    });
    children.push(app);
    const request = callRequest(token);
    const mcpPath = '/mcp';
    const answer = await call(`${app.url}${mcpPath}`, request);

    const responses = path.join(BENCH_DIR, 'baseline-mcp-responses.json');
    fs.writeFileSync(responses, JSON.stringify([{ path: mcpPath, status: answer.status, content_type: answer.contentType, body: answer.body.toString('base64') }]));
    const rawPort = await freePort();
    const raw = await spawnServer({
      nodeArgs: ['--import', 'tsx', 'bench/baseline-server.ts', responses, String(rawPort)],
      env: {},
      port: rawPort,
      readyPath: mcpPath,
      logFile: path.join(BENCH_DIR, 'logs', 'baseline-mcp.log'),
    });
    children.push(raw);
    const replay = await fetch(`${raw.url}${mcpPath}`, { method: 'POST', headers: request.headers, body: request.body });
    if (!Buffer.from(await replay.arrayBuffer()).equals(answer.body)) throw new Error('the baseline does not answer the service\'s bytes');

    const load: LoadOptions = { ...options.load, method: 'POST', body: request.body, headers: { ...options.load.headers, ...request.headers } };
    log(`\n${MCP_SCENARIO} (${db.lawyers.toLocaleString('en')} lawyers, ${answer.body.length} B answer, ${load.connections} connections, ${load.warmup} s warm-up + ${load.duration} s measured)`);
    if (options.quietWaitMs > 0) await waitForQuiet([app.pid, raw.pid], options.quietWaitMs, 0.25, (cores) => log(`    (waiting: other processes use ${cores.toFixed(2)} cores)`));
    const fmt = (m: Measurement) => `${Math.round(m.rps).toLocaleString('en').padStart(7)} req/s  p50 ${m.p50Ms.toFixed(2)} ms  p99 ${m.p99Ms.toFixed(2)} ms  cpu ${m.serverCpuMsPerReq.toFixed(3)} ms/req  other load ${m.otherCores.toFixed(2)}`;
    const run = async (name: string, target: Child) => {
      const m = await measure({ url: target.url, pid: target.pid }, [mcpPath], load);
      log(`    ${name}  ${fmt(m)}`);
      return m;
    };
    // App, raw, raw, app, as the main table (one pair with --quick).
    const app1 = await run('app', app);
    const raw1 = await run('raw', raw);
    let appM = app1;
    let rawM = raw1;
    if (!options.quick) {
      const raw2 = await run('raw', raw);
      const app2 = await run('app', app);
      appM = combine(app1, app2);
      rawM = combine(raw1, raw2);
    }
    // Every measured answer was a 200; this one shows they were still results, not refusals.
    await call(`${app.url}${mcpPath}`, request);
    const ratio = appM.rps / rawM.rps;
    log(`    app ÷ raw ${(ratio * 100).toFixed(0)} % (target ≥ ${MCP_TARGET * 100} %); token check, cached ${(tokenCheck.cachedMs * 1000).toFixed(2)} µs, uncached ${(tokenCheck.uncachedMs * 1000).toFixed(1)} µs (target ≤ ${TOKEN_CHECK_TARGET_MS * 1000} µs cached)`);
    return {
      name: MCP_SCENARIO,
      target: MCP_TARGET,
      app: appM,
      raw: rawM,
      ratio,
      pass: ratio >= MCP_TARGET,
      responseBytes: answer.body.length,
      tokenCheck,
      tokenCheckPass: tokenCheck.cachedMs <= TOKEN_CHECK_TARGET_MS,
    };
  } finally {
    await Promise.all(children.map((c) => c.stop()));
    for (const suffix of ['', '-wal', '-shm']) fs.rmSync(`${file}${suffix}`, { force: true });
  }
}

/** The table rows of the result, Markdown. */
export function mcpTable(r: McpBenchResult): string {
  const f = (n: number, d = 0) => n.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d });
  return [
    '| Scenario | App req/s | Raw req/s | App ÷ raw | Target | App p50 ms | App p99 ms | App CPU ms/req | Raw CPU ms/req |',
    '|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
    `| ${r.name} | ${f(r.app.rps)} | ${f(r.raw.rps)} | ${f(r.ratio * 100)} % | ≥ ${r.target * 100} % ${r.pass ? '✓' : '✗'} | ${f(r.app.p50Ms, 2)} | ${f(r.app.p99Ms, 2)} | ${f(r.app.serverCpuMsPerReq, 3)} | ${f(r.raw.serverCpuMsPerReq, 3)} |`,
    '',
    `Token check (in-process, ${f(r.tokenCheck.iterations)} calls): cached ${f(r.tokenCheck.cachedMs * 1000, 2)} µs per call (target ≤ ${TOKEN_CHECK_TARGET_MS * 1000} µs ${r.tokenCheckPass ? '✓' : '✗'}); a cache miss (the token store read from SQLite) ${f(r.tokenCheck.uncachedMs * 1000, 1)} µs.`,
  ].join('\n');
}

// Standalone: `npx tsx bench/mcp.ts`.
if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, warmup: { type: 'string' }, connections: { type: 'string' }, quick: { type: 'boolean' }, lawyers: { type: 'string' }, 'quiet-wait': { type: 'string' }, profile: { type: 'boolean' } } });
  const quick = values.quick === true;
  const db = await benchDatabase(path.join(BENCH_DIR, 'db'), Number(values.lawyers ?? 20_000), 7, false);
  const profileDir = values.profile ? path.join(BENCH_DIR, 'profiles', 'mcp') : undefined;
  if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
  const result = await mcpBench(db, {
    quick,
    profileDir,
    quietWaitMs: Number(values['quiet-wait'] ?? 0) * 1000,
    load: { connections: Number(values.connections ?? 10), duration: Number(values.duration ?? (quick ? 3 : 8)), warmup: Number(values.warmup ?? (quick ? 1 : 2)) },
  });
  process.stdout.write(`\n${mcpTable(result)}\n`);
  if (profileDir) {
    const file = fs.readdirSync(profileDir).find((f) => /\.\d+\.0\.\d+\.cpuprofile$/.test(f));
    if (file) process.stdout.write(`\n${renderProfile(`${MCP_SCENARIO} (profiled)`, summarizeProfile(path.join(profileDir, file), 70, result.app.windowUs), 70)}\n  profile: ${path.join(profileDir, file)}\n`);
  }
  process.exit(0);
}
