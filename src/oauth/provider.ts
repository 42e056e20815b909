/**
 * The OAuth 2.1 authorization server of the MCP server: oidc-provider configured for public
 * clients only (PKCE S256 required, no client secrets), one resource (MCP_URL) whose opaque
 * access tokens carry it as their only audience, rotating refresh tokens, RFC 9207 `iss` in
 * responses, Dynamic Client Registration and Client ID Metadata Documents (fetched with the
 * webhooks' SSRF policy). Sign-in and consent are the site's pages (src/site/oauth/).
 */
import { generateKeyPairSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type * as Oidc from 'oidc-provider';
import type { default as Provider, Configuration, KoaContextWithOIDC } from 'oidc-provider';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { findLatestGrantOfClient } from '../db/repositories/oauth.repository.ts';
import { isLevel, LEVELS } from '../domain/oauth/levels.ts';
import { APP_NAME_MAX, checkShortText } from '../domain/third-party-text.ts';
import { PROBLEM_CONTENT_TYPE, problemBody } from '../http/problem.ts';
import { kyselyAdapter } from './adapter.ts';
import { safeFetch, type OutboundOptions } from './safe-fetch.ts';

/** Where the authorization server lives, under the site's origin. */
export const OAUTH_PATH = '/oauth';
/** The site page an authorization continues on (sign-in, then consent). */
export const INTERACTION_PATH = `${OAUTH_PATH}/interaction`;
/** The site page a person is sent to when an authorization request cannot go back to the app. */
export const ERROR_PAGE_PATH = `${OAUTH_PATH}/error`;

/**
 * What oidc-provider serves under OAUTH_PATH with this configuration, and with which methods
 * (HEAD comes with GET): each is a route of its own, so any other path is the site's ordinary 404
 * and a served path asked with another method a 405 with `Allow` (a page for people, a problem for
 * machines), without reaching the provider. Enabling a feature (introspection, logout…) means
 * adding its route here.
 */
export const PROVIDER_ROUTES: ReadonlyArray<{ path: string; methods: ReadonlyArray<'GET' | 'POST' | 'OPTIONS'> }> = [
  { path: '/auth', methods: ['GET'] },
  { path: '/auth/:uid', methods: ['GET'] },
  { path: '/token', methods: ['POST', 'OPTIONS'] },
  { path: '/token/revocation', methods: ['POST', 'OPTIONS'] },
  { path: '/reg', methods: ['POST'] },
  { path: '/reg/:clientId', methods: ['GET'] },
  { path: '/jwks', methods: ['GET', 'OPTIONS'] },
  { path: '/.well-known/openid-configuration', methods: ['GET', 'OPTIONS'] },
  { path: '/.well-known/oauth-authorization-server', methods: ['GET', 'OPTIONS'] },
];

/**
 * The authorization endpoint and its resumption: the routes whose errors a person may meet (a
 * page) or a machine (a problem document). Every other route (token, registration, revocation…)
 * keeps OAuth's own JSON, `{error, error_description}` (RFC 6749, RFC 7591), whoever asks.
 */
const AUTHORIZATION_ROUTES = new Set(['authorization', 'resume']);

/**
 * An error of ours under OAUTH_PATH as an RFC 9457 problem document (the API's shape and
 * catalogue: src/http/problem.ts, docs/errors.md), with OAuth's own error code kept as `error`.
 * The instance is the X-Request-Id the Fastify route set before handing the request over.
 */
function sendProblem(ctx: { res: ServerResponse; status: number; type: string; body: unknown }, siteUrl: string, status: number, oauth?: { error: string; error_description?: string }): void {
  const requestId = String(ctx.res.getHeader('x-request-id') ?? '');
  const body =
    status >= 500
      ? problemBody(siteUrl, requestId, 'internal_error', `Something failed on our side. Quote ${requestId} to support.`)
      : status === 404
        ? problemBody(siteUrl, requestId, 'not_found', 'No such address of the authorization server. Its endpoints are listed at /oauth/.well-known/openid-configuration.')
        : problemBody(siteUrl, requestId, 'invalid_request', oauth ? `${oauth.error}${oauth.error_description ? `: ${oauth.error_description}` : ''}` : 'The request could not be understood.');
  ctx.status = body.status;
  ctx.type = `${PROBLEM_CONTENT_TYPE}; charset=utf-8`;
  ctx.body = oauth && status < 500 ? { ...body, error: oauth.error } : body;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Refresh tokens and grants outlive access tokens; a grant unused for this long lapses. */
const REFRESH_TOKEN_TTL_SECONDS = 30 * 86_400;
const GRANT_TTL_SECONDS = 90 * 86_400;

/** The site session a request carries, as the authorization server needs it. */
export interface SiteSession {
  /** The signed-in person (users.id): the only account an authorization may be for. */
  accountId: string;
  /** When the site session ends if unused (ISO): the login session must not outlive it. */
  endsAt: string;
}

export interface ProviderOptions {
  config: Config;
  database: Database;
  clock: Clock;
  /** The site session of a session cookie's value, or null (none, ended, unknown). */
  siteSession(token: string | undefined): Promise<SiteSession | null>;
  /** The site session cookie's name (`__Host-consulta_session` on HTTPS). */
  siteSessionCookie: string;
  /** How Client ID Metadata Documents are fetched (tests point it at a local HTTPS host). */
  outbound?: OutboundOptions;
}

/**
 * Client secret methods a registration may ask for. Such a client is registered as a public one
 * instead (RFC 7591 §3.2.1 lets the server replace requested metadata): the answer says
 * `token_endpoint_auth_method: "none"` and carries no client_secret, and the MCP SDKs (TypeScript
 * v1 and v2, Python) authenticate as the answer says. The TypeScript SDK's own OAuth example
 * asks for client_secret_post; refusing it left such clients unable to connect at all.
 */
const SECRET_METHODS = new Set(['client_secret_post', 'client_secret_basic']);

/**
 * The site session of each authorization request (`/auth`, and `/auth/{uid}` where it resumes),
 * read once before oidc-provider handles it. Keyed by the raw request: nothing a client sends
 * can set it.
 */
const siteSessions = new WeakMap<IncomingMessage, SiteSession | null>();

const ONE_RESOURCE = 'name one resource: the MCP server';

/** Whether the request names more than one `resource` (the parameter may repeat in oidc-provider's parsing). */
function severalResources(ctx: KoaContextWithOIDC): boolean {
  const asked = ctx.oidc?.params?.resource;
  return Array.isArray(asked) && asked.length > 1;
}

/** A login session left in this browser by an ended site session holds no authorization. */
const UNBOUND_SESSION_TTL_SECONDS = 600;

/**
 * Registration policy, applied to registered clients and to Client ID Metadata Documents alike:
 * public clients only, authorization code (+ refresh token) only, redirect URIs HTTPS or plain
 * HTTP on a loopback address, matched exactly (the `web` application type: a loopback port is
 * not a wildcard). `registering` is a Dynamic Client Registration request: only there is a
 * secret method replaced by `none`; a metadata document naming one is refused, as the document
 * can hold no secret.
 */
function checkClientMetadata(metadata: Record<string, unknown>, errors: typeof Oidc.errors, registering: boolean): void {
  const auth = metadata.token_endpoint_auth_method;
  if (registering && typeof auth === 'string' && SECRET_METHODS.has(auth)) {
    metadata.token_endpoint_auth_method = 'none';
    // oidc-provider minted a secret for the method asked; a public client must not get one.
    delete metadata.client_secret;
    delete metadata.client_secret_expires_at;
  } else if (auth !== undefined && auth !== 'none') {
    throw new errors.InvalidClientMetadata('only public clients are accepted: token_endpoint_auth_method must be "none" (client_secret_post and client_secret_basic are registered as "none")');
  }
  // The name reaches the person (consent page, connected apps) and agents (get_my_account, a
  // hold's agent_name): third-party text on one line, like a lawyer's name, and short enough to
  // read at a glance (docs/fencing.md#short-texts).
  const badName = typeof metadata.client_name === 'string' ? checkShortText(metadata.client_name, '/client_name', APP_NAME_MAX) : null;
  if (badName) throw new errors.InvalidClientMetadata(`client_name ${badName.detail.replace('; write', ': write')}`);
  const grants = Array.isArray(metadata.grant_types) ? (metadata.grant_types as unknown[]) : [];
  if (grants.some((g) => g !== 'authorization_code' && g !== 'refresh_token')) {
    throw new errors.InvalidClientMetadata('grant_types may only contain authorization_code and refresh_token');
  }
  const uris = Array.isArray(metadata.redirect_uris) ? (metadata.redirect_uris as unknown[]) : [];
  for (const uri of uris) {
    const parsed = typeof uri === 'string' ? URL.parse(uri) : null;
    // InvalidClientMetadata with a description starting "redirect_uris" is RFC 7591's
    // invalid_redirect_uri, with that description (InvalidRedirectUri would replace it).
    if (!parsed) throw new errors.InvalidClientMetadata('redirect_uris must be absolute URLs');
    // user:password@ would be sent to the app with every answer (and `@` alone can hide the real
    // host from a reader); a `*` is no host any answer could be matched against.
    if (parsed.username || parsed.password || /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(uri as string)) throw new errors.InvalidClientMetadata('redirect_uris must not contain user information (user:password@)');
    if (parsed.hostname.includes('*')) throw new errors.InvalidClientMetadata('redirect_uris must name one host: no * in the host');
    if (parsed.protocol === 'https:') continue;
    if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) continue;
    throw new errors.InvalidClientMetadata('redirect_uris must be https: URLs, or http: URLs on a loopback address (127.0.0.1, [::1], localhost)');
  }
  // Clients may register the levels they will ask for (the MCP SDK registers the 401 challenge's
  // scope). Levels are the MCP server's scopes, granted by the person on the consent page, not
  // the authorization server's own, which oidc-provider would refuse in a client's `scope`: only
  // those (offline_access, or anything unknown, still refused) stay.
  if (typeof metadata.scope === 'string') {
    const own = metadata.scope.split(' ').filter((s) => s !== '' && !isLevel(s));
    if (own.length > 0) metadata.scope = own.join(' ');
    else delete metadata.scope;
  }
  metadata.application_type = 'web';
}

/** How deep client metadata may nest (a JWK set in `jwks` is 4 levels; nothing real comes near). */
const MAX_METADATA_DEPTH = 16;

/** Whether a parsed JSON value nests arrays or objects deeper than `max`; iterative, so any depth is safe to ask about. */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The consent prompt's scope check, replaced: a level the client asks for and the grant lacks
 * prompts for consent, unless the person has just answered this very request (they may grant
 * less than was asked; the token then carries what they chose). The default check would record
 * the refusal in the grant for good, and a later step-up for that level would never be asked.
 */
function consentPolicy(interactionPolicy: typeof Oidc.interactionPolicy) {
  const policy = interactionPolicy.base();
  const consent = policy.get('consent')!;
  const checks = consent.checks as unknown as Oidc.interactionPolicy.Check[];
  const index = checks.findIndex((c) => c.reason === 'rs_scopes_missing');
  const missingKey = Symbol('missing resource scopes');
  type Ctx = KoaContextWithOIDC & { oidc: { [missingKey]?: Record<string, string[]> } };
  checks.splice(
    index,
    1,
    new interactionPolicy.Check(
      'rs_scopes_missing',
      'requested scopes not granted',
      (ctx) => {
        const { oidc } = ctx as Ctx;
        if (oidc.result?.consent) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        let missing: Record<string, string[]> | undefined;
        for (const [indicator, server] of Object.entries(oidc.resourceServers ?? {})) {
          const granted = new Set(oidc.grant!.getResourceScope(indicator).split(' '));
          const available = (server as { scopes: Set<string> }).scopes;
          for (const scope of oidc.requestParamScopes) {
            if (available.has(scope) && !granted.has(scope)) (((missing ??= {})[indicator] ??= []).push(scope));
          }
        }
        if (!missing) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        (oidc as Ctx['oidc'])[missingKey] = missing;
        return interactionPolicy.Check.REQUEST_PROMPT;
      },
      (ctx) => ({ missingResourceScopes: (ctx as Ctx).oidc[missingKey] }),
    ),
  );
  return policy;
}

/**
 * The login prompt's extra check: the provider's login session must be of the person signed in on
 * the site by this very request. oidc-provider's own login session (`_session`, a cookie of its
 * own) would otherwise answer for whoever signed in last in this browser, long after they signed
 * out of the site, and an app holding a grant would get a code with no one signed in, or for the
 * wrong person. When the check fails, the interaction page signs in the site's person (or sends
 * a signed-out browser to the sign-in page); an app asking with prompt=none gets login_required.
 */
function requireSiteSession(policy: ReturnType<typeof Oidc.interactionPolicy.base>, interactionPolicy: typeof Oidc.interactionPolicy): void {
  policy.get('login')!.checks.add(
    new interactionPolicy.Check('site_session', 'the person signed in on the site must authorize', (ctx) => {
      const site = siteSessions.get(ctx.req);
      return site?.accountId !== undefined && site.accountId === ctx.oidc.session?.accountId ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT;
    }),
  );
}

/**
 * Adds the levels the person granted to the request's scope, so the code (and every token from
 * it) carries exactly the grant's level, whatever the app asked for: oidc-provider issues only
 * the requested scopes that were granted, and a person who chose a higher level than the app
 * asked would otherwise see it on connected apps while the app's tokens never carried it.
 */
function carryGrantedLevels(ctx: KoaContextWithOIDC, grant: InstanceType<Provider['Grant']>, resource: string): void {
  const levels = grant.getResourceScope(resource).split(' ').filter(isLevel);
  if (levels.length === 0) return;
  const asked = new Set((ctx.oidc.params?.scope as string | undefined)?.split(' ').filter(Boolean) ?? []);
  ctx.oidc.params!.scope = [...asked, ...levels.filter((l) => !asked.has(l))].join(' ');
}

/** Whether a provider path is an authorization request or its resumption (the only users of its login session). */
const isAuthorizationPath = (path: string) => path === '/auth' || path.startsWith('/auth/');

/**
 * One signing key per process. Nothing we issue is signed (access tokens are opaque and no ID
 * token is issued without `openid`, which our clients have no use for), but oidc-provider wants
 * a key set; a generated one keeps its development keys out of production.
 */
function processKeys() {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return { keys: [{ ...privateKey.export({ format: 'jwk' }), alg: 'ES256', use: 'sig', kid: 'process' }] };
}

/**
 * Builds the provider. It is mounted under OAUTH_PATH by src/oauth/oauth.routes.ts. The library
 * is loaded here, not at start-up: CLI commands that never serve (migrate, seed, keys…) then
 * neither load it nor print its "unsupported runtime" warning on Node 20 (docs/decisions.md).
 */
export async function createProvider({ config, database, clock, siteSession, siteSessionCookie, outbound }: ProviderOptions): Promise<Provider> {
  const oidc = await import('oidc-provider');
  const issuer = `${config.siteUrl}${OAUTH_PATH}`;
  const resource = config.mcpUrl;
  const scope = LEVELS.join(' ');
  const policy = consentPolicy(oidc.interactionPolicy);
  requireSiteSession(policy, oidc.interactionPolicy);

  const configuration: Configuration = {
    adapter: kyselyAdapter(database, clock),
    jwks: processKeys() as Configuration['jwks'],
    clients: [],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'ES256',
    },
    responseTypes: ['code'],
    pkce: { required: () => true },
    scopes: ['offline_access'],
    claims: { openid: ['sub'] },
    cookies: {
      keys: [...config.oauthCookieKeys],
      long: { httpOnly: true, sameSite: 'lax' },
      short: { httpOnly: true, sameSite: 'lax' },
    },
    ttl: {
      AccessToken: config.oauthAccessTokenTtlSeconds,
      AuthorizationCode: 60,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: GRANT_TTL_SECONDS,
      Interaction: 3600,
      // The login session ends when the site session it was made under would (absolute expiry or
      // idle time, SESSION_MAX_DAYS / SESSION_IDLE_DAYS), and again with each authorization.
      Session: (ctx) => {
        const site = siteSessions.get(ctx.req);
        if (!site) return UNBOUND_SESSION_TTL_SECONDS;
        return Math.max(1, Math.floor((Date.parse(site.endsAt) - clock.now().getTime()) / 1000));
      },
    },
    // Called just before a refresh spends its token (rotation consumes it): the request's
    // resource is checked here, so a refresh refused for it leaves the token usable. Checked after
    // the spend, as oidc-provider would, a retry would find the token used and revoke the grant.
    rotateRefreshToken: (ctx) => {
      const asked = ctx.oidc.params?.resource;
      if (asked !== undefined && (severalResources(ctx) || asked !== resource)) {
        throw new oidc.errors.InvalidTarget(severalResources(ctx) ? ONE_RESOURCE : 'the only resource is the MCP server');
      }
      return true;
    },
    // Tokens belong to the grant, not to the browser session that consented: an app keeps
    // working after the person signs out of the site, until they disconnect it.
    expiresWithSession: () => false,
    // A refresh token only for an app that asks for offline_access (OIDC's rule, and what the
    // MCP SDKs that use refresh tokens ask for). An app that does not (the TypeScript SDK v1)
    // answers a 403 insufficient_scope by refreshing when it holds a refresh token, gets the same
    // levels back and gives up: without one, it asks the person for the level, as a step-up must.
    issueRefreshToken: async (_ctx, client, code) => client.grantTypeAllowed('refresh_token') && code.scopes.has('offline_access'),
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // One grant per person and client, whichever browser session asks: connected apps shows one
    // row per app, and a step-up adds to the same grant.
    loadExistingGrant: async (ctx) => {
      const accountId = ctx.oidc.session?.accountId;
      const clientId = ctx.oidc.client?.clientId;
      const grantId = ctx.oidc.result?.consent?.grantId ?? (accountId && clientId ? await findLatestGrantOfClient(database.db, accountId, clientId) : undefined);
      const grant = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      // The person has just chosen the level: the code carries it even where it is below or above
      // the ask (below it, oidc-provider would otherwise refuse the request as granting nothing).
      if (grant && ctx.oidc.result?.consent) carryGrantedLevels(ctx, grant, resource);
      return grant;
    },
    interactions: {
      url: (_ctx, interaction) => `${INTERACTION_PATH}/${interaction.uid}`,
      policy,
    },
    extraClientMetadata: {
      // Not a real property: its validator sees the whole metadata, and applies our policy.
      properties: ['consulta_policy'],
      validator: (ctx, key, _value, metadata) => {
        if (key !== 'consulta_policy') return;
        // The registration request as sent, unknown properties included (RFC 7591 has them
        // ignored, not parsed into anything): bounded before anything walks it.
        if (ctx?.oidc?.route === 'registration' && nestedDeeperThan(ctx.oidc.body, MAX_METADATA_DEPTH)) {
          throw new oidc.errors.InvalidClientMetadata(`the registration request is nested deeper than ${MAX_METADATA_DEPTH} levels`);
        }
        checkClientMetadata(metadata as Record<string, unknown>, oidc.errors, ctx?.oidc?.route === 'registration');
      },
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      userinfo: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: true },
      registration: { enabled: true, initialAccessToken: false },
      resourceIndicators: {
        enabled: true,
        // Called with `oneOf` when a token request names several resources: one only, refused
        // rather than one picked (RFC 8707: a request the server cannot honour is invalid_target).
        defaultResource: (_ctx, _client, oneOf) => {
          if (oneOf !== undefined) throw new oidc.errors.InvalidTarget(ONE_RESOURCE);
          return resource;
        },
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, indicator) => {
          if (severalResources(ctx)) throw new oidc.errors.InvalidTarget(ONE_RESOURCE);
          if (indicator !== resource) throw new oidc.errors.InvalidTarget('the only resource is the MCP server');
          return { scope, audience: resource, accessTokenTTL: config.oauthAccessTokenTtlSeconds, accessTokenFormat: 'opaque' };
        },
      },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: 60, max: 86_400 },
      },
    },
    fetch: safeFetch(outbound ?? {}) as unknown as Configuration['fetch'],
    // What oidc-provider shows when it cannot answer the client itself: an authorization request
    // it cannot send back (unknown client, redirect URI not registered, an interrupted or expired
    // request), or an HTML-accepting caller of another endpoint. People (a browser navigating)
    // are sent to the site's page explaining it in their language, which names only the error
    // code, never the request's words; machines get a problem document; the token and
    // registration endpoints (every route but authorization's) keep OAuth's own JSON.
    renderError: async (ctx, out, err) => {
      const route = ctx.oidc?.route;
      if (route !== undefined && !AUTHORIZATION_ROUTES.has(route)) {
        ctx.type = 'application/json; charset=utf-8';
        ctx.body = { error: out.error, ...(out.error_description ? { error_description: out.error_description } : {}) };
        return;
      }
      if (ctx.accepts(PROBLEM_CONTENT_TYPE, 'application/json', 'text/html') === 'text/html') {
        // SessionNotFound is oidc-provider's invalid_request for an authorization that expired or
        // was interrupted (the browser's login session changed meanwhile): its own explanation.
        const error = err instanceof oidc.errors.SessionNotFound ? 'session_not_found' : out.error;
        ctx.status = 303;
        ctx.redirect(`${ERROR_PAGE_PATH}?${new URLSearchParams({ error })}`);
        return;
      }
      sendProblem(ctx, config.siteUrl, ctx.status, out);
    },
  };
  const provider = new oidc.default(issuer, configuration);
  // Our Fastify route pins Host and X-Forwarded-Proto to SITE_URL before handing requests over.
  provider.proxy = true;
  // Nothing under OAUTH_PATH answers plain text: a request oidc-provider routed nowhere (the
  // Fastify route lets only providerServes() paths through, so this is a safety net).
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) sendProblem(ctx, config.siteUrl, 404);
  });
  // Before an authorization request (or its resumption) is handled: the site session it carries,
  // and the provider's login session of this browser ended if it belongs to anyone else (or to
  // someone who is no longer signed in on the site). The login check above would ask again
  // anyway; ending the stale session also spares the interaction a session of the wrong person.
  provider.use(async (ctx, next) => {
    if (isAuthorizationPath(ctx.path)) {
      const site = await siteSession(ctx.cookies.get(siteSessionCookie, { signed: false }));
      siteSessions.set(ctx.req, site);
      const cookie = ctx.cookies.get(provider.cookieName('session'), { signed: true });
      const stale = cookie ? await provider.Session.find(cookie) : undefined;
      if (stale?.accountId && stale.accountId !== site?.accountId) await stale.destroy();
    }
    await next();
  });
  // Every accepted authorization (with or without a consent page) issues the grant's levels;
  // emitted synchronously just before the code is made.
  provider.on('authorization.accepted', (ctx: KoaContextWithOIDC) => {
    if (ctx.oidc.grant) carryGrantedLevels(ctx, ctx.oidc.grant, resource);
  });
  // The levels are scopes of the one resource server, which oidc-provider does not advertise;
  // clients that read the authorization server's metadata rather than the resource's see them too.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.path === '/.well-known/openid-configuration' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      (ctx.body as Record<string, unknown>).scopes_supported = [...LEVELS, 'offline_access'];
    }
  });
  return provider;
}
