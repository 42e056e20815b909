/**
 * `consulta operators …` and `consulta lawyers …` end to end, on both databases: the real command
 * spawned against the database a running app (this test's) also serves. Operators added and
 * removed (then the console opens, or not), lawyers verified, unverified, listed and unlisted —
 * the serving app sees it within DIRECTORY_REFRESH_MS — and an audit entry named `cli` for every
 * change, none for a change that changes nothing; exit codes 0, 1 (not found), 2 (usage).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../src/domain/access/types.ts';
import { createTestContext, type TestContext } from './support/app.ts';
import { jsonLine, runConsulta, type RunResult } from './support/cli.ts';
import { databaseTargets } from './support/databases.ts';
import { signedIn } from './support/dashboard.ts';
import { insertLawyers, lawyerRecord } from './support/factories.ts';
import { givePasskey } from './support/operator.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));
const REFRESH_MS = 60_000;
const OPERATOR: Actor = { type: 'operator' };

for (const target of databaseTargets()) {
  describe(`consulta operators / lawyers (CLI, ${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;

    before(async () => {
      ctx = await createTestContext(target, { config: { directoryRefreshMs: REFRESH_MS } });
      lawyerId = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Carmen Línea de Órdenes' })]))[0]!;
      ctx.app.services.directoryCache.invalidate();
    });
    after(async () => ctx?.close());

    const cli = (...args: string[]): Promise<RunResult> => runConsulta(args, { ...BASE_ENV, DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' });
    const audit = () => ctx.database.db.selectFrom('operator_audit').selectAll().orderBy('id').execute();
    const inSearch = async () =>
      ((await ctx.app.fastify.inject({ url: '/api/v1/lawyers/search?city=madrid&limit=25' })).json().lawyers as Array<{ id: string }>).some((l) => l.id === lawyerId);
    const profile = async () => (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyerId}` })).statusCode;

    it('operators add: the person can open the console (after adding a passkey); audited once', async () => {
      const email = `Boss-${target.name}@Example.com`;
      const added = jsonLine(await cli('operators', 'add', email, '--json'));
      assert.equal(added.email, email.toLowerCase());
      assert.equal(added.added, true);
      const rows = await audit();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.action, 'operator.add');
      assert.equal(rows[0]!.actor_type, 'cli');
      assert.equal(rows[0]!.actor_email, null);
      assert.equal(rows[0]!.request_id, null);
      assert.deepEqual([rows[0]!.target_type, rows[0]!.target_id, rows[0]!.target_label], ['user', added.user_id, email.toLowerCase()]);

      // Adding again changes nothing and records nothing.
      const again = jsonLine(await cli('operators', 'add', email, '--json'));
      assert.equal(again.added, false);
      assert.equal((await audit()).length, 1);

      const boss = await signedIn(ctx, email, { steppedUp: true });
      await givePasskey(ctx.database, boss.userId, ctx.clock.now().toISOString());
      assert.equal((await boss.client.get('/operator')).statusCode, 200);

      const list = jsonLine(await cli('operators', 'list', '--json'));
      assert.ok(list.operators.some((o: { email: string }) => o.email === email.toLowerCase()));
    });

    it('operators remove: the console is a 404 at once; audited; removing a non-operator is exit 1', async () => {
      const email = `leaving-${target.name}@example.com`;
      jsonLine(await cli('operators', 'add', email, '--json'));
      const leaving = await signedIn(ctx, email);
      await givePasskey(ctx.database, leaving.userId, ctx.clock.now().toISOString());
      assert.equal((await leaving.client.get('/operator')).statusCode, 200);
      const removed = await cli('operators', 'remove', email);
      assert.equal(removed.code, 0, removed.stderr);
      assert.match(removed.stdout, /is no longer an operator/);
      assert.equal((await leaving.client.get('/operator')).statusCode, 404);
      assert.equal((await audit()).at(-1)!.action, 'operator.remove');

      const count = (await audit()).length;
      const notOne = await cli('operators', 'remove', email, '--json');
      assert.equal(jsonLine(notOne, 1).error.code, 'not_found');
      assert.equal((await audit()).length, count);
      assert.equal((await cli('operators', 'add', 'not-an-email')).code, 2);
      assert.equal((await cli('operators', 'promote', email)).code, 2);
      assert.equal((await cli('operators', 'add', email, '--as', email)).code, 2);
    });

    it('lawyers unverify/verify/unlist/list: the serving app follows within DIRECTORY_REFRESH_MS; each change audited', async () => {
      assert.ok(await inSearch(), 'public, and now cached by the app');
      const unverified = jsonLine(await cli('lawyers', 'unverify', lawyerId, '--json'));
      assert.deepEqual([unverified.verified, unverified.listed, unverified.public, unverified.changed], [false, true, false, true]);
      // Another process wrote it: the app's cached answer stands until its next refresh…
      assert.ok(await inSearch(), 'still cached within the refresh interval');
      ctx.clock.advance(REFRESH_MS);
      // …and then it is gone from search and profile.
      assert.equal(await inSearch(), false);
      assert.equal(await profile(), 404);

      const unchanged = jsonLine(await cli('lawyers', 'unverify', lawyerId, '--json'));
      assert.equal(unchanged.changed, false);

      // Giving the verification back lifts the suspension the withdrawal made (her record is in force).
      assert.equal((await cli('lawyers', 'reinstate', lawyerId)).code, 0);
      assert.equal(jsonLine(await cli('lawyers', 'unlist', lawyerId, '--json')).public, false);
      ctx.clock.advance(REFRESH_MS);
      assert.equal(await inSearch(), false);
      assert.equal(await profile(), 404);
      const listed = jsonLine(await cli('lawyers', 'list', lawyerId, '--json'));
      assert.equal(listed.public, true);
      ctx.clock.advance(REFRESH_MS);
      assert.ok(await inSearch());
      assert.equal(await profile(), 200);

      const rows = (await audit()).filter((r) => r.target_id === lawyerId);
      assert.deepEqual(rows.map((r) => r.action), ['lawyer.unverify', 'lawyer.reinstate', 'lawyer.unlist', 'lawyer.list']);
      assert.ok(rows.every((r) => r.actor_type === 'cli' && r.target_label === 'Carmen Línea de Órdenes'));

      const shown = jsonLine(await cli('lawyers', 'show', lawyerId, '--json'));
      assert.equal(shown.public, true);
      assert.deepEqual(shown.history.map((e: { action: string }) => e.action), ['lawyer.list', 'lawyer.unlist', 'lawyer.reinstate', 'lawyer.unverify']);
      assert.equal(shown.status, 'verified');
      const human = await cli('lawyers', 'show', lawyerId);
      assert.match(human.stdout, /public\s+yes/);
      // How she is named (issue 25 item 12): shown so whoever writes to her uses her form.
      assert.equal(shown.form_of_address, null);
      assert.match(human.stdout, /address\s+not given \(neutral wording\)/);
      await ctx.database.db.updateTable('lawyers').set({ form_of_address: 'female' }).where('id', '=', lawyerId).execute();
      assert.equal(jsonLine(await cli('lawyers', 'show', lawyerId, '--json')).form_of_address, 'female');
      assert.match((await cli('lawyers', 'show', lawyerId)).stdout, /address\s+abogada/);

      assert.equal(jsonLine(await cli('lawyers', 'verify', '00000000-0000-4000-8000-000000000000', '--note', 'census', '--json'), 1).error.code, 'not_found');
      assert.equal((await cli('lawyers', 'verify', 'nonsense', '--note', 'census')).code, 1);
      assert.equal((await cli('lawyers', 'verify', lawyerId)).code, 2, 'a verification needs a note of what was checked');
      assert.equal((await cli('lawyers', 'promote', lawyerId)).code, 2);
      assert.equal((await cli('lawyers', 'constructor', lawyerId)).code, 2);
      assert.equal((await cli('lawyers', 'verify')).code, 2);
    });

    it('keys set-tier and suspend from the command line are audited too; operators audit prints the log', async () => {
      const { key } = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: `cli-key-${target.name}@example.com` }, { mode: 'live' });
      assert.equal((await cli('keys', 'set-tier', key.id, 'partner', '--json')).code, 0);
      assert.equal((await cli('keys', 'suspend', key.id, '--reason', 'chargeback', '--json')).code, 0);
      const rows = (await audit()).filter((r) => r.target_id === key.id);
      assert.deepEqual(rows.map((r) => [r.action, r.actor_type]), [['key.set_tier', 'cli'], ['key.suspend', 'cli']]);
      assert.deepEqual(JSON.parse(rows[0]!.details), { from: 'free', to: 'partner' });

      const log = jsonLine(await cli('operators', 'audit', '--limit', '2', '--json'));
      assert.deepEqual(log.entries.map((e: { action: string }) => e.action), ['key.suspend', 'key.set_tier']);
      assert.deepEqual(log.entries[0].actor, { type: 'cli' });
      assert.equal(log.entries[0].details.reason, 'chargeback');
      assert.equal((await cli('operators', 'audit', '--limit', '0')).code, 2);
    });
  });
}
