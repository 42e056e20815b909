import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { LawyerRecordSchema, type LawyerRecord } from '../../src/domain/directory/lawyer-record.ts';
import { LANGUAGES, languageByCode, normalizeKey, resolveLanguage } from '../../src/domain/directory/languages.ts';
import { createRng, generateLawyers } from '../../src/domain/demo/generator.ts';
import {
  ADVERSARIAL_BIO_SNIPPETS,
  BACKGROUNDS,
  MIXED_COMMENTS,
  NEGATIVE_COMMENTS,
  POSITIVE_COMMENTS,
  genderize,
} from '../../src/domain/demo/names.ts';
import { PRACTICE_AREAS } from '../../src/domain/demo/practice-areas.ts';
import { CITIES, PROVINCES, toSlug } from '../../src/domain/demo/spain.ts';

// ajv-formats is CommonJS with a `default` property; under NodeNext the default import is the
// module object for the type checker, while at runtime it is the function itself. Accept both.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule.default }).default ??
  addFormatsModule) as typeof addFormatsModule.default;

const REFERENCE_DATE = '2025-11-20';
const SLUG = /^[a-z0-9]+(-[a-z0-9]+)*$/;

function take(seed: number, count: number, referenceDate = REFERENCE_DATE): LawyerRecord[] {
  return [...generateLawyers({ seed, count, referenceDate })];
}

const allAreas = PRACTICE_AREAS.flatMap((top) => [top, ...(top.children ?? [])]);
const areaSlugs = new Set(allAreas.map((a) => a.slug));
const citiesBySlug = new Map(CITIES.map((c) => [c.slug, c]));
const provincesByCode = new Map(PROVINCES.map((p) => [p.code, p]));

describe('provinces', () => {
  it('has the 50 provinces plus Ceuta and Melilla, coded 01..52', () => {
    assert.equal(PROVINCES.length, 52);
    const codes = PROVINCES.map((p) => p.code).sort();
    assert.deepEqual(codes, Array.from({ length: 52 }, (_, i) => String(i + 1).padStart(2, '0')));
    assert.equal(provincesByCode.get('51')?.name, 'Ceuta');
    assert.equal(provincesByCode.get('52')?.name, 'Melilla');
    assert.equal(provincesByCode.get('51')?.autonomous_community, 'Ceuta');
    assert.equal(provincesByCode.get('52')?.autonomous_community, 'Melilla');
  });

  it('has a community, a unique ASCII slug and at least one bar for every province', () => {
    const slugs = new Set<string>();
    for (const p of PROVINCES) {
      assert.ok(p.autonomous_community.length > 0, p.code);
      assert.match(p.slug, SLUG);
      assert.ok(!slugs.has(p.slug), `duplicate province slug ${p.slug}`);
      slugs.add(p.slug);
      assert.ok(p.bars.length >= 1, `no bar for ${p.name}`);
      assert.equal(new Set(p.bars).size, p.bars.length, `duplicate bar in ${p.name}`);
    }
    assert.equal(new Set(PROVINCES.map((p) => p.autonomous_community)).size, 19);
    assert.equal(provincesByCode.get('28')?.autonomous_community, 'Comunidad de Madrid');
    assert.equal(provincesByCode.get('08')?.autonomous_community, 'Cataluña');
    assert.equal(provincesByCode.get('29')?.autonomous_community, 'Andalucía');
    assert.equal(provincesByCode.get('15')?.slug, 'a-coruna');
  });

  it('puts only Las Palmas and Santa Cruz de Tenerife in the Canary time zone', () => {
    const canary = PROVINCES.filter((p) => p.timezone === 'Atlantic/Canary').map((p) => p.code).sort();
    assert.deepEqual(canary, ['35', '38']);
    assert.ok(PROVINCES.every((p) => p.timezone === 'Atlantic/Canary' || p.timezone === 'Europe/Madrid'));
  });

  it('lists the main bars by their real names', () => {
    assert.ok(provincesByCode.get('28')?.bars.includes('Ilustre Colegio de la Abogacía de Madrid'));
    assert.ok(provincesByCode.get('08')?.bars.includes("Il·lustre Col·legi de l'Advocacia de Barcelona"));
    assert.ok((provincesByCode.get('08')?.bars.length ?? 0) >= 7);
    assert.ok(provincesByCode.get('29')?.bars.includes('Ilustre Colegio de Abogados de Málaga'));
    assert.equal(provincesByCode.get('03')?.bars.length, 4);
  });
});

describe('cities', () => {
  it('has at least 170 cities with unique ASCII slugs', () => {
    assert.ok(CITIES.length >= 170, `only ${CITIES.length} cities`);
    assert.equal(new Set(CITIES.map((c) => c.slug)).size, CITIES.length);
    for (const c of CITIES) {
      assert.match(c.slug, SLUG, c.name);
      assert.equal(c.slug, toSlug(c.name));
      assert.ok(c.population > 0, c.name);
    }
  });

  it('covers every province, and every city points at an existing province', () => {
    const covered = new Set(CITIES.map((c) => c.province_code));
    for (const p of PROVINCES) assert.ok(covered.has(p.code), `no city in ${p.name}`);
    for (const c of CITIES) assert.ok(provincesByCode.has(c.province_code), `${c.slug} → ${c.province_code}`);
    assert.equal(citiesBySlug.get('ceuta')?.province_code, '51');
    assert.equal(citiesBySlug.get('melilla')?.province_code, '52');
  });

  it('slugs accents, apostrophes and middle dots the way URLs need them', () => {
    assert.equal(citiesBySlug.get('lhospitalet-de-llobregat')?.name, "L'Hospitalet de Llobregat");
    assert.equal(citiesBySlug.get('malaga')?.name, 'Málaga');
    assert.equal(toSlug("Col·legi d'Advocats"), 'collegi-dadvocats');
    for (const slug of ['madrid', 'barcelona', 'el-ejido', 'roquetas-de-mar', 'torrevieja', 'las-palmas-de-gran-canaria']) {
      assert.ok(citiesBySlug.has(slug), slug);
    }
  });
});

describe('practice areas', () => {
  it('has at least 7 top-level areas and 24 sub-areas, two levels deep', () => {
    assert.ok(PRACTICE_AREAS.length >= 7);
    const subAreas = PRACTICE_AREAS.flatMap((a) => a.children ?? []);
    assert.ok(subAreas.length >= 24, `only ${subAreas.length} sub-areas`);
    for (const sub of subAreas) assert.equal(sub.children, undefined, `${sub.slug} nests a third level`);
  });

  it('has globally unique slugs and a name and description for every area', () => {
    assert.equal(areaSlugs.size, allAreas.length);
    for (const a of allAreas) {
      assert.match(a.slug, SLUG);
      assert.ok(a.name.length > 0 && a.description.endsWith('.'), a.slug);
    }
  });
});

describe('languages', () => {
  it('lists every ISO 639-1 code once, as two lowercase letters', () => {
    assert.ok(LANGUAGES.length >= 180, `only ${LANGUAGES.length} languages`);
    assert.equal(new Set(LANGUAGES.map((l) => l.code)).size, LANGUAGES.length);
    for (const l of LANGUAGES) {
      assert.match(l.code, /^[a-z]{2}$/);
      assert.ok(l.name && l.native && l.es, l.code);
    }
    assert.equal(languageByCode('uk')?.name, 'Ukrainian');
    assert.equal(languageByCode('xx'), undefined);
  });

  it('resolves codes and English, Spanish and native names, ignoring case, accents and spacing', () => {
    for (const input of ['Árabe', 'arabic', 'AR', ' العربية ', 'arabe', 'ÁRABE']) assert.equal(resolveLanguage(input), 'ar', input);
    assert.equal(resolveLanguage('rumano'), 'ro');
    assert.equal(resolveLanguage('Română'), 'ro');
    assert.equal(resolveLanguage('українська'), 'uk');
    assert.equal(resolveLanguage('中文'), 'zh');
    assert.equal(resolveLanguage('wolof'), 'wo');
    assert.equal(resolveLanguage('  Norwegian   Bokmål '), 'nb');
    assert.equal(resolveLanguage('castellano'), 'es');
  });

  it('gives codes precedence over names and returns undefined for unknown input', () => {
    assert.equal(resolveLanguage('no'), 'no');
    assert.equal(resolveLanguage('klingon'), undefined);
    assert.equal(resolveLanguage(''), undefined);
    assert.equal(resolveLanguage('xx'), undefined);
  });

  it('normalizes keys', () => {
    assert.equal(normalizeKey('  Árabe   Marroquí '), 'arabe marroqui');
  });
});

describe('name and text pools', () => {
  it('has a substantial, mixed review-comment pool', () => {
    const all = [...POSITIVE_COMMENTS, ...MIXED_COMMENTS, ...NEGATIVE_COMMENTS];
    assert.ok(all.length >= 80, `only ${all.length} comments`);
    assert.equal(new Set(all).size, all.length);
    assert.ok(NEGATIVE_COMMENTS.length >= 10);
  });

  it('resolves gendered alternatives', () => {
    assert.equal(genderize('Excelente {abogado|abogada}.', true), 'Excelente abogada.');
    assert.equal(genderize('{He|She} won.', false), 'He won.');
  });

  it('only suggests valid language codes for each background', () => {
    for (const b of BACKGROUNDS) for (const [code] of b.languages) assert.ok(languageByCode(code), `${b.key}: ${code}`);
  });
});

describe('rng', () => {
  it('is reproducible and stays in range', () => {
    const a = createRng(7);
    const b = createRng(7);
    for (let i = 0; i < 1000; i++) {
      const x = a.next();
      assert.equal(x, b.next());
      assert.ok(x >= 0 && x < 1);
      const n = a.int(3, 5);
      b.int(3, 5);
      assert.ok(n >= 3 && n <= 5 && Number.isInteger(n));
    }
    assert.match(a.uuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.notEqual(createRng(1).next(), createRng(2).next());
  });

  it('picks, weighs and flips coins from the same stream', () => {
    const rng = createRng(11);
    const items = ['a', 'b', 'c'] as const;
    const counts = new Map<string, number>();
    for (let i = 0; i < 3000; i++) {
      const w = rng.weighted(items, (x) => (x === 'a' ? 8 : x === 'b' ? 2 : 0));
      counts.set(w, (counts.get(w) ?? 0) + 1);
      assert.ok(items.includes(rng.pick(items)));
    }
    assert.equal(counts.get('c'), undefined, 'zero weight is never chosen');
    assert.ok((counts.get('a') ?? 0) > (counts.get('b') ?? 0) * 3);
    const heads = Array.from({ length: 2000 }, () => rng.chance(0.25)).filter(Boolean).length;
    assert.ok(heads > 400 && heads < 600, `chance(0.25) gave ${heads}/2000`);
    assert.throws(() => rng.pick([]), RangeError);
  });
});

describe('generator', () => {
  it('is deterministic for a seed, and differs across seeds', () => {
    const first = take(20250101, 200);
    assert.deepEqual(take(20250101, 200), first);
    assert.deepEqual(take(20250101, 50), first.slice(0, 50));
    const other = take(20250102, 200);
    assert.notDeepEqual(other, first);
    assert.notEqual(other[0]?.id, first[0]?.id);
  });

  it('derives every date from referenceDate, not the clock', () => {
    const lawyers = take(5, 300, '2020-02-28');
    const exceptionDates = lawyers.flatMap((l) => (l.date_exceptions ?? []).map((e) => e.date));
    assert.ok(exceptionDates.length > 0);
    for (const d of exceptionDates) assert.ok(d > '2020-02-28' && d <= '2020-04-28', d);
    assert.ok(exceptionDates.includes('2020-02-29'), 'leap day falls inside the window');
    const reviewDates = lawyers.flatMap((l) => (l.reviews ?? []).flatMap((r) => (r.date ? [r.date] : [])));
    assert.ok(reviewDates.length > 0);
    for (const d of reviewDates) assert.ok(d >= '2017-02-28' && d < '2020-02-28T00:00:00Z', d);
    assert.throws(() => take(5, 1, '2025-02-30'), RangeError);
    assert.throws(() => take(5, 1, 'today'), RangeError);
  });

  it('produces records that validate against LawyerRecordSchema and reference existing data', () => {
    const ajv = new Ajv({ allErrors: true, strict: true });
    addFormats(ajv);
    const validate = ajv.compile(LawyerRecordSchema);
    const lawyers = take(99, 2000);
    const ids = new Set<string>();
    const window = { from: '2025-11-20', to: '2026-01-19' };
    for (const lawyer of lawyers) {
      assert.ok(validate(lawyer), `${lawyer.name}: ${ajv.errorsText(validate.errors)}`);
      assert.ok(lawyer.id && !ids.has(lawyer.id), 'ids are unique');
      ids.add(lawyer.id!);

      const city = citiesBySlug.get(lawyer.city);
      assert.ok(city, `unknown city ${lawyer.city}`);
      const province = provincesByCode.get(city.province_code)!;
      assert.equal(lawyer.bar_memberships[0] && province.bars.includes(lawyer.bar_memberships[0].bar_name), true);

      for (const area of lawyer.practice_areas) assert.ok(areaSlugs.has(area.slug), `unknown area ${area.slug}`);
      assert.equal(lawyer.practice_areas.filter((a) => a.is_primary === true).length, 1);
      assert.equal(new Set(lawyer.practice_areas.map((a) => a.slug)).size, lawyer.practice_areas.length);
      assert.ok(lawyer.practice_areas.length >= 1 && lawyer.practice_areas.length <= 5);

      assert.equal(lawyer.languages[0], 'es');
      for (const code of lawyer.languages) assert.ok(languageByCode(code), code);

      assert.ok(lawyer.consultation_fee_cents >= 3000 && lawyer.consultation_fee_cents <= 25000);
      assert.equal(lawyer.consultation_fee_cents % 500, 0);
      assert.ok(lawyer.platform_commission_percent >= 8 && lawyer.platform_commission_percent <= 20);

      for (const h of lawyer.weekly_hours) assert.ok(h.start_time < h.end_time);
      const exceptionDates = (lawyer.date_exceptions ?? []).map((e) => e.date);
      assert.equal(new Set(exceptionDates).size, exceptionDates.length);
      for (const d of exceptionDates) assert.ok(d > window.from && d <= window.to, d);

      const reviews = lawyer.reviews ?? [];
      assert.ok(reviews.length <= 40);
      for (const r of reviews) if (r.date) assert.ok(r.date < '2025-11-20T00:00:00Z' && r.date >= '2022-11-20', r.date);
      // No constant booking count: the writer computes it from the records (docs/reviews.md#aggregates).
      assert.equal(lawyer.total_bookings, undefined);
    }

    const share = (predicate: (l: LawyerRecord) => boolean): number => lawyers.filter(predicate).length / lawyers.length;
    const unverified = share((l) => !l.verified);
    const unlisted = share((l) => !l.listed);
    assert.ok(unverified > 0.02 && unverified < 0.15, `unverified share ${unverified}`);
    assert.ok(unlisted > 0.01 && unlisted < 0.12, `unlisted share ${unlisted}`);
    assert.ok(share((l) => l.weekly_hours.length === 0) > 0, 'some lawyers are never available');
    assert.ok(share((l) => (l.reviews ?? []).length === 0) > 0.05, 'some lawyers have no reviews');
    assert.ok(share((l) => l.bio === null) > 0.05, 'some lawyers have no bio');

    const ratings = lawyers.flatMap((l) => (l.reviews ?? []).map((r) => r.rating));
    const mean = ratings.reduce((a, b) => a + b, 0) / ratings.length;
    assert.ok(mean > 4 && mean < 4.6, `mean rating ${mean}`);

    const bios = lawyers.flatMap((l) => (l.bio ? [l.bio] : []));
    assert.ok(new Set(bios).size > bios.length * 0.98, 'bios differ between lawyers');
    const adversarial = bios.filter((bio) => ADVERSARIAL_BIO_SNIPPETS.some((s) => bio.includes(s)));
    assert.ok(adversarial.length >= 1, 'adversarial bios are present');
    assert.ok(adversarial.length < bios.length * 0.03, 'adversarial bios are rare');
  });

  it('places lawyers in the Canary Islands and across many provinces', () => {
    const lawyers = take(3, 5000);
    const provinces = lawyers.map((l) => citiesBySlug.get(l.city)!.province_code);
    assert.ok(provinces.some((code) => provincesByCode.get(code)?.timezone === 'Atlantic/Canary'));
    assert.ok(new Set(provinces).size >= 45, `only ${new Set(provinces).size} provinces`);
    const madrid = lawyers.filter((l) => l.city === 'madrid').length;
    assert.ok(madrid > lawyers.length * 0.05, 'population weighting favours Madrid');
  });
});
