/**
 * The MCP clients apps are built with, end to end against a real listening server on SQLite and
 * PostgreSQL: the TypeScript SDK v1 (1.32, what most desktop assistants embed) and v2, each
 * driven by its own OAuth support (an OAuthClientProvider), each registering dynamically as a
 * public client and as the TS SDK's own OAuth example does (`client_secret_post`). Each connects
 * at directory:read, calls hold_consultation_slot, gets the 403 insufficient_scope, steps up
 * through the consent page, and its retried hold succeeds. The person's browser is plain HTTP
 * (test/support/http-browser.ts): sign-in with the code from the local outbox, then the consent
 * form. The Python SDK and the MCP Inspector run outside `npm test`: scripts/test-clients.sh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2, UnauthorizedError as UnauthorizedV2, type OAuthClientProvider as ProviderV2 } from '@modelcontextprotocol/client';
import { UnauthorizedError as UnauthorizedV1 } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { authorizeInBrowser, hiddenFields, HttpBrowser } from '../support/http-browser.ts';
import { CALLBACK, MemoryProvider } from '../support/mcp-oauth-provider.ts';

const EVERY_DAY_8_TO_20 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const }));


interface Exchange {
  method: string;
  url: string;
  status: number;
  requestBody: string;
  authorization: string | null;
  wwwAuthenticate: string | null;
  body: string;
}

/** One SDK behind one interface: connect (throws while the person must authorize), call, finish an authorization. */
interface App {
  connect(): Promise<void>;
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Hands the app the authorization response (the query of the redirect to its callback). */
  finishAuth(response: URLSearchParams): Promise<void>;
  close(): Promise<void>;
  isUnauthorized(err: unknown): boolean;
}

type Sdk = 'v1' | 'v2';

function makeApp(sdk: Sdk, mcpUrl: string, provider: MemoryProvider, fetchFn: typeof fetch): App {
  if (sdk === 'v1') {
    let client: ClientV1;
    let transport: TransportV1;
    return {
      async connect() {
        transport = new TransportV1(new URL(mcpUrl), { authProvider: provider, fetch: fetchFn });
        client = new ClientV1({ name: 'consulta-e2e-v1', version: '1.0.0' });
        await client.connect(transport);
      },
      call: async (name, args) => (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
      // v1 takes the code alone (and checks neither state nor iss: the app's job).
      finishAuth: (response) => transport.finishAuth(response.get('code')!),
      close: async () => client?.close(),
      isUnauthorized: (err) => err instanceof UnauthorizedV1,
    };
  }
  let client: ClientV2;
  let transport: TransportV2;
  return {
    async connect() {
      transport = new TransportV2(new URL(mcpUrl), { authProvider: provider as unknown as ProviderV2, fetch: fetchFn });
      client = new ClientV2({ name: 'consulta-e2e-v2', version: '1.0.0' });
      await client.connect(transport);
    },
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as Record<string, unknown>,
    // v2 takes the whole response, and checks its iss (RFC 9207).
    finishAuth: (response) => transport.finishAuth(response),
    close: async () => client?.close(),
    isUnauthorized: (err) => UnauthorizedV2.isInstance(err),
  };
}

function structured<T>(result: Record<string, unknown>): T {
  const r = result as { isError?: boolean; structuredContent?: unknown; content?: Array<{ type: string; text?: string }> };
  assert.ok(!r.isError, `tool error: ${r.content?.[0]?.text}`);
  return r.structuredContent as T;
}

for (const target of databaseTargets()) {
  describe(`MCP SDK clients step up and register as public clients, end to end (${target.name})`, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let site: string;
    let mcpUrl: string;
    let lawyerId: string;
    let freeSlots: Array<{ date: string; start_time: string; end_time: string }> = [];
    let clock: ManualClock;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      mcpUrl = `${site}/mcp`;
      clock = new ManualClock(Date.now());
      server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl, databaseUrl: db.url, rateLimitMultiplier: 1000 }), { clock });
      [lawyerId] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Youssef Benali Ortega', city: 'almeria', weekly_hours: EVERY_DAY_8_TO_20 })], clock.now())) as [string];
      server.app.services.directoryCache.invalidate();
      const availability = (await (await fetch(`${site}/api/v1/lawyers/${lawyerId}/availability`)).json()) as { slots: Array<{ date: string; start_time: string; end_time: string; available: boolean }> };
      freeSlots = availability.slots.filter((s) => s.available);
    });

    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    let n = 0;
    for (const sdk of ['v1', 'v2'] as const) {
      for (const method of ['none', 'client_secret_post'] as const) {
        it(`TypeScript SDK ${sdk}, registering with token_endpoint_auth_method ${method}: connects at directory:read, the hold is 403, it steps up through the consent page and the retried hold succeeds`, async () => {
          const person = `person-${sdk}-${method}@example.com`;
          const slot = freeSlots[n++]!;
          assert.ok(slot, 'a free slot for each client');
          const exchanges: Exchange[] = [];
          const recording = (async (input: string | URL | Request, init?: RequestInit) => {
            const res = await fetch(input, init);
            const headers = new Headers(init?.headers);
            exchanges.push({
              method: init?.method ?? 'GET',
              url: String(input instanceof Request ? input.url : input),
              status: res.status,
              requestBody: typeof init?.body === 'string' ? init.body : init?.body instanceof URLSearchParams ? init.body.toString() : '',
              authorization: headers.get('authorization'),
              wwwAuthenticate: res.headers.get('www-authenticate'),
              body: res.status >= 400 ? await res.clone().text() : '',
            });
            return res;
          }) as typeof fetch;
          // What the TS SDK's OAuth example registers (client_secret_post), or a public client.
          const provider = new MemoryProvider({
            client_name: `Asistente ${sdk} ${method}`,
            redirect_uris: [CALLBACK],
            grant_types: ['authorization_code', 'refresh_token'],
            response_types: ['code'],
            token_endpoint_auth_method: method,
          });
          const app = makeApp(sdk, mcpUrl, provider, recording);
          const browser = new HttpBrowser(site);
          const consent = async (level: string) => {
            const url = provider.lastUrl();
            const pages: string[] = [];
            const outcome = await authorizeInBrowser(browser, url, { database: server.database, email: person, onConsentPage: (html) => pages.push(html) });
            assert.equal(outcome.consentPages, 1, 'the consent page was shown');
            assert.match(pages[0]!, new RegExp(`name="level" value="${level}" checked`), `${level} preselected`);
            assert.equal(`${outcome.redirect.origin}${outcome.redirect.pathname}`, CALLBACK);
            assert.equal(outcome.redirect.searchParams.get('state'), url.searchParams.get('state'));
            assert.ok(outcome.redirect.searchParams.get('code'), `a code, not ${outcome.redirect.searchParams.get('error')}`);
            return outcome.redirect.searchParams;
          };

          try {
            // Connecting: 401, discovery, registration, authorization at directory:read.
            await assert.rejects(app.connect(), (err: unknown) => app.isUnauthorized(err), 'the person must authorize first');
            const registration = exchanges.find((e) => e.url === `${site}/oauth/reg`);
            assert.equal(registration?.status, 201, registration?.body);
            assert.equal(JSON.parse(registration!.requestBody).token_endpoint_auth_method, method, 'the SDK asked as configured');
            const info = provider.info as Record<string, unknown>;
            assert.equal(info.token_endpoint_auth_method, 'none', 'registered as a public client');
            assert.equal(info.client_secret, undefined, 'and given no secret');
            const first = provider.lastUrl();
            // v1 asks for the challenge's scope; v2 adds offline_access (the server advertises it).
            assert.deepEqual(first.searchParams.get('scope')?.split(' ').sort(), sdk === 'v1' ? ['directory:read'] : ['directory:read', 'offline_access']);
            await app.finishAuth(await consent('directory:read'));
            const firstTokens = provider.saved!;
            assert.equal(firstTokens.scope, 'directory:read');
            if (sdk === 'v1') assert.equal(firstTokens.refresh_token, undefined, 'no offline_access, no refresh token: the step-up cannot be a refresh');
            else assert.ok(firstTokens.refresh_token, 'offline_access: a refresh token');

            await app.connect();
            const cities = structured<{ cities: unknown[] }>(await app.call('list_cities', {}));
            assert.ok(cities.cities.length > 0);
            // A business refusal reaches the agent: the client accepts the result (v1 checks any
            // structuredContent against the output schema, errors included) and its text says what to do.
            const atlantis = (await app.call('search_lawyers', { city: 'Atlantis' })) as { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> };
            assert.deepEqual([atlantis.isError, atlantis.structuredContent], [true, undefined]);
            assert.match(atlantis.content[0]!.text, /unknown city \\"Atlantis\\"; valid values: call list_cities/);

            // The hold needs slots:hold: 403, and the SDK goes back to the person.
            const before = exchanges.length;
            const hold = { lawyer_id: lawyerId, date: slot.date, start_time: slot.start_time, end_time: slot.end_time };
            await assert.rejects(app.call('hold_consultation_slot', hold), (err: unknown) => app.isUnauthorized(err), 'the step-up needs the person');
            const since = exchanges.slice(before);
            const refused = since.find((e) => e.url === mcpUrl && e.status === 403);
            assert.ok(refused, since.map((e) => `${e.method} ${e.url} ${e.status}`).join('\n'));
            assert.match(refused.wwwAuthenticate ?? '', /error="insufficient_scope"/);
            assert.match(refused.wwwAuthenticate ?? '', /scope="directory:read slots:hold"/);
            const rpc = JSON.parse(refused.body) as { jsonrpc: string; id: unknown; error: { message: string } };
            assert.equal(rpc.jsonrpc, '2.0');
            assert.equal(rpc.id, (JSON.parse(refused.requestBody) as { id: unknown }).id, 'the refused request’s id');
            assert.match(rpc.error.message, /needs the slots:hold level/);
            assert.ok(!since.some((e) => e.url === `${site}/oauth/token`), 'no refresh was tried for the step-up');
            const stepUp = provider.lastUrl();
            assert.equal(provider.authorizationUrls.length, 2);
            assert.ok(stepUp.searchParams.get('scope')?.split(' ').includes('slots:hold'), `${stepUp.searchParams.get('scope')}`);
            assert.equal(stepUp.searchParams.get('resource'), mcpUrl);
            await app.finishAuth(await consent('slots:hold'));
            assert.deepEqual(provider.saved!.scope?.split(' ').sort(), ['directory:read', 'slots:hold']);

            const held = structured<{ booking_intent_id: string; confirmation_url: string }>(await app.call('hold_consultation_slot', hold));
            assert.ok(held.confirmation_url.startsWith(`${site}/confirm/`));
            const row = await server.database.db.selectFrom('booking_intents').select(['source', 'agent_name', 'status']).where('id', '=', held.booking_intent_id).executeTakeFirstOrThrow();
            assert.deepEqual([row.source, row.agent_name, row.status], ['ai_agent', `Asistente ${sdk} ${method}`, 'pending']);

            // The access token stops working (as at its expiry): v2 refreshes on its own; v1, which
            // holds no refresh token, authorizes again (asking the 401 challenge's scope), and with
            // the levels already granted that needs no consent page.
            await server.database.db.deleteFrom('oauth_records').where('model', '=', 'AccessToken').where('client_id', '=', String(provider.info!.client_id)).execute();
            clock.advance(2000); // past the token check's 1-second cache
            const renewing = exchanges.length;
            if (sdk === 'v2') {
              structured(await app.call('list_cities', {}));
              const renewal = exchanges.slice(renewing).find((e) => e.url === `${site}/oauth/token`);
              assert.equal(renewal?.status, 200, renewal?.body);
              assert.equal(new URLSearchParams(renewal!.requestBody).get('grant_type'), 'refresh_token');
              assert.equal(provider.authorizationUrls.length, 2, 'without the person');
              assert.deepEqual(provider.saved!.scope?.split(' ').sort(), ['directory:read', 'slots:hold'], 'the refreshed token keeps both levels');
            } else {
              await assert.rejects(app.call('list_cities', {}), (err: unknown) => app.isUnauthorized(err));
              const again = await authorizeInBrowser(browser, provider.lastUrl(), { database: server.database, email: person });
              assert.equal(again.consentPages, 0, 'no consent page: the levels are granted');
              await app.finishAuth(again.redirect.searchParams);
              structured(await app.call('list_cities', {}));
            }

            // No token request ever carried a secret (there is none): public-client authentication only.
            const tokenRequests = exchanges.filter((e) => e.url === `${site}/oauth/token`);
            assert.equal(tokenRequests.length, 3, 'two code exchanges, then a refresh (v2) or a third code (v1)');
            for (const e of tokenRequests) {
              assert.equal(e.status, 200, e.body);
              assert.equal(e.authorization, null);
              assert.ok(!new URLSearchParams(e.requestBody).has('client_secret'), e.requestBody);
            }
          } finally {
            await app.close();
          }
        });
      }
    }

    it('TypeScript SDK v1 after sign-out everywhere: its next authorization asks for sign-in, and a second person on the same browser gets their own consent and token, never the first person’s', async () => {
      const first = 'first-on-this-browser@example.com';
      const second = 'second-on-this-browser@example.com';
      const provider = new MemoryProvider({ client_name: 'Asistente compartido', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
      const app = makeApp('v1', mcpUrl, provider, fetch);
      const browser = new HttpBrowser(site);
      const whoIs = async () => structured<{ user: { email: string } }>(await app.call('get_my_account', {})).user.email;
      try {
        await assert.rejects(app.connect(), (err: unknown) => app.isUnauthorized(err));
        const connected = await authorizeInBrowser(browser, provider.lastUrl(), { database: server.database, email: first });
        assert.deepEqual([connected.signedIn, connected.consentPages], [true, 1]);
        await app.finishAuth(connected.redirect.searchParams);
        await app.connect();
        assert.equal(await whoIs(), first);

        // The first person signs out everywhere on this browser (the form on My consultations).
        const page = await (await browser.get('/consultations')).text();
        const { __action, ...fields } = hiddenFields(page, /^\/sign-out\/everywhere$/);
        assert.equal((await browser.post(__action!, fields)).status, 303);

        // The app's access token stops working; v1 holds no refresh token, so it authorizes again.
        await server.database.db.deleteFrom('oauth_records').where('model', '=', 'AccessToken').where('client_id', '=', String(provider.info!.client_id)).execute();
        clock.advance(2000);
        await assert.rejects(app.call('get_my_account', {}), (err: unknown) => app.isUnauthorized(err));
        const again = provider.lastUrl();
        assert.equal(provider.authorizationUrls.length, 2);

        // Signed out: the authorization stops at the sign-in page, with no code for anyone.
        const signedOut = await browser.get(again.href);
        let location = new URL(signedOut.headers.get('location') ?? '', site);
        for (let hops = 0; hops < 5 && location.origin === site && location.pathname !== '/sign-in'; hops++) {
          location = new URL((await browser.get(location.href)).headers.get('location') ?? '', site);
        }
        assert.equal(`${location.origin}${location.pathname}`, `${site}/sign-in`, 'the site asks who is there');

        // A second person signs in on the same browser and finishes that authorization: their own
        // consent page, their own grant, and the app acts for them.
        const theirs = await authorizeInBrowser(browser, again, { database: server.database, email: second });
        assert.deepEqual([theirs.signedIn, theirs.consentPages], [true, 1], 'signed in, then asked for their own consent');
        await app.finishAuth(theirs.redirect.searchParams);
        assert.equal(await whoIs(), second, 'the token is the second person’s');
      } finally {
        await app.close();
      }
    });
  });
}
