/**
 * The long contract-fuzzing run (docs/errors.md#contract-fuzzing):
 *
 *   npm run fuzz -- --runs 2000 --seed 42 [rest|mcp|site …]
 *
 * `--runs N` is the number of runs per property (per REST operation, per MCP tool, per site form;
 * `npm test` uses a small fixed sample), `--seed S` the fast-check seed (default: the fixed CI
 * seed). Runs the fuzz suites on SQLite, then prints the counts: requests tried per surface and
 * how many were outside the contract. A failure prints the seed, the path and the shrunk
 * counterexample; rerun with the same --seed to reproduce it.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

function usage(message: string): never {
  console.error(`${message}\nusage: npm run fuzz -- [--runs N] [--seed S] [rest|mcp|site|oauth|framework-errors|json-depth …]`);
  process.exit(2);
}

const env: NodeJS.ProcessEnv = { ...process.env };
const only: string[] = [];
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i++) {
  const arg = args[i]!;
  const value = () => {
    const v = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : args[++i];
    if (v === undefined || !/^\d+$/.test(v)) usage(`${arg.split('=')[0]} needs a whole number`);
    return v;
  };
  if (arg === '--runs' || arg.startsWith('--runs=')) env.FUZZ_RUNS = value();
  else if (arg === '--seed' || arg.startsWith('--seed=')) env.FUZZ_SEED = value();
  else if (!arg.startsWith('-')) only.push(arg);
  else usage(`unknown option ${arg}`);
}
if (env.FUZZ_RUNS !== undefined && Number(env.FUZZ_RUNS) < 1) usage('--runs must be at least 1');

const dir = path.join('test', 'fuzz');
const files = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.test.ts') && (only.length === 0 || only.includes(f.replace(/\.test\.ts$/, ''))))
  .map((f) => path.join(dir, f));
if (files.length === 0) usage(`no fuzz suite named ${only.join(', ')}`);

console.log(`fuzzing ${files.join(' ')} with ${env.FUZZ_RUNS ?? 'the CI number of'} runs per property, seed ${env.FUZZ_SEED ?? 'fixed (CI)'}`);
// No per-test timeout: a long run takes as long as it takes. One file at a time, so the counts
// of one surface are not slowed by another's.
const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=1', '--test-timeout=0', ...files], { env, stdio: ['inherit', 'pipe', 'inherit'] });
const counts: string[] = [];
let pending = '';
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) if (/^fuzz \S+ .*: \d+ tried, \d+ outside the contract/.test(line.trim())) counts.push(line.trim());
});
child.on('exit', (code) => {
  const totals = counts.filter((l) => / total: /.test(l));
  let tried = 0;
  let outside = 0;
  for (const line of totals) {
    const m = /: (\d+) tried, (\d+) outside/.exec(line)!;
    tried += Number(m[1]);
    outside += Number(m[2]);
  }
  console.log('\n── contract fuzzing: counts ──');
  for (const line of counts) console.log(line);
  console.log(`all surfaces: ${tried} requests tried, ${outside} outside the contract${code === 0 ? '' : ' (a property failed: see its seed and counterexample above)'}`);
  process.exit(code ?? 1);
});
