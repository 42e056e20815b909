/**
 * The legal pages' texts in every language (docs/site.md, "Languages" and "Legal pages"): each
 * language has the Spanish text's structure (the same sections, paragraphs, list items and links,
 * so no clause is dropped in translation), states the operator's facts and the policy's numbers
 * from their one source, has no sentence left in English or Spanish, and says that the Spanish
 * text prevails. The pages themselves are walked over HTTP in test/site/languages.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FREE_CHANGE_HOURS } from '../../src/domain/booking/policy.ts';
import { LOCALES, type Locale } from '../../src/i18n/index.ts';
import { cookieList, HOLD_MINUTES, LEGAL_CHROME, LEGAL_PAGES, legalDocument, REVIEWS_HELP_PATH, type Facts, type LegalDocument } from '../../src/site/help/legal-texts.ts';
import { siteCookies } from '../../src/site/plugin.ts';

const FACTS: Facts = {
  legal: { name: 'Abogados Digitales, S.L.', taxId: 'B12345678', address: 'Calle Mayor 10, 28013 Madrid', email: 'legal@abogados-digitales.example', registry: 'Registro Mercantil de Madrid, tomo 1, folio 2, hoja M-3', demo: false, missing: [] },
  siteUrl: 'https://consulta.test',
  contactPath: '/contact',
  mailRetentionDays: 30,
  requestLogRetentionDays: 45,
};

const FACT_VALUES = [...Object.values(FACTS.legal).filter((v): v is string => typeof v === 'string'), FACTS.siteUrl];

const TRANSLATIONS: readonly Locale[] = LOCALES.filter((l) => l !== 'es' && l !== 'en');

/** Every piece of text of a document, by where it is (for messages). */
function pieces(doc: LegalDocument): Array<[string, string]> {
  return [
    ['title', doc.title],
    ['intro', doc.intro],
    ...doc.sections.flatMap((s, i): Array<[string, string]> => [
      [`section ${i} heading`, s.heading],
      ...(s.paragraphs ?? []).map((p, j): [string, string] => [`section ${i} paragraph ${j}`, p]),
      ...(s.list ?? []).map((p, j): [string, string] => [`section ${i} item ${j}`, p]),
      ...(s.link ? [[`section ${i} link`, s.link.text] as [string, string]] : []),
    ]),
  ];
}

/** The shape a translation must keep: sections, and in each the number of paragraphs, items and the link's target. */
const shape = (doc: LegalDocument) => doc.sections.map((s) => ({ paragraphs: s.paragraphs?.length ?? 0, items: s.list?.length ?? 0, link: s.link?.href ?? null }));

/**
 * The Latin-letter words an Arabic or Ukrainian legal text may contain: the operator's facts,
 * Spanish official names kept in Spanish, abbreviations of laws and bodies, company names, web
 * addresses and zone names.
 */
const LATIN_ALLOWED = [
  ...Object.values(FACTS.legal).filter((v): v is string => typeof v === 'string'),
  FACTS.siteUrl,
  'https://ec.europa.eu/consumers/odr',
  'www.aepd.es',
  'Agencia Española de Protección de Datos',
  'Registro Mercantil',
  'Código de Comercio',
  'hojas de reclamaciones',
  'colegio de abogados',
  'Stripe Payments Europe, Ltd.',
  'Stripe',
  'Europe/Madrid',
  '/oauth',
  'cookie',
  'Consulta',
  'LSSI-CE',
  'LOPDGDD',
  'TRLGDCU',
  'RGPD',
  'GDPR',
  'AEPD',
  'NIF',
  'API',
  'IP',
  'LEGAL_*',
  'LEGAL_',
];

function latinLeft(text: string): string[] {
  let rest = text;
  for (const allowed of [...LATIN_ALLOWED].sort((a, b) => b.length - a.length)) rest = rest.split(allowed).join(' ');
  return rest.match(/[A-Za-zÀ-ÿ]{2,}/g) ?? [];
}

/** Common English words: a French or Romanian legal sentence with them was left in English. */
const ENGLISH_WORDS = /\b(?:the|and|you|your|with|which|will|this|that|until|before|refund|booking|lawyer)\b/i;
/** Common Spanish words that French and Romanian do not share. */
const SPANISH_WORDS = /\b(?:tu|puedes|hasta|abogado|reserva|cuenta|también|después|correo)\b/i;

describe('the legal texts in every language', () => {
  it('keep the Spanish text\'s structure: every section, paragraph, list item and link', () => {
    for (const page of LEGAL_PAGES) {
      for (const facts of [FACTS, { ...FACTS, legal: { ...FACTS.legal, registry: null } }] as Facts[]) {
        const spanish = shape(legalDocument(page, 'es', facts));
        for (const locale of LOCALES) assert.deepEqual(shape(legalDocument(page, locale, facts)), spanish, `${locale} ${page}`);
      }
    }
  });

  it('state the operator\'s facts and the policy\'s numbers from their one source, and link how reviews work', () => {
    for (const locale of LOCALES) {
      const text = (page: (typeof LEGAL_PAGES)[number]) => pieces(legalDocument(page, locale, FACTS)).map(([, t]) => t).join('\n');
      const notice = text('aviso-legal');
      for (const v of [FACTS.legal.name, FACTS.legal.taxId, FACTS.legal.address, FACTS.legal.email, FACTS.legal.registry!, FACTS.siteUrl]) assert.ok(notice.includes(v), `${locale}: the notice names ${v}`);
      const privacy = text('privacy');
      for (const v of [FACTS.legal.email, String(FACTS.mailRetentionDays), String(FACTS.requestLogRetentionDays), 'www.aepd.es']) assert.ok(privacy.includes(v), `${locale}: privacy says ${v}`);
      const terms = text('terms');
      assert.ok(terms.includes(String(FREE_CHANGE_HOURS)) && terms.includes(String(HOLD_MINUTES)), `${locale}: the terms say ${FREE_CHANGE_HOURS} h and ${HOLD_MINUTES} min`);
      const reviews = legalDocument('terms', locale, FACTS).sections.find((s) => s.link?.href === REVIEWS_HELP_PATH);
      assert.ok(reviews && reviews.list && reviews.list.length >= 3, `${locale}: a section on reviews, linking ${REVIEWS_HELP_PATH}`);
      // The Spanish names of Spanish bodies and documents stay as they are.
      assert.ok(privacy.includes('AEPD') && notice.includes('LSSI-CE') && terms.includes('hojas de reclamaciones') || locale === 'es' || locale === 'en', `${locale}: Spanish official names kept`);
      if (locale !== 'es' && locale !== 'en') assert.ok(notice.includes('Registro Mercantil'), `${locale}: the registry named as it is`);
      if (locale === 'ar') {
        // Latin facts inside Arabic sentences are isolated left to right, or a wrapped address
        // and its parentheses come out scrambled on a phone (seen on the 390 px screenshots).
        for (const v of [FACTS.legal.name, FACTS.legal.address, FACTS.legal.email, FACTS.legal.registry!, FACTS.siteUrl]) assert.ok(notice.includes(`\u2066${v}\u2069`), `ar: ${v} isolated`);
        for (const page of LEGAL_PAGES) {
          const all = text(page);
          assert.equal((all.match(/[\u2066-\u2068]/g) ?? []).length, (all.match(/\u2069/g) ?? []).length, `ar ${page}: every isolate closed`);
        }
      }
    }
  });

  it('leave nothing in English or Spanish in French, Arabic, Ukrainian and Romanian', () => {
    for (const page of LEGAL_PAGES) {
      const english = new Map(pieces(legalDocument(page, 'en', FACTS)));
      const spanish = new Map(pieces(legalDocument(page, 'es', FACTS)));
      for (const locale of TRANSLATIONS) {
        for (const [where, text] of pieces(legalDocument(page, locale, FACTS))) {
          const label = `${locale} ${page} ${where}: ${text}`;
          // Copied whole (what is left once the operator's facts are taken out: "Titular:" is Romanian too).
          const own = (t: string | undefined) => (t === undefined ? '' : FACT_VALUES.reduce((x, v) => x.split(v).join(''), t).trim());
          if (own(text).length >= 12) assert.ok(own(text) !== own(english.get(where)) && own(text) !== own(spanish.get(where)), `${label} (copied)`);
          if (locale === 'ar' || locale === 'uk') assert.deepEqual(latinLeft(text), [], label);
          else {
            const withoutNames = LATIN_ALLOWED.reduce((t, a) => t.split(a).join(' '), text);
            assert.doesNotMatch(withoutNames, ENGLISH_WORDS, label);
            assert.doesNotMatch(withoutNames, SPANISH_WORDS, label);
          }
        }
      }
    }
  });

  it('the words around the texts, and the cookie list, in every language; translations say the Spanish text prevails', () => {
    const cookies = cookieList(siteCookies('https://consulta.test'), 30);
    for (const locale of LOCALES as Locale[]) {
      const chrome = LEGAL_CHROME[locale];
      const words = [chrome.updated('2026-11-26'), chrome.demo, ...Object.values(chrome.cookieHead), chrome.prevails ?? '', chrome.spanishVersion ?? ''];
      words.push(...cookies.flatMap((c) => [c.purpose[locale], c.lifetime[locale]]));
      if (locale === 'es') assert.equal(chrome.prevails, null, 'the Spanish text is the one that binds');
      else assert.ok(chrome.prevails && chrome.spanishVersion, `${locale}: says the Spanish text prevails`);
      if (locale === 'ar' || locale === 'uk') for (const w of words) assert.deepEqual(latinLeft(w.replace(/__Host-|consulta_\w+|_interaction|_session|\.sig/g, ' ')), [], `${locale}: ${w}`);
      if (TRANSLATIONS.includes(locale)) {
        for (const c of cookies) assert.notEqual(c.purpose[locale], c.purpose.en, `${locale}: ${c.names[0]}`);
        assert.notEqual(chrome.prevails, LEGAL_CHROME.en.prevails);
        for (const w of locale === 'fr' || locale === 'ro' ? words : []) {
          const withoutNames = LATIN_ALLOWED.reduce((t, a) => t.split(a).join(' '), w);
          assert.doesNotMatch(withoutNames, ENGLISH_WORDS, `${locale}: ${w}`);
        }
      }
    }
  });
});
