/**
 * What one request-log row costs to write (not a test):
 * `npx tsx bench/request-log-rows.ts [--tree DIR] [--rows 80000] [--batch 2000] [--queries typical|none]`
 *
 * Writes `--rows` keyed rows in batches through the request log's own writer into a fresh SQLite
 * file (the worker thread of src/db/request-log-thread.ts, as the serving process does) and prints
 * the wall time and the process's CPU time (every thread) per row. `--tree` runs the writer of
 * another checkout (say, the commit before a schema change, unpacked with `git archive`), so two
 * versions are measured by the same script: alternate them (A B B A) on a quiet machine and
 * compare the CPU column. `--queries none` writes rows without a query string.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from './children.ts';
import type * as DatabaseModule from '../src/db/database.ts';
import type * as MigratorModule from '../src/db/migrator.ts';
import type * as RequestLogRepository from '../src/db/repositories/request-log.repository.ts';

const { values } = parseArgs({
  options: { tree: { type: 'string', default: ROOT }, rows: { type: 'string', default: '80000' }, batch: { type: 'string', default: '2000' }, queries: { type: 'string', default: 'typical' } },
});
const tree = path.resolve(values.tree);
const ROWS = Number(values.rows);
const BATCH = Number(values.batch);
const QUERIES = values.queries === 'none' ? [null] : ['city=madrid', 'practice_area=residence&language=ar', null];

// Another tree's modules, typed as this tree's (the writer's interface is the same).
const { openDatabase } = (await import(path.join(tree, 'src/db/database.ts'))) as typeof DatabaseModule;
const { migrateToLatest } = (await import(path.join(tree, 'src/db/migrator.ts'))) as typeof MigratorModule;
const { openRequestLogWriter } = (await import(path.join(tree, 'src/db/repositories/request-log.repository.ts'))) as typeof RequestLogRepository;

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-log-rows-'));
const database = openDatabase(`sqlite:${path.join(dir, 'log.db')}`);
await migrateToLatest(database);
const writer = openRequestLogWriter(database);
const start = Date.parse('2026-11-23T08:00:00Z');
let n = 0;
// Keyed search requests from four keys of one owner, as the access benchmark sends them.
const batch = () =>
  Array.from({ length: BATCH }, () => {
    const i = n++;
    return {
      request_id: `req_${i.toString(16).padStart(32, '0')}`,
      at: new Date(start + i).toISOString(),
      key_id: `key-${i % 4}`,
      owner_type: 'user',
      owner_id: 'user-1',
      test: 0,
      method: 'GET',
      route: '/api/v1/lawyers/search',
      path: '/api/v1/lawyers/search',
      query: QUERIES[i % QUERIES.length]!,
      status: 200,
      duration_ms: 0.4,
      client_ip: '127.0.0.1',
      error_code: null,
    };
  });
try {
  await writer.write(batch()); // warm-up: the thread, its statements, the first pages
  const cpu = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < ROWS / BATCH; i++) await writer.write(batch());
  const wallMs = performance.now() - t0;
  const used = process.cpuUsage(cpu);
  console.log(`${path.basename(tree)}\tqueries ${values.queries}\twall ${((wallMs * 1000) / ROWS).toFixed(2)} µs/row\tcpu ${((used.user + used.system) / ROWS).toFixed(2)} µs/row`);
} finally {
  await writer.close();
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
