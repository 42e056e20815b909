/**
 * Webhook endpoint management on every database: registration (with the SSRF checks on the
 * target), listing, rotation, enable/disable, input validation, and object-level authorization
 * tried as attacks (other users, firm members without `webhooks:manage`, outsiders, ex-members).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ManualClock } from '../../src/clock.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { ROTATION_OVERLAP_MS } from '../../src/domain/webhooks/endpoints.service.ts';
import { rejectsWith } from '../access/support.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { endpointRow, OPERATOR, uniqueEmail, webhookKit, type WebhookKit } from './support.ts';

const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
  'internal.example.com': ['10.0.0.5'],
  'metadata.example.com': ['169.254.169.254'],
  'mixed.example.com': ['93.184.216.34', '192.168.1.20'],
  'v6-loopback.example.com': ['::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
};
const resolver = async (host: string): Promise<string[]> => {
  const found = DNS[host.toLowerCase()];
  if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

for (const target of databaseTargets()) {
  describe(`webhook endpoints (${target.name})`, () => {
    let db: TestDatabase;
    let kit: WebhookKit;
    let alice: Actor;
    let bob: Actor;
    let aliceEmail: string;
    const firm = { slug: '', owner: OPERATOR, admin: OPERATOR, member: OPERATOR, keysOnly: OPERATOR, hooksMember: OPERATOR };
    let hooksMemberEmail: string;

    const user = async (email: string): Promise<Actor> => ({ type: 'user', userId: (await kit.accounts.ensureUser(email)).id });

    before(async () => {
      db = await target.create();
      kit = webhookKit(db.database, { config: { webhookAllowInsecureTargets: false }, resolver });
      aliceEmail = uniqueEmail('alice');
      alice = await user(aliceEmail);
      bob = await user(uniqueEmail('bob'));
      firm.slug = `acme-${process.pid}-${target.name}`;
      const ownerEmail = uniqueEmail('olga');
      await kit.accounts.createFirm(OPERATOR, { slug: firm.slug, name: 'Acme Abogados', ownerEmail });
      firm.owner = await user(ownerEmail);
      const adminEmail = uniqueEmail('adam');
      await kit.accounts.addMember(OPERATOR, firm.slug, adminEmail, 'admin');
      firm.admin = await user(adminEmail);
      const memberEmail = uniqueEmail('mia');
      await kit.accounts.addMember(OPERATOR, firm.slug, memberEmail, 'member');
      firm.member = await user(memberEmail);
      const keysEmail = uniqueEmail('kim');
      await kit.accounts.addMember(OPERATOR, firm.slug, keysEmail, 'member', ['keys:manage', 'usage:read']);
      firm.keysOnly = await user(keysEmail);
      hooksMemberEmail = uniqueEmail('wes');
      await kit.accounts.addMember(OPERATOR, firm.slug, hooksMemberEmail, 'member', ['webhooks:manage']);
      firm.hooksMember = await user(hooksMemberEmail);
    });
    after(async () => {
      await kit.close();
      await db.drop();
    });

    it('registers a personal endpoint: whsec_ secret shown once, HTTPS URL normalised, all events by default', async () => {
      const { endpoint, secret } = await kit.service.create(alice, null, { url: 'https://HOOKS.example.com:443/consulta?src=1' });
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
      assert.match(endpoint.id, /^ep_[0-9a-f]{32}$/);
      assert.equal(endpoint.url, 'https://hooks.example.com/consulta?src=1');
      assert.deepEqual(endpoint.owner, { type: 'user', id: (alice as { userId: string }).userId, email: aliceEmail });
      assert.equal(endpoint.eventTypes, null);
      assert.equal(endpoint.enabled, true);
      assert.equal(endpoint.consecutiveFailures, 0);
      assert.ok(!JSON.stringify(endpoint).includes(secret), 'the endpoint record never carries the secret');
      const again = await kit.service.get(alice, endpoint.id);
      assert.ok(!JSON.stringify(again).includes('whsec_'));
      assert.equal((await endpointRow(db.database, endpoint.id)).secret, secret, 'stored so that the dispatcher can sign');
    });

    it('registers for a user (operator, --owner) with an event filter, and lists per owner', async () => {
      const { endpoint } = await kit.service.create(OPERATOR, { ownerEmail: aliceEmail.toUpperCase() }, { url: 'https://93.184.216.34/hook', eventTypes: ['booking_intent.expired', 'booking_intent.expired'] });
      assert.deepEqual(endpoint.eventTypes, ['booking_intent.expired']);
      const mine = await kit.service.list(alice);
      assert.ok(mine.some((e) => e.id === endpoint.id));
      assert.ok(mine.every((e) => e.owner.type === 'user' && e.owner.id === (alice as { userId: string }).userId));
      assert.deepEqual((await kit.service.list(OPERATOR, { ownerEmail: aliceEmail })).map((e) => e.id).sort(), mine.map((e) => e.id).sort());
      assert.deepEqual(await kit.service.list(OPERATOR, { ownerEmail: 'nobody@example.com' }), []);
      assert.ok((await kit.service.list(OPERATOR)).length >= mine.length);
      assert.deepEqual(await kit.service.list(bob), []);
    });

    describe('SSRF checks at registration (WEBHOOK_ALLOW_INSECURE_TARGETS off)', () => {
      const refused: Array<[string, RegExp]> = [
        ['http://hooks.example.com/hook', /must use https/],
        ['ftp://hooks.example.com/', /must use https/],
        ['https://127.0.0.1/', /loopback/],
        ['https://127.0.0.1:8443/admin', /loopback/],
        ['https://10.0.0.1/', /private/],
        ['https://172.16.5.4/', /private/],
        ['https://192.168.0.1/', /private/],
        ['https://169.254.169.254/latest/meta-data/', /metadata/],
        ['https://100.64.0.1/', /CGNAT/],
        ['https://224.0.0.1/', /multicast/],
        ['https://0.0.0.0/', /unspecified/],
        ['https://255.255.255.255/', /broadcast/],
        ['https://192.0.2.1/', /documentation/],
        ['https://198.18.0.1/', /benchmarking/],
        ['https://[::1]/', /loopback/],
        ['https://[::]/', /unspecified/],
        ['https://[fc00::1]/', /unique local/],
        ['https://[fd00:ec2::254]/', /unique local/],
        ['https://[fe80::1]/', /link-local/],
        ['https://[ff02::1]/', /multicast/],
        ['https://[::ffff:127.0.0.1]/', /IPv4-mapped.*loopback/],
        ['https://[::ffff:a9fe:a9fe]/', /IPv4-mapped.*metadata/],
        ['https://[64:ff9b::7f00:1]/', /NAT64.*loopback/],
        ['https://[2002:7f00:1::1]/', /6to4.*loopback/],
        // Odd IPv4 spellings: the WHATWG parser turns them into 127.0.0.1, which is then refused.
        ['https://2130706433/', /127\.0\.0\.1 is loopback/],
        ['https://0177.0.0.1/', /127\.0\.0\.1 is loopback/],
        ['https://0x7f.1/', /127\.0\.0\.1 is loopback/],
        ['https://127.1/', /127\.0\.0\.1 is loopback/],
        ['https://0x7f000001/', /127\.0\.0\.1 is loopback/],
        ['https://0xa9.0xfe.0xa9.0xfe/', /169\.254\.169\.254 is link-local/],
        ['https://localhost/', /names this machine/],
        ['https://api.localhost/', /names this machine/],
        ['https://internal.example.com/', /resolves to 10\.0\.0\.5 is private/],
        ['https://metadata.example.com/', /metadata/],
        ['https://mixed.example.com/', /192\.168\.1\.20 is private/],
        ['https://v6-loopback.example.com/', /::1 is loopback/],
        ['https://mapped.example.com/', /IPv4-mapped/],
        ['https://nx.example.com/', /could not resolve/],
        ['https://user:secret@hooks.example.com/', /credentials/],
        ['https://hooks.example.com/#frag', /fragment/],
        ['not a url', /absolute https URL/],
        [`https://hooks.example.com/${'a'.repeat(2100)}`, /at most 2048/],
      ];
      for (const [url, reason] of refused) {
        it(`refuses ${url.length > 60 ? `${url.slice(0, 60)}…` : url}`, async () => {
          const err = await rejectsWith(kit.service.create(alice, null, { url }), 'invalid_request');
          assert.equal(err.errors?.[0]?.pointer, '/url');
          assert.match(err.detail, reason);
        });
      }
      it('refuses a non-string URL with invalid_request, not a crash', async () => {
        await rejectsWith(kit.service.create(alice, null, { url: 42 as unknown as string }), 'invalid_request');
        await rejectsWith(kit.service.create(alice, null, undefined as unknown as { url: string }), 'invalid_request');
      });
    });

    it('rejects bad input with stable codes', async () => {
      const err = await rejectsWith(kit.service.create(alice, null, { url: 'https://hooks.example.com/', eventTypes: ['booking_intent.created', 'booking_intent.expired'] }), 'invalid_request');
      assert.deepEqual(err.errors?.map((e) => e.pointer), ['/event_types/0']);
      await rejectsWith(kit.service.create(alice, null, { url: 'https://hooks.example.com/', eventTypes: [] }), 'invalid_request');
      await rejectsWith(kit.service.create(alice, null, { url: 'https://hooks.example.com/', eventTypes: 'booking_intent.expired' as unknown as string[] }), 'invalid_request');
      await rejectsWith(kit.service.create(OPERATOR, null, { url: 'https://hooks.example.com/' }), 'invalid_request');
      await rejectsWith(kit.service.create(OPERATOR, { ownerEmail: 'not-an-email' }, { url: 'https://hooks.example.com/' }), 'invalid_request');
      await rejectsWith(kit.service.create(OPERATOR, { ownerEmail: 'ghost@example.com' }, { url: 'https://hooks.example.com/' }), 'not_found');
      await rejectsWith(kit.service.list(OPERATOR, { ownerEmail: aliceEmail, firmSlug: firm.slug }), 'invalid_request');
      const { endpoint } = await kit.service.create(alice, null, { url: 'https://hooks.example.com/' });
      for (const reason of ['', '   ', 'x'.repeat(501), 'line\nbreak', undefined as unknown as string]) await rejectsWith(kit.service.disable(alice, endpoint.id, reason), 'invalid_request');
      for (const limit of [0, 201, 1.5, Number.NaN]) await rejectsWith(kit.service.deliveries(alice, endpoint.id, limit), 'invalid_request');
      for (const id of ['', 'ep_', 'ep_xyz', '../etc', `${endpoint.id}x`, endpoint.id.toUpperCase(), 42 as unknown as string]) {
        await rejectsWith(kit.service.get(alice, id), 'not_found');
      }
    });

    it('rotates the secret: the previous one keeps signing for 24 hours', async () => {
      const created = await kit.service.create(alice, null, { url: 'https://hooks.example.com/rotate' });
      const rotated = await kit.service.rotateSecret(alice, created.endpoint.id);
      assert.notEqual(rotated.secret, created.secret);
      assert.match(rotated.secret, /^whsec_/);
      const now = (kit.clock as ManualClock).now().getTime();
      assert.equal(rotated.endpoint.previousSecretExpiresAt, new Date(now + ROTATION_OVERLAP_MS).toISOString());
      const row = await endpointRow(db.database, created.endpoint.id);
      assert.deepEqual([row.secret, row.previous_secret], [rotated.secret, created.secret]);
    });

    it('disables with a reason and enables again (idempotent enable, conflict on double disable)', async () => {
      const { endpoint } = await kit.service.create(alice, null, { url: 'https://hooks.example.com/toggle' });
      const disabled = await kit.service.disable(alice, endpoint.id, '  maintenance window  ');
      assert.equal(disabled.enabled, false);
      assert.deepEqual([disabled.disabled?.cause, disabled.disabled?.reason], ['manual', 'maintenance window']);
      await rejectsWith(kit.service.disable(alice, endpoint.id, 'again'), 'conflict');
      await rejectsWith(kit.service.sendTest(alice, endpoint.id), 'conflict');
      const enabled = await kit.service.enable(alice, endpoint.id);
      assert.deepEqual([enabled.enabled, enabled.disabled, enabled.consecutiveFailures], [true, null, 0]);
      assert.equal((await kit.service.enable(alice, endpoint.id)).enabled, true);
    });

    describe('object-level authorization (attacks)', () => {
      let aliceEndpoint = '';
      let aliceSecret = '';
      let firmEndpoint = '';

      before(async () => {
        const a = await kit.service.create(alice, null, { url: 'https://hooks.example.com/alice' });
        aliceEndpoint = a.endpoint.id;
        aliceSecret = a.secret;
        firmEndpoint = (await kit.service.create(firm.owner, { firmSlug: firm.slug }, { url: 'https://hooks.example.com/firm' })).endpoint.id;
      });

      // Thunks: each call starts only when awaited (no rejection is left unhandled meanwhile).
      const everyCall = (actor: Actor, id: string): Array<[string, () => Promise<unknown>]> => [
        ['get', () => kit.service.get(actor, id)],
        ['rotateSecret', () => kit.service.rotateSecret(actor, id)],
        ['disable', () => kit.service.disable(actor, id, 'hostile')],
        ['enable', () => kit.service.enable(actor, id)],
        ['sendTest', () => kit.service.sendTest(actor, id)],
        ['deliveries', () => kit.service.deliveries(actor, id)],
      ];

      it("another user cannot read, rotate, disable, enable, test or inspect someone's endpoint: not_found, as if it did not exist", async () => {
        for (const [name, call] of everyCall(bob, aliceEndpoint)) {
          const err = await rejectsWith(call(), 'not_found');
          assert.ok(!err.detail.includes(aliceEmail), `${name} must not reveal the owner`);
        }
        const row = await endpointRow(db.database, aliceEndpoint);
        assert.deepEqual([row.secret, row.disabled_at, row.previous_secret], [aliceSecret, null, null], 'nothing changed');
        assert.equal(await db.database.db.selectFrom('webhook_messages').select('id').where('endpoint_id', '=', aliceEndpoint).executeTakeFirst(), undefined, 'no test message was queued');
      });

      it('a user cannot register or list endpoints for someone else', async () => {
        await rejectsWith(kit.service.create(bob, { ownerEmail: aliceEmail }, { url: 'https://hooks.example.com/steal' }), 'forbidden');
        await rejectsWith(kit.service.list(bob, { ownerEmail: aliceEmail }), 'forbidden');
        assert.ok((await kit.service.list(alice)).every((e) => e.url !== 'https://hooks.example.com/steal'));
      });

      it('firm owners, admins and members granted webhooks:manage manage firm endpoints', async () => {
        for (const actor of [firm.owner, firm.admin, firm.hooksMember, OPERATOR]) {
          assert.equal((await kit.service.get(actor, firmEndpoint)).owner.type, 'firm');
          assert.ok((await kit.service.list(actor, { firmSlug: firm.slug })).some((e) => e.id === firmEndpoint));
          await kit.service.rotateSecret(actor, firmEndpoint);
        }
        const created = await kit.service.create(firm.hooksMember, { firmSlug: firm.slug }, { url: 'https://hooks.example.com/by-member' });
        assert.deepEqual(created.endpoint.owner, { type: 'firm', id: created.endpoint.owner.id, slug: firm.slug });
        await kit.service.disable(firm.admin, created.endpoint.id, 'admin pause');
        await kit.service.enable(firm.hooksMember, created.endpoint.id);
      });

      it('a firm member without webhooks:manage (even with keys:manage) gets forbidden on the firm and not_found on its endpoints', async () => {
        for (const actor of [firm.member, firm.keysOnly]) {
          await rejectsWith(kit.service.create(actor, { firmSlug: firm.slug }, { url: 'https://hooks.example.com/member' }), 'forbidden');
          await rejectsWith(kit.service.list(actor, { firmSlug: firm.slug }), 'forbidden');
          for (const [, call] of everyCall(actor, firmEndpoint)) await rejectsWith(call(), 'not_found');
          assert.deepEqual(await kit.service.list(actor), [], 'their own (personal) list does not include firm endpoints');
        }
      });

      it('outsiders learn nothing about a firm; personal and firm endpoints do not leak across', async () => {
        await rejectsWith(kit.service.create(bob, { firmSlug: firm.slug }, { url: 'https://hooks.example.com/outsider' }), 'not_found');
        await rejectsWith(kit.service.list(bob, { firmSlug: firm.slug }), 'not_found');
        await rejectsWith(kit.service.list(bob, { firmSlug: 'no-such-firm' }), 'not_found');
        for (const [, call] of everyCall(bob, firmEndpoint)) await rejectsWith(call(), 'not_found');
        for (const [, call] of everyCall(firm.owner, aliceEndpoint)) await rejectsWith(call(), 'not_found');
        for (const [, call] of everyCall(alice, firmEndpoint)) await rejectsWith(call(), 'not_found');
      });

      it('a member who leaves the firm loses access at once', async () => {
        assert.equal((await kit.service.get(firm.hooksMember, firmEndpoint)).id, firmEndpoint);
        await kit.accounts.removeMember(OPERATOR, firm.slug, hooksMemberEmail);
        for (const [, call] of everyCall(firm.hooksMember, firmEndpoint)) await rejectsWith(call(), 'not_found');
        await rejectsWith(kit.service.list(firm.hooksMember, { firmSlug: firm.slug }), 'not_found');
      });

      it('every refusal is a DomainError with a stable code', async () => {
        for (const [, call] of everyCall({ type: 'user', userId: 'not-a-user' }, aliceEndpoint)) {
          await assert.rejects(call(), (err: unknown) => err instanceof DomainError && err.code === 'not_found');
        }
      });
    });
  });
}
