/**
 * What the authorization server answers the clients apps are built with, on both databases over
 * app.inject(): a Dynamic Client Registration asking for a client secret (the TypeScript SDK's
 * own OAuth example asks for client_secret_post) is registered as a public client and says so in
 * its answer; refresh tokens go only to apps that ask for offline_access, so an app without one
 * answers a 403 insufficient_scope by asking the person (step-up), not by refreshing into the
 * same levels. The SDK clients themselves run in test/e2e/mcp-clients.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { connect, REDIRECT_URI, token } from './support.ts';

const MCP = 'http://consulta.test/mcp';

for (const target of databaseTargets()) {
  describe(`OAuth public clients and refresh tokens (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target);
    });
    after(async () => ctx?.close());

    const register = (payload: Record<string, unknown>) =>
      ctx.app.fastify.inject({ method: 'POST', url: '/oauth/reg', headers: { 'content-type': 'application/json' }, payload: { redirect_uris: [REDIRECT_URI], ...payload } });

    for (const method of ['client_secret_post', 'client_secret_basic'] as const) {
      it(`registers a client asking for ${method} as a public client: the answer says "none" and holds no secret, and the client connects without one`, async () => {
        const res = await register({ client_name: `Secret ${method}`, token_endpoint_auth_method: method, grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'] });
        assert.equal(res.statusCode, 201, res.body);
        const answer = res.json() as Record<string, unknown>;
        assert.equal(answer.token_endpoint_auth_method, 'none', 'RFC 7591 §3.2.1: the server says which method it registered');
        assert.equal(answer.client_secret, undefined);
        assert.equal(answer.client_secret_expires_at, undefined);
        const clientId = String(answer.client_id);
        // Nothing secret was stored for it either.
        const row = await ctx.database.db.selectFrom('oauth_records').select('payload').where('model', '=', 'Client').where('id', '=', clientId).executeTakeFirstOrThrow();
        const stored = JSON.parse(row.payload) as Record<string, unknown>;
        assert.equal(stored.token_endpoint_auth_method, 'none');
        assert.equal(stored.client_secret, undefined);

        // It connects as any public client (PKCE, client_id only) and gets a refresh token with offline_access.
        const person = await signedIn(ctx, `secret-${method}@example.com`);
        const tokens = await connect(ctx, person.client, { clientId, scope: 'directory:read offline_access' });
        assert.equal(tokens.scope, 'directory:read');
        const refreshed = await token(ctx, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId, resource: MCP });
        assert.equal(refreshed.statusCode, 200, refreshed.body);
      });
    }

    it('still refuses every other client authentication method', async () => {
      for (const method of ['private_key_jwt', 'client_secret_jwt', 'tls_client_auth', 'made_up']) {
        const res = await register({ token_endpoint_auth_method: method });
        assert.equal(res.statusCode, 400, method);
        assert.equal(res.json().error, 'invalid_client_metadata', method);
      }
    });

    it('issues a refresh token only to an app that asks for offline_access', async () => {
      const res = await register({ client_name: 'Both kinds', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] });
      const clientId = String(res.json().client_id);
      const person = await signedIn(ctx, 'refresh@example.com');
      const without = await connect(ctx, person.client, { clientId, scope: 'directory:read' });
      assert.equal(without.refresh_token, undefined, 'no offline_access: no refresh token');
      assert.equal(without.scope, 'directory:read');
      // The step-up of an app without a refresh token: it asks the person, and gets the level.
      const stepUp = await connect(ctx, person.client, { clientId, scope: 'directory:read slots:hold' });
      assert.equal(stepUp.refresh_token, undefined);
      assert.deepEqual(stepUp.scope?.split(' ').sort(), ['directory:read', 'slots:hold']);
      const withOffline = await connect(ctx, person.client, { clientId, scope: 'directory:read slots:hold offline_access' });
      assert.ok(withOffline.refresh_token, 'offline_access: a refresh token');
      const refreshed = await token(ctx, { grant_type: 'refresh_token', refresh_token: withOffline.refresh_token!, client_id: clientId, resource: MCP });
      assert.equal(refreshed.statusCode, 200, refreshed.body);
      assert.ok((refreshed.json() as { refresh_token?: string }).refresh_token, 'rotated');
      // An app registered without the refresh_token grant gets none, offline_access or not.
      const codeOnly = String((await register({ client_name: 'Code only', grant_types: ['authorization_code'] })).json().client_id);
      const noGrant = await connect(ctx, person.client, { clientId: codeOnly, scope: 'directory:read offline_access' });
      assert.equal(noGrant.refresh_token, undefined);
    });
  });
}
