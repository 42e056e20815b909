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
import { LOCALES, messages, negotiateLocale, PEOPLE_SECTIONS, textDirection, type Locale } from '../../src/i18n/index.ts';
import { LOCALE_INFO } from '../../src/i18n/locales.ts';
import { capitalized, languageName, listOf, practiceAreaName, zoneName } from '../../src/i18n/reference.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { englishOnly, leaves, leftovers, outside, readableText } from '../support/catalogues.ts';
import { databaseTargets } from '../support/databases.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { HttpBrowser, hiddenFields, mailedCode, signInMails } from '../support/http-browser.ts';

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
    const masculine = people.filter((l) => l.kind === 'string' && /\b(si eres nuevo|el abogado|al abogado|del abogado|un abogado|Bienvenido)\b/i.test(l.value as string));
    assert.deepEqual(masculine.map((l) => l.path), []);
  });

  it('negotiate the language: the switch, then the account, then Accept-Language, then Spanish', () => {
    assert.equal(negotiateLocale({ query: 'en', cookie: 'es', account: 'es', acceptLanguage: 'es' }), 'en');
    assert.equal(negotiateLocale({ cookie: 'en', account: 'es', acceptLanguage: 'es' }), 'en', 'the remembered switch');
    assert.equal(negotiateLocale({ account: 'en', acceptLanguage: 'es' }), 'en', 'the account beats the browser');
    assert.equal(negotiateLocale({ account: 'xx', acceptLanguage: 'fr, en;q=0.5' }), 'en');
    assert.equal(negotiateLocale({ acceptLanguage: 'fr, de' }), 'es');
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
    const foreign = (locale: Locale): string[] => (locale === 'en' ? englishOnly(es, en) : englishOnly(en, messages(locale)));

    /** A page in `locale`: its status, `<html lang dir>`, and no other language's catalogue text in what a person reads. */
    async function inLanguage(locale: Locale, res: Response, status: number, label: string): Promise<string> {
      const html = await res.text();
      assert.equal(res.status, status, `${locale} ${label}: ${html.slice(0, 300)}`);
      assert.ok(html.includes(`<html lang="${locale}" dir="${textDirection(locale)}">`), `${locale} ${label}: <html lang dir>`);
      assert.deepEqual(leftovers(readableText(html), foreign(locale)), [], `${locale} ${label}: another language left on the page`);
      // Everything on the page comes from the sections a people-only language must fill.
      assert.deepEqual(outside(readableText(html), messages(locale), PEOPLE_SECTIONS), [], `${locale} ${label}: text from outside PEOPLE_SECTIONS`);
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
        const text = (html: string) => readableText(html);
        const area = (slug: string) => practiceAreaName(locale, slug, slug);
        const canary = zoneName(locale, 'Atlantic/Canary');
        const email = `amal.${locale}@example.com`;
        const browser = new HttpBrowser(site, locale);

        const home = await page(await browser.get('/'), 200, 'home');
        // Practice areas and languages in the filter by their names in the language; public pages carry alternates.
        assert.ok(text(home).includes(`— ${area('family-reunification')}`), 'a practice area in the filter');
        assert.ok(text(home).includes(capitalized(locale, languageName(locale, 'ar'))), 'a language in the filter');
        for (const l of LOCALES) assert.ok(home.includes(`<link rel="alternate" hreflang="${l}" href="${site}/?lang=${l}"/>`), `alternate ${l}`);
        assert.ok(home.includes(`<link rel="alternate" hreflang="x-default" href="${site}/"/>`));

        const results = await page(await browser.get('/?city=las-palmas-de-gran-canaria&practice_area=family'), 200, 'search results');
        assert.ok(text(results).includes(t.home.resultsCount(1)));
        assert.ok(text(results).includes(`${area('family-reunification')}${comma(locale)}${area('student-stay')}`), 'the card names its areas');

        const profile = await page(await browser.get(`/lawyers/${lawyer}`), 200, 'profile');
        assert.ok(text(profile).includes(t.lawyer.speaks(listOf(locale, ['es', 'ar', 'fr'].map((c) => languageName(locale, c))))), 'languages by name, not ISO codes');
        assert.ok(text(profile).includes(area('family-reunification')));
        for (const l of LOCALES) assert.ok(profile.includes(`<link rel="alternate" hreflang="${l}" href="${site}/lawyers/${lawyer}?lang=${l}"/>`), `the profile in ${l}`);

        const book = await page(await browser.get(`/lawyers/${lawyer}/book`), 200, 'free times');
        assert.ok(text(book).includes(t.bookingPath.timesNote(canary)), 'the zone as people say it');
        const slot = /name="slot" value="([^"]+)"/.exec(book)?.[1];
        assert.ok(slot, 'a free time to choose');
        const held = await browser.post(`/lawyers/${lawyer}/book`, { ...hiddenFields(book, /\/book$/), slot });
        assert.equal(held.status, 303);
        const confirmPath = held.headers.get('location')!;
        assert.match(confirmPath, /^\/confirm\//);

        const hold = await page(await browser.get(confirmPath), 200, 'hold');
        assert.ok(text(hold).includes(`${t.bookingPath.timeLeftLabel} ${t.bookingPath.minutesLeft(15)} `), 'the countdown is labelled as time left');
        assert.ok(text(hold).includes(t.bookingPath.lawyerZone(canary)));
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

        const pay = await page(await browser.get(`${confirmPath}/pay`), 200, 'payment');
        const declined = await browser.post(`${confirmPath}/pay`, { ...hiddenFields(pay, /\/pay$/), number: '4000 0000 0000 0002', expiry: '12/30', cvc: '123' });
        const declinedPage = declined.status === 303 ? await browser.get(declined.headers.get('location')!) : declined;
        assert.ok(text(await page(declinedPage, declinedPage.status, 'card declined')).includes(t.pay.errors.card_declined), 'a declined card, said in the language');
        const paid = await browser.post(`${confirmPath}/pay`, { ...hiddenFields(pay, /\/pay$/), number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Amal' });
        assert.equal(paid.status, 303);
        const confirmed = await page(await browser.get(confirmPath), 200, 'confirmation');
        assert.ok(text(confirmed).includes(t.confirm.titleConfirmed));

        const mine = await page(await browser.get('/consultations'), 200, 'My consultations');
        assert.doesNotMatch(mine, /rel="alternate"/, "a person's own page has no alternates");
        const detail = /href="(\/consultations\/[0-9a-f-]{36})"/.exec(mine)?.[1];
        assert.ok(detail);
        await page(await browser.get(detail), 200, 'a consultation');
        await page(await browser.get('/account'), 200, 'Account');

        await ctx.app.services.mail.settled();
        const receipt = await ctx.database.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', email).where('kind', '=', 'consultation_receipt').executeTakeFirstOrThrow();
        assert.ok(receipt.text.includes(`${canary}${comma(locale)}UTC+00:00`), 'the receipt names the zone as people say it');
        assert.deepEqual(leftovers(`${receipt.subject}\n${receipt.text}`, english), [], 'the receipt');
        const notices = await ctx.database.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', 'nadia@despacho.example').execute();
        assert.ok(notices.length > 0);
        for (const notice of notices) assert.deepEqual(leftovers(`${notice.subject}\n${notice.text}`, foreign('es')), [], "the lawyer's notice (always Spanish)");
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
