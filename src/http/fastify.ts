/**
 * The Fastify instance every area registers on: logging, request ids, body parsing and
 * validation, the security headers of every response, draining on stop, one log line per
 * request, the table of routes, and the framework's own refusals as problem documents.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import type { Config } from '../config.ts';
import { createAjv } from '../domain/validation.ts';
import { RouteMethods } from './allowed-methods.ts';
import { depthBoundedJson } from './json-body.ts';
import { clientErrorHandler, frameworkErrorHandler } from './problem.ts';
import { newRequestId } from './request-id.ts';

export const API_PREFIX = '/api/v1';

/**
 * Site pages: no inline script or style at all (one hashed stylesheet and one script file), no
 * framing, forms post only to us — and to Stripe's Checkout when it is the payment provider.
 */
function siteSecurityHeaders(config: Config): Record<string, string> {
  // Stripe: its Checkout, and Connect's onboarding (a lawyer setting up payouts).
  const formAction = config.paymentProvider === 'stripe' ? "'self' https://checkout.stripe.com https://connect.stripe.com" : "'self'";
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'content-security-policy': `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`,
  };
}

/** The interactive API reference (Swagger UI) sets styles inline; only its pages allow that. */
const API_REFERENCE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'Link',
  'ETag',
  'Allow',
];

/**
 * Every API response: security headers, and CORS for browser callers (any origin, never
 * credentials). One constant object set by the request hook below, rather than a CORS plugin's
 * hook per request (about 2.5 % of a cached request's CPU); preflights are the OPTIONS route.
 */
const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'cross-origin',
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
};

/**
 * Standard output for the logs, buffered: lines are written 64 KB at a time, or every 500 ms,
 * asynchronously, instead of one synchronous write(2) per line on the event loop (about a tenth
 * of a cached request's CPU went to appending its log line to the file: docs/performance.md).
 * Lines are gathered here first and handed to pino's stream 64 KB at a time: that stream measures
 * the UTF-8 length of its whole pending buffer on every write, which cost more per line than
 * building the line; and each asynchronous write costs tens of µs however small, so 64 KB writes
 * cost about a fifth as much per line as 8 KB ones. Whatever is gathered goes to the stream before pino's own exit
 * handler writes the stream out synchronously, so a stop or a fatal error loses nothing; a kill -9
 * loses at most half a second of lines. One stream per process.
 */
export const LOG_CHUNK_CHARS = 65_536;

export class GatheredLines {
  private pending = '';

  constructor(
    private readonly stream: ReturnType<typeof pino.destination>,
    private readonly chunkChars = LOG_CHUNK_CHARS,
  ) {}

  write(line: string): boolean {
    this.pending += line;
    if (this.pending.length >= this.chunkChars) this.handOver();
    return true;
  }

  /** Hands what is gathered to the stream and asks it to write (pino's `logger.flush()` comes here). */
  flush(cb?: (err?: Error) => void): void {
    this.handOver();
    this.stream.flush(cb);
  }

  /** Hands over what is gathered; the stream writes it out (asynchronously, or at exit). */
  handOver(): void {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.stream.write(chunk);
  }
}

let stdoutLog: GatheredLines | undefined;
const logDestination = () => {
  if (stdoutLog === undefined) {
    // maxWrite above the chunk: a chunk that arrives while a write is in flight joins the next write.
    const stream = pino.destination({ dest: 1, sync: false, minLength: 8192, maxWrite: 4 * LOG_CHUNK_CHARS });
    const lines = new GatheredLines(stream);
    // Before pino's handlers (on-exit-leak-free), which write the stream out synchronously at exit.
    process.prependListener('exit', () => lines.handOver());
    process.prependListener('beforeExit', () => lines.handOver());
    setInterval(() => lines.flush(), 500).unref();
    stdoutLog = lines;
  }
  return stdoutLog;
};

export interface EdgeOptions {
  /** The HTML 400 for a person's request the router refused before any site hook ran (src/site/plugin.ts). */
  htmlBadRequest: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
}

export function createFastify(config: Config, { htmlBadRequest }: EdgeOptions) {
  const fastify = Fastify({
    logger: { level: config.logLevel, redact: ['req.headers.authorization'], stream: logDestination() },
    // Fastify's two lines per request are replaced by one (onResponse hook below).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: newRequestId,
    requestIdHeader: false,
    // A hop count is valid for Fastify (proxy-addr) though its types omit it.
    trustProxy: config.trustProxy as string[] | false,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // What the router and Node's HTTP parser refuse before any hook runs gets the same problem
    // documents (and request id) as everything else, not Fastify's own JSON (test/fuzz/).
    frameworkErrors: (error, request, reply) => onFrameworkError(error, request, reply),
    clientErrorHandler: clientErrorHandler(config.siteUrl, newRequestId, API_HEADERS),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are JSON only: a JSON text labelled text/plain is a 415, not a string to validate.
  fastify.removeContentTypeParser('text/plain');
  // JSON bodies nest at most MAX_JSON_DEPTH levels, checked before any validation (json-body.ts).
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, depthBoundedJson(fastify.getDefaultJsonParser('error', 'error')));
  // Query strings, params and headers are text and are coerced (`limit=5` → 5); bodies are JSON
  // and are not (`"agent_name": 12345` is an error, not "12345").
  const textAjv = createAjv({ strict: false });
  const bodyAjv = createAjv({ strict: false, coerceTypes: false });
  fastify.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));

  const securityHeaders = config.siteUrl.startsWith('https:')
    ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' }
    : {};
  const siteHeaders = siteSecurityHeaders(config);
  const baseHeaders = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    reply.headers(request.url.startsWith(API_PREFIX) ? API_HEADERS : siteHeaders);
    if (request.url.startsWith('/docs/api')) reply.header('content-security-policy', API_REFERENCE_CSP);
    reply.headers(securityHeaders);
  };
  fastify.addHook('onRequest', (request, reply, done) => {
    baseHeaders(request, reply);
    done();
  });
  const onFrameworkError = frameworkErrorHandler(config.siteUrl, { prepare: baseHeaders, htmlBadRequest, apiPrefix: API_PREFIX });
  // Draining on stop: Fastify closes the keep-alive connections that are idle when it starts
  // closing, but a connection whose request was still in flight goes idle later and would then
  // hold the stop until its client or the keep-alive timeout (72 s) ended it, past
  // SHUTDOWN_TIMEOUT_MS. Until the server has closed, idle connections are closed as they appear.
  fastify.addHook('preClose', (done) => {
    const timer = setInterval(() => fastify.server.closeIdleConnections(), 50);
    fastify.server.once('close', () => clearInterval(timer));
    done();
  });
  // One log line per request, written when the response is done.
  fastify.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request',
    );
    done();
  });

  const routes: Array<{ method: string; url: string; hidden: boolean }> = [];
  // What a path is served with, for the 405s of requests no route took (RFC 9110 §15.5.6).
  const routeMethods = new RouteMethods();
  fastify.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({ method, url: route.url, hidden });
      routeMethods.add(method, route.url);
    }
  });
  return { fastify, routes, routeMethods };
}
