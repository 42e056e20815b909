/**
 * Contract fuzzing of the MCP server. Every tool that tools/list announces is called through the
 * official SDK client with arguments derived from its published input schema (valid values,
 * boundaries, wrong types, unknown and missing properties, huge and nested values); and raw
 * JSON-RPC over real HTTP on loopback sends what no SDK would (malformed JSON, batches, wrong
 * shapes, odd content types and methods). Properties (docs/errors.md#contract-fuzzing): never a
 * JSON-RPC internal error (-32603) nor an `internal_error` result; a refusal is an `isError` result
 * (with `{"error": {"code", "message"}}` and a documented code when the tool refused, or the SDK's
 * text naming the field for invalid arguments) or an invalid-params protocol error (-32602); every
 * success validates against the tool's output schema; over HTTP, no 5xx and always X-Request-Id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import type { ValidateFunction } from 'ajv';
import fc from 'fast-check';
import { createAjv } from '../../src/domain/validation.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, sdkClient, type Agent } from '../mcp/support.ts';
import { anyJson, assertContract, KNOWN_CODES, deeplyNested, fuzzObject, fuzzParameters, hugeString, rawRequest, Tally, validValue, type JsonSchema, type ValueContext } from './support.ts';

/** Codes a tool may refuse with (docs/mcp.md#tools), plus the HTTP catalogue's 4xx codes it reuses. */
const TOOL_CODES = new Set(['not_found', 'invalid_request', 'rate_limited', 'slot_unavailable', 'forbidden', 'conflict', 'hold_limit_reached']);

const sqlite = databaseTargets()[0]!;

/** The `error` of an error result's text block (JSON), or undefined for the SDK's own plain-text refusals. */
function errorOfText(text: string | undefined): { code?: unknown; message?: unknown } | undefined {
  try {
    return (JSON.parse(text ?? '') as { error?: { code?: unknown; message?: unknown } }).error;
  } catch {
    return undefined;
  }
}

describe('contract fuzzing: MCP tools (sqlite)', () => {
  let ctx: TestContext;
  let agent: Agent;
  let client: Client;
  let port: number;
  let tools: Array<{ name: string; inputSchema: JsonSchema; outputSchema?: JsonSchema }>;
  let values: ValueContext;
  const tally = new Tally();
  const ajv = createAjv({ coerceTypes: false, useDefaults: false, strict: false });
  const validators = new Map<string, ValidateFunction>();

  before(async () => {
    ctx = await createTestContext(sqlite, { config: { maxFailedAuthPerMinute: 100_000 } });
    const lawyers = await insertLawyers(ctx.database, [
      lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14, reviews: [{ rating: 4, comment: 'Útil <x-fuzz>', date: '2026-10-01T10:00:00Z', verified_client: true }] }),
      lawyerRecord({ name: 'Ahmed Benali', city: 'barcelona', bio: null, total_bookings: null, languages: ['ar', 'fr'], weekly_hours: EVERY_DAY_9_TO_14 }),
    ]);
    agent = await connectedAgent(ctx, 'fuzz@example.com', 'directory:read slots:hold my-bookings:read', 'Fuzz <Agent>');
    client = await sdkClient(ctx, agent.accessToken, 'modern');
    tools = (await client.listTools()).tools as typeof tools;
    values = {
      ids: [...lawyers],
      words: ['madrid', 'barcelona', 'arraigo-social', 'family-reunification', 'ar', 'es', 'Arabic', 'confirm_hold', 'quiero traer a mi mujer', '09:00:00', '10:00:00', '11:00:00', '12:00:00'],
    };
    await ctx.app.fastify.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.fastify.server.address() as { port: number }).port;
  });

  after(async () => {
    console.log(tally.report('mcp'));
    await client?.close();
    await ctx?.close();
  });

  /** Everything that must hold of one tools/call outcome (a result, or the error the client threw). */
  function violations(tool: (typeof tools)[number], outcome: { result?: unknown; error?: unknown }): string[] {
    if (outcome.error !== undefined) {
      const code = (outcome.error as { code?: unknown }).code;
      if (code === -32603) return [`JSON-RPC internal error: ${String(outcome.error)}`];
      // Invalid params is the protocol's answer to arguments it cannot take.
      if (code === -32602) return [];
      // An HTTP refusal before the protocol (a body over the size limit): a catalogued 4xx problem.
      const problem = /(\{"type".*\})\s*$/s.exec(String((outcome.error as Error).message))?.[1];
      if (problem) {
        const body = JSON.parse(problem) as { status?: number; code?: string };
        if (typeof body.status === 'number' && body.status < 500 && body.code && KNOWN_CODES.has(body.code)) return [];
      }
      return [`the call threw ${String(outcome.error).slice(0, 300)} (code ${JSON.stringify(code)})`];
    }
    const r = outcome.result as { isError?: boolean; structuredContent?: unknown; content?: Array<{ type: string; text?: string }> };
    const out: string[] = [];
    const text = r.content?.find((c) => c.type === 'text')?.text;
    if (text === undefined) out.push('no text content');
    if (r.isError) {
      if (r.structuredContent !== undefined) out.push('an error result with structuredContent (clients check it against the output schema)');
      const error = errorOfText(text);
      if (error) {
        if (error.code === 'internal_error') out.push(`internal_error result: ${String(error.message)}`);
        else if (typeof error.code !== 'string' || !TOOL_CODES.has(error.code)) out.push(`undocumented tool error code ${JSON.stringify(error.code)}`);
        if (typeof error.message !== 'string' || error.message === '') out.push('tool error without a message');
      } else if (!text || !/invalid|must|required|expected|unrecognized|too|not/i.test(text)) {
        // The SDK's own refusal of invalid arguments: a text naming what is wrong.
        out.push(`isError without a code or a validation message: ${String(text).slice(0, 300)}`);
      }
      return out;
    }
    if (tool.outputSchema) {
      let check = validators.get(tool.name);
      if (!check) validators.set(tool.name, (check = ajv.compile(tool.outputSchema)));
      if (!check(r.structuredContent)) out.push(`structuredContent does not match the output schema: ${ajv.errorsText(check.errors)}`);
    }
    if (text !== undefined && JSON.stringify(JSON.parse(text)) !== JSON.stringify(r.structuredContent)) out.push('the text block is not the structured content');
    return out;
  }

  /** How a call ended, for the counts: `ok`, `isError:<code>`, `isError:invalid-arguments`, `error:<code>`. */
  function outcomeLabel(outcome: { result?: unknown; error?: unknown }): string {
    if (outcome.error !== undefined) {
      const http = /"status":(\d{3})/.exec(String((outcome.error as Error).message))?.[1];
      return http ? `http:${http}` : `error:${String((outcome.error as { code?: unknown }).code)}`;
    }
    const r = outcome.result as { isError?: boolean; content?: Array<{ type: string; text?: string }> };
    if (!r.isError) return 'ok';
    return `isError:${errorOfText(r.content?.find((c) => c.type === 'text')?.text)?.code ?? 'invalid-arguments'}`;
  }

  it('every tool keeps the contract for arguments derived from its input schema', async () => {
    assert.equal(tools.length, 15);
    for (const tool of tools) {
      const args = fc.oneof(
        { weight: 3, arbitrary: validValue(tool.inputSchema, values) },
        { weight: 3, arbitrary: fuzzObject(tool.inputSchema, values) },
        { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 4 }) },
        { weight: 1, arbitrary: hugeString.map((s) => ({ text: s, city: s, lawyer_id: s })) },
      );
      await fc.assert(
        fc.asyncProperty(args, async (a) => {
          let outcome: { result?: unknown; error?: unknown };
          try {
            outcome = { result: await client.callTool({ name: tool.name, arguments: a as Record<string, unknown> }) };
          } catch (error) {
            outcome = { error };
          }
          const found = violations(tool, outcome);
          tally.count(`tools/call ${tool.name}`, outcomeLabel(outcome), found);
          assertContract(`${tool.name} ${JSON.stringify(a).slice(0, 300)}`, found);
        }),
        fuzzParameters(40),
      );
    }
    assert.equal(tally.total().outside, 0);
  });

  it('raw JSON-RPC over HTTP: malformed messages never get a 5xx or an internal error', async () => {
    const mcpUrl = new URL(ctx.config.mcpUrl);
    const toolName = fc.oneof(fc.constantFrom(...tools.map((t) => t.name)), fc.string({ maxLength: 20 }), fc.constant(null));
    const argsArb = fc.oneof(anyJson, fc.constant(undefined), fc.constant([]), fc.constant('{}'));
    // The 2026-07-28 revision's per-request envelope (what the SDK client sends), or a broken one.
    const meta = fc.oneof(
      { weight: 4, arbitrary: fc.constant({ 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }) },
      { weight: 1, arbitrary: anyJson },
    );
    const toolArgs = fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...tools).chain((t) => fc.record({ name: fc.constant(t.name), arguments: fuzzObject(t.inputSchema, values) as fc.Arbitrary<unknown>, _meta: meta })) },
      { weight: 1, arbitrary: fc.record({ name: toolName, arguments: argsArb, _meta: meta }, { requiredKeys: ['name'] }) },
      { weight: 1, arbitrary: anyJson },
    );
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constant('2.0'), id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)), method: fc.constant('tools/call'), params: toolArgs }),
      fc.record({ jsonrpc: fc.constantFrom('2.0', '1.0', 2), id: fc.integer(), method: fc.constantFrom('tools/list', 'initialize', 'server/discover', 'ping', 'resources/list', 'prompts/get', 'nope', ''), params: fc.option(fc.record({ _meta: meta }), { nil: undefined }) }),
      fc.record({ jsonrpc: fc.constant('2.0'), method: fc.constantFrom('notifications/initialized', 'notifications/cancelled'), params: fc.option(anyJson) }),
      anyJson,
    );
    const body = fc.oneof(
      { weight: 6, arbitrary: message.map((m) => JSON.stringify(m) ?? 'null') },
      { weight: 1, arbitrary: fc.array(message, { maxLength: 3 }).map((ms) => JSON.stringify(ms)) },
      { weight: 1, arbitrary: fc.constantFrom('', '{', 'null', '[]', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_lawyers","arguments":{"city":"\\ud800"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"f","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}') },
      { weight: 1, arbitrary: fc.constantFrom(1001, 20_000).map((d) => deeplyNested(d, 'array')) },
      { weight: 1, arbitrary: hugeString.map((s) => JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'suggest_practice_areas', arguments: { text: s }, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'f', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } })) },
    );
    const wellFormed = { contentType: 'application/json', accept: 'application/json, text/event-stream', version: '2026-07-28', auth: `Bearer ${agent.accessToken}`, method: 'POST' };
    const odd = fc.record({
      contentType: fc.constantFrom('application/json', 'application/json', 'application/json', 'application/json', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', ''),
      accept: fc.constantFrom('application/json, text/event-stream', 'application/json, text/event-stream', 'application/json', 'text/event-stream', '*/*', ''),
      version: fc.constantFrom('2026-07-28', '2026-07-28', '2026-07-28', '2025-06-18', '2025-03-26', '1999-01-01', ''),
      auth: fc.constantFrom(`Bearer ${agent.accessToken}`, `Bearer ${agent.accessToken}`, 'Bearer nope', 'Basic eA==', ''),
      method: fc.constantFrom('POST', 'POST', 'POST', 'GET', 'DELETE', 'PUT', 'PROPFIND'),
    });
    const headers = fc.oneof({ weight: 2, arbitrary: fc.constant(wellFormed) }, { weight: 1, arbitrary: odd });
    await fc.assert(
      fc.asyncProperty(body, headers, fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }), async (b, h, routing) => {
        const hs: Array<[string, string]> = [];
        // The 2026-07-28 revision's routing headers (Mcp-Method, Mcp-Name) mirror the body, as the SDK sends them; sometimes left out.
        if (routing) {
          const parsed = ((): { method?: unknown; params?: { name?: unknown } } | null => {
            try {
              return JSON.parse(b) as { method?: unknown; params?: { name?: unknown } } | null;
            } catch {
              return null; // not JSON: no routing headers
            }
          })();
          if (parsed && typeof parsed === 'object' && typeof parsed.method === 'string') hs.push(['mcp-method', parsed.method]);
          if (parsed && typeof parsed === 'object' && typeof parsed.params?.name === 'string' && /^[\x20-\x7e]*$/.test(parsed.params.name)) hs.push(['mcp-name', parsed.params.name]);
        }
        if (h.contentType) hs.push(['content-type', h.contentType]);
        if (h.accept) hs.push(['accept', h.accept]);
        if (h.version) hs.push(['mcp-protocol-version', h.version]);
        if (h.auth) hs.push(['authorization', h.auth]);
        const res = await rawRequest(port, { method: h.method, target: mcpUrl.pathname, host: mcpUrl.host, headers: hs, body: h.method === 'GET' ? undefined : b });
        const found: string[] = [];
        if (res.status === 0) found.push('no HTTP answer');
        if (res.status >= 500) found.push(`status ${res.status}: ${res.text.slice(0, 300)}`);
        if (!/^req_[0-9a-f]{32}$/.test(res.headers['x-request-id'] ?? '')) found.push(`X-Request-Id is ${JSON.stringify(res.headers['x-request-id'])}`);
        if (res.text.includes('-32603')) found.push(`internal error in the answer: ${res.text.slice(0, 300)}`);
        if (res.text.includes('"internal_error"')) found.push(`internal_error result: ${res.text.slice(0, 300)}`);
        tally.count('raw JSON-RPC', res.status, found);
        assertContract(`${h.method} ${JSON.stringify(h)} ${b.slice(0, 300)}`, found);
      }),
      fuzzParameters(200),
    );
  });

  // Issue 17, item 4: a message nesting arrays or objects more than 32 levels deep, anywhere, is
  // invalid params (-32602) answering its id, on the direct path (a canonical 2026-07-28 call) and
  // through the SDK (a 2025-era call, or a changed envelope) alike; within the bound it reaches
  // the tool. Never a 5xx, an internal error or an exception's text ("Maximum call stack").
  it('raw JSON-RPC: nesting past 32 levels anywhere in a message is invalid params on both paths; within the bound it never is', async () => {
    const mcpUrl = new URL(ctx.config.mcpUrl);
    const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} };
    const PLACEHOLDER = '\u0000nest';
    // How deep, and of what: 15,000 arrays (the case) and 10,000 objects fit in 64 KiB.
    const nesting = fc.constantFrom<'array' | 'object'>('array', 'object').chain((k) =>
      fc.tuple(fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(1_000, k === 'array' ? 15_000 : 10_000)), fc.constant(k)),
    );
    // Where the nested value goes, and the level its outermost container sits at (the body is level 1).
    const place = fc.constantFrom<[string, number]>(['argument', 4], ['arguments', 3], ['meta', 4], ['params', 3]);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...tools.map((t) => t.name)), nesting, place, fc.constantFrom('2026-07-28', '2025-11-25'), fc.oneof(fc.integer(), fc.string({ maxLength: 8 })), async (name, [n, k], [where, at], era, id) => {
        const params: Record<string, unknown> = { name, arguments: {}, _meta: META };
        if (where === 'argument') params.arguments = { city: PLACEHOLDER };
        else if (where === 'arguments') params.arguments = PLACEHOLDER;
        else if (where === 'meta') params._meta = { ...META, x: PLACEHOLDER };
        else params.extra = PLACEHOLDER;
        // `n` containers: arrays, or objects nested under "a"; built as text (too deep to stringify here).
        const nested = k === 'array' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;
        const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }).replace(JSON.stringify(PLACEHOLDER), nested);
        const depth = at + n - 1;
        const headers: Array<[string, string]> = [['content-type', 'application/json'], ['accept', 'application/json, text/event-stream'], ['mcp-protocol-version', era], ['authorization', `Bearer ${agent.accessToken}`]];
        if (era === '2026-07-28') headers.push(['mcp-method', 'tools/call'], ['mcp-name', name]);
        const res = await rawRequest(port, { method: 'POST', target: mcpUrl.pathname, host: mcpUrl.host, headers, body });
        const found: string[] = [];
        if (res.status === 0 || res.status >= 500) found.push(`status ${res.status}: ${res.text.slice(0, 300)}`);
        if (/call stack|RangeError|-32603|"internal_error"/.test(res.text)) found.push(`an exception or internal error in the answer: ${res.text.slice(0, 300)}`);
        const tooDeep = res.text.includes('more than 32 levels deep');
        if (depth > 32) {
          let answer: { jsonrpc?: unknown; id?: unknown; error?: { code?: unknown } } = {};
          try {
            answer = JSON.parse(res.text) as typeof answer;
          } catch {
            found.push(`not JSON: ${res.text.slice(0, 300)}`);
          }
          if (res.status !== 200 || answer.error?.code !== -32602 || answer.id !== id || !tooDeep) found.push(`${depth} levels: expected invalid params answering id ${JSON.stringify(id)}, got ${res.status} ${res.text.slice(0, 300)}`);
        } else if (tooDeep) {
          found.push(`${depth} levels refused as too deep`);
        }
        tally.count('nesting', depth > 32 ? 'too deep' : 'within', found);
        assertContract(`${era} ${name} ${where} ${k} × ${n} (${depth} levels)`, found);
      }),
      fuzzParameters(120),
    );
  });

  // Issue 17, item 15: the Host must be MCP_URL's host, port included (a default port may be
  // written out); anything else is 403 before the token or the message is looked at.
  it('raw HTTP: a Host other than MCP_URL’s host and port is 403, whatever the message', async () => {
    const mcpUrl = new URL(ctx.config.mcpUrl);
    const allowed = new Set([mcpUrl.host, `${mcpUrl.hostname}:80`, mcpUrl.host.toUpperCase()]);
    const host = fc.oneof(
      fc.constantFrom(mcpUrl.host, `${mcpUrl.hostname}:80`, mcpUrl.host.toUpperCase()),
      fc.integer({ min: 0, max: 65_535 }).filter((p) => p !== 80).map((p) => `${mcpUrl.hostname}:${p}`),
      fc.constantFrom(`${mcpUrl.hostname}:`, `${mcpUrl.hostname}:080x`, `${mcpUrl.hostname}.`, `x.${mcpUrl.hostname}`, `user@${mcpUrl.hostname}`, `${mcpUrl.hostname}/mcp`, `${mcpUrl.hostname}:80:80`, '127.0.0.1', `127.0.0.1:${port}`, 'localhost', '[::1]', ''),
    );
    // A 2026-07-28 tools/call: canonical (the direct path's), or with client capabilities (the SDK's).
    const message = fc.constantFrom({}, { roots: { listChanged: true } }).map((capabilities) =>
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'list_cities', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientInfo': { name: 'fuzz', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': capabilities } } }),
    );
    await fc.assert(
      fc.asyncProperty(host, message, fc.boolean(), async (h, body, withToken) => {
        const headers: Array<[string, string]> = [['content-type', 'application/json'], ['accept', 'application/json, text/event-stream'], ['mcp-protocol-version', '2026-07-28'], ['mcp-method', 'tools/call'], ['mcp-name', 'list_cities']];
        if (withToken) headers.push(['authorization', `Bearer ${agent.accessToken}`]);
        const res = await rawRequest(port, { method: 'POST', target: mcpUrl.pathname, host: h, headers, body });
        const found: string[] = [];
        const expected = allowed.has(h) ? (withToken ? 200 : 401) : 403;
        if (res.status !== expected) found.push(`Host ${JSON.stringify(h)}: expected ${expected}, got ${res.status} ${res.text.slice(0, 200)}`);
        if (!/^req_[0-9a-f]{32}$/.test(res.headers['x-request-id'] ?? '')) found.push(`X-Request-Id is ${JSON.stringify(res.headers['x-request-id'])}`);
        tally.count('host', res.status, found);
        assertContract(`Host ${JSON.stringify(h)}`, found);
      }),
      fuzzParameters(100),
    );
  });
});
