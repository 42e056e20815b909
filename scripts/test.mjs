#!/usr/bin/env node
// Runs the whole test suite with Node's test runner. PostgreSQL suites run when
// TEST_DATABASE_URL is set, or when the local server answers on 127.0.0.1:5432; in CI they
// are required (test/support/databases.ts fails the run without them).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

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

const files = process.argv.slice(2).length > 0 ? process.argv.slice(2) : listTests('test').sort();
const result = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', '--test-reporter=spec', '--test-concurrency=2', '--test-timeout=900000', ...files],
  { stdio: 'inherit', env },
);
process.exit(result.status ?? 1);
