/**
 * The OAuth authorization server under /oauth (docs/mcp.md#authorization). The provider itself is
 * built once by the app (src/services.ts): the site's consent page (src/site/oauth) uses it too.
 */
import fp from 'fastify-plugin';
import type Provider from 'oidc-provider';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { RateLimitStore } from '../domain/access/rate-limit.ts';
import { oauthRoutes } from './oauth.routes.ts';

export interface OAuthPluginOptions {
  config: Config;
  clock: Clock;
  provider: Provider;
  limiter: RateLimitStore;
}

export const oauthPlugin = fp<OAuthPluginOptions>(async (fastify, { config, clock, provider, limiter }) => {
  await fastify.register(
    oauthRoutes({ provider, config, limiter, clock, onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; client registration let through') }),
  );
});
