/**
 * The Ukrainian and Romanian catalogues (issue 19 item 1; docs/site.md, "Languages"), beyond what
 * test/site/languages.test.ts checks for every language: their plural forms (Ukrainian one / few
 * / many, Romanian one / few / other with «de» from 20), the reference names as people in Spain
 * say them, prices with the sign €, no English left in them, and no wording that assumes the
 * reader's gender.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { euros } from '../../src/i18n/format.ts';
import { messages, PEOPLE_SECTIONS } from '../../src/i18n/index.ts';
import { capitalized, languageName, listOf, practiceAreaName, zoneName } from '../../src/i18n/reference.ts';
import { ro } from '../../src/i18n/ro.ts';
import { uk } from '../../src/i18n/uk.ts';
import { zoneName as visitorZoneName } from '../../src/site/booking/visitor-zone.ts';
import { leaves } from '../support/catalogues.ts';

/** Every string a catalogue's people sections can produce: its strings, and its functions called with numbers and with text. */
function texts(catalogue: object, args: readonly unknown[] = [1, 3, 5, 21, 'Ana']): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const leaf of leaves(catalogue)) {
    if (leaf.kind === 'string') out.push({ path: leaf.path, text: leaf.value as string });
    if (leaf.kind !== 'function') continue;
    // The contact form's email to the operator takes an object: called below with its fields.
    if (leaf.path.endsWith('operatorMail.body')) continue;
    const fn = leaf.value as (...args: unknown[]) => unknown;
    for (const arg of args) {
      let value: unknown;
      try {
        value = fn(...Array<unknown>(fn.length).fill(arg));
      } catch {
        continue; // a function whose argument is an object (the deletion email): called below with its facts
      }
      if (typeof value === 'string') out.push({ path: `${leaf.path}(${String(arg)})`, text: value });
    }
  }
  return out;
}

describe('Ukrainian and Romanian', () => {
  it('count by their own plural rules', () => {
    assert.deepEqual([1, 2, 4, 5, 11, 21, 22, 25].map((n) => uk.bookingPath.minutesLeft(n)), [
      'залишилася 1 хвилина',
      'залишилося 2 хвилини',
      'залишилося 4 хвилини',
      'залишилося 5 хвилин',
      'залишилося 11 хвилин',
      'залишилася 21 хвилина',
      'залишилося 22 хвилини',
      'залишилося 25 хвилин',
    ]);
    assert.equal(uk.signIn.wrongCode(3), 'Код неправильний. Залишилося 3 спроби.');
    assert.equal(uk.lawyer.bookings(12), '12 заброньованих консультацій');
    assert.deepEqual([1, 2, 19, 20, 101, 120].map((n) => ro.bookingPath.minutesLeft(n)), [
      'a mai rămas 1 minut',
      'au mai rămas 2 minute',
      'au mai rămas 19 minute',
      'au mai rămas 20 de minute',
      'au mai rămas 101 minute',
      'au mai rămas 120 de minute',
    ]);
    assert.equal(ro.home.resultsCount(25), 'Am găsit 25 de avocați');
    assert.equal(ro.signIn.wrongCode(1), 'Codul nu este corect. Mai aveți 1 încercare.');
  });

  it('name areas, languages and zones as people in Spain say them', () => {
    assert.equal(zoneName('uk', 'Europe/Madrid'), 'час материкової Іспанії');
    assert.equal(zoneName('uk', 'Atlantic/Canary'), 'час Канарських островів');
    assert.equal(zoneName('ro', 'Africa/Ceuta'), 'ora Spaniei continentale');
    assert.equal(zoneName('ro', 'Atlantic/Canary'), 'ora Insulelor Canare');
    // A visitor's zone by Intl, in the language, as the zone is now: Kyiv and Chișinău were on
    // Moscow time in 1970, and must not be named by it.
    // Ukrainian Intl data says "за східноєвропейським часом" (an adverbial, "by … time"): given in
    // the nominative, as a name that reads after "ваш час:" and in brackets.
    assert.equal(zoneName('uk', 'Europe/Kyiv'), 'східноєвропейський час');
    assert.equal(zoneName('uk', 'America/Lima'), 'стандартний час у Перу');
    assert.equal(zoneName('uk', 'America/Caracas'), 'час у Венесуелі');
    assert.equal(zoneName('uk', 'Africa/Casablanca'), 'час: Марокко');
    assert.equal(visitorZoneName('Europe/Kyiv', 'uk'), 'східноєвропейський час, Україна', 'the booking pages name it the same way, with the country in Ukrainian (not "(Kyiv)"), after a comma: it is often read inside brackets (issue 25 item 15)');
    assert.equal(uk.bookingPath.yourZone(zoneName('uk', 'Europe/Warsaw')), 'ваш час: центральноєвропейський час');
    assert.equal(zoneName('ro', 'Europe/Chisinau'), 'Ora Europei de Est');
    assert.equal(zoneName('ro', 'Europe/Bucharest'), 'Ora Europei de Est');
    assert.equal(zoneName('en', 'Europe/Kyiv'), 'Eastern European Time');
    assert.equal(capitalized('uk', listOf('uk', ['es', 'uk', 'ro'].map((c) => languageName('uk', c)))), 'Іспанська, українська і румунська');
    assert.equal(listOf('ro', ['es', 'uk', 'ro'].map((c) => languageName('ro', c))), 'spaniolă, ucraineană și română');
    assert.match(practiceAreaName('uk', 'temporary-protection-ukraine', 'x'), /^Тимчасовий захист .*\(protección temporal\)$/);
    assert.equal(practiceAreaName('ro', 'eu-family-member-card', 'x'), 'Cartea de membru de familie al unui cetățean UE');
    // The Spanish procedure names stay, beside the translation: that is what the papers say.
    for (const slug of ['arraigo-social', 'registered-partnership', 'degree-recognition']) {
      const es = practiceAreaName('es', slug, 'x').split(' ')[0]!;
      for (const locale of ['uk', 'ro'] as const) assert.ok(practiceAreaName(locale, slug, 'x').includes(slug === 'degree-recognition' ? 'homologación' : es), `${locale} ${slug}`);
    }
  });

  it('write prices with the sign €, as everywhere in Spain (their Intl data would write EUR)', () => {
    assert.equal(euros(7500, 'uk'), '75,00\u00a0€');
    assert.equal(euros(7550, 'ro'), '75,50\u00a0€');
    assert.equal(euros(7500, 'es'), '75,00\u00a0€');
    assert.equal(euros(7500, 'en'), '€75.00');
  });

  it('leave no English, undefined or NaN in anything they can say', () => {
    const deletion = { email: 'a@b.example', when: '26.11.2026', firms: ['Acme'], consultations: 2, payments: 2 };
    for (const [name, catalogue] of [['uk', uk], ['ro', ro]] as const) {
      const objects = [
        { path: 'myAccount.mail.body', text: catalogue.myAccount.mail.body(deletion) },
        { path: 'face.contact.operatorMail.body', text: catalogue.face.contact.operatorMail.body({ name: 'Ana', email: 'a@b.example', topic: 'x', language: 'x', signedIn: true, message: 'x', reference: 'r' }) },
      ];
      const all = [...texts(catalogue), ...objects];
      assert.ok(all.length > 500, `${name}: ${all.length} texts`);
      // Word edges by Unicode letters: \b would split Romanian "notă" into the English "not".
      const englishWords = /(?<!\p{L})(the|your|you|with|and|this|for|not|please)(?!\p{L})/iu;
      assert.ok(englishWords.test(messages('en').errors.server), 'the check finds English');
      const english = all.filter((t) => englishWords.test(t.text.replace(/Ley General Tributaria|American Express|Código de Comercio/g, '')));
      assert.deepEqual(english.map((t) => `${t.path}: ${t.text}`), [], `${name}: English words`);
      // (Counts called with counts: a text argument where a number goes is not how they are used.)
      const broken = [...texts(catalogue, [0, 1, 2, 5, 21, 120]), ...objects].filter((t) => /\bundefined\b|\bNaN\b|\[object Object\]/.test(t.text));
      assert.deepEqual(broken.map((t) => t.path), [], `${name}: a value that did not fill in`);
    }
  });

  it('do not assume the reader\'s gender', () => {
    // Ukrainian: «ви» takes the plural past («ви увійшли»), never a gendered singular; Romanian:
    // verbs («ați intrat») rather than an adjective after «sunteți» («sunteți conectat/ă»).
    const people = (catalogue: object) => texts(Object.fromEntries(PEOPLE_SECTIONS.map((s) => [s, (catalogue as Record<string, unknown>)[s]])));
    // (\b is ASCII-only, so Cyrillic words are bounded by lookarounds.)
    const ukMasculineOrFeminine = /(?<!\p{L})(?:[Вв]и [а-яіїєґ’]+(?:в|ла)|Шановн(?:ий|а)|[Вв]и (?:новий|нова) користувач)(?!\p{L})/u;
    assert.ok(ukMasculineOrFeminine.test('Ви увійшов як a@b.c') && ukMasculineOrFeminine.test('Шановний клієнте'), 'the check finds a gendered form');
    assert.ok(!ukMasculineOrFeminine.test('Ви увійшли як a@b.c'));
    const ukGendered = people(messages('uk')).filter((t) => ukMasculineOrFeminine.test(t.text));
    assert.deepEqual(ukGendered.map((t) => `${t.path}: ${t.text}`), []);
    const roAdjective = /(?<!\p{L})(?:sunteți (?:conectat|autentificat|sigur|nou|înregistrat)|Stimate|dragă)(?!\p{L})/iu;
    assert.ok(roAdjective.test('Sunteți conectat ca a@b.c') && !roAdjective.test('Ați intrat în cont ca a@b.c'), 'the check finds a gendered form');
    const roGendered = people(messages('ro')).filter((t) => roAdjective.test(t.text));
    assert.deepEqual(roGendered.map((t) => `${t.path}: ${t.text}`), []);
  });
});
