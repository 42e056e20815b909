import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { validate } from '@readme/openapi-parser';
import { createAjv } from '../../src/domain/validation.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const [sqlite] = databaseTargets();

interface OpenApiDoc {
  openapi: string;
  servers: Array<{ url: string }>;
  paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
}

describe('OpenAPI document', () => {
  let ctx: TestContext;
  let doc: OpenApiDoc;
  let lawyerId: string;

  before(async () => {
    ctx = await createTestContext(sqlite!);
    [lawyerId] = (await insertLawyers(ctx.database, [
      lawyerRecord({ reviews: [{ rating: 4, comment: 'Helpful', date: '2026-11-01T09:00:00Z' }, { rating: 5, comment: null, date: null }] }),
      lawyerRecord({ bio: null, total_bookings: null, weekly_hours: [] }),
    ])) as [string];
    const res = await ctx.app.fastify.inject({ url: '/api/v1/openapi.json' });
    assert.equal(res.statusCode, 200);
    doc = res.json();
  });
  after(() => ctx.close());

  it('is a valid OpenAPI 3.1 document with the versioned server URL', async () => {
    assert.equal(doc.openapi, '3.1.0');
    assert.deepEqual(doc.servers, [{ url: 'http://consulta.test/api/v1' }]);
    const result = await validate(structuredClone(doc) as never);
    assert.equal(result.valid, true, JSON.stringify(result));
  });

  it('documents every API route the app serves, and nothing else', () => {
    const served = ctx.app.routes
      .filter((r) => r.url.startsWith('/api/v1/') && !r.hidden && r.method !== 'HEAD' && r.method !== 'OPTIONS')
      .map((r) => `${r.method} ${r.url.slice('/api/v1'.length).replace(/:(\w+)/g, '{$1}')}`)
      .sort();
    const documented = Object.entries(doc.paths)
      .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`))
      .sort();
    assert.deepEqual(documented, served);
    for (const endpoint of [
      'GET /lawyers/search',
      'GET /lawyers/{lawyerId}',
      'GET /lawyers/{lawyerId}/availability',
      'GET /lawyers/{lawyerId}/reviews',
      'GET /practice-areas',
      'GET /cities',
      'GET /key',
      'GET /usage',
    ]) {
      assert.ok(documented.includes(endpoint), endpoint);
    }
  });

  it('declares the problem responses of the spec for each endpoint', () => {
    const statuses = (path: string) => Object.keys(doc.paths[path]!.get!.responses).sort();
    assert.deepEqual(statuses('/lawyers/search'), ['200', '400', '401', '403', '429']);
    assert.deepEqual(statuses('/lawyers/{lawyerId}'), ['200', '400', '401', '403', '404', '429']);
    assert.deepEqual(statuses('/lawyers/{lawyerId}/availability'), ['200', '400', '401', '403', '404', '429']);
    assert.deepEqual(statuses('/lawyers/{lawyerId}/reviews'), ['200', '400', '401', '403', '404', '429']);
    assert.deepEqual(statuses('/key'), ['200', '401', '403', '429']);
    assert.deepEqual(statuses('/usage'), ['200', '401', '403', '429']);
  });

  it('real responses conform to their declared schemas', async () => {
    const ajv = createAjv({ coerceTypes: false, useDefaults: false, strict: false });
    const cases: Array<[string, string]> = [
      ['/lawyers/search', '/lawyers/search'],
      ['/lawyers/search?sort=price_desc&limit=1', '/lawyers/search'],
      ['/lawyers/search?limit=0', '/lawyers/search'],
      [`/lawyers/${lawyerId}`, '/lawyers/{lawyerId}'],
      ['/lawyers/00000000-0000-4000-8000-000000000000', '/lawyers/{lawyerId}'],
      [`/lawyers/${lawyerId}/availability`, '/lawyers/{lawyerId}/availability'],
      [`/lawyers/${lawyerId}/availability?end_date=1999-01-01`, '/lawyers/{lawyerId}/availability'],
      [`/lawyers/${lawyerId}/reviews`, '/lawyers/{lawyerId}/reviews'],
      ['/practice-areas', '/practice-areas'],
      ['/cities', '/cities'],
    ];
    for (const [url, path] of cases) {
      const res = await ctx.app.fastify.inject({ url: `/api/v1${url}` });
      const declared = doc.paths[path]!.get!.responses[String(res.statusCode)];
      assert.ok(declared, `${url}: status ${res.statusCode} is not declared`);
      const contentType = String(res.headers['content-type']).split(';')[0]!;
      const schema = declared.content?.['application/json']?.schema;
      assert.ok(schema, `${url}: no schema for ${res.statusCode}`);
      assert.ok(contentType === 'application/json' || contentType === 'application/problem+json', contentType);
      const check = ajv.compile(schema);
      assert.ok(check(res.json()), `${url}: ${JSON.stringify(check.errors)}`);
    }
  });

  it('is served with an interactive reference page at /docs/api', async () => {
    const page = await ctx.app.fastify.inject({ url: '/docs/api/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger-ui/i);
  });
});
