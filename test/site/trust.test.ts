/**
 * Trust you can see (docs/site.md#trust), over real HTTP on loopback, on SQLite and PostgreSQL:
 * every result card and the profile carry the verified badge (a link to how we verify); the
 * profile says what was checked (colegio, membership number, date) from the verification in
 * force and never the operator's note; a photo at a fixed size with alt text, else initials;
 * languages by name on every card; length, formats and price on cards and profile; the reviews
 * with their count; the bio in the reader's language, else the default; hostile names, bios and
 * review comments escaped. The cards' facts are batched and cached, and dropped by the same
 * lawyer change feed as the search rows. The verification page exists in all six languages with
 * no other language's text on it.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { replaceBios } from '../../src/db/repositories/lawyer-portal.repository.ts';
import { en } from '../../src/i18n/en.ts';
import { es } from '../../src/i18n/es.ts';
import { formatDay } from '../../src/i18n/format.ts';
import { LOCALES, messages, PEOPLE_SECTIONS, textDirection, type Locale, type Messages } from '../../src/i18n/index.ts';
import { languageName, listOf } from '../../src/i18n/reference.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { englishOnly, leftovers, readableText } from '../support/catalogues.ts';
import { databaseTargets } from '../support/databases.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';

// A real 1×1 PNG: the photo route sniffs the bytes.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
const HOSTILE_BIO = 'Hola <script>alert(1)</script> & <img src=x onerror=alert(2)>';
const HOSTILE_REVIEW = 'Muy bien "><script>alert(3)</script>';
const peopleOf = (catalogue: Messages): Messages => Object.fromEntries(PEOPLE_SECTIONS.map((s) => [s, catalogue[s]])) as unknown as Messages;

for (const target of databaseTargets()) {
  describe(`trust you can see (${target.name})`, () => {
    let ctx: TestContext;
    let site: string;
    let nadia: string;
    let zoe: string;
    const get = async (path: string, language: Locale = 'es') => {
      const res = await fetch(new URL(path, site), { headers: { accept: 'text/html', 'accept-language': language }, redirect: 'manual' });
      return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
    };
    /** The card of `id` on a results page. */
    const cardOf = (html: string, id: string): string => {
      const cards = html.split('<li class="card lawyer-card">').slice(1);
      const card = cards.find((c) => c.includes(`href="/lawyers/${id}"`));
      assert.ok(card, `a card for ${id}`);
      return card;
    };

    before(async () => {
      const port = await freePort();
      site = `http://127.0.0.1:${port}`;
      ctx = await createTestContext(target, { config: { siteUrl: site, baseUrl: `${site}/api/v1` } });
      [nadia, zoe] = (await insertLawyers(ctx.database, [
        lawyerRecord({
          name: 'Nadia Benali Ortega',
          city: 'madrid',
          languages: ['es', 'ar', 'fr'],
          bio: 'Default bio written on the record.',
          consultation_fee_cents: 9000,
          consultation_minutes: 45,
          formats: { video_url: 'https://meet.example.com/nadia', phone: true },
          bar_memberships: [{ bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: true, membership_number: '123456' }],
          weekly_hours: EVERY_DAY_9_TO_14,
          reviews: [
            { rating: 5, comment: HOSTILE_REVIEW, date: '2026-10-01T10:00:00Z' },
            { rating: 4, comment: null, date: '2026-09-01T10:00:00Z' },
            { rating: 1, comment: 'Not a client: never shown', date: '2026-10-02T10:00:00Z', verified_client: false },
          ],
        }),
        lawyerRecord({
          name: 'Zoë O\'Neil "The Best" Díaz',
          city: 'madrid',
          languages: ['uk', 'ro'],
          bio: HOSTILE_BIO,
          consultation_fee_cents: 6000,
          consultation_minutes: 30,
          formats: { office_address: 'Calle Mayor 1, Madrid' },
          weekly_hours: EVERY_DAY_9_TO_14,
        }),
      ])) as [string, string];
      const sha = createHash('sha256').update(PNG).digest('hex');
      await ctx.database.db.insertInto('lawyer_photos').values({ lawyer_id: nadia, content_type: 'image/png', sha256: sha, byte_size: PNG.length, data_base64: PNG.toString('base64'), updated_at: '2026-11-23T08:00:00.000Z' }).execute();
      await replaceBios(ctx.database.db, nadia, { es: 'Abogada de extranjería en Madrid.', en: 'Immigration lawyer in Madrid.' }, '2026-11-23T08:00:00.000Z');
      ctx.app.services.directoryCache.invalidate();
      await ctx.app.fastify.listen({ port, host: '127.0.0.1' });
    });
    after(async () => ctx?.close());

    it('gives every card the badge, the photo or initials at a fixed size, languages by name, length, formats and price', async () => {
      const page = await get('/?city=madrid');
      assert.equal(page.status, 200);
      const a = cardOf(page.body, nadia);
      const b = cardOf(page.body, zoe);
      for (const card of [a, b]) {
        assert.match(card, /<a class="badge-verified" href="\/help\/verification" title="[^"]+">/, 'the badge links to how we verify');
        assert.match(pageText(card), /Abogacía verificada/);
      }
      // The photo: its hashed URL, fixed width and height (no layout shift), alt text with her name.
      const img = /<img class="avatar avatar-56" src="(\/lawyer-photos\/[^"]+)" width="56" height="56" alt="([^"]+)"/.exec(a);
      assert.ok(img, a.slice(0, 600));
      assert.equal(img[2], 'Foto de Nadia Benali Ortega');
      const photo = await fetch(new URL(img[1]!, site));
      assert.equal(photo.status, 200);
      assert.equal(photo.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await photo.arrayBuffer()), PNG);
      // No photo: initials in a circle, hidden from screen readers (her name is beside it).
      assert.match(b, /<span class="avatar avatar-56 avatar-initials" aria-hidden="true">ZO<\/span>/);
      assert.doesNotMatch(b, /<img/);
      // Languages by name, in the page's language.
      const speaks = (codes: string[]) => es.lawyer.speaks(listOf('es', codes.map((c) => languageName('es', c))));
      assert.ok(pageText(a).includes(speaks(['es', 'ar', 'fr'])), pageText(a));
      assert.ok(pageText(b).includes(speaks(['uk', 'ro'])), pageText(b));
      assert.match(speaks(['uk', 'ro']), /ucraniano y rumano/, 'names, not codes');
      // Length, formats and price.
      assert.match(pageText(a), /Consulta de 45 minutos Modalidades: videollamada o teléfono 90,00\s€ por consulta/);
      assert.match(pageText(b), /Consulta de 30 minutos Modalidades: presencial 60,00\s€ por consulta/);
      // The hostile name is text, never markup.
      assert.ok(b.includes('Zoë O&#39;Neil &quot;The Best&quot; Díaz') || b.includes('Zoë O\'Neil &quot;The Best&quot; Díaz'), b.slice(0, 800));
      const english = await get('/?city=madrid&lang=en', 'en');
      assert.match(pageText(cardOf(english.body, nadia)), /45-minute consultation Ways to meet: video call or phone €90\.00 per consultation/);
      assert.match(pageText(cardOf(english.body, nadia)), /Verified lawyer/);
    });

    it('shows on the profile what was checked (never the note), the reviews with their count, the bio in the reader\'s language', async () => {
      const page = await get(`/lawyers/${nadia}`);
      assert.equal(page.status, 200);
      const text = pageText(page.body);
      assert.match(page.body, /<a class="badge-verified" href="\/help\/verification"/);
      assert.match(page.body, /<img class="avatar avatar-96" src="\/lawyer-photos\/[^"]+" width="96" height="96" alt="Foto de Nadia Benali Ortega"/);
      const row = await ctx.database.db.selectFrom('lawyer_verifications').selectAll().where('lawyer_id', '=', nadia).executeTakeFirstOrThrow();
      assert.match(text, /Qué comprobamos Colegio de la abogacía Ilustre Colegio de la Abogacía de Madrid Número de colegiación 123456/);
      assert.ok(text.includes(`Comprobado el ${formatDay(row.verified_at.slice(0, 10), 'es')}`), text);
      assert.ok(text.includes(`Válido hasta el ${formatDay(row.expires_at.slice(0, 10), 'es')}`));
      assert.ok(!text.includes(row.note), 'the operator\'s note is never public');
      assert.match(text, /Consulta de 45 minutos Modalidades: videollamada o teléfono 90,00\s€ por consulta/);
      // Reviews: the verified clients' two, with their count; a comment is text, never markup.
      assert.match(text, /Opiniones \(2 opiniones\)/);
      assert.ok(page.body.includes('Muy bien &quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;') || page.body.includes('Muy bien &quot;>&lt;script>alert(3)&lt;/script>'), 'the comment escaped');
      assert.doesNotMatch(page.body, /<script>alert/);
      assert.match(text, /5 de 5/);
      assert.match(text, /Solo puntuación, sin comentario\./);
      assert.doesNotMatch(text, /Not a client/);
      // Her bio in the reader's language, else the default.
      assert.match(text, /Abogada de extranjería en Madrid\./);
      assert.match(pageText((await get(`/lawyers/${nadia}?lang=en`, 'en')).body), /Immigration lawyer in Madrid\./);
      const french = pageText((await get(`/lawyers/${nadia}?lang=fr`, 'fr')).body);
      assert.match(french, /Default bio written on the record\./);
      assert.match(french, /Consultation de 45 minutes/);
      // No photo, no reviews, a hostile bio: initials, "no reviews yet", the bio as text.
      const other = await get(`/lawyers/${zoe}`);
      assert.equal(other.status, 200);
      assert.match(other.body, /<span class="avatar avatar-96 avatar-initials" aria-hidden="true">ZO<\/span>/);
      assert.match(pageText(other.body), /Todavía no hay opiniones\./);
      assert.doesNotMatch(other.body, /<script>alert|<img src=x/);
      assert.ok(other.body.includes('Hola &lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;img src=x onerror=alert(2)&gt;') || other.body.includes('Hola &lt;script>alert(1)&lt;/script> &amp; &lt;img src=x onerror=alert(2)>'), 'the bio escaped');
    });

    it('reads the cards\' facts in one batch, caches them, and drops them with the lawyer change feed', async () => {
      const trust = ctx.app.services.trust;
      const first = await trust.forLawyers([nadia, zoe]);
      const again = await trust.forLawyers([zoe, nadia]);
      assert.equal(again.get(nadia), first.get(nadia), 'the same object: served from the cache');
      assert.ok(first.get(nadia)?.photoUrl);
      // Her photo removed through the portal: the portal's change feed drops the cached facts.
      const record = await ctx.database.db.selectFrom('lawyers').selectAll().where('id', '=', nadia).executeTakeFirstOrThrow();
      await ctx.app.services.lawyerPortal.removePhoto(record);
      const after = await trust.forLawyers([nadia]);
      assert.equal(after.get(nadia)?.photoUrl, null);
      const card = cardOf((await get('/?city=madrid')).body, nadia);
      assert.match(card, /<span class="avatar avatar-56 avatar-initials" aria-hidden="true">NB<\/span>/, 'the page cache follows (her first surname, issue 25 item 15)');
      // An unknown id is simply absent; nothing throws.
      assert.equal((await trust.forLawyers(['00000000-0000-4000-8000-000000000000'])).size, 0);
    });

    it('explains how we verify lawyers in every language, linked from the footer, with no other language on the page', async () => {
      for (const locale of LOCALES) {
        const page = await get(`/help/verification?lang=${locale}`, locale);
        assert.equal(page.status, 200, locale);
        assert.ok(page.body.includes(`<html lang="${locale}" dir="${textDirection(locale)}">`), locale);
        const t = messages(locale).lawyer.trust.page;
        const text = pageText(page.body);
        for (const part of [t.title, t.checkCensus, t.lasts, t.ends]) assert.ok(text.includes(part), `${locale}: ${part}`);
        assert.match(text, /Censo General de Letrados/);
        assert.match(text, /12/);
        assert.match(page.body, new RegExp(`<a href="/help/verification"[^>]*>${messages(locale).lawyer.trust.howWeVerify}</a>`), `${locale}: in the footer's help column`);
        const foreign = locale === 'en' ? englishOnly(es, en) : englishOnly(peopleOf(en), peopleOf(messages(locale)));
        assert.deepEqual(leftovers(readableText(page.body), foreign), [], `${locale}: another language left on the page`);
        // The profile and the results in that language too.
        for (const path of [`/lawyers/${nadia}?lang=${locale}`, `/?city=madrid&lang=${locale}`]) {
          const other = await get(path, locale);
          assert.equal(other.status, 200);
          assert.deepEqual(leftovers(readableText(other.body).replace(/Default bio written on the record\.|Immigration lawyer in Madrid\.|Not a client: never shown/g, ''), foreign), [], `${locale} ${path}`);
        }
      }
    });
  });
}
