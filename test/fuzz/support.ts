/**
 * The contract fuzzer's shared parts: the run parameters (fixed seed and a bounded number of runs
 * in `npm test`; `npm run fuzz -- --runs N --seed S` for the long run), arbitraries derived from
 * JSON Schemas (valid values, boundaries, malformed values), a raw HTTP/1.1 client for requests
 * no well-behaved client would send (bad percent-encoding, huge headers, odd methods), the API
 * contract checker, and the tally printed at the end of each surface.
 */
import net from 'node:net';
import fc from 'fast-check';
import { ERROR_CODES } from '../../src/domain/errors.ts';

/** A JSON Schema as the OpenAPI document and the MCP tools publish them (TypeBox output). */
export interface JsonSchema {
  type?: string | string[];
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  default?: unknown;
  examples?: unknown[];
  example?: unknown;
}

// ---------------------------------------------------------------------------------------------
// Run parameters

const DEFAULT_SEED = 20261124;

/** Runs per property: FUZZ_RUNS when the long run sets it, else the CI default of the property. */
export function runs(ciDefault: number): number {
  const n = Number(process.env.FUZZ_RUNS);
  return Number.isInteger(n) && n > 0 ? n : ciDefault;
}

/** Long runs of one character (the huge values) shortened, so a counterexample stays readable. */
export function compact(text: string): string {
  return text.replace(/(.)\1{40,}/gsu, (run, c: string) => `${c.repeat(8)}…(${[...run].length}×${JSON.stringify(c)})`).replace(/(.{2000}).+/g, '$1…');
}

/**
 * fast-check parameters: a fixed seed (FUZZ_SEED to change it) so a CI failure reproduces; a
 * failure reports the seed, the path and the shrunk counterexample (long values shortened).
 */
export function fuzzParameters<T>(ciRuns: number, scale = 1): fc.Parameters<T> {
  const seed = Number(process.env.FUZZ_SEED);
  return {
    seed: Number.isInteger(seed) ? seed : DEFAULT_SEED,
    numRuns: Math.max(1, Math.ceil(runs(ciRuns) * scale)),
    endOnFailure: true,
    reporter: (details) => {
      if (details.failed) throw new Error(compact(`${fc.defaultReportMessage(details) ?? 'property failed'}\nWhat broke: ${details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance)}`));
    },
  };
}

/** Requests tried and answers outside the contract, per surface; printed by `report()`. */
export class Tally {
  readonly tried = new Map<string, number>();
  readonly outside = new Map<string, number>();
  readonly statuses = new Map<string, Map<number | string, number>>();

  /** One request to `surface`: its outcome (an HTTP status, or a label such as `isError:not_found`) and what it broke. */
  count(surface: string, status: number | string, violations: readonly string[]): void {
    this.tried.set(surface, (this.tried.get(surface) ?? 0) + 1);
    if (violations.length > 0) this.outside.set(surface, (this.outside.get(surface) ?? 0) + 1);
    const byStatus = this.statuses.get(surface) ?? new Map<number | string, number>();
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
    this.statuses.set(surface, byStatus);
  }

  total(): { tried: number; outside: number } {
    let tried = 0;
    let outside = 0;
    for (const n of this.tried.values()) tried += n;
    for (const n of this.outside.values()) outside += n;
    return { tried, outside };
  }

  /** One line per surface: `fuzz rest GET /cities: 412 tried, 0 outside the contract (200×300 400×112)`. */
  report(label: string): string {
    const lines = [...this.tried].map(([surface, n]) => {
      const statuses = [...(this.statuses.get(surface) ?? new Map<number | string, number>())].sort(([a], [b]) => String(a).localeCompare(String(b))).map(([s, c]) => `${s}×${c}`).join(' ');
      return `fuzz ${label} ${surface}: ${n} tried, ${this.outside.get(surface) ?? 0} outside the contract (${statuses})`;
    });
    const { tried, outside } = this.total();
    lines.push(`fuzz ${label} total: ${tried} tried, ${outside} outside the contract (seed ${fuzzParameters(0).seed}, runs per property ${runs(0) || 'default'})`);
    return lines.join('\n');
  }
}

/** Throws a readable error when a request broke the contract (fast-check then shrinks it). */
export function assertContract(what: string, violations: readonly string[]): void {
  if (violations.length > 0) throw new Error(`${what}: outside the contract:\n  - ${violations.join('\n  - ')}`);
}

// ---------------------------------------------------------------------------------------------
// Values

/** A marker that must never come back raw in HTML (it would be markup we did not write). */
export const MARKER = '<x-fuzz>';

const nasty = fc.constantFrom(
  '',
  ' ',
  MARKER,
  `"><x-fuzz>${'\u0000'}`,
  "'; drop table lawyers; --",
  '../../../etc/passwd',
  '%00',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '\u202E',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'NaN',
  'null',
  'true',
  '-0',
  '1e309',
  '{"a":1}',
  '[]',
  '${7*7}',
  '{{7*7}}',
  'svc_',
  'svc_test_',
);

/** Any string, with the awkward ones over-represented. */
export const anyString = fc.oneof({ weight: 3, arbitrary: fc.string({ maxLength: 40, unit: 'grapheme' }) }, { weight: 2, arbitrary: nasty }, { weight: 1, arbitrary: fc.string({ maxLength: 20, unit: 'binary' }) });

/** A long string: over any documented limit, under or over the body limit. */
export const hugeString = fc.constantFrom(300, 5_000, 70_000).chain((n) => fc.constantFrom('a', 'é', MARKER, '\u0000').map((c) => c.repeat(Math.ceil(n / c.length))));

/** JSON nested `depth` levels deep, as text (a parser that recurses blows its stack). */
export function deeplyNested(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** A value of any JSON type (for wrong-type cases). */
export const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  anyString,
  fc.array(fc.oneof(fc.integer(), anyString), { maxLength: 3 }),
  fc.dictionary(anyString, fc.oneof(fc.integer(), anyString), { maxKeys: 3 }),
);

function typesOf(schema: JsonSchema): string[] {
  if (schema.type) return Array.isArray(schema.type) ? schema.type : [schema.type];
  if (schema.enum) return [...new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)))];
  if (schema.const !== undefined) return [schema.const === null ? 'null' : typeof schema.const];
  return [];
}

function dateArb(): fc.Arbitrary<string> {
  const near = fc.integer({ min: -1, max: 16 }).map((d) => new Date(Date.UTC(2026, 10, 23 + d)).toISOString().slice(0, 10));
  const any = fc.date({ min: new Date('1900-01-01'), max: new Date('2200-12-31'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
  return fc.oneof({ weight: 4, arbitrary: near }, { weight: 1, arbitrary: any }, { weight: 1, arbitrary: fc.constantFrom('2028-02-29', '2026-12-31', '2027-01-01', '0001-01-01', '9999-12-31') });
}

function stringValid(schema: JsonSchema, ctx: ValueContext): fc.Arbitrary<string> {
  const hints = [...(schema.examples ?? []), ...(schema.example !== undefined ? [schema.example] : [])].filter((v): v is string => typeof v === 'string');
  switch (schema.format) {
    case 'uuid':
      return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...ctx.ids) }, { weight: 1, arbitrary: fc.uuid() });
    case 'date':
      return dateArb();
    case 'date-time':
      return fc.date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'email':
      return fc.emailAddress();
    case 'uri':
      // Reserved or local names only: a fuzzed URL must never make the service reach the internet.
      return fc.tuple(fc.constantFrom('https://hooks.example.com', 'https://a.invalid', 'http://127.0.0.1:9', 'https://[::1]', 'https://169.254.169.254', 'https://consulta.test'), fc.webPath()).map(([o, p]) => `${o}${p}`);
  }
  if (schema.pattern) {
    const re = new RegExp(schema.pattern);
    const pattern = fc.stringMatching(re).filter((s) => s.length >= (schema.minLength ?? 0) && s.length <= (schema.maxLength ?? Infinity));
    // Known words that fit the pattern (slot times, say) reach further than random matches.
    const known = [...hints, ...ctx.words.filter((w) => re.test(w))];
    return known.length > 0 ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: pattern }) : pattern;
  }
  const min = schema.minLength ?? 0;
  const max = Math.min(schema.maxLength ?? 60, min + 60);
  const words = ctx.words.filter((w) => w.length >= min && w.length <= (schema.maxLength ?? Infinity));
  const free = fc.string({ minLength: min, maxLength: max, unit: 'grapheme' }).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
  return words.length > 0 ? fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...words) }, { weight: 1, arbitrary: free }) : free;
}

function numberValid(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
  return integer ? fc.integer({ min: Math.ceil(min), max: Math.floor(max) }) : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
}

/** What valid values may draw on: ids that exist (so some requests get past the 404) and words the service knows. */
export interface ValueContext {
  ids: string[];
  words: string[];
}

/** Values that satisfy the schema. */
export function validValue(schema: JsonSchema, ctx: ValueContext, depth = 0): fc.Arbitrary<unknown> {
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => validValue(s, ctx, depth)));
  if (schema.allOf) return validValue(Object.assign({}, ...schema.allOf) as JsonSchema, ctx, depth);
  const types = typesOf(schema);
  const arbs = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return stringValid(schema, ctx);
      case 'integer':
        return numberValid(schema, true);
      case 'number':
        return numberValid(schema, false);
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array': {
        const item = schema.items ?? {};
        return fc.array(depth > 4 ? fc.constant(null) : validValue(item, ctx, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, (schema.minItems ?? 0) + 4) });
      }
      case 'object':
        return validObject(schema, ctx, depth);
      default:
        return anyJson;
    }
  });
  if (arbs.length === 0) return anyJson;
  return arbs.length === 1 ? arbs[0]! : fc.oneof(...arbs);
}

function validObject(schema: JsonSchema, ctx: ValueContext, depth: number): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const model: Record<string, fc.Arbitrary<unknown>> = {};
  for (const [name, prop] of Object.entries(props)) model[name] = depth > 4 ? fc.constant(null) : validValue(prop, ctx, depth + 1);
  return fc.record(model, { requiredKeys: [...required].filter((k) => k in props) }) as fc.Arbitrary<Record<string, unknown>>;
}

/** Values on and just past the schema's edges: lengths, limits, enum near-misses, calendar edges. */
export function boundaryValue(schema: JsonSchema): fc.Arbitrary<unknown> {
  const out: unknown[] = [];
  const types = typesOf(schema);
  if (schema.enum) for (const v of schema.enum) if (typeof v === 'string') out.push(v.toUpperCase(), `${v} `, v.slice(0, -1));
  for (const alt of schema.anyOf ?? schema.oneOf ?? []) if (alt.enum) for (const v of alt.enum) if (typeof v === 'string') out.push(v.toUpperCase(), `${v}\u0000`);
  if (types.includes('string')) {
    if (schema.minLength !== undefined) out.push('x'.repeat(schema.minLength), 'x'.repeat(Math.max(0, schema.minLength - 1)));
    if (schema.maxLength !== undefined) out.push('x'.repeat(schema.maxLength), 'x'.repeat(schema.maxLength + 1), 'é'.repeat(schema.maxLength), '😀'.repeat(schema.maxLength));
    if (schema.format === 'uuid') out.push('00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF', '{00000000-0000-4000-8000-000000000000}', '00000000000040008000000000000000');
    if (schema.format === 'date') out.push('2026-02-29', '2026-02-28', '2026-13-01', '2026-00-10', '2026-11-31', '2026-1-1', '20261123', '2026-11-23T00:00:00Z', '1969-12-31', '+002026-11-23');
    if (schema.format === 'date-time') out.push('2026-11-23T25:00:00Z', '2026-11-23', '2026-11-23T08:00:00+14:00');
    if (schema.pattern?.includes(':')) out.push('24:00:00', '23:59:59', '00:00:00', '23:60:00', '9:00:00', '09:00', '09:00:00.000', '09:00:00Z');
  }
  if (types.includes('integer') || types.includes('number')) {
    for (const edge of [schema.minimum, schema.maximum]) if (edge !== undefined) out.push(edge, edge - 1, edge + 1, edge - 0.5, edge + 0.5);
    out.push(0, -1, 1.5, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, '1e3', '0x10', ' 5', '5 ', '+5', '05', '');
  }
  if (types.includes('array')) out.push([], Array.from({ length: (schema.maxItems ?? 50) + 1 }, () => null));
  if (types.includes('object')) out.push({});
  return out.length > 0 ? fc.constantFrom(...out) : anyJson;
}

/** Values that break the schema: wrong types, nulls, huge strings, deep nesting, awkward text. */
export function malformedValue(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 3, arbitrary: anyJson },
    { weight: 2, arbitrary: anyString },
    { weight: 1, arbitrary: hugeString },
    { weight: 1, arbitrary: fc.constantFrom(1001, 3000).map((d) => JSON.parse(deeplyNested(d, 'array')) as unknown) },
  );
}

/** Valid values mostly, then boundaries, then malformed ones. */
export function fuzzValue(schema: JsonSchema, ctx: ValueContext): fc.Arbitrary<unknown> {
  return fc.oneof({ weight: 5, arbitrary: validValue(schema, ctx) }, { weight: 2, arbitrary: boundaryValue(schema) }, { weight: 2, arbitrary: malformedValue() });
}

/** An object for a schema: its properties fuzzed, sometimes required ones dropped or unknown ones added. */
export function fuzzObject(schema: JsonSchema, ctx: ValueContext): fc.Arbitrary<Record<string, unknown>> {
  const props = schema.properties ?? {};
  const required = new Set(schema.required ?? []);
  const entries = Object.entries(props).map(([name, prop]) =>
    fc.tuple(fc.constant(name), fc.oneof({ weight: required.has(name) ? 8 : 2, arbitrary: fuzzValue(prop, ctx).map((v) => ({ v })) }, { weight: required.has(name) ? 1 : 3, arbitrary: fc.constant(null) })),
  );
  const extra = fc.oneof({ weight: 5, arbitrary: fc.constant([] as Array<[string, unknown]>) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(anyString, fc.constantFrom('__proto__', 'constructor', 'prototype')), anyJson), { maxLength: 3 }) });
  return fc.tuple(fc.tuple(...entries), extra).map(([pairs, more]) => {
    const out: Record<string, unknown> = {};
    for (const [name, slot] of pairs) if (slot) out[name] = slot.v;
    for (const [k, v] of more) Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

// ---------------------------------------------------------------------------------------------
// Raw HTTP

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (already encoded, or deliberately not). */
  target: string;
  headers: Array<[string, string]>;
  body?: Buffer | string;
  /** The Host header (default: the loopback address and port). */
  host?: string;
  /** Leave Content-Length out even with a body (then the body is sent as the connection's tail). */
  noContentLength?: boolean;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** Header names in the order received, repeated ones included (lower case). */
  headerNames: string[];
  body: Buffer;
  text: string;
}

function dechunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = data.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(data.subarray(at, eol).toString('latin1'), 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(data.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** Sends one request on a fresh loopback connection (`Connection: close`) and reads the whole answer. */
export function rawRequest(port: number, request: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${request.method} ${request.target.slice(0, 200)}`));
    }, timeoutMs);
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', () => {
      /* a reset after the answer was written is fine; no answer at all is reported below */
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const data = Buffer.concat(chunks);
      const end = data.indexOf('\r\n\r\n');
      if (end < 0) {
        resolve({ status: 0, headers: {}, headerNames: [], body: Buffer.alloc(0), text: data.toString('latin1').slice(0, 500) });
        return;
      }
      const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
      const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine ?? '')?.[1] ?? 0);
      const headers: Record<string, string> = {};
      const headerNames: string[] = [];
      for (const line of lines) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        headerNames.push(name);
        headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
      }
      let body: Buffer = data.subarray(end + 4);
      if ((headers['transfer-encoding'] ?? '').includes('chunked')) body = dechunk(body);
      resolve({ status, headers, headerNames, body, text: body.toString('utf8') });
    });
    const head = [`${request.method} ${request.target} HTTP/1.1`, `host: ${request.host ?? `127.0.0.1:${port}`}`, 'connection: close'];
    for (const [k, v] of request.headers) head.push(`${k}: ${v}`);
    const body = request.body === undefined ? undefined : Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, 'utf8');
    if (body && !request.noContentLength && !request.headers.some(([k]) => k.toLowerCase() === 'content-length' || k.toLowerCase() === 'transfer-encoding')) head.push(`content-length: ${body.length}`);
    socket.write(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body ?? Buffer.alloc(0)]));
    if (request.noContentLength) socket.end();
  });
}

/** Percent-encodes like a browser would, or deliberately wrongly. */
export type Encoding = 'proper' | 'raw' | 'broken';

/** `value` as it goes into a path segment or a query value under an encoding. */
export function encodePart(value: string, encoding: Encoding, breakage = 0): string {
  if (encoding === 'proper') return encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, '\uFFFD'));
  // Raw: only what the HTTP parser itself refuses (controls, spaces) is escaped; UTF-8 bytes go as they are.
  // eslint-disable-next-line no-control-regex -- control characters are exactly what must be escaped here
  if (encoding === 'raw') return Buffer.from(value, 'utf8').toString('latin1').replace(/[\u0000-\u0020\u007f#?]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  const broken = ['%', '%zz', '%C3%28', '%E0%80%AF', '%ED%A0%80', '%FF', '%2', '%%', '%u0041', '%C0%AE%C0%AE'];
  return `${encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, ''))}${broken[breakage % broken.length]}`;
}

// ---------------------------------------------------------------------------------------------
// The API contract

/** Error codes a client can receive: the catalogue of src/domain/errors.ts (docs/errors.md). */
export const KNOWN_CODES = new Set(Object.keys(ERROR_CODES));

/** What the checker needs of an answer (raw responses and `inject()` answers alike). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  text: string;
}

function header(answer: Answer, name: string): string | undefined {
  const v = answer.headers[name];
  return v === undefined ? undefined : Array.isArray(v) ? v.join(', ') : String(v);
}

/**
 * The API's error properties: a problem document (`application/problem+json`) whose `status` is
 * the HTTP status, whose `code` is in the catalogue with that status, and whose `instance` is the
 * `X-Request-Id`. `exception` names a documented exception that applies to this answer.
 */
export function problemViolations(answer: Answer, requestId: string | undefined): string[] {
  const out: string[] = [];
  const type = header(answer, 'content-type') ?? '';
  if (!type.startsWith('application/problem+json')) out.push(`error ${answer.status} has Content-Type ${JSON.stringify(type)}, not application/problem+json`);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(answer.text) as Record<string, unknown>;
  } catch {
    return [...out, `error ${answer.status} body is not JSON: ${JSON.stringify(answer.text.slice(0, 200))}`];
  }
  if (typeof body !== 'object' || body === null) return [...out, 'error body is not an object'];
  if (typeof body.type !== 'string' || !/^https?:\/\/[^ ]+\/docs\/errors\/[a-z_]+$/.test(body.type)) out.push(`problem type ${JSON.stringify(body.type)} is not a documentation URL`);
  if (typeof body.title !== 'string' || body.title === '') out.push('problem has no title');
  if (body.status !== answer.status) out.push(`problem status ${JSON.stringify(body.status)} is not the HTTP status ${answer.status}`);
  const code = body.code;
  if (typeof code !== 'string' || !KNOWN_CODES.has(code)) out.push(`problem code ${JSON.stringify(code)} is not in the catalogue`);
  else if (ERROR_CODES[code as keyof typeof ERROR_CODES].status !== answer.status) out.push(`code ${code} is documented with status ${ERROR_CODES[code as keyof typeof ERROR_CODES].status}, sent with ${answer.status}`);
  if (typeof body.type === 'string' && typeof code === 'string' && !body.type.endsWith(`/docs/errors/${code}`)) out.push(`problem type ${body.type} does not name code ${code}`);
  if (requestId !== undefined && body.instance !== requestId) out.push(`problem instance ${JSON.stringify(body.instance)} is not the X-Request-Id ${requestId}`);
  return out;
}

/** Status, request id and (for errors) problem shape of any API answer; success bodies are the caller's to check. */
export function apiViolations(answer: Answer, options: { method: string; exception?: (answer: Answer) => boolean }): string[] {
  const out: string[] = [];
  if (answer.status === 0) return ['no HTTP answer at all (connection closed)'];
  if (answer.status >= 500) out.push(`status ${answer.status}: ${answer.text.slice(0, 300)}`);
  const requestId = header(answer, 'x-request-id');
  if (!requestId || !/^req_[0-9a-f]{32}$/.test(requestId)) out.push(`X-Request-Id is ${JSON.stringify(requestId)}`);
  if (answer.status >= 400 && options.method !== 'HEAD' && !options.exception?.(answer)) out.push(...problemViolations(answer, requestId));
  return out;
}
