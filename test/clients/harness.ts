/**
 * Real MCP clients outside `npm test`: the TypeScript SDK v1 (1.32) again, the official Python SDK (2.3) and the MCP
 * Inspector CLI (2.12). Run by scripts/test-clients.sh, which makes the Python venv from the
 * hash-pinned test/clients/python/requirements.txt and names the two clients here:
 *
 *   CLIENTS_PYTHON     the venv's python
 *   CLIENTS_INSPECTOR  the Inspector's command line, as JSON (e.g. ["npx","-y","-p","node@22",…,"mcp-inspector"])
 *
 * A listening server on a fresh SQLite database; the person's browser is plain HTTP
 * (test/support/http-browser.ts: sign-in with the code from the local outbox, the consent form).
 * Each client registers dynamically, connects at directory:read, calls hold_consultation_slot,
 * meets the 403 insufficient_scope, steps up through the consent page, and the retried hold
 * succeeds. The Python client registers twice: as a public client and with client_secret_post.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { authorizeInBrowser, HttpBrowser } from '../support/http-browser.ts';
import { CALLBACK, MemoryProvider } from '../support/mcp-oauth-provider.ts';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const PYTHON = process.env.CLIENTS_PYTHON;
const INSPECTOR = process.env.CLIENTS_INSPECTOR ? (JSON.parse(process.env.CLIENTS_INSPECTOR) as string[]) : undefined;
if (!PYTHON || !INSPECTOR) throw new Error('run through scripts/test-clients.sh (CLIENTS_PYTHON and CLIENTS_INSPECTOR name the clients)');
const PYTHON_CLIENT = new URL('python/step_up_client.py', import.meta.url).pathname;
const EVERY_DAY_8_TO_20 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '08:00:00', end_time: '20:00:00', slot_minutes: 60 as const }));

interface Event {
  event: string;
  [key: string]: unknown;
}

/** Ends a child process this harness started (by its own handle), if it still runs. */
function stop(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

function exited(child: ChildProcess, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop(child);
      reject(new Error(`the client did not finish within ${timeoutMs / 1000} s`));
    }, timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? (signal ? 128 : 1));
    });
  });
}

describe('real MCP clients outside npm test: the Python SDK and the MCP Inspector CLI', () => {
  let db: TestDatabase;
  let server: RunningServer;
  let site: string;
  let mcpUrl: string;
  let lawyerId: string;
  let freeSlots: Array<{ date: string; start_time: string; end_time: string }> = [];
  const holdOf = () => {
    const slot = freeSlots.shift();
    assert.ok(slot, 'a free slot');
    return { lawyer_id: lawyerId, date: slot.date, start_time: slot.start_time, end_time: slot.end_time };
  };

  before(async () => {
    db = await databaseTargets()[0]!.create();
    await db.database.close();
    const port = await freePort();
    site = `http://localhost:${port}`;
    mcpUrl = `${site}/mcp`;
    const clock = new ManualClock(Date.now());
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

  /** The hold the app made, as the database has it. */
  const heldRow = (id: string) => server.database.db.selectFrom('booking_intents').select(['source', 'agent_name', 'status']).where('id', '=', id).executeTakeFirstOrThrow();

  for (const method of ['none', 'client_secret_post'] as const) {
    it(`Python SDK, registering with token_endpoint_auth_method ${method}: connects at directory:read, the hold is 403, it steps up through the consent page and the retried hold succeeds`, async () => {
      const name = `Python agent (${method})`;
      const person = `python-${method}@example.com`;
      const browser = new HttpBrowser(site);
      const child = spawn(PYTHON, [PYTHON_CLIENT, '--server-url', mcpUrl, '--auth-method', method, '--name', name, '--hold', JSON.stringify(holdOf())], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const events: Event[] = [];
      const consents: Array<{ scope: string[]; pages: number; preselected: string | undefined }> = [];
      const done = exited(child, 120_000);
      try {
        for await (const line of createInterface({ input: child.stdout! })) {
          const event = JSON.parse(line) as Event;
          events.push(event);
          if (event.event !== 'authorize') continue;
          const url = new URL(String(event.url));
          let preselected: string | undefined;
          const outcome = await authorizeInBrowser(browser, url, { database: server.database, email: person, onConsentPage: (html) => (preselected = /name="level" value="([^"]+)" checked/.exec(html)?.[1]) });
          consents.push({ scope: (url.searchParams.get('scope') ?? '').split(' ').sort(), pages: outcome.consentPages, preselected });
          const answer = Object.fromEntries(outcome.redirect.searchParams);
          child.stdin!.write(`${JSON.stringify(answer)}\n`);
        }
        assert.equal(await done, 0, `the Python client failed:\n${stderr.slice(-3000)}\n${JSON.stringify(events.filter((e) => e.event === 'error'))}`);
      } finally {
        stop(child);
      }

      // Registered as a public client, whatever it asked for.
      const registered = events.find((e) => e.event === 'registered')!;
      assert.deepEqual([registered.token_endpoint_auth_method, registered.client_secret], ['none', false]);
      // First the least level (the 401's scope, with offline_access: it wants refresh tokens), then the step-up.
      assert.equal(consents.length, 2, JSON.stringify(consents));
      assert.deepEqual(consents[0], { scope: ['directory:read', 'offline_access'], pages: 1, preselected: 'directory:read' });
      assert.deepEqual(consents[1], { scope: ['directory:read', 'offline_access', 'slots:hold'], pages: 1, preselected: 'slots:hold' });
      const tokens = events.filter((e) => e.event === 'tokens');
      assert.deepEqual(tokens.map((t) => [t.scope, t.refresh_token]), [['directory:read', true], ['directory:read slots:hold', true]]);
      // The 403 it met: the challenge and a JSON-RPC body naming the level.
      const refused = events.find((e) => e.event === 'http' && e.status === 403)!;
      assert.match(String(refused.www_authenticate), /error="insufficient_scope".*scope="directory:read slots:hold"/);
      const rpc = JSON.parse(String(refused.body)) as { jsonrpc: string; error: { message: string } };
      assert.equal(rpc.jsonrpc, '2.0');
      assert.match(rpc.error.message, /needs the slots:hold level/);
      assert.ok(!events.some((e) => e.event === 'http' && String(e.url).endsWith('/oauth/token') && e.status !== 200), 'every token request succeeded');

      const tools = events.find((e) => e.event === 'tools')!;
      assert.equal((tools.names as string[]).length, 15);
      const held = events.find((e) => e.event === 'result' && e.tool === 'hold_consultation_slot')!.structured as { booking_intent_id: string; confirmation_url: string };
      assert.ok(held.confirmation_url.startsWith(`${site}/confirm/`));
      assert.deepEqual(Object.values(await heldRow(held.booking_intent_id)), ['ai_agent', name, 'pending']);
    });
  }

  it('TypeScript SDK v1 (1.32, what most desktop assistants embed): a refused call is a result whose text it reads, and its step-up through the consent page holds', async () => {
    const provider = new MemoryProvider({ client_name: 'Desktop assistant (v1)', redirect_uris: [CALLBACK], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' });
    const browser = new HttpBrowser(site);
    const person = 'sdk-v1@example.com';
    let transport = new TransportV1(new URL(mcpUrl), { authProvider: provider });
    let client = new ClientV1({ name: 'desktop-assistant', version: '1.0.0' });
    const preselectedOf = async () => {
      let preselected: string | undefined;
      const outcome = await authorizeInBrowser(browser, provider.lastUrl(), { database: server.database, email: person, onConsentPage: (html) => (preselected = /name="level" value="([^"]+)" checked/.exec(html)?.[1]) });
      await transport.finishAuth(outcome.redirect.searchParams.get('code')!);
      return preselected;
    };
    try {
      await assert.rejects(client.connect(transport), (err: unknown) => err instanceof UnauthorizedError);
      assert.equal(await preselectedOf(), 'directory:read');
      transport = new TransportV1(new URL(mcpUrl), { authProvider: provider });
      client = new ClientV1({ name: 'desktop-assistant', version: '1.0.0' });
      await client.connect(transport);
      await client.listTools(); // v1 checks structured content against these output schemas from now on
      // A business refusal: accepted by v1's callTool (no -32602), its text says what to do.
      const refused = (await client.callTool({ name: 'search_lawyers', arguments: { city: 'Atlantis' } })) as { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> };
      assert.deepEqual([refused.isError, refused.structuredContent], [true, undefined]);
      assert.match(refused.content[0]!.text, /unknown city \\"Atlantis\\"; valid values: call list_cities/);
      // The step-up: 403, the person approves slots:hold (selected: what the refused tool needs), the retry holds.
      const hold = holdOf();
      await assert.rejects(client.callTool({ name: 'hold_consultation_slot', arguments: hold }), (err: unknown) => err instanceof UnauthorizedError);
      assert.equal(await preselectedOf(), 'slots:hold');
      const held = (await client.callTool({ name: 'hold_consultation_slot', arguments: hold })) as unknown as { structuredContent: { booking_intent_id: string } };
      assert.deepEqual(Object.values(await heldRow(held.structuredContent.booking_intent_id)), ['ai_agent', 'Desktop assistant (v1)', 'pending']);
    } finally {
      await client.close();
    }
  });

  /**
   * Runs the Inspector's CLI once (`--cli`), with `home` as its home (its OAuth store and
   * catalogue live there; a fresh one unless given), answering its OAuth prompts as the person
   * would: each URL it asks to open goes through the site's pages (the person picking `levels`,
   * one per consent page), and the redirect is delivered to its callback listener. `stepUp`
   * answers its "Proceed with step-up authorization?" question.
   */
  async function inspector(args: string[], options: { person: string; levels: string[]; stepUp?: 'y' | 'n'; callbackPort?: number; home?: string }) {
    const home = options.home ?? mkdtempSync(join(tmpdir(), 'consulta-inspector-'));
    const callbackPort = options.callbackPort ?? (await freePort());
    const child = spawn(INSPECTOR![0]!, [...INSPECTOR!.slice(1), '--cli', mcpUrl, ...args, '--callback-url', `http://127.0.0.1:${callbackPort}/oauth/callback`, '--format', 'json'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: {
        ...process.env,
        HOME: home,
        // npx keeps using the machine's npm cache although HOME moved.
        npm_config_cache: process.env.npm_config_cache ?? join(process.env.HOME ?? tmpdir(), '.npm'),
        // No terminal here: this lets it run its interactive OAuth; BROWSER=true makes the
        // browser it would open a no-op (the harness is the browser).
        MCP_AUTO_OPEN_ENABLED: 'true',
        BROWSER: 'true',
        DISPLAY: '',
        MCP_INSPECTOR_SECRET_STORE: 'file',
        NO_COLOR: '1',
      },
    });
    const browser = new HttpBrowser(site);
    const consents: Array<{ scope: string[]; pages: number; preselected: string | undefined }> = [];
    let stdout = '';
    let stderr = '';
    let seen = 0;
    let answered = 0;
    let work = Promise.resolve();
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const match of stderr.slice(seen).matchAll(/Please navigate to: (\S+)\n/g)) {
        seen = stderr.indexOf(match[0], seen) + match[0].length;
        const url = new URL(match[1]!);
        work = work.then(async () => {
          let preselected: string | undefined;
          const level = options.levels[consents.length];
          const outcome = await authorizeInBrowser(browser, url, { database: server.database, email: options.person, level, onConsentPage: (html) => (preselected = /name="level" value="([^"]+)" checked/.exec(html)?.[1]) });
          consents.push({ scope: (url.searchParams.get('scope') ?? '').split(' ').sort(), pages: outcome.consentPages, preselected });
          // The Inspector's own loopback listener receives the authorization response.
          const delivered = await fetch(outcome.redirect);
          await delivered.body?.cancel();
        });
      }
      const prompts = stderr.split('Proceed with step-up authorization? [y/N]').length - 1;
      if (prompts > answered) {
        answered = prompts;
        child.stdin!.write(`${options.stepUp ?? 'n'}\n`);
      }
    });
    try {
      const code = await exited(child, 240_000);
      await work;
      return { code, stdout, stderr, consents };
    } finally {
      stop(child);
      if (!options.home) rmSync(home, { recursive: true, force: true });
    }
  }

  /** The error envelope the CLI writes last on stderr with --format json. */
  const errorEnvelope = (stderr: string): unknown => JSON.parse(stderr.trim().split('\n').findLast((line) => line.startsWith('{"error"')) ?? 'null');

  it('MCP Inspector CLI, registering dynamically: runs OAuth itself and calls a directory tool; its step-up then fails in its own recovery, which refreshes instead of asking the person (an Inspector defect)', async () => {
    const home = mkdtempSync(join(tmpdir(), 'consulta-inspector-'));
    try {
      // It asks for every level the resource lists; the page selects the least (issue 25, item 7) and the person grants it.
      const first = await inspector(['--method', 'tools/call', '--tool-name', 'list_cities', '--tool-args-json', '{}'], { person: 'inspector-dcr@example.com', levels: ['directory:read'], home });
      assert.equal(first.code, 0, `${first.stderr.slice(-3000)}\n${first.stdout}`);
      assert.deepEqual(first.consents, [{ scope: ['directory:read', 'my-bookings:read', 'offline_access', 'slots:hold'], pages: 1, preselected: 'directory:read' }]);
      assert.ok((JSON.parse(first.stdout) as { result: { structuredContent: { cities: unknown[] } } }).result.structuredContent.cities.length > 0);

      // A business refusal (issue 25, item 6): the Inspector checks structured content against the
      // output schema even on errors; the refusal carries none, and its text reaches the reader.
      const refused = await inspector(['--method', 'tools/call', '--tool-name', 'search_lawyers', '--tool-args-json', JSON.stringify({ city: 'Atlantis' })], { person: 'inspector-dcr@example.com', levels: [], home });
      assert.doesNotMatch(refused.stdout + refused.stderr, /-32602|does not match the tool's output schema/);
      const result = (JSON.parse(refused.stdout) as { result: { isError?: boolean; structuredContent?: unknown; content: Array<{ text: string }> } }).result;
      assert.deepEqual([result.isError, result.structuredContent], [true, undefined], refused.stdout);
      assert.match(result.content[0]!.text, /unknown city \\"Atlantis\\"; valid values: call list_cities/);

      // The next run reuses its stored tokens. The hold meets the 403; the SDK inside starts a
      // step-up, but the CLI's recovery authorizes again with the scope it already holds, which
      // a refresh token answers: it stops there, having asked no one.
      const heldBefore = await server.database.db.selectFrom('booking_intents').select('id').execute();
      const second = await inspector(['--method', 'tools/call', '--tool-name', 'hold_consultation_slot', '--tool-args-json', JSON.stringify(holdOf())], { person: 'inspector-dcr@example.com', levels: ['slots:hold'], stepUp: 'y', home });
      assert.notEqual(second.code, 0, second.stdout);
      assert.deepEqual(errorEnvelope(second.stderr), { error: { code: 'error', message: 'Unexpected: auth() returned AUTHORIZED without authorization code' } });
      assert.deepEqual(second.consents, [], 'the person was never asked');
      assert.equal((await server.database.db.selectFrom('booking_intents').select('id').execute()).length, heldBefore.length, 'nothing held');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('MCP Inspector CLI with a client id registered beforehand: connects at directory:read, the hold is 403, it asks to step up, authorizes through the consent page and the retried hold succeeds', async () => {
    const callbackPort = await freePort();
    const reg = await fetch(`${site}/oauth/reg`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Inspector (registered)', redirect_uris: [`http://127.0.0.1:${callbackPort}/oauth/callback`], grant_types: ['authorization_code', 'refresh_token'], token_endpoint_auth_method: 'none' }),
    });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const run = await inspector(['--client-id', clientId, '--method', 'tools/call', '--tool-name', 'hold_consultation_slot', '--tool-args-json', JSON.stringify(holdOf())], {
      person: 'inspector-registered@example.com',
      levels: ['directory:read', 'slots:hold'],
      stepUp: 'y',
      callbackPort,
    });
    assert.equal(run.code, 0, `${run.stderr.slice(-3000)}\n${run.stdout}`);
    assert.match(run.stderr, /This operation needs additional scope: slots:hold\.\nProceed with step-up authorization\? \[y\/N\]/);
    assert.deepEqual(run.consents, [
      { scope: ['directory:read', 'my-bookings:read', 'offline_access', 'slots:hold'], pages: 1, preselected: 'directory:read' },
      { scope: ['directory:read', 'offline_access', 'slots:hold'], pages: 1, preselected: 'slots:hold' },
    ]);
    const held = (JSON.parse(run.stdout) as { result: { structuredContent?: { booking_intent_id: string; confirmation_url: string } } }).result.structuredContent;
    assert.ok(held && held.confirmation_url.startsWith(`${site}/confirm/`), run.stdout);
    assert.deepEqual(Object.values(await heldRow(held.booking_intent_id)), ['ai_agent', 'Inspector (registered)', 'pending']);
  });

  it('MCP Inspector CLI with a bearer token at directory:read: lists the tools; a hold needing slots:hold fails naming the level (from the challenge: it does not show the body)', async () => {
    const accessToken = await mintToken('bearer@example.com', 'directory:read');
    const header = ['--header', `Authorization: Bearer ${accessToken}`, '--stored-auth-only'];
    const list = await inspector([...header, '--method', 'tools/list'], { person: 'bearer@example.com', levels: [] });
    assert.equal(list.code, 0, list.stderr.slice(-3000));
    assert.equal((JSON.parse(list.stdout) as { result: { tools: unknown[] } }).result.tools.length, 15);
    const call = await inspector([...header, '--method', 'tools/call', '--tool-name', 'hold_consultation_slot', '--tool-args-json', JSON.stringify(holdOf())], { person: 'bearer@example.com', levels: [] });
    assert.notEqual(call.code, 0, call.stdout);
    assert.deepEqual(call.consents, [], 'no authorization without the person');
    assert.deepEqual(errorEnvelope(call.stderr), { error: { code: 'error', message: 'Insufficient scope: required "directory:read slots:hold"' } });
  });

  /** An access token for a freshly registered public client, through the site's pages (no SDK). */
  async function mintToken(person: string, scope: string): Promise<string> {
    const redirectUri = 'http://127.0.0.1:8978/callback';
    const reg = await fetch(`${site}/oauth/reg`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Harness', redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' }) });
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString('base64url');
    const auth = new URL(`${site}/oauth/auth`);
    for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope, state: 's', code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256', resource: mcpUrl })) auth.searchParams.set(k, v);
    const { redirect } = await authorizeInBrowser(new HttpBrowser(site), auth, { database: server.database, email: person });
    const res = await fetch(`${site}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code: redirect.searchParams.get('code')!, redirect_uri: redirectUri, client_id: clientId, code_verifier: verifier, resource: mcpUrl }),
    });
    assert.equal(res.status, 200);
    return ((await res.json()) as { access_token: string }).access_token;
  }
});
