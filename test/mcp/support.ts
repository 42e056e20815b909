/**
 * MCP test helpers: the official SDK client over a fetch that goes through `app.inject()` (the
 * HTTP semantics are Fastify's own; the loopback and Chromium end-to-end suite is separate), a
 * connected person with an access token at a chosen level, and small result readers.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestContext } from '../support/app.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { connect, registerClient } from '../oauth/support.ts';

/** A fetch answered by the app in-process (headers, status and body as Fastify produced them). */
export function injectFetch(ctx: TestContext): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = Object.fromEntries(new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined)));
    const res = await ctx.app.fastify.inject({
      method: (init?.method ?? 'GET') as 'GET',
      url: `${url.pathname}${url.search}`,
      headers: { ...headers, host: url.host },
      payload: typeof init?.body === 'string' ? init.body : undefined,
    });
    const responseHeaders = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) responseHeaders.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    const empty = res.statusCode === 204 || res.statusCode === 304 || res.rawPayload.length === 0;
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: responseHeaders });
  }) as typeof fetch;
}

export interface Agent {
  person: SignedIn;
  clientId: string;
  accessToken: string;
}

/** A person who connected an app at `scope`; its access token. */
export async function connectedAgent(ctx: TestContext, email: string, scope: string, clientName = 'Test Agent'): Promise<Agent> {
  const person = await signedIn(ctx, email);
  const clientId = await registerClient(ctx, { client_name: clientName });
  const tokens = await connect(ctx, person.client, { clientId, scope, answer: scope.split(' ').pop() });
  return { person, clientId, accessToken: tokens.access_token };
}

/** An SDK client connected with a bearer token: `modern` pins 2026-07-28, `legacy` runs the 2025 initialize. */
export async function sdkClient(ctx: TestContext, accessToken: string, era: 'modern' | 'legacy' = 'modern'): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(ctx.config.mcpUrl), {
    fetch: injectFetch(ctx),
    requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
  });
  const client = new Client({ name: 'consulta-tests', version: '1.0.0' }, era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {});
  await client.connect(transport);
  return client;
}

/**
 * The TypeScript SDK v1 client (1.32, what most desktop assistants embed) connected with a bearer
 * token. It checks a result's structuredContent against the tool's output schema once it has
 * listed the tools, errors included: so the tools are listed here, as an assistant does.
 */
export async function sdkClientV1(ctx: TestContext, accessToken: string): Promise<ClientV1> {
  const transport = new TransportV1(new URL(ctx.config.mcpUrl), { fetch: injectFetch(ctx), requestInit: { headers: { authorization: `Bearer ${accessToken}` } } });
  const client = new ClientV1({ name: 'consulta-tests-v1', version: '1.0.0' });
  await client.connect(transport);
  await client.listTools();
  return client;
}

/** The structured content of a tool result, checked against its JSON text block. */
export function structured<T = Record<string, unknown>>(result: unknown): T {
  const r = result as { structuredContent?: unknown; content?: Array<{ type: string; text?: string }>; isError?: boolean };
  if (r.isError) throw new Error(`tool error: ${r.content?.[0]?.text}`);
  const text = r.content?.find((c) => c.type === 'text')?.text;
  if (text === undefined || JSON.stringify(JSON.parse(text)) !== JSON.stringify(r.structuredContent)) throw new Error('the text block is not the structured content');
  return r.structuredContent as T;
}

export interface ToolError {
  code: string;
  message: string;
  errors?: Array<{ argument: string; message: string }>;
  retry_after_seconds?: number;
  [key: string]: unknown;
}

/**
 * The `error` of an isError tool result, read as an agent reads it: from the JSON of its text
 * block. An error result carries no structuredContent (clients check that against the tool's
 * output schema, even on errors: docs/mcp.md#errors).
 */
export function toolError(result: unknown): ToolError {
  const r = result as { isError?: boolean; structuredContent?: unknown; content?: Array<{ type: string; text?: string }> };
  if (!r.isError) throw new Error(`expected an isError result, got ${JSON.stringify(result).slice(0, 300)}`);
  if (r.structuredContent !== undefined) throw new Error(`an error result with structuredContent: ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
  const text = r.content?.find((c) => c.type === 'text')?.text;
  if (text === undefined) throw new Error('an error result without a text block');
  return (JSON.parse(text) as { error: ToolError }).error;
}

/** The error code of an isError tool result. */
export function errorCode(result: unknown): string {
  return toolError(result).code;
}

/** The 15 tools of DESIGN.md §8, in that order: what tools/list must answer. */
export const TOOL_NAMES = [
  'search_lawyers',
  'get_lawyer_profile',
  'list_lawyer_reviews',
  'get_lawyer_availability',
  'find_earliest_slots',
  'list_practice_areas',
  'suggest_practice_areas',
  'list_cities',
  'get_my_account',
  'hold_consultation_slot',
  'get_booking_intent',
  'list_my_booking_intents',
  'list_my_bookings',
  'get_my_booking',
  'get_site_link',
];
