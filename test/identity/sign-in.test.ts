/**
 * Email sign-in as a domain service, on both databases: the code's rules (10 minutes, 5 attempts,
 * once, hashed), the same-browser link, concurrency, no enumeration, and the limits through the
 * real limiter (memory here, Redis in its own suite) — time moved by a manual clock, mail
 * captured by a queue that records it (the database stays real).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { ManualClock } from '../../src/clock.ts';
import { MemoryRateLimitStore } from '../../src/domain/access/rate-limit.memory.ts';
import { RedisRateLimitStore } from '../../src/domain/access/rate-limit.redis.ts';
import type { RateLimitStore } from '../../src/domain/access/rate-limit.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { SessionService } from '../../src/domain/identity/session.service.ts';
import { SignInService, type SignInResult } from '../../src/domain/identity/sign-in.service.ts';
import type { MailQueue, OutgoingMail } from '../../src/domain/notify/outbox.ts';
import type { Locale } from '../../src/i18n/index.ts';
import { SITE, testConfig, TEST_NOW } from '../support/app.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { deleteKeys, testRedis, uniquePrefix } from '../support/redis.ts';

/** Records what would be sent. */
class RecordingQueue implements MailQueue {
  readonly sent: OutgoingMail[] = [];
  async enqueue(_tx: unknown, mails: readonly OutgoingMail[]): Promise<string[]> {
    this.sent.push(...mails);
    return mails.map(() => randomUUID());
  }
  async deliver(): Promise<void> {}
  to(email: string): OutgoingMail[] {
    return this.sent.filter((m) => m.to === email);
  }
  last(email: string): OutgoingMail {
    const mail = this.to(email).at(-1);
    assert.ok(mail, `a mail to ${email}`);
    return mail;
  }
  codeFor(email: string): string {
    return /\b(\d{6})\b/.exec(this.last(email).text)![1]!;
  }
  linkFor(email: string): string {
    return /\/sign-in\/link\/([A-Za-z0-9_-]+)/.exec(this.last(email).text)![1]!;
  }
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');
const reasonOf = (r: SignInResult) => (r.ok ? 'ok' : r.reason);
const wrongFor = (code: string) => (code === '000000' ? '111111' : '000000');

let ipCounter = 0;
const freshIp = () => `10.1.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;
let emailCounter = 0;
const freshEmail = (label = 'person') => `${label}-${++emailCounter}@example.com`;

/** Fresh clock, limiter and mailbox per test, on the suite's database. */
function harness(db: TestDatabase, limiter: RateLimitStore = new MemoryRateLimitStore()) {
  const clock = new ManualClock(TEST_NOW);
  const config = testConfig();
  const mail = new RecordingQueue();
  const sessions = new SessionService({ database: db.database, clock, config });
  const signIn = new SignInService({ database: db.database, clock, config, limiter, mail, sessions });
  const start = (email: string, extra: { returnTo?: string | null; ip?: string; locale?: Locale } = {}) =>
    signIn.start({ email, ip: extra.ip ?? freshIp(), locale: extra.locale ?? 'en', returnTo: extra.returnTo ?? null });
  const challenge = (id: string) => db.database.db.selectFrom('sign_in_challenges').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const sessionsOf = (email: string) =>
    db.database.db.selectFrom('sessions as s').innerJoin('users as u', 'u.id', 's.user_id').select('s.id').where('u.email', '=', email).execute();
  return { clock, config, mail, sessions, signIn, start, challenge, sessionsOf };
}

const rateLimited = (err: unknown) => {
  assert.ok(err instanceof DomainError, String(err));
  assert.equal(err.code, 'rate_limited');
  assert.ok(Number(err.headers?.['retry-after']) >= 1, `retry-after: ${err.headers?.['retry-after']}`);
  return true;
};

for (const target of databaseTargets()) {
  describe(`sign-in (${target.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await target.create();
    });
    after(async () => db?.drop());

    it('the right code signs in, creates the account with the language used, and returns a session that authenticates', async () => {
      const h = harness(db);
      const { challengeId } = await h.start('Ana.Right@Example.com', { returnTo: '/confirm/abc/pay', locale: 'es' });
      assert.equal(await db.database.db.selectFrom('users').select('id').where('email', '=', 'ana.right@example.com').executeTakeFirst(), undefined, 'no account before sign-in');
      const result = await h.signIn.verifyCode({ challengeId, code: h.mail.codeFor('ana.right@example.com'), ip: freshIp(), userAgent: 'Test/1' });
      assert.ok(result.ok, reasonOf(result));
      assert.equal(result.user.email, 'ana.right@example.com');
      assert.equal(result.user.locale, 'es');
      assert.equal(result.returnTo, '/confirm/abc/pay');
      const stored = await db.database.db.selectFrom('users').select(['id', 'locale']).where('email', '=', 'ana.right@example.com').executeTakeFirstOrThrow();
      assert.deepEqual(stored, { id: result.user.id, locale: 'es' });
      const auth = await h.sessions.authenticate(result.session.token);
      assert.equal(auth?.user.id, result.user.id);
      assert.equal(auth?.user.locale, 'es');
      assert.equal(result.session.expiresAt, new Date(Date.parse(TEST_NOW) + h.config.sessionMaxDays * 86_400_000).toISOString());
    });

    it('accepts the code typed with spaces or a hyphen', async () => {
      const h = harness(db);
      const email = freshEmail('spaced');
      const { challengeId } = await h.start(email);
      const code = h.mail.codeFor(email);
      const result = await h.signIn.verifyCode({ challengeId, code: ` ${code.slice(0, 3)}-${code.slice(3)} `, ip: freshIp() });
      assert.ok(result.ok, reasonOf(result));
    });

    it('the email has the code, its 10 minutes, the link and an "ignore it" line, in both languages — and never the return path', async () => {
      const h = harness(db);
      for (const [locale, minutes, ignore] of [
        ['en', '10 minutes', /did not ask.*ignore/i],
        ['es', '10 minutos', /no has pedido.*ignora/i],
      ] as const) {
        const email = freshEmail(`mail-${locale}`);
        await h.start(email, { locale, returnTo: '/confirm/private-intent-token/pay' });
        const mail = h.mail.last(email);
        const code = h.mail.codeFor(email);
        assert.equal(mail.kind, 'sign_in');
        assert.equal(mail.sensitive, true);
        assert.match(mail.text, new RegExp(`\\b${code}\\b`));
        assert.ok(mail.text.includes(minutes), mail.text);
        assert.ok(mail.text.includes(`${SITE}/sign-in/link/${h.mail.linkFor(email)}`), mail.text);
        assert.match(mail.text, ignore);
        assert.ok(!mail.text.includes('private-intent-token') && !mail.subject.includes('private-intent-token'));
        // The subject outlives the erased body in the outbox (docs/mail.md): no secret in it.
        assert.ok(!mail.subject.includes(code));
      }
      assert.notEqual(h.mail.sent[0]!.subject, h.mail.sent[1]!.subject, 'each language has its own subject');
    });

    it('stores the code (scrypt) and the link (SHA-256) only as hashes; return_to only as a safe path', async () => {
      const h = harness(db);
      const email = freshEmail('hash');
      const { challengeId, browserSecret } = await h.start(email, { returnTo: '//evil.example' });
      const code = h.mail.codeFor(email);
      const token = h.mail.linkFor(email);
      const row = await h.challenge(challengeId);
      const dump = JSON.stringify(row);
      assert.ok(!dump.includes(code), 'the code is not in the row');
      assert.ok(!dump.includes(token), 'the link token is not in the row');
      assert.ok(!dump.includes(browserSecret), 'the browser secret is not in the row');
      assert.notEqual(row.code_hash, sha256(code), 'not a fast hash of the code');
      assert.match(row.code_hash, /^[0-9a-f]{64}$/);
      assert.equal(row.link_hash, sha256(token));
      assert.equal(row.browser_hash, sha256(browserSecret));
      assert.equal(row.return_to, null, 'an unsafe return path is dropped');
    });

    it('five wrong codes lock the challenge for good, even for the right code', async () => {
      const h = harness(db);
      const email = freshEmail('lock');
      const { challengeId } = await h.start(email);
      const right = h.mail.codeFor(email);
      const reasons: string[] = [];
      for (let i = 0; i < 5; i++) {
        const r = await h.signIn.verifyCode({ challengeId, code: wrongFor(right), ip: freshIp() });
        assert.ok(!r.ok);
        reasons.push(`${r.reason}:${r.attemptsLeft}`);
      }
      assert.deepEqual(reasons, ['wrong_code:4', 'wrong_code:3', 'wrong_code:2', 'wrong_code:1', 'locked:0']);
      assert.equal(reasonOf(await h.signIn.verifyCode({ challengeId, code: right, ip: freshIp() })), 'locked');
      assert.equal((await h.challenge(challengeId)).attempts, 5, 'refused attempts on a locked challenge are not counted');
      assert.equal(reasonOf(await h.signIn.verifyCode({ challengeId, code: 'abc', ip: freshIp() })), 'locked');
      assert.equal((await h.sessionsOf(email)).length, 0);
      // A new code is a new challenge.
      const again = await h.start(email);
      assert.ok((await h.signIn.verifyCode({ challengeId: again.challengeId, code: h.mail.codeFor(email), ip: freshIp() })).ok);
    });

    it('concurrent wrong codes never count more than 5 attempts', async () => {
      const h = harness(db);
      const email = freshEmail('wrong-race');
      const { challengeId } = await h.start(email);
      const wrong = wrongFor(h.mail.codeFor(email));
      const results = await Promise.all(Array.from({ length: 8 }, () => h.signIn.verifyCode({ challengeId, code: wrong, ip: freshIp() })));
      assert.deepEqual(results.map(reasonOf).sort(), [...Array(4).fill('locked'), ...Array(4).fill('wrong_code')]);
      assert.equal((await h.challenge(challengeId)).attempts, 5);
    });

    it('a code works until its 10 minutes are up, and only once', async () => {
      const h = harness(db);
      const email = freshEmail('expiry');
      const a = await h.start(email);
      const codeA = h.mail.codeFor(email);
      h.clock.advance(10 * 60_000);
      const expired = await h.signIn.verifyCode({ challengeId: a.challengeId, code: codeA, ip: freshIp() });
      assert.equal(reasonOf(expired), 'expired');
      const b = await h.start(email);
      const codeB = h.mail.codeFor(email);
      h.clock.advance(10 * 60_000 - 1);
      assert.ok((await h.signIn.verifyCode({ challengeId: b.challengeId, code: codeB, ip: freshIp() })).ok, 'still valid a millisecond before the end');
      assert.equal(reasonOf(await h.signIn.verifyCode({ challengeId: b.challengeId, code: codeB, ip: freshIp() })), 'used');
      assert.equal(reasonOf(await h.signIn.verifyCode({ challengeId: b.challengeId, code: wrongFor(codeB), ip: freshIp() })), 'used');
    });

    it('unknown challenges and link tokens are reported as unknown', async () => {
      const h = harness(db);
      assert.equal(reasonOf(await h.signIn.verifyCode({ challengeId: randomUUID(), code: '123456', ip: freshIp() })), 'unknown');
      assert.equal(reasonOf(await h.signIn.verifyCode({ challengeId: "x' OR 1=1 --", code: '123456', ip: freshIp() })), 'unknown');
      assert.equal(reasonOf(await h.signIn.completeWithLink({ token: 'A'.repeat(43), browserSecret: 'B'.repeat(43), ip: freshIp() })), 'unknown');
      assert.equal(reasonOf(await h.signIn.completeWithLink({ token: '../../etc', browserSecret: undefined, ip: freshIp() })), 'unknown');
    });

    it('of five concurrent right codes exactly one signs in', async () => {
      const h = harness(db);
      const email = freshEmail('race');
      const { challengeId } = await h.start(email);
      const code = h.mail.codeFor(email);
      const results = await Promise.all(Array.from({ length: 5 }, () => h.signIn.verifyCode({ challengeId, code, ip: freshIp() })));
      assert.deepEqual(results.map(reasonOf).sort(), ['ok', 'used', 'used', 'used', 'used']);
      assert.equal((await h.sessionsOf(email)).length, 1);
    });

    it('the code and the link race for the same challenge: exactly one wins', async () => {
      const h = harness(db);
      const email = freshEmail('code-vs-link');
      const { challengeId, browserSecret } = await h.start(email);
      const code = h.mail.codeFor(email);
      const token = h.mail.linkFor(email);
      const results = await Promise.all([
        h.signIn.verifyCode({ challengeId, code, ip: freshIp() }),
        h.signIn.completeWithLink({ token, browserSecret, ip: freshIp() }),
        h.signIn.verifyCode({ challengeId, code, ip: freshIp() }),
        h.signIn.completeWithLink({ token, browserSecret, ip: freshIp() }),
      ]);
      assert.equal(results.filter((r) => r.ok).length, 1, results.map(reasonOf).join());
      assert.equal((await h.sessionsOf(email)).length, 1);
    });

    it('the link signs in the browser that asked', async () => {
      const h = harness(db);
      const email = freshEmail('link');
      const { browserSecret } = await h.start(email, { returnTo: '/consultations' });
      const result = await h.signIn.completeWithLink({ token: h.mail.linkFor(email), browserSecret, ip: freshIp() });
      assert.ok(result.ok, reasonOf(result));
      assert.equal(result.user.email, email);
      assert.equal(result.returnTo, '/consultations');
      assert.ok(await h.sessions.authenticate(result.session.token));
      assert.equal(reasonOf(await h.signIn.completeWithLink({ token: h.mail.linkFor(email), browserSecret, ip: freshIp() })), 'used');
    });

    it('the link in another browser (or a mail scanner) asks for the code and uses nothing up', async () => {
      const h = harness(db);
      const email = freshEmail('scanned');
      const { challengeId, browserSecret } = await h.start(email);
      const token = h.mail.linkFor(email);
      const scanner = await h.signIn.completeWithLink({ token, browserSecret: undefined, ip: freshIp() });
      assert.deepEqual(scanner, { ok: false, reason: 'other_browser', challengeId, attemptsLeft: 5, email });
      const other = await h.signIn.completeWithLink({ token, browserSecret: browserSecret.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')), ip: freshIp() });
      assert.equal(reasonOf(other), 'other_browser');
      const row = await h.challenge(challengeId);
      assert.deepEqual([row.consumed_at, row.attempts], [null, 0]);
      assert.equal((await h.sessionsOf(email)).length, 0);
      // The other browser types the code from the same email.
      const byCode = await h.signIn.verifyCode({ challengeId, code: h.mail.codeFor(email), ip: freshIp() });
      assert.ok(byCode.ok, reasonOf(byCode));
    });

    it('answers the same for known and unknown addresses, and emails both (no enumeration)', async () => {
      const h = harness(db);
      const known = freshEmail('known');
      const unknown = freshEmail('unknown');
      await db.database.db.insertInto('users').values({ id: randomUUID(), email: known, name: null, created_at: TEST_NOW, locale: 'es' }).execute();
      const a = await h.start(known);
      const b = await h.start(unknown);
      assert.deepEqual(Object.keys(a).sort(), ['browserSecret', 'challengeId']);
      assert.deepEqual(Object.keys(b).sort(), Object.keys(a).sort());
      assert.equal(a.browserSecret.length, b.browserSecret.length);
      assert.equal(h.mail.to(known).length, 1);
      assert.equal(h.mail.to(unknown).length, 1);
      const [ma, mb] = [h.mail.last(known), h.mail.last(unknown)];
      assert.equal(ma.subject, mb.subject);
      const shape = (m: OutgoingMail) => m.text.replace(/\d{6}/, 'CODE').replace(/link\/[\w-]+/, 'link/TOKEN');
      assert.equal(shape(ma), shape(mb), 'the same email, word for word');
    });

    it('refuses an invalid address with an error on /email', async () => {
      const h = harness(db);
      for (const bad of ['not an email', '', 'a@', `${'a'.repeat(250)}@example.com`]) {
        await assert.rejects(h.start(bad), (err: unknown) => {
          assert.ok(err instanceof DomainError);
          assert.equal(err.code, 'invalid_request');
          assert.equal(err.errors?.[0]?.pointer, '/email');
          return true;
        });
      }
      assert.equal(h.mail.sent.length, 0);
    });

    it('limits sends per address: 5 an hour, 20 a day', async () => {
      const h = harness(db);
      const email = freshEmail('flood');
      for (let i = 0; i < 5; i++) await h.start(email);
      await assert.rejects(h.start(email), rateLimited);
      await assert.rejects(h.start(email.toUpperCase()), rateLimited, 'the address is normalised before counting');
      assert.equal(h.mail.to(email).length, 5, 'a refused send sends nothing');
      for (let hour = 1; hour <= 3; hour++) {
        h.clock.advance(3_600_000);
        for (let i = 0; i < 5; i++) await h.start(email);
      }
      h.clock.advance(3_600_000);
      await assert.rejects(h.start(email), (err: unknown) => {
        rateLimited(err);
        // Refused by the day window: retry-after runs to the next UTC midnight, hours away.
        assert.ok(Number((err as DomainError).headers?.['retry-after']) > 3_600);
        return true;
      });
      assert.equal(h.mail.to(email).length, 20);
    });

    it('limits sends per client address: 20 an hour', async () => {
      const h = harness(db);
      const ip = freshIp();
      for (let i = 0; i < 20; i++) await h.start(freshEmail('spray'), { ip });
      await assert.rejects(h.start(freshEmail('spray'), { ip }), rateLimited);
      await h.start(freshEmail('spray'), { ip: freshIp() });
      h.clock.advance(3_600_000);
      await h.start(freshEmail('spray'), { ip });
    });

    it('limits code attempts per client address: 30 an hour, on top of 5 per challenge', async () => {
      const h = harness(db);
      const ip = freshIp();
      const challenges: Array<{ challengeId: string; code: string }> = [];
      for (let i = 0; i < 7; i++) {
        const email = freshEmail('guess');
        const { challengeId } = await h.start(email);
        challenges.push({ challengeId, code: h.mail.codeFor(email) });
      }
      for (let i = 0; i < 30; i++) {
        const c = challenges[Math.floor(i / 5)]!;
        await h.signIn.verifyCode({ challengeId: c.challengeId, code: wrongFor(c.code), ip });
      }
      const last = challenges[6]!;
      await assert.rejects(h.signIn.verifyCode({ challengeId: last.challengeId, code: last.code, ip }), rateLimited);
      await assert.rejects(h.signIn.completeWithLink({ token: 'A'.repeat(43), browserSecret: undefined, ip }), rateLimited);
      assert.equal((await h.challenge(last.challengeId)).attempts, 0, 'a refused attempt is not counted on the challenge');
      assert.ok((await h.signIn.verifyCode({ challengeId: last.challengeId, code: last.code, ip: freshIp() })).ok);
    });
  });
}

describe('sign-in limits with the Redis store', () => {
  it('counts per hashed address in Redis: no raw address in any key', async (t) => {
    const redis = await testRedis();
    if (redis.url === null) return t.skip(redis.skip);
    const target = databaseTargets()[0]!;
    const db = await target.create();
    const prefix = uniquePrefix('signin');
    const limiter = new RedisRateLimitStore({ url: redis.url, prefix });
    const client = new Redis(redis.url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    try {
      const h = harness(db, limiter);
      const email = freshEmail('redis');
      for (let i = 0; i < 5; i++) await h.start(email);
      await assert.rejects(h.start(email), rateLimited);
      const keys = await client.keys(`${prefix}:*`);
      assert.ok(keys.some((k) => k.includes(`signin:email:${sha256(email)}`)), keys.join('\n'));
      assert.ok(!keys.some((k) => k.includes(email) || k.includes('@')), keys.join('\n'));
    } finally {
      client.disconnect();
      await limiter.close();
      await deleteKeys(redis.url, prefix);
      await db.drop();
    }
  });
});
