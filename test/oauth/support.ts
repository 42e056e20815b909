/**
 * The OAuth dance over `app.inject()`, as a public MCP client and a signed-in person's browser
 * would do it: registration, PKCE, the authorize request with `resource`, the site's consent
 * page, the code exchange. Browser-level and SDK-client flows are in test/e2e/mcp-oauth.test.ts.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { requestedLevel } from '../../src/domain/oauth/levels.ts';
import type { TestContext } from '../support/app.ts';
import type { SiteClient } from '../support/site.ts';

export const REDIRECT_URI = 'http://127.0.0.1:8765/callback';

/** Registers a public client (Dynamic Client Registration); returns its client_id. */
export async function registerClient(ctx: TestContext, metadata: Record<string, unknown> = {}): Promise<string> {
  const res = await ctx.app.fastify.inject({
    method: 'POST',
    url: '/oauth/reg',
    headers: { 'content-type': 'application/json' },
    payload: { client_name: 'Test Agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], ...metadata },
  });
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { client_id: string }).client_id;
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Path and query of a Location header (absolute URLs on our site become paths). */
export function pathOf(location: string | string[] | undefined): string {
  const url = new URL(String(location), 'http://consulta.test');
  return `${url.pathname}${url.search}`;
}

export interface AuthorizeOptions {
  clientId: string;
  scope: string;
  resource?: string | null;
  redirectUri?: string;
  /** The level the person picks, 'deny', or 'preselected' (what the page selected); by default the level the app asks for. */
  answer?: string;
  /** OpenID `prompt` (`consent` asks the person again even when nothing new is asked). */
  prompt?: string;
}

export interface AuthorizeResult {
  /** The final redirect to the client. */
  redirect: URL;
  /** The consent page's HTML, when one was shown. */
  consentPage: LightMyRequestResponse | null;
  verifier: string;
}

/**
 * Runs an authorization request in `browser` (a signed-in SiteClient) up to the redirect back to
 * the client, answering the consent page when it appears.
 */
export async function authorize(ctx: TestContext, browser: SiteClient, options: AuthorizeOptions): Promise<AuthorizeResult> {
  const { verifier, challenge } = pkce();
  const params = new URLSearchParams({
    client_id: options.clientId,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    response_type: 'code',
    scope: options.scope,
    state: 'st4te',
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  if (options.resource !== null) params.set('resource', options.resource ?? ctx.config.mcpUrl);
  if (options.prompt) params.set('prompt', options.prompt);
  // OpenID Connect grants offline_access (a refresh token) only with prompt=consent; the MCP SDKs
  // send it whenever they ask for offline_access.
  else if (options.scope.split(' ').includes('offline_access')) params.set('prompt', 'consent');
  let res = await browser.get(`/oauth/auth?${params}`);
  let consentPage: LightMyRequestResponse | null = null;
  for (let hops = 0; hops < 12; hops++) {
    if (res.statusCode === 200 && /\/allow"/.test(res.body)) {
      consentPage = res;
      const action = /action="([^"]*\/(?:allow))"/.exec(res.body)![1]!.replace(/&amp;/g, '&');
      // Unless told otherwise, the person grants what the app asks for (the page may select less: consent.page.tsx).
      const preselected = /name="level" value="([^"]+)" checked/.exec(res.body)?.[1] ?? 'directory:read';
      const answer = options.answer === 'preselected' ? preselected : (options.answer ?? requestedLevel(options.scope));
      res = answer === 'deny' ? await browser.post(action.replace(/\/allow$/, '/deny'), {}) : await browser.post(action, { level: answer });
      continue;
    }
    if (res.statusCode !== 302 && res.statusCode !== 303) throw new Error(`authorization stopped at ${res.statusCode}: ${res.body.slice(0, 300)}`);
    const location = String(res.headers.location);
    const target = new URL(location, ctx.config.siteUrl);
    if (target.origin !== new URL(ctx.config.siteUrl).origin) return { redirect: target, consentPage, verifier };
    res = await browser.get(`${target.pathname}${target.search}`);
  }
  throw new Error('too many redirects');
}

/** Exchanges a code (or a refresh token) at the token endpoint. */
export function token(ctx: TestContext, form: Record<string, string>): Promise<LightMyRequestResponse> {
  return ctx.app.fastify.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token?: string;
  scope?: string;
  expires_in: number;
  token_type: string;
}

/** The whole dance: authorize with consent, then the code exchange; returns the tokens. */
export async function connect(ctx: TestContext, browser: SiteClient, options: AuthorizeOptions): Promise<Tokens> {
  const { redirect, verifier } = await authorize(ctx, browser, options);
  const code = redirect.searchParams.get('code');
  if (!code) throw new Error(`no code: ${redirect}`);
  const res = await token(ctx, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    client_id: options.clientId,
    code_verifier: verifier,
    ...(options.resource === null ? {} : { resource: options.resource ?? ctx.config.mcpUrl }),
  });
  if (res.statusCode !== 200) throw new Error(`token exchange failed: ${res.statusCode} ${res.body}`);
  return res.json() as Tokens;
}

/**
 * A browser over real HTTP: fetch with a cookie jar (cookies kept per name, as one origin's
 * cookies are; expired or emptied ones dropped), redirects followed by hand so that each hop is
 * seen, forms posted as a browser on our origin does (urlencoded, Origin, the page's CSRF token).
 */
export class HttpBrowser {
  readonly cookies = new Map<string, string>();
  private token: string | null = null;

  constructor(readonly origin: string) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private async keep(res: Response): Promise<{ status: number; location: string | null; body: string; headers: Headers }> {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';').map((s) => s.trim());
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      const expired = attributes.some((a) => /^max-age=0$/i.test(a) || (/^expires=/i.test(a) && Date.parse(a.slice(8)) <= Date.now()));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const body = await res.text();
    const m = /name="_csrf" value="([^"]+)"/.exec(body);
    if (m) this.token = m[1]!;
    return { status: res.status, location: res.headers.get('location'), body, headers: res.headers };
  }

  async get(url: string) {
    return this.keep(await fetch(new URL(url, this.origin), { headers: { accept: 'text/html', 'accept-language': 'en', cookie: this.cookieHeader() }, redirect: 'manual' }));
  }

  async post(url: string, form: Record<string, string>) {
    if (!this.token) throw new Error('no page with a CSRF token was loaded');
    return this.keep(
      await fetch(new URL(url, this.origin), {
        method: 'POST',
        headers: { accept: 'text/html', 'accept-language': 'en', 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, 'sec-fetch-site': 'same-origin', cookie: this.cookieHeader() },
        body: new URLSearchParams({ _csrf: this.token, ...form }).toString(),
        redirect: 'manual',
      }),
    );
  }

  /**
   * Follows redirects from `url` while they stay on our origin; answers the consent page with
   * `answer` (a level, or null to stop there). Returns where it ended: the app's redirect URI
   * (left our origin), or a page of ours (status and path).
   */
  async follow(url: string, answer: string | null = null): Promise<{ left: URL | null; status: number; path: string; body: string }> {
    let path = new URL(url, this.origin).toString();
    let res = await this.get(path);
    for (let hops = 0; hops < 12; hops++) {
      if (res.status === 200 && /\/allow"/.test(res.body) && answer !== null) {
        const action = /action="([^"]*\/allow)"/.exec(res.body)![1]!.replace(/&amp;/g, '&');
        res = await this.post(action, { level: answer });
        path = new URL(action, this.origin).toString();
        continue;
      }
      if (res.status !== 302 && res.status !== 303) return { left: null, status: res.status, path: pathOf(path), body: res.body };
      const target = new URL(res.location!, path);
      if (target.origin !== this.origin) return { left: target, status: res.status, path: pathOf(path), body: res.body };
      path = target.toString();
      res = await this.get(path);
    }
    throw new Error('too many redirects');
  }
}
