import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

for (const target of databaseTargets()) {
  describe(`reference data (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target);
      await insertLawyers(ctx.database, [lawyerRecord(), lawyerRecord({ city: 'ceuta' }), lawyerRecord({ city: 'ceuta', verified: false })]);
    });
    after(() => ctx.close());

    it('GET /cities lists all 52 provinces with their communities and at least 150 cities', async () => {
      const res = await ctx.app.fastify.inject({ url: '/api/v1/cities' });
      assert.equal(res.statusCode, 200);
      const body = res.json();
      assert.equal(body.provinces.length, 52);
      assert.ok(body.cities.length >= 150);
      const ceutaProvince = body.provinces.find((p: { slug: string }) => p.slug === 'ceuta');
      assert.ok(ceutaProvince);
      assert.ok(body.provinces.every((p: { autonomous_community: string }) => p.autonomous_community.length > 0));
      const ceuta = body.cities.find((c: { slug: string }) => c.slug === 'ceuta');
      assert.equal(ceuta.lawyer_count, 1, 'counts public lawyers only');
      const canaryCity = body.cities.find((c: { slug: string }) => c.slug === 'las-palmas-de-gran-canaria');
      assert.equal(canaryCity.timezone, 'Atlantic/Canary');
      const provinceCodes = new Set(body.provinces.map((p: { code: string }) => p.code));
      assert.ok(body.cities.every((c: { province_code: string }) => provinceCodes.has(c.province_code)));
    });

    it('GET /practice-areas returns the hierarchy', async () => {
      const res = await ctx.app.fastify.inject({ url: '/api/v1/practice-areas' });
      assert.equal(res.statusCode, 200);
      const areas = res.json().practice_areas as Array<{ slug: string; parent_slug: string | null; children: Array<{ slug: string; parent_slug: string }> }>;
      assert.ok(areas.length >= 6);
      const subAreas = areas.flatMap((a) => a.children);
      assert.ok(subAreas.length >= 20);
      assert.ok(areas.every((a) => a.parent_slug === null));
      assert.ok(areas.every((a) => a.children.every((c) => c.parent_slug === a.slug)));
      const slugs = [...areas.map((a) => a.slug), ...subAreas.map((c) => c.slug)];
      assert.equal(new Set(slugs).size, slugs.length);
      for (const expected of ['arraigo-social', 'family-reunification', 'asylum-applications', 'digital-nomad-visa', 'expulsion-orders']) {
        assert.ok(slugs.includes(expected), expected);
      }
    });

    for (const path of ['/api/v1/cities', '/api/v1/practice-areas']) {
      it(`${path} is cacheable for 24 hours with an ETag, and answers 304 to If-None-Match`, async () => {
        const first = await ctx.app.fastify.inject({ url: path });
        assert.equal(first.headers['cache-control'], 'public, max-age=86400');
        const etag = String(first.headers.etag);
        assert.match(etag, /^"[A-Za-z0-9_-]+"$/);
        const again = await ctx.app.fastify.inject({ url: path, headers: { 'if-none-match': etag } });
        assert.equal(again.statusCode, 304);
        assert.equal(again.body, '');
        assert.equal(again.headers.etag, etag);
        assert.ok(again.headers['x-request-id']);
        const weak = await ctx.app.fastify.inject({ url: path, headers: { 'if-none-match': `"other", W/${etag}` } });
        assert.equal(weak.statusCode, 304);
        const stale = await ctx.app.fastify.inject({ url: path, headers: { 'if-none-match': '"stale"' } });
        assert.equal(stale.statusCode, 200);
        assert.equal(stale.body, first.body);
      });

      it(`${path} rejects unknown query parameters`, async () => {
        const res = await ctx.app.fastify.inject({ url: `${path}?lang=es` });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().errors[0].pointer, '/query/lang');
      });
    }

    it('changes the cities ETag when the directory changes', async () => {
      const before = await ctx.app.fastify.inject({ url: '/api/v1/cities' });
      await insertLawyers(ctx.database, [lawyerRecord({ city: 'ceuta' })]);
      ctx.app.services.directoryCache.invalidate();
      const after = await ctx.app.fastify.inject({ url: '/api/v1/cities' });
      assert.notEqual(after.headers.etag, before.headers.etag);
      assert.equal(after.json().cities.find((c: { slug: string }) => c.slug === 'ceuta').lawyer_count, 2);
    });
  });
}
