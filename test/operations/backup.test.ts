/**
 * Restore drills. SQLite: `consulta backup` runs while a real server process takes a stream of
 * initiates; a second server then starts on the copy, which must pass integrity_check, hold every
 * intent answered before the backup began (each with its slot hold), carry the same migrations,
 * and serve. PostgreSQL (when pg_dump is installed): the same with `pg_dump -Fc` and `pg_restore`
 * into a fresh database of its own. Also the command's refusals.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import pg from 'pg';
import { systemClock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { KeysService } from '../../src/domain/access/keys.service.ts';
import { EVERY_DAY_9_TO_14, madridDate, slotBody, type InitiateBodyInput } from '../support/booking.ts';
import { jsonLine, runConsulta } from '../support/cli.ts';
import { databaseTargets, type DatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';

const run = promisify(execFile);
const LAWYERS = 20;
const DAYS = 10;
const HOURS = ['09', '10', '11', '12', '13'];
const CONCURRENCY = 4;
/** Intents answered before the backup starts. */
const BEFORE_BACKUP = 40;

const hasPgDump = spawnSync('pg_dump', ['--version']).status === 0 && spawnSync('pg_restore', ['--version']).status === 0;

interface Load {
  /** Ids of the intents answered so far, in order. */
  answered: string[];
  /** Statuses other than 201, and network errors. */
  failures: string[];
  /** Every slot was tried (the load ended by itself). */
  readonly exhausted: boolean;
  stop(): Promise<void>;
}

/** Initiates on distinct slots, CONCURRENCY at a time, until stopped or out of slots. */
function startLoad(url: string, token: string, bodies: InitiateBodyInput[]): Load {
  const answered: string[] = [];
  const failures: string[] = [];
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < bodies.length) {
      const body = bodies[next++]!;
      try {
        const res = await fetch(`${url}/api/v1/bookings/initiate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(20_000),
        });
        const text = await res.text();
        if (res.status === 201) answered.push((JSON.parse(text) as { booking_intent_id: string }).booking_intent_id);
        else failures.push(`${res.status} ${text}`);
      } catch (err) {
        failures.push((err as Error).message);
      }
    }
  };
  let exhausted = false;
  const workers = Promise.all(Array.from({ length: CONCURRENCY }, worker)).then(() => {
    exhausted = next >= bodies.length;
  });
  return {
    answered,
    failures,
    get exhausted() {
      return exhausted;
    },
    async stop() {
      stopped = true;
      await workers;
    },
  };
}

async function until(what: string, check: () => boolean, timeoutMs = 60_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What a restored database must show: its migrations, and every intent answered before the backup with its hold. */
async function assertRestored(restored: Database, original: Database, beforeBackup: string[], answeredInAll: number): Promise<void> {
  const migrations = async (d: Database) => (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(d.db)).rows.map((r) => r.name);
  assert.deepEqual(await migrations(restored), await migrations(original), 'the same migrations, all applied');
  const intents = await restored.db.selectFrom('booking_intents').select(['id', 'lawyer_id', 'slot_date', 'start_time', 'status']).execute();
  const ids = new Set(intents.map((i) => i.id));
  const missing = beforeBackup.filter((id) => !ids.has(id));
  assert.deepEqual(missing, [], 'every intent answered before the backup started is in it');
  assert.ok(intents.length >= beforeBackup.length && intents.length <= answeredInAll, `${intents.length} intents in the copy`);
  // One snapshot: every pending intent in the copy has its hold, and every hold its intent.
  const holds = await restored.db.selectFrom('slot_holds').select(['booking_intent_id', 'lawyer_id', 'slot_date', 'start_time']).where('booking_intent_id', 'is not', null).execute();
  const holdOf = new Map(holds.map((h) => [h.booking_intent_id!, h]));
  for (const i of intents.filter((x) => x.status === 'pending')) {
    const h = holdOf.get(i.id);
    assert.ok(h && h.lawyer_id === i.lawyer_id && h.slot_date === i.slot_date && h.start_time === i.start_time, `hold of ${i.id}`);
  }
  for (const h of holds) assert.ok(ids.has(h.booking_intent_id!), `intent of the hold ${h.booking_intent_id}`);
}

/** A restored copy serves: ready, and an intent answered before the backup can be polled. */
async function assertServes(server: ServerProcess, token: string, id: string): Promise<void> {
  const ready = await fetch(`${server.url}/readyz`);
  assert.equal(ready.status, 200);
  const res = await fetch(`${server.url}/api/v1/booking-intents/${id}`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, await res.clone().text());
  const body = (await res.json()) as { booking_intent_id: string; status: string };
  assert.equal(body.booking_intent_id, id);
  assert.equal(body.status, 'pending');
}

/** A database with lawyers, a key, and a slot for every initiate of the load. */
async function prepare(db: TestDatabase): Promise<{ token: string; bodies: InitiateBodyInput[] }> {
  const lawyers = await insertLawyers(
    db.database,
    Array.from({ length: LAWYERS }, (_, i) => lawyerRecord({ name: `Backup Lawyer ${i}`, weekly_hours: EVERY_DAY_9_TO_14 })),
    new Date(),
  );
  const { token } = await new KeysService({ database: db.database, clock: systemClock }).create(OPERATOR, { ownerEmail: 'backup@example.com' }, { mode: 'live' });
  const bodies: InitiateBodyInput[] = [];
  const now = Date.now();
  for (let d = 0; d < DAYS; d++) {
    const date = madridDate(now, 2 + d);
    for (const hour of HOURS) for (const lawyer of lawyers) bodies.push(slotBody(lawyer, date, hour));
  }
  return { token, bodies };
}

const serverEnv = (url: string) => ({ DATABASE_URL: url, RATE_LIMIT_MULTIPLIER: '1000', MAX_PENDING_INTENTS_PER_KEY: '10000' });
const cliEnv = (url: string) => ({ PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: url, LOG_LEVEL: 'silent' });

function target(name: 'sqlite' | 'postgres'): DatabaseTarget | undefined {
  return databaseTargets().find((t) => t.name === name);
}

const sqliteTarget = target('sqlite');
if (sqliteTarget) {
  describe('consulta backup: SQLite restore drill while serving', () => {
    let db: TestDatabase;
    let first: ServerProcess | undefined;
    let second: ServerProcess | undefined;
    let dir: string;

    before(async () => {
      db = await sqliteTarget.create();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-backup-'));
      // Some bulk, so the copy is not a handful of pages: 40,000 request-log rows.
      const rows = Array.from({ length: 40_000 }, (_, i) => ({
        request_id: `req_bulk_${i}`,
        at: new Date(Date.now() - i * 1000).toISOString(),
        key_id: null,
        owner_type: null,
        owner_id: null,
        test: 0,
        method: 'GET',
        route: '/api/v1/lawyers',
        path: `/api/v1/lawyers?page=${i}`,
        status: 200,
        duration_ms: 1.5,
        client_ip: '127.0.0.1',
        error_code: null,
      }));
      for (let i = 0; i < rows.length; i += 500) await db.database.db.insertInto('request_log').values(rows.slice(i, i + 500)).execute();
    });
    after(async () => {
      await Promise.all([first?.stop('SIGKILL'), second?.stop('SIGKILL')]);
      await db?.drop();
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('copies a consistent database while intents are being created, and a server starts on the copy', async (t) => {
      const { token, bodies } = await prepare(db);
      first = await startServerProcess(serverEnv(db.url), 60_000);
      const load = startLoad(first.url, token, bodies);
      let beforeBackup: string[];
      try {
        await until(`${BEFORE_BACKUP} intents`, () => load.answered.length >= BEFORE_BACKUP || load.failures.length > 0);
        beforeBackup = [...load.answered];
        const file = path.join(dir, 'copy.db');
        const backup = jsonLine(await runConsulta(['backup', file, '--json'], cliEnv(db.url)));
        t.diagnostic(`intents answered while the backup command ran: ${load.answered.length - beforeBackup.length}; copy took ${String(backup.seconds)} s`);
        assert.equal(backup.file, file);
        assert.equal(backup.integrity, 'ok');
        assert.equal(backup.bytes, fs.statSync(file).size);
        assert.ok((backup.bytes as number) > 1_000_000, `${String(backup.bytes)} bytes`);
        assert.equal(fs.statSync(file).mode & 0o777, 0o600, 'only its owner may read a backup');
        assert.deepEqual(fs.readdirSync(dir), ['copy.db'], 'no partial file left behind');
        // The load goes on after the backup (unless every slot went while it ran).
        const atBackupEnd = load.answered.length;
        await until('more intents after the backup', () => load.answered.length > atBackupEnd + 5 || load.exhausted || load.failures.length > 0);
      } finally {
        await load.stop();
      }
      assert.deepEqual(load.failures, []);
      assert.ok(load.answered.length > beforeBackup.length, 'intents were created after the backup started');

      const restored = openDatabase(`sqlite:${path.join(dir, 'copy.db')}`);
      try {
        const check = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(restored.db);
        assert.deepEqual(check.rows.map((r) => r.integrity_check), ['ok']);
        await assertRestored(restored, db.database, beforeBackup, load.answered.length);
        const logged = await restored.db.selectFrom('request_log').select((eb) => eb.fn.countAll().as('n')).where('request_id', 'like', 'req_bulk_%').executeTakeFirstOrThrow();
        assert.equal(Number(logged.n), 40_000);
      } finally {
        await restored.close();
      }
      second = await startServerProcess(serverEnv(`sqlite:${path.join(dir, 'copy.db')}`), 60_000);
      await assertServes(second, token, beforeBackup[0]!);
    });

    it('refuses to replace an existing FILE without --force, and replaces it with --force', async () => {
      const file = path.join(dir, 'existing.db');
      fs.writeFileSync(file, 'not a database');
      const refused = await runConsulta(['backup', file], cliEnv(db.url));
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /already exists; pass --force/);
      assert.equal(fs.readFileSync(file, 'utf8'), 'not a database');
      const forced = jsonLine(await runConsulta(['backup', file, '--force', '--json'], cliEnv(db.url)));
      assert.equal(forced.integrity, 'ok');
      assert.equal(fs.readFileSync(file).subarray(0, 16).toString('latin1'), 'SQLite format 3\0');
    });

    it('refuses the database itself, a missing directory, no FILE, and a missing database', async () => {
      const self = await runConsulta(['backup', db.url.replace(/^sqlite:/, ''), '--force'], cliEnv(db.url));
      assert.equal(self.code, 1);
      assert.match(self.stderr, /is the database itself/);
      const noDir = jsonLine(await runConsulta(['backup', path.join(dir, 'nope', 'x.db'), '--json'], cliEnv(db.url)), 1);
      assert.equal(noDir.error.code, 'no_directory');
      const noFile = await runConsulta(['backup'], cliEnv(db.url));
      assert.equal(noFile.code, 2);
      assert.match(noFile.stderr, /backup needs a FILE/);
      const missing = path.join(dir, 'missing.db');
      const noDb = await runConsulta(['backup', path.join(dir, 'x.db')], cliEnv(`sqlite:${missing}`));
      assert.equal(noDb.code, 1);
      assert.match(noDb.stderr, /no database at/);
      assert.equal(fs.existsSync(missing), false, 'a backup never creates the database it was asked to copy');
    });

    it('with PostgreSQL, explains pg_dump and exits 2', async () => {
      const r = await runConsulta(['backup', path.join(dir, 'pg.dump')], cliEnv('postgres://nobody@127.0.0.1:1/none'));
      assert.equal(r.code, 2);
      assert.match(r.stderr, /pg_dump -Fc/);
      assert.match(r.stderr, /pg_restore/);
      assert.equal(fs.existsSync(path.join(dir, 'pg.dump')), false);
    });
  });
}

const postgresTarget = target('postgres');
if (postgresTarget && hasPgDump) {
  describe('PostgreSQL restore drill: pg_dump while serving, pg_restore into a fresh database', () => {
    let db: TestDatabase;
    let first: ServerProcess | undefined;
    let second: ServerProcess | undefined;
    let restoredUrl: string | undefined;
    let restoredName: string | undefined;
    let dir: string;
    const admin = () => new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });

    before(async () => {
      db = await postgresTarget.create();
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-pgdump-'));
    });
    after(async () => {
      await Promise.all([first?.stop('SIGKILL'), second?.stop('SIGKILL')]);
      await db?.drop();
      if (restoredName) {
        const c = admin();
        await c.connect();
        try {
          await c.query(`drop database if exists ${restoredName} with (force)`);
        } finally {
          await c.end();
        }
      }
      if (dir) fs.rmSync(dir, { recursive: true, force: true });
    });

    it('restores every intent answered before the dump began, and a server starts on the restored database', async () => {
      const { token, bodies } = await prepare(db);
      first = await startServerProcess(serverEnv(db.url), 60_000);
      const load = startLoad(first.url, token, bodies);
      const file = path.join(dir, 'consulta.dump');
      let beforeBackup: string[];
      try {
        await until(`${BEFORE_BACKUP} intents`, () => load.answered.length >= BEFORE_BACKUP || load.failures.length > 0);
        beforeBackup = [...load.answered];
        // pg_dump takes one snapshot (a repeatable-read transaction): consistent while serving.
        await run('pg_dump', ['-Fc', '-f', file, db.url]);
        const atDumpEnd = load.answered.length;
        await until('more intents after the dump', () => load.answered.length > atDumpEnd + 5 || load.exhausted || load.failures.length > 0);
      } finally {
        await load.stop();
      }
      assert.deepEqual(load.failures, []);
      assert.ok(load.answered.length > beforeBackup.length, 'intents were created after the dump started');
      assert.ok(fs.statSync(file).size > 0);

      restoredName = `consulta_restore_${process.pid}_${randomBytes(4).toString('hex')}`;
      const c = admin();
      await c.connect();
      try {
        await c.query(`create database ${restoredName}`);
      } finally {
        await c.end();
      }
      const url = new URL(db.url);
      url.pathname = `/${restoredName}`;
      restoredUrl = url.toString();
      await run('pg_restore', ['--no-owner', '--exit-on-error', '-d', restoredUrl, file]);

      const restored = openDatabase(restoredUrl, { poolSize: 2 });
      try {
        await assertRestored(restored, db.database, beforeBackup, load.answered.length);
      } finally {
        await restored.close();
      }
      second = await startServerProcess(serverEnv(restoredUrl), 60_000);
      await assertServes(second, token, beforeBackup[0]!);
    });
  });
}
