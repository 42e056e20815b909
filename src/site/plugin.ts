/**
 * The web site: one encapsulated Fastify context with its own cookies, form parsing, CSRF
 * protection, per-request page context and HTML error pages. Pages are Preact components
 * rendered to strings on the server (escaped by default); forms work without JavaScript.
 *
 * Every state-changing request (POST) must carry the CSRF token of a form we rendered and, when
 * the browser says where it comes from, come from our own origin (`Origin`, `Sec-Fetch-Site`).
 */
import { randomFillSync, randomUUID } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import { refusesPeoplePages, type Config } from '../config.ts';
import { isDatabaseUnavailable } from '../db/database.ts';
import { DomainError, ERROR_CODES } from '../domain/errors.ts';
import { methodNotAllowed, problemErrorHandler, registerUnrouted, sendUnrouted, type AllowedMethods } from '../http/problem.ts';
import { isLocale, messages, negotiateLocale, type Locale } from '../i18n/index.ts';
import { SiteAssets } from './assets.ts';
import { PageCache } from './page-cache.ts';
import { validZone, ZONE_COOKIE } from './booking/visitor-zone.ts';
import type { SiteContext, SiteUser } from './context.ts';
import { ErrorPage } from './ui/pages.tsx';
import { h } from 'preact';

// A page element of any props (h() infers each page's own props type).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyVNode = VNode<any>;

declare module 'fastify' {
  interface FastifyRequest {
    site: SiteContext;
  }
  interface FastifyReply {
    /** Renders a page component to HTML and sends it. */
    page(vnode: AnyVNode, status?: number): FastifyReply;
    /**
     * Sends a page whose content follows from `key` — an immutable domain answer, a new object
     * whenever it changes (the directory hands out the same object while nothing changed) — and
     * the request's language and URL. For anonymous visitors its HTML is rendered once and
     * reused; the CSRF token and the one-time value `once` are filled in fresh for every request.
     */
    cachedPage(key: object, build: (ctx: SiteContext, once: string) => AnyVNode): FastifyReply;
  }
}

/** What the site needs to recognise a signed-in browser (SessionService). */
export interface SessionLookup {
  authenticate(token: string | undefined): Promise<{ user: SiteUser & { locale: string | null }; sessionId: string; stepUpAt: string | null } | null>;
  setLocale(userId: string, locale: Locale): Promise<void>;
}

export interface SiteCookies {
  session: string;
  csrf: string;
  signIn: string;
  lang: string;
  /** The confirmation tokens of the holds this browser made (src/site/booking/holds-cookie.ts). */
  holds: string;
  /** Secure and `__Host-` prefixed: the site is HTTPS, or localhost (which browsers treat as secure). */
  secure: boolean;
}

/** Cookie names: `__Host-` prefixed and Secure wherever the browser allows it. */
export function siteCookies(siteUrl: string): SiteCookies {
  const url = new URL(siteUrl);
  const secure = url.protocol === 'https:' || ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  const prefix = secure ? '__Host-' : '';
  return { session: `${prefix}consulta_session`, csrf: `${prefix}consulta_csrf`, signIn: `${prefix}consulta_signin`, lang: 'consulta_lang', holds: `${prefix}consulta_holds`, secure };
}

const LANG_COOKIE_MAX_AGE = 365 * 86_400;

/**
 * A first visit's CSRF secret (18 bytes, as @fastify/csrf makes it), cut from a pool of random
 * bytes filled 4 KB at a time, as Node does for randomUUID: one randomBytes call per first visit
 * cost a fifth of the booking page's CPU (docs/performance.md, "Site pages").
 */
const SECRET_BYTES = 18;
let pool = Buffer.alloc(0);
let poolAt = 0;
function csrfSecret(): string {
  if (poolAt + SECRET_BYTES > pool.length) {
    pool = randomFillSync(Buffer.allocUnsafe(4096));
    poolAt = 0;
  }
  const secret = pool.toString('base64url', poolAt, poolAt + SECRET_BYTES);
  poolAt += SECRET_BYTES;
  return secret;
}

export interface SitePluginOptions {
  config: Config;
  sessions: SessionLookup;
  /** The site's areas, registered inside the site context. */
  areas: ReadonlyArray<(site: FastifyInstance) => Promise<void> | void>;
  /** Every registered route's methods: a path asked with a method it does not serve is a 405, not a 404. */
  routes: AllowedMethods;
}

/** Not people's: the developer area, firms, the operator console, the docs, and files. */
const NOT_PEOPLE = ['/developer', '/firms', '/operator', '/docs', '/assets/', '/lawyer-photos/'];
function isPeoplePage(url: string): boolean {
  return !NOT_PEOPLE.some((prefix) => url === prefix || url.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`) || url.startsWith(`${prefix}?`));
}

/** A person's browser navigating (it asks for HTML), rather than a script or an asset fetch. */
const wantsHtml = (request: FastifyRequest): boolean => (request.headers.accept ?? '').includes('text/html');

function render(vnode: AnyVNode): string {
  return `<!doctype html>${renderToString(vnode)}`;
}

/** A page context for requests that never reached a site route (404s, early errors). */
export function bareContext(request: FastifyRequest, assets: SiteAssets, cookies: SiteCookies, origin: string): SiteContext {
  const query = request.query as Record<string, unknown> | undefined;
  const locale = negotiateLocale({ query: query?.lang, cookie: request.cookies?.[cookies.lang], acceptLanguage: request.headers['accept-language'] });
  return { locale, t: messages(locale), user: null, session: null, path: '/', origin, requestId: request.id, zone: validZone(request.cookies?.[ZONE_COOKIE]), csrfToken: () => '', asset: (n) => assets.url(n) };
}

/** The path and query of the request without `lang`. */
function pagePath(url: string): string {
  const [p, q = ''] = url.split('?', 2) as [string, string?];
  const params = new URLSearchParams(q);
  params.delete('lang');
  const rest = params.toString();
  return rest ? `${p}?${rest}` : p;
}

export const sitePlugin: FastifyPluginAsync<SitePluginOptions> = async (site, { config, sessions, areas, routes }) => {
  const assets = new SiteAssets();
  const cookies = siteCookies(config.siteUrl);
  const origin = new URL(config.siteUrl).origin;
  const baseCookie = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: cookies.secure };

  await site.register(cookie);
  await site.register(formbody, { bodyLimit: 16 * 1024 });
  await site.register(csrf, { cookieKey: cookies.csrf, cookieOpts: baseCookie, getToken: (req) => (req.body as { _csrf?: string } | undefined)?._csrf });
  assets.register(site);

  // Rendered anonymous pages, cut at their CSRF token and nonce (page-cache.ts).
  const pages = new PageCache();
  // randomUUID draws from a cached entropy pool: cheaper per request than randomBytes.
  const freshOnce = () => randomUUID();

  site.decorateRequest('site', null as unknown as SiteContext);
  site.decorateReply('cachedPage', function (this: FastifyReply, key: object, build: (ctx: SiteContext, once: string) => AnyVNode) {
    const ctx = this.request.site;
    const send = (html: string | Buffer) => this.code(200).type('text/html; charset=utf-8').header('vary', 'Accept-Language, Cookie').send(html);
    if (ctx.user) return send(render(build(ctx, freshOnce())));
    // The visitor's zone changes the times a page shows (booking path): part of the variant.
    const page = pages.page(key, `${ctx.locale} ${ctx.zone ?? ''} ${this.request.url}`, () => render(build({ ...ctx, csrfToken: () => pages.csrfMark }, pages.onceMark)));
    return send(pages.fill(page, ctx.csrfToken, freshOnce));
  });
  site.decorateReply('page', function (this: FastifyReply, vnode: AnyVNode, status = 200) {
    return this.code(status).type('text/html; charset=utf-8').header('vary', 'Accept-Language, Cookie').send(render(vnode));
  });

  /**
   * The page context of a request: language (`?lang=`, then the cookie, then the account's, then
   * Accept-Language), the signed-in person, CSRF tokens and asset URLs. Every page gets it from
   * here, the 404 and 405 pages included.
   */
  const resolveContext = (request: FastifyRequest, reply: FastifyReply): SiteContext | Promise<SiteContext> => {
    const sessionToken = request.cookies[cookies.session];
    // No session cookie (every anonymous visit): nothing to look up, so nothing to wait for.
    if (!sessionToken) return contextOf(request, reply, null);
    return sessions.authenticate(sessionToken).then(async (auth) => {
      const chosen = (request.query as Record<string, unknown>).lang;
      // An explicit choice is remembered on the account too (emails use it).
      if (auth && isLocale(chosen) && auth.user.locale !== chosen) await sessions.setLocale(auth.user.id, chosen);
      return contextOf(request, reply, auth);
    });
  };
  type Auth = Awaited<ReturnType<SessionLookup['authenticate']>>;
  const contextOf = (request: FastifyRequest, reply: FastifyReply, auth: Auth): SiteContext => {
    const query = request.query as Record<string, unknown>;
    const locale = negotiateLocale({ query: query.lang, cookie: request.cookies[cookies.lang], account: auth?.user.locale, acceptLanguage: request.headers['accept-language'] });
    // An explicit choice is remembered in a cookie.
    if (isLocale(query.lang)) reply.setCookie(cookies.lang, query.lang, { ...baseCookie, httpOnly: false, maxAge: LANG_COOKIE_MAX_AGE });
    let token: string | undefined;
    return {
      locale,
      t: messages(locale),
      user: auth ? { id: auth.user.id, email: auth.user.email, name: auth.user.name, operator: auth.user.operator, lawyer: auth.user.lawyer, developer: auth.user.developer } : null,
      session: auth ? { id: auth.sessionId, stepUpAt: auth.stepUpAt } : null,
      path: pagePath(request.url),
      origin,
      requestId: request.id,
      zone: validZone(request.cookies[ZONE_COOKIE]),
      csrfToken: () => {
        if (token === undefined && !request.cookies[cookies.csrf]) {
          // The plugin would draw the secret with its own randomBytes call: give it one from the pool.
          const secret = csrfSecret();
          request.cookies[cookies.csrf] = secret;
          reply.setCookie(cookies.csrf, secret, baseCookie);
        }
        return (token ??= reply.generateCsrf());
      },
      asset: (name) => assets.url(name),
    };
  };

  // A callback hook, not an async one: an anonymous visit's context is built without a promise.
  site.addHook('onRequest', (request, reply, done) => {
    if (request.url.startsWith('/assets/')) return done();
    // Pages carry personal data and one-time tokens: never stored by shared caches.
    reply.header('cache-control', 'no-store');
    const ctx = resolveContext(request, reply);
    if (!(ctx instanceof Promise)) {
      request.site = ctx;
      return done();
    }
    ctx.then((c) => {
      request.site = c;
      done();
    }, done);
  });

  // A production site without its operator's legal details (LSSI-CE art. 10) does not serve people
  // (issue 25 item 18): every page of theirs says so, 503; the developer area and docs still work.
  if (refusesPeoplePages(config)) {
    site.addHook('preHandler', async (request, reply) => {
      if (!isPeoplePage(request.url)) return;
      const t = request.site.t;
      reply.header('retry-after', '3600');
      return reply.page(h(ErrorPage, { ctx: request.site, title: t.errors.notOpenTitle, message: t.errors.notOpen }), 503);
    });
  }

  // Every POST: from our own origin, with the token of a form we rendered.
  site.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'POST') return done();
    const fetchSite = request.headers['sec-fetch-site'];
    const from = request.headers.origin;
    if ((fetchSite !== undefined && fetchSite !== 'same-origin') || (from !== undefined && from !== origin)) {
      const t = request.site.t;
      return done(Object.assign(new Error('cross-site form'), { statusCode: 403, code: 'SITE_CROSS_ORIGIN', siteTitle: t.errors.crossSiteTitle }));
    }
    site.csrfProtection(request, reply, done);
  });

  const problems = problemErrorHandler(config.siteUrl);
  site.setErrorHandler((error: FastifyError, request, reply) => {
    // A request no route took, from a script rather than a person: a problem document, as its 404 would be.
    if (request.is404 && !wantsHtml(request)) return problems(error, request, reply);
    const ctx = request.site ?? bareContext(request, assets, cookies, origin);
    const t = ctx.t;
    const show = (status: number, title: string, message: string) => reply.page(h(ErrorPage, { ctx, title, message }), status);
    if (error instanceof DomainError) {
      if (error.headers) reply.headers(error.headers);
      if (error.code === 'rate_limited') return show(429, t.errors.tooManyTitle, t.errors.tooMany(Number(error.headers?.['retry-after'] ?? 60)));
      if (error.code === 'not_found') return show(404, t.errors.notFoundTitle, t.errors.notFound);
      if (error.code === 'invalid_request') return show(400, t.errors.badRequestTitle, t.errors.badRequest);
      // Signed in and allowed to see the thing, but not to do this (a firm member without the permission).
      if (error.code === 'forbidden') return show(403, t.errors.forbiddenTitle, t.errors.forbidden);
      // A dependency down (the payment provider, say): nothing happened; try again shortly.
      if (error.code === 'service_unavailable') return show(503, t.errors.serverTitle, t.errors.server);
      const status = ERROR_CODES[error.code].status;
      if (status < 500) return show(status, t.errors.badRequestTitle, t.errors.badRequest);
    }
    if (error.code === 'FST_CSRF_MISSING_SECRET' || error.code === 'FST_CSRF_INVALID_TOKEN' || error.code === 'SITE_CROSS_ORIGIN') {
      return show(403, t.errors.formExpiredTitle, t.errors.formExpired);
    }
    if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return show(413, t.errors.badRequestTitle, t.errors.tooLarge);
    if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return show(415, t.errors.badRequestTitle, t.errors.badRequest);
    if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) return show(error.statusCode, t.errors.badRequestTitle, t.errors.badRequest);
    if (isDatabaseUnavailable(error)) {
      request.log.warn({ err: error }, 'database unavailable');
      reply.header('retry-after', '5');
      return show(503, t.errors.serverTitle, t.errors.server);
    }
    request.log.error({ err: error }, 'unhandled error on a site page');
    return show(500, t.errors.serverTitle, t.errors.server);
  });

  /**
   * Every request no route took, outside the API (which has its own): people get the site's 404
   * page, or a 405 page when the address exists for another method (a form's POST address opened
   * with GET), in their language and with their signed-in header like any other page; scripts
   * and asset fetches get the problem document (docs/errors.md, docs/site.md).
   */
  await registerUnrouted(site, async (request, reply) => {
    reply.header('cache-control', 'no-store');
    if (!wantsHtml(request)) return sendUnrouted(reply, config.siteUrl, routes);
    // Asset URLs skip the context in onRequest (they never need it); a person who opened one does.
    const ctx = request.site ?? (request.site = await resolveContext(request, reply));
    const allow = methodNotAllowed(routes, request.method, request.url);
    if (allow) {
      reply.header('allow', allow.join(', '));
      return reply.page(h(ErrorPage, { ctx, title: ctx.t.errors.methodNotAllowedTitle, message: ctx.t.errors.methodNotAllowed }), 405);
    }
    return reply.page(h(ErrorPage, { ctx, title: ctx.t.errors.notFoundTitle, message: ctx.t.errors.notFound }), 404);
  });

  for (const area of areas) await area(site);
};

/** The HTML 400 for site requests the router refused before any site hook ran (a path that is not valid percent-encoding). */
export function badRequestPage(config: Config) {
  const assets = new SiteAssets();
  const cookies = siteCookies(config.siteUrl);
  return (request: FastifyRequest, reply: FastifyReply) => {
    const ctx = bareContext(request, assets, cookies, new URL(config.siteUrl).origin);
    const html = render(h(ErrorPage, { ctx, title: ctx.t.errors.badRequestTitle, message: ctx.t.errors.badRequest }));
    return reply.code(400).type('text/html; charset=utf-8').header('cache-control', 'no-store').send(html);
  };
}
