/**
 * RFC 9457 problem documents: the only shape an error leaves the service in. Every thrown error
 * (domain, validation, parser, or unexpected) is mapped here; stack traces and SQL never leave.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, ERROR_CODES, type ErrorCode, type FieldError } from '../domain/errors.ts';
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
  if (errors && errors.length > 0) body.errors = errors;
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

export interface ProblemHandlerOptions {
  /** The site's 404 page, for people: paths outside the API whose client accepts HTML. */
  htmlNotFound?: (request: FastifyRequest, reply: FastifyReply) => FastifyReply;
  apiPrefix?: string;
}

/** Maps anything thrown to a problem document. */
export function registerProblemHandlers(app: FastifyInstance, siteUrl: string, options: ProblemHandlerOptions = {}): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
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
    request.log.error({ err: error }, 'unhandled error');
    return sendProblem(reply, siteUrl, 'internal_error', `Something failed on our side. Quote ${request.id} to support.`);
  });

  app.setNotFoundHandler((request, reply) => {
    const { htmlNotFound, apiPrefix } = options;
    if (htmlNotFound && !(apiPrefix && request.url.startsWith(apiPrefix)) && (request.headers.accept ?? '').includes('text/html')) {
      return htmlNotFound(request, reply);
    }
    return sendProblem(reply, siteUrl, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}. The API reference is at ${siteUrl}/docs/api.`);
  });
}
