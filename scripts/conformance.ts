/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, pinned below) against a
 * real listening server of ours: the applicable server scenarios and the authorization server's
 * metadata scenario. Failing checks are compared with test/conformance/expected-failures.json;
 * any other failure exits 1, and so does an expected failure that now passes (stale entry).
 *
 *   node --import tsx scripts/conformance.ts            # all runs below
 *   node --import tsx scripts/conformance.ts --only tools-list,server-stateless
 *   node --import tsx scripts/conformance.ts --keep      # keep the results folder
 *
 * How: a fresh SQLite database in a temporary folder, `startServer` on a free loopback port, a
 * person who connected an app through the real OAuth flow (registration, PKCE, consent, code
 * exchange) at every level. The suite's server scenarios have no way to send a token, so the
 * server sits behind a small forwarder, as behind a reverse proxy: SITE_URL (and so MCP_URL and
 * the issuer) is the forwarder's address, which adds `Authorization: Bearer <token>` to MCP
 * requests that carry none and passes everything else through unchanged (Host and Origin
 * included: the DNS-rebinding checks reach our server as sent). The suite runs under Node 22
 * from the npm registry (`npx -y -p node@22`), as it requires.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config.ts';
import { LEVELS } from '../src/domain/oauth/levels.ts';
import { startServer, type RunningServer } from '../src/server.ts';
import type { TestContext } from '../test/support/app.ts';
import { connectedAgent } from '../test/mcp/support.ts';

/** The suite's version: pinned, so a new release never changes CI's verdict by itself. */
export const CONFORMANCE_PACKAGE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const EXPECTED_FILE = path.join('test', 'conformance', 'expected-failures.json');

interface Run {
  /** The name in the expected-failures file and the report. */
  id: string;
  kind: 'server' | 'authorization';
  scenario: string;
  specVersion?: string;
}

/**
 * What runs. The server scenarios that apply to a server with our tools (the others call the
 * reference server's fixture tools, prompts and resources, which we do not have), each at every
 * protocol revision our one endpoint serves that the scenario covers.
 */
const RUNS: Run[] = [
  { id: 'server-initialize@2025-11-25', kind: 'server', scenario: 'server-initialize', specVersion: '2025-11-25' },
  { id: 'tools-list@2025-11-25', kind: 'server', scenario: 'tools-list', specVersion: '2025-11-25' },
  { id: 'tools-list@2026-07-28', kind: 'server', scenario: 'tools-list', specVersion: '2026-07-28' },
  { id: 'dns-rebinding-protection@2025-11-25', kind: 'server', scenario: 'dns-rebinding-protection', specVersion: '2025-11-25' },
  { id: 'dns-rebinding-protection@2026-07-28', kind: 'server', scenario: 'dns-rebinding-protection', specVersion: '2026-07-28' },
  { id: 'server-stateless@2026-07-28', kind: 'server', scenario: 'server-stateless', specVersion: '2026-07-28' },
  { id: 'http-header-validation@2026-07-28', kind: 'server', scenario: 'http-header-validation', specVersion: '2026-07-28' },
  { id: 'authorization-server-metadata-endpoint', kind: 'authorization', scenario: 'authorization-server-metadata-endpoint' },
];

interface Check {
  id: string;
  name?: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';
  errorMessage?: string;
}

interface ExpectedFailure {
  run: string;
  check: string;
  reason: string;
}

async function freePort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as net.AddressInfo).port;
  server.close();
  await once(server, 'close');
  return port;
}

interface Forwarder {
  /** The token to add to MCP requests (set once the person has connected the app). */
  token: string | null;
  close(): Promise<void>;
}

/** Passes requests on `port` through to `target`, adding the bearer token to MCP requests that have none. */
async function startForwarder(port: number, target: URL, mcpPath: string): Promise<Forwarder> {
  const agent = new http.Agent({ keepAlive: true });
  const forwarder: Forwarder = { token: null, close: async () => {} };
  const server = http.createServer((req, res) => {
    const headers = { ...req.headers };
    if (forwarder.token && (req.url ?? '').split('?')[0] === mcpPath) headers.authorization ??= `Bearer ${forwarder.token}`;
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
      answer.pipe(res);
    });
    upstream.on('error', (err) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`forwarder: ${err.message}`);
    });
    req.pipe(upstream);
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  forwarder.close = async () => {
    server.closeAllConnections();
    server.close();
    agent.destroy();
  };
  return forwarder;
}

/** Runs the suite's CLI under Node 22; resolves with its exit code (output goes to the log file). */
function runSuite(args: string[], log: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const out = fs.openSync(log, 'w');
    const child = spawn('npx', ['-y', '-p', 'node@22', '-p', CONFORMANCE_PACKAGE, '--', 'conformance', ...args], { stdio: ['ignore', out, out] });
    child.on('error', reject);
    child.on('exit', (code) => {
      fs.closeSync(out);
      resolve(code ?? 1);
    });
  });
}

/** Every checks.json under `dir`. */
function readChecks(dir: string): Check[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => path.basename(f) === 'checks.json')
    .flatMap((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as Check[]);
}

/** One verdict per check id (ids repeat within a run), the most severe first, as the suite does. */
function verdicts(checks: Check[]): Map<string, Check> {
  const rank = { FAILURE: 4, WARNING: 3, SUCCESS: 2, INFO: 1, SKIPPED: 0 } as const;
  const out = new Map<string, Check>();
  for (const c of checks) {
    const seen = out.get(c.id);
    if (!seen || rank[c.status] > rank[seen.status]) out.set(c.id, c);
  }
  return out;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { only: { type: 'string' }, keep: { type: 'boolean', default: false } } });
  const only = values.only?.split(',').map((s) => s.trim()).filter(Boolean);
  const runs = only ? RUNS.filter((r) => only.some((o) => r.id.includes(o))) : RUNS;
  const expected = JSON.parse(fs.readFileSync(EXPECTED_FILE, 'utf8')) as { failures: ExpectedFailure[] };
  const unknown = expected.failures.filter((f) => !RUNS.some((r) => r.id === f.run) || !f.check || !f.reason);
  if (unknown.length > 0) throw new Error(`${EXPECTED_FILE}: entries without a known run, a check or a reason: ${JSON.stringify(unknown)}`);

  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-conformance-'));
  const port = await freePort();
  const site = `http://127.0.0.1:${await freePort()}`;
  const config = loadConfig(
    { SITE_URL: site, LOG_LEVEL: 'silent', FENCE_SECRET: 'conformance-fence-secret-0123456789' },
    { port, host: '127.0.0.1', databaseUrl: `sqlite:${path.join(work, 'conformance.db')}`, rateLimitMultiplier: 1000 },
  );
  let server: RunningServer | undefined;
  let forwarder: Forwarder | undefined;
  try {
    server = await startServer(config);
    const mcpPath = new URL(config.mcpUrl).pathname;
    forwarder = await startForwarder(new URL(site).port === '' ? 80 : Number(new URL(site).port), new URL(server.url), mcpPath);
    const ctx = { app: server.app, config, database: server.database, clock: { now: () => new Date() } } as unknown as TestContext;
    const agent = await connectedAgent(ctx, 'conformance@example.com', LEVELS.join(' '), 'Conformance Suite');
    forwarder.token = agent.accessToken;
    console.log(`conformance: ${CONFORMANCE_PACKAGE} against ${config.mcpUrl} and ${site}/oauth (the server at ${server.url}, behind a forwarder adding the token)`);

    const unexpected: string[] = [];
    const stale: string[] = [];
    const summary: Array<{ run: string; passed: number; failed: number; expected: number; warnings: number }> = [];
    for (const run of runs) {
      const dir = path.join(work, run.id.replace(/[^a-z0-9.-]+/gi, '_'));
      const log = `${dir}.log`;
      const args =
        run.kind === 'server'
          ? ['server', '--url', config.mcpUrl, '--scenario', run.scenario, '-o', dir, ...(run.specVersion ? ['--spec-version', run.specVersion] : [])]
          : ['authorization', '--url', `${site}/oauth`, '--scenario', run.scenario, '-o', dir];
      const code = await runSuite(args, log);
      const checks = verdicts(readChecks(dir));
      if (checks.size === 0) {
        unexpected.push(`${run.id}: no results (exit ${code}); see ${log}`);
        console.log(fs.readFileSync(log, 'utf8').slice(-3000));
        continue;
      }
      const allowed = new Map(expected.failures.filter((f) => f.run === run.id).map((f) => [f.check, f]));
      let passed = 0;
      let failed = 0;
      let excused = 0;
      let warnings = 0;
      for (const c of checks.values()) {
        if (c.status === 'FAILURE') {
          failed++;
          if (allowed.has(c.id)) excused++;
          else unexpected.push(`${run.id}: ${c.id}: ${c.errorMessage ?? c.name ?? ''}`);
        } else if (c.status === 'SUCCESS') {
          passed++;
          if (allowed.has(c.id)) stale.push(`${run.id}: ${c.id} now passes; remove it from ${EXPECTED_FILE}`);
        } else if (c.status === 'WARNING') {
          warnings++;
          console.log(`  warning ${run.id}: ${c.id}: ${c.errorMessage ?? ''}`);
        }
      }
      summary.push({ run: run.id, passed, failed, expected: excused, warnings });
      console.log(`${failed === excused ? '✔' : '✖'} ${run.id}: ${passed} passed, ${failed} failed (${excused} expected), ${warnings} warnings`);
    }

    console.log('\nrun | passed | failed (expected) | warnings');
    for (const s of summary) console.log(`${s.run} | ${s.passed} | ${s.failed} (${s.expected}) | ${s.warnings}`);
    for (const u of unexpected) console.log(`UNEXPECTED FAILURE ${u}`);
    for (const s of stale) console.log(`STALE EXPECTATION ${s}`);
    if (values.keep) console.log(`results kept in ${work}`);
    return unexpected.length + stale.length > 0 ? 1 : 0;
  } finally {
    await forwarder?.close();
    await server?.stop();
    if (!values.keep) fs.rmSync(work, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
