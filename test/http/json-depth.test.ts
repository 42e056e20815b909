/**
 * JSON bodies nest at most MAX_JSON_DEPTH (32) levels, checked on the parsed body before any
 * validation (issue 17, item 4): 15,000 nested arrays fit in 64 KiB and exhaust the stack of
 * anything that walks them recursively (a validator, a clone, a serialiser). On the REST API the
 * answer is a 400 invalid_request problem naming /body; on the site, the 400 page. The MCP
 * endpoint's own answer (a JSON-RPC invalid-params error) is tested in test/mcp/direct-call.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../src/domain/validation.ts';
import { parseCredentialJson } from '../../src/domain/identity/passkeys.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';

const [sqlite] = databaseTargets();

/** `inner` wrapped in `levels` arrays, as text. */
const arrays = (levels: number, inner = '1') => `${'['.repeat(levels)}${inner}${']'.repeat(levels)}`;

describe('JSON bodies: nesting bounded before validation', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(sqlite!, {
      // A route that gives the body back: what a body reaching a serialiser does.
      extend: (app) => app.post('/api/v1/__echo', async (request) => ({ received: request.body })),
    });
  });
  after(() => ctx.close());

  const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
    ctx.app.fastify.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload });

  it('counts levels without recursion: the body is level 1, 32 pass, 33 do not, 100,000 are checked', () => {
    assert.equal(MAX_JSON_DEPTH, 32);
    assert.equal(exceedsJsonDepth(JSON.parse(arrays(32))), false);
    assert.equal(exceedsJsonDepth(JSON.parse(arrays(33))), true);
    assert.equal(exceedsJsonDepth(JSON.parse(`{"a":${arrays(30, '{}')}}`)), false);
    assert.equal(exceedsJsonDepth(JSON.parse(`{"a":${arrays(30, '{"b":{}}')}}`)), true);
    assert.equal(exceedsJsonDepth(JSON.parse(`[1,"x",null,{"a":[{}]},${arrays(40)}]`)), true, 'a deep branch after shallow ones');
    for (const scalar of [null, 1, 'x', true]) assert.equal(exceedsJsonDepth(scalar), false);
    assert.equal(exceedsJsonDepth(JSON.parse(arrays(100_000))), true);
  });

  it('a body nesting 15,000 arrays (under 64 KiB) is a 400 invalid_request naming /body, never a 500 or an exception text', async () => {
    const deep = arrays(15_000);
    assert.ok(Buffer.byteLength(deep) < 64 * 1024);
    for (const [url, payload] of [
      ['/api/v1/__echo', deep],
      ['/api/v1/__echo', `{"a":${deep}}`],
      ['/api/v1/bookings/initiate', `{"lawyer_id":${deep}}`],
      ['/api/v1/bookings/initiate', `{"lawyer_id":"00000000-0000-4000-8000-000000000000","date":"2026-12-01","start_time":"10:00:00","end_time":"11:00:00","agent_name":${deep}}`],
    ] as const) {
      const res = await post(url, payload);
      assert.equal(res.statusCode, 400, `${url} ${res.body.slice(0, 300)}`);
      assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
      const problem = res.json() as { code: string; detail: string; errors: Array<{ pointer: string; detail: string }> };
      assert.equal(problem.code, 'invalid_request');
      assert.match(problem.detail, /more than 32 levels deep/);
      assert.deepEqual(problem.errors, [{ pointer: '/body', detail: 'must not nest arrays and objects more than 32 levels deep' }]);
      assert.doesNotMatch(res.body, /call stack|RangeError/i);
    }
  });

  it('32 levels reach validation (which names the field); 33 are refused before it', async () => {
    const at32 = await post('/api/v1/bookings/initiate', `{"lawyer_id":${arrays(31)}}`);
    assert.equal(at32.statusCode, 400);
    assert.ok((at32.json() as { errors: Array<{ pointer: string }> }).errors.some((e) => e.pointer === '/body/lawyer_id'), at32.body);
    const echoed = await post('/api/v1/__echo', arrays(32));
    assert.equal(echoed.statusCode, 200);
    const at33 = await post('/api/v1/bookings/initiate', `{"lawyer_id":${arrays(32)}}`);
    assert.equal(at33.statusCode, 400);
    assert.deepEqual((at33.json() as { errors: unknown }).errors, [{ pointer: '/body', detail: 'must not nest arrays and objects more than 32 levels deep' }]);
  });

  it('the site: a JSON body nested too deeply is the 400 page; a passkey answer nested too deeply is read as no answer', async () => {
    const res = await post('/sign-in/passkey', `{"response":${arrays(15_000)}}`, { accept: 'text/html' });
    assert.equal(res.statusCode, 400);
    assert.match(String(res.headers['content-type']), /^text\/html/);
    assert.doesNotMatch(res.body, /call stack|RangeError/i);
    // The browser's answer also arrives as a JSON text inside a form field.
    assert.equal(parseCredentialJson(`{"id":"x","response":${arrays(5_000, '{}')}}`), null);
    assert.deepEqual(parseCredentialJson('{"id":"x","response":{"clientDataJSON":"e30"}}'), { id: 'x', response: { clientDataJSON: 'e30' } });
  });
});
