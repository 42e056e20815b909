/**
 * Contract fuzzing of the authorization server under /oauth, over real HTTP on loopback (SQLite):
 * Dynamic Client Registration bodies (known metadata with valid, boundary and malformed values,
 * redirect URIs with user information or wildcards, unknown properties, JSON nested up to 28,000
 * levels, wrong content types), authorization requests (generated parameters, a person's browser
 * or a machine), token requests, and paths and methods it does not serve. Properties
 * (docs/errors.md#contract-fuzzing): no 5xx; every answer carries X-Request-Id; registration and
 * token errors are OAuth's JSON (`{error, error_description}`, RFC 6749 / RFC 7591); a registered
 * client's redirect URIs keep the policy (HTTPS or loopback HTTP, no user information, no `*`);
 * every other error is a problem document with a catalogued code, or (a browser) a redirect to the
 * site's error page, never to a redirect URI the client did not register.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { REDIRECT_URI } from '../oauth/support.ts';
import { anyJson, anyString, apiViolations, assertContract, deeplyNested, encodePart, fuzzParameters, hugeString, rawRequest, Tally, type Answer, type Encoding, type RawResponse } from './support.ts';

const sqlite = databaseTargets()[0]!;
const ODD_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'PROPFIND', 'TRACE', 'get', 'BREW'];

/** OAuth's own error JSON (RFC 6749 §5.2, RFC 7591 §3.2.2): exactly `error` and an optional `error_description`, strings. */
function oauthErrorViolations(res: RawResponse): string[] {
  const out: string[] = [];
  if (!(res.headers['content-type'] ?? '').startsWith('application/json')) out.push(`error ${res.status} has Content-Type ${res.headers['content-type']}`);
  try {
    const body = JSON.parse(res.text) as Record<string, unknown>;
    const extra = Object.keys(body).filter((k) => k !== 'error' && k !== 'error_description');
    if (typeof body.error !== 'string' || !/^[a-z_]+$/.test(body.error)) out.push(`error ${JSON.stringify(body.error)} is not an OAuth error code`);
    if (body.error_description !== undefined && typeof body.error_description !== 'string') out.push('error_description is not a string');
    if (extra.length > 0) out.push(`extra members ${extra.join(', ')}`);
  } catch {
    out.push(`error ${res.status} body is not JSON: ${JSON.stringify(res.text.slice(0, 200))}`);
  }
  return out;
}

/** No 5xx and a request id, whatever the endpoint. */
function baseViolations(res: RawResponse): string[] {
  const out: string[] = [];
  if (res.status === 0) return ['no HTTP answer at all (connection closed)'];
  if (res.status >= 500) out.push(`status ${res.status}: ${res.text.slice(0, 300)}`);
  if (!/^req_[0-9a-f]{32}$/.test(res.headers['x-request-id'] ?? '')) out.push(`X-Request-Id is ${JSON.stringify(res.headers['x-request-id'])}`);
  return out;
}

describe('contract fuzzing: the authorization server (sqlite, real HTTP)', () => {
  let ctx: TestContext;
  let port: number;
  let clientId: string;
  const tally = new Tally();

  before(async () => {
    ctx = await createTestContext(sqlite);
    await ctx.app.fastify.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.fastify.server.address() as { port: number }).port;
    const reg = await rawRequest(port, { method: 'POST', target: '/oauth/reg', headers: [['content-type', 'application/json']], body: JSON.stringify({ client_name: 'Fuzz Agent', redirect_uris: [REDIRECT_URI] }) });
    assert.equal(reg.status, 201, reg.text);
    clientId = (JSON.parse(reg.text) as { client_id: string }).client_id;
  });
  after(async () => {
    console.log(tally.report('oauth'));
    await ctx?.close();
  });

  /** Redirect URIs: allowed ones, and every kind the policy refuses. */
  const redirectUri = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom('https://agent.example/cb', 'http://127.0.0.1:4000/cb', 'http://[::1]/cb', 'http://localhost:9/cb', 'https://agent.example/cb?a=user@x') },
    fc.constantFrom('https://user:pass@agent.example/cb', 'https://@agent.example/cb', 'https://*.agent.example/cb', 'https://%2A.example/cb', 'http://agent.example/cb', 'com.agent:/cb', 'https://agent.example/cb#frag', 'javascript:alert(1)', '//agent.example/cb', ''),
    anyString,
  );
  // Mostly valid values, so that registrations succeed often enough for their policy to be checked.
  const usually = <T>(valid: fc.Arbitrary<T>, other: fc.Arbitrary<unknown>) => fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: other });
  const metadata = fc.record(
    {
      client_name: usually(fc.constantFrom('Agent', 'Asistente <b>IA</b>', 'عميل'), fc.oneof(anyString, hugeString, anyJson)),
      redirect_uris: usually(fc.array(redirectUri, { minLength: 1, maxLength: 3 }), anyJson),
      token_endpoint_auth_method: usually(fc.constant('none'), fc.oneof(fc.constantFrom('client_secret_basic', 'client_secret_post', 'private_key_jwt'), anyJson)),
      grant_types: usually(fc.constant(['authorization_code', 'refresh_token']), fc.oneof(fc.array(fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', 'implicit', 'password'), { maxLength: 3 }), anyJson)),
      response_types: usually(fc.constant(['code']), anyJson),
      scope: usually(fc.constantFrom('directory:read', 'directory:read offline_access'), fc.oneof(fc.constantFrom('slots:hold admin', 'openid'), anyString)),
      jwks: usually(fc.constant({ keys: [] }), anyJson),
    },
    { requiredKeys: ['redirect_uris'] },
  );
  /** A registration body as text: generated metadata, an unknown property, deep nesting, or no JSON at all. */
  const registrationBody = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(metadata, fc.option(fc.tuple(anyString, anyJson))).map(([m, extra]) => JSON.stringify(extra ? { ...m, [extra[0]]: extra[1] } : m)) },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.constantFrom('client_name', 'redirect_uris', 'jwks', 'x_unknown'), fc.constantFrom(17, 1_001, 15_000, 27_000), fc.constantFrom<'array' | 'object'>('array', 'object'))
        .map(([key, depth, kind]) => `{"redirect_uris":["https://agent.example/cb"],"${key}":${deeplyNested(kind === 'object' ? Math.min(depth, 9_000) : depth, kind)}}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '"x"', '{"redirect_uris":', '\u0000', '{"__proto__":{"x":1},"redirect_uris":["https://agent.example/cb"]}') },
  );

  it('registration: no 5xx; a 201 keeps the redirect policy, anything else is OAuth error JSON', async () => {
    await fc.assert(
      fc.asyncProperty(registrationBody, fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', ''), fc.constantFrom('application/json', 'text/html', '*/*'), async (body, type, accept) => {
        const headers: Array<[string, string]> = [['accept', accept]];
        if (type) headers.push(['content-type', type]);
        const res = await rawRequest(port, { method: 'POST', target: '/oauth/reg', headers, body });
        const found = baseViolations(res);
        if (res.status === 201) {
          const uris = (JSON.parse(res.text) as { redirect_uris: string[] }).redirect_uris;
          for (const uri of uris) {
            const u = URL.parse(uri);
            if (!u || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(uri) || u.hostname.includes('*') || !(u.protocol === 'https:' || (u.protocol === 'http:' && ['127.0.0.1', '[::1]', 'localhost'].includes(u.hostname)))) found.push(`registered ${uri}`);
          }
        } else if (res.status >= 400 && res.status < 500 && res.status !== 429) found.push(...oauthErrorViolations(res));
        tally.count('POST /oauth/reg', res.status, found);
        assertContract(`POST /oauth/reg ${type} ${body.slice(0, 200)}`, found);
      }),
      fuzzParameters(80),
    );
  });

  it('authorization requests: no 5xx; a browser is redirected (never to an unregistered address), a machine gets a problem document', async () => {
    const value = fc.oneof(anyString, fc.constantFrom('code', 'S256', 'plain', 'directory:read', 'directory:read slots:hold', 'none', 'consent', ctx.config.mcpUrl, 'https://elsewhere.example/api'));
    const param = fc.tuple(fc.constantFrom('client_id', 'redirect_uri', 'response_type', 'scope', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'prompt', 'request', 'x'), value, fc.constantFrom<Encoding>('proper', 'proper', 'raw', 'broken'), fc.nat());
    const base = fc.record({ client_id: fc.constantFrom(clientId, 'nobody', 'https://a.invalid/client.json', ''), redirect_uri: fc.constantFrom(REDIRECT_URI, 'https://evil.example/cb', 'http://127.0.0.1:9999/callback') }, { requiredKeys: [] });
    await fc.assert(
      fc.asyncProperty(base, fc.array(param, { maxLength: 6 }), fc.constantFrom('text/html', 'application/json', '*/*'), async (known, extra, accept) => {
        const parts = Object.entries(known).map(([k, v]) => `${k}=${encodePart(v, 'proper')}`);
        for (const [k, v, enc, n] of extra) parts.push(`${k}=${encodePart(v, enc, n)}`);
        const target = `/oauth/auth?${parts.join('&')}`;
        const res = await rawRequest(port, { method: 'GET', target, headers: [['accept', accept]] });
        const found = baseViolations(res);
        if (res.status === 302 || res.status === 303) {
          const to = new URL(res.headers.location ?? '', ctx.config.siteUrl);
          const ours = to.origin === new URL(ctx.config.siteUrl).origin && /^\/(oauth\/(interaction\/|error$)|sign-in)/.test(to.pathname);
          if (!ours && `${to.origin}${to.pathname}` !== REDIRECT_URI) found.push(`redirected to ${to}`);
        } else if (res.status >= 400) {
          found.push(...apiViolations({ status: res.status, headers: res.headers, text: res.text } as Answer, { method: 'GET' }));
          // Raw bytes beyond ASCII in the target are refused by Node's HTTP parser, before any
          // route (a problem for everyone; browsers always percent-encode them).
          if (accept === 'text/html' && /^[\x21-\x7e]*$/.test(target)) found.push(`a browser got ${res.status} instead of the error page`);
        } else found.push(`status ${res.status}`);
        tally.count('GET /oauth/auth', res.status, found);
        assertContract(`GET ${target.slice(0, 300)} (${accept})`, found);
      }),
      fuzzParameters(80),
    );
  });

  it('token requests: no 5xx; every refusal is OAuth error JSON', async () => {
    const field = fc.tuple(fc.constantFrom('grant_type', 'code', 'refresh_token', 'client_id', 'code_verifier', 'redirect_uri', 'resource', 'scope', 'x'), fc.oneof(anyString, fc.constantFrom('authorization_code', 'refresh_token', 'client_credentials', clientId, REDIRECT_URI, ctx.config.mcpUrl)));
    await fc.assert(
      fc.asyncProperty(fc.array(field, { maxLength: 7 }), fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain'), fc.constantFrom('application/json', 'text/html'), async (fields, type, accept) => {
        const body = type === 'application/json' ? JSON.stringify(Object.fromEntries(fields)) : fields.map(([k, v]) => `${k}=${encodePart(v, 'proper')}`).join('&');
        const res = await rawRequest(port, { method: 'POST', target: '/oauth/token', headers: [['content-type', type], ['accept', accept]], body });
        const found = baseViolations(res);
        if (res.status >= 400 && res.status < 500) found.push(...oauthErrorViolations(res));
        else if (res.status !== 200) found.push(`status ${res.status}`);
        tally.count('POST /oauth/token', res.status, found);
        assertContract(`POST /oauth/token ${body.slice(0, 200)}`, found);
      }),
      fuzzParameters(60),
    );
  });

  it('addresses and methods it does not serve: the ordinary 404 problem with a request id', async () => {
    const segment = fc.tuple(anyString, fc.constantFrom<Encoding>('proper', 'raw', 'broken'), fc.nat()).map(([s, e, n]) => encodePart(s, e, n));
    const target = fc.oneof(
      fc.array(segment, { minLength: 1, maxLength: 3 }).map((segs) => `/oauth/${segs.join('/')}`),
      fc.constantFrom('/oauth', '/oauth/', '/oauth/me', '/oauth/session/end', '/oauth/session/end/confirm', '/oauth/token/introspection', '/oauth/device', '/oauth/request', '/oauth/auth/', '/oauth/reg/x/y', '/oauth/interaction'),
    );
    await fc.assert(
      fc.asyncProperty(target, fc.constantFrom(...ODD_METHODS), async (t, method) => {
        const res = await rawRequest(port, { method, target: t, headers: [['accept', 'application/json']] });
        const found = apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method });
        // What it serves may answer whatever it answers (checked above); all else is a 4xx problem.
        tally.count('unserved /oauth', res.status, found);
        assertContract(`${method} ${t.slice(0, 300)}`, found);
      }),
      fuzzParameters(80),
    );
    assert.equal(tally.total().outside, 0);
  });
});
