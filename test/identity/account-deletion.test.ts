/**
 * Deleting an account (AccountDeletionService), on both databases, with a person who has
 * everything an account can have: every table's effect asserted (erased, anonymised, ended or
 * kept); the refusals (a consultation not yet ended, the only owner of a firm, a lawyer's account,
 * an operator), each changing nothing; a connected app's token fails on its next MCP call through
 * the official SDK client and its refresh token is refused; an API key answers 401; signing in
 * again with the same address makes a new, empty account; a session that is not recent cannot
 * delete until it signs in again or proves a passkey. And the guard: every table of the schema has
 * a decision in DELETION_DECISIONS.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { KEY_CREATOR_LEFT } from '../../src/domain/access/accounts.service.ts';
import {
  ACCOUNT_DELETED_KIND,
  AccountDeletionRefused,
  DELETION_DECISIONS,
  ReauthenticationRequired,
  type DeletionBlocker,
} from '../../src/domain/identity/account-deletion.service.ts';
import type { DomainError } from '../../src/domain/errors.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, madridDate } from '../support/booking.ts';
import { makeOperator, signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { mailedCode, signInMails } from '../support/http-browser.ts';
import { SiteClient } from '../support/site.ts';
import { connect, registerClient, token } from '../oauth/support.ts';
import { sdkClient } from '../mcp/support.ts';
import { GOOD_CARD, hold } from '../payments/support.ts';

const OPERATOR = { type: 'operator' as const };
const DAY = 86_400_000;
/** Schema bookkeeping that no person's data is ever in. */
const INTERNAL_TABLES = new Set(['kysely_migration', 'kysely_migration_lock', 'sqlite_sequence']);

function mcpCall(ctx: TestContext, bearer: string) {
  return ctx.app.fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: 'consulta.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${bearer}` },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
}

async function refused(promise: Promise<unknown>): Promise<DeletionBlocker[]> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AccountDeletionRefused) return err.blockers;
    throw err;
  }
  assert.fail('the deletion was not refused');
}

for (const target of databaseTargets()) {
  describe(`account deletion (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    let n = 0;

    before(async () => {
      // Days before the real now: the authorization server stamps its tokens' expiry with real time,
      // and the days this suite moves the clock on must stay before it.
      ctx = await createTestContext(target, { now: new Date(Date.now() - 20 * DAY).toISOString() });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
      ctx.app.services.directoryCache.invalidate();
    });
    after(async () => ctx?.close());

    const db = () => ctx.database.db;
    const services = () => ctx.app.services;
    const nowIso = () => ctx.clock.now().toISOString();
    const email = (name: string) => `${name}-${++n}@example.com`;
    /** A day in Madrid counted from the test clock's today. */
    const day = (plus: number) => madridDate(ctx.clock.now().getTime(), plus);

    /** A paid consultation of this person, `plus` days from today at `hour`. */
    async function paidConsultation(userId: string, plus: number, hour: string) {
      const h = await hold(ctx, lawyerId, day(plus), hour);
      const outcome = await services().payments.payWithCard(h.token, userId, GOOD_CARD);
      assert.equal(outcome.kind, 'confirmed', JSON.stringify(outcome));
      return h;
    }

    it('every table of the schema has a decision (a new table must say what deletion does to it)', async () => {
      const rows =
        target.name === 'sqlite'
          ? (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db())).rows
          : (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(db())).rows;
      const tables = rows.map((r) => r.name).filter((t) => !INTERNAL_TABLES.has(t)).sort();
      assert.deepEqual(tables, Object.keys(DELETION_DECISIONS).sort());
    });

    it('erases, anonymises, ends and keeps, table by table; the confirmation goes to the address before it is erased', async () => {
      const address = email('ana');
      const me = await signedIn(ctx, address);
      const userId = me.userId;
      await services().sessions.setLocale(userId, 'en');
      await db().updateTable('users').set({ name: 'Ana Pérez' }).where('id', '=', userId).execute();

      // A consultation paid and already held (its day passed): kept.
      const past = await paidConsultation(userId, 1, '10');
      ctx.clock.advance(3 * DAY);

      // What the account holds now.
      const current = await signedIn(ctx, address);
      const other = await services().sessions.create(userId, { ip: '198.51.100.7', userAgent: 'Firefox on the other laptop' });
      await services().signIn.start({ email: address, ip: '198.51.100.8', locale: 'en', returnTo: '/consultations' });
      await db().insertInto('passkey_user_handles').values({ user_id: userId, handle: randomUUID(), created_at: nowIso() }).execute();
      await db()
        .insertInto('passkeys')
        .values({ id: randomUUID(), user_id: userId, credential_id: randomUUID(), public_key: 'pk', counter: 0, transports: '[]', name: 'Phone', device_type: 'multiDevice', backed_up: 1, created_at: nowIso(), last_used_at: null })
        .execute();
      await db()
        .insertInto('passkey_challenges')
        .values({ id: randomUUID(), challenge: randomUUID(), purpose: 'step_up', session_id: current.sessionId, user_id: userId, created_at: nowIso(), expires_at: new Date(ctx.clock.now().getTime() + 300_000).toISOString(), consumed_at: null })
        .execute();
      const clientId = await registerClient(ctx, { client_name: 'Deleted Person Agent' });
      const tokens = await connect(ctx, current.client, { clientId, scope: 'directory:read offline_access' });
      const grantIds = (await db().selectFrom('oauth_records').select('id').where('model', '=', 'Grant').where('account_id', '=', userId).execute()).map((g) => g.id);
      assert.equal(grantIds.length, 1);

      const personal = await services().keys.create(OPERATOR, { ownerEmail: address }, { mode: 'live', name: 'Ana laptop', allowedIps: ['203.0.113.0/24'] });
      const firmOwner = await services().accounts.ensureUser(email('boss'));
      const firm = await services().accounts.createFirm(OPERATOR, { slug: `acme-${n}`, name: 'Acme Abogados', ownerEmail: firmOwner.email });
      await services().accounts.addMember(OPERATOR, firm.firm.slug, address, 'admin');
      const firmKey = await services().keys.create({ type: 'user', userId }, { firmSlug: firm.firm.slug }, { mode: 'live', name: 'Firm integration' });
      const usedKey = await ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/practice-areas', headers: { authorization: `Bearer ${personal.token}` }, remoteAddress: '203.0.113.20' });
      assert.equal(usedKey.statusCode, 200);
      await services().requestLog.flush();

      const endpointId = randomUUID();
      await db()
        .insertInto('webhook_endpoints')
        .values({ id: endpointId, owner_type: 'user', owner_id: userId, url: 'https://hooks.ana.example/consulta', event_types: null, secret: 'whsec_x', previous_secret: null, previous_secret_expires_at: null, disabled_at: null, disabled_cause: null, disabled_reason: null, consecutive_failures: 0, created_by_user_id: userId, created_at: nowIso(), updated_at: nowIso() })
        .execute();
      const messageId = `msg_${randomUUID().replaceAll('-', '')}`;
      await db()
        .insertInto('webhook_messages')
        .values({ id: messageId, endpoint_id: endpointId, event_id: 'evt_1', event_type: 'booking_intent.confirmed', payload: '{}', status: 'pending', attempts: 1, next_attempt_at: nowIso(), locked_until: null, claim_token: null, created_at: nowIso(), last_attempt_at: nowIso(), delivered_at: null })
        .execute();
      await db()
        .insertInto('notifications')
        .values({ id: randomUUID(), user_id: userId, firm_id: null, kind: 'webhook_endpoint_disabled', subject: 'to Ana', body: 'x', data: '{}', created_at: nowIso(), emailed_at: null })
        .execute();
      await db()
        .insertInto('firm_invitations')
        .values({ id: randomUUID(), firm_id: firm.firm.id, email: address, role: 'admin', permissions: '[]', token_hash: randomUUID(), invited_by_user_id: firmOwner.id, locale: 'en', created_at: nowIso(), expires_at: nowIso(), accepted_at: nowIso(), accepted_by_user_id: userId, revoked_at: null })
        .execute();
      await db()
        .insertInto('operator_audit')
        .values({ at: nowIso(), actor_type: 'cli', actor_user_id: null, actor_email: null, action: 'key.suspend', target_type: 'user', target_id: userId, target_label: address, details: '{}', request_id: null })
        .execute();
      // Mail: one waiting (dropped), the sign-in code and the receipt already out (erased).
      const [queuedMail] = await services().mail.enqueue(db(), [{ kind: 'test_waiting', to: address, subject: 'Waiting for you', text: 'not sent yet' }]);

      // Holds waiting for the person: one an AI app made for them, one they were paying. Someone else's stays.
      const agentHold = await services().booking.holdForUser({ userId, clientId, clientName: 'Deleted Person Agent' }, '203.0.113.9', { lawyer_id: lawyerId, date: day(1), start_time: '11:00:00', end_time: '12:00:00' });
      assert.equal(agentHold.kind, 'held');
      const agentIntent = (agentHold.kind === 'held' ? agentHold.response.booking_intent_id : null) ?? '';
      const paying = await hold(ctx, lawyerId, day(1), '12');
      await db()
        .insertInto('payment_attempts')
        .values({ id: randomUUID(), booking_intent_id: paying.id, user_id: userId, provider: 'demo', status: 'open', amount_cents: 6000, currency: 'EUR', checkout_ref: null, checkout_url: null, payment_ref: null, failure_code: null, created_at: nowIso(), updated_at: nowIso(), authorized_at: null, captured_at: null, voided_at: null })
        .execute();
      const someoneElses = await hold(ctx, lawyerId, day(1), '13');

      const report = await services().deletion.deleteOwnAccount({ userId, sessionId: current.sessionId, confirmation: address.toUpperCase(), locale: 'en' });
      const tombstone = `deleted:${userId}`;

      assert.deepEqual(
        { ...report, confirmationMailId: typeof report.confirmationMailId },
        {
          userId,
          deletedAt: nowIso(),
          sessions: 3,
          apps: 1,
          passkeys: 1,
          keys: 1,
          endpoints: 1,
          firms: [firm.firm.slug],
          holdsReleased: 2,
          mailDropped: 1,
          mailErased: 2,
          kept: { consultations: 1, payments: 2 },
          confirmationMailId: 'string',
        },
      );

      // users: anonymised, the row kept.
      assert.deepEqual(await db().selectFrom('users').select(['email', 'name', 'locale']).where('id', '=', userId).executeTakeFirst(), { email: tombstone, name: null, locale: null });
      // Erased.
      assert.equal((await db().selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).length, 0, 'sessions');
      assert.equal((await db().selectFrom('sessions').select('id').where('id', '=', other.id).execute()).length, 0, 'the other device too');
      assert.equal((await db().selectFrom('sign_in_challenges').select('id').where('email', '=', address).execute()).length, 0, 'sign-in codes');
      assert.equal((await db().selectFrom('passkeys').select('id').where('user_id', '=', userId).execute()).length, 0, 'passkeys');
      assert.equal((await db().selectFrom('passkey_user_handles').select('handle').where('user_id', '=', userId).execute()).length, 0, 'user handle');
      assert.equal((await db().selectFrom('passkey_challenges').select('id').where('user_id', '=', userId).execute()).length, 0, 'passkey challenges');
      assert.equal((await db().selectFrom('oauth_records').select('id').where('account_id', '=', userId).execute()).length, 0, 'oauth objects of the account');
      assert.equal((await db().selectFrom('oauth_records').select('id').where('grant_id', 'in', grantIds).execute()).length, 0, 'tokens of its grants');
      assert.equal((await db().selectFrom('notifications').select('id').where('user_id', '=', userId).execute()).length, 0, 'notifications to them');
      assert.equal((await db().selectFrom('firm_memberships').select('firm_id').where('user_id', '=', userId).execute()).length, 0, 'memberships');
      // Ended.
      const keyRow = await db().selectFrom('api_keys').selectAll().where('id', '=', personal.key.id).executeTakeFirstOrThrow();
      assert.deepEqual([keyRow.revoked_at, keyRow.name, keyRow.allowed_ips, keyRow.owner_user_id], [nowIso(), null, null, userId]);
      const firmKeyRow = await db().selectFrom('api_keys').selectAll().where('id', '=', firmKey.key.id).executeTakeFirstOrThrow();
      assert.deepEqual([firmKeyRow.revoked_at, firmKeyRow.name, firmKeyRow.created_by_user_id], [null, 'Firm integration', userId], 'a firm key the person created stays the firm\'s');
      const endpoint = await db().selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirstOrThrow();
      assert.deepEqual([endpoint.disabled_at, endpoint.disabled_cause], [nowIso(), 'manual']);
      assert.deepEqual(await db().selectFrom('webhook_messages').select(['status', 'next_attempt_at']).where('id', '=', messageId).executeTakeFirst(), { status: 'dead', next_attempt_at: null });
      const intents = await db().selectFrom('booking_intents').select(['id', 'status', 'client_ip']).where('id', 'in', [agentIntent, paying.id, someoneElses.id, past.id]).execute();
      const byId = new Map(intents.map((i) => [i.id, i]));
      assert.deepEqual(byId.get(agentIntent), { id: agentIntent, status: 'expired', client_ip: '' }, 'the AI app\'s hold for them ended');
      assert.equal(byId.get(paying.id)?.status, 'expired', 'the hold they were paying ended');
      assert.equal(byId.get(someoneElses.id)?.status, 'pending', 'someone else\'s hold is untouched');
      assert.deepEqual(byId.get(past.id), { id: past.id, status: 'confirmed', client_ip: '' }, 'the booking stays, without the address it was made from');
      const holds = await db().selectFrom('slot_holds').select(['start_time', 'status']).where('lawyer_id', '=', lawyerId).where('slot_date', '=', day(1)).orderBy('start_time').execute();
      assert.deepEqual(holds, [{ start_time: '13:00:00', status: 'held' }], 'their two slots are free again');
      // Kept.
      assert.deepEqual(await db().selectFrom('consultations').select(['user_id', 'booking_intent_id']).where('user_id', '=', userId).execute(), [{ user_id: userId, booking_intent_id: past.id }]);
      assert.equal((await db().selectFrom('payment_attempts').select('id').where('user_id', '=', userId).execute()).length, 2, 'payment records');
      assert.ok((await db().selectFrom('request_log').select('request_id').where('key_id', '=', personal.key.id).execute()).length >= 1, 'the request log keeps its window');
      assert.equal((await db().selectFrom('operator_audit').select('target_label').where('target_id', '=', userId).executeTakeFirstOrThrow()).target_label, address, 'the audit log as written');
      assert.equal(
        (await db().selectFrom('notifications').select('kind').where('user_id', '=', firmOwner.id).where('kind', '=', KEY_CREATOR_LEFT).execute()).length,
        1,
        'the firm\'s owner is told about the key the person created',
      );
      assert.equal((await db().selectFrom('firm_invitations').select('email').where('accepted_by_user_id', '=', userId).executeTakeFirstOrThrow()).email, tombstone);
      // Mail: the waiting one dropped, the sent ones erased, the confirmation queued to the address and kept locally.
      assert.equal(await db().selectFrom('mail_outbox').select('id').where('id', '=', queuedMail!).executeTakeFirst(), undefined);
      assert.deepEqual(
        (await db().selectFrom('mail_outbox').select(['kind', 'recipient', 'text', 'attachments']).where('recipient', '=', tombstone).orderBy('kind').execute()).map((m) => [m.kind, m.text, m.attachments]),
        [
          ['consultation_receipt', '', '[]'],
          ['sign_in', '', '[]'],
        ],
      );
      const toAddress = await db().selectFrom('mail_outbox').selectAll().where('recipient', '=', address).execute();
      assert.deepEqual(toAddress.map((m) => [m.id, m.kind, m.sensitive]), [[report.confirmationMailId, ACCOUNT_DELETED_KIND, 1]], 'the confirmation is the one mail left to the address');
      assert.equal(toAddress[0]!.subject, 'Your Consulta account has been deleted');
      assert.match(toAddress[0]!.text, new RegExp(`Your Consulta account \\(${address.replace('.', '\\.')}\\) was deleted on `));
      assert.match(toAddress[0]!.text, /your consultations \(1\) and payment records \(2\)/);
      assert.match(toAddress[0]!.text, /- your membership of acme-/);
      assert.doesNotMatch(toAddress[0]!.text, /Ana Pérez/);

      // The old cookie signs nobody in; the person is on no page.
      const page = await current.client.get('/account');
      assert.equal(page.statusCode, 303);
      assert.match(String(page.headers.location), /^\/sign-in\?return_to=/);
      // Deleting again: there is no such account.
      await assert.rejects(services().deletion.deleteByOperator(OPERATOR, address), (err: DomainError) => err.code === 'not_found');

      // The app's refresh token is refused at once.
      const refresh = await token(ctx, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId, resource: ctx.config.mcpUrl });
      assert.equal(refresh.statusCode, 400);
      assert.equal(refresh.json().error, 'invalid_grant');
    });

    it('a connected app fails on its next MCP call (the official SDK client) and an API key answers 401', async () => {
      const address = email('tokens');
      const me = await signedIn(ctx, address);
      const clientId = await registerClient(ctx, { client_name: 'Calls After Deletion' });
      const tokens = await connect(ctx, me.client, { clientId, scope: 'directory:read' });
      const key = await services().keys.create(OPERATOR, { ownerEmail: address }, { mode: 'live' });
      const sdk = await sdkClient(ctx, tokens.access_token);
      assert.ok((await sdk.listTools()).tools.length > 0, 'the app works before');
      const keyed = () => ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/practice-areas', headers: { authorization: `Bearer ${key.token}` } });
      assert.equal((await keyed()).statusCode, 200, 'the key works before (and is cached)');

      await services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: address });

      // No waiting for caches: this process forgot the key and the grant when the deletion committed.
      await assert.rejects(sdk.listTools(), 'the connected SDK client is refused on its next call');
      await assert.rejects(sdkClient(ctx, tokens.access_token), 'and cannot connect again');
      const raw = await mcpCall(ctx, tokens.access_token);
      assert.equal(raw.statusCode, 401);
      assert.match(String(raw.headers['www-authenticate']), /error="invalid_token"/);
      const after = await keyed();
      assert.equal(after.statusCode, 401);
      assert.equal(after.json().code, 'invalid_api_key');
    });

    it('signing in again with the same address makes a new, empty account', async () => {
      const address = email('again');
      const me = await signedIn(ctx, address);
      await paidConsultation(me.userId, 1, '09');
      ctx.clock.advance(2 * DAY);
      const fresh = await signedIn(ctx, address);
      await services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: fresh.sessionId, confirmation: address });

      const browser = new SiteClient(ctx.app.fastify, new URL(ctx.config.siteUrl).origin, { 'accept-language': 'en' });
      await browser.get('/sign-in');
      const known = await signInMails(ctx.database, address);
      assert.equal((await browser.post('/sign-in', { email: address })).statusCode, 303);
      const done = await browser.post('/sign-in/code', { code: await mailedCode(ctx.database, address, known) });
      assert.equal(done.statusCode, 303);
      const again = await db().selectFrom('users').selectAll().where('email', '=', address).executeTakeFirstOrThrow();
      assert.notEqual(again.id, me.userId, 'a new account');
      assert.equal(again.name, null);
      const mine = await browser.get('/consultations');
      assert.equal(mine.statusCode, 200);
      assert.match(mine.body, /You have no consultations yet/);
      assert.equal((await db().selectFrom('consultations').select('id').where('user_id', '=', again.id).execute()).length, 0);
      assert.equal((await db().selectFrom('consultations').select('id').where('user_id', '=', me.userId).execute()).length, 1, 'the old booking record stays with the old, anonymised account');
    });

    it('refuses while a consultation has not ended, and changes nothing', async () => {
      const address = email('upcoming');
      const me = await signedIn(ctx, address);
      await paidConsultation(me.userId, 1, '10');
      const keep = await signedIn(ctx, address);
      const before = await db().selectFrom('users').selectAll().where('id', '=', me.userId).executeTakeFirstOrThrow();
      const blockers = await refused(services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: keep.sessionId, confirmation: address }));
      assert.deepEqual(blockers.map((b) => b.kind), ['upcoming_consultations']);
      assert.equal(blockers[0]!.kind === 'upcoming_consultations' && blockers[0]!.consultations.length, 1);
      assert.deepEqual(await db().selectFrom('users').selectAll().where('id', '=', me.userId).executeTakeFirstOrThrow(), before);
      assert.equal((await db().selectFrom('sessions').select('id').where('user_id', '=', me.userId).where('revoked_at', 'is', null).execute()).length, 2, 'still signed in');
      // The preview says so before anything is tried.
      assert.deepEqual((await services().deletion.preview(me.userId, keep.sessionId)).blockers.map((b) => b.kind), ['upcoming_consultations']);
      // Once it has ended, the account can go (a fresh sign-in, after the consultation).
      ctx.clock.advance(2 * DAY);
      const later = await signedIn(ctx, address);
      assert.deepEqual((await services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: later.sessionId, confirmation: address })).kept.consultations, 1);
    });

    it("refuses a firm's only owner; with another owner, leaves the firm", async () => {
      const address = email('owner');
      const me = await signedIn(ctx, address);
      const firm = await services().accounts.createFirm({ type: 'user', userId: me.userId }, { slug: `solo-${n}`, name: 'Solo Legal' });
      const blockers = await refused(services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: address }));
      assert.deepEqual(blockers, [{ kind: 'last_owner', firms: [{ id: firm.firm.id, slug: firm.firm.slug, name: 'Solo Legal', createdAt: firm.firm.createdAt }] }]);
      assert.deepEqual(
        await db().selectFrom('firm_memberships').select(['role']).where('user_id', '=', me.userId).execute(),
        [{ role: 'owner' }],
        'still the owner',
      );
      const partner = email('partner');
      await services().accounts.addMember({ type: 'user', userId: me.userId }, firm.firm.slug, partner, 'owner');
      const report = await services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: address });
      assert.deepEqual(report.firms, [firm.firm.slug]);
      assert.deepEqual((await services().accounts.listMembers(OPERATOR, firm.firm.slug)).map((m) => [m.email, m.role]), [[partner, 'owner']]);
    });

    it("refuses a lawyer's account (a user linked to a lawyer record) and an operator's", async () => {
      // lawyers.user_id comes with the lawyers' side (its migration); on a schema without it, the test adds the column.
      const column =
        target.name === 'sqlite'
          ? await sql`select name from pragma_table_info('lawyers') where name = 'user_id'`.execute(db())
          : await sql`select column_name from information_schema.columns where table_schema = current_schema() and table_name = 'lawyers' and column_name = 'user_id'`.execute(db());
      if (column.rows.length === 0) await sql`alter table lawyers add column user_id text`.execute(db());
      const lawyerAddress = email('lawyer');
      const lawyer = await signedIn(ctx, lawyerAddress);
      const [linked] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Marta Linked' })])) as [string];
      await sql`update lawyers set user_id = ${lawyer.userId} where id = ${linked}`.execute(db());
      assert.deepEqual(await refused(services().deletion.deleteOwnAccount({ userId: lawyer.userId, sessionId: lawyer.sessionId, confirmation: lawyerAddress })), [{ kind: 'lawyer', lawyerId: linked }]);
      assert.equal((await db().selectFrom('users').select('email').where('id', '=', lawyer.userId).executeTakeFirstOrThrow()).email, lawyerAddress);

      const operatorAddress = email('operator');
      const operator = await signedIn(ctx, operatorAddress);
      await makeOperator(ctx.database, operator.userId, nowIso());
      assert.deepEqual(await refused(services().deletion.deleteByOperator(OPERATOR, operatorAddress)), [{ kind: 'operator' }]);
      assert.equal((await db().selectFrom('sessions').select('id').where('user_id', '=', operator.userId).execute()).length, 1);
    });

    it('a session that signed in more than 10 minutes ago cannot delete; a new sign-in or a passkey proof can', async () => {
      const address = email('stale');
      const me = await signedIn(ctx, address);
      ctx.clock.advance(10 * 60_000);
      await assert.rejects(services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: address }), ReauthenticationRequired);
      assert.equal((await services().deletion.preview(me.userId, me.sessionId)).fresh, false);
      assert.equal((await db().selectFrom('users').select('email').where('id', '=', me.userId).executeTakeFirstOrThrow()).email, address, 'nothing changed');
      // Someone else's session, however fresh, is not this person's.
      const other = await signedIn(ctx, email('other'));
      await assert.rejects(services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: other.sessionId, confirmation: address }), ReauthenticationRequired);
      // The wrong address, from a fresh session: refused, field named.
      await services().sessions.markSteppedUp(me.sessionId);
      assert.equal((await services().deletion.preview(me.userId, me.sessionId)).fresh, true, 'a passkey proof makes it recent');
      await assert.rejects(services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: 'someone@example.com' }), (err: DomainError) => err.code === 'invalid_request' && err.errors?.[0]?.pointer === '/confirm_email');
      await assert.rejects(services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: '(1)not an address' }), (err: DomainError) => err.code === 'invalid_request');
      const report = await services().deletion.deleteOwnAccount({ userId: me.userId, sessionId: me.sessionId, confirmation: ` ${address} ` });
      assert.equal(report.userId, me.userId);
    });

    it('the confirmation is written in the account\'s language when the operator deletes (the page passes its own)', async () => {
      const address = email('idioma');
      const me = await signedIn(ctx, address);
      await services().sessions.setLocale(me.userId, 'es');
      const report = await services().deletion.deleteByOperator(OPERATOR, address.toUpperCase());
      const mail = await db().selectFrom('mail_outbox').selectAll().where('id', '=', report.confirmationMailId).executeTakeFirstOrThrow();
      assert.equal(mail.subject, 'Se ha borrado tu cuenta de Consulta');
      assert.match(mail.text, /Esta dirección queda libre/);
      const audit = await db().selectFrom('operator_audit').selectAll().where('action', '=', 'user.delete').where('target_id', '=', me.userId).executeTakeFirstOrThrow();
      assert.deepEqual([audit.actor_type, audit.target_type, audit.target_label], ['cli', 'user', null], 'audited, naming the account by id only');
      assert.doesNotMatch(audit.details, /@/);
      await assert.rejects(services().deletion.deleteByOperator({ type: 'user', userId: me.userId }, address), (err: DomainError) => err.code === 'forbidden');
    });
  });
}
