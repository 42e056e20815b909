/**
 * What one request costs the shared back ends (not a test; for the capacity table in
 * docs/operations.md): `npx tsx bench/round-trips.ts [--requests N] [--lawyers N]`.
 *
 * One `consulta serve` on PostgreSQL + Redis, as operated with several processes, reached through
 * two counting TCP relays on loopback, so the figures are the service's own traffic and nobody
 * else's on the same PostgreSQL or Redis (other processes' traffic would spoil `INFO
 * commandstats` or `pg_stat_database`, which are server-wide):
 * - PostgreSQL: statements (simple `Query` and extended-protocol `Execute` messages from the
 *   service) and round trips (`ReadyForQuery` messages back: one per exchange the service waits
 *   for), and the connections opened (in all, and most at once);
 * - Redis: commands, by name (each element of a pipeline counts).
 *
 * Per kind of request, N requests one after the other, keyed (an `internal` key; its rate limits
 * are counted in Redis like any other), after a first round that fills the caches: *cached* reads
 * ask again for the same 20 lawyers; *uncached* reads ask for a lawyer not asked for before. The
 * background jobs' own polling is measured while idle and subtracted; the request log's batch
 * (one per flush interval) is included, spread over the requests. Holds are distinct free slots
 * with an Idempotency-Key. The MCP call is `tools/call search_lawyers` with an OAuth token.
 */
import net from 'node:net';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { systemClock } from '../src/clock.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/database.ts';
import { LEVELS } from '../src/domain/oauth/levels.ts';
import { connectedAgent } from '../test/mcp/support.ts';
import type { TestContext } from '../test/support/app.ts';
import { freePort, HOST, ROOT, runToCompletion, spawnServer } from './children.ts';

const { values } = parseArgs({ options: { requests: { type: 'string' }, lawyers: { type: 'string' } } });
const N = Number(values.requests ?? 200);
const LAWYERS = Number(values.lawyers ?? 1000);
const PG_ADMIN = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS = new URL(process.env.TEST_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');

interface Counts {
  statements: number;
  roundTrips: number;
  connections: number;
  open: number;
  maxOpen: number;
  redis: Map<string, number>;
}

const counts: Counts = { statements: 0, roundTrips: 0, connections: 0, open: 0, maxOpen: 0, redis: new Map() };

/** Typed messages (1 byte type, 4 bytes length including itself), read across chunk boundaries. */
function messageReader(skipUntyped: boolean, onType: (type: number) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  let untyped = skipUntyped; // the startup message has no type byte
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = 0;
    for (;;) {
      if (untyped) {
        if (pending.length - at < 4) break;
        const len = pending.readInt32BE(at);
        if (pending.length - at < len) break;
        // An SSLRequest (80877103) is followed by another untyped startup message.
        const code = pending.readInt32BE(at + 4);
        at += len;
        if (code !== 80877103) untyped = false;
        continue;
      }
      if (pending.length - at < 5) break;
      const len = pending.readInt32BE(at + 1);
      if (pending.length - at < len + 1) break;
      onType(pending[at]!);
      at += len + 1;
    }
    pending = pending.subarray(at);
  };
}

/** Redis commands (RESP arrays of bulk strings), counted by name. */
function respReader(onCommand: (name: string) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    let at = 0;
    outer: for (;;) {
      if (at >= pending.length) break;
      let p = at;
      const line = () => {
        const end = pending.indexOf('\r\n', p);
        if (end < 0) return null;
        const text = pending.toString('latin1', p, end);
        p = end + 2;
        return text;
      };
      const head = line();
      if (head === null) break;
      if (head[0] !== '*') throw new Error(`unexpected RESP from the client: ${head}`);
      const n = Number(head.slice(1));
      let name = '';
      for (let i = 0; i < n; i++) {
        const size = line();
        if (size === null) break outer;
        const len = Number(size.slice(1));
        if (pending.length < p + len + 2) break outer;
        if (i === 0) name = pending.toString('latin1', p, p + len).toUpperCase();
        p += len + 2;
      }
      onCommand(name);
      at = p;
    }
    pending = pending.subarray(at);
  };
}

/** A TCP relay to `target` that lets `inspect` see what the client sends and what comes back. */
async function relay(
  target: { host: string; port: number },
  onClient: () => { fromClient: (b: Buffer) => void; fromServer: (b: Buffer) => void; closed?: () => void },
): Promise<{ port: number; close: () => void }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    const seen = onClient();
    sockets.add(client).add(upstream);
    client.on('data', (b) => {
      seen.fromClient(b);
      upstream.write(b);
    });
    upstream.on('data', (b) => {
      seen.fromServer(b);
      client.write(b);
    });
    let ended = false;
    const end = () => {
      if (!ended) seen.closed?.();
      ended = true;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, HOST, resolve));
  return {
    port,
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

const snapshot = () => ({ statements: counts.statements, roundTrips: counts.roundTrips, redis: new Map(counts.redis) });
type Snapshot = ReturnType<typeof snapshot>;
const redisTotal = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const name = `consulta_rt_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`drop database if exists ${name} with (force)`);
  await admin.query(`create database ${name}`);
  const direct = new URL(PG_ADMIN);
  direct.pathname = `/${name}`;
  const relays: Array<{ close: () => void }> = [];
  try {
    console.log(`seeding ${LAWYERS} lawyers on PostgreSQL (${name}) …`);
    await runToCompletion(['bin/consulta.js', 'seed', '--lawyers', String(LAWYERS), '--seed', '7', '--json'], { DATABASE_URL: direct.toString(), LOG_LEVEL: 'silent' }, 600_000);
    const keyOut = await runToCompletion(['bin/consulta.js', 'keys', 'create', '--owner', 'bench@example.com', '--tier', 'internal', '--json'], { DATABASE_URL: direct.toString(), LOG_LEVEL: 'silent' }, 60_000);
    const token = (JSON.parse(keyOut.trim().split('\n').at(-1)!) as { token: string }).token;

    const pgTarget = new URL(PG_ADMIN);
    const pgRelay = await relay({ host: pgTarget.hostname, port: Number(pgTarget.port || 5432) }, () => {
      counts.connections++;
      counts.maxOpen = Math.max(counts.maxOpen, ++counts.open);
      return {
        closed: () => counts.open--,
        fromClient: messageReader(true, (t) => {
          if (t === 0x51 /* Q */ || t === 0x45 /* E */) counts.statements++;
        }),
        fromServer: messageReader(false, (t) => {
          if (t === 0x5a /* Z */) counts.roundTrips++;
        }),
      };
    });
    relays.push(pgRelay);
    const redisRelay = await relay({ host: REDIS.hostname, port: Number(REDIS.port || 6379) }, () => ({
      fromClient: respReader((cmd) => counts.redis.set(cmd, (counts.redis.get(cmd) ?? 0) + 1)),
      fromServer: () => {},
    }));
    relays.push(redisRelay);
    const viaRelay = new URL(direct);
    viaRelay.host = `${HOST}:${pgRelay.port}`;
    const redisViaRelay = new URL(REDIS);
    redisViaRelay.host = `${HOST}:${redisRelay.port}`;

    const port = await freePort();
    const site = `http://${HOST}:${port}`;
    // An MCP access token, minted through the OAuth flow by an app in this process.
    const config = loadConfig({ SITE_URL: site, LOG_LEVEL: 'silent', REQUEST_LOG: 'off' }, { databaseUrl: direct.toString(), oauthAccessTokenTtlSeconds: 3600, rateLimitMultiplier: 1000 });
    const database = openDatabase(config.databaseUrl);
    let mcpToken: string;
    try {
      const app = await buildApp({ config, database, clock: systemClock });
      await app.fastify.ready();
      const agent = await connectedAgent({ app, config, database, clock: systemClock } as unknown as TestContext, 'bench-mcp@example.com', LEVELS.join(' '), 'Consulta Bench');
      mcpToken = agent.accessToken;
      await app.fastify.close();
    } finally {
      await database.close();
    }

    const poolSize = process.env.DB_POOL_SIZE ?? '10';
    const server = await spawnServer({
      nodeArgs: ['bin/consulta.js', 'serve'],
      env: {
        PORT: String(port),
        HOST,
        SITE_URL: site,
        LOG_LEVEL: 'warn',
        DATABASE_URL: viaRelay.toString(),
        REDIS_URL: redisViaRelay.toString(),
        DB_POOL_SIZE: poolSize,
        RATE_LIMIT_MULTIPLIER: '1000000',
        MAX_PENDING_INTENTS_PER_KEY: '100000',
      },
      port,
      readyPath: '/readyz',
      logFile: path.join(ROOT, '.bench', 'round-trips.log'),
    });
    try {
      const headers = { authorization: `Bearer ${token}` };
      const get = async (p: string) => {
        const res = await fetch(`${server.url}/api/v1${p}`, { headers });
        if (res.status !== 200) throw new Error(`GET ${p}: ${res.status} ${await res.text()}`);
        return res.json() as Promise<unknown>;
      };
      const ids: string[] = [];
      for (let page = 1; ids.length < Math.min(LAWYERS, 3 * N + 40); page++) {
        const r = (await get(`/lawyers/search?limit=25&page=${page}`)) as { lawyers: Array<{ id: string }>; has_more: boolean };
        ids.push(...r.lawyers.map((l) => l.id));
        if (!r.has_more) break;
      }
      // Free slots for the holds, from lawyers the read scenarios do not use.
      const slots: Array<Record<string, string>> = [];
      for (const id of ids.slice(-40)) {
        const a = (await get(`/lawyers/${id}/availability`)) as { slots: Array<{ date: string; start_time: string; end_time: string; available: boolean }> };
        for (const s of a.slots) if (s.available) slots.push({ lawyer_id: id, date: s.date, start_time: s.start_time, end_time: s.end_time });
      }
      const hot = ids.slice(0, 20);
      let fresh = 20;
      const nextFresh = () => ids[fresh++ % (ids.length - 40)]!;
      const mcpBody = (i: number) =>
        JSON.stringify({
          jsonrpc: '2.0',
          id: i,
          method: 'tools/call',
          params: { name: 'search_lawyers', arguments: { city: 'madrid', practice_area: 'residence' }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'consulta-bench', version: '1.0.0' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
        });
      let holds = 0;
      const kinds: Array<{ name: string; run: (i: number) => Promise<unknown> }> = [
        { name: 'search (cached)', run: () => get('/lawyers/search?city=madrid') },
        { name: 'profile (cached)', run: (i) => get(`/lawyers/${hot[i % hot.length]}`) },
        { name: 'profile (uncached)', run: () => get(`/lawyers/${nextFresh()}`) },
        { name: 'availability (cached)', run: (i) => get(`/lawyers/${hot[i % hot.length]}/availability`) },
        { name: 'availability (uncached)', run: () => get(`/lawyers/${nextFresh()}/availability`) },
        { name: 'reviews (cached)', run: (i) => get(`/lawyers/${hot[i % hot.length]}/reviews?limit=10`) },
        { name: 'reviews (uncached)', run: () => get(`/lawyers/${nextFresh()}/reviews?limit=10`) },
        {
          name: 'hold (initiate, Idempotency-Key)',
          run: async () => {
            const body = slots[holds++];
            if (!body) throw new Error('out of free slots');
            const res = await fetch(`${server.url}/api/v1/bookings/initiate`, {
              method: 'POST',
              headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': `rt-${process.pid}-${holds}` },
              body: JSON.stringify(body),
            });
            if (res.status !== 201) throw new Error(`initiate: ${res.status} ${await res.text()}`);
          },
        },
        {
          name: 'MCP tools/call search_lawyers',
          run: async (i) => {
            const res = await fetch(`${server.url}/mcp`, {
              method: 'POST',
              headers: { authorization: `Bearer ${mcpToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search_lawyers' },
              body: mcpBody(i),
            });
            if (res.status !== 200) throw new Error(`mcp: ${res.status} ${await res.text()}`);
            await res.text();
          },
        },
      ];

      // The jobs' own polling, per second, while nothing is asked.
      await sleep(1500);
      const idleFrom = snapshot();
      const idleStart = performance.now();
      await sleep(5000);
      const idleSeconds = (performance.now() - idleStart) / 1000;
      const idle = diff(idleFrom, snapshot());
      const perSecond = { statements: idle.statements / idleSeconds, roundTrips: idle.roundTrips / idleSeconds, redis: idle.redis / idleSeconds };
      console.log(`idle: ${perSecond.statements.toFixed(1)} statements/s, ${perSecond.roundTrips.toFixed(1)} round trips/s, ${perSecond.redis.toFixed(1)} Redis commands/s (background jobs; subtracted below)`);

      const rows: string[] = [];
      for (const kind of kinds) {
        // A first round fills the caches (the uncached kinds take new lawyers each time anyway).
        if (!kind.name.includes('uncached') && !kind.name.startsWith('hold')) for (let i = 0; i < hot.length; i++) await kind.run(i);
        await sleep(1200); // the request log's pending batch goes out before counting starts
        const from = snapshot();
        const t0 = performance.now();
        const n = kind.name.startsWith('hold') ? Math.min(N, slots.length) : N;
        for (let i = 0; i < n; i++) await kind.run(i);
        await sleep(1200); // and this kind's entries are written within the count
        const seconds = (performance.now() - t0) / 1000;
        const d = diff(from, snapshot());
        const per = (x: number, idleRate: number) => Math.max(0, (x - idleRate * seconds) / n);
        const byName = [...d.byName].filter(([, c]) => c > 0).map(([k, c]) => `${k} ${(c / n).toFixed(2)}`).join(', ');
        rows.push(`| ${kind.name} | ${n} | ${per(d.statements, perSecond.statements).toFixed(2)} | ${per(d.roundTrips, perSecond.roundTrips).toFixed(2)} | ${per(d.redis, perSecond.redis).toFixed(2)} | ${byName} |`);
        console.log(rows.at(-1));
      }
      console.log(`\nPostgreSQL + Redis, ${LAWYERS} lawyers, ${N} requests per kind, one after the other; DB_POOL_SIZE=${poolSize}, PostgreSQL connections opened over the run: ${counts.connections}, most open at once: ${counts.maxOpen}`);
      console.log('\n| request | n | PG statements / req | PG round trips / req | Redis commands / req | Redis commands by name (per req, idle not subtracted) |');
      console.log('|---|---:|---:|---:|---:|---|');
      for (const r of rows) console.log(r);
    } finally {
      await server.stop();
    }
  } finally {
    for (const r of relays) r.close();
    await admin.query(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

function diff(a: Snapshot, b: Snapshot) {
  const byName = new Map<string, number>();
  for (const [k, v] of b.redis) byName.set(k, v - (a.redis.get(k) ?? 0));
  return { statements: b.statements - a.statements, roundTrips: b.roundTrips - a.roundTrips, redis: redisTotal(b.redis) - redisTotal(a.redis), byName };
}

await main();
