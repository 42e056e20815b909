/**
 * What walking the site as a newcomer found (390 px, every language; docs/site.md, "Languages"),
 * kept from coming back:
 * - the home page's "what do you need help with" hint, in every language, gives an example that
 *   the suggestion function (the one the MCP tool uses) answers; the French and Arabic hints gave
 *   an English example and said "in Spanish or English", though French and Arabic are understood;
 * - an instant on a person's page (Account, connected apps) names its zone as people say it, not
 *   Intl's "CET" or "غرينتش+1";
 * - a Ukrainian browser reports its zone as `Europe/Kiev` (Chromium's ICU): the pages said
 *   "(Kiev)" and the zone chooser listed Kyiv twice; old zone names now become their current one.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PRACTICE_AREAS, type PracticeAreaData } from '../../src/domain/demo/practice-areas.ts';
import { suggestPracticeAreas } from '../../src/domain/directory/practice-area-suggest.ts';
import { LOCALES, messages } from '../../src/i18n/index.ts';
import { peopleInstant, zoneName } from '../../src/i18n/reference.ts';
import { CHOOSER_ZONES, validZone, zoneName as visitorZoneName } from '../../src/site/booking/visitor-zone.ts';

const slugs = (areas: readonly PracticeAreaData[]): string[] => areas.flatMap((a) => [a.slug, ...slugs(a.children ?? [])]);
const KNOWN = new Set(slugs(PRACTICE_AREAS));

/** The example in a hint: the text in its quotation marks, whichever the language uses. */
const example = (hint: string): string | undefined => /[«„“"]\s*([^«»„“”"]+?)\s*[»”"]/.exec(hint)?.[1];

describe('what the newcomer walk found', () => {
  it('gives, in every language, an example the suggestion function answers', () => {
    for (const locale of LOCALES) {
      const hint = messages(locale).home.needHint;
      const text = example(hint);
      assert.ok(text, `${locale}: an example in quotation marks: ${hint}`);
      assert.ok(suggestPracticeAreas(text, KNOWN, 3).length > 0, `${locale}: «${text}» is answered`);
    }
  });

  it('in French and Arabic, which the function understands, the example is in the language itself', () => {
    // The words of the example are the language's own: no English words in the French one, Arabic letters in the Arabic one.
    assert.doesNotMatch(example(messages('fr').home.needHint)!, /\b(?:my|the|next|month|card)\b/i);
    assert.match(example(messages('ar').home.needHint)!, /^[\u0600-\u06ff\s]+$/);
  });

  it('an instant on a person\'s page names the zone as people say it, in every language', () => {
    assert.equal(peopleInstant('es', '2026-11-26T06:33:00Z', 'Europe/Madrid'), 'jueves, 26 de noviembre de 2026, 07:33 (hora peninsular)');
    for (const locale of LOCALES) {
      const text = peopleInstant(locale, '2026-07-01T22:30:00Z', 'Europe/Madrid');
      assert.ok(text.includes(zoneName(locale, 'Europe/Madrid')) && text.includes('00:30'), `${locale}: ${text}`);
      assert.doesNotMatch(text, /\b(?:CES?T|GMT|UTC)\b|غرينتش/, `${locale}: ${text}`);
    }
  });

  it('an old zone name a browser reports is its current one: Kyiv, never "Kiev", and once in the chooser', () => {
    assert.equal(validZone('Europe/Kiev'), 'Europe/Kyiv');
    assert.equal(validZone('Asia/Calcutta'), 'Asia/Kolkata');
    assert.equal(validZone('Europe/Madrid'), 'Europe/Madrid');
    assert.ok((CHOOSER_ZONES as readonly string[]).includes(validZone('Europe/Kiev')!), 'the chooser already offers it: not added a second time');
    for (const locale of LOCALES) assert.doesNotMatch(visitorZoneName(validZone('Europe/Kiev')!, locale), /Kiev/, locale);
  });
});
