/**
 * Child processes of the bench (the service under test, the raw baseline, seeding): started,
 * waited for, and always stopped — SIGTERM first so the service drains and flushes a CPU
 * profile, SIGKILL if it has not exited in time — including when the bench itself fails or is
 * interrupted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = path.resolve(import.meta.dirname, '..');
export const HOST = '127.0.0.1';

const running = new Set<ChildProcess>();

export interface Child {
  readonly proc: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  stop(): Promise<void>;
}

function exited(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => proc.once('exit', () => resolve()));
}

/** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
export async function stopChild(proc: ChildProcess, graceMs = 10_000): Promise<void> {
  const done = exited(proc);
  if (proc.exitCode === null && proc.signalCode === null) {
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    await done;
    clearTimeout(timer);
  }
  running.delete(proc);
}

/** Last-resort cleanup when the bench exits without stopping its children (error, signal). */
function killAllNow(): void {
  for (const proc of running) {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
  }
  running.clear();
}

let hooksInstalled = false;
function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.once('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`\nbench: ${signal} received, stopping child processes\n`);
      void Promise.all([...running].map((p) => stopChild(p, 3000))).finally(() => process.exit(130));
    });
  }
}

export function track(proc: ChildProcess): void {
  installExitHooks();
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
}

/** A TCP port that was free a moment ago (the child binds it right after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `url` until it answers 200, the process exits, or `timeoutMs` passes. */
async function waitReady(proc: ChildProcess, url: string, timeoutMs: number, logFile: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      throw new Error(`child exited (${proc.exitCode ?? proc.signalCode}) before it was ready; see ${logFile}:\n${tail(logFile)}`);
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await sleep(100);
  }
  throw new Error(`child not ready after ${timeoutMs} ms: ${url}; see ${logFile}`);
}

function tail(file: string, lines = 15): string {
  try {
    return fs.readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export interface SpawnServerOptions {
  nodeArgs: string[];
  env: Record<string, string>;
  port: number;
  readyPath: string;
  logFile: string;
  readyTimeoutMs?: number;
}

/** Starts a server process whose stdout and stderr go straight to `logFile` (never through the bench). */
export async function spawnServer(options: SpawnServerOptions): Promise<Child> {
  fs.mkdirSync(path.dirname(options.logFile), { recursive: true });
  const fd = fs.openSync(options.logFile, 'w');
  const proc = spawn(process.execPath, options.nodeArgs, {
    cwd: ROOT,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', fd, fd],
  });
  fs.closeSync(fd);
  track(proc);
  const url = `http://${HOST}:${options.port}`;
  try {
    if (proc.pid === undefined) throw new Error(`could not start ${options.nodeArgs.join(' ')}`);
    await waitReady(proc, `${url}${options.readyPath}`, options.readyTimeoutMs ?? 60_000, options.logFile);
  } catch (err) {
    await stopChild(proc, 2000);
    throw err;
  }
  return { proc, pid: proc.pid, port: options.port, url, stop: () => stopChild(proc) };
}

/** Runs a command to completion, bounded in time; returns its stdout. */
export function runToCompletion(args: string[], env: Record<string, string>, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    track(proc);
    let stdout = '';
    let stderr = '';
    proc.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    proc.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      void stopChild(proc, 2000);
      reject(new Error(`${args.join(' ')} did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    proc.once('error', reject);
    proc.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${args.join(' ')} exited with ${code ?? signal}:\n${stderr.trim() || stdout.trim()}`));
    });
  });
}
