/**
 * suggest_practice_areas' mapping on real-world phrasings in Spanish, English, French and Arabic
 * (as people write them: missing accents, colloquial words, Arabic with and without hamza).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRACTICE_AREAS } from '../../src/domain/demo/practice-areas.ts';
import { normaliseText, suggestPracticeAreas } from '../../src/domain/directory/practice-area-suggest.ts';

const KNOWN = new Set(PRACTICE_AREAS.flatMap((a) => [a.slug, ...(a.children ?? []).map((c) => c.slug)]));

// [text, a slug expected among the top 3]
const CASES: Array<[string, string]> = [
  // Spanish
  ['Llevo tres años en España sin papeles, ¿puedo pedir el arraigo?', 'arraigo-social'],
  ['mi tarjeta de residencia caduca el mes que viene', 'residence-renewals'],
  ['Quiero traer a mi mujer y a mis hijos desde Marruecos', 'family-reunification'],
  ['Estoy casada con un español, ¿qué tarjeta necesito?', 'eu-family-member-card'],
  ['me denegaron el visado de estudios y quiero recurrir', 'refusal-appeals'],
  ['Tengo una orden de expulsión', 'expulsion-orders'],
  ['Quiero pedir la nacionalidad española, llevo diez años', 'nationality-by-residence'],
  ['Mi abuelo era español, ley de nietos', 'democratic-memory-law'],
  ['No consigo cita previa para la huella del TIE', 'tie-and-nie'],
  ['Soy nómada digital y teletrabajo para una empresa de EEUU', 'digital-nomad-visa'],
  ['quiero montar un negocio en Madrid', 'entrepreneurs'],
  ['Necesito homologar mi título de medicina', 'degree-recognition'],
  ['Vengo de Ucrania, protección temporal', 'temporary-protection-ukraine'],
  ['quiero solicitar asilo', 'asylum-applications'],
  ['Tengo antecedentes penales, ¿me afecta para renovar?', 'criminal-records'],
  ['Me han puesto una multa por estancia irregular', 'fines-and-sanctions'],
  ['Quiero jubilarme en España con la no lucrativa', 'non-lucrative-residence'],
  ['Tengo una oferta de trabajo en Barcelona', 'employer-work-permit'],
  ['trabajo de temporero en la fresa en Huelva', 'seasonal-work'],
  ['mi hermano está detenido en el CIE de Aluche', 'cie-detention'],
  // English
  ['My residence permit expires next month, how do I renew it?', 'residence-renewals'],
  ['I want to bring my wife and children to Spain', 'family-reunification'],
  ['I have been undocumented in Spain for three years', 'arraigo-social'],
  ['I am married to a Spanish citizen', 'eu-family-member-card'],
  ['How do I get Spanish citizenship?', 'nationality'],
  ['I want to apply for asylum', 'asylum-applications'],
  ['my student visa was refused, can I appeal?', 'refusal-appeals'],
  ['digital nomad visa for a remote work job', 'digital-nomad-visa'],
  ['I want to retire in Spain', 'non-lucrative-residence'],
  ['I was refused entry at Madrid airport', 'border-entry-refusals'],
  ['golden visa by buying a house', 'golden-visa-legacy'],
  ['I need an NIE number to buy a car', 'tie-and-nie'],
  // French
  ['Je veux faire venir ma femme en Espagne, regroupement familial', 'family-reunification'],
  ['Mon titre de séjour expire bientôt, comment le renouveler ?', 'residence-renewals'],
  ['Je suis sans papiers depuis trois ans', 'arraigo-social'],
  ['Je veux demander la nationalité espagnole', 'nationality'],
  ['J’ai reçu une OQTF, expulsion', 'expulsion-orders'],
  ['demande d’asile en Espagne', 'asylum-applications'],
  ['Je veux créer une entreprise à Valence', 'entrepreneurs'],
  ['visa étudiant pour un master à Madrid', 'student-stay'],
  ['reconnaissance de diplôme, homologation', 'degree-recognition'],
  // Arabic
  ['أريد لم الشمل لزوجتي وأطفالي', 'family-reunification'],
  ['إقامتي انتهت وأريد تجديد الإقامة', 'residence-renewals'],
  ['أعيش في إسبانيا بدون أوراق منذ ثلاث سنوات', 'arraigo-social'],
  ['أريد الحصول على الجنسية الإسبانية', 'nationality'],
  ['طلب اللجوء في إسبانيا', 'asylum-applications'],
  ['صدر قرار ترحيل ضدي', 'expulsion-orders'],
  ['أريد تصريح عمل، عندي عقد عمل', 'employer-work-permit'],
  ['تأشيرة دراسة للجامعة', 'student-stay'],
  ['متزوج من اسبانية', 'eu-family-member-card'],
];

describe('suggestPracticeAreas', () => {
  it(`maps ${CASES.length} real-world phrasings in es, en, fr and ar to the right area`, () => {
    assert.ok(CASES.length >= 40);
    const misses: string[] = [];
    for (const [text, slug] of CASES) {
      const got = suggestPracticeAreas(text, KNOWN, 3).map((s) => s.slug);
      if (!got.includes(slug)) misses.push(`${text} → ${got.join(', ') || '(none)'} (expected ${slug})`);
    }
    assert.deepEqual(misses, []);
  });

  it('suggests nothing for text about something else, and only known slugs', () => {
    assert.deepEqual(suggestPracticeAreas('What is the weather like in Seville?', KNOWN), []);
    // A directory without the sub-area gets its parent, never a slug it does not have.
    assert.deepEqual(suggestPracticeAreas('quiero renovar', new Set(['residence'])).map((s) => s.slug), ['residence']);
    for (const s of suggestPracticeAreas('asilo, arraigo, nacionalidad, reagrupación, NIE', KNOWN, 5)) assert.ok(KNOWN.has(s.slug));
  });

  it('short cues match whole words only: "tiene" is not a TIE, "nieto" not a NIE', () => {
    const got = suggestPracticeAreas('Mi nieto tiene una duda', KNOWN).map((s) => s.slug);
    assert.ok(!got.includes('tie-and-nie'), got.join(','));
  });

  it('normalises accents, case and Arabic letter variants', () => {
    assert.equal(normaliseText('Reagrupación  FAMILIAR!'), ' reagrupacion familiar ');
    assert.equal(normaliseText('الإقامة'), normaliseText('الاقامه'));
  });
});
