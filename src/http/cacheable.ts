/**
 * Reference responses that are identical for everyone: serialised once per directory version,
 * sent with a strong ETag and `Cache-Control: public, max-age=86400`; a matching
 * `If-None-Match` gets 304 without a body. The body is kept as UTF-8 bytes, so a response is a
 * write of a ready Buffer rather than an encoding of a 61 KB string each time.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

interface Entry {
  key: string;
  etag: string;
  body: Buffer;
}

export const REFERENCE_CACHE_CONTROL = 'public, max-age=86400';

export class CacheableResponse {
  private entry: Entry | undefined;

  /** Sends the body built by `build` for `key`, reusing the serialised form while the key is unchanged. */
  send(request: FastifyRequest, reply: FastifyReply, key: string, build: () => unknown): FastifyReply {
    let entry = this.entry;
    if (!entry || entry.key !== key) {
      const body = Buffer.from(JSON.stringify(build()), 'utf8');
      entry = { key, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
      this.entry = entry;
    }
    reply.header('cache-control', REFERENCE_CACHE_CONTROL).header('etag', entry.etag);
    if (etagMatches(request.headers['if-none-match'], entry.etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(entry.body);
  }
}

function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  // Weak comparison (RFC 9110 §13.1.2): W/ prefixes are ignored for If-None-Match.
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === etag);
}
