/**
 * Contract fuzzing of the REST API, over real HTTP on loopback (so Node's HTTP parser and
 * Fastify's router see exactly the bytes sent). Every operation of the served OpenAPI document
 * gets requests derived from its parameters and body schema: valid values, boundaries, malformed
 * values, wrong types and content types, oversized and deeply nested bodies, bad percent-encoding,
 * over-long path segments, odd headers and methods. Properties (docs/errors.md#contract-fuzzing):
 * no 5xx; every answer carries X-Request-Id; every error is a problem document with a catalogued
 * code whose status is the HTTP status (the initiate endpoint's generic 404 aside); every success
 * validates against the response schema the document declares for its status.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { ValidateFunction } from 'ajv';
import { createAjv } from '../../src/domain/validation.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, madridDate, T0 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { makeKeys, type KeyKit } from '../support/keys.ts';
import {
  anyString,
  apiViolations,
  assertContract,
  deeplyNested,
  encodePart,
  fuzzObject,
  fuzzParameters,
  fuzzValue,
  hugeString,
  rawRequest,
  Tally,
  type Answer,
  type Encoding,
  type JsonSchema,
  type RawRequest,
  type RawResponse,
  type ValueContext,
  validValue,
} from './support.ts';

interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: JsonSchema;
}

interface Operation {
  parameters?: Parameter[];
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  responses: Record<string, { content?: Record<string, { schema: JsonSchema }> }>;
}

interface OpenApiDoc {
  paths: Record<string, Record<string, Operation>>;
}

const PREFIX = '/api/v1';
type Mode = 'valid' | 'fuzz';
const ODD_METHODS = ['HEAD', 'OPTIONS', 'PUT', 'DELETE', 'PATCH', 'PROPFIND', 'TRACE', 'MKCOL', 'SEARCH', 'get', 'G@T', 'FOO'];
const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=latin1',
  'application/json; charset=utf-16',
  'application/json; boundary=x; charset="utf-8"',
  'application/problem+json',
  'application/merge-patch+json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/octet-stream',
  '',
  ';',
  'application/',
];

/** Text for a path segment, query value or header from any JSON value. */
function asText(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value) ?? String(value);
}

// The database is not what is fuzzed: the full sample on SQLite, a sixth of it on PostgreSQL
// (when it is configured) for the dialect's own error paths.
for (const target of databaseTargets()) {
  const scale = target.name === 'sqlite' ? 1 : 1 / 6;
  describe(`contract fuzzing: REST API (${target.name}, real HTTP)`, () => {
    let ctx: TestContext;
    let port: number;
    let doc: OpenApiDoc;
    let keys: KeyKit;
    let values: ValueContext;
    const tally = new Tally();
    const ajv = createAjv({ coerceTypes: false, useDefaults: false, strict: false });
    const validators = new Map<JsonSchema, ValidateFunction>();
    const validator = (schema: JsonSchema) => {
      let v = validators.get(schema);
      if (!v) validators.set(schema, (v = ajv.compile(schema)));
      return v;
    };

    before(async () => {
      // Limits raised so the fuzzer is not simply rate-limited.
      ctx = await createTestContext(target, { config: { maxFailedAuthPerMinute: 100_000 } });
      const lawyers = await insertLawyers(ctx.database, [
        lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14, reviews: [{ rating: 5, comment: 'Clear <b>advice</b>', date: '2026-10-01T10:00:00Z', verified_client: true }] }),
        lawyerRecord({ name: 'Ahmed <x-fuzz> Benali', city: 'barcelona', bio: null, total_bookings: null, languages: ['ar', 'fr'], weekly_hours: EVERY_DAY_9_TO_14 }),
        lawyerRecord({ verified: false }),
      ]);
      keys = await makeKeys(ctx);
      await ctx.app.fastify.listen({ host: '127.0.0.1', port: 0 });
      port = (ctx.app.fastify.server.address() as { port: number }).port;
      // One real intent, so polling can succeed.
      const held = await rawRequest(port, {
        method: 'POST',
        target: `${PREFIX}/bookings/initiate`,
        headers: [['content-type', 'application/json'], ['authorization', `Bearer ${keys.live}`]],
        body: JSON.stringify({ lawyer_id: lawyers[0], date: madridDate(T0, 2), start_time: '10:00:00', end_time: '11:00:00' }),
      });
      assert.equal(held.status, 201, held.text);
      const intentId = (JSON.parse(held.text) as { booking_intent_id: string }).booking_intent_id;
      values = { ids: [...lawyers, intentId], words: ['madrid', 'Madrid', 'MÁLAGA', 'barcelona', 'arraigo-social', 'family-reunification', 'ar', 'Arabic', 'es', 'rating', 'ai_agent', '09:00:00', '10:00:00', '11:00:00', '12:00:00', '13:00:00', '14:00:00'] };
      const res = await rawRequest(port, { method: 'GET', target: `${PREFIX}/openapi.json`, headers: [] });
      doc = JSON.parse(res.text) as OpenApiDoc;
    });

    after(async () => {
      console.log(tally.report(target.name === 'sqlite' ? 'rest' : `rest-${target.name}`));
      await ctx?.close();
    });

    /** Authorization header variants: none, each kind of key, and malformed ones. */
    function authArb(): fc.Arbitrary<string | null> {
      return fc.oneof(
        { weight: 4, arbitrary: fc.constant(null) },
        { weight: 3, arbitrary: fc.constantFrom(`Bearer ${keys.live}`, `Bearer ${keys.test}`) },
        { weight: 1, arbitrary: fc.constantFrom(`Bearer ${keys.revoked}`, `Bearer ${keys.expired}`, `Bearer ${keys.suspendedByFirm}`, `Bearer ${keys.suspendedByOperator}`, `Bearer ${keys.allowListed}`) },
        {
          weight: 2,
          arbitrary: fc.oneof(
            fc.constantFrom('Bearer', 'Bearer ', 'Basic Zm9vOmJhcg==', `bearer ${keys.live}`, `Bearer  ${keys.live}`, `Bearer ${keys.live}x`, `Bearer ${keys.live.slice(0, -1)}`, 'Bearer svc_', 'Bearer svc_test_', `Token ${keys.live}`, `Bearer ${'svc_'.padEnd(4000, 'A')}`, 'Bearer é', `Bearer ${keys.live}, Bearer ${keys.test}`),
            anyString.map((s) => `Bearer ${s}`),
          ),
        },
      );
    }

    /** Headers beyond the operation's: none mostly; sometimes huge, repeated, or odd. */
    function oddHeadersArb(): fc.Arbitrary<Array<[string, string]>> {
      return fc.oneof(
        { weight: 8, arbitrary: fc.constant<Array<[string, string]>>([]) },
        {
          weight: 3,
          arbitrary: fc.constantFrom<Array<[string, string]>>(
            [['x-fuzz', 'a'.repeat(20_000)]],
            [['cookie', `a=${'b'.repeat(17_000)}`]],
            Array.from({ length: 120 }, (_, i): [string, string] => [`x-fuzz-${i}`, 'v'.repeat(100)]),
            [['idempotency-key', 'one'], ['idempotency-key', 'two']],
            [['idempotency-key', '']],
            [['accept', 'text/html']],
            [['accept', 'application/xml']],
            [['accept', '*/*;q=0']],
            [['x-forwarded-for', '::1, 999.1.1.1, <x-fuzz>']],
            [['if-none-match', '"é", W/"x", *']],
            [['if-none-match', '*']],
            [['content-length', '-1']],
            [['transfer-encoding', 'gzip']],
            [['origin', 'null']],
            [['host', '']],
            [['x-request-id', 'req_forged']],
            [['accept-language', 'xx-<x-fuzz>;q=2']],
            [['bad header name', 'x']],
            [['x-ctl', 'a\u0001b']],
          ),
        },
        { weight: 1, arbitrary: fc.array(fc.tuple(fc.constantFrom<string>('x-fuzz', 'accept', 'accept-language', 'idempotency-key', 'if-none-match', 'content-encoding'), anyString), { maxLength: 3 }) },
      );
    }

    /** A path segment: a valid id, a schema-derived value, an over-long one, or bad encoding. */
    function pathValueArb(schema: JsonSchema, mode: Mode): fc.Arbitrary<string> {
      if (mode === 'valid') return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values.ids) }, { weight: 1, arbitrary: validValue(schema, values).map((v) => encodeURIComponent(asText(v))) });
      return fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...values.ids).map(encodeURIComponent) },
        { weight: 4, arbitrary: fc.tuple(fuzzValue(schema, values), fc.constantFrom<Encoding>('proper', 'proper', 'raw', 'broken'), fc.nat()).map(([v, enc, n]) => encodePart(asText(v), enc, n)) },
        { weight: 1, arbitrary: fc.constantFrom(199, 200, 201, 1000, 8000).map((n) => 'a'.repeat(n)) },
        { weight: 1, arbitrary: fc.constantFrom('', '.', '..', '%2e%2e', '%2F', '%00', 'a%2Fb', '%', '%zz', '%C3%28', '%ED%A0%80', '%F4%90%80%80') },
      );
    }

    function queryArb(params: Parameter[], mode: Mode): fc.Arbitrary<string> {
      if (mode === 'valid') {
        const pair = (p: Parameter) => validValue(p.schema, values).map((v): string | null => `${p.name}=${encodeURIComponent(asText(v))}`);
        return fc.tuple(...params.map((p) => fc.oneof({ weight: 3, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: pair(p) }))).map((pairs) => pairs.filter((x) => x !== null).join('&'));
      }
      const each = params.map((p) =>
        fc.option(
          fc.tuple(fuzzValue(p.schema, values), fc.constantFrom<Encoding>('proper', 'proper', 'proper', 'raw', 'broken'), fc.nat(), fc.boolean(), fc.nat({ max: 9 })).map(([v, enc, n, repeat, nameTrick]) => {
            const name = nameTrick === 0 ? `${p.name}[]` : nameTrick === 1 ? p.name.toUpperCase() : p.name;
            const pair = `${name}=${encodePart(asText(v), enc, n)}`;
            return repeat && nameTrick === 2 ? `${pair}&${pair}` : pair;
          }),
          { freq: 2 },
        ),
      );
      const unknown = fc.oneof(
        { weight: 6, arbitrary: fc.constant([] as string[]) },
        { weight: 1, arbitrary: fc.array(fc.tuple(anyString, anyString).map(([k, v]) => `${encodePart(k, 'proper')}=${encodePart(v, 'proper')}`), { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.constantFrom(['__proto__=1'], ['constructor=x'], ['a'], ['='], ['&&&'], ['a=1&a=2'.repeat(500)], [`x=${'y'.repeat(9000)}`], ['%zz=1'], ['lang=xx']) },
      );
      return fc.tuple(fc.tuple(...each), unknown).map(([pairs, extra]) => [...pairs.filter((x): x is string => x !== null), ...extra].join('&'));
    }

    function bodyArb(op: Operation, mode: Mode): fc.Arbitrary<{ body?: Buffer | string; contentType?: string }> {
      const schema = op.requestBody?.content['application/json']?.schema;
      if (mode === 'valid') return schema ? validValue(schema, values).map((v) => ({ body: JSON.stringify(v), contentType: 'application/json' })) : fc.constant({});
      const contentType = fc.oneof({ weight: 8, arbitrary: fc.constant('application/json') }, { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) }, { weight: 1, arbitrary: fc.constant(undefined) });
      const malformed = fc.oneof(
        fc.constantFrom('', '{', '}', 'null', '[]', '"x"', '1', 'true', '{"a":1,}', "{'a':1}", '\uFEFF{}', '{"lawyer_id":"\\ud800"}', '{"__proto__":{"admin":true}}'),
        fc.constantFrom(1001, 5000, 50_000).chain((d) => fc.constantFrom<'array' | 'object'>('array', 'object').map((k) => deeplyNested(d, k))),
        hugeString.map((s) => JSON.stringify({ agent_name: s })),
        fc.constant(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d])),
        fc.constant(Buffer.alloc(70_000, 0x20)),
      );
      if (!schema) {
        return fc.oneof({ weight: 8, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: fc.tuple(malformed, contentType).map(([body, ct]) => ({ body, contentType: ct })) });
      }
      const json = fuzzObject(schema, values).map((o) => JSON.stringify(o));
      return fc.tuple(fc.oneof({ weight: 6, arbitrary: json }, { weight: 2, arbitrary: malformed }), contentType).map(([body, ct]) => ({ body, contentType: ct }));
    }

    /** Requests for one operation: well-formed ones (to reach the success paths) and fuzzed ones. */
    function requestArb(path: string, method: string, op: Operation): fc.Arbitrary<RawRequest> {
      return fc.oneof({ weight: 2, arbitrary: requestOf(path, method, op, 'valid') }, { weight: 3, arbitrary: requestOf(path, method, op, 'fuzz') });
    }

    function requestOf(path: string, method: string, op: Operation, mode: Mode): fc.Arbitrary<RawRequest> {
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const headerParams = params.filter((p) => p.in === 'header');
      const pathArb = fc.tuple(...pathParams.map((p) => pathValueArb(p.schema, mode))).map((segments) => {
        let at = 0;
        return `${PREFIX}${path.replace(/\{\w+\}/g, () => segments[at++]!)}`;
      });
      const headerArb = fc.tuple(...headerParams.map((p) => fc.option((mode === 'valid' ? validValue(p.schema, values) : fuzzValue(p.schema, values)).map((v): [string, string] => [p.name, asText(v).replace(/[\r\n]/g, ' ')]), { freq: 2 })));
      return fc
        .record({
          method: mode === 'valid' ? fc.constant(method.toUpperCase()) : fc.oneof({ weight: 8, arbitrary: fc.constant(method.toUpperCase()) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) }),
          path: pathArb,
          query: queryArb(params.filter((p) => p.in === 'query'), mode),
          auth: mode === 'valid' ? fc.constantFrom(null, `Bearer ${keys.live}`, `Bearer ${keys.test}`) : authArb(),
          declared: headerArb,
          odd: mode === 'valid' ? fc.constant<Array<[string, string]>>([]) : oddHeadersArb(),
          body: bodyArb(op, mode),
        })
        .map(({ method: m, path: p, query, auth, declared, odd, body }) => {
          const headers: Array<[string, string]> = [];
          if (auth !== null) headers.push(['authorization', auth]);
          for (const h of declared) if (h) headers.push(h);
          if (body.contentType !== undefined && body.body !== undefined) headers.push(['content-type', body.contentType]);
          headers.push(...odd);
          return { method: m, target: query ? `${p}?${query}` : p, headers, body: body.body };
        });
    }

    /** The generic initiate 404 (spec: "body is a generic JSON object"): the one error that is not a problem. */
    function isGenericSlot404(path: string, method: string, answer: Answer): boolean {
      if (path !== '/bookings/initiate' || method.toUpperCase() !== 'POST' || answer.status !== 404) return false;
      const schema = doc.paths[path]!.post!.responses['404']?.content?.['application/json']?.schema;
      return String(answer.headers['content-type']).startsWith('application/json') && schema !== undefined && validator(schema)(JSON.parse(answer.text));
    }

    /** Everything that must hold of one answer to one request. */
    function violations(path: string, method: string, op: Operation, request: RawRequest, res: RawResponse): string[] {
      const answer: Answer = { status: res.status, headers: res.headers, text: res.text };
      const out = apiViolations(answer, { method: request.method, exception: (a) => isGenericSlot404(path, method, a) });
      if (res.status >= 200 && res.status < 300 && request.method === method.toUpperCase()) {
        const declared = op.responses[String(res.status)];
        if (!declared) out.push(`status ${res.status} is not declared for ${method.toUpperCase()} ${path}`);
        else {
          const schema = declared.content?.['application/json']?.schema;
          if (!schema) out.push(`no schema declared for ${res.status}`);
          else if (!String(res.headers['content-type']).startsWith('application/json')) out.push(`success Content-Type ${res.headers['content-type']}`);
          else {
            const check = validator(schema);
            if (!check(JSON.parse(res.text))) out.push(`${res.status} body does not match its schema: ${ajv.errorsText(check.errors)}`);
          }
        }
      }
      if (res.status >= 200 && res.status < 300 && !['HEAD', 'OPTIONS', method.toUpperCase()].includes(request.method)) out.push(`${request.method} succeeded on a ${method.toUpperCase()} route`);
      return out;
    }

    it('every operation of the OpenAPI document keeps the contract for derived requests', async () => {
      const operations = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ path, method, op })));
      assert.ok(operations.length >= 10, `the document lists ${operations.length} operations`);
      for (const { path, method, op } of operations) {
        const surface = `${method.toUpperCase()} ${path}`;
        await fc.assert(
          fc.asyncProperty(requestArb(path, method, op), async (request) => {
            const res = await rawRequest(port, request);
            const found = violations(path, method, op, request, res);
            tally.count(surface, res.status, found);
            assertContract(`${request.method} ${request.target.slice(0, 300)}`, found);
          }),
          fuzzParameters(60, scale),
        );
      }
      assert.equal(tally.total().outside, 0);
    });

    it('a known path asked with a method it does not serve answers 405 with an Allow that matches the document', async () => {
      // Methods Node's parser accepts; HEAD and OPTIONS are served on every GET path and every API path.
      const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'TRACE', 'MKCOL', 'SEARCH', 'LOCK'];
      const cases = Object.entries(doc.paths).flatMap(([path, ops]) => {
        const served = Object.keys(ops).map((m) => m.toUpperCase());
        const allow = new Set([...served, ...(served.includes('GET') ? ['HEAD'] : []), 'OPTIONS']);
        return methods.filter((m) => !allow.has(m)).map((method) => ({ path, method, allow, params: (Object.values(ops)[0]!.parameters ?? []).filter((p) => p.in === 'path') }));
      });
      assert.ok(cases.length >= 20, `${cases.length} wrong-method cases`);
      const arb = fc.constantFrom(...cases).chain(({ path, method, allow, params }) =>
        fc.record({
          segments: fc.tuple(...params.map((p) => pathValueArb(p.schema, 'valid'))),
          auth: fc.constantFrom(null, `Bearer ${keys.live}`, `Bearer ${keys.test}`),
          body: fc.option(fc.constantFrom('{}', '{"lawyer_id":"x"}', ''), { freq: 2 }),
          query: fc.constantFrom('', '?limit=1', '?lang=es'),
        }).map(({ segments, auth, body, query }) => {
          let at = 0;
          const headers: Array<[string, string]> = [['accept', 'application/json']];
          if (auth) headers.push(['authorization', auth]);
          if (body !== null) headers.push(['content-type', 'application/json']);
          return { path, allow, request: { method, target: `${PREFIX}${path.replace(/\{\w+\}/g, () => segments[at++]!)}${query}`, headers, body: body ?? undefined } as RawRequest };
        }),
      );
      await fc.assert(
        fc.asyncProperty(arb, async ({ path, allow, request }) => {
          const res = await rawRequest(port, request);
          const found = apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method: request.method });
          if (res.status !== 405) found.push(`status ${res.status}, not 405`);
          else {
            if (JSON.parse(res.text).code !== 'method_not_allowed') found.push(`code ${JSON.parse(res.text).code}`);
            const sent = new Set((res.headers.allow ?? '').split(',').map((m) => m.trim()).filter(Boolean));
            if ([...allow].sort().join(', ') !== [...sent].sort().join(', ')) found.push(`Allow is ${JSON.stringify(res.headers.allow)}; the document's ${path} has ${[...allow].sort().join(', ')}`);
          }
          tally.count('wrong method', res.status, found);
          assertContract(`${request.method} ${request.target}`, found);
        }),
        fuzzParameters(60, scale),
      );
    });

    it('paths outside the document (unknown routes, odd methods, raw bytes) still answer problems with a request id', async () => {
      const target = fc.oneof(
        fc.tuple(fc.array(fc.tuple(anyString, fc.constantFrom<Encoding>('proper', 'raw', 'broken'), fc.nat()).map(([s, e, n]) => encodePart(s, e, n)), { minLength: 1, maxLength: 4 })).map(([segs]) => `${PREFIX}/${segs.join('/')}`),
        fc.constantFrom(`${PREFIX}`, `${PREFIX}/`, `${PREFIX}//cities`, `${PREFIX}/cities/`, `${PREFIX}/CITIES`, `${PREFIX}/lawyers/`, `${PREFIX}/../${PREFIX}/cities`, `${PREFIX}/%2e%2e/cities`, `${PREFIX}/lawyers/search#x`, `${PREFIX}/cities?%`, `${PREFIX}/${'x'.repeat(9000)}`),
      );
      await fc.assert(
        fc.asyncProperty(target, fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PROPFIND', 'TRACE', 'OPTIONS', 'HEAD', 'get', 'BREW'), async (t, method) => {
          const request: RawRequest = { method, target: t, headers: [['accept', 'application/json']] };
          const res = await rawRequest(port, request);
          const found = apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method });
          tally.count('unrouted', res.status, found);
          assertContract(`${method} ${t.slice(0, 300)}`, found);
        }),
        fuzzParameters(120, scale),
      );
    });
  });
}
