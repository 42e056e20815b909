/**
 * The person's cancel and move pages over the real app and database (both): My consultations and
 * the consultation page link to them while the policy allows; the cancel page says the refund (or
 * that there is none) before confirming, and the POST cancels; a page read in time but confirmed
 * late changes nothing and says so; the move page lists her free times in the week strip and the
 * POST moves; a taken time says so and keeps the old one; attacks — another person's consultation
 * (404 on every URL and form), signed out (to sign-in and back), no CSRF token (403) — change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { SiteClient, pageText } from '../support/site.ts';

const THU = '2026-11-26';
const TUE = '2026-11-24';

for (const target of databaseTargets()) {
  describe(`cancel and move pages (${target.name})`, () => {
    let ctx: TestContext;
    let maria: SignedIn;
    let other: SignedIn;
    let lawyerId: string;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz' })])) as [string];
      maria = await signedIn(ctx, `maria-${target.name}@example.com`);
      other = await signedIn(ctx, `otra-${target.name}@example.com`);
    });
    after(async () => ctx?.close());

    async function booked(who: SignedIn, date: string, hour: string) {
      const h = await hold(ctx, lawyerId, date, hour);
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, who.userId, GOOD_CARD)).kind, 'confirmed');
      return (await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow()).id;
    }
    const row = (id: string) => ctx.database.db.selectFrom('consultations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const refundCount = async () => (await ctx.database.db.selectFrom('consultation_refunds').select('id').execute()).length;

    it('links on My consultations and the consultation page; cancel in time: the refund is said before confirming, then done', async () => {
      const id = await booked(maria, THU, '09');
      const list = await maria.client.get('/consultations');
      assert.ok(list.body.includes(`href="/consultations/${id}/cancel"`));
      assert.ok(list.body.includes(`href="/consultations/${id}/move"`));
      assert.match(pageText(list.body), /Free cancellation until/);
      const one = await maria.client.get(`/consultations/${id}`);
      assert.ok(one.body.includes(`href="/consultations/${id}/cancel"`));
      const page = await maria.client.get(`/consultations/${id}/cancel`);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /You get all your money back: a refund of €60\.00/);
      assert.match(page.body, /name="refund" value="1"/);
      const res = await maria.client.post(`/consultations/${id}/cancel`, { refund: '1' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/consultations/${id}/cancel?done=1`);
      assert.equal((await row(id)).status, 'cancelled_by_person');
      const done = await maria.client.get(res.headers.location as string);
      assert.match(pageText(done.body), /Your consultation is cancelled/);
      assert.match(pageText(done.body), /Refunded in full|refunded/i);
      // No more links once cancelled.
      assert.ok(!(await maria.client.get('/consultations')).body.includes(`/consultations/${id}/cancel"`));
    });

    it('late: the page says there is no refund; a form read in time and sent late changes nothing and says so', async () => {
      const id = await booked(maria, TUE, '11');
      const inTime = await maria.client.get(`/consultations/${id}/cancel`);
      assert.match(inTime.body, /name="refund" value="1"/);
      const saved = ctx.clock.now().getTime();
      ctx.clock.set(new Date('2026-11-23T11:30:00.000Z'));
      try {
        const stale = await maria.client.post(`/consultations/${id}/cancel`, { refund: '1' });
        assert.equal(stale.statusCode, 409);
        assert.match(pageText(stale.body), /Something changed while you were reading/);
        assert.equal((await row(id)).status, 'confirmed');
        assert.match(pageText(stale.body), /You will not get the €60\.00 back, because it starts in less than 24 hours/);
        assert.match(stale.body, /name="refund" value="0"/);
        assert.match(pageText(stale.body), /Yes, cancel it without a refund/);
        // The move page: no longer possible.
        assert.match(pageText((await maria.client.get(`/consultations/${id}/move`)).body), /It can no longer be moved/);
        const res = await maria.client.post(`/consultations/${id}/cancel`, { refund: '0' });
        assert.equal(res.statusCode, 303);
      } finally {
        ctx.clock.set(new Date(saved));
      }
      assert.equal((await row(id)).status, 'cancelled_by_person');
      assert.equal((await ctx.database.db.selectFrom('consultation_refunds').select('id').where('consultation_id', '=', id).execute()).length, 0);
    });

    it('move: the free times in the week strip, the POST moves; a taken time says so and keeps the old one', async () => {
      const id = await booked(maria, THU, '10');
      const page = await maria.client.get(`/consultations/${id}/move?week=2026-11-23&day=${THU}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /class="week-strip"/);
      assert.ok(page.body.includes(`value="${THU}|12:00:00|13:00:00"`), 'a free time is offered');
      assert.ok(!page.body.includes(`value="${THU}|10:00:00|11:00:00"`), 'its own time is not');
      // Someone takes 13:00 between the page and the tap.
      assert.equal((await initiate(ctx, slotBody(lawyerId, THU, '13'), { remoteAddress: '203.0.113.77' })).statusCode, 201);
      const taken = await maria.client.post(`/consultations/${id}/move`, { slot: `${THU}|13:00:00|14:00:00` });
      assert.equal(taken.statusCode, 409);
      assert.match(pageText(taken.body), /That time was taken a moment ago/);
      assert.equal((await row(id)).start_time, '10:00:00', 'kept');
      const moved = await maria.client.post(`/consultations/${id}/move`, { slot: `${THU}|12:00:00|13:00:00` });
      assert.equal(moved.statusCode, 303);
      const r = await row(id);
      assert.deepEqual([r.slot_date, r.start_time, r.status], [THU, '12:00:00', 'confirmed']);
      assert.match(pageText((await maria.client.get(moved.headers.location as string)).body), /Your consultation has a new time/);
      // Malformed slot text: the same helpful page, never a 500.
      const bad = await maria.client.post(`/consultations/${id}/move`, { slot: 'x|y' });
      assert.equal(bad.statusCode, 409);
    });

    it('attacks: another person\'s consultation is a 404 on every URL and form, signed out goes to sign-in, no CSRF token is a 403', async () => {
      const victim = await booked(other, THU, '11');
      const refundsBefore = await refundCount();
      await maria.client.get('/consultations');
      for (const path of [`/consultations/${victim}/cancel`, `/consultations/${victim}/move`, '/consultations/not-a-uuid/cancel']) {
        assert.equal((await maria.client.get(path)).statusCode, 404, path);
      }
      assert.equal((await maria.client.post(`/consultations/${victim}/cancel`, { refund: '1' })).statusCode, 404);
      assert.equal((await maria.client.post(`/consultations/${victim}/move`, { slot: `${THU}|09:00:00|10:00:00` })).statusCode, 404);
      const anon = new SiteClient(ctx.app.fastify);
      const out = await anon.get(`/consultations/${victim}/cancel`);
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, `/sign-in?return_to=${encodeURIComponent(`/consultations/${victim}/cancel`)}`);
      // Her own form without the token: refused by the site.
      assert.equal((await other.client.post(`/consultations/${victim}/cancel`, { refund: '1', _csrf: 'forged' })).statusCode, 403);
      assert.equal((await other.client.post(`/consultations/${victim}/move`, { slot: `${THU}|09:00:00|10:00:00`, _csrf: 'forged' })).statusCode, 403);
      const r = await row(victim);
      assert.deepEqual([r.status, r.start_time], ['confirmed', '11:00:00']);
      assert.equal(await refundCount(), refundsBefore);
    });
  });
}
