/**
 * One register per language (docs/site.md, "Register"): every string of the people sections
 * addresses the person in the language's register — French *vous*, Ukrainian *Ви*, Romanian
 * *dumneavoastră*, Spanish neutral *tú* — and none slips into the other one. Each catalogue is
 * walked whole (strings, and functions called with stand-in values), and the other register's
 * pronouns and typical verb forms are looked for as whole words, in any case.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { es } from '../../src/i18n/es.ts';
import { fr } from '../../src/i18n/fr.ts';
import { PEOPLE_SECTIONS, type Messages } from '../../src/i18n/index.ts';
import { ro } from '../../src/i18n/ro.ts';
import { uk } from '../../src/i18n/uk.ts';
import { leaves } from '../support/catalogues.ts';

/** Stand-ins a catalogue function may take: text, counts, and an object with any field. */
const standIn = new Proxy({}, { get: (_t, key) => (key === Symbol.toPrimitive ? () => 'X' : key === 'map' || key === 'join' ? undefined : key === 'length' ? 1 : 'X') });
const facts = (n: number) => ({ email: 'X', when: 'X', firms: Array(n).fill('X'), consultations: n, payments: n, name: 'X', topic: 'X', language: 'X', signedIn: n > 0, message: 'X', reference: 'X' });
const ARGUMENT_SETS: unknown[] = ['X', 1, 2, 5, true, false, null, standIn, facts(0), facts(2)];

/** Every text of the people sections, by path: strings as they are, functions with each kind of stand-in. */
function texts(catalogue: Partial<Messages>): Array<{ path: string; text: string }> {
  const people = Object.fromEntries(PEOPLE_SECTIONS.map((s) => [s, catalogue[s]]));
  return leaves(people).flatMap((l) => {
    if (l.kind === 'string') return [{ path: l.path, text: l.value as string }];
    if (l.kind !== 'function') return [];
    const fn = l.value as (...a: unknown[]) => unknown;
    const out = new Set<string>();
    for (const arg of ARGUMENT_SETS) {
      try {
        const text = fn(...Array(Math.max(fn.length, 1)).fill(arg));
        if (typeof text === 'string') out.add(text);
      } catch {
        // This stand-in is the wrong kind for the function; another one fits.
      }
    }
    assert.ok(out.size > 0, `${l.path}: some stand-in gives text`);
    return [...out].map((text) => ({ path: l.path, text }));
  });
}

/** `words` as whole words (no letter either side), any case, Unicode-aware. */
const anyWord = (words: readonly string[]) => new RegExp(`(?<!\\p{L})(?:${words.join('|')})(?!\\p{L})`, 'iu');

/** The paths (and the words found) of texts that match one of `patterns`, after `allowed` is removed. */
function offending(catalogue: Partial<Messages>, patterns: readonly RegExp[], allowed: RegExp | null = null): string[] {
  const found = texts(catalogue).flatMap(({ path, text }) => {
    const t = allowed ? text.replace(allowed, ' ') : text;
    const hits = patterns.map((p) => t.match(p)?.[0]).filter(Boolean);
    return hits.length ? [`${path}: ${hits.join(', ')}`] : [];
  });
  return [...new Set(found)];
}

// Romanian: the familiar "tu" — its pronouns and possessives, the second-person singular verbs
// that differ from the third person, and bare imperatives (those that opening a sentence cannot
// be a third person: "Alege o oră", "Mut-o").
const RO_FAMILIAR = [
  anyWord(['tu', 'te', '[țţ]i', 'î[țţ]i', '[țţ]ie', 'tău', 'ta', 'tale', 'tăi', 'dumneata', 'pe tine']),
  anyWord(['po[țţ]i', 'alegi', 'vrei', 'e[șş]ti', 'ai', '[șş]tii', 'vei', 'fii', 'vezi', 'scrii', 'decizi', 'citeai', 'prime[șş]ti', 'plăte[șş]ti', 'anulezi', 'mu[țţ]i', 'raportezi', 'rezervezi', 'intri', 'trebuie să (?:alegi|scrii|intri)']),
  // A verb with its pronoun joined by a hyphen, as only the familiar imperative writes it
  // ("Păstreaz-o", "Verifică-l", "Spune-ne"); the polite one is "Păstrați-o", and a past
  // participle after its auxiliary ("a anulat-o", "ați ales-o") is not an imperative.
  // Short pronouns joined to each other ("v-o", "s-o", "i-l", "să-mi") are not verbs (three letters
  // at least), nor a preposition with its article ("într-o", "printr-o") or "Iată-le".
  /(?<!(?:^|\s)(?:a|am|ai|ați|au|v-am|l-am|v-a)\s)(?<![\p{L}-])(?!(?:să|într|dintr|printr|iată)-)\p{L}{3,}(?<![țţ]i)-(?:o|l|ne|le|mi)(?!\p{L})/iu,
  /(?:^|[.:;!?„]\s*)(?:Alege|Verifică|Scrie|Intră|Adaugă|Mută|Anulează|Păstrează|Citește|Confirmă|Deschide|Evaluează|Modifică|Publică|Salvează|Raportează|Spune|Trimite|Continuă|Scurtează|Caută|Rezervă|Plătește|Vezi|Apasă|Introdu|Folosește|Încearcă)(?!\p{L})/u,
];
// "AI", the abbreviation (aplicații AI), is not the verb "ai" ("you have"): removed, in capitals only.
const RO_ALLOWED = /(?<!\p{L})AI(?!\p{L})/gu;

// Ukrainian: "ти" and its forms, "твій" and its forms, second-person singular present and future
// verbs (-еш/-єш/-иш/-їш), and singular imperatives where the polite one ends in -іть/-йте.
const UK_FAMILIAR = [
  anyWord(['ти', 'тебе', 'тобі', 'тобою', 'твій', 'твоя', 'твоє', 'твої', 'твого', 'твоєї', 'твоїх', 'твоїм', 'твоїми', 'твоєму', 'твою']),
  /(?<!\p{L})\p{L}+(?:еш|єш|иш|їш)(?:ся)?(?!\p{L})/iu,
  anyWord(['обери', 'вибери', 'натисни', 'введи', 'перевір', 'скасуй', 'перенеси', 'напиши', 'залиш', 'додай', 'збережи', 'спробуй', 'увійди', 'відкрий', 'підтверди', 'поверни', 'обирай', 'зачекай', 'скористайся', 'надішли', 'вкажи', 'знайди']),
];

// French: "tu" and its forms, elided "t’" too.
const FR_FAMILIAR = [anyWord(['tu', 'te', 'toi', 'ton', 'ta', 'tes']), /(?<!\p{L})t[’'](?=\p{L})/iu];

// Spanish is "tú" everywhere a person reads: no "usted", nor its typical imperatives.
const ES_FORMAL = [anyWord(['usted', 'ustedes', 'elija', 'introduzca', 'pulse', 'seleccione', 'inicie sesión'])];

describe('one register per language in the people sections', () => {
  it('the checks see the other register (and only it)', () => {
    const finds = (patterns: readonly RegExp[], text: string, allowed: RegExp | null = null) => patterns.some((p) => p.test(allowed ? text.replace(allowed, ' ') : text));
    assert.ok(finds(RO_FAMILIAR, 'Consultația ta') && finds(RO_FAMILIAR, 'O poți anula.') && finds(RO_FAMILIAR, 'Păstreaz-o') && finds(RO_FAMILIAR, 'Alege o oră.') && finds(RO_FAMILIAR, 'Cabinetul îți scrie.'));
    assert.ok(!finds(RO_FAMILIAR, 'Consultația dumneavoastră. O puteți anula; alegeți o oră, păstrați-o.') && !finds(RO_FAMILIAR, 'Nu a anulat-o; ați ales-o.') && !finds(RO_FAMILIAR, 'aplicațiile AI conectate', RO_ALLOWED));
    assert.ok(finds(UK_FAMILIAR, 'Твоя консультація') && finds(UK_FAMILIAR, 'Ти можеш скасувати') && finds(UK_FAMILIAR, 'Обери час'));
    assert.ok(!finds(UK_FAMILIAR, 'Ви можете скасувати вашу консультацію. Оберіть час.'));
    assert.ok(finds(FR_FAMILIAR, 'Ta consultation') && finds(FR_FAMILIAR, 'on t’envoie'));
    assert.ok(!finds(FR_FAMILIAR, 'Votre consultation : vous pouvez l’annuler.'));
    assert.ok(finds(ES_FORMAL, 'Usted puede') && !finds(ES_FORMAL, 'Puedes cancelar tu consulta.'));
  });

  it('Romanian: dumneavoastră, never tu', () => {
    assert.deepEqual(offending(ro, RO_FAMILIAR, RO_ALLOWED), []);
  });

  it('Ukrainian: Ви, never ти', () => {
    assert.deepEqual(offending(uk, UK_FAMILIAR), []);
  });

  it('French: vous, never tu', () => {
    assert.deepEqual(offending(fr, FR_FAMILIAR), []);
  });

  it('Spanish: tú, never usted', () => {
    assert.deepEqual(offending(es, ES_FORMAL), []);
  });
});
