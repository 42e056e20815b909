import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoDirectory } from '../../src/domain/demo/seed.service.ts';
import { ADVERSARIAL_BIO_SNIPPETS } from '../../src/domain/demo/names.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, TEST_NOW, type TestContext } from '../support/app.ts';

for (const target of databaseTargets()) {
  describe(`the seeded demo directory through the API (${target.name})`, () => {
    let ctx: TestContext;
    let publicCount = 0;
    before(async () => {
      ctx = await createTestContext(target);
      await seedDemoDirectory(ctx.database, { lawyers: 400, seed: 11, referenceDate: '2026-11-23', now: new Date(TEST_NOW) });
      const row = await ctx.database.db
        .selectFrom('lawyers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('verified', '=', 1)
        .where('listed', '=', 1)
        .executeTakeFirstOrThrow();
      publicCount = Number(row.n);
    });
    after(() => ctx.close());

    const get = (url: string) => ctx.app.fastify.inject({ url: `/api/v1${url}` }).then((r) => r.json());

    it('surfaces exactly the verified, listed lawyers', async () => {
      const all = await ctx.database.db.selectFrom('lawyers').select(['id', 'verified', 'listed']).execute();
      assert.ok(all.some((l) => l.verified === 0) && all.some((l) => l.listed === 0), 'the seed has hidden lawyers');
      assert.ok(publicCount > 300 && publicCount < 400);
      const first = await get('/lawyers/search?limit=25');
      assert.equal(first.total, publicCount);
      for (const hidden of all.filter((l) => l.verified === 0 || l.listed === 0).slice(0, 10)) {
        const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${hidden.id}` });
        assert.equal(res.statusCode, 404);
      }
    });

    it('fences every bio, including the adversarial ones, so none escapes', async () => {
      const rows = await ctx.database.db.selectFrom('lawyers').select(['id', 'bio']).where('verified', '=', 1).where('listed', '=', 1).execute();
      const adversarial = rows.filter((r) => r.bio && ADVERSARIAL_BIO_SNIPPETS.some((s) => r.bio!.includes(s.slice(0, 20))));
      assert.ok(adversarial.length >= 1, 'the seed holds at least one adversarial bio');
      for (const row of rows.filter((r) => r.bio !== null).slice(0, 60).concat(adversarial)) {
        const profile = await get(`/lawyers/${row.id}`);
        const bio = profile.bio as string;
        const m = /^\[BEGIN UNTRUSTED TEXT id=([0-9a-f]{16}) [^\n]*\]\n([\s\S]*)\n\[END UNTRUSTED TEXT id=([0-9a-f]{16})\]$/.exec(bio);
        assert.ok(m, bio);
        assert.equal(m[1], m[3]);
        assert.ok(!/(begin|end)\s*untrusted\s*text/i.test(m[2]!), bio);
        assert.ok(!/[\u200b-\u200f\u202a-\u202e\u2066-\u2069]/.test(m[2]!), 'no invisible or bidi characters');
      }
    });

    it('gives a next_available that matches the first bookable slot of availability', async () => {
      const page = await get('/lawyers/search?city=madrid&limit=25');
      assert.ok(page.lawyers.length > 0);
      for (const l of page.lawyers.slice(0, 10) as Array<{ id: string; next_available: string | null }>) {
        const a = await get(`/lawyers/${l.id}/availability`);
        const first = (a.slots as Array<{ date: string; available: boolean }>).find((s) => s.available)?.date ?? null;
        if (first !== null) assert.equal(l.next_available, first, l.id);
        else assert.ok(l.next_available === null || l.next_available > a.end_date, l.id);
      }
    });

    it('has Canary Islands lawyers in Atlantic/Canary time', async () => {
      const page = await get('/lawyers/search?city=las-palmas-de-gran-canaria&limit=1');
      if (page.total === 0) {
        const tz = await ctx.database.db.selectFrom('lawyers').select('timezone').where('timezone', '=', 'Atlantic/Canary').execute();
        assert.ok(tz.length > 0, 'some Canary lawyer exists in the seed');
        return;
      }
      const profile = await get(`/lawyers/${page.lawyers[0].id}`);
      assert.equal(profile.timezone, 'Atlantic/Canary');
    });
  });
}
