/**
 * The REST API (/api/v1): deprecation headers, access (authentication, rate limits, the request
 * log), the OpenAPI document built from the routes' schemas, and the routes. The interactive
 * reference (/docs/api) is registered later, as before (apiReferencePlugin).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { AccessService } from '../domain/access/access.service.ts';
import type { RequestLog } from '../domain/access/request-log.ts';
import type { UsageService } from '../domain/access/usage.service.ts';
import type { BookingService } from '../domain/booking/booking.service.ts';
import type { DirectoryService } from '../domain/directory/directory.service.ts';
import type { RouteMethods } from './allowed-methods.ts';
import { API_PREFIX } from './fastify.ts';
import { registerAccess } from './plugins/access.ts';
import { DEPRECATED_ROUTES, registerDeprecations, type DeprecatedRoute } from './plugins/deprecation.ts';
import { registerUnrouted, sendUnrouted } from './problem.ts';
import { bookingRoutes } from './routes/booking.routes.ts';
import { keyRoutes } from './routes/key.routes.ts';
import { lawyerRoutes } from './routes/lawyers.routes.ts';
import { referenceRoutes } from './routes/reference.routes.ts';

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
  'access-control-max-age': '86400',
};

export interface ApiPluginOptions {
  config: Config;
  clock: Clock;
  /** Deprecated routes; tests inject their own declarations. */
  deprecatedRoutes?: readonly DeprecatedRoute[];
  routeMethods: RouteMethods;
  services: { access: AccessService; requestLog: RequestLog; directory: DirectoryService; booking: BookingService; usage: UsageService };
}

/** Registered on the root (fastify-plugin): its hooks and the OpenAPI collector see every route after it. */
export const apiPlugin = fp<ApiPluginOptions>(async (fastify, { config, clock, deprecatedRoutes, routeMethods, services }) => {
  const { access, requestLog, directory, booking, usage } = services;
  registerDeprecations(fastify, deprecatedRoutes ?? DEPRECATED_ROUTES);
  registerAccess(fastify, { prefix: API_PREFIX, access, requestLog, clock });

  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Consulta booking-intent API',
        version: '1.0.0',
        description: 'Find verified, publicly listed immigration lawyers in Spain, read their profiles, reviews and availability, and create booking intents. Errors are RFC 9457 problem documents; every response carries `X-Request-Id`.',
      },
      servers: [{ url: config.baseUrl }],
      tags: [
        { name: 'Lawyers', description: 'The directory of verified lawyers' },
        { name: 'Reference', description: 'Reference data, cacheable for 24 hours' },
        { name: 'Bookings', description: 'Booking intents: 15-minute holds confirmed and paid on the site' },
        { name: 'Account', description: 'The calling API key: description and usage' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_…` (live) or `svc_test_…` (test). Optional on most endpoints (anonymous access has lower per-address limits).' },
        },
      },
      // Anonymous or keyed; key-only operations override this.
      security: [{}, { bearerAuth: [] }],
    },
    transform: ({ schema, url }) => ({ schema: schema as never, url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url }),
  });

  await fastify.register(
    async (api: FastifyInstance) => {
      // No route for the path: 404, or 405 with Allow when the path exists for other methods.
      await registerUnrouted(api, (_request, reply) => sendUnrouted(reply, config.siteUrl, routeMethods));
      // CORS preflight, for any API path (the request hook adds the allow-origin header).
      api.options('/*', { schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(PREFLIGHT_HEADERS).send());
      await api.register(lawyerRoutes, { directory });
      await api.register(referenceRoutes, { directory });
      await api.register(bookingRoutes, { booking });
      await api.register(keyRoutes, { usage });
      api.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=300').send(fastify.swagger()),
      );
    },
    { prefix: API_PREFIX },
  );
});

/** The interactive API reference at /docs/api (its pages alone may use inline styles: src/http/fastify.ts). */
export const apiReferencePlugin = fp(async (fastify) => {
  await fastify.register(swaggerUi, {
    routePrefix: '/docs/api',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
    staticCSP: false,
  });
});
