/**
 * Client ID Metadata Documents on both databases: an app whose client_id is an HTTPS URL, its
 * document served by a real HTTPS host on loopback (the webhook tests' TLS fixture, trusted
 * through a private CA; the host name resolved by the test and 127.0.0.1 let through by a
 * narrowed address policy, the test override), goes through authorize → consent → token and
 * calls the MCP server; the consent page marks it unverified and shows its redirect host. With
 * the override off (the production address policy), a document URL resolving to a loopback,
 * private or metadata address is refused before any connection is made.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { refusalReason } from '../../src/domain/webhooks/address-policy.ts';
import { safeFetch, type OutboundOptions } from '../../src/oauth/safe-fetch.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { pageText } from '../support/site.ts';
import { sdkClient } from '../mcp/support.ts';
import { authorize, pkce, token } from './support.ts';

const FIXTURES = new URL('../webhooks/fixtures/', import.meta.url);
const CERT = fs.readFileSync(new URL('receiver.crt', FIXTURES), 'utf8');
const KEY = fs.readFileSync(new URL('receiver.key', FIXTURES), 'utf8');
/** The fixture certificate's only name; it exists in no real DNS, only in the tests' resolver. */
const HOST = 'hooks.example.test';
const APP_REDIRECT = 'https://agent.example.test/callback';
const USERINFO_REDIRECT = 'https://agent:secret@agent.example.test/callback';
const MCP = 'http://consulta.test/mcp';

interface DocumentHost {
  port: number;
  requests: Array<{ path: string; accept: string | undefined }>;
  close(): Promise<void>;
}

/** An HTTPS server publishing the app's metadata document at /agent/client.json. */
async function startDocumentHost(): Promise<DocumentHost> {
  const requests: DocumentHost['requests'] = [];
  let port = 0;
  const server = https.createServer({ key: KEY, cert: CERT }, (req, res) => {
    requests.push({ path: req.url ?? '', accept: req.headers.accept });
    // The app's document, one whose redirect URI carries user information (refused like a
    // registration's), and one naming a client secret method.
    const redirect = { '/agent/client.json': APP_REDIRECT, '/agent/secret.json': APP_REDIRECT, '/agent/userinfo.json': USERINFO_REDIRECT }[req.url ?? ''];
    if (!redirect) {
      res.writeHead(404).end();
      return;
    }
    const clientId = `https://${HOST}:${port}${req.url}`;
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=300' });
    res.end(
      JSON.stringify({
        client_id: clientId,
        client_name: 'Metadata <b>Agent</b>',
        client_uri: 'https://agent.example.test/',
        redirect_uris: [redirect],
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        // The second document names a client secret method, which a public document cannot hold.
        token_endpoint_auth_method: req.url === '/agent/secret.json' ? 'client_secret_post' : 'none',
        scope: 'directory:read offline_access',
      }),
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
  return { port, requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** The tests' DNS: every name below resolves where the test says (nothing reaches real DNS). */
const RESOLVED: Record<string, string[]> = {
  [HOST]: ['127.0.0.1'],
  'private.example.test': ['10.20.30.40'],
  'metadata.example.test': ['169.254.169.254'],
  'mixed.example.test': ['93.184.216.34', '192.168.1.5'],
};
const resolver = async (hostname: string): Promise<string[]> => {
  const found = RESOLVED[hostname];
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return found;
};

for (const target of databaseTargets()) {
  describe(`Client ID Metadata Documents (${target.name})`, () => {
    let host: DocumentHost;
    let ctx: TestContext;
    let strict: TestContext;
    let clientId: string;
    /** What the production address policy said in the strict app (observed, not changed). */
    const verdicts: Array<[string, string | null]> = [];

    before(async () => {
      host = await startDocumentHost();
      clientId = `https://${HOST}:${host.port}/agent/client.json`;
      // The test override: 127.0.0.1 (the document host) alone is let through the address policy.
      const override: OutboundOptions = { resolver, tls: { ca: CERT }, policy: (address) => (address === '127.0.0.1' ? null : `${address} is not the test host`) };
      ctx = await createTestContext(target, { oauthOutbound: override });
      // The override off: the production address policy, the same resolver and CA.
      const observed = (address: string) => {
        const verdict = refusalReason(address);
        verdicts.push([address, verdict]);
        return verdict;
      };
      strict = await createTestContext(target, { oauthOutbound: { resolver, tls: { ca: CERT }, policy: observed } });
    });
    after(async () => {
      await ctx?.close();
      await strict?.close();
      await host?.close();
    });

    it('an HTTPS client_id authorizes: the consent page marks it unverified with its redirect host, and its token calls the MCP server', async () => {
      const person = await signedIn(ctx, 'cimd@example.com');
      const { redirect, consentPage, verifier } = await authorize(ctx, person.client, { clientId, scope: 'directory:read offline_access', redirectUri: APP_REDIRECT });
      assert.ok(consentPage, 'a consent page was shown');
      const text = pageText(consentPage.body);
      assert.ok(!consentPage.body.includes('<b>Agent</b>'), 'the self-declared name is escaped');
      assert.ok(text.includes('Metadata <b>Agent</b> is asking to use Consulta on your behalf.'), text);
      assert.match(text, /Unverified/);
      assert.match(text, /When you answer, you go back to agent\.example\.test\b/);
      assert.doesNotMatch(text, /own computer/, 'an HTTPS redirect is no loopback');
      assert.match(String(consentPage.headers['content-security-policy']), /form-action [^;]*https:\/\/agent\.example\.test/);

      assert.equal(`${redirect.origin}${redirect.pathname}`, APP_REDIRECT);
      assert.equal(redirect.searchParams.get('iss'), 'http://consulta.test/oauth');
      const exchanged = await token(ctx, { grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, redirect_uri: APP_REDIRECT, client_id: clientId, code_verifier: verifier, resource: MCP });
      assert.equal(exchanged.statusCode, 200, exchanged.body);
      const tokens = exchanged.json() as { access_token: string; refresh_token?: string; scope: string };
      assert.equal(tokens.scope, 'directory:read');
      assert.ok(tokens.refresh_token);

      const client = await sdkClient(ctx, tokens.access_token);
      try {
        const { tools } = await client.listTools();
        assert.equal(tools.length, 15);
        const account = (await client.callTool({ name: 'get_my_account', arguments: {} })).structuredContent as { app: { name: string }; levels: string[] };
        assert.deepEqual([account.app.name, account.levels], ['Metadata <b>Agent</b>', ['directory:read']]);
      } finally {
        await client.close();
      }

      // Fetched over HTTPS, asking for JSON, once: the document is cached (max-age 300 s).
      assert.deepEqual(host.requests, [{ path: '/agent/client.json', accept: 'application/json' }]);
      const [app] = await ctx.app.services.connectedApps.list(person.userId);
      assert.deepEqual([app?.clientId, app?.kind, app?.redirectHost], [clientId, 'metadata', 'agent.example.test']);
      // Nothing about the app is stored as a registered client: the URL is its identity.
      const stored = await ctx.database.db.selectFrom('oauth_records').select('id').where('model', '=', 'Client').where('id', '=', clientId).executeTakeFirst();
      assert.equal(stored, undefined);
    });

    it('a document naming a client secret method is refused (only Dynamic Client Registration turns one into a public client)', async () => {
      const person = await signedIn(ctx, 'cimd-secret@example.com');
      const secretId = `https://${HOST}:${host.port}/agent/secret.json`;
      const params = new URLSearchParams({ client_id: secretId, redirect_uri: APP_REDIRECT, response_type: 'code', scope: 'directory:read', state: 's', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: MCP });
      const res = await person.client.get(`/oauth/auth?${params}`, { accept: 'application/json' });
      assert.equal(res.statusCode, 400, res.body);
      assert.match(res.body, /invalid_client/);
      assert.ok(host.requests.some((r) => r.path === '/agent/secret.json'), 'the document was fetched');
    });

    it('a document whose redirect URI carries user information is refused as a registration would be (invalid_redirect_uri); nothing reaches the app', async () => {
      const person = await signedIn(ctx, 'cimd-userinfo@example.com');
      const documentUrl = `https://${HOST}:${host.port}/agent/userinfo.json`;
      const params = new URLSearchParams({ client_id: documentUrl, redirect_uri: USERINFO_REDIRECT, response_type: 'code', scope: 'directory:read', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: MCP });
      const res = await person.client.get(`/oauth/auth?${params}`, { accept: 'application/json' });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal(res.headers.location, undefined, 'never redirected to it');
      assert.ok(res.body.includes('redirect_uris must not contain user information'), res.body);
      assert.ok(host.requests.some((r) => r.path === '/agent/userinfo.json'), 'the document was read, and refused');
    });

    it('with the override off, a document URL resolving to a loopback, private or metadata address is refused and nothing is fetched', async () => {
      const person = await signedIn(strict, 'ssrf@example.com');
      const before = host.requests.length;
      const urls = [
        clientId,
        `https://localhost:${host.port}/agent/client.json`,
        `https://127.0.0.1:${host.port}/agent/client.json`,
        'https://private.example.test/agent/client.json',
        'https://metadata.example.test/latest/meta-data.json',
        'https://mixed.example.test/agent/client.json',
      ];
      for (const url of urls) {
        const params = new URLSearchParams({ client_id: url, redirect_uri: APP_REDIRECT, response_type: 'code', scope: 'directory:read', code_challenge: pkce().challenge, code_challenge_method: 'S256', resource: MCP });
        const res = await person.client.get(`/oauth/auth?${params}`);
        // The person is shown the site's page; the app's redirect URI is never used.
        assert.equal(res.statusCode, 303, `${url}: ${res.statusCode} ${res.body}`);
        assert.equal(res.headers.location, '/oauth/error?error=invalid_client', `${url}: never redirected to an unverified redirect URI`);
      }
      assert.equal(host.requests.length, before, 'the document host was never reached');
      // Refused by the address policy (not by chance: a TLS or DNS failure would also be a 400).
      const refused = new Map(verdicts);
      for (const address of ['127.0.0.1', '10.20.30.40', '169.254.169.254', '192.168.1.5']) assert.ok(refused.get(address), `${address} refused by the policy`);
      assert.match(refused.get('127.0.0.1')!, /loopback/);
      assert.match(refused.get('169.254.169.254')!, /metadata/);
      await assert.rejects(safeFetch({ resolver, tls: { ca: CERT } })(`https://localhost:${host.port}/agent/client.json`), (err: Error) => /localhost names this machine/.test(String((err.cause as Error | undefined)?.message)));
      // The registration endpoint is no way around it: the URL is not a registered client either.
      const reg = await strict.app.fastify.inject({ method: 'POST', url: '/oauth/reg', headers: { 'content-type': 'application/json' }, payload: { client_id: clientId, redirect_uris: [APP_REDIRECT] } });
      assert.equal(reg.statusCode, 201);
      assert.notEqual(reg.json().client_id, clientId, 'the server picks registered client ids');
    });
  });
}
