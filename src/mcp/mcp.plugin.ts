/**
 * The MCP server at MCP_URL (docs/mcp.md): the same services as the API, for the person who
 * connected the app, with per-person and per-app limits and tokens from the OAuth server.
 */
import fp from 'fastify-plugin';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AccountsService } from '../domain/access/accounts.service.ts';
import type { RateLimitStore } from '../domain/access/rate-limit.ts';
import type { RequestLog } from '../domain/access/request-log.ts';
import type { BookingService } from '../domain/booking/booking.service.ts';
import type { ConsultationsService } from '../domain/booking/consultations.service.ts';
import type { DirectoryService } from '../domain/directory/directory.service.ts';
import type { AccessTokenVerifier } from '../domain/oauth/access-token-verifier.ts';
import type { ScopeChallenges } from '../domain/oauth/scope-challenges.ts';
import type { PersonLanguagesService } from '../domain/people/person-languages.service.ts';
import { PurchaseService } from '../domain/booking/purchase.service.ts';
import { createFencer } from '../domain/directory/fence.ts';
import { AgentLimits } from '../domain/oauth/agent-limits.ts';
import { newRequestId } from '../http/request-id.ts';
import type { AppMetrics } from '../metrics/metrics.ts';
import { mcpRoutes } from './mcp.routes.ts';
import { toolDefinitions } from './tools.ts';

export interface McpPluginOptions {
  config: Config;
  database: Database;
  clock: Clock;
  /** The app's shared services that MCP uses (src/services.ts builds them). */
  services: {
    directory: DirectoryService;
    booking: BookingService;
    consultations: ConsultationsService;
    accounts: AccountsService;
    people: PersonLanguagesService;
    limiter: RateLimitStore;
    accessTokens: AccessTokenVerifier;
    requestLog: RequestLog;
    scopeChallenges: ScopeChallenges;
  };
  metrics: AppMetrics | null;
}

export const mcpPlugin = fp<McpPluginOptions>(async (fastify, { config, database, clock, services, metrics }) => {
  const { directory, booking, consultations, accounts, people, limiter, accessTokens, requestLog, scopeChallenges } = services;
  const agentLimits = new AgentLimits({
    limiter,
    clock,
    multiplier: config.rateLimitMultiplier,
    onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; MCP call let through'),
  });
  await fastify.register(
    mcpRoutes({
      config,
      verifier: accessTokens,
      server: {
        tools: toolDefinitions({ config, directory, booking, consultations, limits: agentLimits, accounts, fencer: createFencer(config.fenceSecret), people: { languages: people, purchase: new PurchaseService({ database, clock }) } }),
        admitCall: (userId, clientId) => agentLimits.admitCall(userId, clientId),
        requestLog,
        clock,
        newRequestId,
        metrics: metrics ?? undefined,
      },
      onError: (err) => fastify.log.error({ err }, 'MCP request failed'),
      onScopeChallenge: (userId, clientId, scope) => scopeChallenges.record(userId, clientId, scope),
    }),
  );
});
