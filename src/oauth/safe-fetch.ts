/**
 * How the authorization server fetches what clients point it at (Client ID Metadata Documents):
 * the webhooks' SSRF policy. HTTPS only; the host is resolved, every address it resolves to must
 * be public, and the connection goes to a checked address (no second resolution to rebind);
 * redirects are not followed. oidc-provider adds the time limit (2.5 s) and the size limit
 * (5 KiB for a metadata document).
 */
import type { ConnectionOptions } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import { refusalReason, systemResolver, type AddressPolicy, type HostResolver } from '../domain/webhooks/address-policy.ts';
import { guardedConnector } from '../domain/webhooks/delivery.ts';

export interface OutboundOptions {
  /** DNS resolution at connect time (tests map a name to their local host). */
  resolver?: HostResolver;
  /** The address policy; refusalReason unless a test narrows it. */
  policy?: AddressPolicy;
  /** Extra TLS options (tests pass a private CA). */
  tls?: ConnectionOptions;
}

const CONNECT_TIMEOUT_MS = 2_500;

/** A fetch for oidc-provider's `fetch` setting that only reaches public HTTPS servers. */
export function safeFetch(options: OutboundOptions) {
  const agent = new Agent({
    connect: guardedConnector({
      resolver: options.resolver ?? systemResolver,
      policy: options.policy ?? refusalReason,
      connectTimeoutMs: CONNECT_TIMEOUT_MS,
      tls: options.tls,
    }),
    keepAliveTimeout: 4_000,
  });
  return async (url: string | URL, init: Record<string, unknown> = {}) => {
    const target = new URL(url);
    if (target.protocol !== 'https:') throw new TypeError(`only https: URLs are fetched, not ${target.protocol}`);
    // oidc-provider's own dispatcher is replaced by ours; its signal (time limit) is kept.
    return undiciFetch(target, { ...(init as Parameters<typeof undiciFetch>[1]), dispatcher: agent, redirect: 'manual' });
  };
}
