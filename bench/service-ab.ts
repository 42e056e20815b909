/**
 * Per-call CPU of the pieces a cached API read does in the service itself, for two source trees
 * in one process, alternated in rounds so other load weighs on both alike: DirectoryService's
 * search, getProfile and getReviews on the seeded 20,000-lawyer database (each tree its own copy
 * and cache), and the access step of an anonymous request (authenticate + admit, or
 * admitAnonymousNow where a tree has it). For a machine too busy for `cpu-ab.ts` to resolve a
 * microsecond (docs/performance.md, "Read paths, round 3"). Not a test.
 *
 *   npx tsx bench/service-ab.ts --tree /path/to/base --tree . [--rounds 9] [--calls 20000]
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './children.ts';

const { values } = parseArgs({ options: { tree: { type: 'string', multiple: true }, rounds: { type: 'string' }, calls: { type: 'string' } } });
const TREES = (values.tree ?? []).map((t) => path.resolve(t));
if (TREES.length !== 2) throw new Error('give two trees: --tree A --tree B');
const ROUNDS = Number(values.rounds ?? 9);
const CALLS = Number(values.calls ?? 20_000);
const SOURCE_DB = path.join(ROOT, '.bench', 'db', 'lawyers-20000-seed-7.db');
if (!fs.existsSync(SOURCE_DB)) throw new Error(`${SOURCE_DB} is missing: run npm run bench once to seed it`);
const WORK = path.join(ROOT, '.bench', 'service-ab');
fs.mkdirSync(WORK, { recursive: true });

/* eslint-disable @typescript-eslint/no-explicit-any -- each tree's modules are loaded by path; their types are the trees' own */
interface Side {
  directory: any;
  anonymous: (ip: string) => Promise<unknown> | unknown;
}

async function side(tree: string, k: number): Promise<Side> {
  const file = path.join(WORK, `t${k}.db`);
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  fs.copyFileSync(SOURCE_DB, file);
  const { loadConfig } = await import(path.join(tree, 'src/config.ts'));
  const { openDatabase } = await import(path.join(tree, 'src/db/database.ts'));
  const { buildApp } = await import(path.join(tree, 'src/app.ts'));
  const { systemClock } = await import(path.join(tree, 'src/clock.ts'));
  const config = loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' });
  const app = await buildApp({ config, database: openDatabase(config.databaseUrl), clock: systemClock });
  await app.fastify.ready();
  const { AccessService } = await import(path.join(tree, 'src/domain/access/access.service.ts'));
  const { MemoryRateLimitStore } = await import(path.join(tree, 'src/domain/access/rate-limit.memory.ts'));
  const { rateLimitHeaders } = await import(path.join(tree, 'src/domain/access/rate-limit.ts'));
  // As the API's hook does for a request without Authorization; limits scaled so nothing is refused.
  const access = new AccessService({ keys: { findByToken: async () => null }, limiter: new MemoryRateLimitStore(), clock: systemClock, keyCacheTtlMs: 60_000, maxFailedAuthPerMinute: 20, rateLimitMultiplier: 1000 });
  const route = { scope: 'reference:read' };
  const anonymous =
    typeof access.admitAnonymousNow === 'function'
      ? (ip: string) => {
          const w = access.admitAnonymousNow(ip, route);
          return w ? rateLimitHeaders(w, Date.now()) : null;
        }
      : async (ip: string) => {
          const w = await access.admit(await access.authenticate(undefined, ip, route, undefined), route);
          return w ? rateLimitHeaders(w, Date.now()) : null;
        };
  return { directory: app.services.directory, anonymous };
}

const sides = [await side(TREES[0]!, 0), await side(TREES[1]!, 1)];
const q = (extra: object = {}) => ({ page: 1, limit: 25, ...extra });
const ids: string[] = (await sides[0]!.directory.search(q())).lawyers.map((l: { id: string }) => l.id);
const ips = Array.from({ length: 65_536 }, (_, i) => `10.${(i >> 8) & 255}.${i & 255}.1`);
const cases: Array<[string, (s: Side, i: number) => unknown]> = [
  ['search (no filter)', (s) => s.directory.search(q())],
  ['search (city=madrid)', (s) => s.directory.search(q({ city: 'madrid' }))],
  ['getProfile', (s, i) => s.directory.getProfile(ids[i % ids.length])],
  ['getReviews (10)', (s, i) => s.directory.getReviews(ids[i % ids.length], 10)],
  ['anonymous access step', (s, i) => s.anonymous(ips[i & 65_535]!)],
];

async function nsPerCall(s: Side, f: (s: Side, i: number) => unknown): Promise<number> {
  const t0 = process.cpuUsage();
  for (let i = 0; i < CALLS; i++) await f(s, i);
  const c = process.cpuUsage(t0);
  return ((c.user + c.system) * 1000) / CALLS;
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (xs: number[]) => `${median(xs).toFixed(0)} [${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}]`;
console.log(`CPU ns per call, ${ROUNDS} rounds of ${CALLS} calls each side, alternated; load ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
console.log(`| call | ${path.basename(TREES[0]!)} | ${path.basename(TREES[1]!)} |`);
console.log('|---|---:|---:|');
for (const [name, f] of cases) {
  await nsPerCall(sides[0]!, f);
  await nsPerCall(sides[1]!, f);
  const a: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    if (r % 2 === 0) {
      a.push(await nsPerCall(sides[0]!, f));
      b.push(await nsPerCall(sides[1]!, f));
    } else {
      b.push(await nsPerCall(sides[1]!, f));
      a.push(await nsPerCall(sides[0]!, f));
    }
  }
  console.log(`| ${name} | ${fmt(a)} | ${fmt(b)} |`);
}
process.exit(0);
