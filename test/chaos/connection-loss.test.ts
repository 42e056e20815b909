/**
 * A PostgreSQL connection lost while the app holds it (a restart, a failover, an idle-in-transaction
 * kill): on the suite's private PostgreSQL, the server ends the backend of a connection that is
 * checked out between two statements of a transaction. The process must not crash (pg emits
 * 'error' on a checked-out client that nobody listens to), the failed statement must be
 * recognised as "database unavailable" (a 503, not a 500), and the pool must recover on its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { isDatabaseUnavailable, openDatabase, type Database } from '../../src/db/database.ts';
import { waitFor } from '../support/booking.ts';
import { chaosSkip, startPrivatePostgres, type PrivatePostgres } from './support.ts';

const skip = await chaosSkip();

describe('a PostgreSQL connection lost while checked out', { skip }, () => {
  let server: PrivatePostgres;
  let database: Database;
  let admin: pg.Client;

  before(async () => {
    server = await startPrivatePostgres();
    database = openDatabase(await server.createDatabase('consulta_lost'), { poolSize: 2 });
    admin = new pg.Client({ connectionString: server.url });
    // The test's own control connection dies when the server stops (second test): expected.
    admin.on('error', () => {});
    await admin.connect();
  });
  after(async () => {
    await admin?.end().catch(() => {});
    await database?.close().catch(() => {});
    await server?.stop();
  });

  it('fails the transaction with a database-unavailable error, does not crash, and the pool recovers', async () => {
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const failure = await database.db
        .transaction()
        .execute(async (trx) => {
          const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
          // Between two statements nothing listens on the connection: that is when pg emits 'error'.
          await admin.query('select pg_terminate_backend($1)', [rows[0]!.pid]);
          await new Promise((r) => setTimeout(r, 300));
          await sql`select 1`.execute(trx);
        })
        .then(
          () => null,
          (err: unknown) => err,
        );
      assert.ok(failure, 'the transaction failed');
      assert.ok(isDatabaseUnavailable(failure), `recognised as an outage: ${String(failure)} (${(failure as { code?: string }).code})`);
      assert.deepEqual(uncaught, [], 'no uncaught error');
      // The broken connection is discarded; the next queries get a fresh one.
      await waitFor('the pool to serve queries again', async () => (await sql<{ one: number }>`select 1 as one`.execute(database.db)).rows[0]!.one === 1, 10_000);
      await database.ping();
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('recognises a stopped server (refused connections, shutdown) as unavailable, and recovers when it is back', async () => {
    await server.stopServer();
    try {
      const err = await database.ping().then(
        () => null,
        (e: unknown) => e,
      );
      assert.ok(err && isDatabaseUnavailable(err), `ping while stopped: ${String(err)} (${(err as { code?: string } | null)?.code})`);
    } finally {
      await server.startServer();
    }
    await waitFor('ping to succeed after the restart', async () => (await database.ping(), true), 30_000);
  });

  it('does not call a bug an outage', () => {
    assert.equal(isDatabaseUnavailable(new Error('syntax error at or near "selec"')), false);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' })), false);
    assert.equal(isDatabaseUnavailable(new TypeError('x is undefined')), false);
    assert.equal(isDatabaseUnavailable(null), false);
    assert.equal(isDatabaseUnavailable(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })), true);
    assert.equal(isDatabaseUnavailable(Object.assign(new AggregateError([Object.assign(new Error('refused'), { code: 'ECONNREFUSED' })]), {})), true);
  });
});
