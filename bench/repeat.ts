/**
 * Runs the main benchmark several times and reports each scenario's share of raw as a median
 * with its range. On a shared 2-core machine one run's ratio moves by ten points or more from
 * run to run (the host, not the code: the same build read 43 % and 61 % an hour apart), so a bar
 * such as "at or above 56 %" is judged on the median of several runs, never on one.
 *
 *   npx tsx bench/repeat.ts --times 5 -- --only site --skip-cold --skip-scale --retries 2 --quiet-wait 20
 *
 * Each run's results.json is kept as .bench/repeat/run-N.json; the summary goes to stdout and to
 * .bench/repeat/summary.json. Runs made earlier can be summarised the same way:
 *
 *   npx tsx bench/repeat.ts --summarize a.json b.json c.json
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = path.resolve(import.meta.dirname, '..');
const BENCH_DIR = path.join(ROOT, '.bench');
const OUT_DIR = path.join(BENCH_DIR, 'repeat');

interface Side {
  rps: number;
  serverCpuMsPerReq: number;
  otherCores: number;
}
interface Scenario {
  name: string;
  app: Side;
  baseline: Side;
}

const split = process.argv.indexOf('--');
const own = split === -1 ? process.argv.slice(2) : process.argv.slice(2, split);
const passOn = split === -1 ? [] : process.argv.slice(split + 1);
const { values, positionals } = parseArgs({ args: own, allowPositionals: true, options: { times: { type: 'string', default: '3' }, summarize: { type: 'boolean', default: false } } });
const times = values.summarize ? positionals.length : Number(values.times);
if (!Number.isInteger(times) || times < 2 || times > 20) {
  process.stderr.write('--times (or the number of files to --summarize) must be a whole number from 2 to 20\n');
  process.exit(2);
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};
const pct = (x: number) => `${Math.round(x * 100)} %`;

fs.mkdirSync(OUT_DIR, { recursive: true });
const runs: Scenario[][] = [];
const commits = new Set<string>();
const read = (file: string) => {
  const results = JSON.parse(fs.readFileSync(file, 'utf8')) as { commit: string; scenarios: Scenario[] };
  commits.add(results.commit);
  runs.push(results.scenarios);
};
if (values.summarize) positionals.forEach(read);
for (let i = 1; !values.summarize && i <= times; i++) {
  process.stdout.write(`run ${i} of ${times}: npx tsx bench/run.ts ${passOn.join(' ')}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'run.ts'), ...passOn], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  // Missed targets still exit 0 (a benchmark is not a gate): anything else is a run that failed.
  if (r.status !== 0) {
    process.stderr.write(`run ${i} failed (exit ${r.status ?? r.signal})\n`);
    process.exit(1);
  }
  const file = path.join(OUT_DIR, `run-${i}.json`);
  fs.copyFileSync(path.join(BENCH_DIR, 'results.json'), file);
  read(file);
}

const commit = [...commits].join(', ');
const names = runs[0]!.map((s) => s.name);
const rows = names.map((name) => {
  const each = runs.map((run) => run.find((s) => s.name === name)!);
  const ratios = each.map((s) => s.app.rps / s.baseline.rps);
  return {
    name,
    ratios,
    median: median(ratios),
    min: Math.min(...ratios),
    max: Math.max(...ratios),
    appCpuMs: median(each.map((s) => s.app.serverCpuMsPerReq)),
    rawCpuMs: median(each.map((s) => s.baseline.serverCpuMsPerReq)),
    cpuRatio: median(each.map((s) => s.app.serverCpuMsPerReq / s.baseline.serverCpuMsPerReq)),
    otherLoadMax: Math.max(...each.flatMap((s) => [s.app.otherCores, s.baseline.otherCores])),
  };
});

const lines = [
  values.summarize ? `commit ${commit}, ${times} runs: ${positionals.join(' ')}` : `commit ${commit}, ${times} runs of: npx tsx bench/run.ts ${passOn.join(' ')}`,
  '',
  '| Scenario | App ÷ raw, each run | Median | Range | App CPU ms/req (median) | Raw CPU ms/req (median) | CPU app ÷ raw (median) | Other load, max |',
  '|:--|:--|--:|--:|--:|--:|--:|--:|',
  ...rows.map((r) => `| ${r.name} | ${r.ratios.map(pct).join(', ')} | ${pct(r.median)} | ${pct(r.min)}–${pct(r.max)} | ${r.appCpuMs.toFixed(3)} | ${r.rawCpuMs.toFixed(3)} | ${r.cpuRatio.toFixed(1)} × | ${r.otherLoadMax.toFixed(2)} |`),
];
process.stdout.write(`\n${lines.join('\n')}\n`);
fs.writeFileSync(path.join(OUT_DIR, 'summary.json'), `${JSON.stringify({ commit, times, args: passOn, rows }, null, 2)}\n`);
