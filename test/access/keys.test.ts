/**
 * KeysService on every database: creation defaults and validation, what is stored (only the
 * hash), lookup by token, suspension rules, and object-level authorisation attacks (other firms'
 * keys, other users' keys, operator suspensions, tiers).
 */
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Database } from '../../src/db/database.ts';
import { findApiKeyById } from '../../src/db/repositories/api-key.repository.ts';
import { generateApiKey, keyChecksum } from '../../src/domain/access/api-key.ts';
import { KeysService, toRecord } from '../../src/domain/access/keys.service.ts';
import { SCOPES, type Actor, type ApiKeyRecord } from '../../src/domain/access/types.ts';
import { ManualClock } from '../../src/clock.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { accessKit, NOW, OPERATOR, outcome, rejectsWith, uniqueSlug, type AccessKit } from './support.ts';

for (const target of databaseTargets()) {
  describe(`KeysService (${target.name})`, () => {
    let testDb: TestDatabase;
    let kit: AccessKit;

    before(async () => {
      testDb = await target.create();
      kit = accessKit(testDb.database);
    });
    after(async () => {
      await testDb.drop();
    });

    const asUser = async (email: string): Promise<Actor> => ({ type: 'user', userId: (await kit.accounts.ensureUser(email)).id });

    /** A firm with an owner (returned as actor) and its slug. */
    async function firm(base = 'firm'): Promise<{ slug: string; owner: Actor; ownerEmail: string }> {
      const slug = uniqueSlug(base);
      const ownerEmail = `owner@${slug}.test`;
      await kit.accounts.createFirm(OPERATOR, { slug, name: `Bufete ${base}`, ownerEmail });
      return { slug, owner: await asUser(ownerEmail), ownerEmail };
    }

    describe('create', () => {
      it('new keys: tier free, all six scopes, no expiry, any address; the token is returned once and only its hash stored', async () => {
        const { key, token } = await kit.keys.create(OPERATOR, { ownerEmail: 'Dev@Example.com' }, { mode: 'live' });
        assert.equal(key.tier, 'free');
        assert.deepEqual(key.scopes, [...SCOPES]);
        assert.equal(key.mode, 'live');
        assert.equal(key.expiresAt, null);
        assert.equal(key.allowedIps, null);
        assert.equal(key.suspension, null);
        assert.equal(key.createdByUserId, null);
        assert.deepEqual(key.owner, { type: 'user', userId: (await kit.accounts.findUserByEmail('dev@example.com'))!.id, email: 'dev@example.com' });
        assert.equal(key.createdAt, NOW);
        assert.ok(token.startsWith(key.prefix));
        assert.ok(!('token' in key) && !('hash' in key));
        const row = (await findApiKeyById(testDb.database.db, key.id))!;
        assert.equal(row.key_hash, createHash('sha256').update(token).digest('hex'));
        assert.ok(!Object.values(row).some((v) => typeof v === 'string' && v.includes(token.slice(12))), 'the secret is not stored');
        const test = await kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, { mode: 'test' });
        assert.ok(test.token.startsWith('svc_test_'));
        assert.equal(test.key.mode, 'test');
      });

      it('takes restricted scopes (stored in catalogue order), a name, an expiry and a normalised allow-list', async () => {
        const { key } = await kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, {
          mode: 'live',
          scopes: ['bookings:read', 'lawyers:read', 'lawyers:read'],
          name: '  CRM sync  ',
          expiresAt: '2027-01-31T01:00:00+01:00',
          allowedIps: ['203.0.113.9/32', '2001:DB8::/32', '::ffff:198.51.100.0/120'],
        });
        assert.deepEqual(key.scopes, ['lawyers:read', 'bookings:read']);
        assert.equal(key.name, 'CRM sync');
        assert.equal(key.expiresAt, '2027-01-31T00:00:00.000Z');
        assert.deepEqual(key.allowedIps, ['203.0.113.9', '2001:db8::/32', '198.51.100.0/24']);
      });

      it('reports every invalid option at once, with pointers', async () => {
        const err = await rejectsWith(
          kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, {
            mode: 'prod' as 'live',
            tier: 'gold',
            scopes: ['lawyers:read', 'admin'],
            name: 'x'.repeat(101),
            expiresAt: '2026-11-23T07:59:59Z',
            allowedIps: ['10.0.0.0/8', '10.0.0.1/8'],
          }),
          'invalid_request',
        );
        assert.deepEqual(err.errors?.map((e) => e.pointer), ['/mode', '/tier', '/scopes/1', '/name', '/expires_at', '/allowed_ips/1']);
        await rejectsWith(kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, { mode: 'live', scopes: [] }), 'invalid_request');
        await rejectsWith(kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, { mode: 'live', expiresAt: '2027-01-01 10:00' }), 'invalid_request');
        await rejectsWith(kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, { mode: 'live', allowedIps: [] }), 'invalid_request');
        await rejectsWith(kit.keys.create(OPERATOR, { ownerEmail: 'not an email' }, { mode: 'live' }), 'invalid_request');
      });

      it('higher tiers are granted by the operator only', async () => {
        const { key } = await kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, { mode: 'live', tier: 'partner' });
        assert.equal(key.tier, 'partner');
        const dev = await asUser('dev@example.com');
        await rejectsWith(kit.keys.create(dev, { ownerEmail: 'dev@example.com' }, { mode: 'live', tier: 'internal' }), 'forbidden');
      });

      it('users create personal keys for themselves only, and are recorded as creator', async () => {
        const lena = await asUser('lena@example.com');
        const { key } = await kit.keys.create(lena, { ownerEmail: 'LENA@example.com' }, { mode: 'live' });
        assert.equal(key.createdByUserId, lena.type === 'user' ? lena.userId : null);
        await rejectsWith(kit.keys.create(lena, { ownerEmail: 'dev@example.com' }, { mode: 'live' }), 'forbidden');
        await rejectsWith(kit.keys.create(lena, { ownerEmail: 'nobody-yet@example.com' }, { mode: 'live' }), 'forbidden');
        assert.equal(await kit.accounts.findUserByEmail('nobody-yet@example.com'), null, 'a refused call creates no account');
      });
    });

    describe('list and get', () => {
      it('a user lists their personal keys by default; firm keys through the firm', async () => {
        const f = await firm();
        const personal = await kit.keys.create(f.owner, { ownerEmail: f.ownerEmail }, { mode: 'live' });
        const firmKey = await kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'live' });
        assert.deepEqual((await kit.keys.list(f.owner)).map((k) => k.id), [personal.key.id]);
        assert.deepEqual((await kit.keys.list(f.owner, { firmSlug: f.slug })).map((k) => k.id), [firmKey.key.id]);
        assert.deepEqual((await kit.keys.list(OPERATOR, { ownerEmail: f.ownerEmail })).map((k) => k.id), [personal.key.id]);
        assert.deepEqual(await kit.keys.list(OPERATOR, { ownerEmail: 'never-seen@example.com' }), []);
        assert.ok((await kit.keys.list(OPERATOR)).length >= 2);
        await rejectsWith(kit.keys.list(f.owner, { ownerEmail: f.ownerEmail, firmSlug: f.slug }), 'invalid_request');
        assert.deepEqual(await kit.keys.get(f.owner, firmKey.key.id), firmKey.key);
      });

      it('unknown and malformed ids are not_found', async () => {
        for (const id of [randomUUID(), '', 'x', "1' or '1'='1", '../../etc/passwd', randomUUID() + 'x']) {
          await rejectsWith(kit.keys.get(OPERATOR, id), 'not_found');
        }
      });
    });

    describe('object-level authorisation attacks', () => {
      it('an owner of firm A can neither see nor touch firm B\'s keys, nor use firm B as owner', async () => {
        const a = await firm('a');
        const b = await firm('b');
        const bKey = await kit.keys.create(b.owner, { firmSlug: b.slug }, { mode: 'live', name: 'b' });
        const bSuspended = await kit.keys.create(b.owner, { firmSlug: b.slug }, { mode: 'live' });
        await kit.keys.suspend(b.owner, bSuspended.key.id, 'b paused it');
        const attacks = {
          get: await outcome(kit.keys.get(a.owner, bKey.key.id)),
          revoke: await outcome(kit.keys.revoke(a.owner, bKey.key.id)),
          suspend: await outcome(kit.keys.suspend(a.owner, bKey.key.id, 'mine')),
          unsuspend: await outcome(kit.keys.unsuspend(a.owner, bSuspended.key.id)),
          allowList: await outcome(kit.keys.setAllowList(a.owner, bKey.key.id, ['0.0.0.0/0'])),
          clearAllowList: await outcome(kit.keys.setAllowList(a.owner, bKey.key.id, null)),
          tier: await outcome(kit.keys.setTier(a.owner, bKey.key.id, 'internal')),
          list: await outcome(kit.keys.list(a.owner, { firmSlug: b.slug })),
          create: await outcome(kit.keys.create(a.owner, { firmSlug: b.slug }, { mode: 'live' })),
          members: await outcome(kit.accounts.listMembers(a.owner, b.slug)),
          addMember: await outcome(kit.accounts.addMember(a.owner, b.slug, 'spy@example.com', 'owner')),
        };
        assert.deepEqual(attacks, {
          get: 'not_found', revoke: 'not_found', suspend: 'not_found', unsuspend: 'not_found', allowList: 'not_found', clearAllowList: 'not_found',
          tier: 'not_found', list: 'not_found', create: 'not_found', members: 'not_found', addMember: 'not_found',
        });
        assert.deepEqual(await kit.keys.get(OPERATOR, bKey.key.id), bKey.key, 'firm B\'s key unchanged');
        assert.equal((await kit.keys.get(OPERATOR, bSuspended.key.id)).suspension?.reason, 'b paused it');
        assert.equal((await kit.keys.list(OPERATOR, { firmSlug: b.slug })).length, 2);
      });

      it('a user can neither see nor touch another user\'s personal keys', async () => {
        const alice = await asUser('alice@example.com');
        const mallory = await asUser('mallory@example.com');
        const key = await kit.keys.create(alice, { ownerEmail: 'alice@example.com' }, { mode: 'live' });
        for (const attack of [
          () => kit.keys.get(mallory, key.key.id),
          () => kit.keys.revoke(mallory, key.key.id),
          () => kit.keys.suspend(mallory, key.key.id, 'x'),
          () => kit.keys.unsuspend(mallory, key.key.id),
          () => kit.keys.setAllowList(mallory, key.key.id, ['203.0.113.9']),
          () => kit.keys.setTier(mallory, key.key.id, 'internal'),
        ]) {
          await rejectsWith(attack(), 'not_found');
        }
        await rejectsWith(kit.keys.list(mallory, { ownerEmail: 'alice@example.com' }), 'forbidden');
        assert.deepEqual(await kit.keys.list(mallory), []);
        assert.deepEqual(await kit.keys.get(alice, key.key.id), key.key);
      });

      it('a firm owner cannot reach the personal keys of the firm\'s members', async () => {
        const f = await firm();
        await kit.accounts.addMember(OPERATOR, f.slug, `staff@${f.slug}.test`, 'member', ['keys:manage']);
        const staff = await asUser(`staff@${f.slug}.test`);
        const personal = await kit.keys.create(staff, { ownerEmail: `staff@${f.slug}.test` }, { mode: 'live' });
        await rejectsWith(kit.keys.get(f.owner, personal.key.id), 'not_found');
        await rejectsWith(kit.keys.revoke(f.owner, personal.key.id), 'not_found');
        await rejectsWith(kit.keys.list(f.owner, { ownerEmail: `staff@${f.slug}.test` }), 'forbidden');
      });

      it('a member loses sight of firm keys when keys:manage is withdrawn', async () => {
        const f = await firm();
        await kit.accounts.addMember(OPERATOR, f.slug, `m@${f.slug}.test`, 'member', ['keys:manage']);
        const m = await asUser(`m@${f.slug}.test`);
        const key = await kit.keys.create(m, { firmSlug: f.slug }, { mode: 'live' });
        await kit.accounts.setPermissions(f.owner, f.slug, `m@${f.slug}.test`, []);
        await rejectsWith(kit.keys.get(m, key.key.id), 'not_found');
        await rejectsWith(kit.keys.list(m, { firmSlug: f.slug }), 'forbidden');
      });

      it('a firm manager can neither lift nor overwrite an operator suspension', async () => {
        const f = await firm();
        const key = await kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'live' });
        await kit.keys.suspend(OPERATOR, key.key.id, 'abuse report #42');
        await rejectsWith(kit.keys.unsuspend(f.owner, key.key.id), 'forbidden');
        await rejectsWith(kit.keys.suspend(f.owner, key.key.id, 'we pause it ourselves'), 'forbidden');
        const after = await kit.keys.get(f.owner, key.key.id);
        assert.deepEqual(after.suspension, { by: 'operator', reason: 'abuse report #42', at: NOW });
      });

      it('nobody but the operator sets a tier, not even on their own key', async () => {
        const f = await firm();
        const personal = await kit.keys.create(f.owner, { ownerEmail: f.ownerEmail }, { mode: 'live' });
        const firmKey = await kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'live' });
        await rejectsWith(kit.keys.setTier(f.owner, personal.key.id, 'partner'), 'forbidden');
        await rejectsWith(kit.keys.setTier(f.owner, firmKey.key.id, 'partner'), 'forbidden');
        assert.equal((await kit.keys.setTier(OPERATOR, firmKey.key.id, 'internal')).tier, 'internal');
        await rejectsWith(kit.keys.setTier(OPERATOR, firmKey.key.id, 'platinum'), 'invalid_request');
      });

      it('a user cannot suspend their personal key (they revoke it); the operator can', async () => {
        const dev = await asUser('suspender@example.com');
        const key = await kit.keys.create(dev, { ownerEmail: 'suspender@example.com' }, { mode: 'live' });
        await rejectsWith(kit.keys.suspend(dev, key.key.id, 'pause'), 'forbidden');
        await kit.keys.suspend(OPERATOR, key.key.id, 'leaked on GitHub');
        await rejectsWith(kit.keys.unsuspend(dev, key.key.id), 'forbidden');
        assert.ok((await kit.keys.revoke(dev, key.key.id)).revokedAt);
      });
    });

    describe('suspension, revocation, allow-lists', () => {
      it('firm suspension: set and lifted by the firm; re-suspending keeps the time; the operator takes over', async () => {
        const f = await firm();
        const key = await kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'live' });
        const suspended = await kit.keys.suspend(f.owner, key.key.id, '  holiday  ');
        assert.deepEqual(suspended.suspension, { by: 'firm', reason: 'holiday', at: NOW });
        kit.clock.advance(60_000);
        const again = await kit.keys.suspend(f.owner, key.key.id, 'extended holiday');
        assert.deepEqual(again.suspension, { by: 'firm', reason: 'extended holiday', at: NOW });
        const byOperator = await kit.keys.suspend(OPERATOR, key.key.id, 'abuse');
        assert.deepEqual(byOperator.suspension, { by: 'operator', reason: 'abuse', at: kit.clock.now().toISOString() });
        assert.equal((await kit.keys.unsuspend(OPERATOR, key.key.id)).suspension, null);
        assert.equal((await kit.keys.unsuspend(f.owner, key.key.id)).suspension, null, 'idempotent');
        await kit.keys.suspend(f.owner, key.key.id, 'again');
        assert.equal((await kit.keys.unsuspend(OPERATOR, key.key.id)).suspension, null, 'the operator may lift a firm suspension');
        await rejectsWith(kit.keys.suspend(f.owner, key.key.id, '   '), 'invalid_request');
        kit.clock.set(NOW);
      });

      it('revocation is final and idempotent; a firm may revoke a key the operator suspended', async () => {
        const f = await firm();
        const key = await kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'live' });
        await kit.keys.suspend(OPERATOR, key.key.id, 'abuse');
        const revoked = await kit.keys.revoke(f.owner, key.key.id);
        assert.equal(revoked.revokedAt, NOW);
        kit.clock.advance(1000);
        assert.equal((await kit.keys.revoke(f.owner, key.key.id)).revokedAt, NOW, 'second revoke keeps the first time');
        kit.clock.set(NOW);
        for (const change of [
          () => kit.keys.suspend(OPERATOR, key.key.id, 'x'),
          () => kit.keys.unsuspend(OPERATOR, key.key.id),
          () => kit.keys.setTier(OPERATOR, key.key.id, 'partner'),
          () => kit.keys.setAllowList(f.owner, key.key.id, ['203.0.113.9']),
        ]) {
          await rejectsWith(change(), 'conflict');
        }
      });

      it('allow-lists are validated and normalised, and cleared with null', async () => {
        const dev = await asUser('lister@example.com');
        const key = await kit.keys.create(dev, { ownerEmail: 'lister@example.com' }, { mode: 'live' });
        const set = await kit.keys.setAllowList(dev, key.key.id, ['2001:0DB8::/32', '203.0.113.0/24']);
        assert.deepEqual(set.allowedIps, ['2001:db8::/32', '203.0.113.0/24']);
        const err = await rejectsWith(kit.keys.setAllowList(dev, key.key.id, ['203.0.113.0/24', '203.0.113.1/24']), 'invalid_request');
        assert.equal(err.errors?.[0]?.pointer, '/allowed_ips/1');
        await rejectsWith(kit.keys.setAllowList(dev, key.key.id, []), 'invalid_request');
        assert.equal((await kit.keys.setAllowList(dev, key.key.id, null)).allowedIps, null);
      });
    });

    describe('findByToken', () => {
      it('finds active, suspended, revoked and expired keys alike (the caller judges them)', async () => {
        const f = await firm();
        const make = () => kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'live' });
        const active = await make();
        const suspended = await make();
        await kit.keys.suspend(f.owner, suspended.key.id, 'x');
        const revoked = await make();
        await kit.keys.revoke(f.owner, revoked.key.id);
        const expiring = await kit.keys.create(f.owner, { firmSlug: f.slug }, { mode: 'test', expiresAt: '2026-11-23T08:00:01Z' });
        kit.clock.advance(5000);
        for (const k of [active, suspended, revoked, expiring]) {
          const found = await kit.keys.findByToken(k.token);
          assert.deepEqual(found, await kit.keys.get(OPERATOR, k.key.id));
        }
        assert.deepEqual((await kit.keys.findByToken(active.token))?.owner, { type: 'firm', firmId: (await kit.accounts.getFirm(OPERATOR, f.slug)).id, slug: f.slug });
        kit.clock.set(NOW);
      });

      it('a well-formed key that was never issued is null', async () => {
        assert.equal(await kit.keys.findByToken(generateApiKey('live').token), null);
        assert.equal(await kit.keys.findByToken(generateApiKey('test').token), null);
      });

      it('malformed tokens never reach the database', async () => {
        // A database whose every use throws: any query at all fails the test.
        const untouchable = new Proxy({}, { get: () => { throw new Error('the database was touched'); } });
        const keys = new KeysService({ database: { db: untouchable } as unknown as Database, clock: new ManualClock(NOW), accounts: kit.accounts });
        const real = generateApiKey('live').token;
        const body = 'svc_' + 'A'.repeat(32);
        for (const token of ['', 'svc_', real.slice(0, -1), real.slice(0, -1) + (real.endsWith('A') ? 'B' : 'A'), body + 'AAAAAA', 'mcp_' + 'x'.repeat(40), 'Bearer ' + real, real + ' ']) {
          assert.equal(await keys.findByToken(token), null, token);
        }
        await assert.rejects(keys.findByToken(body + keyChecksum(body)), /database was touched/, 'a well-formed key does reach it');
      });
    });

    describe('toRecord', () => {
      it('fails closed on odd stored values: unknown scopes dropped, a broken allow-list allows nothing', async () => {
        const { key } = await kit.keys.create(OPERATOR, { ownerEmail: 'dev@example.com' }, { mode: 'live' });
        const row = (await findApiKeyById(testDb.database.db, key.id))!;
        const odd: ApiKeyRecord = toRecord({ ...row, scopes: '["lawyers:read","superuser"]', allowed_ips: '{not json', tier: 'gold' });
        assert.deepEqual(odd.scopes, ['lawyers:read']);
        assert.deepEqual(odd.allowedIps, []);
        assert.equal(odd.tier, 'free');
        assert.deepEqual(toRecord({ ...row, allowed_ips: '[1, "203.0.113.9"]' }).allowedIps, ['203.0.113.9']);
      });
    });

    describe('schema constraints', () => {
      it('a key has exactly one owner; emails are stored lower-cased; suspensions are whole', async () => {
        const db = testDb.database.db;
        const user = await kit.accounts.ensureUser('constraint@example.com');
        const f = await firm();
        const firmId = (await kit.accounts.getFirm(OPERATOR, f.slug)).id;
        const base = {
          prefix: 'svc_x', name: null, mode: 'live', tier: 'free', scopes: '[]', created_by_user_id: null, expires_at: null,
          revoked_at: null, suspended_by: null, suspension_reason: null, suspended_at: null, allowed_ips: null, created_at: NOW,
        };
        const insert = (values: Record<string, unknown>) =>
          db.insertInto('api_keys').values({ ...base, id: randomUUID(), key_hash: randomUUID(), owner_user_id: null, owner_firm_id: null, ...values }).execute();
        await assert.rejects(insert({ owner_user_id: user.id, owner_firm_id: firmId }));
        await assert.rejects(insert({}));
        await assert.rejects(insert({ owner_user_id: user.id, suspended_by: 'operator' }));
        await assert.rejects(insert({ owner_user_id: user.id, suspended_by: 'someone', suspension_reason: 'r', suspended_at: NOW }));
        await assert.rejects(insert({ owner_user_id: user.id, mode: 'prod' }));
        await insert({ owner_user_id: user.id });
        await assert.rejects(db.insertInto('users').values({ id: randomUUID(), email: 'Upper@Example.com', name: null, created_at: NOW }).execute());
      });
    });
  });
}
