/**
 * `consulta users delete EMAIL` end to end, on both databases: the real command spawned against
 * the database a running app (this test's) serves. It goes through the same service as the
 * Account page: the account is anonymised, the confirmation email queued to the address, the
 * operator audit log has an entry naming the account by id only, and the running server stops
 * accepting the person's API key and AI app token once its caches lapse. Refusals (an operator, a
 * consultation not yet held) exit 1 naming each reason; an unknown address exits 1; usage errors 2.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, madridDate } from '../support/booking.ts';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';
import { makeOperator, signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connect, registerClient } from '../oauth/support.ts';
import { GOOD_CARD, hold } from '../payments/support.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));

function mcpCall(ctx: TestContext, bearer: string) {
  return ctx.app.fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: 'consulta.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${bearer}` },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
}

for (const target of databaseTargets()) {
  describe(`consulta users delete (CLI, ${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;

    before(async () => {
      // The command runs on the real clock: so does this app (a consultation "not yet held" is in the real future).
      ctx = await createTestContext(target, { now: new Date().toISOString() });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
      ctx.app.services.directoryCache.invalidate();
    });
    after(async () => ctx?.close());

    const cli = (...args: string[]): Promise<RunResult> => runConsulta(args, { ...BASE_ENV, DATABASE_URL: ctx.url, SITE_URL: SITE, LOG_LEVEL: 'silent' });
    const db = () => ctx.database.db;

    it('deletes through the same service: anonymised, confirmation queued, audited; the running server refuses the key and the token', async () => {
      const address = 'cli.deleted@example.com';
      const me = await signedIn(ctx, address);
      const clientId = await registerClient(ctx, { client_name: 'Shell Deleted Agent' });
      const tokens = await connect(ctx, me.client, { clientId, scope: 'directory:read' });
      const key = await ctx.app.services.keys.create({ type: 'operator' }, { ownerEmail: address }, { mode: 'live' });
      const keyed = () => ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/practice-areas', headers: { authorization: `Bearer ${key.token}` } });
      assert.equal((await keyed()).statusCode, 200);
      assert.equal((await mcpCall(ctx, tokens.access_token)).statusCode, 200);

      const out = jsonLine(await cli('users', 'delete', 'CLI.Deleted@Example.com', '--json'));
      assert.deepEqual(
        { ...out, deleted_at: typeof out.deleted_at, confirmation_mail_id: typeof out.confirmation_mail_id },
        {
          user_id: me.userId,
          email: address,
          deleted_at: 'string',
          sessions_ended: 1,
          apps_disconnected: 1,
          passkeys_deleted: 0,
          keys_revoked: 1,
          endpoints_disabled: 0,
          firms_left: [],
          holds_released: 0,
          mail_dropped: 0,
          mail_erased: 0,
          kept: { consultations: 0, payments: 0 },
          confirmation_mail_id: 'string',
        },
      );
      assert.equal((await db().selectFrom('users').select('email').where('id', '=', me.userId).executeTakeFirstOrThrow()).email, `deleted:${me.userId}`);
      const mail = await db().selectFrom('mail_outbox').selectAll().where('id', '=', out.confirmation_mail_id).executeTakeFirstOrThrow();
      assert.deepEqual([mail.recipient, mail.kind, mail.status], [address, 'account_deleted', 'local'], 'no SMTP_URL: kept in the local outbox');
      const audit = await db().selectFrom('operator_audit').selectAll().where('action', '=', 'user.delete').where('target_id', '=', me.userId).executeTakeFirstOrThrow();
      assert.deepEqual([audit.actor_type, audit.target_label], ['cli', null]);
      assert.equal(JSON.parse(audit.details).keys, 1);

      // Another process deleted it: this one's caches lapse on its own clock (1 s).
      ctx.clock.advance(1_001);
      assert.equal((await keyed()).statusCode, 401);
      assert.equal((await mcpCall(ctx, tokens.access_token)).statusCode, 401);
      assert.equal((await me.client.get('/account')).statusCode, 303, 'signed out');

      const again = await cli('users', 'delete', address, '--json');
      assert.equal(jsonLine(again, 1).error.code, 'not_found', 'the address has no account any more');
      const audits = await cli('operators', 'audit', '--json');
      assert.equal(jsonLine(audits).entries[0].action, 'user.delete');
    });

    it('prints what it did for a person', async () => {
      const address = 'cli.text@example.com';
      await signedIn(ctx, address);
      const text = await cli('users', 'delete', address);
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /^deleted the account of cli\.text@example\.com \(user [0-9a-f-]{36}\); the address can sign up again as a new account$/m);
      assert.match(text.stdout, /^ {2}ended: {4}1 session, 0 connected apps, 0 passkeys, 0 pending holds$/m);
      assert.match(text.stdout, /^ {2}emailed: {2}the confirmation to cli\.text@example\.com \(consulta mail show [0-9a-f-]{36}\)$/m);
    });

    it('refusals exit 1 with their reasons and change nothing', async () => {
      const operatorAddress = 'cli.operator@example.com';
      const operator = await signedIn(ctx, operatorAddress);
      await makeOperator(ctx.database, operator.userId);
      const refused = jsonLine(await cli('users', 'delete', operatorAddress, '--json'), 1);
      assert.deepEqual([refused.error.code, refused.error.reasons], ['conflict', ['operator']]);
      assert.match(refused.error.detail, /remove the operator rights first/);

      const bookedAddress = 'cli.booked@example.com';
      const booked = await signedIn(ctx, bookedAddress);
      const h = await hold(ctx, lawyerId, madridDate(Date.now(), 2), '10');
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, booked.userId, GOOD_CARD)).kind, 'confirmed');
      const human = await cli('users', 'delete', bookedAddress);
      assert.equal(human.code, 1);
      assert.match(human.stderr, /^consulta: The account cannot be deleted now: the person has consultations that have not ended; they must be cancelled first\. \(conflict\)$/m);
      for (const id of [operator.userId, booked.userId]) {
        assert.doesNotMatch((await db().selectFrom('users').select('email').where('id', '=', id).executeTakeFirstOrThrow()).email, /^deleted:/);
      }
      assert.equal((await db().selectFrom('operator_audit').select('id').where('action', '=', 'user.delete').where('target_id', 'in', [operator.userId, booked.userId]).execute()).length, 0, 'refusals are not audited');
    });

    it('unknown addresses exit 1, bad ones and usage errors 2', async () => {
      const unknown = await cli('users', 'delete', 'nobody.here@example.com', '--json');
      assert.equal(jsonLine(unknown, 1).error.code, 'not_found');
      const bad = await cli('users', 'delete', 'Ana <ana@example.com>', '--json');
      assert.equal(jsonLine(bad, 2).error.code, 'invalid_request');
      for (const args of [['users'], ['users', 'delete'], ['users', 'frobnicate', 'x@example.com'], ['users', 'delete', 'a@example.com', 'b@example.com'], ['users', 'delete', 'a@example.com', '--as', 'b@example.com']]) {
        const r = await cli(...args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout} ${r.stderr}`);
        assert.match(r.stderr, /^consulta: /, args.join(' '));
      }
      const help = await cli('--help');
      assert.match(help.stdout, /users delete EMAIL {10}delete a person's account at their request/);
    });
  });
}
