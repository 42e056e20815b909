/**
 * At-least-once across a crash: a real `consulta serve` process is killed with SIGKILL while a
 * delivery is in flight (the receiver holds the request open); after a restart, once the short
 * lease lapses, the receiver gets the same message again, with the same webhook-id.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { waitFor } from '../support/booking.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';
import { emitEvent, messagesOf, startReceiver, uniqueEmail, verifies, webhookKit, type Receiver, type WebhookKit } from './support.ts';

const LEASE_SECONDS = 3;

for (const target of databaseTargets()) {
  describe(`webhook redelivery after kill -9 (${target.name})`, () => {
    let db: TestDatabase;
    let receiver: Receiver;
    let kit: WebhookKit;
    const servers: ServerProcess[] = [];

    beforeEach(async () => {
      db = await target.create();
      receiver = await startReceiver();
      kit = webhookKit(db.database, { clock: systemClock });
    });
    afterEach(async () => {
      for (const s of servers.splice(0)) await s.stop('SIGKILL');
      await kit.close();
      await receiver.close();
      await db.drop();
    });

    it('a delivery in flight when the process dies is sent again with the same webhook-id', async () => {
      const env = {
        DATABASE_URL: db.url,
        WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_LEASE_SECONDS: String(LEASE_SECONDS),
        WEBHOOK_DISPATCH_INTERVAL_MS: '100',
        DEMO_LAWYERS: '0',
      };
      const email = uniqueEmail('crash');
      const user = await kit.accounts.ensureUser(email);
      const { endpoint, secret } = await kit.service.create({ type: 'user', userId: user.id }, null, { url: `${receiver.url}/hook` });

      const first = await startServerProcess(env);
      servers.push(first);
      // The first request is held open and its sender killed on the spot: it can record nothing.
      receiver.answer((req) => {
        if (receiver.requests.length === 1) {
          first.child.kill('SIGKILL');
          return { hang: true };
        }
        return req.path === '/hook' ? { status: 200 } : { status: 404 };
      });
      await emitEvent(db.database, { type: 'user', id: user.id }, { createdAt: new Date().toISOString() });
      await receiver.waitFor(1, 15_000);
      const killedAt = Date.now();
      assert.equal(await first.stop('SIGKILL'), null, 'killed, not exited');

      const [claimed] = await messagesOf(db.database, endpoint.id);
      assert.equal(claimed!.status, 'pending');
      assert.equal(claimed!.attempts, 0, 'the attempt in flight was never recorded');
      assert.ok(claimed!.locked_until && claimed!.claim_token, 'the dead process still holds the lease');

      const second = await startServerProcess(env);
      servers.push(second);
      const restartedAt = Date.now();
      await receiver.waitFor(2, 20_000);
      const [firstReq, secondReq] = receiver.requests;
      assert.equal(secondReq!.headers['webhook-id'], firstReq!.headers['webhook-id'], 'same webhook-id on redelivery');
      assert.equal(secondReq!.body, firstReq!.body, 'same payload bytes');
      assert.equal(secondReq!.headers['webhook-attempt'], '1', 'the lost attempt is made again');
      assert.ok(secondReq!.at >= Date.parse(claimed!.locked_until!) - 50, 'not before the lease lapsed');
      // Promptly once both the lease has lapsed and the new process is up (a loaded machine takes
      // many seconds to start one: that is not what this measures).
      assert.ok(secondReq!.at - Math.max(restartedAt, Date.parse(claimed!.locked_until!)) < 15_000, `${secondReq!.at - killedAt} ms after the kill`);
      assert.ok(verifies(secret, secondReq!));
      const delivered = await waitFor('the message to be recorded as delivered', async () => {
        const [m] = await messagesOf(db.database, endpoint.id);
        return m!.status === 'delivered' ? m : null;
      }, 10_000);
      assert.deepEqual([delivered.attempts, delivered.locked_until], [1, null]);
      await second.stop();
    });
  });
}
