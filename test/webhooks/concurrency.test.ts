/**
 * Bounded concurrency and several dispatchers:
 * - a slow endpoint beside 50 fast ones (real time, every database): the fast endpoints are all
 *   served while the slow one still holds its few slots (bench/webhooks.ts measures the 10 s case);
 * - two dispatchers with separate connection pools on one PostgreSQL never send the same attempt
 *   twice, across first attempts and retries.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock, systemClock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { emitEvent, OPERATOR, startReceiver, uniqueEmail, verifies, webhookKit, type Receiver, type WebhookKit } from './support.ts';

const SLOW_MS = 4000;

for (const target of databaseTargets()) {
  describe(`webhook concurrency (${target.name})`, () => {
    let db: TestDatabase;
    let receiver: Receiver;
    let kit: WebhookKit;

    beforeEach(async () => {
      db = await target.create();
      receiver = await startReceiver();
    });
    afterEach(async () => {
      await kit.close();
      await receiver.close();
      await db.drop();
    });

    it(`a ${SLOW_MS / 1000} s endpoint does not hold up 50 fast ones`, async () => {
      // A small global pool on purpose: the slow endpoint may take only its per-endpoint share.
      kit = webhookKit(db.database, { clock: systemClock, config: { webhookConcurrency: 16, webhookEndpointConcurrency: 2, webhookTimeoutMs: 10_000, webhookDispatchIntervalMs: 50 } });
      receiver.answer((req) => (req.path === '/slow' ? { status: 200, delayMs: SLOW_MS } : { status: 200 }));
      const email = uniqueEmail('fanout');
      const user = await kit.accounts.ensureUser(email);
      await kit.service.create(OPERATOR, { ownerEmail: email }, { url: `${receiver.url}/slow` });
      for (let i = 0; i < 50; i++) await kit.service.create(OPERATOR, { ownerEmail: email }, { url: `${receiver.url}/fast/${i}` });
      const events = 2;
      const createdAt = new Date(Date.now() - 1000).toISOString();
      for (let i = 0; i < events; i++) await emitEvent(db.database, { type: 'user', id: user.id }, { createdAt });
      // The endpoints were created after `createdAt`: let them count as registered before it.
      await db.database.db.updateTable('webhook_endpoints').set({ created_at: new Date(Date.now() - 60_000).toISOString() }).execute();

      const started = Date.now();
      kit.dispatcher.start();
      const fastTotal = 50 * events;
      const fast = () => receiver.requests.filter((r) => r.path.startsWith('/fast/')).length;
      while (fast() < fastTotal) {
        if (Date.now() - started > SLOW_MS) break;
        await new Promise((r) => setTimeout(r, 20));
      }
      const fastDoneMs = Date.now() - started;
      const slowAnswered = await db.database.db
        .selectFrom('webhook_attempts')
        .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_attempts.endpoint_id')
        .select('webhook_attempts.id')
        .where('webhook_endpoints.url', 'like', '%/slow')
        .execute();
      assert.equal(fast(), fastTotal, `all ${fastTotal} fast deliveries arrived (after ${fastDoneMs} ms)`);
      assert.ok(fastDoneMs < SLOW_MS - 500, `fast endpoints served in ${fastDoneMs} ms, while the slow one answers after ${SLOW_MS} ms`);
      assert.equal(slowAnswered.length, 0, 'the slow endpoint is still pending');
      assert.ok(receiver.requests.filter((r) => r.path === '/slow').length <= 2, 'the slow endpoint holds at most its per-endpoint share');
      await kit.dispatcher.stop();
      const slow = await db.database.db
        .selectFrom('webhook_messages')
        .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_messages.endpoint_id')
        .select(['webhook_messages.status'])
        .where('webhook_endpoints.url', 'like', '%/slow')
        .execute();
      assert.equal(slow.length, events);
    });
  });
}

const postgres = databaseTargets().find((t) => t.name === 'postgres');

describe('two dispatchers on one PostgreSQL', { skip: postgres ? false : 'needs PostgreSQL (TEST_DATABASE_URL)' }, () => {
  let db: TestDatabase;
  let second: Database;
  let receiver: Receiver;
  let kit: WebhookKit;

  beforeEach(async () => {
    db = await postgres!.create();
    second = openDatabase(db.url, { poolSize: 10 });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await kit.close();
    await second.close();
    await receiver.close();
    await db.drop();
  });

  it('never send the same attempt twice, first attempts and retries alike', async () => {
    const clock = new ManualClock(Date.now());
    kit = webhookKit(db.database, { clock, config: { webhookConcurrency: 32, webhookEndpointConcurrency: 8 } });
    const other = kit.dispatcherOver(second);
    const endpoints = 10;
    const events = 40;
    const email = uniqueEmail('twins');
    const user = await kit.accounts.ensureUser(email);
    const secrets: string[] = [];
    for (let i = 0; i < endpoints; i++) secrets.push((await kit.service.create(OPERATOR, { ownerEmail: email }, { url: `${receiver.url}/e/${i}` })).secret);
    for (let i = 0; i < events; i++) await emitEvent(db.database, { type: 'user', id: user.id }, { createdAt: clock.now().toISOString() });

    // Every third message fails its first attempt, so the retries are raced for too.
    const seen = new Map<string, number>();
    receiver.answer((req) => {
      const key = `${req.headers['webhook-id']}#${req.headers['webhook-attempt']}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      const fails = req.headers['webhook-attempt'] === '1' && Number.parseInt(req.headers['webhook-id']!.slice(-2), 16) % 3 === 0;
      return { status: fails ? 500 : 200 };
    });
    try {
      // Both fan out at once (SKIP LOCKED splits the outbox), then both race for the same due messages.
      await Promise.all([kit.dispatcher.fanOut(10), other.fanOut(10)]);
      await Promise.all([kit.dispatcher.runUntilIdle(), other.runUntilIdle()]);
      clock.advance(60_000);
      await Promise.all([kit.dispatcher.runUntilIdle(), other.runUntilIdle()]);
    } finally {
      await other.stop();
    }

    const total = endpoints * events;
    const messages = await db.database.db.selectFrom('webhook_messages').select(['id', 'status', 'attempts']).execute();
    assert.equal(messages.length, total, 'fan-out made exactly one message per (event, endpoint)');
    assert.ok(messages.every((m) => m.status === 'delivered'), 'everything delivered');
    const duplicates = [...seen].filter(([, n]) => n > 1);
    assert.deepEqual(duplicates, [], 'no (webhook-id, attempt) was sent twice');
    const retried = messages.filter((m) => m.attempts === 2).length;
    assert.ok(retried > 0, 'some messages needed a retry');
    assert.equal(receiver.requests.length, total + retried);
    assert.equal(seen.size, total + retried);
    assert.ok(kit.dispatcher.stats.attempts > 0 && other.stats.attempts > 0, `both dispatchers worked (${kit.dispatcher.stats.attempts} and ${other.stats.attempts} attempts)`);
    assert.equal(kit.dispatcher.stats.attempts + other.stats.attempts, total + retried);
    const attemptsRows = await db.database.db.selectFrom('webhook_attempts').select('id').execute();
    assert.equal(attemptsRows.length, total + retried, 'every attempt recorded once');
    assert.equal(kit.logger.entries.filter((e) => e.level === 'error').length, 0, 'no outcome failed to be recorded');
    assert.ok(receiver.requests.every((r) => verifies(secrets[Number(r.path.split('/').pop())]!, r, clock.now().getTime())));
  });
});
