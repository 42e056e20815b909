/**
 * Webhook delivery on every database, to real receivers on loopback (node:http/https), with a
 * manual clock so that the retry schedule runs without sleeping: payload and headers verified
 * with the standardwebhooks library, fan-out rules, the full schedule and dead-lettering,
 * auto-disable after consecutive failures with the owner notified over real SMTP, 410, timeout,
 * redirects, rotation, connect-time SSRF checks, leases, and the booking flow end to end.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { claimMessages } from '../../src/db/repositories/webhook.repository.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { ENDPOINT_DISABLED, USER_AGENT } from '../../src/domain/webhooks/dispatcher.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createKey, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import {
  emitEvent,
  endpointRow,
  messagesOf,
  OPERATOR,
  startReceiver,
  uniqueEmail,
  verifies,
  verifyAt,
  webhookKit,
  type Receiver,
  type WebhookKit,
} from './support.ts';

const T0 = '2026-11-23T08:00:00.000Z';
const SCHEDULE = [60, 300, 1800, 7200, 43_200];
const FIXTURES = new URL('./fixtures/', import.meta.url);

function attemptsOf(db: TestDatabase, endpointId: string) {
  return db.database.db.selectFrom('webhook_attempts').selectAll().where('endpoint_id', '=', endpointId).orderBy('attempted_at').orderBy('attempt').execute();
}

for (const target of databaseTargets()) {
  describe(`webhook delivery (${target.name})`, () => {
    let db: TestDatabase;
    let receiver: Receiver;
    let kit: WebhookKit;
    let clock: ManualClock;
    const extra: Array<{ close(): Promise<void> }> = [];

    beforeEach(async () => {
      db = await target.create();
      receiver = await startReceiver();
      clock = new ManualClock(T0);
      kit = webhookKit(db.database, { clock });
    });
    afterEach(async () => {
      await kit.close();
      for (const x of extra.splice(0)) await x.close();
      await receiver.close();
      await db.drop();
    });

    /** A user with a personal endpoint at the receiver. */
    async function userEndpoint(path = '/hook', eventTypes: string[] | null = null, k: WebhookKit = kit) {
      const email = uniqueEmail('owner');
      const user = await k.accounts.ensureUser(email);
      const actor: Actor = { type: 'user', userId: user.id };
      const { endpoint, secret } = await k.service.create(actor, null, { url: `${receiver.url}${path}`, eventTypes });
      return { email, user, actor, endpoint, secret, owner: { type: 'user' as const, id: user.id } };
    }

    it('delivers a signed Standard Webhooks message: exact payload, headers, and verify() accepts it', async () => {
      const a = await userEndpoint();
      const { eventId, intentId } = await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 1);
      const [req] = receiver.requests;
      assert.equal(req!.path, '/hook');
      assert.match(req!.headers['webhook-id']!, /^msg_[0-9a-f]{32}$/);
      assert.equal(req!.headers['webhook-timestamp'], String(Date.parse(T0) / 1000));
      assert.match(req!.headers['webhook-signature']!, /^v1,[A-Za-z0-9+/]{43}=$/);
      assert.equal(req!.headers['content-type'], 'application/json');
      assert.equal(req!.headers['user-agent'], USER_AGENT);
      assert.match(req!.headers['user-agent']!, /Consulta/);
      assert.equal(req!.headers['webhook-attempt'], '1');
      const payload = verifyAt(a.secret, req!, Date.parse(T0)) as Record<string, unknown>;
      assert.deepEqual(Object.keys(payload), ['id', 'type', 'created_at', 'data']);
      assert.deepEqual(payload, {
        id: eventId,
        type: 'booking_intent.confirmed',
        created_at: T0,
        data: { booking_intent_id: intentId, status: 'confirmed', lawyer_id: 'b0f5c6de-0000-4000-8000-000000000001', slot: { date: '2026-12-01', start_time: '10:00:00', end_time: '11:00:00' }, confirmed_at: T0 },
      });
      assert.equal(req!.body, JSON.stringify(payload), 'the signed body is exactly the bytes sent');
      assert.equal(verifies(a.secret, req!, Date.parse(T0) + 6 * 60_000), false, 'receivers reject timestamps more than 5 minutes off');
      const [message] = await messagesOf(db.database, a.endpoint.id);
      assert.deepEqual([message!.id, message!.status, message!.attempts, message!.locked_until], [req!.headers['webhook-id'], 'delivered', 1, null]);
      const [attempt] = await attemptsOf(db, a.endpoint.id);
      assert.deepEqual([attempt!.attempt, attempt!.status_code, attempt!.success, attempt!.error, attempt!.response_body], [1, 200, 1, null, 'ok']);
      assert.equal(attempt!.attempted_at, T0);
      assert.ok(attempt!.duration_ms >= 0);
      const outbox = await db.database.db.selectFrom('outbox_events').select('published_at').where('id', '=', eventId).executeTakeFirstOrThrow();
      assert.equal(outbox.published_at, T0);
      const listed = await kit.service.deliveries(a.actor, a.endpoint.id);
      assert.deepEqual([listed.length, listed[0]!.messageId, listed[0]!.success, listed[0]!.messageStatus], [1, message!.id, true, 'delivered']);
    });

    it('fans out per (event, endpoint): owner, event filter and registration time decide; each endpoint gets its own webhook-id', async () => {
      const a = await userEndpoint('/all');
      const email = a.email;
      const second = await kit.service.create(OPERATOR, { ownerEmail: email }, { url: `${receiver.url}/expired-only`, eventTypes: ['booking_intent.expired'] });
      const other = await userEndpoint('/other-owner');
      const { eventId } = await emitEvent(db.database, a.owner, { createdAt: T0, type: 'booking_intent.expired' });
      await emitEvent(db.database, a.owner, { createdAt: T0, type: 'booking_intent.confirmed' });
      clock.advance(1000);
      const late = await kit.service.create(OPERATOR, { ownerEmail: email }, { url: `${receiver.url}/late` });
      await kit.dispatcher.runUntilIdle();
      const byPath = (p: string) => receiver.requests.filter((r) => r.path === p);
      assert.equal(byPath('/all').length, 2);
      assert.equal(byPath('/expired-only').length, 1);
      assert.equal(byPath('/other-owner').length, 0, "another owner's endpoint hears nothing");
      assert.equal(byPath('/late').length, 0, 'an endpoint registered after the event does not get it');
      const expiredToAll = byPath('/all').find((r) => JSON.parse(r.body).id === eventId)!;
      const expiredToSecond = byPath('/expired-only')[0]!;
      assert.equal(expiredToAll.body, expiredToSecond.body, 'same event, same payload');
      assert.notEqual(expiredToAll.headers['webhook-id'], expiredToSecond.headers['webhook-id'], 'one webhook-id per (event, endpoint)');
      assert.ok(verifies(second.secret, expiredToSecond, clock.now().getTime()));
      assert.equal(verifies(a.secret, expiredToSecond, clock.now().getTime()), false, 'each endpoint has its own secret');
      assert.equal((await messagesOf(db.database, other.endpoint.id)).length, 0);
      assert.equal((await messagesOf(db.database, late.endpoint.id)).length, 0);
      // Fan-out is idempotent: running again queues nothing new.
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 3);
    });

    it('retries at +1 min, +5 min, +30 min, +2 h, +12 h with the same webhook-id, then the message is dead', async () => {
      receiver.answer(() => ({ status: 500, body: 'boom' }));
      const a = await userEndpoint();
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 1);
      const expectedTimes = [Date.parse(T0)];
      for (const [i, delay] of SCHEDULE.entries()) {
        clock.advance(delay * 1000 - 1000);
        await kit.dispatcher.runUntilIdle();
        assert.equal(receiver.requests.length, i + 1, `attempt ${i + 2} is not sent a second early`);
        clock.advance(1000);
        await kit.dispatcher.runUntilIdle();
        assert.equal(receiver.requests.length, i + 2, `attempt ${i + 2} is sent after ${delay} s`);
        expectedTimes.push(clock.now().getTime());
      }
      clock.advance(7 * 86_400_000);
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 6, 'six attempts in all, then dead');
      const ids = new Set(receiver.requests.map((r) => r.headers['webhook-id']));
      assert.equal(ids.size, 1, 'the webhook-id never changes');
      receiver.requests.forEach((r, i) => {
        assert.equal(r.headers['webhook-attempt'], String(i + 1));
        assert.equal(r.headers['webhook-timestamp'], String(expectedTimes[i]! / 1000), 'the timestamp of this attempt');
        assert.ok(verifies(a.secret, r, expectedTimes[i]!), `attempt ${i + 1} verifies at its own time`);
        assert.equal(r.body, receiver.requests[0]!.body, 'the same bytes every time');
      });
      const [message] = await messagesOf(db.database, a.endpoint.id);
      assert.deepEqual([message!.status, message!.attempts, message!.next_attempt_at], ['dead', 6, null]);
      const attempts = await attemptsOf(db, a.endpoint.id);
      assert.deepEqual(attempts.map((x) => x.status_code), [500, 500, 500, 500, 500, 500]);
      assert.deepEqual(attempts.map((x) => x.attempted_at), expectedTimes.map((t) => new Date(t).toISOString()));
      assert.ok(attempts.every((x) => x.error === 'HTTP 500' && x.response_body === 'boom' && x.success === 0));
      const listed = await kit.service.deliveries(a.actor, a.endpoint.id, 3);
      assert.deepEqual(listed.map((x) => x.attempt), [6, 5, 4], 'newest first, limited');
      assert.ok(listed.every((x) => x.messageStatus === 'dead'));
      assert.equal((await endpointRow(db.database, a.endpoint.id)).consecutive_failures, 6);
    });

    it('a success ends the run of failures; a message that succeeds on a retry is delivered', async () => {
      let n = 0;
      receiver.answer(() => (++n <= 2 ? { status: 502 } : { status: 204 }));
      const a = await userEndpoint();
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.runUntilIdle();
      clock.advance(60_000);
      await kit.dispatcher.runUntilIdle();
      assert.equal((await endpointRow(db.database, a.endpoint.id)).consecutive_failures, 2);
      clock.advance(300_000);
      await kit.dispatcher.runUntilIdle();
      const [message] = await messagesOf(db.database, a.endpoint.id);
      assert.deepEqual([message!.status, message!.attempts, message!.delivered_at], ['delivered', 3, clock.now().toISOString()]);
      assert.equal((await endpointRow(db.database, a.endpoint.id)).consecutive_failures, 0, 'any 2xx (here 204) is a success');
    });

    it('20 consecutive failed attempts disable the endpoint and notify the firm owners and admins (SMTP); messages wait, then resume on re-enable', async () => {
      const smtp: SmtpListener = await startSmtp();
      extra.push(smtp);
      const mailKit = webhookKit(db.database, { clock, smtpUrl: smtp.url });
      extra.push(mailKit);
      const slug = `hooks-${process.pid}-${Date.now() % 100_000}`;
      const ownerEmail = uniqueEmail('firm-owner');
      const adminEmail = uniqueEmail('firm-admin');
      const memberEmail = uniqueEmail('firm-member');
      const { firm } = await mailKit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Norte', ownerEmail });
      await mailKit.accounts.addMember(OPERATOR, slug, adminEmail, 'admin');
      await mailKit.accounts.addMember(OPERATOR, slug, memberEmail, 'member', ['webhooks:manage']);
      const { endpoint, secret } = await mailKit.service.create(OPERATOR, { firmSlug: slug }, { url: `${receiver.url}/firm` });
      receiver.answer(() => ({ status: 503, body: 'down' }));
      const owner = { type: 'firm' as const, id: firm.id };
      for (let i = 0; i < 19; i++) await emitEvent(db.database, owner, { createdAt: T0 });
      await mailKit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 19);
      assert.equal((await endpointRow(db.database, endpoint.id)).disabled_at, null, '19 failures: still enabled');
      await emitEvent(db.database, owner, { createdAt: T0 });
      await mailKit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 20);
      const row = await endpointRow(db.database, endpoint.id);
      assert.deepEqual([row.disabled_cause, row.consecutive_failures, row.disabled_at], ['failures', 20, T0]);
      assert.match(row.disabled_reason!, /^20 consecutive failed delivery attempts/);

      const mails = await smtp.waitFor(2);
      assert.deepEqual(mails.map((m) => m.to[0]).sort(), [adminEmail, ownerEmail].sort(), 'owners and admins, not members');
      assert.ok(mails.every((m) => m.subject === `Webhook endpoint disabled: ${receiver.url}/firm`));
      assert.match(mails[0]!.text, new RegExp(`consulta webhooks enable ${endpoint.id}`));
      assert.match(mails[0]!.text, /20 undelivered messages wait/);
      const stored = await db.database.db.selectFrom('notifications').selectAll().where('kind', '=', ENDPOINT_DISABLED).execute();
      assert.equal(stored.length, 2);
      assert.ok(stored.every((s) => s.firm_id === firm.id && s.emailed_at !== null && JSON.parse(s.data).endpoint_id === endpoint.id));

      // Disabled: retries fall due and new events arrive, but nothing is sent; messages wait.
      await emitEvent(db.database, owner, { createdAt: T0 });
      clock.advance(3 * 3_600_000);
      await mailKit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 20, 'nothing goes to a disabled endpoint');
      const waiting = await messagesOf(db.database, endpoint.id);
      assert.deepEqual([waiting.length, waiting.every((m) => m.status === 'pending')], [21, true]);
      assert.ok(waiting.every((m) => m.next_attempt_at === null), 'parked: out of the due scans until re-enabled');
      assert.equal((await mailKit.service.get(OPERATOR, endpoint.id)).pendingMessages, 21);

      receiver.answer(() => ({ status: 200 }));
      const enabled = await mailKit.service.enable({ type: 'user', userId: (await mailKit.accounts.findUserByEmail(memberEmail))!.id }, endpoint.id);
      assert.deepEqual([enabled.enabled, enabled.consecutiveFailures], [true, 0]);
      await mailKit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 41, 'all 21 waiting messages delivered at once on re-enable');
      const after = await messagesOf(db.database, endpoint.id);
      assert.ok(after.every((m) => m.status === 'delivered'));
      const resumed = receiver.requests.slice(20);
      assert.equal(new Set(resumed.map((r) => r.headers['webhook-id'])).size, 21);
      assert.ok(resumed.every((r) => verifies(secret, r, clock.now().getTime())));
      assert.equal((await endpointRow(db.database, endpoint.id)).consecutive_failures, 0);
      assert.equal(smtp.messages.length, 2, 'notified once');
    });

    it('an endpoint disabled by hand still gets its messages queued; they wait and resume on enable', async () => {
      const a = await userEndpoint();
      await kit.service.disable(a.actor, a.endpoint.id, 'deploying');
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 0);
      assert.equal((await messagesOf(db.database, a.endpoint.id))[0]!.status, 'pending');
      clock.advance(5000);
      await kit.service.enable(a.actor, a.endpoint.id);
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 1);
      assert.equal(receiver.requests[0]!.headers['webhook-timestamp'], String(clock.now().getTime() / 1000));
    });

    it('410 Gone disables the endpoint at once and notifies its owner', async () => {
      const smtp = await startSmtp();
      extra.push(smtp);
      const mailKit = webhookKit(db.database, { clock, smtpUrl: smtp.url });
      extra.push(mailKit);
      const a = await userEndpoint('/gone', null, mailKit);
      receiver.answer(() => ({ status: 410, body: 'gone' }));
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await mailKit.dispatcher.runUntilIdle();
      const row = await endpointRow(db.database, a.endpoint.id);
      assert.equal(row.disabled_cause, 'gone');
      assert.equal(row.disabled_reason, 'the endpoint answered 410 Gone');
      const [mail] = await smtp.waitFor(1);
      assert.deepEqual(mail!.to, [a.email]);
      assert.match(mail!.text, /410 Gone/);
      const sentBefore = receiver.requests.length;
      assert.ok(sentBefore >= 1 && sentBefore <= 2, 'at most the attempts already in flight');
      clock.advance(86_400_000);
      await mailKit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, sentBefore, 'no more attempts once disabled');
      assert.ok((await messagesOf(db.database, a.endpoint.id)).every((m) => m.status === 'pending'), 'the messages wait');
    });

    it('times out a receiver that never answers (WEBHOOK_TIMEOUT_MS)', async () => {
      const fast = webhookKit(db.database, { clock, config: { webhookTimeoutMs: 300 } });
      extra.push(fast);
      receiver.answer(() => ({ hang: true }));
      const a = await userEndpoint('/hang', null, fast);
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      const started = Date.now();
      await fast.dispatcher.runUntilIdle();
      const took = Date.now() - started;
      assert.equal(receiver.requests.length, 1);
      const [attempt] = await attemptsOf(db, a.endpoint.id);
      assert.deepEqual([attempt!.status_code, attempt!.success, attempt!.error], [null, 0, 'timed out after 300 ms']);
      assert.ok(attempt!.duration_ms >= 290 && took < 3000, `duration ${attempt!.duration_ms} ms, took ${took} ms`);
      const [message] = await messagesOf(db.database, a.endpoint.id);
      assert.deepEqual([message!.status, message!.next_attempt_at], ['pending', new Date(Date.parse(T0) + 60_000).toISOString()]);
    });

    it('does not follow redirects: a 3xx is a failure and the redirect target gets nothing', async () => {
      const good = await startReceiver();
      extra.push(good);
      let code = 302;
      receiver.answer(() => ({ status: code, headers: { location: `${good.url}/hook` } }));
      const a = await userEndpoint('/moved');
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.runUntilIdle();
      code = 307;
      clock.advance(60_000);
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 2);
      assert.equal(good.requests.length, 0, 'the redirect target never hears of it');
      const attempts = await attemptsOf(db, a.endpoint.id);
      assert.deepEqual(attempts.map((x) => [x.status_code, x.success]), [[302, 0], [307, 0]]);
      assert.match(attempts[0]!.error!, /^redirect not followed \(HTTP 302 to http:\/\/127\.0\.0\.1:\d+\/hook\)/);
    });

    it('keeps the first KiB of a response body, with NULs made safe for the database', async () => {
      receiver.answer(() => ({ status: 500, body: `\u0000${'x'.repeat(5000)}` }));
      const a = await userEndpoint();
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.runUntilIdle();
      const [attempt] = await attemptsOf(db, a.endpoint.id);
      assert.equal(attempt!.response_body!.length, 1024);
      assert.ok(!attempt!.response_body!.includes('\u0000'));
    });

    it('rotation: both secrets sign during the 24-hour overlap, only the new one after', async () => {
      const a = await userEndpoint();
      const rotated = await kit.service.rotateSecret(a.actor, a.endpoint.id);
      clock.advance(3_600_000);
      await emitEvent(db.database, a.owner, { createdAt: clock.now().toISOString() });
      await kit.dispatcher.runUntilIdle();
      const during = receiver.requests[0]!;
      const at = clock.now().getTime();
      assert.equal(during.headers['webhook-signature']!.split(' ').length, 2, 'two space-separated v1 signatures');
      assert.ok(during.headers['webhook-signature']!.split(' ').every((s) => /^v1,[A-Za-z0-9+/]{43}=$/.test(s)));
      assert.ok(verifies(a.secret, during, at), 'the old secret verifies during the overlap');
      assert.ok(verifies(rotated.secret, during, at), 'the new secret verifies during the overlap');
      clock.set(Date.parse(T0) + 24 * 3_600_000 + 1000);
      await emitEvent(db.database, a.owner, { createdAt: clock.now().toISOString() });
      await kit.dispatcher.runUntilIdle();
      const afterwards = receiver.requests[1]!;
      assert.equal(afterwards.headers['webhook-signature']!.split(' ').length, 1);
      assert.ok(verifies(rotated.secret, afterwards, clock.now().getTime()));
      assert.equal(verifies(a.secret, afterwards, clock.now().getTime()), false, 'the old secret no longer verifies');
      assert.equal((await kit.service.get(a.actor, a.endpoint.id)).previousSecretExpiresAt, new Date(Date.parse(T0) + 24 * 3_600_000).toISOString());
    });

    it('the test event goes to that endpoint only, as a signed webhook.test message', async () => {
      const a = await userEndpoint('/one');
      await kit.service.create(a.actor, null, { url: `${receiver.url}/two` });
      const sent = await kit.service.sendTest(a.actor, a.endpoint.id);
      assert.equal(sent.attempt?.success, true);
      assert.equal(sent.attempt?.statusCode, 200);
      await kit.dispatcher.runUntilIdle();
      assert.deepEqual(receiver.requests.map((r) => r.path), ['/one']);
      const payload = verifyAt(a.secret, receiver.requests[0]!, clock.now().getTime()) as { id: string; type: string; data: unknown };
      assert.equal(payload.type, 'webhook.test');
      assert.match(payload.id, /^evt_test_/);
      assert.deepEqual(payload.data, { endpoint_id: a.endpoint.id });
      assert.equal(receiver.requests[0]!.headers['webhook-id'], sent.messageId);
      const [listed] = await kit.service.deliveries(a.actor, a.endpoint.id);
      assert.deepEqual([listed!.eventType, listed!.messageId, listed!.success], ['webhook.test', sent.messageId, true]);
    });

    it('a claim left by a dead dispatcher is honoured until its lease lapses, then redelivered with the same webhook-id', async () => {
      const a = await userEndpoint();
      await emitEvent(db.database, a.owner, { createdAt: T0 });
      await kit.dispatcher.fanOut();
      const [message] = await messagesOf(db.database, a.endpoint.id);
      const leaseMs = kit.config.webhookLeaseSeconds * 1000;
      // Another process claimed it (and sent it, as far as we know), then died before recording.
      const taken = await claimMessages(db.database.db, db.database.dialect, [message!.id], {
        nowIso: T0,
        lockedUntil: new Date(Date.parse(T0) + leaseMs).toISOString(),
        token: 'dead-process',
      });
      assert.equal(taken.length, 1);
      assert.equal((await claimMessages(db.database.db, db.database.dialect, [message!.id], { nowIso: T0, lockedUntil: T0, token: 'rival' })).length, 0, 'a live claim cannot be taken');
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 0, 'not while the lease lasts');
      clock.advance(leaseMs);
      await kit.dispatcher.runUntilIdle();
      assert.equal(receiver.requests.length, 1);
      assert.equal(receiver.requests[0]!.headers['webhook-id'], message!.id);
      assert.equal(receiver.requests[0]!.headers['webhook-attempt'], '1', 'the unrecorded attempt is made again');
      assert.equal((await messagesOf(db.database, a.endpoint.id))[0]!.status, 'delivered');
    });

    describe('connect-time SSRF checks (WEBHOOK_ALLOW_INSECURE_TARGETS off)', () => {
      it('refuses a host that passed registration but now resolves to 127.0.0.1 (DNS rebinding); the receiver gets nothing', async () => {
        let calls = 0;
        const rebinding = async (host: string) => {
          assert.equal(host, 'rebind.example.com');
          return ++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1'];
        };
        const strict = webhookKit(db.database, { clock, config: { webhookAllowInsecureTargets: false }, resolver: rebinding });
        extra.push(strict);
        const user = await strict.accounts.ensureUser(uniqueEmail('rebind'));
        const { endpoint } = await strict.service.create({ type: 'user', userId: user.id }, null, { url: `https://rebind.example.com:${receiver.port}/hook` });
        await emitEvent(db.database, { type: 'user', id: user.id }, { createdAt: T0 });
        await strict.dispatcher.runUntilIdle();
        assert.equal(receiver.requests.length, 0);
        const [attempt] = await attemptsOf(db, endpoint.id);
        assert.equal(attempt!.status_code, null);
        assert.match(attempt!.error!, /target address refused: rebind\.example\.com resolves to 127\.0\.0\.1 is loopback/);
        assert.equal(calls, 2, 'resolved once at registration, once at connect: the checked address is the one used');
      });

      it('refuses localhost, loopback literals and plain http at delivery even when the stored endpoint skipped the registration check', async () => {
        const strict = webhookKit(db.database, { clock, config: { webhookAllowInsecureTargets: false } });
        extra.push(strict);
        const a = await userEndpoint('/x');
        // Endpoints written straight into the table, as if registered under other rules.
        const urls = [`https://localhost:${receiver.port}/hook`, `https://127.0.0.1:${receiver.port}/hook`, `https://[::ffff:127.0.0.1]:${receiver.port}/hook`, `https://2130706433:${receiver.port}/hook`, `${receiver.url}/plain`];
        const errors: string[] = [];
        for (const url of urls) {
          await db.database.db.updateTable('webhook_endpoints').set({ url, consecutive_failures: 0 }).where('id', '=', a.endpoint.id).execute();
          const { eventId } = await emitEvent(db.database, a.owner, { createdAt: T0 });
          await strict.dispatcher.runUntilIdle();
          const attempts = await attemptsOf(db, a.endpoint.id);
          const message = (await messagesOf(db.database, a.endpoint.id)).find((m) => m.event_id === eventId)!;
          errors.push(attempts.find((x) => x.message_id === message.id)!.error!);
        }
        assert.equal(receiver.requests.length, 0, 'nothing reached the loopback receiver');
        assert.match(errors[0]!, /localhost names this machine/);
        assert.match(errors[1]!, /127\.0\.0\.1 is loopback/);
        assert.match(errors[2]!, /IPv4-mapped/);
        assert.match(errors[3]!, /127\.0\.0\.1 is loopback/);
        assert.match(errors[4]!, /plain http/);
      });

      it('connects to the checked address itself, with TLS verified against the host name (no second DNS lookup)', async () => {
        const cert = fs.readFileSync(new URL('receiver.crt', FIXTURES), 'utf8');
        const key = fs.readFileSync(new URL('receiver.key', FIXTURES), 'utf8');
        const tlsReceiver = await startReceiver({ key, cert });
        extra.push(tlsReceiver);
        let calls = 0;
        // hooks.example.test does not exist in real DNS: only our resolver knows it.
        const resolver = async (host: string) => {
          calls++;
          if (host !== 'hooks.example.test') throw Object.assign(new Error('ENOTFOUND'), { code: 'ENOTFOUND' });
          return calls === 1 ? ['93.184.216.34'] : ['127.0.0.1'];
        };
        // This test alone lets 127.0.0.1 through at connect time, to prove where the connection goes.
        const policy = (address: string) => (address === '127.0.0.1' ? null : `${address} is not the test receiver`);
        const strict = webhookKit(db.database, { clock: new ManualClock(Date.now()), config: { webhookAllowInsecureTargets: false }, resolver, policy, tls: { ca: cert } });
        extra.push(strict);
        const user = await strict.accounts.ensureUser(uniqueEmail('tls'));
        const { endpoint, secret } = await strict.service.create({ type: 'user', userId: user.id }, null, { url: `https://hooks.example.test:${tlsReceiver.port}/tls` });
        const sent = await strict.service.sendTest({ type: 'user', userId: user.id }, endpoint.id);
        assert.equal(sent.attempt?.error, null);
        assert.equal(sent.attempt?.statusCode, 200);
        assert.equal(tlsReceiver.requests.length, 1);
        assert.equal(tlsReceiver.requests[0]!.headers.host, `hooks.example.test:${tlsReceiver.port}`);
        assert.ok(verifies(secret, tlsReceiver.requests[0]!));
        assert.equal(calls, 2);
      });
    });

    it('booking flow end to end: live-key intents that are confirmed or expire reach their owner; test keys and anonymous intents reach nobody', async () => {
      let ctx: TestContext | null = null;
      try {
        ctx = await createTestContext(target);
        const flowKit = webhookKit(ctx.database, { clock: ctx.clock });
        extra.push(flowKit);
        const [lawyerId] = await insertLawyers(ctx.database, [lawyerRecord()]);
        const ownerEmail = uniqueEmail('integrator');
        const live = await createKey(ctx, { ownerEmail });
        const testKey = await createKey(ctx, { ownerEmail, mode: 'test' });
        const owner = (await flowKit.accounts.findUserByEmail(ownerEmail))!;
        const { endpoint, secret } = await flowKit.service.create({ type: 'user', userId: owner.id }, null, { url: `${receiver.url}/bookings` });

        const toConfirm = await initiate(ctx, slotBody(lawyerId!, '2026-11-24', '10'), { token: live.token });
        const toExpire = await initiate(ctx, slotBody(lawyerId!, '2026-11-24', '11'), { token: live.token });
        assert.deepEqual([toConfirm.statusCode, toExpire.statusCode], [201, 201]);
        await initiate(ctx, slotBody(lawyerId!, '2026-11-24', '12'), { token: testKey.token });
        await initiate(ctx, slotBody(lawyerId!, '2026-11-24', '13'));
        const booker = await flowKit.accounts.ensureUser(uniqueEmail('booker'));
        ctx.clock.advance(60_000);
        assert.equal((await ctx.app.services.booking.confirm(tokenOf(toConfirm.json().confirmation_url), booker.id)).outcome, 'confirmed');
        ctx.clock.advance(15 * 60_000);
        await ctx.app.services.booking.expireDue();
        await flowKit.dispatcher.runUntilIdle();

        assert.equal(receiver.requests.length, 2, 'one confirmed and one expired event; nothing for the test key or the anonymous intent');
        const payloads = receiver.requests.map((r) => verifyAt(secret, r, ctx!.clock.now().getTime()) as { type: string; data: Record<string, unknown> });
        const confirmed = payloads.find((p) => p.type === 'booking_intent.confirmed')!;
        const expired = payloads.find((p) => p.type === 'booking_intent.expired')!;
        assert.deepEqual(confirmed.data, {
          booking_intent_id: toConfirm.json().booking_intent_id,
          status: 'confirmed',
          lawyer_id: lawyerId,
          slot: { date: '2026-11-24', start_time: '10:00:00', end_time: '11:00:00' },
          confirmed_at: new Date(Date.parse(T0) + 60_000).toISOString(),
        });
        assert.deepEqual(expired.data, {
          booking_intent_id: toExpire.json().booking_intent_id,
          status: 'expired',
          lawyer_id: lawyerId,
          slot: { date: '2026-11-24', start_time: '11:00:00', end_time: '12:00:00' },
        });
        assert.ok(!JSON.stringify(payloads).includes(booker.email), 'no personal data');
        assert.equal((await messagesOf(ctx.database, endpoint.id)).length, 2);
      } finally {
        await ctx?.close();
      }
    });
  });
}
