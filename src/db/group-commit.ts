/**
 * SQLite group commit: a committed write is durable before its caller goes on, and many commits
 * share one fsync, done off the event loop.
 *
 * The serving connection runs in WAL mode with `synchronous = NORMAL`: a commit appends its frames
 * to the `-wal` file with write(2) and returns without an fsync. Before the query builder hands
 * back control after a committing write (a transaction's COMMIT, or a write outside one), the
 * caller awaits `WalGroupSync.waitFor(ticket)`: an fsync of the WAL file **started after that
 * commit** (libuv's thread pool, `fs.fsync`), shared by every commit made before it started. So
 * nothing that waits for a write — a 201, a replay of a stored outcome — is answered before the
 * write is on disk, exactly as with `synchronous = FULL`, while the event loop never blocks on the
 * disk and N concurrent holds pay for about one fsync instead of N. (docs/performance.md,
 * "Group commit on SQLite", has the argument in full: what a power cut or a kill -9 can lose.)
 *
 * - Why one fsync of the WAL suffices: in WAL mode a transaction is durable once its frames (the
 *   commit frame last) are in the WAL file on disk; recovery replays every complete transaction
 *   found there. fsync(2) writes every modified page of the file, whichever descriptor wrote it.
 *   Checkpoints (which copy WAL frames into the database file) fsync the WAL first and the
 *   database after, at every `synchronous` level, so a frame overwritten after a checkpoint was
 *   already durable in the database file.
 * - The WAL file stays the same file while our connection is open (SQLite deletes it only when
 *   the last connection closes), so one descriptor, opened at the first sync, serves for the
 *   life of the database; its directory is fsynced once, so the file's name is on disk too.
 * - A failed fsync must never be followed by a 201: the process stops at once (`onFailure`, by
 *   default a SIGKILL of the process itself, as PostgreSQL PANICs), the waiting answers are never
 *   sent, and restart recovers from what is on disk. Retrying an fsync after a failure is not
 *   safe (Linux may have dropped the dirty pages and marked them clean).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { CompiledQuery, DatabaseConnection, Driver, QueryResult, TransactionSettings } from 'kysely';
import type SQLite from 'better-sqlite3';

export interface GroupSyncOptions {
  /** The fsync itself (a seam for tests: slow or failing disks); by default fs.fsync on the pool. */
  fsync?: (fd: number) => Promise<void>;
  /** Called once when an fsync fails; by default logs and kills the process (SIGKILL). */
  onFailure?: (err: Error) => void;
}

let syncsDone = 0;
/** fsyncs completed by every WalGroupSync of this process (bench/hold-statements.ts reads it). */
export const walSyncCount = (): number => syncsDone;

const poolFsync = (fd: number) => new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));

function crash(err: Error): void {
  // Nothing waiting for this fsync may be answered: stop now, as PostgreSQL does on a failed fsync.
  try {
    process.stderr.write(`${JSON.stringify({ level: 60, time: Date.now(), msg: 'fsync of the SQLite WAL failed: stopping the process so that no unsynced write is ever acknowledged', err: { message: err.message, code: (err as NodeJS.ErrnoException).code } })}\n`);
  } finally {
    process.kill(process.pid, 'SIGKILL');
  }
}

export class WalGroupSync {
  /** Commits marked so far (each commit takes the next number). */
  private marked = 0;
  /** Every commit up to this number is on disk. */
  private synced = 0;
  private inFlight = false;
  private failed: Error | null = null;
  private fd: number | null = null;
  private waiters: Array<{ ticket: number; resolve: () => void }> = [];
  private readonly fsync: (fd: number) => Promise<void>;
  private readonly onFailure: (err: Error) => void;

  constructor(
    private readonly walFile: string,
    options: GroupSyncOptions = {},
  ) {
    this.fsync = options.fsync ?? poolFsync;
    this.onFailure = options.onFailure ?? crash;
  }

  /** Called right after a commit that wrote: its number, to wait for. */
  mark(): number {
    return ++this.marked;
  }

  /** Resolves once an fsync started after commit `ticket` completed. Never resolves after a failed fsync. */
  waitFor(ticket: number): Promise<void> {
    if (ticket <= this.synced) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push({ ticket, resolve });
      this.kick();
    });
  }

  /** Every write committed before this call is on disk when it resolves (a replay of a stored answer waits for this). */
  durable(): Promise<void> {
    return this.waitFor(this.marked);
  }

  /** Waits for the syncs in progress, then closes the descriptor (before the connection closes). */
  async close(): Promise<void> {
    if (this.failed === null && this.marked > this.synced) await this.durable();
    if (this.fd !== null) {
      const fd = this.fd;
      this.fd = null;
      await new Promise<void>((resolve) => fs.close(fd, () => resolve()));
    }
  }

  private kick(): void {
    if (this.inFlight || this.failed !== null || this.waiters.length === 0) return;
    this.inFlight = true;
    // Everything marked before the fsync starts is covered by it.
    const upTo = this.marked;
    this.syncOnce().then(
      () => {
        syncsDone++;
        this.synced = Math.max(this.synced, upTo);
        this.inFlight = false;
        const ready = this.waiters.filter((w) => w.ticket <= upTo);
        this.waiters = this.waiters.filter((w) => w.ticket > upTo);
        for (const w of ready) w.resolve();
        this.kick();
      },
      (err: unknown) => {
        this.failed = err instanceof Error ? err : new Error(String(err));
        this.onFailure(this.failed);
      },
    );
  }

  private async syncOnce(): Promise<void> {
    if (this.fd === null) {
      this.fd = await new Promise<number>((resolve, reject) => fs.open(this.walFile, 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
      // The WAL's name in its directory must survive a power cut too: once per descriptor.
      const dir = await new Promise<number>((resolve, reject) => fs.open(path.dirname(this.walFile), 'r', (err, fd) => (err ? reject(err) : resolve(fd))));
      try {
        await this.fsync(dir);
      } finally {
        fs.close(dir, () => {});
      }
    }
    await this.fsync(this.fd);
  }
}

/**
 * Kysely's SQLite driver, with every committing write followed by the group fsync before the
 * caller's query or transaction resolves. The fsync is awaited after the connection is released,
 * so the next transaction runs meanwhile and its commit joins the next fsync.
 *
 * A statement counts as a write when SQLite says it is not read-only (`Statement.readonly`,
 * looked up in the statement cache by its text; unknown counts as a write). A write inside a
 * transaction is owed at its COMMIT; outside one, at once. A rolled-back transaction owes nothing.
 */
export class GroupCommitDriver implements Driver {
  private wrote = false;
  private owed = 0;

  constructor(
    private readonly inner: Driver,
    private readonly sqlite: SQLite.Database,
    private readonly isReadOnly: (sql: string) => boolean,
    private readonly sync: WalGroupSync,
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await this.inner.acquireConnection();
    return {
      executeQuery: async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
        const result = await connection.executeQuery<R>(query);
        this.after(query.sql);
        return result;
      },
      streamQuery: <R>(query: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(query, chunkSize),
    };
  }

  private after(sql: string): void {
    if (/^\s*rollback\b/i.test(sql) && !/^\s*rollback\s+to\b/i.test(sql)) {
      this.wrote = false;
      return;
    }
    if (!this.isReadOnly(sql)) this.wrote = true;
    if (this.wrote && !this.sqlite.inTransaction) {
      this.wrote = false;
      this.owed = this.sync.mark();
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(connection, settings);
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(connection);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(connection);
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['savepoint']>>[2]): Promise<void> {
    await this.inner.savepoint!(connection, name, compile);
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['rollbackToSavepoint']>>[2]): Promise<void> {
    await this.inner.rollbackToSavepoint!(connection, name, compile);
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: Parameters<NonNullable<Driver['releaseSavepoint']>>[2]): Promise<void> {
    await this.inner.releaseSavepoint!(connection, name, compile);
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const owed = this.owed;
    this.owed = 0;
    // Released first: the next caller's transaction runs while this one waits for the disk.
    await this.inner.releaseConnection(connection);
    if (owed > 0) await this.sync.waitFor(owed);
  }

  async destroy(): Promise<void> {
    await this.sync.close();
    await this.inner.destroy();
  }
}
