/**
 * The lawyer's own form of address (issue 25, item 12; lawyers.form_of_address), over real HTTP
 * on both databases: she chooses abogada, abogado or neutral wording on /join and in the portal's
 * profile form (a bad value is refused with a message, nothing stored; another lawyer's record is
 * never touched); the verified badge on the cards and the profile, the profile's "About" heading
 * and the portal's "verified until" follow her choice in every language, and read neutrally
 * when she gave none — never the masculine by default.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { byForm } from '../../src/i18n/form-of-address.ts';
import { messages, type Locale } from '../../src/i18n/index.ts';
import { TEST_NOW, testConfig } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { HttpBrowser, hiddenFields } from '../support/http-browser.ts';
import { pageText } from '../support/site.ts';

type Form = Record<string, string | string[]>;
const JOIN: Form = {
  name: 'Amina Benali Ruiz',
  colegio: 'malaga',
  membership_number: '12.345',
  city: 'malaga',
  languages: ['es', 'ar'],
  practice_areas: ['residence', 'arraigo-social'],
  primary_area: 'arraigo-social',
  fee: '65',
  consultation_minutes: '45',
  phone: 'on',
  bio: '',
};
const PROFILE: Form = { name: 'Amina Benali Ruiz', bio_es: '', bio_en: '', languages: ['es', 'ar'], practice_areas: ['arraigo-social'], primary_area: 'arraigo-social', fee: '65' };

/** Each language's badge for a woman, a man, and someone who gave no form (or chose neutral). */
const BADGES: Record<Locale, { female: string; male: string; neutral: string }> = {
  es: { female: 'Abogada verificada', male: 'Abogado verificado', neutral: 'Abogacía verificada' },
  en: { female: 'Verified lawyer', male: 'Verified lawyer', neutral: 'Verified lawyer' },
  fr: { female: 'Avocate vérifiée', male: 'Avocat vérifié', neutral: 'Inscription au barreau vérifiée' },
  ar: { female: 'محامية موثَّقة', male: 'محامٍ موثَّق', neutral: 'عضوية موثَّقة في نقابة المحامين' },
  uk: { female: 'Перевірена адвокатка', male: 'Перевірений адвокат', neutral: 'Членство в колегії перевірено' },
  ro: { female: 'Avocată verificată', male: 'Avocat verificat', neutral: 'Înscriere în barou verificată' },
};

describe('byForm: the one helper that picks her wording', () => {
  it('gives hers, and the neutral one when she gave none or the value is unknown', () => {
    const forms = { female: 'a', male: 'o', neutral: 'e' };
    assert.equal(byForm('female', forms), 'a');
    assert.equal(byForm('male', forms), 'o');
    assert.equal(byForm('neutral', forms), 'e');
    assert.equal(byForm(null, forms), 'e');
    assert.equal(byForm(undefined, forms), 'e');
    assert.equal(byForm('other' as never, forms), 'e');
  });
});

for (const target of databaseTargets()) {
  describe(`her form of address (${target.name}, real HTTP)`, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let site: string;
    let n = 0;
    let ana: string;
    let pablo: string;
    let alex: string;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const config = testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: db.url, rateLimitMultiplier: 1000 });
      server = await startServer(config, { clock: new ManualClock(TEST_NOW) });
      await ensureReferenceData(server.database.db, new Date(TEST_NOW).toISOString());
      [ana, pablo, alex] = (await insertLawyers(
        server.database,
        [
          lawyerRecord({ name: 'Ana Pérez Soto', city: 'granada', weekly_hours: EVERY_DAY_9_TO_14, bio: 'Bio.' }),
          lawyerRecord({ name: 'Pablo Ruiz Gil', city: 'granada', weekly_hours: EVERY_DAY_9_TO_14, bio: 'Bio.' }),
          lawyerRecord({ name: 'Alex Marín Vidal', city: 'granada', weekly_hours: EVERY_DAY_9_TO_14, bio: 'Bio.' }),
        ],
        new Date(TEST_NOW),
      )) as [string, string, string];
      await server.database.db.updateTable('lawyers').set({ form_of_address: 'female' }).where('id', '=', ana).execute();
      await server.database.db.updateTable('lawyers').set({ form_of_address: 'male' }).where('id', '=', pablo).execute();
      server.app.services.directoryCache.invalidate();
    });
    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    async function signedIn(language: string): Promise<{ browser: HttpBrowser; userId: string }> {
      const user = await server.app.services.accounts.ensureUser(`someone-${++n}@example.com`);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      const browser = new HttpBrowser(site, language);
      browser.cookies.set(siteCookies(site).session, session.token);
      return { browser, userId: user.id };
    }
    async function post(browser: HttpBrowser, path: string, form: Form, language: string): Promise<Response> {
      const csrf = hiddenFields(await (await browser.get(path)).text(), new RegExp(`^${path}$`))._csrf!;
      const params = new URLSearchParams({ _csrf: csrf });
      for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      return fetch(`${site}${path}`, {
        method: 'POST',
        headers: { accept: 'text/html', 'accept-language': language, 'content-type': 'application/x-www-form-urlencoded', origin: site, 'sec-fetch-site': 'same-origin', cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        body: params.toString(),
        redirect: 'manual',
      });
    }
    const formOf = async (id: string) => (await server.database.db.selectFrom('lawyers').select('form_of_address').where('id', '=', id).executeTakeFirstOrThrow()).form_of_address;
    const get = async (path: string, language: Locale) => (await fetch(`${site}${path}`, { headers: { accept: 'text/html', 'accept-language': language } })).text();

    it('/join asks how to name her, with a visible legend and three labelled choices, and stores her answer', async () => {
      for (const language of ['es', 'en'] as const) {
        const t = messages(language).join;
        const me = await signedIn(language);
        const html = await (await me.browser.get('/join')).text();
        assert.match(html, new RegExp(`<fieldset class="field join-choices" id="f-form_of_address"[^>]*><legend>${t.formOfAddress}</legend>`));
        for (const form of ['female', 'male', 'neutral'] as const) {
          assert.ok(html.includes(`<input type="radio" name="form_of_address" value="${form}"/> ${t.formsOfAddress[form]}`), `${language}: ${form}`);
        }
      }
      const bad = await signedIn('es');
      const refused = await post(bad.browser, '/join', { ...JOIN, form_of_address: 'señorita' }, 'es');
      assert.equal(refused.status, 422);
      assert.match(pageText(await refused.text()), /Elija abogada, abogado o la forma neutra\./);
      assert.equal(await server.database.db.selectFrom('lawyers').select('id').where('user_id', '=', bad.userId).executeTakeFirst(), undefined, 'nothing stored');

      const her = await signedIn('es');
      const res = await post(her.browser, '/join', { ...JOIN, form_of_address: 'female' }, 'es');
      assert.equal(res.status, 303);
      const row = await server.database.db.selectFrom('lawyers').select(['form_of_address']).where('user_id', '=', her.userId).executeTakeFirstOrThrow();
      assert.equal(row.form_of_address, 'female');

      const none = await signedIn('en');
      assert.equal((await post(none.browser, '/join', { ...JOIN, name: 'Sam Lee Ortiz' }, 'en')).status, 303);
      const unset = await server.database.db.selectFrom('lawyers').select(['form_of_address']).where('user_id', '=', none.userId).executeTakeFirstOrThrow();
      assert.equal(unset.form_of_address, null, 'no choice: null, read as neutral');
    });

    it("the portal's profile form shows her choice and changes it, only hers; the overview's status agrees with it", async () => {
      const me = await signedIn('es');
      const [own] = await insertLawyers(server.database, [lawyerRecord({ name: 'Lucía Gómez Sanz', city: 'granada', weekly_hours: EVERY_DAY_9_TO_14 })], new Date(TEST_NOW));
      await server.database.db.updateTable('lawyers').set({ user_id: me.userId }).where('id', '=', own!).execute();

      const neutral = pageText(await (await me.browser.get('/lawyer')).text());
      assert.match(neutral, /Colegiación verificada hasta el/, 'no form given: neutral wording');
      assert.doesNotMatch(neutral, /Verificad[oa] hasta/);

      const page = await (await me.browser.get('/lawyer/profile')).text();
      assert.match(page, /<legend>Cómo le nombramos<\/legend>/);
      assert.doesNotMatch(page, /name="form_of_address" value="[a-z]+" checked/, 'nothing ticked until she chooses');

      // A hostile value: refused with the field's message, nothing changed.
      const refused = await post(me.browser, '/lawyer/profile', { ...PROFILE, form_of_address: 'x' }, 'es');
      assert.equal(refused.status, 422);
      assert.match(pageText(await refused.text()), /Elija abogada, abogado o la forma neutra\./);
      assert.equal(await formOf(own!), null);

      // Her choice; a forged lawyer id in the form changes nothing but her own record.
      assert.equal((await post(me.browser, '/lawyer/profile', { ...PROFILE, form_of_address: 'female', lawyer_id: pablo }, 'es')).status, 303);
      assert.equal(await formOf(own!), 'female');
      assert.equal(await formOf(pablo), 'male');
      assert.match(await (await me.browser.get('/lawyer/profile')).text(), /name="form_of_address" value="female" checked/);
      assert.match(pageText(await (await me.browser.get('/lawyer')).text()), /Verificada hasta el/);

      assert.equal((await post(me.browser, '/lawyer/profile', { ...PROFILE, form_of_address: 'male' }, 'es')).status, 303);
      assert.match(pageText(await (await me.browser.get('/lawyer')).text()), /Verificado hasta el/);
      // The public profile follows at once (the portal's write drops the cached card facts).
      assert.match(pageText(await get(`/lawyers/${own}`, 'es')), /Abogado verificado/);
    });

    it('the badge on cards and profile, and the "About" heading, are in her form in all six languages, neutral without one', async () => {
      for (const locale of ['es', 'en', 'fr', 'ar', 'uk', 'ro'] as const) {
        const results = await get(`/?city=granada&lang=${locale}`, locale);
        const card = (id: string) => pageText(results.split('<li class="card lawyer-card">').find((c) => c.includes(`href="/lawyers/${id}"`)) ?? '');
        for (const [id, form] of [
          [ana, 'female'],
          [pablo, 'male'],
          [alex, 'neutral'],
        ] as const) {
          assert.ok(card(id).includes(BADGES[locale][form]), `${locale} card, ${form}: ${BADGES[locale][form]}`);
          const profile = pageText(await get(`/lawyers/${id}?lang=${locale}`, locale));
          assert.ok(profile.includes(BADGES[locale][form]), `${locale} profile, ${form}`);
          assert.ok(profile.includes(messages(locale).lawyer.about(form === 'neutral' ? null : form)), `${locale} about, ${form}`);
        }
      }
      // Not the masculine by default: no form given reads neither «محامٍ موثَّق» nor «Перевірений адвокат».
      assert.doesNotMatch(pageText(await get(`/lawyers/${alex}?lang=ar`, 'ar')), /محامٍ موثَّق/);
      assert.doesNotMatch(pageText(await get(`/lawyers/${alex}?lang=uk`, 'uk')), /Перевірений адвокат|Про адвоката/);
      assert.match(pageText(await get(`/lawyers/${ana}?lang=uk`, 'uk')), /Про адвокатку/);
    });

    it('the booking page says whose time it shows in her form: «بتوقيت المحامية» for her, the office’s time without a form; no function source on the page', async () => {
      const times = async (id: string, locale: Locale) => {
        const html = await get(`/lawyers/${id}/book?lang=${locale}`, locale);
        // A catalogue string that became a function and is rendered as a JSX child prints its source.
        assert.doesNotMatch(pageText(html), /=>|function|byForm/, `${locale}: no function source`);
        return pageText(html);
      };
      assert.match(await times(ana, 'ar'), /المواعيد معروضة بتوقيت المحامية \(/);
      assert.match(await times(pablo, 'ar'), /المواعيد معروضة بتوقيت المحامي \(/);
      const neutral = await times(alex, 'ar');
      assert.match(neutral, /المواعيد معروضة بتوقيت مكتب المحاماة \(/);
      assert.doesNotMatch(neutral, /بتوقيت المحامي /, 'not the masculine by default');
      assert.match(await times(ana, 'uk'), /за часом адвокатки \(/);
      assert.match(await times(alex, 'uk'), /за часом адвокатського бюро \(/);
      assert.match(await times(ana, 'ro'), /în ora avocatei \(/);
      for (const locale of ['es', 'en', 'fr'] as const) assert.ok((await times(ana, locale)).length > 0);
    });
  });
}
