/**
 * Whatever plan, index or rewrite the search uses, its rows, their order and the total must be
 * those of the plain definition. This compares the SQL definition (countPublicLawyers,
 * searchPublicLawyers) and the in-memory search index the service answers from against a
 * reference computed in JavaScript from the tables, over many random filter, sort and page
 * combinations.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countPublicLawyers, searchPublicLawyers, type LawyerFilters, type LawyerSort } from '../../src/db/repositories/lawyer.repository.ts';
import { seedDemoDirectory } from '../../src/domain/demo/seed.service.ts';
import { loadSearchIndex, type SearchIndex } from '../../src/domain/directory/search-index.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { TEST_NOW } from '../support/app.ts';
import { COMPARE, matches, rng, type ReferenceLawyer } from '../support/search-reference.ts';

type Lawyer = ReferenceLawyer & { languages: Set<string>; areas: Set<string>; remote: boolean };

const SORTS: LawyerSort[] = ['rating', 'reviews', 'price_asc', 'price_desc'];

for (const target of databaseTargets()) {
  describe(`lawyer search against a reference (${target.name})`, () => {
    let t: TestDatabase;
    let lawyers: Lawyer[] = [];
    let cities: string[] = [];
    let languages: string[] = [];
    let areaTree: Map<string, string[]> = new Map();
    let index: SearchIndex;

    before(async () => {
      t = await target.create();
      await seedDemoDirectory(t.database, { lawyers: 1500, seed: 5, referenceDate: '2026-11-23', now: new Date(TEST_NOW) });
      await t.database.analyze();
      const db = t.database.db;
      const rows = await db
        .selectFrom('lawyers')
        .select(['id', 'city_slug', 'consultation_fee_cents', 'rating_key', 'review_count', 'video_url', 'offers_phone'])
        .where('verified', '=', 1)
        .where('listed', '=', 1)
        .execute();
      const byId = new Map<string, Lawyer>(rows.map(({ video_url, offers_phone, ...r }) => [r.id, { ...r, remote: video_url !== null || offers_phone === 1, languages: new Set(), areas: new Set() }]));
      for (const r of await db.selectFrom('lawyer_languages').select(['lawyer_id', 'language']).execute()) byId.get(r.lawyer_id)?.languages.add(r.language);
      for (const r of await db.selectFrom('lawyer_practice_areas').select(['lawyer_id', 'area_slug']).execute()) byId.get(r.lawyer_id)?.areas.add(r.area_slug);
      lawyers = [...byId.values()];
      cities = [...new Set(lawyers.map((l) => l.city_slug))];
      languages = [...new Set(lawyers.flatMap((l) => [...l.languages]))];
      const areas = await db.selectFrom('practice_areas').select(['slug', 'parent_slug']).execute();
      areaTree = new Map(areas.map((a) => [a.slug, [a.slug, ...areas.filter((c) => c.parent_slug === a.slug).map((c) => c.slug)]]));
      // Small chunks, so that the build's id ranges have many boundaries.
      index = await loadSearchIndex(t.database, { chunk: 97 });
    });
    after(() => t.drop());

    it('has a seed with rare and common filters, so every plan is exercised', () => {
      assert.ok(lawyers.length > 1000);
      const speakers = (code: string) => lawyers.filter((l) => l.languages.has(code)).length;
      assert.ok(speakers('es') === lawyers.length && speakers('en') > 300);
      assert.ok(languages.some((c) => speakers(c) > 0 && speakers(c) < 20), 'a rare language');
    });

    it('returns the same rows, order and total as the reference for random combinations', async () => {
      const random = rng(20261123);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const slugs = [...areaTree.keys()];
      const fees = [3000, 4000, 5000, 6000, 8000, 10000, 15000, 20000, 25000];
      for (let i = 0; i < 300; i++) {
        const f: LawyerFilters = {};
        if (random() < 0.3) f.citySlug = random() < 0.1 ? 'no-such-city' : pick(cities);
        if (random() < 0.5) f.language = random() < 0.05 ? 'xx' : pick(languages);
        if (random() < 0.5) f.areaSlugs = areaTree.get(pick(slugs))!;
        if (random() < 0.25) f.minFeeCents = pick(fees);
        if (random() < 0.25) f.maxFeeCents = pick(fees);
        const sort = pick(SORTS);
        const limit = 1 + Math.floor(random() * 25);
        const expected = lawyers.filter((l) => matches(l, f)).sort(COMPARE[sort]);
        // Shallow pages, deep pages, the last page and beyond it.
        const lastOffset = Math.max(0, expected.length - limit);
        const offset = pick([0, 0, limit, Math.floor(random() * (expected.length + 1)), lastOffset, expected.length + limit]);
        const label = JSON.stringify({ f, sort, limit, offset });

        assert.equal(await countPublicLawyers(t.database.db, f), expected.length, label);
        const page = await searchPublicLawyers(t.database.db, f, sort, limit, offset);
        assert.deepEqual(
          page.map((r) => r.id),
          expected.slice(offset, offset + limit).map((l) => l.id),
          label,
        );
        assert.equal(index.count(f), expected.length, `index: ${label}`);
        assert.deepEqual(index.page(f, sort, limit, offset), expected.slice(offset, offset + limit).map((l) => l.id), `index: ${label}`);
        assert.deepEqual(index.search(f, sort, limit, offset), { total: expected.length, ids: expected.slice(offset, offset + limit).map((l) => l.id) }, `index: ${label}`);
      }
    });

    it('reaches lawyers from elsewhere by video or phone and ranks the preferred languages first, as the reference does', () => {
      const random = rng(26);
      const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
      const slugs = [...areaTree.keys()];
      for (let i = 0; i < 300; i++) {
        const f: LawyerFilters = { citySlug: pick(cities) };
        if (random() < 0.3) f.language = pick(languages);
        if (random() < 0.5) f.areaSlugs = areaTree.get(pick(slugs))!;
        if (random() < 0.25) f.maxFeeCents = pick([5000, 8000, 12000]);
        const remote = random() < 0.6;
        const prefer = random() < 0.7 ? [pick(languages), ...(random() < 0.4 ? [pick(languages)] : [])] : [];
        const sort = pick(SORTS);
        const limit = 1 + Math.floor(random() * 25);
        // The definition: the city's lawyers, and (remote) those elsewhere offering video or phone;
        // speakers of a preferred language first, each group in the sort's order.
        const inCity = (l: Lawyer) => matches(l, f);
        const reached = (l: Lawyer) => inCity(l) || (remote && l.remote && matches(l, { ...f, citySlug: l.city_slug }));
        const speaks = (l: Lawyer) => prefer.some((c) => l.languages.has(c));
        const all = lawyers.filter(reached).sort(COMPARE[sort]);
        const expected = prefer.length > 0 ? [...all.filter(speaks), ...all.filter((l) => !speaks(l))] : all;
        const offset = pick([0, limit, Math.floor(random() * (expected.length + 1)), Math.max(0, expected.length - limit)]);
        const label = JSON.stringify({ f, remote, prefer, sort, limit, offset });
        const got = index.search(f, sort, limit, offset, { remote, prefer });
        assert.equal(got.total, expected.length, label);
        assert.deepEqual(got.ids, expected.slice(offset, offset + limit).map((l) => l.id), label);
        if (prefer.length > 0) assert.equal(got.preferred, all.filter(speaks).length, label);
        if (!remote) assert.equal(got.remoteExtra, lawyers.filter((l) => !inCity(l) && l.remote && matches(l, { ...f, citySlug: l.city_slug })).length, label);
      }
    });

    it('indexes exactly the public lawyers', () => {
      assert.equal(index.size, lawyers.length);
      assert.deepEqual(index.page({}, 'rating', lawyers.length + 10, 0).sort(), lawyers.map((l) => l.id).sort());
    });

    it('reads the full summary columns for the page', async () => {
      const [row] = await searchPublicLawyers(t.database.db, { language: languages[0] }, 'rating', 1, 0);
      assert.ok(row);
      for (const key of ['id', 'name', 'city_slug', 'timezone', 'consultation_fee_cents', 'platform_commission_percent', 'rating_avg', 'total_bookings', 'practice_areas_json', 'languages_json']) {
        assert.ok(key in row, key);
      }
    });
  });
}
