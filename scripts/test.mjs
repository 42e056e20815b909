#!/usr/bin/env node
// Runs the whole test suite with Node's test runner. PostgreSQL suites run when
// TEST_DATABASE_URL is set, or when the local server answers on 127.0.0.1:5432; in CI they
// are required (test/support/databases.ts fails the run without them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { longestFirst } from './test-order.mjs';

function listTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'support' ? [] : listTests(p);
    return e.name.endsWith('.test.ts') ? [p] : [];
  });
}

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 1000 });
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

const env = { ...process.env };
if (!env.TEST_DATABASE_URL && (await reachable('127.0.0.1', 5432))) {
  env.TEST_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';
}
if (!env.TEST_DATABASE_URL) console.log('note: no PostgreSQL reachable; running the SQLite suites only');

// Files named on the command line (a folder stands for its test files), or every test file.
const named = process.argv.slice(2).flatMap((p) => (fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ? listTests(p).sort() : [p]));
const missing = named.filter((p) => !fs.existsSync(p));
if (missing.length > 0) {
  console.error(`no such test file or folder: ${missing.join(', ')}`);
  process.exit(2);
}
// Longest first (scripts/test-order.mjs), so no long file starts last and runs alone at the end.
const files = longestFirst(named.length > 0 ? named : listTests('test').sort());
// Each test file runs bundled (scripts/test-build.mjs: its project code compiled once, packages
// loaded natively) instead of through the tsx loader hook, which cost every file 4-5 s of CPU
// before its first test. TEST_BUNDLE=0 runs the TypeScript through tsx as before.
const bundled = env.TEST_BUNDLE !== '0';
let runFiles = files;
let loader = ['--import', 'tsx'];
let removeBuild = () => {};
if (bundled) {
  const build = await import('./test-build.mjs');
  const { buildTests } = build;
  removeBuild = build.removeBuild;
  const started = Date.now();
  runFiles = await buildTests(files);
  loader = ['--enable-source-maps'];
  console.log(`test files bundled in ${((Date.now() - started) / 1000).toFixed(1)} s (TEST_BUNDLE=0 runs them through tsx)`);
}
// Files run two at a time (one per core here); TEST_CONCURRENCY overrides it to measure another
// setting. scripts/test-times.mjs times every file beside the spec reporter: the slowest 20 at the
// end, every file's time in .test-times.json.
const concurrency = env.TEST_CONCURRENCY ?? '2';
env.TEST_CONCURRENCY = concurrency;
const result = spawnSync(
  process.execPath,
  [
    ...loader, '--test',
    '--test-reporter=spec', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout',
    `--test-concurrency=${concurrency}`, '--test-timeout=900000', ...runFiles,
  ],
  { stdio: 'inherit', env },
);
removeBuild();
process.exit(result.status ?? 1);
