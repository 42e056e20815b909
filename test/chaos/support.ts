/**
 * Private PostgreSQL and Redis servers owned by one chaos suite, so it can kill and restart them
 * without touching the shared instances other suites use (127.0.0.1:5432 and :6379).
 *
 * PostgreSQL refuses to run as root: when the tests run as root, initdb and pg_ctl run as the
 * `postgres` OS user, on a data directory under a temporary directory that user owns. Both
 * servers listen on 127.0.0.1 only, on free ports, with trust authentication. Everything started
 * here is stopped by `stop()` (call it from `after`), and again, forcibly, when the test process
 * exits, so a failed or interrupted run never leaves a server behind.
 *
 * In CI the chaos suites are required: `chaosSkip()` throws instead of skipping when the servers
 * cannot be started.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';
import { freePort } from '../support/browser.ts';
import { waitFor } from '../support/booking.ts';

/** The newest PostgreSQL server binaries on this machine, or null. */
function postgresBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!fs.existsSync(root)) return null;
  const versions = fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'pg_ctl'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? path.join(root, versions[0], 'bin') : null;
}

function redisBin(): string | null {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    const candidate = path.join(dir, 'redis-server');
    if (dir && fs.existsSync(candidate)) return candidate;
  }
  return null;
}

const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL tool as the `postgres` OS user when we are root (it refuses to run as root). */
function pgTool(bin: string, tool: string, args: string[], timeoutMs = 60_000): string {
  const file = path.join(bin, tool);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, ...args]] : [file, args];
  return execFileSync(cmd, argv, { encoding: 'utf8', timeout: timeoutMs, stdio: ['ignore', 'pipe', 'pipe'] });
}

let skipReason: Promise<string | false> | undefined;

/**
 * Why the chaos suites cannot run here (no PostgreSQL binaries, no redis-server), or false. In CI
 * (CI=true) a missing prerequisite throws: the suites are required there.
 */
export function chaosSkip(): Promise<string | false> {
  skipReason ??= (async () => {
    const missing: string[] = [];
    if (!postgresBin()) missing.push('PostgreSQL server binaries (/usr/lib/postgresql/*/bin)');
    if (!redisBin()) missing.push('redis-server');
    if (asRoot && spawnSync('id', ['postgres']).status !== 0) missing.push('the postgres OS user (PostgreSQL refuses to run as root)');
    if (missing.length === 0) return false;
    const reason = `chaos suites need ${missing.join(', ')}`;
    if (process.env.CI === 'true') throw new Error(`${reason}; they are required in CI`);
    return reason;
  })();
  return skipReason;
}

const cleanups = new Set<() => void>();
process.once('exit', () => {
  for (const c of cleanups) c();
});

/** Runs `cleanup` (synchronous) if the test process exits before the returned function is called. */
export function onExit(cleanup: () => void): () => void {
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/** A private PostgreSQL cluster: `url` is the admin URL (database `postgres`). */
export interface PrivatePostgres {
  port: number;
  url: string;
  /** URL of database `name` on this server. */
  urlOf(name: string): string;
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown: open connections are terminated, in-flight transactions roll back. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** Stops the server for good and deletes its files. */
  stop(): Promise<void>;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  if (!bin) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-chaos-pg-'));
  const data = path.join(dir, 'data');
  if (asRoot) execFileSync('chown', ['postgres:postgres', dir]);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let running = false;
  const ctl = (args: string[]) => pgTool(bin, 'pg_ctl', ['-D', data, ...args]);
  const forceStop = () => {
    if (!running) return;
    running = false;
    try {
      const file = path.join(bin, 'pg_ctl');
      const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', file, '-D', data, '-m', 'immediate', '-w', 'stop']] : [file, ['-D', data, '-m', 'immediate', '-w', 'stop']];
      spawnSync(cmd, argv, { stdio: 'ignore', timeout: 30_000 });
    } catch {
      // already gone
    }
  };
  const removeFiles = () => fs.rmSync(dir, { recursive: true, force: true });
  const exitCleanup = () => {
    forceStop();
    removeFiles();
  };
  cleanups.add(exitCleanup);

  const startServer = async () => {
    // -k: the Unix socket goes in our directory (the shared instance owns the default one).
    ctl(['-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=100`, '-l', path.join(dir, 'server.log'), '-w', '-t', '60', 'start']);
    running = true;
    await waitFor('the private PostgreSQL to accept connections', async () => {
      const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
      try {
        await c.connect();
        await c.query('select 1');
        return true;
      } finally {
        await c.end().catch(() => {});
      }
    }, 60_000);
  };

  try {
    pgTool(bin, 'initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync', '--locale=C.UTF-8'], 120_000);
    await startServer();
  } catch (err) {
    exitCleanup();
    cleanups.delete(exitCleanup);
    throw err;
  }

  const urlOf = (name: string) => `postgres://postgres@127.0.0.1:${port}/${name}`;
  return {
    port,
    url,
    urlOf,
    async createDatabase(name) {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try {
        await c.query(`create database ${name}`);
      } finally {
        await c.end();
      }
      return urlOf(name);
    },
    async stopServer() {
      ctl(['-m', 'fast', '-w', '-t', '60', 'stop']);
      running = false;
    },
    startServer,
    async stop() {
      if (running) {
        try {
          ctl(['-m', 'fast', '-w', '-t', '30', 'stop']);
          running = false;
        } catch {
          forceStop();
        }
      }
      removeFiles();
      cleanups.delete(exitCleanup);
    },
  };
}

/** A private redis-server (no persistence): stop and start it again on the same port. */
export interface PrivateRedis {
  port: number;
  url: string;
  /** SIGKILL: the connection drops as in a crash. */
  stopServer(): Promise<void>;
  startServer(): Promise<void>;
  /** A client (the caller disconnects it). */
  client(): Redis;
  stop(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const bin = redisBin();
  if (!bin) throw new Error('no redis-server on PATH');
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  const kill = () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  cleanups.add(kill);

  const startServer = async () => {
    const proc = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes'], { stdio: 'ignore' });
    child = proc;
    await waitFor('the private Redis to answer PING', async () => {
      if (proc.exitCode !== null) throw new Error(`redis-server exited (${proc.exitCode})`);
      const c = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1_000 });
      c.on('error', () => {});
      try {
        await c.connect();
        return (await c.ping()) === 'PONG';
      } finally {
        c.disconnect();
      }
    }, 30_000);
  };
  const stopServer = async () => {
    const proc = child;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  };

  await startServer();
  return {
    port,
    url,
    stopServer,
    startServer,
    client() {
      const c = new Redis(url, { maxRetriesPerRequest: 1 });
      c.on('error', () => {});
      return c;
    },
    async stop() {
      await stopServer();
      cleanups.delete(kill);
    },
  };
}
