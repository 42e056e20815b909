/**
 * Webhook delivery benchmark (not a test):
 *
 *   npx tsx bench/webhooks.ts [--database sqlite|postgres|both] [--events-per-second N] [--seconds S]
 *
 * 1. Throughput: 5,000 messages (250 events × 20 endpoints) to a local receiver, with the default
 *    dispatcher settings; deliveries per second, beside a raw undici client POSTing the same
 *    bytes to the same receiver with the same concurrency (our ceiling on this machine).
 * 2. Isolation: 50 fast endpoints and one that answers after 10 s, all subscribed to the same
 *    events, which arrive at a steady rate; the fast endpoints' latency (event written → request
 *    received) p50/p99/max. Target: p99 < 1 s.
 *
 * The receiver runs in a child process (so that it does not share the dispatcher's event loop).
 * PostgreSQL: TEST_DATABASE_URL or postgres://postgres@127.0.0.1:5432/test, a temporary database.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { Agent } from 'undici';
import { systemClock } from '../src/clock.ts';
import { loadConfig, type Config } from '../src/config.ts';
import { openDatabase, type Database } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { AccountsService } from '../src/domain/access/accounts.service.ts';
import type { Logger } from '../src/domain/notify/mailer.ts';
import { Notifier } from '../src/domain/notify/notifier.ts';
import { WebhookDispatcher } from '../src/domain/webhooks/dispatcher.ts';
import { WebhookEndpointsService } from '../src/domain/webhooks/endpoints.service.ts';

const SLOW_MS = 10_000;

// ---------------------------------------------------------------- receiver (child process)

interface ReceiverStats {
  fast: number;
  slow: number;
  raw: number;
  latencies: number[];
}

function runReceiver(): void {
  const stats: ReceiverStats = { fast: 0, slow: 0, raw: 0, latencies: [] };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = req.url ?? '';
      if (url.startsWith('/raw')) {
        stats.raw++;
        res.end('ok');
        return;
      }
      const received = Date.now();
      let createdAt = received;
      try {
        createdAt = Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at: string }).created_at);
      } catch {
        // not a webhook payload
      }
      if (url === '/slow') {
        stats.slow++;
        setTimeout(() => res.end('ok'), SLOW_MS).unref();
        return;
      }
      stats.fast++;
      stats.latencies.push(received - createdAt);
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 5_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.send!({ port: address.port });
  });
  process.on('message', (msg: { cmd: string }) => {
    if (msg.cmd === 'stats') process.send!({ stats: { fast: stats.fast, slow: stats.slow, raw: stats.raw, latencies: [] } });
    else if (msg.cmd === 'latencies') process.send!({ stats });
    else if (msg.cmd === 'reset') {
      stats.fast = 0;
      stats.slow = 0;
      stats.raw = 0;
      stats.latencies = [];
      process.send!({ reset: true });
    } else if (msg.cmd === 'exit') process.exit(0);
  });
}

class ReceiverClient {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  static async start(): Promise<ReceiverClient> {
    const child = fork(fileURLToPath(import.meta.url), ['--receiver'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (m: { port: number }) => resolve(m.port));
      child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
    });
    return new ReceiverClient(child, `http://127.0.0.1:${port}`);
  }

  private ask<T>(cmd: string, key: string): Promise<T> {
    return new Promise((resolve) => {
      const onMessage = (m: Record<string, unknown>) => {
        if (key in m) {
          this.child.off('message', onMessage);
          resolve(m[key] as T);
        }
      };
      this.child.on('message', onMessage);
      this.child.send({ cmd });
    });
  }

  stats(): Promise<ReceiverStats> {
    return this.ask('stats', 'stats');
  }
  latencies(): Promise<ReceiverStats> {
    return this.ask('latencies', 'stats');
  }
  async reset(): Promise<void> {
    await this.ask('reset', 'reset');
  }
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.send({ cmd: 'exit' });
    await exited;
  }
}

// ---------------------------------------------------------------- databases

interface BenchDatabase {
  name: 'sqlite' | 'postgres';
  database: Database;
  drop(): Promise<void>;
}

async function createDatabase(kind: 'sqlite' | 'postgres'): Promise<BenchDatabase> {
  if (kind === 'sqlite') {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-bench-webhooks-'));
    const database = openDatabase(`sqlite:${path.join(dir, 'bench.db')}`);
    await migrateToLatest(database);
    return {
      name: 'sqlite',
      database,
      async drop() {
        await database.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const adminUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `consulta_bench_wh_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = openDatabase(url.toString(), { poolSize: 10 });
  await migrateToLatest(database);
  return {
    name: 'postgres',
    database,
    async drop() {
      await database.close();
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

// ---------------------------------------------------------------- scenario helpers

const SILENT: Logger = { info() {}, warn() {}, error() {} };

function benchConfig(): Config {
  // The defaults an operator gets, except that loopback targets must be allowed here.
  return loadConfig({ LOG_LEVEL: 'silent', WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' });
}

function services(database: Database, config: Config) {
  const notifier = new Notifier({ database, mailer: { send: async () => {}, close: async () => {} }, clock: systemClock, logger: SILENT });
  const accounts = new AccountsService({ database, clock: systemClock, notifier });
  const endpoints = new WebhookEndpointsService({ database, clock: systemClock, config, accounts });
  const dispatcher = new WebhookDispatcher({ database, clock: systemClock, config, notifier, logger: SILENT });
  return { accounts, endpoints, dispatcher };
}

async function owner(database: Database, config: Config, urls: string[]): Promise<{ userId: string }> {
  const { accounts, endpoints } = services(database, config);
  const email = `bench-${randomUUID()}@example.com`;
  const user = await accounts.ensureUser(email);
  for (const url of urls) await endpoints.create({ type: 'operator' }, { ownerEmail: email }, { url });
  // Registered "before" every event of the run.
  await database.db.updateTable('webhook_endpoints').set({ created_at: '2000-01-01T00:00:00.000Z' }).execute();
  return { userId: user.id };
}

async function emitEvents(database: Database, userId: string, n: number): Promise<void> {
  const now = new Date().toISOString();
  const rows = Array.from({ length: n }, () => {
    const intent = randomUUID();
    return {
      id: `evt_${randomUUID().replaceAll('-', '')}`,
      type: 'booking_intent.confirmed',
      booking_intent_id: intent,
      key_id: randomUUID(),
      owner_type: 'user',
      owner_id: userId,
      data: JSON.stringify({ booking_intent_id: intent, status: 'confirmed', lawyer_id: randomUUID(), slot: { date: '2026-12-01', start_time: '10:00:00', end_time: '11:00:00' }, confirmed_at: now }),
      created_at: now,
      published_at: null,
    };
  });
  for (let i = 0; i < rows.length; i += 100) await database.db.insertInto('outbox_events').values(rows.slice(i, i + 100)).execute();
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// ---------------------------------------------------------------- scenarios

interface Row {
  scenario: string;
  database: string;
  deliveries: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  target: string;
  pass: boolean | null;
}

async function rawBaseline(receiver: ReceiverClient, count: number, concurrency: number): Promise<Row> {
  const agent = new Agent({ keepAliveTimeout: 4_000 });
  const body = JSON.stringify({ id: `evt_${'0'.repeat(32)}`, type: 'booking_intent.confirmed', created_at: new Date().toISOString(), data: { booking_intent_id: randomUUID(), status: 'confirmed' } });
  const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_x', 'webhook-timestamp': '0', 'webhook-signature': `v1,${'A'.repeat(43)}=` };
  await receiver.reset();
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const res = await agent.request({ origin: receiver.url, path: '/raw', method: 'POST', headers, body });
        await res.body.dump();
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return { scenario: `raw undici POST, ${concurrency} concurrent (ceiling)`, database: '–', deliveries: count, seconds, perSecond: count / seconds, p50: Number.NaN, p99: Number.NaN, max: Number.NaN, target: '', pass: null };
}

async function throughput(kind: 'sqlite' | 'postgres', receiver: ReceiverClient): Promise<Row> {
  const bench = await createDatabase(kind);
  const config = benchConfig();
  try {
    const endpoints = 20;
    const events = 250;
    const { userId } = await owner(bench.database, config, Array.from({ length: endpoints }, (_, i) => `${receiver.url}/fast/${i}`));
    await emitEvents(bench.database, userId, events);
    await receiver.reset();
    const { dispatcher } = services(bench.database, config);
    const total = endpoints * events;
    const started = performance.now();
    dispatcher.start();
    await until('every delivery', async () => (await receiver.stats()).fast >= total, 120_000);
    const seconds = (performance.now() - started) / 1000;
    await dispatcher.stop();
    console.error(`  (${kind}) ${dispatcher.stats.claimQueries} claim queries, ${dispatcher.stats.commits} outcome commits for ${dispatcher.stats.attempts} attempts`);
    return { scenario: `throughput: ${events} events × ${endpoints} endpoints (fan-out included)`, database: kind, deliveries: total, seconds, perSecond: total / seconds, p50: Number.NaN, p99: Number.NaN, max: Number.NaN, target: '', pass: null };
  } finally {
    await bench.drop();
  }
}

async function isolation(kind: 'sqlite' | 'postgres', receiver: ReceiverClient, eventsPerSecond: number, seconds: number): Promise<Row> {
  const bench = await createDatabase(kind);
  const config = benchConfig();
  try {
    const urls = [`${receiver.url}/slow`, ...Array.from({ length: 50 }, (_, i) => `${receiver.url}/fast/${i}`)];
    const { userId } = await owner(bench.database, config, urls);
    await receiver.reset();
    const { dispatcher } = services(bench.database, config);
    dispatcher.start();
    const started = performance.now();
    let emitted = 0;
    // A steady stream of events, each fanned out to the 51 endpoints.
    const tickMs = 100;
    const perTick = eventsPerSecond / (1000 / tickMs);
    let credit = 0;
    while (performance.now() - started < seconds * 1000) {
      credit += perTick;
      const n = Math.floor(credit);
      credit -= n;
      if (n > 0) await emitEvents(bench.database, userId, n);
      emitted += n;
      await new Promise((r) => setTimeout(r, tickMs));
    }
    const fastTotal = emitted * 50;
    await until('every fast delivery', async () => (await receiver.stats()).fast >= fastTotal, 60_000);
    const elapsed = (performance.now() - started) / 1000;
    const { latencies, slow } = await receiver.latencies();
    const sorted = [...latencies].sort((a, b) => a - b);
    const slowMessages = await bench.database.db.selectFrom('webhook_messages').innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_messages.endpoint_id').select(['webhook_messages.status']).where('webhook_endpoints.url', 'like', '%/slow').execute();
    await dispatcher.stop().catch(() => {});
    const p99 = percentile(sorted, 99);
    console.error(`  (${kind}) slow endpoint: ${slow} requests received, ${slowMessages.filter((m) => m.status === 'pending').length} of ${slowMessages.length} messages still waiting — as expected`);
    return {
      scenario: `isolation: 50 fast + 1 endpoint answering after ${SLOW_MS / 1000} s, ${eventsPerSecond} events/s for ${seconds} s; fast latency`,
      database: kind,
      deliveries: fastTotal,
      seconds: elapsed,
      perSecond: fastTotal / elapsed,
      p50: percentile(sorted, 50),
      p99,
      max: sorted[sorted.length - 1] ?? Number.NaN,
      target: 'p99 < 1000 ms',
      pass: p99 < 1000,
    };
  } finally {
    await bench.drop();
  }
}

function table(rows: Row[]): string {
  const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d }) : '–');
  const header = ['Scenario', 'DB', 'Deliveries', 'Seconds', 'Deliveries/s', 'p50 ms', 'p99 ms', 'max ms', 'Target', ''];
  const body = rows.map((r) => [r.scenario, r.database, fmt(r.deliveries), fmt(r.seconds, 2), fmt(r.perSecond), fmt(r.p50), fmt(r.p99), fmt(r.max), r.target, r.pass === null ? '' : r.pass ? '✓' : '✗ MISS']);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const right = [false, false, true, true, true, true, true, true, false, false];
  const line = (cells: string[]) => `| ${cells.map((c, i) => (right[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (right[i] ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      database: { type: 'string', default: 'sqlite' },
      'events-per-second': { type: 'string', default: '5' },
      seconds: { type: 'string', default: '20' },
    },
  });
  const kinds: Array<'sqlite' | 'postgres'> = values.database === 'both' ? ['sqlite', 'postgres'] : values.database === 'postgres' ? ['postgres'] : ['sqlite'];
  const eventsPerSecond = Number(values['events-per-second']);
  const seconds = Number(values.seconds);
  const config = benchConfig();
  console.error(`webhook bench: ${os.cpus().length} CPUs, Node ${process.version}; WEBHOOK_CONCURRENCY=${config.webhookConcurrency}, WEBHOOK_ENDPOINT_CONCURRENCY=${config.webhookEndpointConcurrency}, WEBHOOK_DISPATCH_INTERVAL_MS=${config.webhookDispatchIntervalMs}, WEBHOOK_TIMEOUT_MS=${config.webhookTimeoutMs}`);
  const receiver = await ReceiverClient.start();
  const rows: Row[] = [];
  try {
    rows.push(await rawBaseline(receiver, 5000, config.webhookConcurrency));
    for (const kind of kinds) {
      console.error(`  ${kind}: throughput…`);
      rows.push(await throughput(kind, receiver));
      console.error(`  ${kind}: isolation (${seconds} s)…`);
      rows.push(await isolation(kind, receiver, eventsPerSecond, seconds));
    }
  } finally {
    await receiver.stop();
  }
  console.log(table(rows));
  const raw = rows[0]!.perSecond;
  for (const r of rows.slice(1).filter((x) => x.scenario.startsWith('throughput'))) {
    console.log(`\n${r.database}: ${Math.round(r.perSecond)} deliveries/s = ${((r.perSecond / raw) * 100).toFixed(0)} % of the raw client's ${Math.round(raw)} POST/s`);
  }
  process.exit(rows.every((r) => r.pass !== false) ? 0 : 1);
}

if (process.argv.includes('--receiver')) runReceiver();
else await main();
