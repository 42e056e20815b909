/**
 * Contract fuzzing of JSON body nesting on the REST API (issue 17, item 4), over real HTTP on
 * loopback: every operation of the served OpenAPI document that takes a JSON body gets bodies
 * derived from its schema with a value nested 1 to 15,000 levels deep put somewhere in them (a
 * field, an array element, the whole body). Properties (docs/errors.md#contract-fuzzing): past
 * 32 levels the answer is a 400 invalid_request problem naming `/body`, before validation; within
 * the bound, never that refusal; either way the API contract holds (no 5xx, a request id, a
 * catalogued problem). The MCP endpoint's counterpart is in mcp.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '../../src/domain/validation.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { makeKeys, type KeyKit } from '../support/keys.ts';
import { apiViolations, assertContract, fuzzParameters, rawRequest, Tally, validValue, type JsonSchema, type ValueContext } from './support.ts';

const PREFIX = '/api/v1';
const PLACEHOLDER = '\u0000nest';

interface OpenApiDoc {
  paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>;
}

describe('contract fuzzing: JSON body nesting (sqlite, real HTTP)', () => {
  let ctx: TestContext;
  let port: number;
  let keys: KeyKit;
  let values: ValueContext;
  let doc: OpenApiDoc;
  const tally = new Tally();

  before(async () => {
    ctx = await createTestContext(databaseTargets()[0]!, { config: { maxFailedAuthPerMinute: 100_000 } });
    const lawyers = await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })]);
    keys = await makeKeys(ctx);
    values = { ids: [...lawyers], words: ['madrid', 'ai_agent', '09:00:00', '10:00:00', '11:00:00'] };
    await ctx.app.fastify.listen({ host: '127.0.0.1', port: 0 });
    port = (ctx.app.fastify.server.address() as { port: number }).port;
    doc = JSON.parse((await rawRequest(port, { method: 'GET', target: `${PREFIX}/openapi.json`, headers: [] })).text) as OpenApiDoc;
  });

  after(async () => {
    console.log(tally.report('json-depth'));
    await ctx?.close();
  });

  it('past 32 levels anywhere in a body: 400 invalid_request naming /body, before validation; within the bound, never that', async () => {
    const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).flatMap(([method, op]) => {
        const schema = op.requestBody?.content['application/json']?.schema;
        return schema ? [{ path, method: method.toUpperCase(), schema }] : [];
      }),
    );
    assert.ok(operations.length >= 1, 'the document has operations with a JSON body');
    // 15,000 arrays (the case) and 10,000 objects fit in the 64 KiB body limit.
    const nesting = fc.constantFrom<'array' | 'object'>('array', 'object').chain((kind) =>
      fc.tuple(fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constantFrom(1_000, kind === 'array' ? 15_000 : 10_000)), fc.constant(kind)),
    );
    for (const { path, method, schema } of operations) {
      const fields = Object.keys(schema.properties ?? {});
      // Where the nested value goes, and the level of its outermost container (the body is level 1).
      const place = fc.oneof(
        fc.constantFrom(...fields, 'unknown_field').map((field): [string, number] => [field, 2]),
        fc.constant<[string, number]>(['in an array', 3]),
        fc.constant<[string, number]>(['the body', 1]),
      );
      await fc.assert(
        fc.asyncProperty(validValue(schema, values), nesting, place, fc.constantFrom(null, `Bearer ${keys.live}`, `Bearer ${keys.test}`), async (valid, [n, kind], [where, at], auth) => {
          const nested = kind === 'array' ? `${'['.repeat(n)}${']'.repeat(n)}` : `${'{"a":'.repeat(n - 1)}{}${'}'.repeat(n - 1)}`;
          const body =
            where === 'the body'
              ? nested
              : JSON.stringify({ ...(valid as object), [where === 'in an array' ? 'items' : where]: where === 'in an array' ? [1, PLACEHOLDER] : PLACEHOLDER }).replace(JSON.stringify(PLACEHOLDER), nested);
          const depth = at + n - 1;
          const headers: Array<[string, string]> = [['content-type', 'application/json']];
          if (auth) headers.push(['authorization', auth]);
          const res = await rawRequest(port, { method, target: `${PREFIX}${path}`, headers, body });
          const found = apiViolations({ status: res.status, headers: res.headers, text: res.text }, { method, exception: (a) => a.status === 404 && String(a.headers['content-type']).startsWith('application/json') });
          const refused = res.text.includes(`more than ${MAX_JSON_DEPTH} levels deep`);
          if (depth > MAX_JSON_DEPTH) {
            const problem = (() => {
              try {
                return JSON.parse(res.text) as { code?: string; errors?: Array<{ pointer: string }> };
              } catch {
                return {};
              }
            })();
            if (res.status !== 400 || problem.code !== 'invalid_request' || !refused || problem.errors?.[0]?.pointer !== '/body' || problem.errors.length !== 1) {
              found.push(`${depth} levels: expected the 400 naming /body alone, got ${res.status} ${res.text.slice(0, 300)}`);
            }
          } else if (refused) {
            found.push(`${depth} levels refused as too deep`);
          }
          if (/call stack|RangeError/i.test(res.text)) found.push(`an exception's text in the answer: ${res.text.slice(0, 300)}`);
          tally.count(`${method} ${path}`, `${res.status}${depth > MAX_JSON_DEPTH ? ' too deep' : ''}`, found);
          assertContract(`${method} ${path} ${where} ${kind} × ${n} (${depth} levels)`, found);
        }),
        fuzzParameters(120),
      );
    }
    assert.equal(tally.total().outside, 0);
  });
});
