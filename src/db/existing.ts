/**
 * Whether DATABASE_URL names an existing Consulta database. Opening a SQLite URL creates the file,
 * and migrating a PostgreSQL database creates the schema: a command run with the wrong
 * DATABASE_URL (another directory, a shell without the server's settings) would silently read an
 * empty database ("no mail"). Commands that read or change data check first; only start, serve,
 * migrate, seed and import create a database (README, "Command line").
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type SQLite from 'better-sqlite3';
import pg from 'pg';
import { isPostgresUrl, sqlitePath } from './database.ts';

/** The table Kysely's migrator keeps: every database `consulta migrate` ran on has it. */
const MIGRATIONS_TABLE = 'kysely_migration';

/** DATABASE_URL as it can be shown: a SQLite file as an absolute path, a PostgreSQL URL without its password. */
export function describeDatabaseUrl(url: string): string {
  if (isPostgresUrl(url)) {
    try {
      const u = new URL(url);
      if (u.password) u.password = '***';
      return u.toString();
    } catch {
      return 'postgres://(unparseable URL)';
    }
  }
  const file = sqlitePath(url);
  return file === ':memory:' ? 'sqlite::memory:' : `sqlite:${path.resolve(file)}`;
}

/**
 * Why `url` is not an existing Consulta database (a missing SQLite file, a PostgreSQL database
 * that does not exist or has no migrations table), or null when it is one. Creates nothing.
 * Other failures (the server does not answer, a wrong password) are thrown as they are.
 */
export async function missingDatabaseReason(url: string): Promise<string | null> {
  if (isPostgresUrl(url)) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
    } catch (err) {
      // 3D000: invalid_catalog_name, "database … does not exist".
      if ((err as { code?: string }).code === '3D000') return (err as Error).message;
      throw err;
    }
    try {
      const { rows } = await client.query<{ present: boolean }>('select to_regclass($1) is not null as present', [MIGRATIONS_TABLE]);
      return rows[0]?.present ? null : `the database has no Consulta schema (no ${MIGRATIONS_TABLE} table)`;
    } finally {
      await client.end();
    }
  }
  const file = sqlitePath(url);
  if (file === ':memory:') return 'an in-memory database exists only inside the process that opened it';
  if (!fs.existsSync(file)) return 'no such file';
  if (!fs.statSync(file).isFile()) return 'not a file';
  const Driver = createRequire(import.meta.url)('better-sqlite3') as typeof SQLite;
  // Not read-only: a read-only connection cannot open a WAL database whose -shm file is gone.
  // fileMustExist: never creates one.
  const sqlite = new Driver(file, { fileMustExist: true });
  try {
    const row = sqlite.prepare("select 1 as present from sqlite_master where type = 'table' and name = ?").get(MIGRATIONS_TABLE);
    return row ? null : `the file has no Consulta schema (no ${MIGRATIONS_TABLE} table)`;
  } catch (err) {
    return `not a SQLite database (${(err as Error).message})`;
  } finally {
    sqlite.close();
  }
}
