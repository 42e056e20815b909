import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const [sqlite] = databaseTargets();

describe('cross-cutting HTTP behaviour', () => {
  let ctx: TestContext;
  before(async () => {
    ctx = await createTestContext(sqlite!, {
      config: { bodyLimitBytes: 2048 },
      deprecatedRoutes: [
        {
          method: 'GET',
          url: '/api/v1/practice-areas',
          deprecatedAt: new Date('2026-11-01T00:00:00Z'),
          sunsetAt: new Date('2027-02-01T00:00:00Z'),
          link: 'http://consulta.test/docs/changelog#practice-areas',
        },
      ],
      extend: (app) => {
        app.post('/api/v1/__echo', async (request) => ({ received: request.body }));
        app.get('/api/v1/__boom', async () => {
          throw new Error('SELECT password FROM secrets -- internal detail');
        });
      },
    });
    await insertLawyers(ctx.database, [lawyerRecord()]);
  });
  after(() => ctx.close());

  const inject = (opts: InjectOptions) => ctx.app.fastify.inject(opts);

  it('puts a unique X-Request-Id on successes, errors and unknown routes, equal to the problem instance', async () => {
    const ids = new Set<string>();
    for (const url of ['/api/v1/cities', '/api/v1/lawyers/search?limit=0', '/api/v1/nowhere', '/nowhere', '/healthz', '/api/v1/__boom']) {
      const res = await inject({ url });
      const id = String(res.headers['x-request-id']);
      assert.match(id, /^req_[0-9a-f]{32}$/, url);
      ids.add(id);
      if (res.statusCode >= 400) assert.equal(res.json().instance, id, url);
    }
    assert.equal(ids.size, 6);
  });

  it('ignores a client-supplied X-Request-Id (ids are ours, so the request log can trust them)', async () => {
    const res = await inject({ url: '/api/v1/cities', headers: { 'x-request-id': 'req_forged' } });
    assert.notEqual(res.headers['x-request-id'], 'req_forged');
  });

  it('answers unknown routes with a not_found problem', async () => {
    const res = await inject({ url: '/api/v1/lawyers' });
    assert.equal(res.statusCode, 404);
    assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
    const p = res.json();
    assert.deepEqual(Object.keys(p).sort(), ['code', 'detail', 'instance', 'status', 'title', 'type']);
    assert.equal(p.code, 'not_found');
    assert.equal(p.type, 'http://consulta.test/docs/errors/not_found');
    assert.equal(p.status, 404);
  });

  it('hides internal errors: 500 internal_error, no stack, no SQL, no message', async () => {
    const res = await inject({ url: '/api/v1/__boom' });
    assert.equal(res.statusCode, 500);
    const p = res.json();
    assert.equal(p.code, 'internal_error');
    assert.ok(!res.body.includes('SELECT'));
    assert.ok(!res.body.includes('secrets'));
    assert.ok(!/at .*\.ts:\d+/.test(res.body));
    assert.match(p.detail, new RegExp(p.instance));
  });

  it('rejects bodies over the limit with 413 payload_too_large', async () => {
    const res = await inject({ method: 'POST', url: '/api/v1/__echo', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ x: 'a'.repeat(4096) }) });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'payload_too_large');
  });

  it('rejects malformed JSON and non-JSON bodies with clear problems', async () => {
    const bad = await inject({ method: 'POST', url: '/api/v1/__echo', headers: { 'content-type': 'application/json' }, payload: '{"x":' });
    assert.equal(bad.statusCode, 400);
    assert.equal(bad.json().code, 'invalid_request');
    assert.equal(bad.json().errors[0].pointer, '/body');
    const xml = await inject({ method: 'POST', url: '/api/v1/__echo', headers: { 'content-type': 'application/xml' }, payload: '<x/>' });
    assert.equal(xml.statusCode, 415);
    assert.equal(xml.json().code, 'unsupported_media_type');
    const proto = await inject({ method: 'POST', url: '/api/v1/__echo', headers: { 'content-type': 'application/json' }, payload: '{"__proto__":{"admin":true}}' });
    assert.equal(proto.statusCode, 400, 'prototype poisoning is refused');
  });

  it('sends security headers on API responses and on site pages', async () => {
    const api = await inject({ url: '/api/v1/lawyers/search' });
    assert.equal(api.headers['x-content-type-options'], 'nosniff');
    assert.equal(api.headers['x-frame-options'], 'DENY');
    assert.equal(api.headers['referrer-policy'], 'no-referrer');
    assert.match(String(api.headers['content-security-policy']), /default-src 'none'/);
    assert.equal(api.headers['cache-control'], 'no-store');
    const site = await inject({ url: '/docs/errors' });
    assert.equal(site.headers['x-content-type-options'], 'nosniff');
    assert.match(String(site.headers['content-security-policy']), /default-src 'self'/);
  });

  it('allows browser callers from any origin without credentials, and exposes the useful headers', async () => {
    const simple = await inject({ url: '/api/v1/cities', headers: { origin: 'https://portal.example' } });
    assert.equal(simple.headers['access-control-allow-origin'], '*');
    assert.equal(simple.headers['access-control-allow-credentials'], undefined);
    assert.match(String(simple.headers['access-control-expose-headers']), /X-Request-Id/);
    assert.match(String(simple.headers['access-control-expose-headers']), /Retry-After/);
    const preflight = await inject({
      method: 'OPTIONS',
      url: '/api/v1/bookings/initiate',
      headers: { origin: 'https://portal.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
    });
    assert.equal(preflight.statusCode, 204);
    assert.equal(preflight.headers['access-control-allow-origin'], '*');
    assert.match(String(preflight.headers['access-control-allow-headers']), /Idempotency-Key/i);
    assert.match(String(preflight.headers['access-control-allow-methods']), /POST/);
    assert.equal(preflight.headers['access-control-max-age'], '86400');
  });

  it('marks a declared deprecated route with Deprecation, Sunset and Link, on success and error alike', async () => {
    const ok = await inject({ url: '/api/v1/practice-areas' });
    assert.equal(ok.headers.deprecation, `@${Date.parse('2026-11-01T00:00:00Z') / 1000}`);
    assert.equal(ok.headers.sunset, 'Mon, 01 Feb 2027 00:00:00 GMT');
    assert.equal(ok.headers.link, '<http://consulta.test/docs/changelog#practice-areas>; rel="deprecation"; type="text/html"');
    const err = await inject({ url: '/api/v1/practice-areas?x=1' });
    assert.equal(err.statusCode, 400);
    assert.ok(err.headers.deprecation);
    const other = await inject({ url: '/api/v1/cities' });
    assert.equal(other.headers.deprecation, undefined);
    assert.equal(other.headers.sunset, undefined);
    const doc = (await inject({ url: '/api/v1/openapi.json' })).json();
    assert.equal(doc.paths['/practice-areas'].get.deprecated, true);
    assert.notEqual(doc.paths['/cities'].get.deprecated, true);
  });

  it('serves health and readiness on the site origin', async () => {
    const health = await inject({ url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(health.json(), { status: 'ok' });
    const ready = await inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.equal(ready.json().status, 'ready');
  });

  it('documents every error code at /docs/errors/{code}, and 404s unknown codes', async () => {
    const page = await inject({ url: '/docs/errors/rate_limited' });
    assert.equal(page.statusCode, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(page.body, /HTTP 429/);
    assert.match(page.body, /Retry-After/);
    const missing = await inject({ url: '/docs/errors/%3Cscript%3E' });
    assert.equal(missing.statusCode, 404);
    assert.ok(!missing.body.includes('<script>'));
  });
});

describe('readiness without a database', () => {
  it('answers 503 service_unavailable when the database is closed', async () => {
    const ctx = await createTestContext(sqlite!);
    try {
      await ctx.database.close();
      const res = await ctx.app.fastify.inject({ url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().code, 'service_unavailable');
      assert.equal(res.headers['retry-after'], '5');
    } finally {
      await ctx.close();
    }
  });
});
