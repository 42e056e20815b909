/**
 * Sign-in and sessions as domain services, on both databases: the code's rules (10 minutes,
 * 5 attempts, once), the same-browser link, no enumeration, the limits, hashed storage, and
 * session expiry — time moved by a manual clock, mail captured by a queue that records it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { MemoryRateLimitStore } from '../../src/domain/access/rate-limit.memory.ts';
import { SessionService } from '../../src/domain/identity/session.service.ts';
import { SignInService } from '../../src/domain/identity/sign-in.service.ts';
import type { MailQueue, OutgoingMail } from '../../src/domain/notify/outbox.ts';
import { testConfig, TEST_NOW } from '../support/app.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

/** Records what would be sent (the database stays real). */
class RecordingQueue implements MailQueue {
  readonly sent: OutgoingMail[] = [];
  async enqueue(_tx: unknown, mails: readonly OutgoingMail[]): Promise<string[]> {
    this.sent.push(...mails);
    return mails.map((_, i) => String(this.sent.length - mails.length + i));
  }
  async deliver(): Promise<void> {}
  codeFor(email: string): string {
    const mail = this.sent.filter((m) => m.to === email).at(-1);
    assert.ok(mail, `a mail to ${email}`);
    return /\b(\d{6})\b/.exec(mail.text)![1]!;
  }
  linkFor(email: string): string {
    const mail = this.sent.filter((m) => m.to === email).at(-1)!;
    return /\/sign-in\/link\/([A-Za-z0-9_-]+)/.exec(mail.text)![1]!;
  }
}

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

for (const target of databaseTargets()) {
  describe(`sign-in and sessions (${target.name})`, () => {
    let db: TestDatabase;
    let clock: ManualClock;
    let mail: RecordingQueue;
    let sessions: SessionService;
    let signIn: SignInService;
    const config = testConfig();
    before(async () => {
      db = await target.create();
      clock = new ManualClock(TEST_NOW);
      mail = new RecordingQueue();
      sessions = new SessionService({ database: db.database, clock, config });
      signIn = new SignInService({ database: db.database, clock, config, limiter: new MemoryRateLimitStore(), mail, sessions });
    });
    after(async () => db?.drop());

    const start = (email: string, extra: { returnTo?: string | null; ip?: string } = {}) =>
      signIn.start({ email, ip: extra.ip ?? freshIp(), locale: 'en', returnTo: extra.returnTo ?? null });

    it('the right code signs in, creates the account, and returns a session that authenticates', async () => {
      const { challengeId } = await start('Ana@Example.com', { returnTo: '/confirm/abc/pay' });
      const result = await signIn.verifyCode({ challengeId, code: mail.codeFor('ana@example.com'), ip: freshIp() });
      assert.ok(result.ok);
      assert.equal(result.user.email, 'ana@example.com');
      assert.equal(result.returnTo, '/confirm/abc/pay');
      const auth = await sessions.authenticate(result.session.token);
      assert.equal(auth?.user.email, 'ana@example.com');
      assert.equal(auth?.user.locale, 'en');
    });

    it('stores the code and the link only as hashes, and the mail carries no return path', async () => {
      const { challengeId } = await start('hash@example.com', { returnTo: '/confirm/secret-token/pay' });
      const code = mail.codeFor('hash@example.com');
      const link = mail.linkFor('hash@example.com');
      const row = await db.database.db.selectFrom('sign_in_challenges').selectAll().where('id', '=', challengeId).executeTakeFirstOrThrow();
      assert.ok(!JSON.stringify(row).includes(code), 'the code is not in the row');
      assert.ok(!JSON.stringify(row).includes(link), 'the link token is not in the row');
      const sent = mail.sent.at(-1)!;
      assert.equal(sent.sensitive, true);
      assert.ok(!sent.subject.includes(code), 'the subject (kept after sending) has no code');
      assert.ok(!sent.text.includes('secret-token'));
    });

    it('five wrong codes lock the challenge for good, even for the right code', async () => {
      const { challengeId } = await start('lock@example.com');
      const right = mail.codeFor('lock@example.com');
      const wrong = right === '000000' ? '111111' : '000000';
      const reasons: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await signIn.verifyCode({ challengeId, code: wrong, ip: freshIp() });
        assert.ok(!r.ok);
        reasons.push(`${r.reason}:${r.attemptsLeft}`);
      }
      assert.deepEqual(reasons, ['wrong_code:4', 'wrong_code:3', 'wrong_code:2', 'wrong_code:1', 'locked:0']);
      const late = await signIn.verifyCode({ challengeId, code: right, ip: freshIp() });
      assert.deepEqual([late.ok, !late.ok && late.reason], [false, 'locked']);
    });

    it('a code expires after 10 minutes, and works only once', async () => {
      const a = await start('expiry@example.com');
      const codeA = mail.codeFor('expiry@example.com');
      clock.advance(10 * 60_000);
      const expired = await signIn.verifyCode({ challengeId: a.challengeId, code: codeA, ip: freshIp() });
      assert.deepEqual([expired.ok, !expired.ok && expired.reason], [false, 'expired']);
      const b = await start('expiry@example.com');
      const codeB = mail.codeFor('expiry@example.com');
      assert.ok((await signIn.verifyCode({ challengeId: b.challengeId, code: codeB, ip: freshIp() })).ok);
      const again = await signIn.verifyCode({ challengeId: b.challengeId, code: codeB, ip: freshIp() });
      assert.deepEqual([again.ok, !again.ok && again.reason], [false, 'used']);
    });

    it('of concurrent right codes exactly one signs in', async () => {
      const { challengeId } = await start('race@example.com');
      const code = mail.codeFor('race@example.com');
      const results = await Promise.all(Array.from({ length: 5 }, () => signIn.verifyCode({ challengeId, code, ip: freshIp() })));
      assert.equal(results.filter((r) => r.ok).length, 1);
      const sessionsOfUser = await db.database.db.selectFrom('sessions as s').innerJoin('users as u', 'u.id', 's.user_id').select('s.id').where('u.email', '=', 'race@example.com').execute();
      assert.equal(sessionsOfUser.length, 1);
    });

    it('the link completes only in the browser that asked; elsewhere it asks for the code and consumes nothing', async () => {
      const { challengeId, browserSecret } = await start('link@example.com');
      const token = mail.linkFor('link@example.com');
      const scanner = await signIn.completeWithLink({ token, browserSecret: undefined, ip: freshIp() });
      assert.deepEqual([scanner.ok, !scanner.ok && scanner.reason, !scanner.ok && scanner.challengeId], [false, 'other_browser', challengeId]);
      const other = await signIn.completeWithLink({ token, browserSecret: 'A'.repeat(43), ip: freshIp() });
      assert.equal(!other.ok && other.reason, 'other_browser');
      const same = await signIn.completeWithLink({ token, browserSecret, ip: freshIp() });
      assert.ok(same.ok, 'still usable in the asking browser');
      const reuse = await signIn.completeWithLink({ token, browserSecret, ip: freshIp() });
      assert.equal(!reuse.ok && reuse.reason, 'used');
    });

    it('answers the same for known and unknown addresses (no enumeration)', async () => {
      await db.database.db.insertInto('users').values({ id: crypto.randomUUID(), email: 'known@example.com', name: null, created_at: TEST_NOW, locale: null }).execute();
      const known = await start('known@example.com');
      const unknown = await start('nobody-yet@example.com');
      assert.deepEqual(Object.keys(known).sort(), Object.keys(unknown).sort());
      assert.equal(mail.sent.filter((m) => m.to === 'known@example.com').length, 1);
      assert.equal(mail.sent.filter((m) => m.to === 'nobody-yet@example.com').length, 1);
      assert.equal(mail.sent.at(-1)!.subject, mail.sent.at(-2)!.subject);
    });

    it('limits sends per email (5 an hour) and per client address (20 an hour)', async () => {
      for (let i = 0; i < 5; i++) await start('flood@example.com');
      await assert.rejects(start('flood@example.com'), (err: { code?: string; headers?: Record<string, string> }) => err.code === 'rate_limited' && Number(err.headers?.['retry-after']) > 0);
      const ip = freshIp();
      for (let i = 0; i < 20; i++) await start(`spray-${i}@example.com`, { ip });
      await assert.rejects(start('spray-x@example.com', { ip }), (err: { code?: string }) => err.code === 'rate_limited');
      await assert.rejects(start('not an email'), (err: { code?: string }) => err.code === 'invalid_request');
    });

    it('sessions end after 7 idle days or 30 days in all, at sign-out, and everywhere at once', async () => {
      const user = (await db.database.db.selectFrom('users').select('id').where('email', '=', 'ana@example.com').executeTakeFirstOrThrow()).id;
      const idle = await sessions.create(user, { ip: freshIp() });
      const active = await sessions.create(user, { ip: freshIp() });
      const t0 = clock.now().getTime();
      for (let day = 1; day <= 29; day++) {
        clock.set(t0 + day * 86_400_000);
        assert.ok(await sessions.authenticate(active.token), `used daily, alive on day ${day}`);
      }
      assert.equal(await sessions.authenticate(idle.token), null, 'idle for 7+ days');
      clock.set(t0 + 30 * 86_400_000);
      assert.equal(await sessions.authenticate(active.token), null, 'past its absolute end');
      const a = await sessions.create(user, { ip: freshIp() });
      const b = await sessions.create(user, { ip: freshIp() });
      await sessions.signOut(a.token);
      assert.equal(await sessions.authenticate(a.token), null);
      assert.ok(await sessions.authenticate(b.token));
      assert.ok((await sessions.signOutEverywhere(user)) >= 1);
      assert.equal(await sessions.authenticate(b.token), null);
      assert.equal(await sessions.authenticate('not-a-token'), null);
    });

    it('writes last_seen_at at most once a minute, and purges what has ended', async () => {
      const user = (await db.database.db.selectFrom('users').select('id').where('email', '=', 'ana@example.com').executeTakeFirstOrThrow()).id;
      const s = await sessions.create(user, { ip: freshIp() });
      const seen = async () => (await db.database.db.selectFrom('sessions').select('last_seen_at').where('id', '=', s.id).executeTakeFirstOrThrow()).last_seen_at;
      const first = await seen();
      clock.advance(30_000);
      await sessions.authenticate(s.token);
      assert.equal(await seen(), first);
      clock.advance(31_000);
      await sessions.authenticate(s.token);
      assert.notEqual(await seen(), first);
      clock.advance(40 * 86_400_000);
      assert.ok((await sessions.purgeExpired()) > 0);
      assert.equal((await db.database.db.selectFrom('sessions').select('id').where('id', '=', s.id).execute()).length, 0);
    });
  });
}
