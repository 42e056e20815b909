/**
 * Operations on the public origin: health and readiness (/healthz, /readyz) and, with
 * METRICS_TOKEN, the Prometheus scrape at /metrics (docs/metrics.md). The metrics' hooks are
 * installed by the app before any route (AppMetrics.instrument), and the admin listener
 * (METRICS_PORT) is the server's (src/metrics/admin-server.ts).
 */
import fp from 'fastify-plugin';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AppMetrics } from './metrics.ts';
import { metricsRoutes } from './metrics.routes.ts';
import { opsRoutes } from './ops.routes.ts';

export interface OperationsPluginOptions {
  config: Config;
  database: Database;
  metrics: AppMetrics | null;
}

export const operationsPlugin = fp<OperationsPluginOptions>(async (fastify, { config, database, metrics }) => {
  await fastify.register(opsRoutes, { config, database });
  if (metrics && config.metricsToken !== null) await fastify.register(metricsRoutes, { metrics, token: config.metricsToken, siteUrl: config.siteUrl });
});
