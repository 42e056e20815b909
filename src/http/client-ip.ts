/**
 * The client's address, as Fastify's `request.ip` gives it, read more cheaply on the common path.
 *
 * Behind a trusted proxy `request.ip` runs proxy-addr on every read: it splits
 * `X-Forwarded-For`, then parses the connection's own address with ipaddr.js to ask whether that
 * peer is trusted (about 2.5 % of a cached API request's CPU: docs/performance.md). Whether the
 * peer is trusted depends only on the connection's address, which a keep-alive connection keeps
 * for its life, so the answer is kept on the socket. With one address in the header (what a
 * single proxy sends), the client is that address when the peer is trusted and the peer
 * otherwise, exactly as proxy-addr decides it; anything else (no header, a chain of proxies) is
 * left to `request.ip` itself.
 */
import type { Socket } from 'node:net';
import type { FastifyRequest } from 'fastify';

const TRUSTED_PEER = Symbol('consulta.trustedPeer');

type MarkedSocket = Socket & { [TRUSTED_PEER]?: boolean };

export function clientIp(request: FastifyRequest): string {
  const raw = request.raw;
  const header = raw.headers['x-forwarded-for'];
  // No header, or a list (several proxies): proxy-addr's own walk.
  if (typeof header !== 'string' || header.indexOf(',') !== -1) return request.ip;
  const forwarded = header.trim();
  if (forwarded === '') return request.ip;
  const socket = raw.socket as MarkedSocket;
  let trusted = socket[TRUSTED_PEER];
  if (trusted === undefined) {
    // Asked once per connection: proxy-addr lists [peer, forwarded] when it trusts the peer
    // (`ips` is undefined when no proxy is trusted at all).
    const ips = request.ips;
    trusted = ips !== undefined && ips.length > 1;
    socket[TRUSTED_PEER] = trusted;
  }
  return trusted ? forwarded : request.ip;
}
