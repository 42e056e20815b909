/**
 * One HTTP attempt of a webhook message, over undici.
 *
 * - The connection is made by our own connector: it resolves the host, checks EVERY resolved
 *   address against the address policy and then connects to the checked address itself (TLS
 *   still verifies the certificate against the host name, sent as SNI). There is no second
 *   resolution between the check and the connection, so DNS rebinding cannot slip an internal
 *   address in. An IP-literal host is checked the same way.
 * - Redirects are never followed (undici's request does not follow them; a 3xx is a failure).
 * - One deadline covers the whole attempt: connect, send, response headers and body.
 * - Only the first KiB of the response body is kept.
 */
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ConnectionOptions } from 'node:tls';
import { Agent, buildConnector } from 'undici';
import { refusalReason, resolveTarget, systemResolver, TargetRefusedError, type AddressPolicy, type HostResolver } from './address-policy.ts';

/** How much of a response body an attempt keeps. */
export const RESPONSE_BODY_LIMIT = 1024;
const ERROR_TEXT_LIMIT = 500;

/** What one attempt came to. */
export interface AttemptOutcome {
  /** Any 2xx. */
  success: boolean;
  /** Null when no response arrived. */
  statusCode: number | null;
  durationMs: number;
  /** Why it failed, in words; null on success. */
  error: string | null;
  /** The first KiB of the response body (text), null when there was none. */
  responseBody: string | null;
}

export interface WebhookHttpClientOptions {
  timeoutMs: number;
  /** WEBHOOK_ALLOW_INSECURE_TARGETS: no address checks (plain http is decided by the caller). */
  allowInsecureTargets: boolean;
  /** DNS resolution used at connect time (tests inject one). */
  resolver?: HostResolver;
  /** Extra TLS options (tests pass a private CA). */
  tls?: ConnectionOptions;
  /** The address policy; refusalReason unless a test narrows it. */
  policy?: AddressPolicy;
}

/** Text safe for a PostgreSQL text column and a log line (no NULs), capped. */
function cleanText(text: string, limit: number): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u0000/g, '\uFFFD').slice(0, limit);
}

function describeError(err: unknown): string {
  if (err instanceof TargetRefusedError) return err.message;
  const e = err as { code?: string; message?: string; cause?: unknown };
  const cause = e.cause as { code?: string; message?: string } | undefined;
  const code = e.code ?? cause?.code;
  const message = e.message ?? String(err);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * A connector that connects only to checked addresses: resolve, check every address, then try
 * them in order (the next one when a connection attempt fails).
 */
export function guardedConnector(options: { resolver: HostResolver; policy: AddressPolicy; connectTimeoutMs: number; tls?: ConnectionOptions }): buildConnector.connector {
  const base = buildConnector({ timeout: options.connectTimeoutMs, ...options.tls });
  return (connectOptions, callback) => {
    resolveTarget(connectOptions.hostname, options.resolver, options.policy).then(
      (addresses) => {
        // SNI and certificate verification use the name from the URL, not the address.
        const name = connectOptions.hostname.replace(/^\[(.*)\]$/, '$1');
        const servername = connectOptions.servername || (isIP(name) === 0 ? name : undefined);
        const attempt = (index: number, lastError: Error | null): void => {
          const address = addresses[index];
          if (address === undefined) {
            callback(lastError ?? new Error('no address to connect to'), null);
            return;
          }
          base({ ...connectOptions, hostname: address, servername }, (err, socket) => {
            if (err) attempt(index + 1, err);
            else callback(null, socket!);
          });
        };
        attempt(0, null);
      },
      (err: Error) => callback(err, null),
    );
  };
}

/**
 * The connection pool of a client that reaches addresses other people give us (webhook endpoints,
 * lawyers' calendar feeds): every connection through guardedConnector, unless the deployment
 * allows insecure targets (local development and tests).
 */
export function guardedAgent(options: WebhookHttpClientOptions): Agent {
  const connectTimeoutMs = Math.min(options.timeoutMs, 10_000);
  return new Agent({
    connect: options.allowInsecureTargets
      ? { timeout: connectTimeoutMs, ...options.tls }
      : guardedConnector({ resolver: options.resolver ?? systemResolver, policy: options.policy ?? refusalReason, connectTimeoutMs, tls: options.tls }),
    // A kept-alive connection was checked when it was opened; keep reuse short all the same.
    keepAliveTimeout: 4_000,
    keepAliveMaxTimeout: 30_000,
  });
}

/** Sends webhook attempts; one instance (and its connection pool) per dispatcher. */
export class WebhookHttpClient {
  private readonly agent: Agent;

  constructor(private readonly options: WebhookHttpClientOptions) {
    this.agent = guardedAgent(options);
  }

  /** POSTs `body` to `url` with `headers`; never throws. */
  async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptOutcome> {
    const started = performance.now();
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.options.timeoutMs);
    const elapsed = () => Math.round(performance.now() - started);
    let statusCode: number | null = null;
    try {
      const target = new URL(url);
      const response = await this.agent.request({
        origin: target.origin,
        path: `${target.pathname}${target.search}`,
        method: 'POST',
        headers,
        body,
        signal: controller.signal,
      });
      statusCode = response.statusCode;
      // The status decides the outcome; the body is kept for the delivery log only, so a body
      // that stalls or breaks after a 2xx status line does not turn a success into a failure.
      const chunks: Buffer[] = [];
      let size = 0;
      let bodyError: string | null = null;
      try {
        for await (const chunk of response.body as AsyncIterable<Buffer>) {
          chunks.push(chunk);
          size += chunk.length;
          // Leaving the loop destroys the rest of the body: we never read more than we keep.
          if (size >= RESPONSE_BODY_LIMIT) break;
        }
      } catch (err) {
        bodyError = timedOut ? `timed out after ${this.options.timeoutMs} ms reading the response body` : `response body: ${describeError(err)}`;
      }
      const text = Buffer.concat(chunks).subarray(0, RESPONSE_BODY_LIMIT).toString('utf8');
      const success = statusCode >= 200 && statusCode < 300;
      const location = typeof response.headers.location === 'string' ? response.headers.location : null;
      let error: string | null = null;
      if (!success) {
        error =
          statusCode >= 300 && statusCode < 400
            ? `redirect not followed (HTTP ${statusCode}${location ? ` to ${location}` : ''}): answer 2xx at the registered URL`
            : `HTTP ${statusCode}`;
        if (bodyError) error = `${error}; ${bodyError}`;
      }
      return {
        success,
        statusCode,
        durationMs: elapsed(),
        error: error === null ? null : cleanText(error, ERROR_TEXT_LIMIT),
        responseBody: text === '' ? null : cleanText(text, RESPONSE_BODY_LIMIT),
      };
    } catch (err) {
      const error = timedOut ? `timed out after ${this.options.timeoutMs} ms` : describeError(err);
      return { success: false, statusCode, durationMs: elapsed(), error: cleanText(error, ERROR_TEXT_LIMIT), responseBody: null };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes pooled connections (in-flight requests finish first). */
  async close(): Promise<void> {
    await this.agent.close();
  }
}
