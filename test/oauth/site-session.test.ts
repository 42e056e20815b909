/**
 * Every authorization needs a live site session of the same person, over real HTTP on both
 * databases: a browser with a cookie jar against a listening server, the app's code exchanged at
 * the token endpoint and its token used by the official MCP SDK client. The authorization
 * server's own login session (its `_session` cookie) must not outlive the site's: after sign-out,
 * sign-out everywhere, suspension or a lapsed site session the app's next authorization gets no
 * code without sign-in, and a second person signing in on the same browser gets their own
 * consent, never a token for the first. Grants themselves survive sign-out (the app keeps working
 * with its tokens until disconnected). The same attacks in Chromium: test/oauth/consent-browser.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ManualClock } from '../../src/clock.ts';
import type { Config } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { structured } from '../mcp/support.ts';
import { HttpBrowser, pkce, REDIRECT_URI } from './support.ts';

const DAY_MS = 86_400_000;

for (const target of databaseTargets()) {
  describe(`authorization needs a live site session of the same person (${target.name}, real HTTP)`, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let clock: ManualClock;
    let site: string;
    let mcpUrl: string;
    let clientId: string;
    let config: Config;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      mcpUrl = `${site}/mcp`;
      clock = new ManualClock(Date.now());
      config = testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl, databaseUrl: db.url, rateLimitMultiplier: 1000 });
      server = await startServer(config, { clock });
      const reg = await fetch(`${site}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Session Agent', redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'none' }) });
      assert.equal(reg.status, 201);
      clientId = ((await reg.json()) as { client_id: string }).client_id;
    });
    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    /** Signs `email` in on `browser`: what a completed sign-in leaves (the sign-in pages are tested elsewhere). */
    async function signIn(browser: HttpBrowser, email: string): Promise<string> {
      const user = await server.app.services.accounts.ensureUser(email);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      browser.cookies.set(siteCookies(site).session, session.token);
      return user.id;
    }

    /** The app's authorization request, with a fresh PKCE pair. */
    function authorizeUrl(extra: Record<string, string> = {}): { url: string; verifier: string } {
      const { verifier, challenge } = pkce();
      const params = new URLSearchParams({ client_id: clientId, redirect_uri: REDIRECT_URI, response_type: 'code', scope: 'directory:read', state: 'st', code_challenge: challenge, code_challenge_method: 'S256', resource: mcpUrl, ...extra });
      return { url: `/oauth/auth?${params}`, verifier };
    }

    /** The code exchange at the token endpoint, as the app does it. */
    async function exchange(code: string, verifier: string): Promise<{ access_token: string; refresh_token?: string; scope: string }> {
      const res = await fetch(`${site}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, client_id: clientId, code_verifier: verifier, resource: mcpUrl }).toString(),
      });
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()) as { access_token: string; refresh_token?: string; scope: string };
    }

    /** Who the token acts for, as the app finds out: get_my_account through the MCP SDK client. */
    async function accountOf(accessToken: string): Promise<string> {
      const client = new Client({ name: 'session-test-app', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { authorization: `Bearer ${accessToken}` } } }));
      try {
        return structured<{ user: { email: string } }>(await client.callTool({ name: 'get_my_account', arguments: {} })).user.email;
      } finally {
        await client.close();
      }
    }

    /** Connects the app for whoever is signed in on `browser` (consent answered); returns its tokens. */
    async function connectApp(browser: HttpBrowser) {
      const { url, verifier } = authorizeUrl();
      const end = await browser.follow(url, 'directory:read');
      assert.ok(end.left, `the app got an answer, not a page at ${end.path} (${end.status})`);
      const code = end.left.searchParams.get('code');
      assert.ok(code, `a code, not ${end.left.searchParams.get('error')}`);
      return exchange(code, verifier);
    }

    /** The app's next authorization stops at the site's sign-in page: no answer reaches the app. */
    async function assertSignInAsked(browser: HttpBrowser, label: string) {
      const end = await browser.follow(authorizeUrl().url, 'directory:read');
      assert.equal(end.left, null, `${label}: the app got ${end.left}`);
      assert.equal(end.status, 200, label);
      assert.match(end.path, /^\/sign-in\?return_to=%2Foauth%2Finteraction%2F/, label);
      // An app asking without showing anything (prompt=none) is told that sign-in is needed.
      const silent = await browser.follow(authorizeUrl({ prompt: 'none' }).url);
      assert.ok(silent.left, label);
      assert.equal(silent.left.searchParams.get('code'), null, label);
      assert.equal(silent.left.searchParams.get('error'), 'login_required', label);
    }

    /** How many login sessions the authorization server keeps for the person. */
    const providerSessions = async (userId: string) =>
      Number((await server.database.db.selectFrom('oauth_records').select((eb) => eb.fn.countAll<number>().as('n')).where('model', '=', 'Session').where('account_id', '=', userId).executeTakeFirstOrThrow()).n);

    const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}@example.com`;

    it('after sign-out, the app gets no code without sign-in (prompt=none: login_required); the person signing in again continues without a new consent', async () => {
      const browser = new HttpBrowser(site);
      const email = unique('ana');
      const userId = await signIn(browser, email);
      const tokens = await connectApp(browser);
      assert.ok(await providerSessions(userId) > 0, 'the authorization server keeps a login session');
      await browser.get('/consultations');
      const out = await browser.post('/sign-out', {});
      assert.equal(out.status, 303);
      await assertSignInAsked(browser, 'after sign-out');
      assert.equal(await providerSessions(userId), 0, "sign-out ended the authorization server's login sessions");
      // The grant outlives the sign-out: the app keeps working with its token.
      assert.equal(await accountOf(tokens.access_token), email);
      // Signed in again as the same person: the existing grant answers, no consent page.
      await signIn(browser, email);
      const again = authorizeUrl();
      const end = await browser.follow(again.url, null);
      assert.ok(end.left?.searchParams.get('code'), `a code without consent, not ${end.path} (${end.status})`);
      assert.equal(await accountOf((await exchange(end.left!.searchParams.get('code')!, again.verifier)).access_token), email);
    });

    it('after sign-out everywhere, no browser of the person gets a code without signing in again', async () => {
      const laptop = new HttpBrowser(site);
      const phone = new HttpBrowser(site);
      const email = unique('luis');
      const userId = await signIn(laptop, email);
      await signIn(phone, email);
      await connectApp(laptop);
      await phone.follow(authorizeUrl().url, null);
      await phone.get('/consultations');
      const out = await phone.post('/sign-out/everywhere', {});
      assert.equal(out.status, 303);
      await assertSignInAsked(laptop, 'the other browser');
      await assertSignInAsked(phone, 'this browser');
      assert.equal(await providerSessions(userId), 0);
    });

    it("a person signing in after another signed out everywhere on the same browser gets their own consent, never the other's token", async () => {
      const browser = new HttpBrowser(site);
      const first = unique('amira');
      const second = unique('bruno');
      await signIn(browser, first);
      assert.equal(await accountOf((await connectApp(browser)).access_token), first);
      await browser.get('/consultations');
      await browser.post('/sign-out/everywhere', {});
      const secondId = await signIn(browser, second);
      const { url, verifier } = authorizeUrl();
      const consent = await browser.follow(url, null);
      assert.equal(consent.left, null, 'no answer reached the app before the second person consented');
      assert.equal(consent.status, 200);
      assert.match(consent.path, /^\/oauth\/interaction\//);
      assert.ok(consent.body.includes(`You are signed in as ${second}`), "the consent page is the second person's");
      const end = await browser.follow(consent.path, 'directory:read');
      assert.ok(end.left?.searchParams.get('code'));
      assert.equal(await accountOf((await exchange(end.left!.searchParams.get('code')!, verifier)).access_token), second);
      assert.equal((await server.app.services.connectedApps.list(secondId)).length, 1, 'the second person now has their own grant');
    });

    it('a site session that ended by itself (another person signs in after it) never lends its login to the next authorization', async () => {
      const browser = new HttpBrowser(site);
      const first = unique('carla');
      const second = unique('diego');
      const firstId = await signIn(browser, first);
      await connectApp(browser);
      // The first person's site session ends without a sign-out (revoked elsewhere, as an older
      // server or a direct database change would): only the per-request check stands in the way.
      await server.database.db.updateTable('sessions').set({ revoked_at: clock.now().toISOString() }).where('user_id', '=', firstId).execute();
      assert.ok(await providerSessions(firstId) > 0, 'the login session is still stored');
      await assertSignInAsked(browser, 'signed out by the site alone');
      await signIn(browser, second);
      const { url, verifier } = authorizeUrl();
      const consent = await browser.follow(url, null);
      assert.equal(consent.left, null);
      assert.ok(consent.body.includes(`You are signed in as ${second}`));
      const end = await browser.follow(consent.path, 'directory:read');
      assert.equal(await accountOf((await exchange(end.left!.searchParams.get('code')!, verifier)).access_token), second);
    });

    it('a consent page left open while the person changes: its Allow gives the app nothing, and the page says the request is no longer valid', async () => {
      const browser = new HttpBrowser(site);
      await signIn(browser, unique('gema'));
      const consent = await browser.follow(authorizeUrl().url, null);
      assert.match(consent.path, /^\/oauth\/interaction\//);
      const allow = /action="([^"]*\/allow)"/.exec(consent.body)![1]!;
      // In another tab: sign-out everywhere, and someone else signs in.
      await browser.get('/consultations');
      await browser.post('/sign-out/everywhere', {});
      const second = unique('hugo');
      await signIn(browser, second);
      await browser.get('/consultations');
      // Back on the first tab, Allow: the request belonged to a login session that no longer exists.
      const res = await browser.post(allow, { level: 'directory:read' });
      assert.equal(res.status, 410, res.location ?? '');
      assert.match(res.body, /This request is no longer valid/);
      assert.equal((await server.app.services.connectedApps.list((await server.app.services.accounts.ensureUser(second)).id)).length, 0, 'nothing was granted');
    });

    it("suspension (every session of the person revoked) ends the authorization server's login sessions too", async () => {
      const browser = new HttpBrowser(site);
      const userId = await signIn(browser, unique('fatima'));
      const tokens = await connectApp(browser);
      assert.ok(await providerSessions(userId) > 0);
      assert.equal(await server.app.services.sessions.revokeAllForUser(userId), 1);
      await assertSignInAsked(browser, 'after suspension');
      assert.equal(await providerSessions(userId), 0);
      // What suspension does to the person's apps is the grant's business, not the session's: it stays.
      assert.equal((await server.app.services.connectedApps.list(userId)).length, 1);
      assert.ok(await server.app.services.accessTokens.verify(tokens.access_token));
    });

    it("the authorization server's login session ends when the site session would: no later than its expiry, idle time included", async () => {
      const browser = new HttpBrowser(site);
      const userId = await signIn(browser, unique('elena'));
      await connectApp(browser);
      const siteRow = await server.database.db.selectFrom('sessions').select(['expires_at', 'last_seen_at']).where('user_id', '=', userId).executeTakeFirstOrThrow();
      const stored = await server.database.db.selectFrom('oauth_records').select('expires_at').where('model', '=', 'Session').where('account_id', '=', userId).execute();
      assert.ok(stored.length > 0);
      const idleEnd = Date.parse(siteRow.last_seen_at) + config.sessionIdleDays * DAY_MS;
      for (const s of stored) {
        assert.ok(s.expires_at !== null && Date.parse(s.expires_at) <= Math.min(Date.parse(siteRow.expires_at), idleEnd), `${s.expires_at} ends after the site session (${siteRow.expires_at}, idle ${new Date(idleEnd).toISOString()})`);
      }
      // Past the idle time, with the app asking again: sign-in, not a code. (Last: the clock moved.)
      clock.advance((config.sessionIdleDays + 1) * DAY_MS);
      await assertSignInAsked(browser, 'after the idle time');
    });
  });
}
