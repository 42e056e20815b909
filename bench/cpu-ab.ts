/**
 * Server CPU per request of the hot read endpoints, for two (or more) source trees side by side,
 * at the same fixed request rate — for a machine too busy for the throughput benchmark
 * (docs/performance.md, "Read paths, round 2"). Not a test.
 *
 *   npx tsx bench/cpu-ab.ts --tree /path/to/main --tree . [--rounds 3] [--rate 2000] [--seconds 4]
 *
 * Each tree's `bin/consulta.js serve` runs as `npm run bench` runs it (a copy of the seeded
 * 20,000-lawyer database, LOG_LEVEL=info to a file, TRUST_PROXY, X-Forwarded-For cycling over
 * 65,536 addresses), one tree after the other in each round (A B, then B A, …). Every scenario
 * is sent at the same rate to every tree, so each server batches requests alike and the CPU it
 * spends per request (utime + stime of all its threads, request log included) compares across
 * trees even when other processes slow the machine down; throughput ratios do not. The widget's
 * frame scenarios (`widget: booker`, `widget: search preset`) run with the bench's publishable key.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { FORWARDED_FOR, nextClientAddress } from './addresses.ts';
import { freePort, HOST, ROOT, stopChild, track } from './children.ts';
import { cpuMs } from './proc.ts';
import { SCENARIOS, WIDGET_HOST, type BenchContext } from './scenarios.ts';
import { widgetKey } from './seed.ts';

const { values } = parseArgs({
  options: {
    tree: { type: 'string', multiple: true },
    rounds: { type: 'string' },
    rate: { type: 'string' },
    seconds: { type: 'string' },
    only: { type: 'string' },
  },
});
const TREES = (values.tree ?? [ROOT]).map((t) => path.resolve(t));
const ROUNDS = Number(values.rounds ?? 3);
const RATE = Number(values.rate ?? 2000);
const SECONDS = Number(values.seconds ?? 4);
const ONLY = (values.only ?? 'search: no filter,search: city=madrid,profile,availability,reviews,cities,practice-areas').split(',');
const SOURCE_DB = path.join(ROOT, '.bench', 'db', 'lawyers-20000-seed-7.db');
const WORK = path.join(ROOT, '.bench', 'cpu-ab');
fs.mkdirSync(WORK, { recursive: true });
if (!fs.existsSync(SOURCE_DB)) throw new Error(`${SOURCE_DB} is missing: run npm run bench once to seed it`);

const scenarios = SCENARIOS.filter((s) => ONLY.includes(s.name));
// The widget's scenarios frame pages with the bench's publishable key (made in the seeded database
// once, as bench/run.ts does), under limits scaled so one key carries the load (RATE_LIMIT_MULTIPLIER).
const widget = scenarios.some((s) => s.kind === 'widget');
const BENCH: BenchContext = { widgetKey: widget ? await widgetKey({ file: SOURCE_DB }, WIDGET_HOST) : '' };
const WIDGET_ENV: Record<string, string> = widget ? { RATE_LIMIT_MULTIPLIER: '1000' } : {};

async function start(tree: string, n: number) {
  const file = path.join(WORK, `t${n}.db`);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  fs.copyFileSync(SOURCE_DB, file);
  const port = await freePort();
  const fd = fs.openSync(path.join(WORK, `t${n}.log`), 'w');
  const proc = spawn(process.execPath, ['bin/consulta.js', 'serve'], {
    cwd: tree,
    env: { ...process.env, PORT: String(port), HOST, DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'info', TRUST_PROXY: HOST, ...WIDGET_ENV },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  track(proc);
  const url = `http://${HOST}:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error(`${tree}: not ready`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { proc, url, pid: proc.pid! };
}

async function lawyerIds(url: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = 1; ids.length < 200; page++) {
    const r = (await (await fetch(`${url}/api/v1/lawyers/search?limit=25&page=${page}`, { headers: { [FORWARDED_FOR]: nextClientAddress() } })).json()) as { lawyers: Array<{ id: string }> };
    ids.push(...r.lawyers.map((l) => l.id));
  }
  return ids;
}

function load(url: string, paths: string[], seconds: number): Promise<{ requests: number; non2xx: number }> {
  let i = 0;
  return new Promise((resolve, reject) => {
    autocannon(
      {
        url,
        connections: 10,
        overallRate: RATE,
        duration: seconds,
        requests: [{ setupRequest: (req) => ({ ...req, path: paths[i++ % paths.length]!, headers: { ...req.headers, [FORWARDED_FOR]: nextClientAddress() } }) }],
      },
      (err, res) => (err ? reject(err) : resolve({ requests: res.requests.total, non2xx: res.non2xx })),
    );
  });
}

// results[scenario][tree] = µs per request, one per round
const results = new Map<string, number[][]>();
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? TREES.map((_, k) => k) : TREES.map((_, k) => TREES.length - 1 - k);
  for (const k of order) {
    const server = await start(TREES[k]!, k);
    try {
      const ids = await lawyerIds(server.url);
      // The JIT and the caches warm on every scenario first.
      for (const s of scenarios) await load(server.url, s.paths(ids, BENCH), 1.5);
      for (const s of scenarios) {
        const paths = s.paths(ids, BENCH);
        await load(server.url, paths, 1.5); // warm the caches and the JIT
        const c0 = cpuMs(server.pid);
        const r = await load(server.url, paths, SECONDS);
        const us = ((cpuMs(server.pid) - c0) * 1000) / r.requests;
        if (r.non2xx > 0) console.log(`  ${s.name}: ${r.non2xx} non-2xx answers`);
        const row = results.get(s.name) ?? TREES.map(() => []);
        row[k]!.push(us);
        results.set(s.name, row);
        const loadavg = fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
        console.log(`round ${round + 1} tree ${k} ${s.name.padEnd(22)} ${us.toFixed(1).padStart(6)} µs/req  (${r.requests} requests, load ${loadavg})`);
      }
    } finally {
      await stopChild(server.proc);
    }
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
console.log(`\nserver CPU µs per request at ${RATE} req/s, ${SECONDS} s per scenario, ${ROUNDS} rounds (median [min–max])`);
console.log(`| scenario | ${TREES.map((t, k) => `tree ${k} (${path.basename(t)})`).join(' | ')} | ${TREES.length > 1 ? 'last ÷ first |' : ''}`);
console.log(`|---|${TREES.map(() => '---:|').join('')}${TREES.length > 1 ? '---:|' : ''}`);
for (const [name, row] of results) {
  const cells = row.map((xs) => `${median(xs).toFixed(1)} [${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}]`);
  const ratio = TREES.length > 1 ? ` ${(median(row.at(-1)!) / median(row[0]!)).toFixed(2)} |` : '';
  console.log(`| ${name} | ${cells.join(' | ')} |${ratio}`);
}
