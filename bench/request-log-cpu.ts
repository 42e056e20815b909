/**
 * The request log's own CPU per entry, in one process (not a test): `npx tsx bench/request-log-cpu.ts`.
 *
 * Records keyed-search entries at a steady rate (`--rate`, 17,000 a second: what one server
 * answers on a quiet 2-core machine) for `--seconds`, with the log on and then off (REQUEST_LOG=off
 * drops entries in record()), and reads the process's CPU from /proc (every thread: the serving
 * thread, the writing thread and V8's garbage-collector helpers). The difference between the two,
 * per entry, is what the log costs. Entries are built the same way in both runs (as the access
 * plugin builds them), so the harness's own work cancels out.
 *
 * Unlike the on/off throughput pair of bench/access-booking.ts, this needs no load generator on
 * the same two cores and moves far less with other load on the machine: use it to compare two
 * checkouts (run it from each, alternately) when the machine is busy. `--rounds N` alternates on
 * and off N times and prints the median and range. On a SQLite file in .bench/request-log-cpu/,
 * migrated afresh each run.
 */
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../src/db/database.ts';
import { migrateToLatest } from '../src/db/migrator.ts';
import { loggedQuery, RequestLog } from '../src/domain/access/request-log.ts';
import { ROOT } from './children.ts';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const RATE = flag('rate', 17_000);
const SECONDS = flag('seconds', 4);
const ROUNDS = flag('rounds', 3);
const WORK = path.join(ROOT, '.bench', 'request-log-cpu');

/** CPU ms of every thread of this process (utime + stime, CLK_TCK = 100). */
function processCpuMs(): number {
  const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const URLS = ['/api/v1/lawyers/search?city=madrid', '/api/v1/lawyers/search', '/api/v1/lawyers/search?practice_area=residence&language=ar'];
const KEY = { id: 'key_01jbenchbenchbenchbenchbe', owner: { type: 'user' as const, userId: 'usr_01jbenchbenchbenchbenchbe' } };

async function run(enabled: boolean): Promise<{ usPerEntry: number; entries: number; written: number }> {
  fs.mkdirSync(WORK, { recursive: true });
  const file = path.join(WORK, 'log.db');
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(file + suffix, { force: true });
  const database = openDatabase(`sqlite:${file}`);
  await migrateToLatest(database);
  const log = new RequestLog(database, { flushIntervalMs: 1000, enabled });
  log.start();
  let seq = 0;
  const one = () => {
    const url = URLS[seq % URLS.length]!;
    const q = url.indexOf('?');
    seq++;
    // As src/http/plugins/access.ts builds an entry.
    log.record({
      request_id: `req_${Date.now().toString(16).padStart(12, '0')}${seq.toString(16).padStart(20, '0')}`,
      at: new Date().toISOString(),
      key_id: KEY.id,
      owner_type: KEY.owner.type,
      owner_id: KEY.owner.userId,
      test: 0,
      method: 'GET',
      route: '/api/v1/lawyers/search',
      path: q < 0 ? url : url.slice(0, q),
      query: q < 0 ? null : loggedQuery(url, q),
      status: 200,
      duration_ms: Math.round(Math.random() * 100) / 100,
      client_ip: `10.${(seq >> 16) & 255}.${(seq >> 8) & 255}.${seq & 255}`,
      error_code: null,
    });
  };
  const cpu0 = processCpuMs();
  const started = Date.now();
  await new Promise<void>((resolve) => {
    // Every 5 ms, the entries due by then: a steady rate, idle in between (no busy loop).
    const tick = () => {
      const due = Math.floor(((Date.now() - started) / 1000) * RATE);
      while (seq < due) one();
      if (Date.now() - started >= SECONDS * 1000) return resolve();
      setTimeout(tick, 5);
    };
    tick();
  });
  await log.flush();
  const cpuMs = processCpuMs() - cpu0;
  await log.close();
  const { n } = await database.db.selectFrom('request_log').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  await database.close();
  return { usPerEntry: (cpuMs * 1000) / seq, entries: seq, written: Number(n) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(`request log CPU per entry: ${RATE}/s for ${SECONDS} s, ${ROUNDS} rounds; load average ${load()}`);
const costs: number[] = [];
for (let round = 1; round <= ROUNDS; round++) {
  const on = await run(true);
  const off = await run(false);
  if (on.written !== on.entries) throw new Error(`log on: ${on.entries} entries recorded, ${on.written} written`);
  const cost = on.usPerEntry - off.usPerEntry;
  costs.push(cost);
  console.log(`round ${round}: on ${on.usPerEntry.toFixed(2)} µs/entry, off ${off.usPerEntry.toFixed(2)} µs/entry (the harness): the log ${cost.toFixed(2)} µs/entry (${on.written} written)`);
}
console.log(`the log's CPU: median ${median(costs).toFixed(2)} µs/entry, range ${Math.min(...costs).toFixed(2)} … ${Math.max(...costs).toFixed(2)}; load average ${load()}`);
