/**
 * The per-request pieces the read-path round changed, old and new side by side in one process,
 * alternated in short rounds (A B A B …), so that other load weighs on both alike: CPU time per
 * call (process.cpuUsage, all threads), median and range over the rounds. Not a test.
 *
 *   npx tsx bench/pipeline-micro.ts [--rounds 9] [--calls 100000]
 *
 * - request id: randomUUID per id (before) against a pool of random hex (src/http/request-id.ts);
 * - client address behind a trusted proxy: proxy-addr on every read, as Fastify's request.ip
 *   (before), against clientIp (src/http/client-ip.ts) on a keep-alive connection;
 * - the log line: pino's request child logger writing to pino.destination directly (before),
 *   against the same through GatheredLines (src/http/fastify.ts), both to a file: first the
 *   serving thread's part alone (the loop never yields, so the file writes wait), then written
 *   out (the loop yields every 200 lines and the stream is flushed: the asynchronous writes and
 *   the thread-pool thread that makes them are counted too).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import proxyAddr from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';
import pino from 'pino';
import { clientIp } from '../src/http/client-ip.ts';
import { GatheredLines, LOG_CHUNK_CHARS } from '../src/http/fastify.ts';
import { newRequestId } from '../src/http/request-id.ts';
import { ROOT } from './children.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, calls: { type: 'string' } } });
const ROUNDS = Number(values.rounds ?? 9);
const CALLS = Number(values.calls ?? 100_000);

const oldRequestId = (): string => `req_${Date.now().toString(16).padStart(12, '0')}${randomUUID().replaceAll('-', '').slice(12)}`;

// A request as Fastify builds it behind TRUST_PROXY=127.0.0.1, on one keep-alive socket.
const trust = proxyAddr.compile(['127.0.0.1']);
const socket = { remoteAddress: '127.0.0.1' };
let n = 0;
const request = () => {
  const raw = { headers: { 'x-forwarded-for': `10.0.${(n >> 8) & 255}.${n++ & 255}` }, socket };
  return {
    raw,
    get ip() {
      const addrs = proxyAddr.all(raw as never, trust);
      return addrs[addrs.length - 1];
    },
    get ips() {
      return proxyAddr.all(raw as never, trust);
    },
  } as unknown as FastifyRequest;
};

const dir = path.join(ROOT, '.bench', 'micro');
fs.mkdirSync(dir, { recursive: true });
const directStream = pino.destination({ dest: path.join(dir, 'direct.log'), sync: false, minLength: 8192 });
const direct = pino({ level: 'info' }, directStream);
const gatheredStream = new GatheredLines(pino.destination({ dest: path.join(dir, 'gathered.log'), sync: false, minLength: 8192, maxWrite: 4 * LOG_CHUNK_CHARS }));
const gathered = pino({ level: 'info' }, gatheredStream);
const line = (logger: pino.Logger) => () => {
  const child = logger.child({ request_id: 'req_019af3c2d1e0a1b2c3d4e5f6a7b8c9d0' });
  child.info({ method: 'GET', url: '/api/v1/lawyers/search?city=madrid', status: 200, duration_ms: 0.42 }, 'request');
};

let sink = '';
const pairs: Array<[string, () => unknown, () => unknown]> = [
  ['request id', oldRequestId, newRequestId],
  ['client address (trusted proxy)', () => request().ip, () => clientIp(request())],
  ['log line', line(direct), line(gathered)],
];

const cpuNs = (fn: () => unknown) => {
  const t0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    const r = fn();
    if (typeof r === 'string' && i === 0) sink = r;
  }
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / CALLS;
};

/** CPU of the whole process per line, the lines written out to the file. */
const writtenOutNs = async (logger: pino.Logger, flush: () => void) => {
  const log = line(logger);
  const t0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) {
    log();
    if (i % 200 === 199) await new Promise((r) => setImmediate(r));
  }
  flush();
  await new Promise((r) => setTimeout(r, 50));
  const d = process.cpuUsage(t0);
  return ((d.user + d.system) * 1000) / CALLS;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`CPU ns per call, ${ROUNDS} rounds of ${CALLS} calls each side, alternated; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log('| piece | before ns (median [range]) | after ns (median [range]) | saved ns |');
console.log('|---|---:|---:|---:|');
for (const [name, before, after] of pairs) {
  cpuNs(before);
  cpuNs(after);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      a.push(cpuNs(before));
      b.push(cpuNs(after));
    } else {
      b.push(cpuNs(after));
      a.push(cpuNs(before));
    }
  }
  const fmt = (xs: number[]) => `${median(xs).toFixed(0)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`;
  console.log(`| ${name} | ${fmt(a)} | ${fmt(b)} | ${(median(a) - median(b)).toFixed(0)} |`);
}
{
  const a: number[] = [];
  const b: number[] = [];
  const before = () => writtenOutNs(direct, () => directStream.flush());
  const after = () => writtenOutNs(gathered, () => gatheredStream.flush());
  await before();
  await after();
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      a.push(await before());
      b.push(await after());
    } else {
      b.push(await after());
      a.push(await before());
    }
  }
  const fmt = (xs: number[]) => `${median(xs).toFixed(0)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`;
  console.log(`| log line, written out (all threads) | ${fmt(a)} | ${fmt(b)} | ${(median(a) - median(b)).toFixed(0)} |`);
}
if (sink === '') throw new Error('nothing produced');
direct.flush();
gathered.flush();
