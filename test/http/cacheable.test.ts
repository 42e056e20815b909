/** CacheableResponse: the serialised body is kept as bytes and reused until the key changes. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { CacheableResponse, REFERENCE_CACHE_CONTROL } from '../../src/http/cacheable.ts';

describe('CacheableResponse', () => {
  it('sends the UTF-8 body with its byte length, a stable ETag, and 304 on a match; rebuilds when the key changes', async () => {
    const app = Fastify();
    const cache = new CacheableResponse();
    let version = 1;
    let builds = 0;
    app.get('/ref', (request, reply) =>
      cache.send(request, reply, String(version), () => {
        builds++;
        return { cities: ['A Coruña', 'Cádiz', 'Logroño'], version };
      }),
    );
    try {
      const first = await app.inject({ url: '/ref' });
      const expected = JSON.stringify({ cities: ['A Coruña', 'Cádiz', 'Logroño'], version: 1 });
      assert.equal(first.statusCode, 200);
      assert.equal(first.body, expected);
      assert.equal(first.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(Number(first.headers['content-length']), Buffer.byteLength(expected));
      assert.notEqual(Buffer.byteLength(expected), expected.length, 'the body has multi-byte characters');
      assert.equal(first.headers['cache-control'], REFERENCE_CACHE_CONTROL);
      assert.equal(first.headers.etag, `"${createHash('sha256').update(expected).digest('base64url').slice(0, 27)}"`);

      const second = await app.inject({ url: '/ref' });
      assert.equal(second.body, expected);
      assert.equal(second.headers.etag, first.headers.etag);
      assert.equal(builds, 1);

      const notModified = await app.inject({ url: '/ref', headers: { 'if-none-match': `W/${String(first.headers.etag)}` } });
      assert.equal(notModified.statusCode, 304);
      assert.equal(notModified.body, '');

      version = 2;
      const changed = await app.inject({ url: '/ref' });
      assert.equal(builds, 2);
      assert.equal(changed.json().version, 2);
      assert.notEqual(changed.headers.etag, first.headers.etag);
    } finally {
      await app.close();
    }
  });
});
