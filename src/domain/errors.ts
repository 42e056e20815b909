/**
 * The error catalogue: every stable `code` a client can receive, with its HTTP status and the
 * text of its documentation page (`/docs/errors/{code}`). The domain throws `DomainError`s;
 * the HTTP layer maps them to RFC 9457 problem documents from this table and nothing else.
 */
export interface ErrorCodeInfo {
  status: number;
  title: string;
  /** What it means, for the documentation page. */
  description: string;
  /** What the caller should do about it. */
  resolution: string;
}

export const ERROR_CODES = {
  invalid_request: {
    status: 400,
    title: 'Invalid request',
    description: 'A parameter, header or body field is missing, malformed, out of range or unknown. The `errors` array names each offending field with a JSON pointer (`/query/limit`, `/body/date`).',
    resolution: 'Fix the fields listed in `errors` and send the request again. Do not retry unchanged.',
  },
  authentication_required: {
    status: 401,
    title: 'Authentication required',
    description: 'This endpoint needs an API key and none was sent.',
    resolution: 'Send `Authorization: Bearer <API_KEY>`.',
  },
  invalid_api_key: {
    status: 401,
    title: 'Invalid API key',
    description: 'The bearer token is not a valid, active API key (unknown, revoked, malformed, or an MCP access token).',
    resolution: 'Check the key in the developer area of the dashboard. A request with a bad key is never treated as anonymous.',
  },
  expired_api_key: {
    status: 401,
    title: 'Expired API key',
    description: 'The API key passed its expiry time.',
    resolution: 'Create a new key in the developer area of the dashboard.',
  },
  insufficient_scope: {
    status: 403,
    title: 'Insufficient scope',
    description: 'The API key does not carry the scope this endpoint requires.',
    resolution: 'Use a key created with the scope named in `detail`.',
  },
  api_key_suspended: {
    status: 403,
    title: 'API key suspended',
    description: 'The API key is valid but paused. A suspension set by the firm that owns the key can be lifted by the firm; one set by the service operator can be lifted only by the operator. The key is not deleted and keeps its settings.',
    resolution: 'Ask the key owner (the firm owners or administrators) or Consulta support, as `detail` says, to lift the suspension; or use another key. Retrying unchanged does not help.',
  },
  ip_not_allowed: {
    status: 403,
    title: 'Address not allowed',
    description: 'The API key carries an IP allow-list and the address the request came from is not on it. The address is the TCP peer, or the client named by a trusted proxy.',
    resolution: 'Send the request from an allowed address, or ask the key owner to add this address or range to the key\'s allow-list.',
  },
  origin_not_allowed: {
    status: 403,
    title: 'Origin not allowed',
    description: 'A publishable key (`pk_live_…`, `pk_test_…`) was used without a browser `Origin` on its list of web origins: from another site, or from a server. Publishable keys are for the booking widget in the pages of the sites their owner named.',
    resolution: 'Add the site\'s origin to the key in the dashboard (Developers → Booking widget), or call from a server with a secret key (`svc_…`).',
  },
  forbidden: {
    status: 403,
    title: 'Forbidden',
    description: 'The caller can see this resource but is not allowed to perform this action on it (for example a firm administrator changing an owner, or anyone but the operator changing a key\'s tier).',
    resolution: 'Ask someone with the required role or permission (a firm owner, or the operator) to do it.',
  },
  not_found: {
    status: 404,
    title: 'Not found',
    description: 'The lawyer, booking intent or route does not exist, or is not visible to the caller (lawyers that are not verified and publicly listed are never shown).',
    resolution: 'Check the identifier; search again to obtain current lawyer ids.',
  },
  method_not_allowed: {
    status: 405,
    title: 'Method not allowed',
    description: 'The path exists but does not accept this HTTP method (for example `DELETE /api/v1/lawyers/search`, or `GET` on `/api/v1/bookings/initiate`). The `Allow` header lists the methods the path accepts (RFC 9110 §15.5.6), derived from the routes the service serves.',
    resolution: 'Send the request with one of the methods in `Allow`; the API reference lists each path\'s operations. Retrying unchanged does not help.',
  },
  payload_too_large: {
    status: 413,
    title: 'Payload too large',
    description: 'The request body is larger than the service accepts.',
    resolution: 'Send a smaller body; no endpoint needs more than a few hundred bytes.',
  },
  unsupported_media_type: {
    status: 415,
    title: 'Unsupported media type',
    description: 'The request body is not `application/json`.',
    resolution: 'Send JSON with `Content-Type: application/json`.',
  },
  headers_too_large: {
    status: 431,
    title: 'Request headers too large',
    description: 'The request headers are larger than the service accepts (16 KiB in all). The request was refused before it was read.',
    resolution: 'Send fewer or shorter headers (a long `Cookie` or a repeated header is the usual cause).',
  },
  request_timeout: {
    status: 408,
    title: 'Request timeout',
    description: 'The request did not arrive in full within the time the service waits for it.',
    resolution: 'Send the request again; check for a slow or stalled connection.',
  },
  conflict: {
    status: 409,
    title: 'Conflict',
    description: 'The action conflicts with the current state of the resource: it already exists, it was changed concurrently, or it would break an invariant (a firm always keeps at least one owner; a revoked key cannot be changed).',
    resolution: 'Read the resource again and decide; `detail` says what is in the way.',
  },
  idempotency_key_in_use: {
    status: 409,
    title: 'Idempotency key in use',
    description: 'A request with this `Idempotency-Key` is still being processed.',
    resolution: 'Retry after the delay in `Retry-After`; you will then get the original result.',
  },
  idempotency_key_reused: {
    status: 422,
    title: 'Idempotency key reused',
    description: 'The `Idempotency-Key` was already used within 24 hours with a different request body.',
    resolution: 'Use a new key for a new request; reuse a key only to retry the identical request.',
  },
  rate_limited: {
    status: 429,
    title: 'Rate limit exceeded',
    description: 'Too many requests in the current window.',
    resolution: 'Wait for the number of seconds in `Retry-After`, then retry with exponential backoff and jitter.',
  },
  internal_error: {
    status: 500,
    title: 'Internal error',
    description: 'Something failed on our side. Nothing about it is shown to the caller; the request id identifies it for support.',
    resolution: 'Retry with backoff; if it persists, contact support quoting the `instance` (the request id).',
  },
  service_unavailable: {
    status: 503,
    title: 'Service unavailable',
    description: 'The service is shutting down or a dependency (the database) is unreachable.',
    resolution: 'Retry after the delay in `Retry-After`, with backoff.',
  },
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Reference data a client can list to find valid values (the directory's cities, its practice areas). */
export type ReferenceList = 'cities' | 'practice_areas';

/**
 * One offending field: a JSON pointer into the request (`/query/limit`) and what is wrong. When
 * valid values are listed somewhere, `see` names the list and each surface says how to get it
 * (REST: its endpoint; MCP: its tool), after `detail`.
 */
export interface FieldError {
  pointer: string;
  detail: string;
  see?: ReferenceList;
}

/** An error with a stable code that is safe to show to the client. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'DomainError';
  }
}

export const invalidRequest = (detail: string, errors?: FieldError[]) => new DomainError('invalid_request', detail, errors);
export const notFound = (detail: string) => new DomainError('not_found', detail);
export const forbidden = (detail: string) => new DomainError('forbidden', detail);
export const conflict = (detail: string) => new DomainError('conflict', detail);
