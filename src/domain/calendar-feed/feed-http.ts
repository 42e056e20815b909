/**
 * Reads a lawyer's calendar feed over HTTPS with the webhooks' SSRF-safe connector
 * (src/domain/webhooks/delivery.ts `guardedConnector`): every address the host resolves to is
 * checked against the address policy and the connection goes to the checked address, so no
 * private, loopback or metadata address is ever reached, DNS rebinding included.
 *
 * - https only (`webcal://` is read as https, see feed-url.ts); plain http only when
 *   WEBHOOK_ALLOW_INSECURE_TARGETS is set (local development and tests), which also lifts the
 *   address checks, exactly as for webhooks.
 * - Redirects are followed (calendar hosts use them), at most 5, each target checked again: same
 *   scheme rule, and the new host goes through the same connector.
 * - One deadline for the whole read (all hops, headers and body) and a size limit on the body.
 * - Conditional GET (If-None-Match / If-Modified-Since) when the caller passes validators.
 */
import type { ConnectionOptions } from 'node:tls';
import type { Agent } from 'undici';
import { TargetRefusedError, type AddressPolicy, type HostResolver } from '../webhooks/address-policy.ts';
import { guardedAgent } from '../webhooks/delivery.ts';

export interface FeedHttpOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: plain http allowed and no address checks (tests, local development). */
  allowInsecureTargets: boolean;
  resolver?: HostResolver;
  policy?: AddressPolicy;
  tls?: ConnectionOptions;
}

/** Why a read failed, as the portal explains it (calendarFeed.errors in the catalogues). */
export type FeedErrorCode =
  | 'refused'
  | 'not_found'
  | 'unauthorized'
  | 'http_status'
  | 'timeout'
  | 'too_large'
  | 'too_many_redirects'
  | 'network'
  | 'not_calendar'
  // Read, but past the bounds of the expansion (ics-busy.ts, calendar-thread.ts).
  | 'too_many_events'
  | 'too_complex';

export type FeedRead =
  /** The body's bytes, undecoded: they are decoded where they are parsed, off the serving thread. */
  | { kind: 'ok'; bytes: Uint8Array; etag: string | null; lastModified: string | null }
  | { kind: 'not_modified' }
  | { kind: 'failed'; code: FeedErrorCode; detail: string };

const USER_AGENT = 'Consulta-Calendar/1.0 (+busy times only)';

function header(headers: Record<string, string | string[] | undefined>, name: string): string | null {
  const v = headers[name];
  const s = Array.isArray(v) ? v[0] : v;
  return typeof s === 'string' && s !== '' ? s.slice(0, 500) : null;
}

function refusal(err: unknown): TargetRefusedError | null {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof TargetRefusedError) return e;
  }
  return null;
}

export class FeedHttpClient {
  private readonly agent: Agent;

  constructor(private readonly options: FeedHttpOptions) {
    this.agent = guardedAgent(options);
  }

  /** Whether a URL's scheme may be read (https; http only with the insecure affordance). */
  schemeAllowed(url: URL): boolean {
    return url.protocol === 'https:' || (this.options.allowInsecureTargets && url.protocol === 'http:');
  }

  /** GETs the feed; never throws. */
  async read(url: string, validators: { etag: string | null; lastModified: string | null } = { etag: null, lastModified: null }): Promise<FeedRead> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const maxRedirects = this.options.maxRedirects ?? 5;
    try {
      let target = new URL(url);
      for (let hop = 0; ; hop++) {
        if (!this.schemeAllowed(target)) return { kind: 'failed', code: 'refused', detail: `only https addresses are read, not ${target.protocol}` };
        if (target.username || target.password) return { kind: 'failed', code: 'refused', detail: 'addresses with a user name or password are not read' };
        const headers: Record<string, string> = { accept: 'text/calendar, */*;q=0.5', 'user-agent': USER_AGENT };
        if (validators.etag) headers['if-none-match'] = validators.etag;
        if (validators.lastModified) headers['if-modified-since'] = validators.lastModified;
        const response = await this.agent.request({ origin: target.origin, path: `${target.pathname}${target.search}`, method: 'GET', headers, signal: controller.signal });
        const status = response.statusCode;
        if (status >= 300 && status < 400 && status !== 304) {
          await response.body.dump().catch(() => {});
          const location = header(response.headers, 'location');
          if (!location) return { kind: 'failed', code: 'http_status', detail: `HTTP ${status} without a Location` };
          if (hop >= maxRedirects) return { kind: 'failed', code: 'too_many_redirects', detail: `more than ${maxRedirects} redirects` };
          target = new URL(location, target);
          continue;
        }
        if (status === 304) {
          await response.body.dump().catch(() => {});
          return { kind: 'not_modified' };
        }
        if (status < 200 || status >= 300) {
          await response.body.dump().catch(() => {});
          const code: FeedErrorCode = status === 404 || status === 410 ? 'not_found' : status === 401 || status === 403 ? 'unauthorized' : 'http_status';
          return { kind: 'failed', code, detail: `HTTP ${status}` };
        }
        const declared = Number(header(response.headers, 'content-length') ?? NaN);
        if (Number.isFinite(declared) && declared > this.options.maxBytes) {
          await response.body.dump().catch(() => {});
          return { kind: 'failed', code: 'too_large', detail: `${declared} bytes (the limit is ${this.options.maxBytes})` };
        }
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          size += chunk.length;
          // Leaving the loop destroys the rest of the body: never more than the limit is read.
          if (size > this.options.maxBytes) return { kind: 'failed', code: 'too_large', detail: `more than ${this.options.maxBytes} bytes` };
          chunks.push(chunk);
        }
        return { kind: 'ok', bytes: Buffer.concat(chunks, size), etag: header(response.headers, 'etag'), lastModified: header(response.headers, 'last-modified') };
      }
    } catch (err) {
      if (timedOut) return { kind: 'failed', code: 'timeout', detail: `no complete answer within ${this.options.timeoutMs} ms` };
      const refused = refusal(err);
      if (refused) return { kind: 'failed', code: 'refused', detail: refused.message.slice(0, 300) };
      const e = err as { code?: string; message?: string; cause?: { code?: string } };
      return { kind: 'failed', code: 'network', detail: `${e.code ?? e.cause?.code ?? 'error'}: ${e.message ?? String(err)}`.slice(0, 300) };
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}
