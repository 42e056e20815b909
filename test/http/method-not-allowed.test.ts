/**
 * A known path asked with a method it does not serve answers 405 `method_not_allowed` with an
 * `Allow` header (RFC 9110 §15.5.6), not a 404 that says the path does not exist: on the API (a
 * problem document), on the site (a page for people, a problem for scripts) and for assets.
 * The fuzz suite (test/fuzz/rest.test.ts) checks every OpenAPI operation the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { makeKeys, type KeyKit } from '../support/keys.ts';
import { pageText } from '../support/site.ts';

const [sqlite] = databaseTargets();

describe('405 Method Not Allowed with Allow', () => {
  let ctx: TestContext;
  let keys: KeyKit;
  before(async () => {
    ctx = await createTestContext(sqlite!);
    keys = await makeKeys(ctx);
  });
  after(() => ctx.close());

  const problem = (body: string) => JSON.parse(body) as { code: string; status: number; type: string; detail: string; instance: string };

  it('the API answers a wrong method on a known path with 405 and the path\'s methods', async () => {
    const cases: Array<[string, string, string]> = [
      ['DELETE', '/api/v1/lawyers/search', 'GET, HEAD, OPTIONS'],
      ['GET', '/api/v1/bookings/initiate', 'POST, OPTIONS'],
      ['PUT', '/api/v1/bookings/initiate', 'POST, OPTIONS'],
      ['POST', '/api/v1/cities', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/v1/lawyers/00000000-0000-4000-8000-000000000000/availability', 'GET, HEAD, OPTIONS'],
      ['DELETE', '/api/v1/booking-intents/bi_whatever', 'GET, HEAD, OPTIONS'],
      ['POST', '/api/v1/key/', 'GET, HEAD, OPTIONS'],
    ];
    for (const [method, url, allow] of cases) {
      const res = await ctx.app.fastify.inject({ method: method as 'GET', url });
      assert.equal(res.statusCode, 405, `${method} ${url}: ${res.body}`);
      assert.equal(res.headers.allow, allow, `${method} ${url}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const p = problem(res.body);
      assert.equal(p.code, 'method_not_allowed');
      assert.equal(p.status, 405);
      assert.equal(p.type, 'http://consulta.test/docs/errors/method_not_allowed');
      assert.equal(p.instance, res.headers['x-request-id']);
      // A browser script may read Allow on a cross-origin answer.
      assert.match(String(res.headers['access-control-expose-headers']), /\bAllow\b/);
    }
  });

  it('decides the method before reading the body: a broken body on a wrong method is still a 405', async () => {
    for (const url of ['/api/v1/lawyers/search', '/sign-out']) {
      const res = await ctx.app.fastify.inject({ method: 'PATCH', url, payload: '{', headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 405, `${url}: ${res.body}`);
      assert.equal(problem(res.body).code, 'method_not_allowed');
    }
    const unknown = await ctx.app.fastify.inject({ method: 'POST', url: '/api/v1/nowhere', payload: '{', headers: { 'content-type': 'application/json' } });
    assert.equal(unknown.statusCode, 404);
  });

  it('keeps 404 for unknown paths, preflights for every API path, and counts a 405 like any request', async () => {
    const unknown = await ctx.app.fastify.inject({ method: 'DELETE', url: '/api/v1/lawyers' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.headers.allow, undefined);
    assert.equal(problem(unknown.body).code, 'not_found');
    const preflight = await ctx.app.fastify.inject({ method: 'OPTIONS', url: '/api/v1/bookings/initiate', headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' } });
    assert.equal(preflight.statusCode, 204);
    // With a key: authenticated, rate-limited and logged before the 405, as a 404 is.
    const keyed = await ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/bookings/initiate', headers: { authorization: `Bearer ${keys.live}` } });
    assert.equal(keyed.statusCode, 405);
    assert.ok(keyed.headers['x-ratelimit-remaining'] !== undefined, 'the request counted against the key');
    const bad = await ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/bookings/initiate', headers: { authorization: 'Bearer svc_nope' } });
    assert.equal(bad.statusCode, 401, 'a bad key is still refused first');
    await ctx.app.services.requestLog.flush();
    const row = await ctx.database.db.selectFrom('request_log').select(['status', 'error_code', 'method']).where('request_id', '=', String(keyed.headers['x-request-id'])).executeTakeFirst();
    assert.deepEqual(row, { status: 405, error_code: 'method_not_allowed', method: 'GET' });
  });

  it('documents method_not_allowed at /docs/errors/method_not_allowed', async () => {
    const page = await ctx.app.fastify.inject({ url: '/docs/errors/method_not_allowed?lang=en', headers: { accept: 'text/html' } });
    assert.equal(page.statusCode, 200);
    assert.match(pageText(page.body), /Method not allowed/);
    assert.match(pageText(page.body), /Allow/);
  });

  it('the site: a form\'s POST address opened with GET is a 405 page for people and a problem for scripts', async () => {
    const page = await ctx.app.fastify.inject({ method: 'GET', url: '/sign-out', headers: { accept: 'text/html', 'accept-language': 'en' } });
    assert.equal(page.statusCode, 405);
    assert.equal(page.headers.allow, 'POST');
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(pageText(page.body), /This address does not work this way/);
    assert.doesNotMatch(pageText(page.body), /not found/i);
    const es = await ctx.app.fastify.inject({ method: 'GET', url: '/developer/webhooks/x/rotate', headers: { accept: 'text/html' } });
    assert.equal(es.statusCode, 405);
    assert.match(pageText(es.body), /Esta dirección no funciona así/);
    const script = await ctx.app.fastify.inject({ method: 'GET', url: '/sign-out', headers: { accept: 'application/json' } });
    assert.equal(script.statusCode, 405);
    assert.equal(script.headers.allow, 'POST');
    assert.equal(problem(script.body).code, 'method_not_allowed');
    // A POST to a page that has no form handler: no CSRF refusal, a 405 that lists what it takes.
    const post = await ctx.app.fastify.inject({ method: 'POST', url: '/developer/usage', payload: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' } });
    assert.equal(post.statusCode, 405);
    assert.equal(post.headers.allow, 'GET, HEAD');
    const nowhere = await ctx.app.fastify.inject({ method: 'POST', url: '/no/such/form', payload: '{}', headers: { 'content-type': 'application/json' } });
    assert.equal(nowhere.statusCode, 404);
    assert.equal(problem(nowhere.body).code, 'not_found');
  });

  it('asset errors are problem documents for the browser\'s fetch, the 404 page for a person, never plain text', async () => {
    const home = await ctx.app.fastify.inject({ url: '/' });
    const css = /href="(\/assets\/site\.[0-9a-f]{10}\.css)"/.exec(home.body)![1]!;
    for (const url of ['/assets/site.0000000000.css', '/assets/nothing.js', '/assets/']) {
      const res = await ctx.app.fastify.inject({ url, headers: { accept: 'text/css,*/*;q=0.1' } });
      assert.equal(res.statusCode, 404, url);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/, url);
      assert.equal(problem(res.body).code, 'not_found', url);
      assert.equal(res.headers['cache-control'], 'no-store', 'a miss is not cached');
      assert.equal(res.headers['x-content-type-options'], 'nosniff');
    }
    const wrongMethod = await ctx.app.fastify.inject({ method: 'POST', url: css, payload: '' });
    assert.equal(wrongMethod.statusCode, 405);
    assert.equal(wrongMethod.headers.allow, 'GET, HEAD');
    assert.equal(problem(wrongMethod.body).code, 'method_not_allowed');
    const person = await ctx.app.fastify.inject({ url: '/assets/site.0000000000.css', headers: { accept: 'text/html', 'accept-language': 'en' } });
    assert.equal(person.statusCode, 404);
    assert.match(pageText(person.body), /Page not found/);
    assert.equal((await ctx.app.fastify.inject({ url: css })).statusCode, 200, 'the real asset is still served');
  });
});
