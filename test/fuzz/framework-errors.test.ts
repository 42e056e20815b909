/**
 * Regression tests for what the contract fuzzer found (test/fuzz/rest.test.ts): requests refused
 * before any route or hook ran got Fastify's or Node's own JSON (`{"error":"Bad Request",…}`),
 * with no X-Request-Id and no catalogued code. Real HTTP on loopback, since `inject()` never
 * goes through Node's HTTP parser.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { apiViolations, rawRequest, type RawResponse } from './support.ts';

const sqlite = databaseTargets()[0]!;

describe('errors raised before a route runs (real HTTP)', () => {
  let ctx: TestContext;
  let port: number;

  before(async () => {
    ctx = await createTestContext(sqlite);
    await ctx.app.fastify.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.fastify.server.address() as { port: number }).port;
  });
  after(() => ctx?.close());

  const problem = (res: RawResponse) => JSON.parse(res.text) as { status: number; code: string; instance: string; type: string; errors?: Array<{ pointer: string }> };

  it('a path that is not valid percent-encoding is a 400 invalid_request problem with a request id', async () => {
    for (const target of ['/api/v1/lawyers/%zz', '/api/v1/lawyers/%C3%28/reviews', '/api/v1/%']) {
      const res = await rawRequest(port, { method: 'GET', target, headers: [] });
      assert.equal(res.status, 400, target);
      assert.match(res.headers['content-type'] ?? '', /^application\/problem\+json/);
      const body = problem(res);
      assert.equal(body.code, 'invalid_request');
      assert.equal(body.instance, res.headers['x-request-id']);
      assert.deepEqual(body.errors?.map((e) => e.pointer), ['/path']);
      assert.equal(res.headers['cache-control'], 'no-store', 'the API headers are set as for any API answer');
      assert.deepEqual(apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method: 'GET' }), []);
    }
  });

  it('on the site, a person gets the 400 page instead', async () => {
    const res = await rawRequest(port, { method: 'GET', target: '/lawyers/%zz', headers: [['accept', 'text/html'], ['accept-language', 'en']] });
    assert.equal(res.status, 400);
    assert.match(res.headers['content-type'] ?? '', /^text\/html/);
    assert.match(res.text, /Something in the request was not right/);
    assert.match(res.headers['x-request-id'] ?? '', /^req_[0-9a-f]{32}$/);
    assert.match(res.headers['content-security-policy'] ?? '', /default-src 'self'/);
  });

  it('a path segment over the router limit is a 400 problem, not a bare 414', async () => {
    const res = await rawRequest(port, { method: 'GET', target: `/api/v1/lawyers/${'a'.repeat(201)}`, headers: [] });
    assert.equal(res.status, 400);
    assert.equal(problem(res).code, 'invalid_request');
    assert.deepEqual(apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method: 'GET' }), []);
  });

  it('headers over the size limit are a 431 headers_too_large problem', async () => {
    const res = await rawRequest(port, { method: 'GET', target: '/api/v1/cities', headers: [['x-big', 'a'.repeat(20_000)]] });
    assert.equal(res.status, 431);
    const body = problem(res);
    assert.equal(body.code, 'headers_too_large');
    assert.equal(body.type, 'http://consulta.test/docs/errors/headers_too_large');
    assert.equal(body.instance, res.headers['x-request-id']);
    assert.deepEqual(apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method: 'GET' }), []);
    const page = await rawRequest(port, { method: 'GET', target: '/docs/errors/headers_too_large', headers: [['accept', 'text/html']] });
    assert.equal(page.status, 200, 'the code has its documentation page');
  });

  it('a request Node cannot parse (unknown method, broken framing) is a 400 invalid_request problem', async () => {
    const cases = [
      { method: 'BREW', target: '/api/v1/cities', headers: [] },
      { method: 'get', target: '/api/v1/cities', headers: [] },
      { method: 'POST', target: '/api/v1/bookings/initiate', headers: [['content-type', 'application/json'], ['transfer-encoding', 'chunked']] as Array<[string, string]>, body: 'zz\r\n{}\r\n0\r\n\r\n' },
      { method: 'GET', target: '/api/v1/cities', headers: [['x-ctl', 'a\u0001b']] as Array<[string, string]> },
    ];
    for (const c of cases) {
      const res = await rawRequest(port, c);
      assert.equal(res.status, 400, `${c.method} ${JSON.stringify(c.headers)}`);
      assert.equal(problem(res).code, 'invalid_request');
      assert.deepEqual(apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method: c.method }), []);
    }
  });
});
