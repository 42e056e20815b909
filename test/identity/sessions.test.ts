/**
 * Sessions on both databases: hashed tokens, absolute and idle expiry (moved by a manual clock),
 * last_seen_at written at most once a minute, sign-out, sign-out everywhere, and the purge.
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import { MemoryRateLimitStore } from '../../src/domain/access/rate-limit.memory.ts';
import { SessionService } from '../../src/domain/identity/session.service.ts';
import { SignInService } from '../../src/domain/identity/sign-in.service.ts';
import type { MailQueue, OutgoingMail } from '../../src/domain/notify/outbox.ts';
import { testConfig, TEST_NOW } from '../support/app.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

const DAY = 86_400_000;
const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

for (const target of databaseTargets()) {
  describe(`sessions (${target.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await target.create();
    });
    after(async () => db?.drop());

    const harness = async (on: TestDatabase = db) => {
      const clock = new ManualClock(TEST_NOW);
      const config = testConfig();
      const sessions = new SessionService({ database: on.database, clock, config });
      const user = await new AccountsService({ database: on.database, clock }).ensureUser(`${randomUUID()}@example.com`);
      const row = (id: string) => on.database.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return { clock, config, sessions, user, row };
    };

    it('the settings are the documented ones: 7 idle days, 30 in all', async () => {
      const { config } = await harness();
      assert.deepEqual([config.sessionIdleDays, config.sessionMaxDays], [7, 30]);
    });

    it('stores only the SHA-256 of the token, and authenticates the token to its user', async () => {
      const { sessions, user, row } = await harness();
      const s = await sessions.create(user.id, { ip: '10.2.0.1', userAgent: 'x'.repeat(1000) });
      assert.match(s.token, /^[A-Za-z0-9_-]{43}$/, '32 random bytes, base64url');
      const stored = (await row(s.id))!;
      assert.equal(stored.token_hash, sha256(s.token));
      assert.ok(!JSON.stringify(stored).includes(s.token));
      assert.equal(stored.user_agent?.length, 300, 'the user agent is capped');
      const auth = await sessions.authenticate(s.token);
      assert.deepEqual(auth, { user: { id: user.id, email: user.email, name: null, locale: null, operator: false, lawyer: false, developer: false }, sessionId: s.id, stepUpAt: null, endsAt: new Date(Date.parse(TEST_NOW) + 7 * DAY).toISOString() });
    });

    it('refuses missing, malformed and unknown tokens', async () => {
      const { sessions } = await harness();
      for (const token of [undefined, '', 'not-a-token', 'A'.repeat(43), `${'A'.repeat(42)}=`, "' OR 1=1 --"]) {
        assert.equal(await sessions.authenticate(token), null, String(token));
      }
    });

    it('ends at its absolute expiry however much it is used', async () => {
      const { clock, sessions, user } = await harness();
      const s = await sessions.create(user.id, { ip: '10.2.0.2' });
      const t0 = clock.now().getTime();
      for (let day = 1; day < 30; day++) {
        clock.set(t0 + day * DAY);
        assert.ok(await sessions.authenticate(s.token), `used daily, alive on day ${day}`);
      }
      clock.set(t0 + 30 * DAY - 1);
      // Used now, it would idle out in 7 days: it ends at its absolute expiry first (the OAuth login session follows endsAt).
      assert.equal((await sessions.authenticate(s.token))?.endsAt, new Date(t0 + 30 * DAY).toISOString());
      clock.set(t0 + 30 * DAY);
      assert.equal(await sessions.authenticate(s.token), null, 'past its absolute end');
    });

    it('ends after 7 days unused', async () => {
      const { clock, sessions, user } = await harness();
      const a = await sessions.create(user.id, { ip: '10.2.0.3' });
      const b = await sessions.create(user.id, { ip: '10.2.0.4' });
      const t0 = clock.now().getTime();
      clock.set(t0 + 7 * DAY - 1);
      assert.ok(await sessions.authenticate(a.token), 'a day short of idle: alive, and now seen');
      clock.set(t0 + 7 * DAY);
      assert.equal(await sessions.authenticate(b.token), null, '7 days unused');
      assert.equal((await sessions.authenticate(a.token))?.endsAt, new Date(t0 + 14 * DAY - 1).toISOString(), 'seen a moment ago: 7 days from then');
      clock.set(t0 + 14 * DAY - 1);
      assert.equal(await sessions.authenticate(a.token), null, '7 days since it was last seen');
    });

    it('writes last_seen_at at most once a minute', async () => {
      const { clock, sessions, user, row } = await harness();
      const s = await sessions.create(user.id, { ip: '10.2.0.5' });
      const seen = async () => (await row(s.id))!.last_seen_at;
      const first = await seen();
      clock.advance(30_000);
      assert.ok(await sessions.authenticate(s.token));
      assert.equal(await seen(), first, 'no write 30 s later');
      clock.advance(29_999);
      assert.ok(await sessions.authenticate(s.token));
      assert.equal(await seen(), first, 'no write before the minute');
      clock.advance(1);
      assert.ok(await sessions.authenticate(s.token));
      assert.equal(await seen(), clock.now().toISOString(), 'written once the minute has passed');
    });

    it('sign-out ends one session; sign-out everywhere ends all of the user’s, and no one else’s', async () => {
      const { sessions, user } = await harness();
      const other = await harness();
      const a = await sessions.create(user.id, { ip: '10.2.0.6' });
      const b = await sessions.create(user.id, { ip: '10.2.0.7' });
      const c = await sessions.create(user.id, { ip: '10.2.0.8' });
      const theirs = await sessions.create(other.user.id, { ip: '10.2.0.9' });
      await sessions.signOut(a.token);
      assert.equal(await sessions.authenticate(a.token), null);
      assert.ok(await sessions.authenticate(b.token));
      await sessions.signOut(a.token);
      await sessions.signOut('garbage');
      assert.equal(await sessions.signOutEverywhere(user.id), 2);
      assert.equal(await sessions.authenticate(b.token), null);
      assert.equal(await sessions.authenticate(c.token), null);
      assert.ok(await sessions.authenticate(theirs.token));
      assert.equal(await sessions.signOutEverywhere(user.id), 0);
    });

    it("sign-out, sign-out everywhere and revokeAllForUser end the person's OAuth login sessions too, and no one else's", async () => {
      const { clock, sessions, user } = await harness();
      const other = await harness();
      // What the authorization server stores for a browser's login session (src/oauth/adapter.ts).
      const loginSession = (accountId: string) =>
        db.database.db.insertInto('oauth_records').values({ model: 'Session', id: randomUUID(), payload: JSON.stringify({ accountId }), grant_id: null, account_id: accountId, client_id: null, uid: randomUUID(), expires_at: null, consumed_at: null, last_used_at: null, created_at: clock.now().toISOString() }).execute();
      const count = async (accountId: string) => (await db.database.db.selectFrom('oauth_records').select('id').where('model', '=', 'Session').where('account_id', '=', accountId).execute()).length;
      const a = await sessions.create(user.id, { ip: '10.2.3.1' });
      await loginSession(user.id);
      await loginSession(user.id);
      await loginSession(other.user.id);
      await sessions.signOut(a.token);
      assert.deepEqual([await count(user.id), await count(other.user.id)], [0, 1], 'sign-out');
      await sessions.create(user.id, { ip: '10.2.3.2' });
      await loginSession(user.id);
      await sessions.signOutEverywhere(user.id);
      assert.deepEqual([await count(user.id), await count(other.user.id)], [0, 1], 'sign-out everywhere');
      await loginSession(user.id);
      await sessions.revokeAllForUser(user.id);
      assert.deepEqual([await count(user.id), await count(other.user.id)], [0, 1], 'revokeAllForUser');
    });

    it('revokeAllForUser (suspension) cuts every session of the user', async () => {
      const { sessions, user } = await harness();
      const tokens = await Promise.all([1, 2, 3].map((i) => sessions.create(user.id, { ip: `10.2.2.${i}` })));
      assert.equal(await sessions.revokeAllForUser(user.id), 3);
      for (const s of tokens) assert.equal(await sessions.authenticate(s.token), null);
    });

    it('setLocale records the language emails are written in', async () => {
      const { sessions, user } = await harness();
      const s = await sessions.create(user.id, { ip: '10.2.0.10' });
      await sessions.setLocale(user.id, 'es');
      assert.equal((await sessions.authenticate(s.token))?.user.locale, 'es');
    });

    it('purges ended challenges and sessions (expired, revoked, idle) a day after their end, in batches', async (t) => {
      // Its own database: the purge is global, and counts are asserted.
      const own = await target.create();
      t.after(() => own.drop());
      const { clock, config, sessions, user, row } = await harness(own);
      const sent: OutgoingMail[] = [];
      const mail: MailQueue = { enqueue: async (_tx, m) => (sent.push(...m), m.map(() => randomUUID())), deliver: async () => {} };
      const signIn = new SignInService({ database: own.database, clock, config, limiter: new MemoryRateLimitStore(), mail, sessions });
      const challengeExists = async (id: string) => (await own.database.db.selectFrom('sign_in_challenges').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
      const t0 = clock.now().getTime();

      const oldChallenges = await Promise.all(Array.from({ length: 3 }, (_, i) => signIn.start({ email: `purge-${i}-${t0}@example.com`, ip: `10.3.0.${i}`, locale: 'en', returnTo: null })));
      const revoked = await sessions.create(user.id, { ip: '10.2.1.1' });
      await sessions.signOut(revoked.token);
      const idle = await sessions.create(user.id, { ip: '10.2.1.2' });
      const used = await sessions.create(user.id, { ip: '10.2.1.3' });

      // A day and 11 minutes later: the challenges (10 minutes) and the revoked session are a day past their end.
      clock.set(t0 + DAY + 11 * 60_000);
      const freshChallenge = await signIn.start({ email: `purge-fresh-${t0}@example.com`, ip: '10.3.1.1', locale: 'en', returnTo: null });
      assert.equal(await sessions.purgeExpired(2), 4, 'three challenges and one revoked session, two at a time');
      for (const c of oldChallenges) assert.equal(await challengeExists(c.challengeId), false);
      assert.equal(await challengeExists(freshChallenge.challengeId), true);
      assert.equal(await row(revoked.id), undefined);
      assert.ok(await row(idle.id));

      // `used` is used daily; `idle` not at all: after its 7 idle days and one more, it goes.
      const useDaily = async (from: number, to: number) => {
        for (let day = from; day <= to; day++) {
          clock.set(t0 + day * DAY + 12 * 60_000);
          assert.ok(await sessions.authenticate(used.token), `day ${day}`);
        }
      };
      await useDaily(1, 8);
      assert.equal(await sessions.purgeExpired(), 2, 'the idle session and the fresh challenge');
      assert.equal(await row(idle.id), undefined);
      assert.ok(await row(used.id));

      // `used` reaches its absolute end at 30 days; it goes a day later.
      await useDaily(9, 29);
      clock.set(t0 + 31 * DAY);
      assert.equal(await sessions.purgeExpired(), 0, 'exactly a day after its end: kept');
      clock.advance(1);
      assert.equal(await sessions.purgeExpired(), 1);
      assert.equal(await row(used.id), undefined);
    });
  });
}
