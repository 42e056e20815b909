/**
 * Every review can be read (issue 25, item 16), on SQLite and PostgreSQL, over real HTTP: the
 * profile pages its reviews with plain links (no script), newest first in a stable order, every
 * review on exactly one page; a page past the last or a malformed page number is an ordinary
 * page, never an error; the profile says who may review and links how reviews are verified; and
 * a rating is never shown without its count — on the result cards, the profile and the API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messages, type Locale } from '../../src/i18n/index.ts';
import { languageName } from '../../src/i18n/reference.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets } from '../support/databases.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';

const REVIEWS = 17;
const ANSWER = 'Muchas gracias por su confianza; fue un placer ayudarle con la renovación de su permiso de residencia.';
/** Review n (1 = oldest) is dated n days after 1 Jan; its comment names it. */
const dated = (n: number) => new Date(Date.UTC(2026, 0, n, 10)).toISOString();

for (const target of databaseTargets()) {
  describe(`the profile's reviews, paged (${target.name})`, () => {
    let ctx: TestContext;
    let site: string;
    let many: string;
    let none: string;
    const get = async (path: string, language: Locale = 'es') => {
      const res = await fetch(new URL(path, site), { headers: { accept: 'text/html', 'accept-language': language }, redirect: 'manual' });
      return { status: res.status, body: await res.text() };
    };
    /** The review comments on a page, in the order shown. */
    const commentsOn = (html: string) => [...html.matchAll(/Comentario número (\d+)\./g)].map((m) => Number(m[1]));

    before(async () => {
      const port = await freePort();
      site = `http://127.0.0.1:${port}`;
      ctx = await createTestContext(target, { config: { siteUrl: site, baseUrl: `${site}/api/v1` } });
      // Two reviews share a date: the order must still be total (then by id), or pages could repeat one.
      const reviews = Array.from({ length: REVIEWS }, (_, i) => ({ rating: (i % 5) + 1, comment: `Comentario número ${i + 1}.`, date: dated(i === 16 ? 16 : i + 1) }));
      [many, none] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Marta Reviewed Gil', city: 'sevilla', weekly_hours: EVERY_DAY_9_TO_14, reviews }),
        lawyerRecord({ name: 'Nuevo Sin Opiniones', city: 'sevilla', weekly_hours: EVERY_DAY_9_TO_14, reviews: [] }),
      ])) as [string, string];
      // Her answer to the newest review, in Spanish (issue 26 item 5: her words, quoted).
      await ctx.database.db.updateTable('reviews').set({ answer: ANSWER, answered_at: dated(18) }).where('lawyer_id', '=', many).where('comment', '=', `Comentario número ${REVIEWS}.`).execute();
      ctx.app.services.directoryCache.invalidate();
      await ctx.app.fastify.listen({ port, host: '127.0.0.1' });
    });
    after(async () => ctx?.close());

    it('shows the newest five, links the older pages, and every review is on exactly one page', async () => {
      const first = await get(`/lawyers/${many}`);
      assert.equal(first.status, 200);
      assert.match(first.body, /<nav class="pager" aria-label="Páginas de opiniones">/);
      assert.ok(first.body.includes(`href="/lawyers/${many}?reviews=2#reviews"`), 'a plain link to the older reviews');
      assert.match(pageText(first.body), /Página 1 de 4/);
      const seen: number[] = [];
      for (let page = 1; page <= 4; page++) {
        const { status, body } = await get(page === 1 ? `/lawyers/${many}` : `/lawyers/${many}?reviews=${page}`);
        assert.equal(status, 200);
        assert.match(pageText(body), new RegExp(`Página ${page} de 4`));
        if (page > 1) assert.ok(body.includes(`href="/lawyers/${many}${page === 2 ? '' : `?reviews=${page - 1}`}#reviews"`), 'a link back to newer reviews');
        if (page < 4) assert.ok(body.includes(`?reviews=${page + 1}#reviews"`));
        else assert.ok(!body.includes('?reviews=5'), 'no link past the last page');
        const comments = commentsOn(body);
        assert.equal(comments.length, page < 4 ? 5 : 2);
        seen.push(...comments);
      }
      assert.deepEqual(new Set(seen).size, REVIEWS, 'no review repeated, none skipped');
      // Newest first: 17 and 16 share a date (their order is by id), then 15 … 1.
      assert.deepEqual(seen.slice(2), Array.from({ length: 15 }, (_, i) => 15 - i));
      assert.deepEqual(new Set(seen.slice(0, 2)), new Set([16, 17]));
    });

    it('shows the last page for a page past it, and the first for a malformed one, never an error', async () => {
      const past = await get(`/lawyers/${many}?reviews=99`);
      assert.equal(past.status, 200);
      assert.match(pageText(past.body), /Página 4 de 4/);
      for (const bad of ['0', '-1', 'abc', '1e3', '2.5', '99999999999999999999']) {
        const page = await get(`/lawyers/${many}?reviews=${encodeURIComponent(bad)}`);
        assert.equal(page.status, 200, bad);
        assert.match(pageText(page.body), /Página 1 de 4/, bad);
      }
      const empty = await get(`/lawyers/${none}?reviews=3`);
      assert.equal(empty.status, 200);
      assert.ok(!empty.body.includes('class="pager"'), 'one page of reviews needs no pager');
    });

    it('says who may review and links how reviews are verified, in every language', async () => {
      for (const locale of ['es', 'en', 'fr', 'ar', 'uk', 'ro'] as const) {
        const t = messages(locale);
        const { body } = await get(`/lawyers/${many}?lang=${locale}`, locale);
        const text = pageText(body).replaceAll('\u00a0', ' ');
        const plain = (s: string) => s.replaceAll('\u00a0', ' ');
        assert.ok(text.includes(plain(t.lawyer.trust.reviewsVerified)), `${locale}: the sentence`);
        assert.ok(text.includes(t.lawyer.trust.reviewsPage(1, 4)), `${locale}: the page`);
        assert.match(body, new RegExp(`<a href="/help/reviews">${t.reviews.howVerified}</a>`), `${locale}: the link`);
      }
    });

    it("quotes her answer as her words: on an Arabic page in a blockquote lang=\"es\" labelled in Arabic, on the Spanish page unlabelled", async () => {
      const arabic = await get(`/lawyers/${many}?lang=ar`, 'ar');
      assert.equal(arabic.status, 200);
      const label = messages('ar').reviews.answerIn(languageName('ar', 'es'));
      assert.equal(label, 'رد مكتب المحاماة، باللغة الإسبانية');
      assert.ok(arabic.body.includes(`<strong>${label}</strong>`), 'the Arabic label naming Spanish');
      assert.ok(arabic.body.includes(`<blockquote class="review-text" lang="es" dir="ltr">${ANSWER}</blockquote>`), 'the answer quoted as Spanish, left to right');

      const spanish = await get(`/lawyers/${many}`);
      assert.ok(spanish.body.includes(`<blockquote class="review-text" dir="auto">${ANSWER}</blockquote>`), 'quoted, no lang');
      assert.ok(spanish.body.includes(`<strong>${messages('es').reviews.answer}</strong>`));
      assert.ok(!spanish.body.includes(messages('es').reviews.answerIn(languageName('es', 'es'))), 'no language label on its own language');
    });

    it('gives the review count beside every rating: cards, profile and API', async () => {
      const results = await get('/?city=sevilla');
      const card = results.body.split('<li class="card lawyer-card">').find((c) => c.includes(`href="/lawyers/${many}"`));
      assert.ok(card);
      assert.match(pageText(card), /valoración 2,8\/5 · 17 opiniones/);
      const english = await get('/?city=sevilla&lang=en', 'en');
      const enCard = english.body.split('<li class="card lawyer-card">').find((c) => c.includes(`href="/lawyers/${many}"`));
      assert.match(pageText(enCard ?? ''), /rated 2\.8\/5 · 17 reviews/);
      assert.match(pageText((await get(`/lawyers/${many}`)).body), /valoración 2,8\/5 · 17 opiniones/);

      const api = (await (await fetch(`${site}/api/v1/lawyers/search?city=sevilla`)).json()) as { lawyers: Array<{ id: string; average_rating: number | null; review_count: number }> };
      const row = api.lawyers.find((l) => l.id === many);
      assert.deepEqual({ average_rating: row?.average_rating, review_count: row?.review_count }, { average_rating: 2.82, review_count: REVIEWS });
      assert.equal(api.lawyers.find((l) => l.id === none)?.review_count, 0);
      const profile = (await (await fetch(`${site}/api/v1/lawyers/${many}`)).json()) as { review_count: number };
      assert.equal(profile.review_count, REVIEWS);
    });
  });
}
