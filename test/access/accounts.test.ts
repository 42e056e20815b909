/**
 * AccountsService on every database: users, firms, memberships, last-owner protection (also under
 * concurrency), and the "creator leaves or changes role" notification — stored with the change,
 * emailed through a real SMTP listener, with the keys themselves untouched.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listNotificationsForUser } from '../../src/db/repositories/notification.repository.ts';
import { countOwners } from '../../src/db/repositories/account.repository.ts';
import { KEY_CREATOR_LEFT, KEY_CREATOR_ROLE_CHANGED } from '../../src/domain/access/accounts.service.ts';
import { keyStatus } from '../../src/domain/access/api-key.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { accessKit, OPERATOR, rejectsWith, startSmtp, uniqueSlug, type AccessKit, type SmtpListener } from './support.ts';

for (const target of databaseTargets()) {
  describe(`AccountsService (${target.name})`, () => {
    let testDb: TestDatabase;
    let kit: AccessKit;
    let smtp: SmtpListener;

    before(async () => {
      testDb = await target.create();
      smtp = await startSmtp({ reject: ['bounce@bufete-rebote.test'] });
      kit = accessKit(testDb.database, smtp.url);
    });
    after(async () => {
      await kit.mailer.close();
      await smtp.close();
      await testDb.drop();
    });

    const asUser = async (email: string): Promise<Actor> => ({ type: 'user', userId: (await kit.accounts.ensureUser(email)).id });

    describe('users', () => {
      it('ensureUser stores the address lower-cased, once, and fills a missing name', async () => {
        const a = await kit.accounts.ensureUser('  Marta.Gil@Example.COM ');
        assert.equal(a.email, 'marta.gil@example.com');
        assert.equal(a.name, null);
        const b = await kit.accounts.ensureUser('MARTA.GIL@example.com', 'Marta Gil');
        assert.equal(b.id, a.id);
        assert.equal(b.name, 'Marta Gil');
        const c = await kit.accounts.ensureUser('marta.gil@example.com', 'Someone Else');
        assert.equal(c.name, 'Marta Gil');
        assert.equal((await kit.accounts.findUserByEmail('Marta.Gil@example.com'))?.id, a.id);
      });

      it('concurrent ensureUser calls for one address create one user', async () => {
        const users = await Promise.all(Array.from({ length: 8 }, () => kit.accounts.ensureUser('race@example.com')));
        assert.equal(new Set(users.map((u) => u.id)).size, 1);
      });

      it('refuses what is not an email address', async () => {
        for (const bad of ['', 'no-at-sign', 'a@', '@b', 'a b@c.d', 'x'.repeat(250) + '@e.es']) {
          const err = await rejectsWith(kit.accounts.ensureUser(bad), 'invalid_request');
          assert.equal(err.errors?.[0]?.pointer, '/email');
        }
      });
    });

    describe('firms', () => {
      it('createFirm validates slug and name, and refuses a taken slug', async () => {
        const err = await rejectsWith(kit.accounts.createFirm(OPERATOR, { slug: 'Bad Slug', name: '', ownerEmail: 'nope' }), 'invalid_request');
        assert.deepEqual(err.errors?.map((e) => e.pointer), ['/slug', '/name', '/owner_email']);
        for (const slug of ['a', '-abc', 'abc-', 'a--b', 'ABC', 'á-b', 'x'.repeat(64)]) {
          await rejectsWith(kit.accounts.createFirm(OPERATOR, { slug, name: 'N', ownerEmail: 'o@example.com' }), 'invalid_request');
        }
        const slug = uniqueSlug();
        const { firm, owner } = await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Uno', ownerEmail: 'Owner@Example.com' });
        assert.equal(firm.slug, slug);
        assert.deepEqual({ email: owner.email, role: owner.role }, { email: 'owner@example.com', role: 'owner' });
        await rejectsWith(kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Dos', ownerEmail: 'x@example.com' }), 'conflict');
      });

      it('addMember refuses duplicates, unknown roles and permissions, and permissions for owners/admins', async () => {
        const slug = uniqueSlug();
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o@${slug}.test` });
        await kit.accounts.addMember(OPERATOR, slug, `m@${slug}.test`, 'member', ['keys:manage', 'keys:manage']);
        await rejectsWith(kit.accounts.addMember(OPERATOR, slug, `M@${slug}.test`, 'admin'), 'conflict');
        await rejectsWith(kit.accounts.addMember(OPERATOR, slug, `x@${slug}.test`, 'boss'), 'invalid_request');
        const err = await rejectsWith(kit.accounts.addMember(OPERATOR, slug, `x@${slug}.test`, 'member', ['usage:read', 'root']), 'invalid_request');
        assert.equal(err.errors?.[0]?.pointer, '/permissions/1');
        await rejectsWith(kit.accounts.addMember(OPERATOR, slug, `x@${slug}.test`, 'admin', ['keys:manage']), 'invalid_request');
        await rejectsWith(kit.accounts.setPermissions(OPERATOR, slug, `o@${slug}.test`, ['keys:manage']), 'invalid_request');
        await rejectsWith(kit.accounts.addMember(OPERATOR, 'no-such-firm', `x@${slug}.test`, 'member'), 'not_found');
        await rejectsWith(kit.accounts.removeMember(OPERATOR, slug, `nobody@${slug}.test`), 'not_found');
        const members = await kit.accounts.listMembers(OPERATOR, slug);
        assert.deepEqual(members.map((m) => [m.email, m.role, m.permissions]), [
          [`o@${slug}.test`, 'owner', []],
          [`m@${slug}.test`, 'member', ['keys:manage']],
        ]);
      });

      it('a demoted admin starts as a member without permissions', async () => {
        const slug = uniqueSlug();
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o@${slug}.test` });
        await kit.accounts.addMember(OPERATOR, slug, `a@${slug}.test`, 'member', ['keys:manage']);
        await kit.accounts.setRole(OPERATOR, slug, `a@${slug}.test`, 'admin');
        const { member } = await kit.accounts.setRole(OPERATOR, slug, `a@${slug}.test`, 'member');
        assert.deepEqual({ role: member?.role, permissions: member?.permissions }, { role: 'member', permissions: [] });
      });
    });

    describe('last-owner protection', () => {
      it('refuses removing or demoting the last owner, whoever asks, and changes nothing', async () => {
        const slug = uniqueSlug();
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o@${slug}.test` });
        const owner = await asUser(`o@${slug}.test`);
        await rejectsWith(kit.accounts.removeMember(owner, slug, `o@${slug}.test`), 'conflict');
        await rejectsWith(kit.accounts.setRole(owner, slug, `o@${slug}.test`, 'admin'), 'conflict');
        await rejectsWith(kit.accounts.removeMember(OPERATOR, slug, `o@${slug}.test`), 'conflict');
        await rejectsWith(kit.accounts.setRole(OPERATOR, slug, `o@${slug}.test`, 'member'), 'conflict');
        const members = await kit.accounts.listMembers(OPERATOR, slug);
        assert.deepEqual(members.map((m) => m.role), ['owner']);
      });

      it('with two owners, one may go; then the other is the last', async () => {
        const slug = uniqueSlug();
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o1@${slug}.test` });
        await kit.accounts.addMember(OPERATOR, slug, `o2@${slug}.test`, 'owner');
        const o1 = await asUser(`o1@${slug}.test`);
        await kit.accounts.setRole(o1, slug, `o1@${slug}.test`, 'admin');
        await rejectsWith(kit.accounts.removeMember(OPERATOR, slug, `o2@${slug}.test`), 'conflict');
      });

      it('two owners removing each other at the same time: exactly one succeeds', async () => {
        for (let round = 0; round < 5; round++) {
          const slug = uniqueSlug();
          await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o1@${slug}.test` });
          await kit.accounts.addMember(OPERATOR, slug, `o2@${slug}.test`, 'owner');
          const o1 = await asUser(`o1@${slug}.test`);
          const o2 = await asUser(`o2@${slug}.test`);
          const results = await Promise.allSettled([
            kit.accounts.removeMember(o1, slug, `o2@${slug}.test`),
            kit.accounts.removeMember(o2, slug, `o1@${slug}.test`),
          ]);
          assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(results));
          const firm = await kit.accounts.getFirm(OPERATOR, slug);
          assert.equal(await countOwners(testDb.database.db, firm.id), 1);
        }
      });
    });

    describe('when a key creator leaves or changes role', () => {
      it('the keys keep working and every other owner and admin gets a stored notification and an email', async () => {
        const slug = uniqueSlug('bufete-sol');
        const mail = (who: string) => `${who}@${slug}.test`;
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Sol', ownerEmail: mail('ana') });
        await kit.accounts.addMember(OPERATOR, slug, mail('bea'), 'admin');
        await kit.accounts.addMember(OPERATOR, slug, mail('carlos'), 'admin');
        await kit.accounts.addMember(OPERATOR, slug, mail('dani'), 'member', ['keys:manage']);
        await kit.accounts.addMember(OPERATOR, slug, mail('eva'), 'member');
        const ana = await asUser(mail('ana'));
        const dani = await asUser(mail('dani'));

        const k1 = await kit.keys.create(dani, { firmSlug: slug }, { mode: 'live', name: 'Zapier integration' });
        const k2 = await kit.keys.create(dani, { firmSlug: slug }, { mode: 'test' });
        await kit.keys.suspend(dani, k2.key.id, 'paused while testing');
        const k3 = await kit.keys.create(dani, { firmSlug: slug }, { mode: 'live', name: 'old' });
        await kit.keys.revoke(dani, k3.key.id);
        const k4 = await kit.keys.create(dani, { firmSlug: slug }, { mode: 'live', name: 'expiring', expiresAt: new Date(kit.clock.now().getTime() + 60_000).toISOString() });
        const personal = await kit.keys.create(dani, { ownerEmail: mail('dani') }, { mode: 'live', name: 'personal' });
        const byAna = await kit.keys.create(ana, { firmSlug: slug }, { mode: 'live', name: 'ana key' });
        kit.clock.advance(120_000); // k4 has expired
        const before1 = await kit.keys.findByToken(k1.token);
        const before2 = await kit.keys.findByToken(k2.token);
        const sentBefore = smtp.messages.length;

        const change = await kit.accounts.removeMember(ana, slug, mail('dani'));

        // Only the creator's live-or-suspended firm keys: not revoked, not expired, not personal, not others'.
        assert.deepEqual(change.keysToReview.map((k) => k.id).sort(), [k1.key.id, k2.key.id].sort());
        assert.deepEqual([...change.notified].sort(), [mail('ana'), mail('bea'), mail('carlos')]);

        // Keys unchanged and still found.
        assert.deepEqual(await kit.keys.findByToken(k1.token), before1);
        assert.deepEqual(await kit.keys.findByToken(k2.token), before2);
        assert.equal(keyStatus(before1!, kit.clock.now()), 'active');

        // Stored notifications for owners and admins other than the one leaving; none for members.
        for (const who of ['ana', 'bea', 'carlos']) {
          const user = (await kit.accounts.findUserByEmail(mail(who)))!;
          const [n, ...rest] = await listNotificationsForUser(testDb.database.db, user.id);
          assert.equal(rest.length, 0, who);
          assert.equal(n!.kind, KEY_CREATOR_LEFT);
          assert.ok(n!.emailed_at, `${who}: emailed_at set`);
          const data = JSON.parse(n!.data) as { email: string; event: string; keys: Array<{ id: string; prefix: string; name: string | null }> };
          assert.equal(data.email, mail('dani'));
          assert.equal(data.event, 'removed');
          assert.deepEqual(data.keys.map((k) => k.id).sort(), [k1.key.id, k2.key.id].sort());
        }
        for (const who of ['dani', 'eva']) {
          const user = (await kit.accounts.findUserByEmail(mail(who)))!;
          assert.equal((await listNotificationsForUser(testDb.database.db, user.id)).length, 0, who);
        }

        // Emails through the real SMTP listener.
        const messages = (await smtp.waitFor(sentBefore + 3)).slice(sentBefore);
        assert.equal(messages.length, 3);
        assert.deepEqual(messages.flatMap((m) => m.to).sort(), [mail('ana'), mail('bea'), mail('carlos')]);
        for (const m of messages) {
          assert.equal(m.from, 'no-reply@consulta.test');
          assert.equal(m.subject, `Bufete Sol: API keys created by ${mail('dani')} need review`);
          assert.match(m.text, new RegExp(`${mail('dani')} is no longer a member of Bufete Sol`));
          assert.ok(m.text.includes(`${k1.key.prefix}…  "Zapier integration"`), m.text);
          assert.ok(m.text.includes(`${k2.key.prefix}…  (no name)`), m.text);
          assert.ok(!m.text.includes(k3.key.prefix) && !m.text.includes(k4.key.prefix) && !m.text.includes(personal.key.prefix) && !m.text.includes(byAna.key.prefix));
          assert.match(m.text, /keep working/);
          assert.match(m.text, /replace them deliberately/);
          assert.ok(!m.text.includes(k1.token), 'never the secret');
        }
      });

      it('a role change notifies the other owners and admins, not the person whose role changed', async () => {
        const slug = uniqueSlug('bufete-luna');
        const mail = (who: string) => `${who}@${slug}.test`;
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Luna', ownerEmail: mail('ana') });
        await kit.accounts.addMember(OPERATOR, slug, mail('bea'), 'admin');
        await kit.accounts.addMember(OPERATOR, slug, mail('carlos'), 'admin');
        const bea = await asUser(mail('bea'));
        const key = await kit.keys.create(bea, { firmSlug: slug }, { mode: 'live', name: 'booking widget' });
        const before = await kit.keys.get(OPERATOR, key.key.id);
        const sentBefore = smtp.messages.length;

        const change = await kit.accounts.setRole(OPERATOR, slug, mail('bea'), 'member');
        assert.deepEqual([...change.notified].sort(), [mail('ana'), mail('carlos')]);
        assert.deepEqual(await kit.keys.get(OPERATOR, key.key.id), before);

        const messages = (await smtp.waitFor(sentBefore + 2)).slice(sentBefore);
        assert.deepEqual(messages.flatMap((m) => m.to).sort(), [mail('ana'), mail('carlos')]);
        assert.match(messages[0]!.text, /changed role in Bufete Luna .* from admin to member/);
        const ana = (await kit.accounts.findUserByEmail(mail('ana')))!;
        assert.equal((await listNotificationsForUser(testDb.database.db, ana.id))[0]!.kind, KEY_CREATOR_ROLE_CHANGED);

        // Setting the same role again is no change: nobody is notified twice.
        const again = await kit.accounts.setRole(OPERATOR, slug, mail('bea'), 'member');
        assert.deepEqual(again.notified, []);
      });

      it('without keys by the person, nothing is notified', async () => {
        const slug = uniqueSlug();
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o@${slug}.test` });
        await kit.accounts.addMember(OPERATOR, slug, `m@${slug}.test`, 'member');
        const change = await kit.accounts.removeMember(OPERATOR, slug, `m@${slug}.test`);
        assert.deepEqual(change, { member: null, keysToReview: [], notified: [] });
      });

      it('a refused change stores no notification', async () => {
        const slug = uniqueSlug();
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete', ownerEmail: `o@${slug}.test` });
        await kit.accounts.addMember(OPERATOR, slug, `a@${slug}.test`, 'admin');
        const owner = await asUser(`o@${slug}.test`);
        await kit.keys.create(owner, { firmSlug: slug }, { mode: 'live' });
        await rejectsWith(kit.accounts.removeMember(owner, slug, `o@${slug}.test`), 'conflict');
        const admin = (await kit.accounts.findUserByEmail(`a@${slug}.test`))!;
        assert.equal((await listNotificationsForUser(testDb.database.db, admin.id)).length, 0);
      });

      it('an SMTP failure is logged and keeps the notification and the change', async () => {
        const slug = 'bufete-rebote';
        const mail = (who: string) => `${who}@${slug}.test`;
        await kit.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Rebote', ownerEmail: mail('ana') });
        await kit.accounts.addMember(OPERATOR, slug, mail('bounce'), 'admin');
        await kit.accounts.addMember(OPERATOR, slug, mail('dani'), 'admin');
        const dani = await asUser(mail('dani'));
        await kit.keys.create(dani, { firmSlug: slug }, { mode: 'live' });
        const warningsBefore = kit.logger.entries.filter((e) => e.level === 'warn').length;

        const change = await kit.accounts.removeMember(OPERATOR, slug, mail('dani'));
        assert.deepEqual([...change.notified].sort(), [mail('ana'), mail('bounce')]);
        assert.deepEqual((await kit.accounts.listMembers(OPERATOR, slug)).map((m) => m.email).sort(), [mail('ana'), mail('bounce')]);

        const bounce = (await kit.accounts.findUserByEmail(mail('bounce')))!;
        const ana = (await kit.accounts.findUserByEmail(mail('ana')))!;
        const [failed] = await listNotificationsForUser(testDb.database.db, bounce.id);
        const [sent] = await listNotificationsForUser(testDb.database.db, ana.id);
        assert.equal(failed!.emailed_at, null);
        assert.ok(sent!.emailed_at);
        const warnings = kit.logger.entries.filter((e) => e.level === 'warn').slice(warningsBefore);
        assert.equal(warnings.length, 1);
        assert.equal((warnings[0]!.obj as { notification: string }).notification, failed!.id);
      });
    });
  });
}
