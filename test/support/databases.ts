/**
 * The databases every repository/service/HTTP test runs on: a real SQLite file always, and a
 * real PostgreSQL when TEST_DATABASE_URL is set (required in CI). Each test context gets a fresh
 * database (a new file, or a new PostgreSQL database) so test files can run in parallel.
 *
 * TEST_DATABASES=postgres runs PostgreSQL only (TEST_DATABASE_URL then required): the Node 24
 * run of scripts/test-node24.sh, where the SQLite driver (a native addon built for this
 * machine's Node 20) cannot load. Nothing here loads that driver until a SQLite database opens.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';

export interface TestDatabase {
  database: Database;
  url: string;
  drop(): Promise<void>;
}

export interface DatabaseTarget {
  name: 'sqlite' | 'postgres';
  create(): Promise<TestDatabase>;
}

const sqliteTarget: DatabaseTarget = {
  name: 'sqlite',
  async create() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-test-'));
    const url = `sqlite:${path.join(dir, 'test.db')}`;
    const database = openDatabase(url);
    await migrateToLatest(database);
    return {
      database,
      url,
      async drop() {
        await database.close().catch(() => {});
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

function postgresTarget(adminUrl: string): DatabaseTarget {
  return {
    name: 'postgres',
    async create() {
      const name = `consulta_t_${process.pid}_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(`create database ${name}`);
      } finally {
        await admin.end();
      }
      const url = new URL(adminUrl);
      url.pathname = `/${name}`;
      const database = openDatabase(url.toString(), { poolSize: 10 });
      await migrateToLatest(database);
      return {
        database,
        url: url.toString(),
        async drop() {
          await database.close().catch(() => {});
          const c = new pg.Client({ connectionString: adminUrl });
          await c.connect();
          try {
            await c.query(`drop database if exists ${name} with (force)`);
          } finally {
            await c.end();
          }
        },
      };
    },
  };
}

/** SQLite, plus PostgreSQL when configured. In CI, PostgreSQL is mandatory. TEST_DATABASES=postgres: PostgreSQL only. */
export function databaseTargets(): DatabaseTarget[] {
  const pgUrl = process.env.TEST_DATABASE_URL;
  const only = process.env.TEST_DATABASES;
  if (only !== undefined && only !== '' && only !== 'postgres') throw new Error(`TEST_DATABASES must be "postgres" (or unset), not ${JSON.stringify(only)}`);
  if (only === 'postgres') {
    if (!pgUrl) throw new Error('TEST_DATABASES=postgres needs TEST_DATABASE_URL');
    return [postgresTarget(pgUrl)];
  }
  if (!pgUrl && process.env.CI === 'true') {
    throw new Error('TEST_DATABASE_URL must be set in CI: the PostgreSQL suites are required');
  }
  return pgUrl ? [sqliteTarget, postgresTarget(pgUrl)] : [sqliteTarget];
}
