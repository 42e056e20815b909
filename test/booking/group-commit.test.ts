/**
 * SQLite group commit (src/db/group-commit.ts): a hold's 201 never leaves before an fsync of the
 * WAL that started after its commit has completed; concurrent holds share fsyncs; a failed fsync
 * stops the process and no 201 is sent. And, on every database, the Idempotency-Key record is
 * written in the hold's own transaction (storeIdempotentOutcome's rules).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { storeIdempotentOutcome } from '../../src/db/repositories/idempotency.repository.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { countRows, createKey, initiate, slotBody, waitFor, type CreatedTestKey } from '../support/booking.ts';
import { databaseTargets, migratedSqliteUrl, sqliteTargetWith, type DatabaseTarget } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const EVERY_DAY = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '19:00:00', slot_minutes: 30 as const }));

/** A deferred the test resolves or rejects by hand. */
function deferred() {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

/** A few turns of the event loop: long enough for any answer that was not waiting on the disk. */
async function turns(n = 5): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
}

/** The fsync seam: passes through to the real fsync until `gate()` holds the next calls. */
class FsyncSeam {
  calls = 0;
  held: Array<ReturnType<typeof deferred>> = [];
  private gated = false;
  private failing = false;
  failures: Error[] = [];
  gate(on = true): void {
    this.gated = on;
  }
  failNext(): void {
    this.failing = true;
  }
  readonly fsync = async (fd: number): Promise<void> => {
    this.calls++;
    if (this.failing) throw Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' });
    if (this.gated) {
      const d = deferred();
      this.held.push(d);
      await d.promise;
    }
    await new Promise<void>((resolve, reject) => fs.fsync(fd, (err) => (err ? reject(err) : resolve())));
  };
  release(): void {
    for (const d of this.held.splice(0)) d.resolve();
  }
}

const seamTarget = (seam: FsyncSeam): DatabaseTarget => sqliteTargetWith({ groupSync: { fsync: seam.fsync, onFailure: (err) => seam.failures.push(err) } });

describe('SQLite group commit: no 201 before its fsync', () => {
  const seam = new FsyncSeam();
  let ctx: TestContext;
  let lawyer: string;
  let key: CreatedTestKey;
  let hour = 9;
  const nextSlot = () => {
    const h = hour++;
    return slotBody(lawyer, `2026-11-${24 + Math.floor((h - 9) / 10)}`, `${9 + ((h - 9) % 10)}:30`, 30);
  };

  before(async () => {
    ctx = await createTestContext(seamTarget(seam), { config: { rateLimitMultiplier: 100_000 } });
    [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY })])) as [string];
    key = await createKey(ctx);
  });
  after(() => ctx.close());

  it('holds the answer of a committed hold until the fsync that covers it completes', async () => {
    seam.gate();
    const callsBefore = seam.calls;
    let answered = false;
    const pending = initiate(ctx, nextSlot(), { token: key.token, idempotencyKey: 'gated-1' }).then((r) => ((answered = true), r));
    await waitFor('the fsync of the hold', async () => seam.held.length === 1, 5000, 5);
    // Committed (another request can see it) but not answered: the disk has not said yes yet.
    assert.equal(await countRows(ctx.database, 'booking_intents'), 1);
    await turns();
    assert.equal(answered, false, 'a 201 was sent before its fsync completed');
    seam.gate(false);
    seam.release();
    const res = await pending;
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(seam.calls - callsBefore, 1, 'one commit, one fsync: the Idempotency-Key record is in the hold\'s transaction');
  });

  it('a replay of a stored outcome also waits for the disk', async () => {
    const body = nextSlot();
    const first = await initiate(ctx, body, { token: key.token, idempotencyKey: 'replayed' });
    assert.equal(first.statusCode, 201);
    // A write by someone else is pending on the disk: the replay is answered after it.
    seam.gate();
    const other = initiate(ctx, nextSlot(), { token: key.token });
    await waitFor('the other hold\'s fsync', async () => seam.held.length === 1, 5000, 5);
    let answered = false;
    const replay = initiate(ctx, body, { token: key.token, idempotencyKey: 'replayed' }).then((r) => ((answered = true), r));
    await turns();
    assert.equal(answered, false);
    seam.gate(false);
    seam.release();
    await waitFor('the next fsync', async () => (seam.held.length > 0 ? (seam.release(), false) : answered), 5000, 5);
    const r = await replay;
    assert.equal(r.headers['idempotent-replayed'], 'true');
    assert.equal(r.body, first.body);
    assert.equal((await other).statusCode, 201);
  });

  it('concurrent holds share fsyncs (group commit): 20 holds, at most 3 fsyncs', async () => {
    seam.gate();
    const callsBefore = seam.calls;
    const intentsBefore = await countRows(ctx.database, 'booking_intents');
    const all = Promise.all(Array.from({ length: 20 }, () => initiate(ctx, nextSlot(), { token: key.token })));
    // All 20 commit while the first fsync is held.
    await waitFor('20 committed holds', async () => (await countRows(ctx.database, 'booking_intents')) === intentsBefore + 20, 10_000, 5);
    seam.gate(false);
    seam.release();
    await waitFor('the answers', async () => {
      seam.release();
      return seam.calls - callsBefore >= 1;
    }, 5000, 5);
    const answers = await all;
    assert.deepEqual([...new Set(answers.map((a) => a.statusCode))], [201]);
    assert.ok(seam.calls - callsBefore <= 3, `${seam.calls - callsBefore} fsyncs for 20 holds`);
  });

  it('a failed fsync never lets the 201 out (the process is stopped: onFailure)', async () => {
    seam.failNext();
    let answered = false;
    void initiate(ctx, nextSlot(), { token: key.token, idempotencyKey: 'doomed' }).then(() => (answered = true));
    await waitFor('the failure to be reported', async () => seam.failures.length === 1, 5000, 5);
    assert.equal((seam.failures[0] as NodeJS.ErrnoException).code, 'EIO');
    await turns(20);
    assert.equal(answered, false, 'an answer left after a failed fsync');
  });
});

describe('SQLite group commit: a failed fsync kills the process by default', () => {
  it('SIGKILLs itself before the write\'s promise resolves', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-fsync-fail-'));
    try {
      const url = await migratedSqliteUrl(path.join(dir, 'test.db'));
      const dbModule = new URL('../../src/db/database.ts', import.meta.url).href;
      const script = `
        const { openDatabase } = await import(${JSON.stringify(dbModule)});
        const { sql } = await import('kysely');
        const database = openDatabase(${JSON.stringify(url)}, { groupSync: { fsync: async () => { throw Object.assign(new Error('EIO'), { code: 'EIO' }); } } });
        await sql\`create table if not exists t (x integer)\`.execute(database.db).then(() => process.stdout.write('answered\\n'));
      `;
      const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(child.signal, 'SIGKILL', `exit ${child.status} ${child.signal}: ${child.stderr}`);
      assert.doesNotMatch(child.stdout, /answered/);
      assert.match(child.stderr, /fsync of the SQLite WAL failed/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const target of databaseTargets()) {
  describe(`Idempotency-Key stored in the hold's transaction (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target);
    });
    after(() => ctx.close());

    const row = (key: string, over: Record<string, unknown> = {}) => ({
      scope: 'key:k',
      key,
      fingerprint: 'f1',
      state: 'completed',
      locked_until: null,
      response_status: 201,
      response_body: '{"a":1}',
      response_headers: '{}',
      created_at: '2026-11-23T08:00:00.000Z',
      ...over,
    });
    const NOW = '2026-11-23T08:00:00.000Z';
    const STALE_BEFORE = '2026-11-22T08:00:00.000Z';

    it('inserts a new key, refuses a key another request stored, replaces a record past the window or a lapsed claim, and leaves a live claim alone', async () => {
      const db = ctx.database.db;
      assert.equal(await storeIdempotentOutcome(db, row('fresh'), STALE_BEFORE, NOW), true);
      assert.equal(await storeIdempotentOutcome(db, row('fresh', { response_body: '{"b":2}' }), STALE_BEFORE, NOW), false, 'a stored outcome is never overwritten');
      await db.insertInto('idempotency_keys').values([
        row('old', { created_at: '2026-11-21T08:00:00.000Z' }),
        row('lapsed', { state: 'in_progress', locked_until: '2026-11-23T07:59:59.000Z', response_status: null, response_body: null, response_headers: null }),
        row('live', { state: 'in_progress', locked_until: '2026-11-23T08:00:30.000Z', response_status: null, response_body: null, response_headers: null }),
      ]).execute();
      assert.equal(await storeIdempotentOutcome(db, row('old', { response_body: '{"new":1}' }), STALE_BEFORE, NOW), true);
      assert.equal(await storeIdempotentOutcome(db, row('lapsed', { response_body: '{"took":1}' }), STALE_BEFORE, NOW), true);
      assert.equal(await storeIdempotentOutcome(db, row('live'), STALE_BEFORE, NOW), false);
      const stored = await db.selectFrom('idempotency_keys').select(['key', 'state', 'response_body', 'created_at']).orderBy('key').execute();
      assert.deepEqual(stored, [
        { key: 'fresh', state: 'completed', response_body: '{"a":1}', created_at: NOW },
        { key: 'lapsed', state: 'completed', response_body: '{"took":1}', created_at: NOW },
        { key: 'live', state: 'in_progress', response_body: null, created_at: NOW },
        { key: 'old', state: 'completed', response_body: '{"new":1}', created_at: NOW },
      ]);
    });

    it('a transaction whose key was taken rolls back with its hold: one key, one hold', async () => {
      const [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY })])) as [string];
      const key = await createKey(ctx);
      const body = slotBody(lawyer, '2026-11-24', '15', 30);
      // The same key and body, sent twice at once, and again: one intent, one hold, the same 201.
      const [a, b] = await Promise.all([initiate(ctx, body, { token: key.token, idempotencyKey: 'twice' }), initiate(ctx, body, { token: key.token, idempotencyKey: 'twice' })]);
      const answers = [a, b].filter((r) => r.statusCode === 201);
      assert.ok(answers.length >= 1, `${a.statusCode} ${b.statusCode}`);
      for (const r of [a, b]) assert.ok(r.statusCode === 201 || r.statusCode === 409, `${r.statusCode} ${r.body}`);
      assert.equal(new Set(answers.map((r) => r.body)).size, 1);
      assert.equal(answers.filter((r) => r.headers['idempotent-replayed'] === undefined).length, 1);
      const intents = await ctx.database.db.selectFrom('booking_intents').select('id').where('key_id', '=', key.id).execute();
      assert.equal(intents.length, 1);
      const holds = await ctx.database.db.selectFrom('slot_holds').select('booking_intent_id').where('lawyer_id', '=', lawyer).execute();
      assert.deepEqual(holds.map((h) => h.booking_intent_id), [intents[0]!.id]);
    });
  });
}
