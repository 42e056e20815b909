/**
 * Lawyers' contact email: optional and validated on import, given to every demo lawyer under a
 * reserved domain, stored for consultation notices, and never part of any API or site answer.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { generateLawyers } from '../../src/domain/demo/generator.ts';
import { ImportFailedError, importLawyers } from '../../src/domain/directory/import.service.ts';
import { LawyerRecordSchema } from '../../src/domain/directory/lawyer-record.ts';
import { createAjv } from '../../src/domain/validation.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { lawyerRecord } from '../support/factories.ts';

const NOW = new Date('2026-11-23T08:00:00Z');
const EMAIL = 'secret.contact@despacho.example';

async function* linesOf(records: unknown[]): AsyncIterable<string> {
  for (const r of records) yield JSON.stringify(r);
}

describe('demo lawyers\' contact emails', () => {
  it('every demo lawyer has a valid address under despacho.example (RFC 2606), the same for the same seed', () => {
    const validate = createAjv({ coerceTypes: false }).compile(LawyerRecordSchema);
    const lawyers = [...generateLawyers({ seed: 7, count: 300, referenceDate: '2026-11-23' })];
    const again = [...generateLawyers({ seed: 7, count: 300, referenceDate: '2026-11-23' })];
    for (const [i, l] of lawyers.entries()) {
      assert.match(l.contact_email ?? '', /^[a-z0-9.]+\.[0-9a-f]{4}@despacho\.example$/, l.name);
      assert.ok(validate(l), JSON.stringify(validate.errors));
      assert.equal(again[i]!.contact_email, l.contact_email);
    }
  });
});

for (const target of databaseTargets()) {
  describe(`contact email (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;

    before(async () => {
      ctx = await createTestContext(target);
      const record = lawyerRecord({ contact_email: EMAIL });
      await importLawyers(ctx.database, () => linesOf([record]), { now: NOW });
      lawyerId = record.id!;
    });
    after(() => ctx.close());

    it('is imported and stored', async () => {
      const row = await ctx.database.db.selectFrom('lawyers').select('contact_email').where('id', '=', lawyerId).executeTakeFirstOrThrow();
      assert.equal(row.contact_email, EMAIL);
    });

    it('is optional: absent or null stores null', async () => {
      const absent = lawyerRecord();
      const nulled = lawyerRecord({ contact_email: null });
      await importLawyers(ctx.database, () => linesOf([absent, nulled]), { now: NOW });
      const rows = await ctx.database.db.selectFrom('lawyers').select('contact_email').where('id', 'in', [absent.id!, nulled.id!]).execute();
      assert.deepEqual(rows.map((r) => r.contact_email), [null, null]);
    });

    it('rejects what is not an email address, header injection included', async () => {
      const bad = ['not-an-email', 'lucia@despacho.example\r\nBcc: victim@example.com', 'a b@despacho.example', `${'x'.repeat(250)}@despacho.example`, 42];
      await assert.rejects(
        importLawyers(ctx.database, () => linesOf(bad.map((contact_email) => lawyerRecord({ contact_email } as never))), { now: NOW }),
        (err: unknown) => {
          assert.ok(err instanceof ImportFailedError);
          assert.deepEqual(err.issues.map((i) => [i.line, i.pointer]), bad.map((_, i) => [i + 1, '/contact_email']));
          assert.match(err.issues[0]!.detail, /email address/);
          return true;
        },
      );
    });

    it('appears in no API answer, OpenAPI document or site page', async () => {
      const hold = await initiate(ctx, slotBody(lawyerId, '2026-11-24', '10'));
      assert.equal(hold.statusCode, 201, hold.body);
      const answers = [hold.body];
      for (const url of [
        `/api/v1/lawyers/${lawyerId}`,
        '/api/v1/lawyers/search?city=madrid',
        '/api/v1/lawyers/search?limit=25',
        `/api/v1/lawyers/${lawyerId}/availability?start_date=2026-11-24&end_date=2026-11-25`,
        `/api/v1/lawyers/${lawyerId}/reviews`,
        '/api/v1/openapi.json',
        `/lawyers/${lawyerId}`,
      ]) {
        const res = await ctx.app.fastify.inject({ url });
        assert.equal(res.statusCode, 200, `${url}: ${res.body.slice(0, 200)}`);
        answers.push(res.body);
      }
      assert.ok(answers[1]!.includes(lawyerId), 'the profile is this lawyer');
      assert.ok(answers[2]!.includes(lawyerId), 'the search found this lawyer');
      for (const body of answers) {
        assert.ok(!body.includes(EMAIL), 'the address');
        assert.ok(!body.includes('despacho.example'), 'its domain');
        assert.ok(!body.includes('contact_email'), 'the field');
      }
    });
  });
}
