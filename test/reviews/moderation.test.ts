/**
 * Answers, reports and moderation of reviews (issue 20 item 5; docs/reviews.md), on SQLite and
 * PostgreSQL through the real app (inject) with a manual clock:
 * - the lawyer answers once (a second answer is refused, the first stays), only her own reviews
 *   (another lawyer's review id: 404, nothing written), CSRF required;
 * - anyone reports a visible review, signed out (a salted hash, never the address) or signed in
 *   (the account); 10 an hour per reporter, then 429; a hidden review is 404;
 * - the operator hides a review (gone from GET /lawyers/{id}/reviews, the average and the count
 *   change), restores it (back), keeps another (its reports dismissed): each audited;
 *   a non-operator gets 404 on every /operator/reviews URL;
 * - review text, answers and report details with attack strings are escaped in the portal,
 *   the report page and the console.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { operatorSignedIn } from '../support/operator.ts';
import { pageText, SiteClient } from '../support/site.ts';

const ATTACK = '<script>alert("xss")</script><img src=x onerror=alert(1)>';
const ANSWER_ATTACK = '</textarea><script>alert("answer")</script>';
const DETAILS_ATTACK = '"><svg onload=alert("details")>';

for (const target of databaseTargets()) {
  describe(`review answers, reports and moderation (${target.name})`, () => {
    let ctx: TestContext;
    let n = 0;
    before(async () => {
      ctx = await createTestContext(target, { config: { trustProxy: ['127.0.0.1'] } });
    });
    after(async () => ctx?.close());

    const db = () => ctx.database.db;

    /** A listed lawyer with reviews 5, 4 and 1 (the 1 carries an attack string), linked to a signed-in account. */
    async function lawyerWithReviews() {
      const i = ++n;
      const [id] = await insertLawyers(ctx.database, [
        lawyerRecord({
          name: `Lucía Moderada ${i}`,
          reviews: [
            { rating: 5, comment: 'Muy clara y puntual.', date: '2026-10-01T10:00:00Z' },
            { rating: 4, comment: null, date: '2026-10-05T10:00:00Z' },
            { rating: 1, comment: ATTACK, date: '2026-10-09T10:00:00Z' },
          ],
        }),
      ]);
      const me = await signedIn(ctx, `lawyer-${i}-${target.name}@example.com`);
      await db().updateTable('lawyers').set({ user_id: me.userId }).where('id', '=', id!).execute();
      const reviews = await db().selectFrom('reviews').select(['id', 'rating']).where('lawyer_id', '=', id!).execute();
      const byRating = (r: number) => reviews.find((x) => Number(x.rating) === r)!.id;
      return { id: id!, me, low: byRating(1), high: byRating(5), mid: byRating(4) };
    }

    const api = async (lawyerId: string) => {
      const res = await ctx.app.fastify.inject({ method: 'GET', url: `/api/v1/lawyers/${lawyerId}/reviews?limit=20` });
      assert.equal(res.statusCode, 200);
      return res.json() as { average_rating: number | null; total_reviews: number; reviews: Array<{ rating: number; comment: string | null }> };
    };
    const anonymous = (ip: string) => new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'accept-language': 'en', 'x-forwarded-for': ip });

    it('the lawyer answers a review once; a second answer is refused and the first stays; the answer is escaped', async () => {
      const l = await lawyerWithReviews();
      const page = await l.me.client.get('/lawyer/reviews');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Reviews/);
      // The client's attack string is shown as text, never as markup.
      assert.ok(!page.body.includes('<script>alert("xss")'), 'comment not raw');
      assert.ok(page.body.includes('&lt;script>alert(') || page.body.includes('&lt;script&gt;alert('), 'comment escaped');
      assert.equal((page.body.match(/name="answer"/g) ?? []).length, 3, 'one form per unanswered review');

      const first = await l.me.client.post(`/lawyer/reviews/${l.low}/answer`, { answer: ANSWER_ATTACK });
      assert.equal(first.statusCode, 303);
      const after1 = await l.me.client.get(first.headers.location as string);
      assert.match(pageText(after1.body), /Your answer is published/);
      assert.ok(!after1.body.includes('</textarea><script>alert("answer")'), 'answer not raw');
      assert.ok(/&lt;\/textarea(&gt;|>)&lt;script/.test(after1.body), 'answer escaped');
      assert.equal((after1.body.match(/name="answer"/g) ?? []).length, 2, 'the answered review has no form any more');

      const second = await l.me.client.post(`/lawyer/reviews/${l.low}/answer`, { answer: 'A second try.' });
      assert.equal(second.statusCode, 409);
      assert.match(pageText(second.body), /already has an answer/);
      const row = await db().selectFrom('reviews').select(['answer', 'answered_at']).where('id', '=', l.low).executeTakeFirstOrThrow();
      assert.equal(row.answer, ANSWER_ATTACK);
      assert.equal(row.answered_at, ctx.clock.now().toISOString());
      // Public: the public page of the report form shows the answer, escaped.
      const report = await anonymous('198.51.100.1').get(`/reviews/${l.low}/report`);
      assert.ok(/&lt;\/textarea(&gt;|>)&lt;script/.test(report.body), 'answer escaped on the report page');
      assert.ok(!report.body.includes('<script>alert("xss")'), 'comment not raw on the report page');
    });

    it('an empty or too long answer is refused with the form back; nothing is written', async () => {
      const l = await lawyerWithReviews();
      await l.me.client.get('/lawyer/reviews');
      const empty = await l.me.client.post(`/lawyer/reviews/${l.high}/answer`, { answer: '   ' });
      assert.equal(empty.statusCode, 400);
      assert.match(pageText(empty.body), /Write the answer/);
      const long = await l.me.client.post(`/lawyer/reviews/${l.high}/answer`, { answer: 'x'.repeat(1001) });
      assert.equal(long.statusCode, 400);
      const bidi = await l.me.client.post(`/lawyer/reviews/${l.high}/answer`, { answer: 'Gracias \u202Eevil' });
      assert.equal(bidi.statusCode, 400);
      const row = await db().selectFrom('reviews').select('answer').where('id', '=', l.high).executeTakeFirstOrThrow();
      assert.equal(row.answer, null);
    });

    it("another lawyer's review is a 404 on the answer form, and nothing is written", async () => {
      const victim = await lawyerWithReviews();
      const attacker = await lawyerWithReviews();
      await attacker.me.client.get('/lawyer/reviews');
      const res = await attacker.me.client.post(`/lawyer/reviews/${victim.high}/answer`, { answer: 'Not yours.' });
      assert.equal(res.statusCode, 404);
      const row = await db().selectFrom('reviews').select('answer').where('id', '=', victim.high).executeTakeFirstOrThrow();
      assert.equal(row.answer, null);
      // Her own page never lists the other lawyer's reviews.
      const page = await attacker.me.client.get('/lawyer/reviews');
      assert.ok(!page.body.includes(victim.high));
      // A person without a lawyer record: the page pointing to /join, not her reviews.
      const person = await signedIn(ctx, `plain-${target.name}@example.com`);
      assert.equal((await person.client.get('/lawyer/reviews')).statusCode, 403);
      // Signed out: to sign-in.
      const out = await anonymous('198.51.100.2').get('/lawyer/reviews');
      assert.equal(out.statusCode, 303);
      assert.match(out.headers.location as string, /^\/sign-in/);
    });

    it('answering and reporting need the CSRF token', async () => {
      const l = await lawyerWithReviews();
      await l.me.client.get('/lawyer/reviews');
      const forged = await l.me.client.post(`/lawyer/reviews/${l.high}/answer`, { answer: 'Forged.', _csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
      const row = await db().selectFrom('reviews').select('answer').where('id', '=', l.high).executeTakeFirstOrThrow();
      assert.equal(row.answer, null);
      const someone = anonymous('198.51.100.3');
      await someone.get(`/reviews/${l.high}/report`);
      const noToken = await someone.post(`/reviews/${l.high}/report`, { reason: 'spam', _csrf: 'forged' });
      assert.equal(noToken.statusCode, 403);
      const reports = await db().selectFrom('review_reports').select('id').where('review_id', '=', l.high).execute();
      assert.equal(reports.length, 0);
    });

    it('a signed-out person reports a review: a hash of the address is kept, never the address; then the thank-you page', async () => {
      const l = await lawyerWithReviews();
      const someone = anonymous('203.0.113.77');
      const form = await someone.get(`/reviews/${l.low}/report`);
      assert.equal(form.statusCode, 200);
      for (const reason of ['not_genuine', 'offensive', 'personal_data', 'spam', 'other']) assert.ok(form.body.includes(`value="${reason}"`));
      assert.match(pageText(form.body), /Why are you reporting it\?/);
      const bad = await someone.post(`/reviews/${l.low}/report`, { reason: 'because', details: '' });
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /Choose a reason/);
      const sent = await someone.post(`/reviews/${l.low}/report`, { reason: 'offensive', details: DETAILS_ATTACK });
      assert.equal(sent.statusCode, 303);
      const thanks = await someone.get(sent.headers.location as string);
      assert.equal(thanks.statusCode, 200);
      assert.match(pageText(thanks.body), /we received your report/);
      assert.match(pageText(thanks.body), /How reviews are verified/);
      const [row] = await db().selectFrom('review_reports').selectAll().where('review_id', '=', l.low).execute();
      assert.ok(row);
      assert.equal(row.user_id, null);
      assert.equal(row.reason, 'offensive');
      assert.equal(row.details, DETAILS_ATTACK);
      assert.match(row.reporter_hash!, /^[0-9a-f]{64}$/);
      assert.ok(!JSON.stringify(row).includes('203.0.113.77'), 'the address itself is not stored');
      // The same address gives the same hash; another address another one.
      assert.equal(ctx.app.services.reviewModeration.reporterHash('203.0.113.77'), row.reporter_hash);
      assert.notEqual(ctx.app.services.reviewModeration.reporterHash('203.0.113.78'), row.reporter_hash);
    });

    it('a signed-in person reports with their account; reports are limited to 10 an hour per reporter', async () => {
      const l = await lawyerWithReviews();
      const person = await signedIn(ctx, `reporter-${target.name}@example.com`);
      await person.client.get(`/reviews/${l.mid}/report`);
      const sent = await person.client.post(`/reviews/${l.mid}/report`, { reason: 'spam' });
      assert.equal(sent.statusCode, 303);
      const [row] = await db().selectFrom('review_reports').selectAll().where('review_id', '=', l.mid).execute();
      assert.equal(row!.user_id, person.userId);
      assert.equal(row!.reporter_hash, null);

      const someone = anonymous('203.0.113.90');
      await someone.get(`/reviews/${l.high}/report`);
      for (let i = 0; i < 10; i++) assert.equal((await someone.post(`/reviews/${l.high}/report`, { reason: 'other' })).statusCode, 303, `report ${i + 1}`);
      const eleventh = await someone.post(`/reviews/${l.high}/report`, { reason: 'other' });
      assert.equal(eleventh.statusCode, 429);
      assert.ok(Number(eleventh.headers['retry-after']) > 0);
      // Another address is not affected; an hour later the first may report again.
      const other = anonymous('203.0.113.91');
      await other.get(`/reviews/${l.high}/report`);
      assert.equal((await other.post(`/reviews/${l.high}/report`, { reason: 'other' })).statusCode, 303);
      ctx.clock.advance(3_600_000);
      assert.equal((await someone.post(`/reviews/${l.high}/report`, { reason: 'other' })).statusCode, 303);
      const count = await db().selectFrom('review_reports').select('id').where('review_id', '=', l.high).execute();
      assert.equal(count.length, 12);
    });

    it('the operator hides a review: gone from the API, the average changes; restore brings it back; both audited', async () => {
      const l = await lawyerWithReviews();
      const before = await api(l.id);
      assert.equal(before.total_reviews, 3);
      assert.equal(before.average_rating, 3.33);
      // Someone reports the 1-star review.
      const someone = anonymous('192.0.2.10');
      await someone.get(`/reviews/${l.low}/report`);
      await someone.post(`/reviews/${l.low}/report`, { reason: 'offensive', details: DETAILS_ATTACK });

      const op = await operatorSignedIn(ctx, `op-hide-${target.name}@example.com`, { steppedUp: true });
      const queue = await op.client.get('/operator/reviews');
      assert.equal(queue.statusCode, 200);
      assert.ok(queue.body.includes(`/operator/reviews/${l.low}`), 'the reported review is in the queue');
      assert.ok(!queue.body.includes('<script>alert("xss")'), 'comment escaped in the queue');
      const detail = await op.client.get(`/operator/reviews/${l.low}`);
      assert.equal(detail.statusCode, 200);
      assert.ok(!detail.body.includes('<svg onload'), 'details escaped in the console');
      assert.ok(detail.body.includes('&lt;svg onload'), 'details shown as text');
      assert.ok(!detail.body.includes('<script>alert("xss")'), 'comment escaped in the console');

      // A reason outside the list, or no note: refused, nothing changes.
      const noNote = await op.client.post(`/operator/reviews/${l.low}/hide`, { reason: 'offensive', note: '' });
      assert.equal(noNote.statusCode, 422);
      const badReason = await op.client.post(`/operator/reviews/${l.low}/hide`, { reason: 'i-dislike-it', note: 'x' });
      assert.equal(badReason.statusCode, 422);
      assert.equal((await api(l.id)).total_reviews, 3);

      const hide = await op.client.post(`/operator/reviews/${l.low}/hide`, { reason: 'offensive', note: 'Insults the lawyer.' });
      assert.equal(hide.statusCode, 303);
      assert.equal(hide.headers.location, '/operator/reviews?done=hidden');
      const hidden = await api(l.id);
      assert.equal(hidden.total_reviews, 2);
      assert.equal(hidden.average_rating, 4.5);
      assert.equal(hidden.reviews.length, 2);
      assert.ok(hidden.reviews.every((r) => r.rating !== 1));
      const row = await db().selectFrom('reviews').select(['hidden_at', 'hidden_reason', 'hidden_by']).where('id', '=', l.low).executeTakeFirstOrThrow();
      assert.equal(row.hidden_reason, 'offensive');
      assert.equal(row.hidden_by, op.userId);
      const lawyer = await db().selectFrom('lawyers').select(['rating_avg', 'rating_key', 'review_count']).where('id', '=', l.id).executeTakeFirstOrThrow();
      assert.deepEqual({ avg: Number(lawyer.rating_avg), key: Number(lawyer.rating_key), count: Number(lawyer.review_count) }, { avg: 4.5, key: 450, count: 2 });
      const open = await db().selectFrom('review_reports').select('resolved_at').where('review_id', '=', l.low).execute();
      assert.ok(open.every((r) => r.resolved_at !== null), 'its reports are resolved');
      // The hidden review: 404 to report, marked in her portal with the reason.
      assert.equal((await anonymous('192.0.2.11').get(`/reviews/${l.low}/report`)).statusCode, 404);
      const portal = await l.me.client.get('/lawyer/reviews');
      assert.match(pageText(portal.body), /Hidden by moderation/);
      assert.match(pageText(portal.body), /insults, threatens or discriminates/i);
      // Hiding again: a conflict, nothing changes.
      assert.equal((await op.client.post(`/operator/reviews/${l.low}/hide`, { reason: 'spam', note: 'again' })).statusCode, 409);

      await op.client.get(`/operator/reviews/${l.low}`);
      const restore = await op.client.post(`/operator/reviews/${l.low}/restore`, { note: 'The lawyer showed it was a real client; the words are harsh but allowed.' });
      assert.equal(restore.statusCode, 303);
      const back = await api(l.id);
      assert.equal(back.total_reviews, 3);
      assert.equal(back.average_rating, 3.33);
      assert.equal((await anonymous('192.0.2.12').get(`/reviews/${l.low}/report`)).statusCode, 200);

      const audit = await db().selectFrom('operator_audit').selectAll().where('target_id', '=', l.low).orderBy('id').execute();
      assert.deepEqual(audit.map((a) => a.action), ['review.hide', 'review.restore']);
      assert.ok(audit.every((a) => a.actor_user_id === op.userId && a.target_type === 'review'));
      assert.equal(JSON.parse(audit[0]!.details).reason, 'offensive');
      assert.equal(JSON.parse(audit[0]!.details).note, 'Insults the lawyer.');
      assert.match(JSON.parse(audit[1]!.details).note, /real client/);
      // The audit log page names both actions.
      const log = await op.client.get('/operator/audit');
      assert.match(pageText(log.body), /Hid a review/);
      assert.match(pageText(log.body), /Restored a review/);
    });

    it('the operator keeps a reported review: its reports are dismissed, it stays, audited', async () => {
      const l = await lawyerWithReviews();
      const someone = anonymous('192.0.2.20');
      await someone.get(`/reviews/${l.high}/report`);
      await someone.post(`/reviews/${l.high}/report`, { reason: 'not_genuine' });
      const op = await operatorSignedIn(ctx, `op-keep-${target.name}@example.com`, { steppedUp: true });
      await op.client.get(`/operator/reviews/${l.high}`);
      const keep = await op.client.post(`/operator/reviews/${l.high}/keep`, { note: '' });
      assert.equal(keep.statusCode, 303);
      const reports = await db().selectFrom('review_reports').select('resolved_at').where('review_id', '=', l.high).execute();
      assert.ok(reports.length === 1 && reports[0]!.resolved_at !== null);
      assert.equal((await api(l.id)).total_reviews, 3);
      const queue = await op.client.get('/operator/reviews');
      assert.ok(!queue.body.includes(`/operator/reviews/${l.high}"`), 'no longer in the queue');
      const audit = await db().selectFrom('operator_audit').select('action').where('target_id', '=', l.high).execute();
      assert.deepEqual(audit.map((a) => a.action), ['review.keep']);
      // Nothing open any more: keeping again is a conflict.
      assert.equal((await op.client.post(`/operator/reviews/${l.high}/keep`, { note: '' })).statusCode, 409);
    });

    it('a decision needs a fresh passkey: without step-up it changes nothing and goes to the step-up page', async () => {
      const l = await lawyerWithReviews();
      const op = await operatorSignedIn(ctx, `op-stale-${target.name}@example.com`, { steppedUp: false });
      await op.client.get(`/operator/reviews/${l.low}`);
      const res = await op.client.post(`/operator/reviews/${l.low}/hide`, { reason: 'spam', note: 'x' });
      assert.equal(res.statusCode, 303);
      assert.match(res.headers.location as string, /step-up/);
      const row = await db().selectFrom('reviews').select('hidden_at').where('id', '=', l.low).executeTakeFirstOrThrow();
      assert.equal(row.hidden_at, null);
    });

    it('a non-operator, signed in or not, gets 404 on every /operator/reviews URL, GET and POST, and nothing changes', async () => {
      const l = await lawyerWithReviews();
      const person = await signedIn(ctx, `nobody-${target.name}@example.com`, { steppedUp: true });
      await person.client.get(`/reviews/${l.low}/report`); // their own valid CSRF token
      const stranger = anonymous('192.0.2.30');
      await stranger.get(`/reviews/${l.low}/report`);
      const routes = ctx.app.routes.filter((r) => (r.method === 'GET' || r.method === 'POST') && r.url.startsWith('/operator/reviews'));
      assert.equal(routes.length, 5);
      for (const r of routes) {
        const url = r.url.replace(':id', l.low);
        for (const client of [person.client, stranger, l.me.client]) {
          const res = r.method === 'GET' ? await client.get(url) : await client.post(url, { reason: 'spam', note: 'probe' });
          assert.equal(res.statusCode, 404, `${r.method} ${url}`);
          assert.doesNotMatch(pageText(res.body), /Reported reviews/);
        }
      }
      const row = await db().selectFrom('reviews').select('hidden_at').where('id', '=', l.low).executeTakeFirstOrThrow();
      assert.equal(row.hidden_at, null);
      assert.equal((await db().selectFrom('operator_audit').select('id').where('target_id', '=', l.low).execute()).length, 0);
    });

    it("deleting the reporter's account keeps the report for the moderation record, without the account", async () => {
      const l = await lawyerWithReviews();
      const person = await signedIn(ctx, `leaving-${target.name}@example.com`);
      await person.client.get(`/reviews/${l.mid}/report`);
      assert.equal((await person.client.post(`/reviews/${l.mid}/report`, { reason: 'spam', details: 'Advertising.' })).statusCode, 303);
      await ctx.app.services.deletion.deleteByOperator({ type: 'operator' }, person.email);
      const rows = await db().selectFrom('review_reports').selectAll().where('review_id', '=', l.mid).execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.user_id, null);
      assert.equal(rows[0]!.reason, 'spam');
    });

    it('unknown review ids: 404 pages, never a 500', async () => {
      const someone = anonymous('192.0.2.40');
      assert.equal((await someone.get('/reviews/not-a-review/report')).statusCode, 404);
      assert.equal((await someone.get("/reviews/'%20or%201=1--/report")).statusCode, 404);
      const op = await operatorSignedIn(ctx, `op-404-${target.name}@example.com`, { steppedUp: true });
      assert.equal((await op.client.get('/operator/reviews/00000000-0000-0000-0000-000000000000')).statusCode, 404);
    });

    it('/help/reviews says how reviews are verified, in every language, and the footer links it', async () => {
      for (const [lang, phrase] of [
        ['en', /How reviews are verified/],
        ['es', /Cómo se verifican las reseñas/],
        ['fr', /Comment les avis sont vérifiés/],
        ['ar', /كيف يتم التحقق من التقييمات/],
        ['uk', /Як перевіряються відгуки/],
        ['ro', /Cum sunt verificate recenziile/],
      ] as const) {
        const res = await ctx.app.fastify.inject({ method: 'GET', url: `/help/reviews?lang=${lang}`, headers: { accept: 'text/html' } });
        assert.equal(res.statusCode, 200, lang);
        assert.match(pageText(res.body), phrase, lang);
        assert.ok(res.body.includes('href="/help/reviews"'), `${lang}: footer link`);
      }
      const help = await ctx.app.fastify.inject({ method: 'GET', url: '/help?lang=en', headers: { accept: 'text/html' } });
      assert.ok(help.body.includes('href="/help/reviews"'));
      const en = pageText((await ctx.app.fastify.inject({ method: 'GET', url: '/help/reviews?lang=en', headers: { accept: 'text/html' } })).body);
      for (const words of [/one review/i, /30 days/, /answer each review once/, /do not pay for reviews/, /advertising, spam or links/, /plain mean/, /“Report” link/]) assert.match(en, words);
    });
  });
}
