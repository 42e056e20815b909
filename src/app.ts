/**
 * Builds the Fastify application (never listens): REST API under /api/v1, the site, docs, OAuth
 * and MCP. Composition only: the shared services (src/services.ts), then each area's plugin in
 * a fixed order, which is the order of their hooks
 * (docs/decisions.md#layers-how-the-code-is-put-together). Dependencies come in as arguments so
 * tests and the server build the same thing.
 */
import type { FastifyInstance } from 'fastify';
import type { DeprecatedRoute } from './http/plugins/deprecation.ts';
import { apiPlugin, apiReferencePlugin } from './http/api.plugin.ts';
import { createFastify } from './http/fastify.ts';
import { registerProblemHandlers } from './http/problem.ts';
import { stripeWebhookRoutes } from './http/routes/stripe-webhook.routes.ts';
import { mcpPlugin } from './mcp/mcp.plugin.ts';
import { AppMetrics } from './metrics/metrics.ts';
import { operationsPlugin } from './metrics/operations.plugin.ts';
import { oauthPlugin } from './oauth/oauth.plugin.ts';
import { createServices, type AppServices, type ServiceDeps } from './services.ts';
import { badRequestPage } from './site/plugin.ts';
import { siteAreasPlugin } from './site/site.plugin.ts';

export interface AppDeps extends ServiceDeps {
  /** Deprecated routes; tests inject their own declarations. */
  deprecatedRoutes?: readonly DeprecatedRoute[];
}

export interface App {
  fastify: FastifyInstance;
  /** Every registered route (method + full URL pattern), for docs and conformance tests. */
  routes: ReadonlyArray<{ method: string; url: string; hidden: boolean }>;
  services: AppServices;
  /** Prometheus metrics (docs/metrics.md); null when neither METRICS_TOKEN nor METRICS_PORT is set. */
  metrics: AppMetrics | null;
}

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database, clock } = deps;
  // Logging, request ids, parsers, security headers, the log line and the route table (src/http/fastify.ts).
  const { fastify, routes, routeMethods } = createFastify(config, { htmlBadRequest: badRequestPage(config) });

  // Metrics only when something can read them: otherwise no hook runs and nothing is counted.
  const metrics = config.metricsToken !== null || config.metricsPort !== null ? new AppMetrics({ database, clock, logger: fastify.log }) : null;
  metrics?.instrument(fastify);
  metrics?.providerSeries(config.paymentProvider);

  // Errors are problem documents; requests no route took are answered by the API (its plugin) and
  // the site (its not-found handler: pages for people, problems for scripts).
  registerProblemHandlers(fastify, config.siteUrl);

  const services = await createServices(deps, { logger: fastify.log, metrics, onClose: (close) => fastify.addHook('onClose', close) });

  // The areas, in this order: each registers its own routes and hooks (on the root where they
  // apply to every request: the API's access hooks after the security headers above).
  await fastify.register(apiPlugin, { config, clock, deprecatedRoutes: deps.deprecatedRoutes, routeMethods, services });
  await fastify.register(operationsPlugin, { config, database, metrics });
  await fastify.register(oauthPlugin, { config, clock, provider: services.oauthProvider, limiter: services.limiter });
  await fastify.register(siteAreasPlugin, { config, database, clock, services, routeMethods });
  await fastify.register(apiReferencePlugin);
  // Stripe's signed events; the demo provider has none.
  if (config.paymentProvider === 'stripe') await fastify.register(stripeWebhookRoutes, { payments: services.payments, siteUrl: config.siteUrl });
  await fastify.register(mcpPlugin, { config, database, clock, services, metrics });

  return { fastify, routes, metrics, services };
}
