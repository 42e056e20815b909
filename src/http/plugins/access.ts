/**
 * Wires the access service into every API request: authentication, rate limits (with their
 * headers on every response), route scopes, and one request-log entry per request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { AccessService, Caller, RouteAccess } from '../../domain/access/access.service.ts';
import { rateLimitHeaders, type WindowState } from '../../domain/access/rate-limit.ts';
import { loggedQuery, type RequestLog } from '../../domain/access/request-log.ts';
import type { DomainError, ErrorCode } from '../../domain/errors.ts';
import { clientIp } from '../client-ip.ts';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller | null;
    /** The rate-limit refusal a route with `replayBeforeLimit` applies once the request is not a replay. */
    limitRefusal: DomainError | null;
    /** The problem code sent, for the request log. */
    errorCode: ErrorCode | null;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

const DEFAULT_ACCESS: RouteAccess = {};

export interface AccessPluginOptions {
  prefix: string;
  access: AccessService;
  requestLog: RequestLog;
  clock: Clock;
}

/** Reads the route's access requirements (routes declare them in `config.access`). */
function routeAccess(request: FastifyRequest): RouteAccess {
  return request.routeOptions.config?.access ?? DEFAULT_ACCESS;
}

export function registerAccess(app: FastifyInstance, { prefix, access, requestLog, clock }: AccessPluginOptions): void {
  app.decorateRequest('caller', null);
  app.decorateRequest('errorCode', null);
  app.decorateRequest('limitRefusal', null);

  /** A refusal's headers; false when the request goes on to its route all the same (a replay before the limit), else rethrow it. */
  const refused = (request: FastifyRequest, reply: FastifyReply, route: RouteAccess, err: unknown): boolean => {
    // Refused for its origin: the browser of the page that tried gets nothing it may read.
    if ((err as DomainError).code === 'origin_not_allowed') reply.removeHeader('access-control-allow-origin');
    const windows = (err as DomainError & { windows?: WindowState[] }).windows;
    if (windows) reply.headers(rateLimitHeaders(windows, clock.now().getTime()));
    if (route.replayBeforeLimit && request.caller?.kind === 'anonymous' && (err as DomainError).code === 'rate_limited' && request.headers['idempotency-key'] !== undefined) {
      request.limitRefusal = err as DomainError;
      return false;
    }
    return true;
  };
  const admit = async (request: FastifyRequest, reply: FastifyReply, route: RouteAccess): Promise<void> => {
    try {
      request.caller = await access.authenticate(request.headers.authorization, clientIp(request), route, request.headers.origin);
      // A publishable key's answers are readable by its own origins only (docs/widget.md).
      if (request.caller.kind === 'key' && request.caller.key.kind === 'publishable') reply.header('access-control-allow-origin', request.headers.origin!).header('vary', 'Origin');
      const windows = await access.admit(request.caller, route);
      if (windows) reply.headers(rateLimitHeaders(windows, clock.now().getTime()));
    } catch (err) {
      if (refused(request, reply, route, err)) throw err;
    }
  };
  // A callback hook: requests outside the API (the site's pages) pass without a promise, and so
  // do anonymous ones while the limiter is in this process (AccessService.admitAnonymousNow).
  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS' || !request.url.startsWith(prefix)) return done();
    const route = routeAccess(request);
    const authorization = request.headers.authorization;
    if (authorization === undefined || authorization === '') {
      const ip = clientIp(request);
      request.caller = { kind: 'anonymous', ip };
      let windows: WindowState[] | null | undefined;
      try {
        windows = access.admitAnonymousNow(ip, route);
      } catch (err) {
        return refused(request, reply, route, err) ? done(err as Error) : done();
      }
      if (windows !== undefined) {
        if (windows) reply.headers(rateLimitHeaders(windows, clock.now().getTime()));
        return done();
      }
      request.caller = null;
    }
    admit(request, reply, route).then(() => done(), done);
  });

  // The entry's time, as text: many requests end within the same millisecond under load, and
  // toISOString is the larger part of reading the clock.
  let lastMs = Number.NaN;
  let lastIso = '';
  const isoNow = (): string => {
    const now = clock.now();
    const ms = now.getTime();
    if (ms !== lastMs) {
      lastMs = ms;
      lastIso = now.toISOString();
    }
    return lastIso;
  };

  app.addHook('onResponse', (request, reply, done) => {
    if (request.method !== 'OPTIONS' && request.url.startsWith(prefix)) {
      const caller = request.caller;
      const key = caller?.kind === 'key' ? caller.key : null;
      const q = request.url.indexOf('?');
      requestLog.record({
        request_id: request.id,
        at: isoNow(),
        key_id: key?.id ?? null,
        owner_type: key ? key.owner.type : null,
        owner_id: key ? (key.owner.type === 'user' ? key.owner.userId : key.owner.firmId) : null,
        test: key?.mode === 'test' ? 1 : 0,
        method: request.method,
        route: request.routeOptions.url ?? (q < 0 ? request.url : request.url.slice(0, q)),
        path: q < 0 ? request.url : request.url.slice(0, q),
        query: q < 0 ? null : loggedQuery(request.url, q),
        status: reply.statusCode,
        duration_ms: Math.round(reply.elapsedTime * 100) / 100,
        // The caller has the address already (clientIp above); a request refused before it was known has not.
        client_ip: caller?.ip ?? clientIp(request),
        error_code: request.errorCode,
      });
    }
    done();
  });
}
