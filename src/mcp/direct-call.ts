/**
 * The direct path for the commonest MCP request: one stateless 2026-07-28 `tools/call` in its
 * canonical form. The SDK's HTTP entry costs about 0.4 ms of CPU per request (classifying the
 * era, parsing the message with its schemas, building a server, web Request and Response
 * objects), eight times what the tool itself costs when its answer is cached. A request this
 * module recognises is answered with the same bytes the SDK would send; anything else (another
 * method, a 2025-era client, a batch, a missing level, invalid arguments, any header or envelope
 * this module does not recognise exactly) goes to the SDK, which stays the protocol's authority.
 *
 * "The same bytes" is tested, not assumed: test/mcp/direct-call.test.ts sends generated
 * variations of requests to both paths and compares status, headers and bodies.
 *
 * Recognised, all of:
 * - `MCP-Protocol-Version: 2026-07-28`, `Mcp-Method: tools/call`, `Mcp-Name` equal to the tool's
 *   name, `Content-Type: application/json`, an Accept naming application/json, no session id;
 * - a body of exactly `jsonrpc: "2.0"`, `id` (a string or a safe integer), `method: "tools/call"`
 *   and `params` holding `name` (a tool of ours), optional `arguments` (an object) and `_meta`
 *   holding exactly the three envelope keys: protocolVersion 2026-07-28, clientInfo (name and
 *   version, optional title: short strings) and clientCapabilities (an object of empty objects);
 * - a token holding the tool's level, and arguments the tool's input schema accepts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { CallToolResult } from '@modelcontextprotocol/server';
import type { CallContext, PreparedTool } from './server.ts';

export const MODERN_REVISION = '2026-07-28';
const VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const SERVER_INFO_KEY = 'io.modelcontextprotocol/serverInfo';

/** A recognised call: which tool, with which (validated) arguments, answering which id. */
export interface DirectCall {
  id: string | number;
  tool: PreparedTool;
  args: Record<string, unknown>;
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const shortString = (value: unknown): boolean => typeof value === 'string' && value.length > 0 && value.length <= 200;

function onlyKeys(value: Record<string, unknown>, allowed: readonly string[], required: readonly string[]): boolean {
  let present = 0;
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (!allowed.includes(key)) return false;
    if (required.includes(key)) present++;
  }
  return present === required.length;
}

function envelopeRecognised(meta: unknown): boolean {
  if (!isObject(meta) || !onlyKeys(meta, [VERSION_KEY, CLIENT_INFO_KEY, CAPABILITIES_KEY], [VERSION_KEY, CLIENT_INFO_KEY, CAPABILITIES_KEY])) return false;
  if (meta[VERSION_KEY] !== MODERN_REVISION) return false;
  const info = meta[CLIENT_INFO_KEY];
  if (!isObject(info) || !onlyKeys(info, ['name', 'version', 'title'], ['name', 'version'])) return false;
  if (!shortString(info.name) || !shortString(info.version) || (info.title !== undefined && !shortString(info.title))) return false;
  const capabilities = meta[CAPABILITIES_KEY];
  if (!isObject(capabilities)) return false;
  for (const key in capabilities) {
    const value = capabilities[key];
    if (!isObject(value) || Object.keys(value).length > 0) return false;
  }
  return true;
}

export class DirectToolCalls {
  private readonly byName: Map<string, PreparedTool>;
  /** `{"content":…,"structuredContent":…,"resultType":"complete","_meta":…}` per answer object. */
  private readonly fragments = new WeakMap<object, Buffer>();
  private readonly resultMeta: string;

  constructor(tools: readonly PreparedTool[], serverInfo: object) {
    this.byName = new Map(tools.map((t) => [t.name, t]));
    this.resultMeta = `"resultType":"complete","_meta":${JSON.stringify({ [SERVER_INFO_KEY]: serverInfo })}}`;
  }

  /** The call, when the request is one this path answers exactly as the SDK would; else null. */
  recognise(headers: IncomingHttpHeaders, body: unknown, scopes: readonly string[]): DirectCall | null {
    if (headers['mcp-protocol-version'] !== MODERN_REVISION || headers['mcp-method'] !== 'tools/call' || headers['mcp-session-id'] !== undefined) return null;
    const contentType = headers['content-type'];
    if (contentType === undefined || !/^application\/json\s*(?:;\s*charset=utf-8\s*)?$/i.test(contentType)) return null;
    const accept = headers.accept;
    if (accept === undefined || !accept.includes('application/json')) return null;
    if (!isObject(body) || !onlyKeys(body, ['jsonrpc', 'id', 'method', 'params'], ['jsonrpc', 'id', 'method', 'params'])) return null;
    if (body.jsonrpc !== '2.0' || body.method !== 'tools/call') return null;
    const id = body.id;
    if (!(typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)))) return null;
    const params = body.params;
    if (!isObject(params) || !onlyKeys(params, ['name', 'arguments', '_meta'], ['name', '_meta'])) return null;
    const name = params.name;
    if (typeof name !== 'string' || headers['mcp-name'] !== name) return null;
    const tool = this.byName.get(name);
    if (!tool || !scopes.includes(tool.level)) return null;
    if (params.arguments !== undefined && !isObject(params.arguments)) return null;
    if (!envelopeRecognised(params._meta)) return null;
    const args = tool.validArguments(params.arguments);
    return args === null ? null : { id, tool, args };
  }

  /** Runs the call and returns the JSON-RPC response's bytes, as the SDK would write them. */
  async answer(call: DirectCall, context: CallContext): Promise<Buffer> {
    const result = await call.tool.execute(call.args, context);
    return Buffer.concat([RESULT_OPEN, this.fragment(result), Buffer.from(`,"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`)]);
  }

  /** The result as the SDK projects it (content, structuredContent, isError), then its stamps. */
  private fragment(result: CallToolResult): Buffer {
    const structured = result.structuredContent;
    const cacheable = !result.isError && isObject(structured);
    if (cacheable) {
      const known = this.fragments.get(structured as object);
      if (known) return known;
    }
    const parts: string[] = [`{"content":${JSON.stringify(result.content)}`];
    if (structured !== undefined) parts.push(`"structuredContent":${JSON.stringify(structured)}`);
    if (result.isError) parts.push('"isError":true');
    parts.push(this.resultMeta);
    const bytes = Buffer.from(parts.join(','), 'utf8');
    if (cacheable) this.fragments.set(structured as object, bytes);
    return bytes;
  }
}

const RESULT_OPEN = Buffer.from('{"result":');
