/**
 * Online backup of the embedded SQLite database, consistent while a server writes to it.
 *
 * SQLite's online backup API (better-sqlite3's `db.backup`) runs on a connection of its own. All
 * pages are copied in one step, that is inside one read transaction: in WAL mode a reader sees
 * one snapshot and never blocks the server's writers, so the copy is the database as it was at
 * one instant. (Copying a few pages per step would restart whenever the server commits in
 * between, and might never finish under steady writes.) The copy is written beside FILE, checked
 * (`PRAGMA quick_check`), synced to disk, readable by its owner only (it holds webhook secrets
 * and key hashes), and only then renamed to FILE: a FILE that exists is always a whole backup.
 *
 * PostgreSQL is backed up with its own tool, pg_dump (docs/operations.md).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import { isPostgresUrl, sqlitePath, SQLITE_BUSY_TIMEOUT_MS } from './database.ts';

export interface BackupResult {
  file: string;
  bytes: number;
  pages: number;
  durationMs: number;
}

/** Why a backup was refused before it started: the caller says so and stops (nothing was written). */
export class BackupRefused extends Error {
  constructor(
    message: string,
    readonly reason: 'postgres' | 'memory' | 'no_database' | 'exists' | 'same_file' | 'no_directory',
  ) {
    super(message);
    this.name = 'BackupRefused';
  }
}

/** Copies the SQLite database of `databaseUrl` to `file`; an existing `file` is replaced only with `force`. */
export async function backupSqlite(databaseUrl: string, file: string, options: { force?: boolean } = {}): Promise<BackupResult> {
  if (isPostgresUrl(databaseUrl)) {
    throw new BackupRefused('DATABASE_URL is a PostgreSQL database: back it up with pg_dump (pg_dump -Fc -f FILE "$DATABASE_URL"), restore with pg_restore; see docs/operations.md', 'postgres');
  }
  const source = sqlitePath(databaseUrl);
  if (source === ':memory:') throw new BackupRefused('DATABASE_URL is an in-memory database: there is nothing on disk to back up', 'memory');
  if (!fs.existsSync(source)) throw new BackupRefused(`no database at ${source} (DATABASE_URL)`, 'no_database');
  const target = path.resolve(file);
  const dir = path.dirname(target);
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new BackupRefused(`no such directory: ${dir}`, 'no_directory');
  const live = fs.realpathSync(source);
  const targetReal = fs.existsSync(target) ? fs.realpathSync(target) : target;
  if ([live, `${live}-wal`, `${live}-shm`, `${live}-journal`].includes(targetReal)) {
    throw new BackupRefused(`${file} is the database itself (or one of its files)`, 'same_file');
  }
  if (fs.existsSync(target) && !options.force) throw new BackupRefused(`${file} already exists; pass --force to replace it`, 'exists');

  const started = performance.now();
  const require = createRequire(import.meta.url);
  const Driver = require('better-sqlite3') as typeof SQLite;
  const partial = path.join(dir, `.${path.basename(target)}.partial-${process.pid}-${randomBytes(4).toString('hex')}`);
  const db = new Driver(source, { fileMustExist: true });
  try {
    db.pragma(`busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
    // The first step only starts the backup; the second copies every page in one read transaction.
    const progress = await db.backup(partial, { progress: () => 0x7fffffff });
    const copy = new Driver(partial, { fileMustExist: true });
    try {
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy failed its integrity check: ${String(check)}`);
      // The copy keeps the source's WAL mode; folding its log into the file leaves one file to move.
      copy.pragma('wal_checkpoint(TRUNCATE)');
    } finally {
      copy.close();
    }
    for (const leftover of [`${partial}-wal`, `${partial}-shm`]) fs.rmSync(leftover, { force: true });
    fs.chmodSync(partial, 0o600);
    const fd = fs.openSync(partial, 'r');
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(partial, target);
    return { file: target, bytes: fs.statSync(target).size, pages: progress.totalPages, durationMs: performance.now() - started };
  } catch (err) {
    for (const f of [partial, `${partial}-wal`, `${partial}-shm`]) fs.rmSync(f, { force: true });
    throw err;
  } finally {
    db.close();
  }
}
