/**
 * The person's cancel and move pages over the real app and database (both): My consultations and
 * the consultation page link to them while the policy allows; the cancel page says the refund (or
 * that there is none) before confirming, and the POST cancels; a page read in time but confirmed
 * late changes nothing and says so; the move page lists her free times in the week strip and the
 * chosen time asks "move it from X to Y?" before the POST moves (no JavaScript needed); a taken
 * time says so and keeps the old one; six simultaneous confirmations move it once; at most
 * MAX_MOVES moves; attacks — another person's consultation
 * (404 on every URL and form), signed out (to sign-in and back), no CSRF token (403) — change nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MOVE_KIND, MOVE_LAWYER_KIND } from '../../src/domain/booking/person-change.service.ts';
import { MAX_MOVES } from '../../src/domain/booking/policy.ts';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { SiteClient, pageText } from '../support/site.ts';

const THU = '2026-11-26';
const TUE = '2026-11-24';
const MON = '2026-11-30';
const DEC1 = '2026-12-01';

for (const target of databaseTargets()) {
  describe(`cancel and move pages (${target.name})`, () => {
    let ctx: TestContext;
    let maria: SignedIn;
    let other: SignedIn;
    let lawyerId: string;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', contact_email: `lucia-${target.name}@despacho.example` })])) as [string];
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

    it('move: the free times in the week strip; a time asks "move it from X to Y?" (GET, no JavaScript), the POST moves; a taken time says so and keeps the old one', async () => {
      const id = await booked(maria, THU, '10');
      const page = await maria.client.get(`/consultations/${id}/move?week=2026-11-23&day=${THU}`);
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /class="week-strip"/);
      // Choosing a time is a GET form: it only asks; nothing moves yet.
      assert.ok(page.body.includes(`<form method="get" action="/consultations/${id}/move">`));
      assert.ok(page.body.includes(`name="to" value="${THU}|12:00:00|13:00:00"`), 'a free time is offered');
      assert.ok(!page.body.includes(`value="${THU}|10:00:00|11:00:00"`), 'its own time is not');
      const ask = await maria.client.get(`/consultations/${id}/move?to=${encodeURIComponent(`${THU}|12:00:00|13:00:00`)}`);
      assert.equal(ask.statusCode, 200);
      assert.match(pageText(ask.body), /Move it from Thursday, 26 November 2026, 10:00 to Thursday, 26 November 2026, 12:00\?/);
      assert.match(ask.body, /name="_csrf" value="[^"]+"/);
      assert.match(ask.body, new RegExp(`name="from" value="${THU}\\|10:00:00"`));
      assert.match(ask.body, /name="moves" value="0"/);
      assert.match(pageText(ask.body), /Yes, move it/);
      assert.equal((await row(id)).start_time, '10:00:00', 'the question moves nothing');
      // A form that did not come from the question is asked it first.
      const unasked = await maria.client.post(`/consultations/${id}/move`, { slot: `${THU}|12:00:00|13:00:00` });
      assert.equal(unasked.statusCode, 303);
      assert.equal(unasked.headers.location, `/consultations/${id}/move?to=${encodeURIComponent(`${THU}|12:00:00|13:00:00`)}`);
      assert.equal((await row(id)).start_time, '10:00:00');
      // Someone takes 13:00 between the question and the confirmation.
      assert.equal((await initiate(ctx, slotBody(lawyerId, THU, '13'), { remoteAddress: '203.0.113.77' })).statusCode, 201);
      const seen = { from: `${THU}|10:00:00`, moves: '0' };
      const taken = await maria.client.post(`/consultations/${id}/move`, { slot: `${THU}|13:00:00|14:00:00`, ...seen });
      assert.equal(taken.statusCode, 409);
      assert.match(pageText(taken.body), /That time was taken a moment ago/);
      assert.equal((await row(id)).start_time, '10:00:00', 'kept');
      // The question for a time that is not free says so and shows the others.
      const gone = await maria.client.get(`/consultations/${id}/move?to=${encodeURIComponent(`${THU}|13:00:00|14:00:00`)}`);
      assert.match(pageText(gone.body), /That time was taken a moment ago/);
      assert.ok(gone.body.includes(`name="to" value="${THU}|12:00:00|13:00:00"`));
      const moved = await maria.client.post(`/consultations/${id}/move`, { slot: `${THU}|12:00:00|13:00:00`, ...seen });
      assert.equal(moved.statusCode, 303);
      const r = await row(id);
      assert.deepEqual([r.slot_date, r.start_time, r.status, r.move_count], [THU, '12:00:00', 'confirmed', 1]);
      assert.match(pageText((await maria.client.get(moved.headers.location as string)).body), /Your consultation has a new time/);
      // The same confirmation again (back button, a second tap): already moved, nothing changes.
      const again = await maria.client.post(`/consultations/${id}/move`, { slot: `${THU}|11:00:00|12:00:00`, ...seen });
      assert.equal(again.statusCode, 409);
      assert.match(pageText(again.body), /It was already moved/);
      assert.equal((await row(id)).start_time, '12:00:00');
      // Malformed slot text: the same helpful pages, never a 500.
      assert.equal((await maria.client.post(`/consultations/${id}/move`, { slot: 'x|y' })).statusCode, 303);
      assert.equal((await maria.client.post(`/consultations/${id}/move`, { slot: 'x|y|z', from: `${THU}|12:00:00`, moves: '1' })).statusCode, 409);
      assert.equal((await maria.client.get(`/consultations/${id}/move?to=x%7Cy%7Cz`)).statusCode, 200);
    });

    it('six simultaneous confirmations of one move: exactly one applies, one pair of emails, the others get the "already moved" page', async () => {
      const id = await booked(maria, MON, '09');
      const lucia = `lucia-${target.name}@despacho.example`;
      const mails = async () => {
        const rows = await ctx.database.db.selectFrom('mail_outbox').select(['kind', 'recipient']).where('kind', 'in', [MOVE_KIND, MOVE_LAWYER_KIND]).execute();
        return [rows.filter((m) => m.kind === MOVE_KIND && m.recipient === maria.email).length, rows.filter((m) => m.kind === MOVE_LAWYER_KIND && m.recipient === lucia).length];
      };
      const before = await mails();
      await maria.client.get(`/consultations/${id}/move?to=${encodeURIComponent(`${MON}|10:00:00|11:00:00`)}`);
      const seen = { from: `${MON}|09:00:00`, moves: '0' };
      const answers = await Promise.all(['10', '11', '12', '13', '10', '12'].map((h) => maria.client.post(`/consultations/${id}/move`, { slot: `${MON}|${h}:00:00|${String(Number(h) + 1)}:00:00`, ...seen })));
      assert.deepEqual(answers.map((a) => a.statusCode).sort(), [303, 409, 409, 409, 409, 409]);
      for (const a of answers.filter((x) => x.statusCode === 409)) assert.match(pageText(a.body), /It was already moved/);
      const r = await row(id);
      assert.equal(r.move_count, 1);
      assert.equal(r.ics_sequence, 1);
      const after = await mails();
      assert.deepEqual([after[0]! - before[0]!, after[1]! - before[1]!], [1, 1], 'one email to each side');
    });

    it(`the cap: after ${MAX_MOVES} moves the page says to cancel and book again, and a move is refused`, async () => {
      const id = await booked(maria, DEC1, '13');
      const move = async (to: string, from: string, moves: number) => {
        const res = await maria.client.post(`/consultations/${id}/move`, { slot: `${DEC1}|${to}:00:00|${String(Number(to) + 1)}:00:00`, from: `${DEC1}|${from}:00:00`, moves: String(moves) });
        return res;
      };
      assert.equal((await move('11', '13', 0)).statusCode, 303);
      // One move left: the question says it is the last.
      const last = await maria.client.get(`/consultations/${id}/move?to=${encodeURIComponent(`${DEC1}|13:00:00|14:00:00`)}`);
      assert.match(pageText(last.body), /After this move it cannot be moved again/);
      assert.equal((await move('13', '11', 1)).statusCode, 303);
      const page = await maria.client.get(`/consultations/${id}/move`);
      assert.match(pageText(page.body), /It has already been moved twice, the most allowed/);
      assert.ok(page.body.includes(`href="/consultations/${id}/cancel"`));
      assert.ok(!page.body.includes('name="to"'), 'no times offered');
      // My consultations offers Cancel, no longer Move.
      const list = await maria.client.get('/consultations');
      assert.ok(!list.body.includes(`href="/consultations/${id}/move"`));
      assert.ok(list.body.includes(`href="/consultations/${id}/cancel"`));
      const third = await move('12', '13', 2);
      assert.equal(third.statusCode, 409);
      assert.match(pageText(third.body), /It has already been moved twice/);
      const r = await row(id);
      assert.deepEqual([r.start_time, r.move_count], ['13:00:00', 2]);
    });

    it('attacks: another person\'s consultation is a 404 on every URL and form, signed out goes to sign-in, no CSRF token is a 403', async () => {
      const victim = await booked(other, THU, '11');
      const refundsBefore = await refundCount();
      await maria.client.get('/consultations');
      for (const path of [`/consultations/${victim}/cancel`, `/consultations/${victim}/move`, '/consultations/not-a-uuid/cancel']) {
        assert.equal((await maria.client.get(path)).statusCode, 404, path);
      }
      assert.equal((await maria.client.post(`/consultations/${victim}/cancel`, { refund: '1' })).statusCode, 404);
      assert.equal((await maria.client.post(`/consultations/${victim}/move`, { slot: `${THU}|09:00:00|10:00:00`, from: `${THU}|11:00:00`, moves: '0' })).statusCode, 404);
      assert.equal((await maria.client.get(`/consultations/${victim}/move?to=${encodeURIComponent(`${THU}|09:00:00|10:00:00`)}`)).statusCode, 404);
      const anon = new SiteClient(ctx.app.fastify);
      const out = await anon.get(`/consultations/${victim}/cancel`);
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, `/sign-in?return_to=${encodeURIComponent(`/consultations/${victim}/cancel`)}`);
      // Her own form without the token: refused by the site.
      assert.equal((await other.client.post(`/consultations/${victim}/cancel`, { refund: '1', _csrf: 'forged' })).statusCode, 403);
      assert.equal((await other.client.post(`/consultations/${victim}/move`, { slot: `${THU}|09:00:00|10:00:00`, from: `${THU}|11:00:00`, moves: '0', _csrf: 'forged' })).statusCode, 403);
      const r = await row(victim);
      assert.deepEqual([r.status, r.start_time], ['confirmed', '11:00:00']);
      assert.equal(await refundCount(), refundsBefore);
    });
  });
}
