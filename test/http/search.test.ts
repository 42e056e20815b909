import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import type { LawyerRecord } from '../../src/domain/directory/lawyer-record.ts';

interface Summary {
  id: string;
  name: string;
  city: string;
  consultation_fee_cents: number;
  average_rating: number | null;
  languages: string[];
  practice_areas: Array<{ slug: string; is_primary: boolean; name: string }>;
  next_available: string | null;
}
interface Page {
  total: number;
  page: number;
  limit: number;
  has_more: boolean;
  lawyers: Summary[];
}

const CITIES = ['madrid', 'barcelona', 'malaga', 'las-palmas-de-gran-canaria'];
const AREAS = ['arraigo-social', 'asylum-applications', 'nationality-by-residence', 'family-reunification'];
const LANGS = [['es', 'en'], ['es', 'ar'], ['es', 'fr', 'ar'], ['es', 'ro']];

/** 40 public lawyers with varied, known attributes, plus hidden ones that must never surface. */
function directory(): { visible: LawyerRecord[]; hidden: LawyerRecord[] } {
  const visible: LawyerRecord[] = [];
  for (let i = 0; i < 40; i++) {
    const ratings = i % 5 === 4 ? [] : Array.from({ length: (i % 7) + 1 }, (_, k) => ((i + k) % 5) + 1);
    visible.push(
      lawyerRecord({
        name: `Lawyer ${String(i).padStart(2, '0')}`,
        city: CITIES[i % 4]!,
        consultation_fee_cents: 4000 + ((i * 37) % 20) * 500,
        practice_areas: [{ slug: AREAS[i % 4]!, is_primary: true }, ...(i % 3 === 0 ? [{ slug: 'refusal-appeals' }] : [])],
        languages: LANGS[i % 4]!,
        reviews: ratings.map((rating) => ({ rating, comment: null, date: '2026-01-01T10:00:00Z' })),
      }),
    );
  }
  const hidden = [
    lawyerRecord({ name: 'Hidden Unverified', verified: false, city: 'madrid' }),
    lawyerRecord({ name: 'Hidden Unlisted', listed: false, city: 'madrid' }),
  ];
  return { visible, hidden };
}

for (const target of databaseTargets()) {
  describe(`GET /lawyers/search (${target.name})`, () => {
    let ctx: TestContext;
    let visible: LawyerRecord[];
    const get = async (qs: string) => {
      const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/search${qs}` });
      return { res, body: res.json() as Page };
    };
    /** All pages of a query, concatenated. */
    const all = async (qs: string) => {
      const out: Summary[] = [];
      for (let page = 1; page < 50; page++) {
        const { body } = await get(`${qs}${qs ? '&' : '?'}limit=25&page=${page}`);
        out.push(...body.lawyers);
        if (!body.has_more) break;
      }
      return out;
    };

    before(async () => {
      ctx = await createTestContext(target);
      const d = directory();
      visible = d.visible;
      await insertLawyers(ctx.database, [...d.visible, ...d.hidden]);
    });
    after(() => ctx.close());

    it('returns the first page with the spec fields and defaults (page 1, limit 10)', async () => {
      const { res, body } = await get('');
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^application\/json/);
      assert.equal(body.total, 40);
      assert.equal(body.page, 1);
      assert.equal(body.limit, 10);
      assert.equal(body.has_more, true);
      assert.equal(body.lawyers.length, 10);
      const l = body.lawyers[0] as unknown as Record<string, unknown>;
      for (const f of ['id', 'name', 'city', 'practice_areas', 'languages', 'consultation_fee_cents', 'currency', 'platform_commission_percent', 'average_rating', 'total_bookings', 'next_available', 'profile_url', 'booking_url']) {
        assert.ok(f in l, `missing ${f}`);
      }
      assert.equal(l.currency, 'EUR');
      assert.equal(l.profile_url, `http://consulta.test/lawyers/${String(l.id)}`);
      assert.equal(l.booking_url, `http://consulta.test/lawyers/${String(l.id)}/book`);
    });

    it('never returns unverified or unlisted lawyers, on any page or filter', async () => {
      const everyone = await all('?city=madrid');
      assert.equal(everyone.length, 10);
      assert.ok(everyone.every((l) => !l.name.startsWith('Hidden')));
      const { body } = await get('?city=madrid');
      assert.equal(body.total, 10);
    });

    it('pages without overlap or gaps, and the last page says has_more=false', async () => {
      const ids = new Set<string>();
      for (let page = 1; page <= 4; page++) {
        const { body } = await get(`?limit=12&page=${page}`);
        for (const l of body.lawyers) ids.add(l.id);
        assert.equal(body.has_more, page < 4);
      }
      assert.equal(ids.size, 40);
      const { body } = await get('?limit=12&page=9');
      assert.deepEqual(body.lawyers, []);
      assert.equal(body.total, 40);
      assert.equal(body.has_more, false);
    });

    it('sorts by rating by default: best first, unrated last, ties by review count then id', async () => {
      const list = await all('');
      const key = (l: Summary) => {
        const rec = visible.find((v) => v.name === l.name)!;
        return { rating: l.average_rating ?? -1, reviews: rec.reviews!.length, id: l.id };
      };
      for (let i = 1; i < list.length; i++) {
        const a = key(list[i - 1]!);
        const b = key(list[i]!);
        const ordered = a.rating > b.rating || (a.rating === b.rating && (a.reviews > b.reviews || (a.reviews === b.reviews && a.id < b.id)));
        assert.ok(ordered, `order broken at ${i}: ${JSON.stringify(a)} then ${JSON.stringify(b)}`);
      }
      assert.equal(list.at(-1)!.average_rating, null);
    });

    it('sorts by price ascending and descending, and by review count', async () => {
      const asc = (await all('?sort=price_asc')).map((l) => l.consultation_fee_cents);
      assert.deepEqual(asc, [...asc].sort((a, b) => a - b));
      const desc = (await all('?sort=price_desc')).map((l) => l.consultation_fee_cents);
      assert.deepEqual(desc, [...desc].sort((a, b) => b - a));
      const byReviews = (await all('?sort=reviews')).map((l) => visible.find((v) => v.name === l.name)!.reviews!.length);
      assert.deepEqual(byReviews, [...byReviews].sort((a, b) => b - a));
    });

    it('filters by city slug, or by name in any case and without accents', async () => {
      const bySlug = await all('?city=malaga');
      assert.equal(bySlug.length, 10);
      assert.ok(bySlug.every((l) => l.city === 'Málaga'));
      const byName = await all(`?city=${encodeURIComponent('MÁLAGA')}`);
      assert.deepEqual(byName.map((l) => l.id), bySlug.map((l) => l.id));
      const plain = await all('?city=malaga');
      assert.deepEqual(plain.map((l) => l.id), bySlug.map((l) => l.id));
    });

    it('filters by practice area; a parent area includes its sub-areas', async () => {
      const asylum = await all('?practice_area=asylum-applications');
      assert.equal(asylum.length, 10);
      assert.ok(asylum.every((l) => l.practice_areas.some((a) => a.slug === 'asylum-applications')));
      const parent = await all('?practice_area=international-protection');
      assert.deepEqual(new Set(parent.map((l) => l.id)), new Set(asylum.map((l) => l.id)));
      const appeals = await all('?practice_area=appeals-and-enforcement');
      const expected = visible.filter((v) => v.practice_areas.some((a) => a.slug === 'refusal-appeals')).length;
      assert.equal(appeals.length, expected);
    });

    it('filters by language code or name', async () => {
      const expected = visible.filter((v) => v.languages.includes('ar')).length;
      assert.equal((await all('?language=ar')).length, expected);
      assert.equal((await all('?language=Arabic')).length, expected);
      assert.equal((await all(`?language=${encodeURIComponent('árabe')}`)).length, expected);
      const { body } = await get('?language=fi');
      assert.equal(body.total, 0, 'a valid language no lawyer speaks is an empty result, not an error');
    });

    it('filters by fee range in euros, bounds included', async () => {
      const list = await all('?min_fee_eur=50&max_fee_eur=70.5');
      const expected = visible.filter((v) => v.consultation_fee_cents >= 5000 && v.consultation_fee_cents <= 7050);
      assert.equal(list.length, expected.length);
      assert.ok(list.every((l) => l.consultation_fee_cents >= 5000 && l.consultation_fee_cents <= 7050));
    });

    it('combines filters with AND and reports the matching total', async () => {
      const expected = visible.filter((v) => v.city === 'barcelona' && v.languages.includes('ar'));
      const { body } = await get('?city=barcelona&language=ar&limit=25');
      assert.equal(body.total, expected.length);
      assert.equal(body.lawyers.length, expected.length);
    });

    it('lists practice areas with the primary one first', async () => {
      const list = await all('?practice_area=refusal-appeals');
      for (const l of list) {
        assert.equal(l.practice_areas[0]!.is_primary, true);
        assert.equal(l.practice_areas.filter((a) => a.is_primary).length, 1);
        assert.ok(l.practice_areas.every((a) => typeof a.name === 'string' && a.name.length > 0));
      }
    });

    const badQueries: Array<[string, string]> = [
      ['?limit=0', '/query/limit'],
      ['?limit=26', '/query/limit'],
      ['?limit=abc', '/query/limit'],
      ['?limit=2.5', '/query/limit'],
      ['?page=0', '/query/page'],
      ['?page=-1', '/query/page'],
      ['?page=x', '/query/page'],
      ['?sort=cheapest', '/query/sort'],
      ['?min_fee_eur=-1', '/query/min_fee_eur'],
      ['?max_fee_eur=lots', '/query/max_fee_eur'],
      ['?min_fee_eur=90&max_fee_eur=50', '/query/max_fee_eur'],
      ['?city=atlantis', '/query/city'],
      ['?city=', '/query/city'],
      ['?practice_area=divorce', '/query/practice_area'],
      ['?language=klingon', '/query/language'],
      ['?cty=madrid', '/query/cty'],
    ];
    for (const [qs, pointer] of badQueries) {
      it(`rejects ${qs} with invalid_request naming ${pointer}`, async () => {
        const { res } = await get(qs);
        assert.equal(res.statusCode, 400);
        assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
        const p = res.json() as { code: string; errors: Array<{ pointer: string; detail: string }>; instance: string };
        assert.equal(p.code, 'invalid_request');
        assert.equal(p.instance, res.headers['x-request-id']);
        assert.ok(p.errors.some((e) => e.pointer === pointer), JSON.stringify(p.errors));
      });
    }

    it('lists every bad field at once', async () => {
      const { res } = await get('?limit=0&page=0&sort=x');
      const p = res.json() as { errors: Array<{ pointer: string }> };
      assert.deepEqual(p.errors.map((e) => e.pointer).sort(), ['/query/limit', '/query/page', '/query/sort']);
    });

    it('points to where valid values are listed for an unknown city or area', async () => {
      const city = (await get('?city=atlantis')).res.json() as { errors: Array<{ detail: string }> };
      assert.match(city.errors[0]!.detail, /\/api\/v1\/cities/);
      const area = (await get('?practice_area=divorce')).res.json() as { errors: Array<{ detail: string }> };
      assert.match(area.errors[0]!.detail, /\/api\/v1\/practice-areas/);
    });
  });
}
