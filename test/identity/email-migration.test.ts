/**
 * Migration 0020 rewrites stored addresses to the normal form sign-in and the CLI look up now
 * (issue 17), on both databases: Unicode and decomposed domains become A-labels, collisions keep
 * the account that already holds the normal form (else the oldest), and addresses the strict
 * rules refuse are left alone with their unfinished sign-ins ended.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import * as m0020 from '../../src/db/migrations/0020-email-normal-form.ts';
import { parseEmailAddress } from '../../src/domain/identity/email-address.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

for (const target of databaseTargets()) {
  describe(`migration 0020: email addresses in their normal form (${target.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await target.create();
    });
    after(async () => t?.drop());

    it('rewrites legacy spellings; on a collision the normal form stays with its holder, else with the oldest; refused forms stay and their sign-ins end', async () => {
      const db = t.database.db;
      const user = async (email: string, createdAt: string) => {
        const id = randomUUID();
        await db.insertInto('users').values({ id, email, name: null, created_at: createdAt, locale: null }).execute();
        return id;
      };
      // As 0002–0019 stored them: trimmed and lower-cased, nothing more.
      const holder = await user('cleo@xn--bcher-kva.de', '2026-02-01T00:00:00.000Z');
      const olderLegacy = await user('cleo@bücher.de', '2026-01-01T00:00:00.000Z');
      const dora1 = await user('dora@bücher.de', '2026-01-03T00:00:00.000Z');
      const dora2 = await user('dora@bu\u0308cher.de', '2026-01-02T00:00:00.000Z');
      const eve = await user('eve@exämple.com', '2026-01-01T00:00:00.000Z');
      const victim2 = await user('(1)victim@example.com', '2026-01-01T00:00:00.000Z');
      const plain = await user('ana@example.com', '2026-01-01T00:00:00.000Z');

      const firmId = randomUUID();
      await db.insertInto('firms').values({ id: firmId, slug: 'bufete', name: 'Bufete', created_at: '2026-01-01T00:00:00.000Z' }).execute();
      await db
        .insertInto('firm_invitations')
        .values({ id: randomUUID(), firm_id: firmId, email: 'fia@exämple.com', role: 'member', permissions: '[]', token_hash: 'a'.repeat(64), invited_by_user_id: null, locale: 'en', created_at: '2026-11-20T00:00:00.000Z', expires_at: '2026-12-20T00:00:00.000Z', accepted_at: null, accepted_by_user_id: null, revoked_at: null })
        .execute();
      const challenge = (email: string) => ({
        id: randomUUID(),
        email,
        code_hash: 'c'.repeat(64),
        link_hash: randomUUID(),
        browser_hash: 'b'.repeat(64),
        return_to: null,
        locale: 'en',
        attempts: 0,
        client_ip: '192.0.2.1',
        created_at: '2026-11-23T08:00:00.000Z',
        expires_at: '2026-11-23T08:10:00.000Z',
        consumed_at: null,
      });
      const goodChallenge = challenge('gil@exämple.com');
      const badChallenge = challenge('(2)victim@example.com');
      await db.insertInto('sign_in_challenges').values([goodChallenge, badChallenge]).execute();
      const mail = { kind: 'test', subject: 's', text: 't', html: null, attachments: '[]', sensitive: 0, status: 'sent', attempts: 1, next_attempt_at: null, locked_until: null, claim_token: null, last_error: null, created_at: '2026-11-23T08:00:00.000Z', sent_at: '2026-11-23T08:00:00.000Z', erased_at: null };
      const mailId = randomUUID();
      await db.insertInto('mail_outbox').values({ ...mail, id: mailId, recipient: 'eve@exämple.com' }).execute();
      const [lawyerId] = await insertLawyers(t.database, [lawyerRecord()]);
      await db.updateTable('lawyers').set({ contact_email: 'despacho@exämple.com' }).where('id', '=', lawyerId!).execute();

      await m0020.up(db);

      const emailOf = async (id: string) => (await db.selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email;
      assert.equal(await emailOf(holder), 'cleo@xn--bcher-kva.de', 'the account that already had the normal form keeps it');
      assert.equal(await emailOf(olderLegacy), 'cleo@bücher.de', 'a colliding legacy spelling is left as it was');
      assert.equal(await emailOf(dora2), 'dora@xn--bcher-kva.de', 'of two legacy spellings the oldest account takes the address');
      assert.equal(await emailOf(dora1), 'dora@bücher.de');
      assert.equal(await emailOf(eve), 'eve@xn--exmple-cua.com');
      assert.equal(await emailOf(victim2), '(1)victim@example.com', 'a refused form is not guessed at');
      assert.equal(await emailOf(plain), 'ana@example.com');

      assert.equal((await db.selectFrom('firm_invitations').select('email').executeTakeFirstOrThrow()).email, 'fia@xn--exmple-cua.com');
      const good = await db.selectFrom('sign_in_challenges').selectAll().where('id', '=', goodChallenge.id).executeTakeFirstOrThrow();
      assert.deepEqual([good.email, good.expires_at], ['gil@xn--exmple-cua.com', goodChallenge.expires_at]);
      const bad = await db.selectFrom('sign_in_challenges').selectAll().where('id', '=', badChallenge.id).executeTakeFirstOrThrow();
      assert.equal(bad.expires_at, bad.created_at, 'a sign-in that would make an unreachable account is ended');
      assert.equal((await db.selectFrom('mail_outbox').select('recipient').where('id', '=', mailId).executeTakeFirstOrThrow()).recipient, 'eve@xn--exmple-cua.com');
      assert.equal((await db.selectFrom('lawyers').select('contact_email').where('id', '=', lawyerId!).executeTakeFirstOrThrow()).contact_email, 'despacho@xn--exmple-cua.com');

      // What the migration wrote is what the application computes today.
      for (const { email } of await db.selectFrom('users').select('email').execute()) {
        const parsed = parseEmailAddress(email);
        if (parsed.ok) assert.ok(parsed.address === email || ['cleo@bücher.de', 'dora@bücher.de'].includes(email), email);
      }
      // Running it again changes nothing.
      const snapshot = JSON.stringify(await db.selectFrom('users').select(['id', 'email']).orderBy('id').execute());
      await m0020.up(db);
      assert.equal(JSON.stringify(await db.selectFrom('users').select(['id', 'email']).orderBy('id').execute()), snapshot);
    });
  });
}
