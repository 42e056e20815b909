/**
 * `consulta oauth clients|grants|revoke` end to end, on both databases: the real command spawned
 * against the database a running app (this test's) serves. Clients (registered, and metadata-
 * document ones a consent page showed) with their grant counts; grants with their person and
 * levels, narrowed by --user; revoke ends a grant: its refresh token is refused at once and its
 * access token on the next MCP call (past the serving process's 1 s token cache, on its clock).
 * Exit codes 0, 1 (not found), 2 (usage).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';
import { signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { connect, registerClient, token } from './support.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));
const MCP = `${SITE}/mcp`;

function mcpCall(ctx: TestContext, bearer: string) {
  return ctx.app.fastify.inject({
    method: 'POST',
    url: '/mcp',
    headers: { host: 'consulta.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25', authorization: `Bearer ${bearer}` },
    payload: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
  });
}

for (const target of databaseTargets()) {
  describe(`consulta oauth (CLI, ${target.name})`, () => {
    let ctx: TestContext;

    before(async () => {
      ctx = await createTestContext(target);
    });
    after(async () => ctx?.close());

    // The same SITE_URL (so MCP_URL, the resource whose levels are read) as the serving app.
    const cli = (...args: string[]): Promise<RunResult> => runConsulta(args, { ...BASE_ENV, DATABASE_URL: ctx.url, SITE_URL: SITE, LOG_LEVEL: 'silent' });

    it('lists clients with their grant counts, and grants with person and levels; --user narrows to one person', async () => {
      const alpha = await registerClient(ctx, { client_name: 'Alpha Agent' });
      const beta = await registerClient(ctx, { client_name: 'Beta Agent', redirect_uris: ['https://beta.example/cb'] });
      const ana = await signedIn(ctx, 'ana.cli@example.com');
      const luis = await signedIn(ctx, 'luis.cli@example.com');
      await connect(ctx, ana.client, { clientId: alpha, scope: 'slots:hold' });
      await connect(ctx, luis.client, { clientId: alpha, scope: 'directory:read' });
      // A metadata-document client as its consent page recorded it (its document is never stored).
      await ctx.app.services.connectedApps.recordClient({ clientId: 'https://gamma.example/client.json', clientName: 'Gamma Agent', kind: 'metadata', redirectHost: 'gamma.example' });

      const clients = jsonLine(await cli('oauth', 'clients', '--json')).clients as Array<Record<string, unknown>>;
      const byId = new Map(clients.map((c) => [c.client_id, c]));
      assert.deepEqual(byId.get(alpha), { client_id: alpha, client_name: 'Alpha Agent', kind: 'registered', redirect_hosts: ['127.0.0.1:8765'], since: ctx.clock.now().toISOString(), grants: 2 });
      assert.deepEqual([byId.get(beta)?.kind, byId.get(beta)?.redirect_hosts, byId.get(beta)?.grants], ['registered', ['beta.example'], 0]);
      assert.deepEqual([byId.get('https://gamma.example/client.json')?.kind, byId.get('https://gamma.example/client.json')?.client_name, byId.get('https://gamma.example/client.json')?.redirect_hosts], ['metadata', 'Gamma Agent', ['gamma.example']]);

      const all = jsonLine(await cli('oauth', 'grants', '--json')).grants as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
      const ofAlpha = all.filter((g) => g.client_id === alpha);
      assert.deepEqual(ofAlpha.map((g) => g.user.email).sort(), ['ana.cli@example.com', 'luis.cli@example.com']);
      const anas = jsonLine(await cli('oauth', 'grants', '--user', 'ANA.cli@example.com', '--json')).grants as Array<Record<string, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
      assert.equal(anas.length, 1);
      assert.deepEqual(
        [anas[0]!.user, anas[0]!.client_name, anas[0]!.kind, anas[0]!.redirect_host, anas[0]!.levels, anas[0]!.last_used_at],
        [{ id: ana.userId, email: 'ana.cli@example.com' }, 'Alpha Agent', 'registered', '127.0.0.1:8765', ['directory:read', 'slots:hold'], null],
      );
      // Prefixed: the authorization server's own ids may begin with '-', which a shell reads as an option.
      assert.match(anas[0]!.grant_id, /^grant_[A-Za-z0-9_-]{10,64}$/);

      const text = await cli('oauth', 'grants', '--user', 'luis.cli@example.com');
      assert.equal(text.code, 0, text.stderr);
      assert.match(text.stdout, /luis\.cli@example\.com {2}"Alpha Agent" {2}directory:read {2}granted /);
      assert.doesNotMatch(text.stdout, /ana\.cli/);

      const nobody = await cli('oauth', 'grants', '--user', 'nobody@example.com', '--json');
      assert.equal(jsonLine(nobody, 1).error.code, 'not_found');
    });

    it("grants show the levels the app's tokens carry (a higher level than asked included), whatever SITE_URL the command runs with", async () => {
      const clientId = await registerClient(ctx, { client_name: 'Levels Agent' });
      const person = await signedIn(ctx, 'levels.cli@example.com');
      const tokens = await connect(ctx, person.client, { clientId, scope: 'directory:read', answer: 'slots:hold' });
      assert.deepEqual(tokens.scope?.split(' ').sort(), ['directory:read', 'slots:hold']);
      // The operator's shell need not carry the server's SITE_URL (nor MCP_URL): the grant says which resource it is for.
      for (const siteUrl of [SITE, 'http://localhost:3000']) {
        const out = await runConsulta(['oauth', 'grants', '--user', 'levels.cli@example.com', '--json'], { ...BASE_ENV, DATABASE_URL: ctx.url, SITE_URL: siteUrl, LOG_LEVEL: 'silent' });
        const [grant] = jsonLine(out).grants as Array<{ levels: string[] }>;
        assert.deepEqual(grant?.levels, ['directory:read', 'slots:hold'], `SITE_URL=${siteUrl}`);
      }
    });

    it('oauth revoke GRANT_ID: the refresh token is refused at once, the access token on the next MCP call', async () => {
      const clientId = await registerClient(ctx, { client_name: 'Revoked From The Shell' });
      const person = await signedIn(ctx, 'revoke.cli@example.com');
      const tokens = await connect(ctx, person.client, { clientId, scope: 'directory:read offline_access' });
      assert.equal((await mcpCall(ctx, tokens.access_token)).statusCode, 200);
      const [grant] = jsonLine(await cli('oauth', 'grants', '--user', 'revoke.cli@example.com', '--json')).grants as Array<{ grant_id: string }>;
      assert.ok(grant);

      assert.deepEqual(jsonLine(await cli('oauth', 'revoke', grant.grant_id, '--json')), { grant_id: grant.grant_id, revoked: true });
      const refresh = await token(ctx, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId, resource: MCP });
      assert.equal(refresh.statusCode, 400);
      assert.equal(refresh.json().error, 'invalid_grant');
      // Another process revoked it: this one's 1 s token cache runs out on its own clock.
      ctx.clock.advance(1_001);
      const call = await mcpCall(ctx, tokens.access_token);
      assert.equal(call.statusCode, 401);
      assert.match(String(call.headers['www-authenticate']), /error="invalid_token"/);
      assert.deepEqual(await ctx.app.services.connectedApps.list(person.userId), []);
      assert.deepEqual(jsonLine(await cli('oauth', 'grants', '--user', 'revoke.cli@example.com', '--json')).grants, []);

      const again = await cli('oauth', 'revoke', grant.grant_id, '--json');
      assert.equal(jsonLine(again, 1).error.code, 'not_found');
      const human = await cli('oauth', 'revoke', grant.grant_id);
      assert.equal(human.code, 1);
      assert.match(human.stderr, /No grant with this id/);
    });

    it('a grant id whose stored part begins with "-" is read as an id, not an option', async () => {
      const dashed = await cli('oauth', 'revoke', 'grant_-pQ9xYzAbCdEfGh', '--json');
      assert.equal(dashed.code, 1, dashed.stderr);
      assert.equal(jsonLine(dashed, 1).error.code, 'not_found');
      const bare = await cli('oauth', 'revoke', 'pQ9xYzAbCdEfGh', '--json');
      assert.equal(jsonLine(bare, 1).error.code, 'not_found', 'an id without its prefix is unknown');
    });

    it('usage errors exit 2', async () => {
      for (const args of [['oauth'], ['oauth', 'revoke'], ['oauth', 'frobnicate'], ['oauth', 'clients', '--user', 'x@example.com'], ['oauth', 'grants', '--as', 'x@example.com']]) {
        const r = await cli(...args);
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout} ${r.stderr}`);
        assert.match(r.stderr, /^consulta: /, args.join(' '));
      }
      const help = await cli('--help');
      assert.match(help.stdout, /oauth clients \| oauth grants \[--user EMAIL\] \| oauth revoke GRANT_ID/);
    });
  });
}
