/**
 * The databases every repository/service/HTTP test runs on: a real SQLite file always, and a
 * real PostgreSQL when TEST_DATABASE_URL is set (required in CI). Each test context gets a fresh
 * database (a new file, or a new PostgreSQL database) so test files can run in parallel.
 *
 * TEST_DATABASES=postgres runs PostgreSQL only (TEST_DATABASE_URL then required): the Node 24
 * run of scripts/test-node24.sh, where the SQLite driver (a native addon built for this
 * machine's Node 20) cannot load. Nothing here loads that driver until a SQLite database opens.
 *
 * Migrating a database costs 1–2 s on SQLite (each migration commits with synchronous = FULL)
 * and 2–4 s on PostgreSQL, and the suite makes hundreds of them. So the schema is migrated once
 * into a template — a SQLite file in the temporary directory, a PostgreSQL template database —
 * named by a fingerprint of everything the migrated schema follows from (the migrations, the
 * migrator, src/db/database.ts, the Kysely version), and every test database is a copy of it:
 * the same migrations, run once per change instead of once per test context. The first process
 * that needs a template builds it (under an advisory lock on PostgreSQL, built under another name
 * and renamed when complete on both), the others wait for it or find it. TEST_DB_TEMPLATE=0
 * migrates every database from scratch instead (the old way, to compare or to rule it out).
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

const useTemplates = process.env.TEST_DB_TEMPLATE !== '0';

let fingerprintMemo: string | undefined;
/** A hash of everything a freshly migrated database follows from: a change to any of it is a new template. */
function schemaFingerprint(): string {
  if (fingerprintMemo !== undefined) return fingerprintMemo;
  const dbDir = fileURLToPath(new URL('../../src/db/', import.meta.url));
  const migrationsDir = path.join(dbDir, 'migrations');
  const files = [path.join(dbDir, 'migrator.ts'), path.join(dbDir, 'database.ts'), ...fs.readdirSync(migrationsDir).sort().map((f) => path.join(migrationsDir, f))];
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${path.basename(f)}\0`).update(fs.readFileSync(f)).update('\0');
  hash.update(fs.readFileSync(fileURLToPath(new URL('../../node_modules/kysely/package.json', import.meta.url))));
  return (fingerprintMemo = hash.digest('hex').slice(0, 16));
}

let sqliteTemplateMemo: Promise<string> | undefined;
/**
 * The migrated SQLite template file, built once per schema: migrated under a temporary name,
 * closed (which checkpoints the WAL into the file and removes it), then renamed into place, so a
 * process never copies a half-built file. Two processes building at once both rename a complete
 * file; the last one wins.
 */
function sqliteTemplate(): Promise<string> {
  return (sqliteTemplateMemo ??= (async () => {
    const file = path.join(os.tmpdir(), `consulta-test-template-${schemaFingerprint()}.db`);
    if (fs.existsSync(file)) return file;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-template-'));
    try {
      const building = path.join(dir, 'template.db');
      const database = openDatabase(`sqlite:${building}`);
      try {
        await migrateToLatest(database);
      } finally {
        await database.close();
      }
      if (fs.existsSync(`${building}-wal`)) throw new Error('the SQLite template kept a WAL file after closing: not copying it');
      fs.renameSync(building, file);
      return file;
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  })());
}

/**
 * A migrated SQLite database at `file` (a copy of the template), as the URL a server is started
 * with: its own start-up migration then finds nothing to do. For tests that start the whole
 * server (startServer) on a file of their own; test/server.test.ts keeps starting from an empty
 * file, so migrating at start-up stays tested.
 */
export async function migratedSqliteUrl(file: string): Promise<string> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if (useTemplates) fs.copyFileSync(await sqliteTemplate(), file);
  return `sqlite:${file}`;
}

/** A fresh migrated SQLite file per `create()`; `options` are openDatabase's (e.g. a group-commit seam). */
export const sqliteTargetWith = (options?: Parameters<typeof openDatabase>[1]): DatabaseTarget => ({
  name: 'sqlite',
  async create() {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-test-'));
    const file = path.join(dir, 'test.db');
    const url = `sqlite:${file}`;
    if (useTemplates) fs.copyFileSync(await sqliteTemplate(), file);
    const database = openDatabase(url, options);
    if (!useTemplates) await migrateToLatest(database);
    return {
      database,
      url,
      async drop() {
        await database.close().catch(() => {});
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  },
});

const sqliteTarget = sqliteTargetWith();

function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const postgresTemplates = new Map<string, Promise<string>>();
/**
 * The migrated PostgreSQL template database, built once per schema and server. Under an advisory
 * lock (other test processes, and other checkouts sharing the server, wait rather than build it
 * twice): migrated as `<name>_build`, disconnected, then renamed, so the template's name only
 * ever names a complete one. `create database … template` copies it; nobody stays connected to
 * it (PostgreSQL refuses to copy a database in use).
 */
function postgresTemplate(adminUrl: string): Promise<string> {
  let memo = postgresTemplates.get(adminUrl);
  if (!memo) {
    memo = (async () => {
      const name = `consulta_tpl_${schemaFingerprint()}`;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query('select pg_advisory_lock(hashtext($1))', [name]);
        const found = await admin.query('select 1 from pg_database where datname = $1', [name]);
        if (found.rowCount === 0) {
          const building = `${name}_build`;
          await admin.query(`drop database if exists ${building} with (force)`);
          await admin.query(`create database ${building}`);
          const database = openDatabase(databaseUrl(adminUrl, building), { poolSize: 1 });
          try {
            await migrateToLatest(database);
          } finally {
            await database.close();
          }
          // A closed connection's server process may outlive it briefly: force them off.
          await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [building]);
          await admin.query(`alter database ${building} rename to ${name}`);
        }
      } finally {
        await admin.end();
      }
      return name;
    })();
    postgresTemplates.set(adminUrl, memo);
  }
  return memo;
}

function postgresTarget(adminUrl: string): DatabaseTarget {
  return {
    name: 'postgres',
    async create() {
      const name = `consulta_t_${process.pid}_${randomBytes(4).toString('hex')}`;
      const template = useTemplates ? await postgresTemplate(adminUrl) : null;
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      try {
        await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
      } finally {
        await admin.end();
      }
      const url = databaseUrl(adminUrl, name);
      const database = openDatabase(url, { poolSize: 10 });
      if (!template) await migrateToLatest(database);
      return {
        database,
        url,
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
/**
 * The one database a browser walk runs on. A walk drives pages through Chromium; what the database
 * does beneath those pages runs on both databases in the HTTP suites (test/site, test/dashboard,
 * …), so running every walk twice bought little and cost half the suite's time. Each browser file
 * names the database it prefers and the files are split between the two, so both are still driven
 * through a real browser in CI; without PostgreSQL every walk runs on SQLite.
 */
export function browserDatabaseTarget(prefer: DatabaseTarget['name']): DatabaseTarget[] {
  const targets = databaseTargets();
  return [targets.find((t) => t.name === prefer) ?? targets[0]!];
}

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
