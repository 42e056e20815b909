/**
 * The site's languages are complete (docs/site.md, "Languages"): the catalogues have the same
 * keys at run time, not only in the type checker; the reference names (practice areas,
 * languages, time zones) are translated data; the language is negotiated as the switch, then the
 * account, then Accept-Language; and every page a person who books sees — home, search,
 * profile, free times, the hold, sign-in and its code, payment, the confirmation, My
 * consultations, Account, error pages — rendered in Spanish over real HTTP carries no
 * catalogue English, and neither do the emails it sends.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { PRACTICE_AREAS, type PracticeAreaData } from '../../src/domain/demo/practice-areas.ts';
import { en } from '../../src/i18n/en.ts';
import { comma } from '../../src/i18n/format.ts';
import { es } from '../../src/i18n/es.ts';
import { formatDay, euros } from '../../src/i18n/format.ts';
import { fr } from '../../src/i18n/fr.ts';
import { isPeopleOnly, LOCALES, messages, negotiateLocale, PEOPLE_SECTIONS, peopleCatalogues, textDirection, type Locale, type Messages } from '../../src/i18n/index.ts';
import { LOCALE_INFO } from '../../src/i18n/locales.ts';
import { capitalized, languageName, listOf, practiceAreaName, zoneName } from '../../src/i18n/reference.ts';
import { LEGAL_CHROME, LEGAL_PAGES, legalDocument } from '../../src/site/help/legal-texts.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { englishOnly, leaves, leftovers, outside, readableText } from '../support/catalogues.ts';
import { databaseTargets } from '../support/databases.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { HttpBrowser, hiddenFields, mailedCode, signInMails } from '../support/http-browser.ts';

/**
 * A catalogue's people sections only: what a people-only language writes. The English the pages
 * must not show is English's people text that the other language's people text does not also
 * have (its developer area, copied from English, would otherwise exempt every shared phrase).
 */
const peopleOf = (catalogue: Messages): Messages => Object.fromEntries(PEOPLE_SECTIONS.map((s) => [s, catalogue[s]])) as unknown as Messages;

const slugs = (areas: readonly PracticeAreaData[]): string[] => areas.flatMap((a) => [a.slug, ...slugs(a.children ?? [])]);

describe('the catalogues', () => {
  it('have the same keys, of the same kinds, in every language (checked at run time, key by key)', () => {
    const shape = (catalogue: unknown) => new Map(leaves(catalogue).map((l) => [l.path, l.kind === 'function' ? `function/${(l.value as () => unknown).length}` : l.kind]));
    const reference = shape(en);
    const emptyInEnglish = new Set(leaves(en).filter((l) => l.kind === 'string' && (l.value as string).trim() === '').map((l) => l.path));
    assert.ok(reference.size > 900, `the English catalogue has its keys (${reference.size})`);
    for (const locale of LOCALES) {
      const theirs = shape(messages(locale));
      const missing = [...reference.keys()].filter((k) => !theirs.has(k));
      const extra = [...theirs.keys()].filter((k) => !reference.has(k));
      const differs = [...reference].filter(([k, kind]) => theirs.has(k) && theirs.get(k) !== kind).map(([k]) => k);
      assert.deepEqual({ missing, extra, differs }, { missing: [], extra: [], differs: [] }, `${locale} against en`);
      // Empty only where English is empty on purpose (docs.englishOnly: no note needed in English).
      const empty = leaves(messages(locale)).filter((l) => l.kind === 'string' && (l.value as string).trim() === '' && en !== messages(locale));
      assert.deepEqual(empty.map((l) => l.path).filter((p) => !emptyInEnglish.has(p)), [], `${locale}: no empty strings`);
    }
  });

  it('have, for every people-only language as written, exactly the people sections: every key, none empty, none copied from English', () => {
    const people = peopleOf(en);
    const shape = (catalogue: unknown) => new Map(leaves(catalogue).map((l) => [l.path, l.kind === 'function' ? `function/${(l.value as () => unknown).length}` : l.kind]));
    const reference = shape(people);
    const english = new Map(leaves(people).map((l) => [l.path, l.value]));
    // Spanish legal terms, named in Spanish in every language (as the immigration offices do).
    const sharedNames = /^reference\.areas\.(?:arraigo-[a-z]+|second-chance-arraigo)$/;
    assert.ok(peopleCatalogues().length >= 1, 'French at least');
    for (const [locale, catalogue] of peopleCatalogues()) {
      assert.ok(LOCALES.includes(locale), `${locale} is enabled`);
      assert.ok(LOCALE_INFO[locale] && LEGAL_CHROME[locale].prevails, `${locale}: its Intl tag, direction and name, and the legal pages' words`);
      assert.equal(messages(locale).dashboard, en.dashboard, `${locale}: the developer area in English (DEVELOPER_FALLBACK)`);
      assert.deepEqual(Object.keys(catalogue).sort(), [...PEOPLE_SECTIONS].sort(), `${locale}: the people sections, no developer section`);
      const theirs = shape(catalogue);
      const missing = [...reference.keys()].filter((k) => !theirs.has(k));
      const extra = [...theirs.keys()].filter((k) => !reference.has(k));
      const differs = [...reference].filter(([k, kind]) => theirs.has(k) && theirs.get(k) !== kind).map(([k]) => k);
      assert.deepEqual({ missing, extra, differs }, { missing: [], extra: [], differs: [] }, `${locale} against en`);
      const strings = leaves(catalogue).filter((l) => l.kind === 'string');
      assert.deepEqual(strings.filter((l) => (l.value as string).trim() === '').map((l) => l.path), [], `${locale}: no empty strings`);
      const copied = strings.filter((l) => english.get(l.path) === l.value && /\S\s+\S/.test(l.value as string) && (l.value as string).length >= 8 && !sharedNames.test(l.path));
      assert.deepEqual(copied.map((l) => l.path), [], `${locale}: English left untranslated`);
      // Every function of numbers gives whole text for any count (0, 1, 2, 5, 21, 1000 through the
      // language's plural rules: no form missing, no `#` left); which ones take numbers, English tells.
      const call = (fn: unknown, n: number): string | null => {
        try {
          const out = (fn as (...a: unknown[]) => unknown)(...Array((fn as () => unknown).length).fill(n));
          return typeof out === 'string' ? out : null;
        } catch {
          return null;
        }
      };
      for (const l of leaves(catalogue).filter((x) => x.kind === 'function')) {
        for (const n of [0, 1, 2, 5, 21, 1000]) {
          const model = call(english.get(l.path), n);
          if (model === null || /undefined|NaN|\[object/.test(model)) continue; // takes text or an object: checked on the pages
          const out = call(l.value, n);
          assert.ok(out !== null && out.trim() !== '' && !/undefined|NaN|#/.test(out), `${locale} ${l.path}(${n}): ${out}`);
        }
      }
    }
  });

  it('write French as French readers expect: their names, plural rules, vous, no masculine default, no-break spaces', () => {
    assert.equal(practiceAreaName('fr', 'family-reunification', 'x'), 'Regroupement familial');
    assert.equal(languageName('fr', 'ar'), 'arabe');
    assert.equal(listOf('fr', ['espagnol', 'arabe', 'français']), 'espagnol, arabe et français');
    assert.equal(zoneName('fr', 'Europe/Madrid'), 'heure de la péninsule');
    assert.equal(zoneName('fr', 'Atlantic/Canary'), 'heure des Canaries');
    assert.equal(fr.confirm.lawyerTime(zoneName('fr', 'Atlantic/Canary')), 'heure des Canaries, celle du cabinet');
    // French counts 0 and 1 as singular.
    assert.equal(fr.home.resultsCount(0), '0 résultat');
    assert.equal(fr.home.resultsCount(1), '1 résultat');
    assert.equal(fr.home.resultsCount(2), '2 résultats');
    assert.equal(fr.bookingPath.minutesLeft(1), 'il reste 1 minute');
    assert.equal(fr.bookingPath.minutesLeft(15), 'il reste 15 minutes');
    assert.equal(fr.home.resultsCount(1000), '1\u202f000 résultats', 'thousands as French writes them');
    assert.equal(euros(6000, 'fr'), '60,00\u00a0€');
    assert.match(formatDay('2026-11-24', 'fr'), /^mardi 24 novembre 2026$/);
    const strings = leaves(fr).filter((l) => l.kind === 'string').map((l) => ({ path: l.path, text: l.value as string }));
    const filled = (fn: unknown): string => {
      try {
        return String((fn as (...a: unknown[]) => unknown)(...Array((fn as () => unknown).length).fill('X')));
      } catch {
        return String((fn as (...a: unknown[]) => unknown)(...Array((fn as () => unknown).length).fill({ email: 'X', when: 'X', firms: ['X'], consultations: 1, payments: 1, name: 'X', topic: 'X', language: 'X', signedIn: true, message: 'X', reference: 'X' })));
      }
    };
    const texts = [...strings, ...leaves(fr).filter((l) => l.kind === 'function').map((l) => ({ path: l.path, text: filled(l.value) }))];
    // No masculine default: the doublet ("une avocate ou un avocat", "avocates et avocats") or "le cabinet".
    const masculine = texts.filter(({ text }) => /\b(?:avocats?|Bienvenu|développeurs?|opérateurs?)\b|(?:êtes|être|serez) (?:connecté|déconnecté|inscrit)(?![a-zé·])/i.test(text.replace(/avocates? (?:ou|et) (?:un |l’|d’un |les |des |tous les )?avocats?/gi, '')));
    assert.deepEqual(masculine.map((m) => m.path), []);
    // Vous, never tu; a no-break space before : ; ? ! (as French typography has it).
    assert.deepEqual(texts.filter(({ text }) => /(?<!\p{L})(?:tu|ton|ta|tes|toi)(?!\p{L})/iu.test(text)).map((m) => m.path), []);
    assert.deepEqual(texts.filter(({ text }) => / [:;?!](?:\s|$)/.test(text) || /[^\s\u00a0\u202f/][;?!](?:\s|$)|[a-zé)][:](?:\s|$)/i.test(text.replace(/https?:\/\/\S+/g, ''))).map((m) => m.path), []);
  });

  it('name the sections a person who books sees, which later languages must fill', () => {
    for (const section of PEOPLE_SECTIONS) assert.ok(section in en && section in es, section);
    // Every enabled language has its direction and Intl tag; Arabic, prepared, is right-to-left.
    for (const locale of LOCALES) assert.ok(LOCALE_INFO[locale], locale);
    assert.equal(textDirection('ar'), 'rtl');
    assert.equal(textDirection('es'), 'ltr');
    assert.equal(textDirection('he'), 'rtl', 'a language outside the table asks Intl');
  });

  it('leave the stylesheet in logical properties, so a right-to-left page mirrors', () => {
    const css = readFileSync(new URL('../../src/site/assets/site.css', import.meta.url), 'utf8');
    const physical = css.split('\n').filter((line) => /(?:margin|padding|border)-(?:left|right)\b|text-align:\s*(?:left|right)\b|float:\s*(?:left|right)\b|(?:^|[\s;{])(?:left|right)\s*:/.test(line));
    assert.deepEqual(physical, [], 'use inline-start/inline-end, start/end');
  });

  it('translate every practice area of the data, and the Spanish ones are Spanish', () => {
    const all = slugs(PRACTICE_AREAS);
    assert.equal(all.length, 51);
    for (const locale of LOCALES) {
      const areas = messages(locale).reference.areas as Record<string, string>;
      assert.deepEqual(all.filter((s) => !areas[s]), [], `${locale}: every area named`);
    }
    assert.equal(practiceAreaName('es', 'family-reunification', 'Family reunification'), 'Reagrupación familiar');
    assert.equal(practiceAreaName('es', 'residence', 'Residence permits'), 'Permisos de residencia');
    assert.equal(practiceAreaName('en', 'residence', 'x'), 'Residence permits');
    assert.equal(practiceAreaName('es', 'an-area-added-later', 'Stored name'), 'Stored name', 'an unknown area shows its stored name');
  });

  it('name languages and time zones as people say them', () => {
    assert.equal(languageName('es', 'ar'), 'árabe');
    assert.equal(languageName('en', 'ar'), 'Arabic');
    assert.equal(languageName('es', 'uk'), 'ucraniano');
    assert.equal(languageName('es', 'zz-!!'), 'zz-!!', 'a malformed code is shown as it is, never an error');
    assert.equal(zoneName('es', 'Europe/Madrid'), 'hora peninsular');
    assert.equal(zoneName('es', 'Atlantic/Canary'), 'hora de Canarias');
    assert.equal(zoneName('en', 'Atlantic/Canary'), 'Canary Islands time');
    assert.match(zoneName('es', 'America/Bogota'), /Colombia/, 'any other zone by Intl, in the language');
    assert.equal(zoneName('es', 'Not/AZone'), 'Not/AZone');
    // Intl's French writes "heure : Royaume-Uni" with an ordinary space; French typography wants a no-break one.
    assert.equal(zoneName('fr', 'Europe/London'), 'heure\u00a0: Royaume-Uni');
  });

  it("word a hold as time left, and the visitor's time as their local time (the Spanish that read wrong)", () => {
    assert.equal(`${es.confirm.heldFor}: ${es.confirm.minutes(14)}`, 'Tiempo para confirmar: quedan 14 minutos');
    assert.equal(es.confirm.minutes(1), 'queda 1 minuto');
    assert.equal(es.confirm.yourTime, 'En tu hora local: ');
    assert.equal(es.confirm.lawyerTime(zoneName('es', 'Atlantic/Canary')), 'hora de Canarias, la del despacho');
    assert.equal(es.book.zoneNote(zoneName('es', 'Europe/Madrid')), 'Las horas están en la hora del despacho: hora peninsular.');
    assert.equal(es.home.resultsCount(1), '1 resultado');
    // No masculine default for the person or the lawyer where neutral wording exists.
    const people = leaves(Object.fromEntries(PEOPLE_SECTIONS.map((s) => [s, es[s]])));
    // The plural too ("Buscar abogados" labelled the home page's search form), unless paired ("abogados y abogadas").
    const masculine = people.filter((l) => l.kind === 'string' && /\b(si eres nuevo|el abogado|al abogado|del abogado|un abogado|los abogados|abogados(?! y abogadas)|Bienvenido)\b/i.test(l.value as string));
    assert.deepEqual(masculine.map((l) => l.path), []);
  });

  it('negotiate the language: the switch, then the account, then Accept-Language, then Spanish', () => {
    assert.equal(negotiateLocale({ query: 'en', cookie: 'es', account: 'es', acceptLanguage: 'es' }), 'en');
    assert.equal(negotiateLocale({ cookie: 'en', account: 'es', acceptLanguage: 'es' }), 'en', 'the remembered switch');
    assert.equal(negotiateLocale({ account: 'en', acceptLanguage: 'es' }), 'en', 'the account beats the browser');
    assert.equal(negotiateLocale({ account: 'xx', acceptLanguage: 'de, en;q=0.5' }), 'en');
    assert.equal(negotiateLocale({ acceptLanguage: 'de, it' }), 'es');
    // A people-only language is negotiated like the others: its regional tags count, q-values rank it.
    assert.equal(negotiateLocale({ acceptLanguage: 'fr-CA, en;q=0.5' }), 'fr');
    assert.equal(negotiateLocale({ acceptLanguage: 'en, fr;q=0.9' }), 'en');
    assert.equal(negotiateLocale({ account: 'fr', acceptLanguage: 'es' }), 'fr', 'a French account beats a Spanish browser');
  });
});

for (const target of databaseTargets()) {
  describe(`every page a person sees, in every language, over real HTTP (${target.name})`, () => {
    let ctx: TestContext;
    let site: string;
    let lawyer: string;
    const english = englishOnly(en, es);

    before(async () => {
      const port = await freePort();
      site = `http://127.0.0.1:${port}`;
      ctx = await createTestContext(target, { config: { siteUrl: site, baseUrl: `${site}/api/v1` } });
      [lawyer] = (await insertLawyers(ctx.database, [
        lawyerRecord({
          name: 'Nadia Benali Ortega',
          city: 'las-palmas-de-gran-canaria',
          bio: 'Abogada de extranjería en Las Palmas.',
          languages: ['es', 'ar', 'fr'],
          practice_areas: [
            { slug: 'family-reunification', is_primary: true },
            { slug: 'student-stay', is_primary: false },
          ],
          weekly_hours: EVERY_DAY_9_TO_14,
          contact_email: 'nadia@despacho.example',
        }),
      ])) as [string];
      ctx.app.services.directoryCache.invalidate();
      await ctx.app.fastify.listen({ port, host: '127.0.0.1' });
    });
    after(async () => ctx?.close());

    /**
     * What must not appear on a page in `locale`: the catalogue's English on any other language's
     * page; on an English page, the Spanish catalogue's own text (English is complete too).
     */
    const foreign = (locale: Locale): string[] => (locale === 'en' ? englishOnly(es, en) : englishOnly(peopleOf(en), peopleOf(messages(locale))));

    /** A page in `locale`: its status, `<html lang dir>`, and no other language's catalogue text in what a person reads. */
    async function inLanguage(locale: Locale, res: Response, status: number, label: string, options: { developerFrame?: boolean } = {}): Promise<string> {
      const html = await res.text();
      assert.equal(res.status, status, `${locale} ${label}: ${html.slice(0, 300)}`);
      assert.ok(html.includes(`<html lang="${locale}" dir="${textDirection(locale)}">`), `${locale} ${label}: <html lang dir>`);
      assert.deepEqual(leftovers(readableText(html), foreign(locale)), [], `${locale} ${label}: another language left on the page`);
      // Everything on the page comes from the sections a people-only language must fill (in
      // Spanish and English, passkeys and connected apps sit in the developer area's frame; in a
      // people-only language they get the people's frame, and this check holds for them too).
      if (!options.developerFrame || isPeopleOnly(locale)) assert.deepEqual(outside(readableText(html), messages(locale), PEOPLE_SECTIONS), [], `${locale} ${label}: text from outside PEOPLE_SECTIONS`);
      return html;
    }
    const spanish = (res: Response, status: number, label: string) => inLanguage('es', res, status, label);

    it('the detectors work: catalogue English on the English page, Spanish on the Spanish one, developer text on a developer page', async () => {
      const browser = new HttpBrowser(site, 'en');
      const html = await (await browser.get('/')).text();
      assert.match(html, /<html lang="en" dir="ltr">/);
      const found = leftovers(readableText(html), english);
      assert.ok(found.includes('Find a lawyer') && found.length > 10, found.join(' | '));
      // And the other way round: Spanish on a page is found by the English pages' check.
      const spanishHtml = await (await new HttpBrowser(site, 'es').get('/')).text();
      assert.ok(leftovers(readableText(spanishHtml), foreign('en')).includes('Buscar abogado/a'));
      // And each people-only language's check finds the English page's English (so it can fail).
      for (const locale of LOCALES.filter(isPeopleOnly)) assert.ok(leftovers(readableText(html), foreign(locale)).includes('Find a lawyer'), locale);
      // And the developer area's text, which people-only languages leave out, is told apart.
      const developer = new HttpBrowser(site, 'en');
      const user = await ctx.app.services.accounts.ensureUser('dev@example.com');
      developer.cookies.set('__Host-consulta_session', (await ctx.app.services.sessions.create(user.id, { ip: '127.0.0.1' })).token);
      const overview = await developer.get('/developer');
      assert.equal(overview.status, 200);
      assert.ok(outside(readableText(await overview.text()), en, PEOPLE_SECTIONS).length > 3, 'the developer overview is outside the people sections');
    });

    // Every language walks the whole booking; a language added to LOCALES is walked too.
    for (const locale of LOCALES) {
      it(`${locale}: a booking from search to My consultations, and its emails, with nothing in another language`, async () => {
        const t = messages(locale);
        const english = foreign(locale);
        const page = (res: Response, status: number, label: string) => inLanguage(locale, res, status, label);
        // What a page shows, and an expected piece of it, with spaces folded (French writes a no-break space before a colon).
        const shows = (html: string, piece: string) => readableText(html).includes(piece.replace(/\s+/g, ' '));
        // readableText folds the no-break space French needs before a colon, so this reads the page's own text:
        // a colon after a letter or an ordinary space, then a space, is a label composed without colon(locale).
        const colonSlips = (html: string) => (locale === 'fr' ? [...html.replace(/<script\b[\s\S]*?<\/script>|<style\b[\s\S]*?<\/style>/gi, '').replace(/<[^>]+>/g, '').matchAll(/.{0,40}[^\u00a0\u202f\d]:(?=\s)/g)].map((m) => m[0].trim()) : []);
        const area = (slug: string) => practiceAreaName(locale, slug, slug);
        const canary = zoneName(locale, 'Atlantic/Canary');
        const email = `amal.${locale}@example.com`;
        const browser = new HttpBrowser(site, locale);

        const home = await page(await browser.get('/'), 200, 'home');
        // Practice areas and languages in the filter by their names in the language; public pages carry alternates.
        assert.ok(shows(home, `— ${area('family-reunification')}`), 'a practice area in the filter');
        assert.ok(shows(home, capitalized(locale, languageName(locale, 'ar'))), 'a language in the filter');
        for (const l of LOCALES) assert.ok(home.includes(`<link rel="alternate" hreflang="${l}" href="${site}/?lang=${l}"/>`), `alternate ${l}`);
        assert.ok(home.includes(`<link rel="alternate" hreflang="x-default" href="${site}/"/>`));

        const results = await page(await browser.get('/?city=las-palmas-de-gran-canaria&practice_area=family'), 200, 'search results');
        assert.ok(shows(results, t.home.resultsCount(1)));
        assert.ok(shows(results, `${area('family-reunification')}${comma(locale)}${area('student-stay')}`), 'the card names its areas');

        const profile = await page(await browser.get(`/lawyers/${lawyer}`), 200, 'profile');
        assert.ok(shows(profile, t.lawyer.speaks(listOf(locale, ['es', 'ar', 'fr'].map((c) => languageName(locale, c))))), 'languages by name, not ISO codes');
        assert.ok(shows(profile, area('family-reunification')));
        for (const l of LOCALES) assert.ok(profile.includes(`<link rel="alternate" hreflang="${l}" href="${site}/lawyers/${lawyer}?lang=${l}"/>`), `the profile in ${l}`);

        const book = await page(await browser.get(`/lawyers/${lawyer}/book`), 200, 'free times');
        assert.ok(shows(book, t.bookingPath.timesNote(null, canary)), 'the zone as people say it');
        const slot = /name="slot" value="([^"]+)"/.exec(book)?.[1];
        assert.ok(slot, 'a free time to choose');
        const held = await browser.post(`/lawyers/${lawyer}/book`, { ...hiddenFields(book, /\/book$/), slot });
        assert.equal(held.status, 303);
        const confirmPath = held.headers.get('location')!;
        assert.match(confirmPath, /^\/confirm\//);

        const hold = await page(await browser.get(confirmPath), 200, 'hold');
        assert.ok(shows(hold, `${t.bookingPath.timeLeftLabel} ${t.bookingPath.minutesLeft(15)} `), 'the countdown is labelled as time left');
        assert.ok(shows(hold, t.bookingPath.lawyerZone(canary)));
        assert.doesNotMatch(hold, /rel="alternate"/, 'a capability link has no alternates');

        const signInPage = await page(await browser.get(`/sign-in?return_to=${encodeURIComponent(confirmPath)}`), 200, 'sign-in');
        assert.doesNotMatch(signInPage, /rel="alternate"/, 'on its way back to a capability link: no alternates');
        assert.match(await page(await browser.get('/sign-in'), 200, 'sign-in'), /rel="alternate" hreflang="en"/);
        const known = await signInMails(ctx.database, email);
        const started = await browser.post('/sign-in', { ...hiddenFields(hold, /^\/sign-in$/), email });
        assert.equal(started.status, 303);
        const codePage = await page(await browser.get('/sign-in/code'), 200, 'sign-in code');
        const wrong = await browser.post('/sign-in/code', { ...hiddenFields(codePage, /^\/sign-in\/code$/), code: '000000' });
        await page(wrong, 422, 'wrong code');
        const code = await mailedCode(ctx.database, email, known);
        const signInMail = await ctx.database.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', email).where('kind', '=', 'sign_in').executeTakeFirstOrThrow();
        assert.match(signInMail.text, /\d{6}/, 'the sign-in email is read while it still has its body');
        assert.deepEqual(leftovers(`${signInMail.subject}\n${signInMail.text}`, english), [], 'the sign-in email');
        const signedIn = await browser.post('/sign-in/code', { ...hiddenFields(codePage, /^\/sign-in\/code$/), code });
        assert.equal(signedIn.status, 303);

        // She speaks Spanish, Arabic and French: a person reading another language is asked first (issue 26).
        if (!['es', 'ar', 'fr'].includes(locale)) {
          const asked = await page(await browser.get(confirmPath), 200, 'hold, language question');
          assert.ok(shows(asked, t.languageMatch.ackLegend), 'the language question, in the language');
          const answered = await browser.post(`${confirmPath}/choices`, { ...hiddenFields(asked, /\/choices$/), language_ack: 'spanish', phone: '612 345 678' });
          assert.equal(answered.status, 303);
        }
        const pay = await page(await browser.get(`${confirmPath}/pay`), 200, 'payment');
        const declined = await browser.post(`${confirmPath}/pay`, { ...hiddenFields(pay, /\/pay$/), number: '4000 0000 0000 0002', expiry: '12/30', cvc: '123' });
        const declinedPage = declined.status === 303 ? await browser.get(declined.headers.get('location')!) : declined;
        const declinedHtml = await page(declinedPage, declinedPage.status, 'card declined');
        assert.ok(shows(declinedHtml, t.pay.errors.card_declined), 'a declined card, said in the language');
        assert.deepEqual(colonSlips(declinedHtml), [], 'the card form, its brand line included, writes its colons as the language does');
        const paid = await browser.post(`${confirmPath}/pay`, { ...hiddenFields(pay, /\/pay$/), number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Amal' });
        assert.equal(paid.status, 303);
        const confirmed = await page(await browser.get(confirmPath), 200, 'confirmation');
        assert.ok(shows(confirmed, t.confirm.titleConfirmed));
        assert.deepEqual(colonSlips(confirmed), [], 'the booking reference and Add to calendar lines write their colons as the language does');

        const mine = await page(await browser.get('/consultations'), 200, 'My consultations');
        assert.doesNotMatch(mine, /rel="alternate"/, "a person's own page has no alternates");
        const detail = /href="(\/consultations\/[0-9a-f-]{36})"/.exec(mine)?.[1];
        assert.ok(detail);
        await page(await browser.get(detail), 200, 'a consultation');
        // The calendar file from My consultations, in the language too (the receipt's is checked below).
        const ics = await (await browser.get(`${detail}.ics`)).text();
        assert.ok(ics.replace(/\r\n[ \t]/g, '').includes(`SUMMARY:${t.mail.invitation.summary('Nadia Benali Ortega')}`), ics);
        await page(await browser.get('/account'), 200, 'Account');

        await ctx.app.services.mail.settled();
        const receipt = await ctx.database.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', email).where('kind', '=', 'consultation_receipt').executeTakeFirstOrThrow();
        assert.ok(receipt.text.includes(`${canary}${comma(locale)}UTC+00:00`), 'the receipt names the zone as people say it');
        assert.deepEqual(leftovers(`${receipt.subject}\n${receipt.text}`, english), [], 'the receipt');
        assert.ok(receipt.text.startsWith(t.mail.receipt.intro), 'the receipt, in the language');
        const notices = await ctx.database.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', 'nadia@despacho.example').execute();
        assert.ok(notices.length > 0);
        for (const notice of notices) assert.deepEqual(leftovers(`${notice.subject}\n${notice.text}`, foreign('es')), [], "the lawyer's notice (always Spanish)");
      });
    }

    // The pages the booking walk does not pass through, in every language but English (whose
    // leftovers are the Spanish catalogue's, checked by the walk): help, contact and a contact
    // form with errors, the legal pages, the switcher, the signed-in person's Account, connected
    // apps, passkeys, the deletion page and an empty My consultations, and the error pages.
    for (const locale of LOCALES.filter((l) => l !== 'en')) {
      it(`${locale}: help, contact, legal, account pages and error pages, with nothing in another language`, async () => {
        const t = messages(locale);
        const page = (res: Response, status: number, label: string, developerFrame = false) => inLanguage(locale, res, status, label, { developerFrame });
        const shows = (html: string, piece: string) => readableText(html).includes(piece.replace(/\s+/g, ' '));
        const browser = new HttpBrowser(site, locale);

        // The switcher: every enabled language, each in its own name and language, this one marked current.
        const help = await page(await browser.get('/help'), 200, 'help');
        for (const l of LOCALES) {
          const link = new RegExp(`<a href="/help\\?lang=${l}" hreflang="${l}" lang="${l}"(?: aria-current="true")?><bdi>${LOCALE_INFO[l]!.name}</bdi></a>`);
          assert.match(help, link, `the switcher names ${l} in itself`);
        }
        assert.match(help, new RegExp(`hreflang="${locale}" lang="${locale}" aria-current="true"`), 'the current language is marked');
        assert.ok(shows(help, t.face.help.topics[0]!.title));

        const contact = await page(await browser.get('/contact'), 200, 'contact');
        assert.ok(shows(contact, t.face.contact.intro));
        const refused = await browser.post('/contact', { ...hiddenFields(contact, /^\/contact$/), name: '', email: 'not-an-address', topic: 'other', message: 'short' });
        const withErrors = await page(refused, 400, 'contact form with errors');
        assert.ok(shows(withErrors, t.face.contact.errors.email), 'the error said in the language');

        // Legal pages: every language has its own text, checked like any other page (no exemption:
        // no part marked as another language); a translation says the Spanish text prevails and links to it.
        for (const legal of LEGAL_PAGES) {
          const html = await page(await browser.get(`/legal/${legal}`), 200, `legal ${legal}`);
          assert.doesNotMatch(html, /<article class="prose" lang=/, `${legal}: the text in the page's language, not marked as another`);
          const doc = legalDocument(legal, locale, { legal: ctx.config.legal, siteUrl: site, contactPath: '/contact', mailRetentionDays: ctx.config.mailRetentionDays, requestLogRetentionDays: ctx.config.requestLogRetentionDays });
          assert.ok(shows(html, doc.title) && shows(html, doc.sections.at(-1)!.heading), `${legal}: its own text`);
          const prevails = LEGAL_CHROME[locale].prevails;
          if (locale === 'es') assert.equal(prevails, null);
          else {
            assert.ok(prevails && shows(html, prevails), `${legal}: the Spanish text prevails, said in the page's language`);
            assert.ok(html.includes(`<a href="/legal/${legal}?lang=es" hreflang="es">`), `${legal}: a link to the Spanish text`);
          }
        }

        // A signed-in person's own pages.
        const user = await ctx.app.services.accounts.ensureUser(`pages.${locale}@example.com`);
        await ctx.database.db.updateTable('users').set({ locale }).where('id', '=', user.id).execute();
        const signed = new HttpBrowser(site, 'en'); // the account's language beats the browser's
        signed.cookies.set('__Host-consulta_session', (await ctx.app.services.sessions.create(user.id, { ip: '127.0.0.1' })).token);
        const account = await page(await signed.get('/account'), 200, 'Account');
        for (const l of LOCALES) assert.match(account, new RegExp(`<option value="${l}"`), `the Account page offers ${l}`);
        assert.match(account, new RegExp(`<option value="${locale}" lang="${locale}" selected`), "the account's language is selected");
        const apps = await page(await signed.get('/account/apps'), 200, 'connected apps', true);
        assert.ok(shows(apps, t.oauth.appsNone));
        await page(await signed.get('/account/passkeys'), 200, 'passkeys', true);
        await page(await signed.get('/account/delete'), 200, 'delete my account');
        const none = await page(await signed.get('/consultations'), 200, 'My consultations, empty');
        assert.ok(shows(none, t.account.none));

        // Error pages.
        await page(await browser.get('/no/such/page'), 404, '404');
        await page(await browser.get('/sign-out'), 405, '405');
        await page(await browser.get(`/lawyers/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`), 404, 'unknown lawyer');
        const bad = await page(await browser.get('/?max_fee_eur=abc'), 400, 'search with a bad value');
        assert.ok(shows(bad, t.home.fixErrors));
        // Said first, above the form: on a phone the form is a screen long, and the field is focused.
        assert.ok(bad.indexOf('class="notice bad" role="alert"') < bad.indexOf('role="search"'), 'the error above the form');
        assert.match(bad, /<input id="f-max_fee_eur"[^>]*autofocus/);
        await page(await browser.get('/confirm/not-a-real-token'), 404, 'unknown confirmation link');
      });
    }

    it('error pages and a form with errors, in Spanish', async () => {
      const browser = new HttpBrowser(site, 'es');
      const missing = await spanish(await browser.get('/no/such/page'), 404, '404');
      assert.doesNotMatch(missing, /rel="alternate"/, 'an error page is no page in any language');
      await spanish(await browser.get('/sign-out'), 405, '405');
      await spanish(await browser.get(`/lawyers/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}`), 404, 'unknown lawyer');
      await spanish(await browser.get('/?max_fee_eur=abc'), 400, 'search with a bad value');
      await spanish(await browser.get('/confirm/not-a-real-token'), 404, 'unknown confirmation link');
    });

    it('the account\'s language beats Accept-Language, and the switch beats both (and is saved on the account)', async () => {
      const browser = new HttpBrowser(site, 'es');
      await browser.get('/sign-in');
      const user = await ctx.app.services.accounts.ensureUser('lang@example.com');
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('id', '=', user.id).execute();
      const session = await ctx.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      browser.cookies.set('__Host-consulta_session', session.token);
      assert.match(await (await browser.get('/consultations')).text(), /<html lang="en" dir="ltr">/, 'the account');
      await spanish(await browser.get('/consultations?lang=es'), 200, 'switched');
      await spanish(await browser.get('/account'), 200, 'remembered');
      const stored = await ctx.database.db.selectFrom('users').select('locale').where('id', '=', user.id).executeTakeFirstOrThrow();
      assert.equal(stored.locale, 'es');
    });
  });
}
