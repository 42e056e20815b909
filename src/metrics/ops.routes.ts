/** Health and readiness on the site origin (JSON, for load balancers and orchestrators). */
import type { FastifyPluginAsync } from 'fastify';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { sendProblem } from '../http/problem.ts';

export const opsRoutes: FastifyPluginAsync<{ config: Config; database: Database }> = async (app, { config, database }) => {
  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    try {
      await database.ping();
      return { status: 'ready', database: database.dialect };
    } catch {
      return sendProblem(reply, config.siteUrl, 'service_unavailable', 'The database is not reachable.', undefined, { 'retry-after': '5' });
    }
  });
};
