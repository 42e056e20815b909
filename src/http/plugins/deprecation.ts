/**
 * Deprecation of routes, declared in one place. A declared route answers with
 * `Deprecation` (RFC 9745, `@<unix seconds>`), `Sunset` (RFC 8594, HTTP-date) and a
 * `Link: <…>; rel="deprecation"` to the changelog entry, on every response including errors.
 */
import type { FastifyInstance, onSendHookHandler } from 'fastify';

export interface DeprecatedRoute {
  method: string;
  /** The full route pattern, e.g. `/api/v1/lawyers/:lawyerId/availability`. */
  url: string;
  deprecatedAt: Date;
  sunsetAt: Date;
  /** Where the change and its replacement are described. */
  link: string;
}

/** The deprecated routes of the live API. Version 1 deprecates nothing today. */
export const DEPRECATED_ROUTES: readonly DeprecatedRoute[] = [];

export function deprecationHeaders(d: DeprecatedRoute): Record<string, string> {
  return {
    deprecation: `@${Math.floor(d.deprecatedAt.getTime() / 1000)}`,
    sunset: d.sunsetAt.toUTCString(),
    link: `<${d.link}>; rel="deprecation"; type="text/html"`,
  };
}

/** Must be registered before the routes it covers. */
export function registerDeprecations(app: FastifyInstance, routes: readonly DeprecatedRoute[]): void {
  if (routes.length === 0) return;
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const match = routes.find((d) => d.url === route.url && methods.includes(d.method));
    if (!match) return;
    const headers = deprecationHeaders(match);
    const hook: onSendHookHandler = async (_request, reply, payload) => {
      reply.headers(headers);
      return payload;
    };
    const existing = route.onSend;
    route.onSend = existing === undefined ? [hook] : Array.isArray(existing) ? [...existing, hook] : [existing, hook];
    route.schema = { ...route.schema, deprecated: true } as typeof route.schema;
  });
}
