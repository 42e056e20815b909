/**
 * GET /metrics on the site origin, behind METRICS_TOKEN (docs/metrics.md). Registered only when
 * a token is configured: without one the path is unknown (the 404 problem of any unknown route)
 * and metrics are served, if at all, on the admin listener (admin-server.ts).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { sendProblem } from '../http/problem.ts';
import type { AppMetrics } from './metrics.ts';

export const METRICS_PATH = '/metrics';
const REALM = 'Bearer realm="consulta-metrics"';
const BEARER = /^Bearer[ ]+(\S+)\s*$/i;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Whether `authorization` carries the token, compared in constant time: both sides are hashed
 * first, so neither the token's length nor the position of the first difference shows in timing.
 */
export function tokenMatches(authorization: string | undefined, expected: Buffer): boolean {
  const match = authorization === undefined ? null : BEARER.exec(authorization);
  if (!match) return false;
  return timingSafeEqual(digest(match[1]!), expected);
}

export interface MetricsRoutesOptions {
  metrics: AppMetrics;
  token: string;
  siteUrl: string;
}

export const metricsRoutes: FastifyPluginAsync<MetricsRoutesOptions> = async (app, { metrics, token, siteUrl }) => {
  const expected = digest(token);
  app.get(METRICS_PATH, { schema: { hide: true } }, async (request, reply) => {
    const authorization = request.headers.authorization;
    if (!tokenMatches(authorization, expected)) {
      // Nothing about the metrics in the refusal; the same answer for a wrong token and a malformed header.
      const sent = authorization !== undefined && authorization !== '';
      return sendProblem(
        reply,
        siteUrl,
        'authentication_required',
        sent ? 'The metrics token is not valid.' : 'The metrics endpoint needs the metrics token: send Authorization: Bearer <METRICS_TOKEN>.',
        undefined,
        { 'www-authenticate': sent ? `${REALM}, error="invalid_token"` : REALM, 'cache-control': 'no-store' },
      );
    }
    const { contentType, body } = await metrics.scrape();
    return reply.header('cache-control', 'no-store').type(contentType).send(body);
  });
};
