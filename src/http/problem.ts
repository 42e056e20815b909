/**
 * RFC 9457 problem documents: the only shape an error leaves the service in. Every thrown error
 * (domain, validation, parser, or unexpected) is mapped here; stack traces and SQL never leave.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable } from '../db/database.ts';
import { DomainError, ERROR_CODES, type ErrorCode, type FieldError, type ReferenceList } from '../domain/errors.ts';
import { toFieldErrors } from '../domain/validation.ts';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  instance: string;
  errors?: FieldError[];
}

/** Where the API lists the valid values of a field (FieldError.see), after its detail. */
const REFERENCE_LISTS: Record<ReferenceList, string> = {
  cities: 'valid slugs and names are listed by GET /api/v1/cities',
  practice_areas: 'valid slugs are listed by GET /api/v1/practice-areas',
};

/** A field error as the API words it: `{pointer, detail}`, the detail saying where valid values are listed. */
const apiFieldError = ({ pointer, detail, see }: FieldError): FieldError => ({ pointer, detail: see ? `${detail}; ${REFERENCE_LISTS[see]}` : detail });

export function problemBody(siteUrl: string, requestId: string, code: ErrorCode, detail: string, errors?: FieldError[]): ProblemBody {
  const info = ERROR_CODES[code];
  const body: ProblemBody = {
    type: `${siteUrl}/docs/errors/${code}`,
    title: info.title,
    status: info.status,
    detail,
    code,
    instance: requestId,
  };
  if (errors && errors.length > 0) body.errors = errors.map(apiFieldError);
  return body;
}

export function sendProblem(
  reply: FastifyReply,
  siteUrl: string,
  code: ErrorCode,
  detail: string,
  errors?: FieldError[],
  headers?: Record<string, string>,
): FastifyReply {
  const body = problemBody(siteUrl, reply.request.id, code, detail, errors);
  reply.request.errorCode = code;
  if (headers) reply.headers(headers);
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}

const VALIDATION_PREFIX: Record<string, string> = {
  querystring: '/query',
  body: '/body',
  params: '/params',
  headers: '/headers',
};

const VALIDATION_NOUN: Record<string, [string, string]> = {
  '/query': ['query parameter', 'query parameters'],
  '/body': ['body field', 'body fields'],
  '/params': ['path parameter', 'path parameters'],
  '/headers': ['header', 'headers'],
};

/** Maps anything thrown to a problem document. */
export function registerProblemHandlers(app: FastifyInstance, siteUrl: string): void {
  app.setErrorHandler(problemErrorHandler(siteUrl));
}

/** The error handler behind every problem document (also used by the site for what is not a page). */
export function problemErrorHandler(siteUrl: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (error instanceof DomainError) {
      return sendProblem(reply, siteUrl, error.code, error.detail, error.errors, error.headers);
    }
    if (error.validation) {
      const prefix = VALIDATION_PREFIX[error.validationContext ?? ''] ?? '';
      const errors = toFieldErrors(error.validation as never, prefix);
      const noun = VALIDATION_NOUN[prefix] ?? ['field', 'fields'];
      const detail = errors.length === 1 ? `1 ${noun[0]} is not valid; see errors.` : `${errors.length} ${noun[1]} are not valid; see errors.`;
      return sendProblem(reply, siteUrl, 'invalid_request', detail, errors);
    }
    switch (error.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendProblem(reply, siteUrl, 'payload_too_large', 'The request body is larger than the service accepts.');
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendProblem(reply, siteUrl, 'unsupported_media_type', 'Send the body as application/json.');
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
        return sendProblem(reply, siteUrl, 'invalid_request', 'The body is empty; send a JSON object.', [{ pointer: '/body', detail: 'is required' }]);
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendProblem(reply, siteUrl, 'invalid_request', 'The body is not valid JSON.', [{ pointer: '/body', detail: 'is not valid JSON' }]);
    }
    if (error instanceof SyntaxError || (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)) {
      // Other client errors raised by the framework (malformed URL, bad header…): say what, not how.
      const detail = error instanceof SyntaxError ? 'The body is not valid JSON.' : 'The request could not be understood.';
      return sendProblem(reply, siteUrl, 'invalid_request', detail);
    }
    if (isDatabaseUnavailable(error)) {
      // An outage, not a bug: a 503 the client may retry (with its Idempotency-Key), and readiness is red meanwhile.
      request.log.warn({ err: error }, 'database unavailable');
      return sendProblem(reply, siteUrl, 'service_unavailable', 'The service cannot reach its database right now. Retry after the delay in Retry-After.', undefined, { 'retry-after': '5' });
    }
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, siteUrl, 'internal_error', `Something failed on our side. Quote ${request.id} to support.`);
  };
}

/** What the not-found answer needs to tell a wrong method from an unknown path. */
export interface AllowedMethods {
  allowed(path: string): string[] | null;
}

/**
 * The methods to list in `Allow` when `path` is served but not with `method`; null when the path
 * is unknown, or is served with this method and what it names does not exist (an unknown asset
 * name, an id no route handler found): both are 404s.
 */
export function methodNotAllowed(routes: AllowedMethods, method: string, path: string): string[] | null {
  const allow = routes.allowed(path);
  return allow && !allow.includes(method.toUpperCase()) ? allow : null;
}

/**
 * The problem for a request no route matched: 405 `method_not_allowed` with `Allow` when the
 * path is served with other methods (RFC 9110 §15.5.6), else 404 `not_found`.
 */
export function sendUnrouted(reply: FastifyReply, siteUrl: string, routes: AllowedMethods): FastifyReply {
  const { method, url } = reply.request;
  const path = url.split('?', 1)[0]!;
  const allow = routes.allowed(path);
  if (allow && !allow.includes(method.toUpperCase())) {
    return sendProblem(reply, siteUrl, 'method_not_allowed', `${path} does not accept ${method}; it accepts ${allow.join(', ')} (see the Allow header).`, undefined, { allow: allow.join(', ') });
  }
  // A route took the request and found nothing (an unknown asset name): not a routing question.
  if (allow) return sendProblem(reply, siteUrl, 'not_found', `Nothing exists at ${path}.`);
  return sendProblem(reply, siteUrl, 'not_found', `No route ${method} ${path}. The API reference is at ${siteUrl}/docs/api.`);
}

/**
 * Makes `answer` the not-found handler of `app`'s prefix, run as soon as the hooks registered
 * before it have run (the request id, authentication and limits) and before the body is read: a
 * wrong method is a 405, and an unknown path a 404, whatever body came with it (a broken JSON
 * body would otherwise be a 400 from the parser first). Routed requests never see the hook: it
 * belongs to the not-found context only.
 */
export async function registerUnrouted(app: FastifyInstance, answer: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>): Promise<void> {
  await app.register(async (unrouted) => {
    unrouted.addHook('onRequest', async (request, reply) => {
      await answer(request, reply);
      return reply;
    });
    unrouted.setNotFoundHandler(answer);
  });
}

export interface FrameworkErrorOptions {
  /** Sets what the request hooks would have set (request id, security headers): none has run yet. */
  prepare(request: FastifyRequest, reply: FastifyReply): void;
  /** The site's 400 page, for people: paths outside the API whose client accepts HTML. */
  htmlBadRequest?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  apiPrefix?: string;
}

/**
 * Fastify's `frameworkErrors`: what its router refuses before any hook or route runs (a path that
 * is not valid percent-encoded UTF-8, a path segment longer than the router's limit). Without it
 * Fastify answers its own JSON, with no request id; with it, the answer is the same as for any
 * other malformed request: a 400 problem (or the 400 page for a person on the site).
 */
export function frameworkErrorHandler(siteUrl: string, options: FrameworkErrorOptions) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    options.prepare(request, reply);
    const { htmlBadRequest, apiPrefix } = options;
    if (htmlBadRequest && !(apiPrefix && request.url.startsWith(apiPrefix)) && (request.headers.accept ?? '').includes('text/html')) {
      return htmlBadRequest(request, reply);
    }
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      return sendProblem(reply, siteUrl, 'invalid_request', 'A path segment is longer than any identifier the service uses.', [{ pointer: '/path', detail: 'has a segment that is too long' }]);
    }
    if (error.code === 'FST_ERR_BAD_URL') {
      return sendProblem(reply, siteUrl, 'invalid_request', 'The path is not valid percent-encoded UTF-8.', [{ pointer: '/path', detail: 'is not valid percent-encoding' }]);
    }
    return sendProblem(reply, siteUrl, 'invalid_request', 'The request could not be understood.');
  };
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses before Fastify sees a request
 * (headers over the size limit, a malformed request line or body framing, a request that took too
 * long to arrive). The answer is written on the socket as a problem document with a fresh request
 * id, and the connection is closed (the parser's state is unknown).
 */
export function clientErrorHandler(siteUrl: string, newRequestId: () => string, headers: Record<string, string>) {
  return (err: NodeJS.ErrnoException, socket: Duplex): void => {
    // A reset: nobody is left to answer.
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const code: ErrorCode = err.code === 'HPE_HEADER_OVERFLOW' ? 'headers_too_large' : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 'request_timeout' : 'invalid_request';
    const detail = {
      headers_too_large: 'The request headers are larger than the service accepts (16 KiB in all).',
      request_timeout: 'The request did not arrive in time.',
      invalid_request: 'The request is not valid HTTP/1.1.',
    }[code as 'headers_too_large' | 'request_timeout' | 'invalid_request'];
    const id = newRequestId();
    const body = JSON.stringify(problemBody(siteUrl, id, code, detail));
    // Never in the middle of a response already under way on this connection.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (socket.writable && !inFlight?.headersSent) {
      const head = [
        `HTTP/1.1 ${ERROR_CODES[code].status} ${STATUS_CODES[ERROR_CODES[code].status]}`,
        `content-type: ${PROBLEM_CONTENT_TYPE}; charset=utf-8`,
        `content-length: ${Buffer.byteLength(body)}`,
        `x-request-id: ${id}`,
        ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
        'connection: close',
      ];
      socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
    }
    socket.destroy();
  };
}
