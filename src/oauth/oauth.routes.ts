/**
 * Mounts the authorization server (oidc-provider, a Koa application) in the Fastify app under
 * /oauth, and its RFC 8414 metadata at the well-known addresses clients look for. Requests are
 * handed over raw: Fastify parses no body here (oidc-provider reads its own, with its limits).
 *
 * Before a request is handed over, Host and X-Forwarded-Proto are pinned to SITE_URL, so every
 * URL the server writes (issuer, endpoints, redirects) names our public origin whatever address
 * the request reached; X-Forwarded-For carries the client address Fastify trusted.
 *
 * Dynamic Client Registration is rate-limited per client address (and in total) before
 * oidc-provider sees the request.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { HOUR_MS } from '../domain/access/limits.ts';
import { retryAfterSeconds, type RateLimitStore, type WindowRule } from '../domain/access/rate-limit.ts';
import { OAUTH_PATH, PROVIDER_ROUTES } from './provider.ts';

/** Registrations one client address may make, and all addresses together. */
export const REGISTRATION_RULES: readonly WindowRule[] = Object.freeze([{ id: 'hour', limit: 10, windowMs: HOUR_MS }]);
export const REGISTRATION_TOTAL_RULES: readonly WindowRule[] = Object.freeze([{ id: 'hour', limit: 1000, windowMs: HOUR_MS }]);

/** The authorization server's responses: JSON and redirects, never framed or cached by others. */
const OAUTH_HEADERS: Record<string, string> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; script-src 'none'; frame-ancestors 'none'; base-uri 'none'",
};

/** RFC 8414 (path-inserted and path-appended) and OpenID discovery (path-inserted) addresses of the metadata. */
export const METADATA_ALIASES = [
  `/.well-known/oauth-authorization-server${OAUTH_PATH}`,
  `${OAUTH_PATH}/.well-known/oauth-authorization-server`,
  `/.well-known/openid-configuration${OAUTH_PATH}`,
];

export interface OAuthRoutesOptions {
  provider: Provider;
  config: Config;
  limiter: RateLimitStore;
  clock: Clock;
  onLimiterError(err: unknown): void;
}

type RawRequest = FastifyRequest['raw'] & { originalUrl?: string };

/** `Allow` for a route's methods, in the order the site's 405s list them (HEAD beside GET, as Fastify serves it). */
function allowOf(methods: readonly string[]): string {
  return ['GET', 'HEAD', 'POST', 'OPTIONS'].filter((m) => methods.includes(m) || (m === 'HEAD' && methods.includes('GET'))).join(', ');
}

/** The Fastify plugin serving the authorization server. */
export function oauthRoutes({ provider, config, limiter, clock, onLimiterError }: OAuthRoutesOptions) {
  const site = new URL(config.siteUrl);
  const callback = provider.callback();
  // RATE_LIMIT_MULTIPLIER scales these like every other limit (load tests only).
  const scale = (rules: readonly WindowRule[]) => rules.map((r) => ({ ...r, limit: r.limit * config.rateLimitMultiplier }));
  const ownRules = scale(REGISTRATION_RULES);
  const totalRules = scale(REGISTRATION_TOTAL_RULES);

  /** Hands the request to oidc-provider as if it had arrived at `path` under the mount point. */
  const handOver = (request: FastifyRequest, reply: FastifyReply, path: string) => {
    reply.hijack();
    const raw = request.raw as RawRequest;
    raw.originalUrl = `${OAUTH_PATH}${path}`;
    raw.url = path;
    raw.headers.host = site.host;
    raw.headers['x-forwarded-proto'] = site.protocol.slice(0, -1);
    delete raw.headers['x-forwarded-host'];
    raw.headers['x-forwarded-for'] = request.ip;
    reply.raw.setHeader('x-request-id', request.id);
    for (const [name, value] of Object.entries(OAUTH_HEADERS)) reply.raw.setHeader(name, value);
    if (site.protocol === 'https:') reply.raw.setHeader('strict-transport-security', 'max-age=63072000; includeSubDomains');
    void callback(raw, reply.raw);
  };

  /** Whether a registration may go ahead; answers 429 itself when not. */
  const admitRegistration = async (request: FastifyRequest, reply: FastifyReply): Promise<boolean> => {
    const nowMs = clock.now().getTime();
    try {
      const total = await limiter.consume('oauth:reg:all', totalRules, nowMs);
      const own = total.allowed ? await limiter.consume(`oauth:reg:${request.ip}`, ownRules, nowMs) : total;
      if (own.allowed) return true;
      void reply
        .code(429)
        .headers({ ...OAUTH_HEADERS, 'retry-after': String(retryAfterSeconds(own.windows, nowMs)), 'cache-control': 'no-store' })
        .send({ error: 'rate_limited', error_description: 'Too many client registrations from this address; try again later.' });
      return false;
    } catch (err) {
      // As for the API: a limiter outage lets requests through rather than stopping registrations.
      onLimiterError(err);
      return true;
    }
  };

  return async (fastify: FastifyInstance) => {
    // oidc-provider reads bodies itself; nothing here may consume the stream first.
    fastify.removeAllContentTypeParsers();
    fastify.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    /**
     * OPTIONS that is not a CORS preflight (no Access-Control-Request-Method): oidc-provider
     * answers only preflights and would say 404, while the 405 of the same path lists OPTIONS as
     * allowed. Answered here as RFC 9110 §9.3.7 asks: 204 with the path's methods in Allow.
     */
    const plainOptions = (request: FastifyRequest, reply: FastifyReply, allow: string): boolean => {
      if (request.method !== 'OPTIONS' || request.headers['access-control-request-method'] !== undefined) return false;
      void reply.code(204).headers({ ...OAUTH_HEADERS, allow, 'cache-control': 'no-store' }).send();
      return true;
    };

    const serve = (allow: string) => async (request: FastifyRequest, reply: FastifyReply) => {
      if (plainOptions(request, reply, allow)) return reply;
      const path = request.url.slice(OAUTH_PATH.length) || '/';
      if (request.method === 'POST' && path.split('?')[0] === '/reg' && !(await admitRegistration(request, reply))) return reply;
      handOver(request, reply, path);
      return reply;
    };
    // Only what the authorization server serves reaches it (PROVIDER_ROUTES); any other path is
    // the site's ordinary 404, and another method on a served path its 405 with Allow.
    for (const route of PROVIDER_ROUTES) {
      if (route.path === '/.well-known/oauth-authorization-server') continue; // an alias, below
      fastify.route({ method: [...route.methods], url: `${OAUTH_PATH}${route.path}`, schema: { hide: true }, handler: serve(allowOf(route.methods)) });
    }
    for (const alias of METADATA_ALIASES) {
      fastify.route({
        method: ['GET', 'OPTIONS'],
        url: alias,
        schema: { hide: true },
        handler: async (request, reply) => {
          if (plainOptions(request, reply, allowOf(['GET', 'OPTIONS']))) return reply;
          handOver(request, reply, '/.well-known/openid-configuration');
          return reply;
        },
      });
    }
  };
}
