/**
 * The in-memory search index on synthetic data: counts and pages equal a brute-force reference,
 * including ties on every sort key, ids arriving out of order, unknown values and empty results.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LawyerFilters } from '../../src/db/repositories/lawyer.repository.ts';
import { SearchIndexBuilder } from '../../src/domain/directory/search-index.ts';
import { COMPARE, matches as matchesReference, rng } from '../support/search-reference.ts';

interface L {
  id: string;
  city_slug: string;
  consultation_fee_cents: number;
  rating_key: number;
  review_count: number;
  languages: string[];
  areas: string[];
}

const matches = (l: L, f: LawyerFilters): boolean => matchesReference({ ...l, languages: new Set(l.languages), areas: new Set(l.areas) }, f);

describe('search index', () => {
  const random = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const CITIES = ['madrid', 'sevilla', 'teruel'];
  const LANGS = ['es', 'en', 'ar', 'gn'];
  const AREAS = ['a', 'a1', 'a2', 'b', 'b1'];
  // 1,000 lawyers (not a multiple of 32), few distinct keys so that ties are everywhere.
  const lawyers: L[] = Array.from({ length: 1000 }, (_, i) => ({
    id: `${(i * 7919) % 1000}`.padStart(4, '0') + '-' + pick(['x', 'y']),
    city_slug: pick(CITIES),
    consultation_fee_cents: pick([0, 3000, 5000, 5000, 8000, 20000]),
    rating_key: pick([0, 0, 350, 480, 500]),
    review_count: pick([0, 1, 2, 10]),
    languages: LANGS.filter((l, k) => k === 0 || random() < (l === 'gn' ? 0.01 : 0.3)),
    areas: AREAS.filter(() => random() < 0.3),
  }));
  // Links of a lawyer that is not indexed (not public) are ignored.
  const hidden = 'zzzz-hidden';

  async function build(order: L[]) {
    const b = new SearchIndexBuilder();
    b.addLawyers(order.slice(0, 500));
    b.addLawyers(order.slice(500));
    // Links arrive in several groups per value, as from several chunks.
    for (const part of [order.slice(0, 300), order.slice(300)]) {
      for (const code of LANGS) b.addLanguage(code, [hidden, ...part.filter((l) => l.languages.includes(code)).map((l) => l.id)]);
      for (const slug of AREAS) b.addPracticeArea(slug, [hidden, ...part.filter((l) => l.areas.includes(slug)).map((l) => l.id)]);
    }
    return b.build(3);
  }

  for (const [name, order] of [
    ['ids arriving sorted', [...lawyers].sort((a, b) => (a.id < b.id ? -1 : 1))],
    ['ids arriving in any order', lawyers],
  ] as const) {
    it(`equals the reference for random filters, sorts and pages (${name})`, async () => {
      const index = await build(order);
      assert.equal(index.size, 1000);
      assert.equal(index.version, 3);
      for (let i = 0; i < 2000; i++) {
        const f: LawyerFilters = {};
        if (random() < 0.3) f.citySlug = random() < 0.1 ? 'atlantis' : pick(CITIES);
        if (random() < 0.5) f.language = random() < 0.1 ? 'xx' : pick(LANGS);
        if (random() < 0.4) f.areaSlugs = pick([['a', 'a1', 'a2'], ['b', 'b1'], ['a1'], ['nope'], []]);
        if (random() < 0.25) f.minFeeCents = pick([0, 3000, 4000, 5000, 20000, 30000]);
        if (random() < 0.25) f.maxFeeCents = pick([0, 2999, 5000, 8000, 20000]);
        const sort = pick(['rating', 'reviews', 'price_asc', 'price_desc'] as const);
        const limit = 1 + Math.floor(random() * 25);
        const expected = lawyers.filter((l) => matches(l, f)).sort(COMPARE[sort]).map((l) => l.id);
        const offset = pick([0, limit, Math.floor(random() * (expected.length + 1)), Math.max(0, expected.length - limit), expected.length, expected.length + 5]);
        const label = JSON.stringify({ f, sort, limit, offset });
        assert.equal(index.count(f), expected.length, label);
        assert.deepEqual(index.page(f, sort, limit, offset), expected.slice(offset, offset + limit), label);
        assert.deepEqual(index.search(f, sort, limit, offset), { total: expected.length, ids: expected.slice(offset, offset + limit) }, label);
      }
    });
  }

  it('sorts keys too wide to pack into one number (the comparison fallback)', async () => {
    const big = 2 ** 31 - 1;
    const wide: L[] = Array.from({ length: 200 }, (_, i) => ({
      id: `w${(i * 37) % 200}`,
      city_slug: 'c',
      consultation_fee_cents: pick([0, big]),
      rating_key: pick([-big, 0, big]),
      review_count: pick([0, 1, big]),
      languages: [],
      areas: [],
    }));
    const b = new SearchIndexBuilder();
    b.addLawyers(wide);
    const index = await b.build(1);
    for (const sort of ['rating', 'reviews', 'price_asc', 'price_desc'] as const) {
      assert.deepEqual(index.page({}, sort, 200, 0), [...wide].sort(COMPARE[sort]).map((l) => l.id), sort);
      assert.deepEqual(index.page({ citySlug: 'c', minFeeCents: 1 }, sort, 200, 0), wide.filter((l) => l.consultation_fee_cents >= 1).sort(COMPARE[sort]).map((l) => l.id), sort);
    }
  });

  it('is empty without lawyers', async () => {
    const index = await new SearchIndexBuilder().build(1);
    assert.equal(index.count({}), 0);
    assert.equal(index.count({ language: 'es' }), 0);
    assert.deepEqual(index.page({}, 'rating', 10, 0), []);
    assert.deepEqual(index.page({ minFeeCents: 1 }, 'price_asc', 10, 0), []);
  });

  it('keeps ids that are not ASCII intact', async () => {
    const b = new SearchIndexBuilder();
    b.addLawyers([
      { id: 'ñandú', city_slug: 'c', consultation_fee_cents: 1, rating_key: 0, review_count: 0 },
      { id: 'a', city_slug: 'c', consultation_fee_cents: 2, rating_key: 0, review_count: 0 },
    ]);
    const index = await b.build(1);
    assert.deepEqual(index.page({}, 'price_desc', 10, 0), ['a', 'ñandú']);
    assert.deepEqual(index.page({ citySlug: 'c' }, 'rating', 10, 0), ['a', 'ñandú']);
  });
});
