/**
 * Opens the database named by DATABASE_URL: embedded SQLite (better-sqlite3, WAL) or PostgreSQL.
 * This folder is the only place that knows one dialect from the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import type { DB } from './schema.ts';
import { GroupCommitDriver, WalGroupSync, type GroupSyncOptions } from './group-commit.ts';

export { walSyncCount } from './group-commit.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: DialectName;
  /**
   * The better-sqlite3 connection behind `db` (SQLite only), for the one bulk write that bypasses
   * the query builder: request-log batches, as prepared statements.
   */
  readonly sqlite?: SQLite.Database;
  /**
   * Resolves once every write committed before the call is on disk. Writes made through `db`
   * already are when their promise resolves; this is for an answer built from rows another
   * request committed (a replay of a stored outcome). PostgreSQL (synchronous_commit=on) and
   * in-memory SQLite: at once. SQLite file: the group commit's next fsync (group-commit.ts).
   */
  durable(): Promise<void>;
  /** Throws when the database does not answer (used by /readyz). */
  ping(): Promise<void>;
  /** Refreshes planner statistics after bulk writes (seed, import). */
  analyze(): Promise<void>;
  close(): Promise<void>;
}

/** How long a SQLite connection waits for another's write lock before SQLITE_BUSY. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

export interface OpenOptions {
  poolSize?: number;
  /** SQLite file: the group commit's fsync and failure seams (tests); the defaults are the real ones. */
  groupSync?: GroupSyncOptions;
}

// pg returns int8/numeric as strings by default; our counts and ids fit a JS number.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

// Connection-level failures: the server is down, restarting, or dropped the connection.
const UNAVAILABLE_NODE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// PostgreSQL SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now, and class 08 (connection exception).
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03']);
const UNAVAILABLE_MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect)/;

/**
 * Whether `err` means the database cannot be reached right now (rather than a bug or a bad
 * query): the caller answers 503 with Retry-After instead of a 500. pg reports a refused or
 * dropped connection as a Node socket error, a shutdown as a SQLSTATE, and a connection that
 * died under a query only by its message.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (UNAVAILABLE_NODE_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.test(message)) return true;
  // Every address of the host refused (Node's AggregateError).
  const nested = (err as { errors?: unknown }).errors;
  return Array.isArray(nested) && nested.some((e) => e !== err && isDatabaseUnavailable(e));
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** The file path of a SQLite DATABASE_URL (`sqlite:path`, `sqlite://path` or a bare path). */
export function sqlitePath(url: string): string {
  if (url === ':memory:' || url === 'sqlite::memory:') return ':memory:';
  return url.replace(/^sqlite:(\/\/)?/i, '');
}

/**
 * Kysely's SQLite driver prepares every query anew; preparing (parsing and planning) costs more
 * than running a typical indexed query. Statements are cached by SQL text instead. Safe because
 * Kysely runs one query at a time on the single connection and never iterates a statement lazily.
 */
function withStatementCache(sqlite: SQLite.Database, max = 500): { database: SQLite.Database; isReadOnly(source: string): boolean } {
  const cache = new Map<string, SQLite.Statement>();
  const prepare = (source: string) => {
    let stmt = cache.get(source);
    if (!stmt) {
      stmt = sqlite.prepare(source);
      if (cache.size >= max) cache.delete(cache.keys().next().value!);
      cache.set(source, stmt);
    }
    return stmt;
  };
  const database = new Proxy(sqlite, {
    get(target, prop, receiver) {
      if (prop === 'prepare') return prepare;
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  // A statement just run is in the cache; one that is not counts as a write (the safe side).
  return { database, isReadOnly: (source) => cache.get(source)?.readonly ?? false };
}

export function openDatabase(url: string, options: OpenOptions = {}): Database {
  if (isPostgresUrl(url)) {
    const pool = new pg.Pool({ connectionString: url, max: options.poolSize ?? 10 });
    // An idle client that errors (server restart) must not crash the process; the pool replaces it.
    pool.on('error', () => {});
    // A checked-out client whose connection dies between two statements emits 'error' with no
    // listener (the pool only listens while it is idle), which would crash the process. Its next
    // statement fails anyway, and the pool discards it on release because it is no longer usable.
    pool.on('connect', (client) => {
      client.on('error', () => {});
    });
    const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    return {
      db,
      dialect: 'postgres',
      ping: async () => {
        await sql`select 1`.execute(db);
      },
      durable: () => Promise.resolve(),
      analyze: async () => {
        await sql`analyze`.execute(db);
      },
      close: () => db.destroy(),
    };
  }
  const file = sqlitePath(url);
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  // Loaded only for SQLite: its native addon is built for one Node version, and a PostgreSQL
  // deployment (or CI under another Node) must not need it.
  const Driver = createRequire(import.meta.url)('better-sqlite3') as typeof SQLite;
  const sqlite = new Driver(file);
  sqlite.pragma('journal_mode = WAL');
  // A committed transaction must survive a power cut before anyone is told (a 201 is never lost).
  // A file: NORMAL, with the group commit's fsync awaited after every committing write
  // (group-commit.ts) — the same guarantee as FULL for every caller, one fsync for many commits,
  // off the event loop. In memory: nothing to sync.
  const memory = file === ':memory:';
  sqlite.pragma(memory ? 'synchronous = FULL' : 'synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
  // 16 MB of SQLite's own page cache: directory reads are served from the process's caches, so
  // at high request rates these pages held mostly request-log writes (64 MB put RSS ~90 MB
  // higher under load); the operating system's file cache still holds the rest.
  sqlite.pragma('cache_size = -16384');
  const cached = withStatementCache(sqlite);
  const groupSync = memory ? null : new WalGroupSync(`${path.resolve(file)}-wal`, options.groupSync);
  const dialect = new SqliteDialect({ database: cached.database });
  if (groupSync) {
    const createDriver = dialect.createDriver.bind(dialect);
    dialect.createDriver = () => new GroupCommitDriver(createDriver(), sqlite, cached.isReadOnly, groupSync);
  }
  const db = new Kysely<DB>({ dialect });
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    durable: () => groupSync?.durable() ?? Promise.resolve(),
    ping: async () => {
      sqlite.prepare('select 1').get();
    },
    analyze: async () => {
      sqlite.exec('analyze');
    },
    // Kysely closes the file only if a query went through it; a database opened and closed
    // without one (a copied test file, a command that only pings) is closed here too.
    close: async () => {
      await db.destroy();
      await groupSync?.close();
      if (sqlite.open) sqlite.close();
    },
  };
}
