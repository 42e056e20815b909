/**
 * The firm permission matrix, table-driven: every actor (operator, owner, admin, member,
 * member with keys:manage, outsider) × every management action → allowed or the exact refusal.
 * Each cell runs on a fresh firm, on every database target.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/access/types.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { accessKit, OPERATOR, outcome, uniqueSlug, type AccessKit } from './support.ts';

type ActorName = 'operator' | 'owner' | 'admin' | 'member' | 'keys-member' | 'outsider';
const ACTORS: ActorName[] = ['operator', 'owner', 'admin', 'member', 'keys-member', 'outsider'];

interface Fixture {
  slug: string;
  email: (who: string) => string;
  actors: Record<ActorName, Actor>;
  key: string;
  firmSuspended: string;
  operatorSuspended: string;
}

/**
 * A firm with two owners, two admins, a plain member, a member granted keys:manage and a second
 * plain member (targets), three firm keys, and an outsider who owns a firm of their own.
 */
async function fixture(kit: AccessKit): Promise<Fixture> {
  const slug = uniqueSlug('matrix');
  const email = (who: string) => `${who}@${slug}.test`;
  await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Matriz', ownerEmail: email('owner') });
  await kit.accounts.addMember(OPERATOR, slug, email('owner2'), 'owner');
  await kit.accounts.addMember(OPERATOR, slug, email('admin'), 'admin');
  await kit.accounts.addMember(OPERATOR, slug, email('admin2'), 'admin');
  await kit.accounts.addMember(OPERATOR, slug, email('member'), 'member');
  await kit.accounts.addMember(OPERATOR, slug, email('keys-member'), 'member', ['keys:manage']);
  await kit.accounts.addMember(OPERATOR, slug, email('member2'), 'member', ['usage:read']);
  const otherSlug = uniqueSlug('other');
  await kit.accounts.createFirm(OPERATOR, { slug: otherSlug, name: 'Otro Bufete', ownerEmail: email('outsider') });
  const user = async (who: string): Promise<Actor> => ({ type: 'user', userId: (await kit.accounts.ensureUser(email(who))).id });
  const actors: Record<ActorName, Actor> = {
    operator: OPERATOR,
    owner: await user('owner'),
    admin: await user('admin'),
    member: await user('member'),
    'keys-member': await user('keys-member'),
    outsider: await user('outsider'),
  };
  const key = (await kit.keys.create(OPERATOR, { firmSlug: slug }, { mode: 'live', name: 'main' })).key.id;
  const firmSuspended = (await kit.keys.create(OPERATOR, { firmSlug: slug }, { mode: 'live' })).key.id;
  await kit.keys.suspend(actors.owner, firmSuspended, 'paused by the firm');
  const operatorSuspended = (await kit.keys.create(OPERATOR, { firmSlug: slug }, { mode: 'live' })).key.id;
  await kit.keys.suspend(OPERATOR, operatorSuspended, 'abuse report');
  return { slug, email, actors, key, firmSuspended, operatorSuspended };
}

type Action = (kit: AccessKit, f: Fixture, actor: Actor) => Promise<unknown>;
type Row = [string, Action, Record<ActorName, string>];

/** Expected outcomes in ACTORS order: operator, owner, admin, member, keys-member, outsider. */
function expect6(...outcomes: [string, string, string, string, string, string]): Record<ActorName, string> {
  return Object.fromEntries(ACTORS.map((a, i) => [a, outcomes[i]!])) as Record<ActorName, string>;
}

const NF = 'not_found';
const FB = 'forbidden';

/** The permission matrix (docs/keys-and-firms.md shows the same table). */
const MATRIX: Row[] = [
  ['list members', (k, f, a) => k.accounts.listMembers(a, f.slug), expect6('ok', 'ok', 'ok', 'ok', 'ok', NF)],
  ['add a member', (k, f, a) => k.accounts.addMember(a, f.slug, f.email('new'), 'member'), expect6('ok', 'ok', 'ok', FB, FB, NF)],
  ['add an admin', (k, f, a) => k.accounts.addMember(a, f.slug, f.email('new'), 'admin'), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['add an owner', (k, f, a) => k.accounts.addMember(a, f.slug, f.email('new'), 'owner'), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['grant a member a permission', (k, f, a) => k.accounts.setPermissions(a, f.slug, f.email('member2'), ['keys:manage']), expect6('ok', 'ok', 'ok', FB, FB, NF)],
  ['remove a member', (k, f, a) => k.accounts.removeMember(a, f.slug, f.email('member2')), expect6('ok', 'ok', 'ok', FB, FB, NF)],
  ['remove an admin', (k, f, a) => k.accounts.removeMember(a, f.slug, f.email('admin2')), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['remove an owner', (k, f, a) => k.accounts.removeMember(a, f.slug, f.email('owner2')), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['promote a member to admin', (k, f, a) => k.accounts.setRole(a, f.slug, f.email('member2'), 'admin'), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['demote an admin to member', (k, f, a) => k.accounts.setRole(a, f.slug, f.email('admin2'), 'member'), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['demote an owner to admin', (k, f, a) => k.accounts.setRole(a, f.slug, f.email('owner2'), 'admin'), expect6('ok', 'ok', FB, FB, FB, NF)],
  ['create a firm key', (k, f, a) => k.keys.create(a, { firmSlug: f.slug }, { mode: 'live' }), expect6('ok', 'ok', 'ok', FB, 'ok', NF)],
  ['list firm keys', (k, f, a) => k.keys.list(a, { firmSlug: f.slug }), expect6('ok', 'ok', 'ok', FB, 'ok', NF)],
  ['show a firm key', (k, f, a) => k.keys.get(a, f.key), expect6('ok', 'ok', 'ok', NF, 'ok', NF)],
  ['revoke a firm key', (k, f, a) => k.keys.revoke(a, f.key), expect6('ok', 'ok', 'ok', NF, 'ok', NF)],
  ['suspend a firm key', (k, f, a) => k.keys.suspend(a, f.key, 'pause'), expect6('ok', 'ok', 'ok', NF, 'ok', NF)],
  ['lift a firm suspension', (k, f, a) => k.keys.unsuspend(a, f.firmSuspended), expect6('ok', 'ok', 'ok', NF, 'ok', NF)],
  ['lift an operator suspension', (k, f, a) => k.keys.unsuspend(a, f.operatorSuspended), expect6('ok', FB, FB, NF, FB, NF)],
  ['re-suspend an operator-suspended key', (k, f, a) => k.keys.suspend(a, f.operatorSuspended, 'mine now'), expect6('ok', FB, FB, NF, FB, NF)],
  ['set a firm key allow-list', (k, f, a) => k.keys.setAllowList(a, f.key, ['203.0.113.0/24']), expect6('ok', 'ok', 'ok', NF, 'ok', NF)],
  ['set a firm key tier', (k, f, a) => k.keys.setTier(a, f.key, 'partner'), expect6('ok', FB, FB, NF, FB, NF)],
  ['create a partner-tier firm key', (k, f, a) => k.keys.create(a, { firmSlug: f.slug }, { mode: 'live', tier: 'partner' }), expect6('ok', FB, FB, FB, FB, FB)],
  ['create a firm for someone else', (k, f, a) => k.accounts.createFirm(a, { slug: uniqueSlug('new'), name: 'Nuevo', ownerEmail: f.email('x') }), expect6('ok', FB, FB, FB, FB, FB)],
  // Any signed-in person creates a firm of their own (and becomes its owner); the operator must name an owner.
  ['create a firm of one\'s own', (k, _f, a) => k.accounts.createFirm(a, { slug: uniqueSlug('new'), name: 'Nuevo' }), expect6('invalid_request', 'ok', 'ok', 'ok', 'ok', 'ok')],
];

for (const target of databaseTargets()) {
  describe(`firm permission matrix (${target.name})`, () => {
    let testDb: TestDatabase;
    let kit: AccessKit;
    before(async () => {
      testDb = await target.create();
      kit = accessKit(testDb.database);
    });
    after(async () => {
      await testDb.drop();
    });

    for (const [name, action, expected] of MATRIX) {
      it(name, async () => {
        const got: Record<string, string> = {};
        for (const actor of ACTORS) {
          const f = await fixture(kit);
          got[actor] = await outcome(action(kit, f, f.actors[actor]));
        }
        assert.deepEqual(got, expected);
      });
    }

    it('anyone may leave a firm (not the last owner); outsiders cannot "leave" it', async () => {
      const got: Record<string, string> = {};
      for (const who of ['owner', 'admin', 'member', 'keys-member', 'outsider'] as const) {
        const f = await fixture(kit);
        got[who] = await outcome(kit.accounts.removeMember(f.actors[who], f.slug, f.email(who)));
      }
      assert.deepEqual(got, { owner: 'ok', admin: 'ok', member: 'ok', 'keys-member': 'ok', outsider: NF });
    });

    it('can(): owners and admins hold every permission by role; members only what they were granted', async () => {
      const f = await fixture(kit);
      const firm = await kit.accounts.getFirm(OPERATOR, f.slug);
      const table: Record<string, boolean[]> = {};
      for (const actor of ACTORS) {
        table[actor] = await Promise.all(
          (['keys:manage', 'webhooks:manage', 'usage:read'] as const).map((p) => kit.accounts.can(f.actors[actor], firm.id, p)),
        );
      }
      assert.deepEqual(table, {
        operator: [true, true, true],
        owner: [true, true, true],
        admin: [true, true, true],
        member: [false, false, false],
        'keys-member': [true, false, false],
        outsider: [false, false, false],
      });
    });

    it('an allowed change has its effect, and a refused one none', async () => {
      const f = await fixture(kit);
      await kit.accounts.setRole(f.actors.owner, f.slug, f.email('member2'), 'admin');
      await assert.rejects(kit.accounts.removeMember(f.actors.admin, f.slug, f.email('member2')), { code: FB });
      const members = await kit.accounts.listMembers(OPERATOR, f.slug);
      const member2 = members.find((m) => m.email === f.email('member2'))!;
      // Promotion clears granted permissions: admins hold them all by role.
      assert.deepEqual({ role: member2.role, permissions: member2.permissions }, { role: 'admin', permissions: [] });
      assert.deepEqual(
        members.map((m) => m.role),
        ['owner', 'owner', 'admin', 'admin', 'admin', 'member', 'member'],
      );
    });
  });
}
