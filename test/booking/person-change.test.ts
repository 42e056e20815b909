/**
 * The person cancels or moves their own consultation (docs/booking-intents.md#cancel-or-move), on
 * both databases, through the real app (demo provider, a scripted wrapper counting its calls) and
 * a real SMTP listener: in time → a full refund (one row, initiated_by 'person'), the time freed,
 * both sides emailed a METHOD:CANCEL invitation of the receipt's UID with a higher SEQUENCE; late →
 * no refund, and a page that promised a refund gets `changed` instead of a surprise; two concurrent
 * cancellations → one refund; a move takes the new time and frees the old one, keeps the payment and
 * the intent untouched, and mails the updated invitation (PUBLISH, same UID, higher SEQUENCE);
 * RACE: a move against another person's hold of the same time — exactly one wins and the loser
 * keeps what it had; six concurrent moves from one page — exactly one applies, one pair of emails;
 * at most MAX_MOVES moves; a move under 24 hours, to a time that is not free, or of someone else's
 * consultation is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { MOVE_KIND, MOVE_LAWYER_KIND, PersonChangeService } from '../../src/domain/booking/person-change.service.ts';
import { MAX_MOVES } from '../../src/domain/booking/policy.ts';
import { moveIfUnchanged } from '../../src/db/repositories/lawyer-consultations.repository.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { GOOD_CARD, ScriptedCardProvider, attemptsOf, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, initiate, isAvailable, slotBody, waitFor } from '../support/booking.ts';
import { sql } from 'kysely';
import { takeHold } from '../../src/db/repositories/schedule.repository.ts';
import { cellsCovering } from '../../src/domain/directory/slots.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const THU = '2026-11-26';
const FRI = '2026-11-27';
const MON = '2026-11-30';
const WED = '2026-11-25';
const DEC1 = '2026-12-01';
const TUE = '2026-11-24'; // 10:00 Madrid = 09:00Z, 25 hours after the test clock's start

for (const target of databaseTargets()) {
  describe(`the person cancels or moves a consultation (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let lawyerId: string;
    let n = 0;
    let address = 0;

    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>' } });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', contact_email: `lucia-${target.name}@despacho.example` })])) as [string];
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });

    /** A paid (captured) consultation of a fresh person (English) at `hour` on `date`. */
    async function booked(date: string, hour: string) {
      const email = `person-${++n}-${target.name}@example.com`;
      const userId = await createUser(ctx, email);
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('id', '=', userId).execute();
      const h = await hold(ctx, lawyerId, date, hour);
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, userId, GOOD_CARD)).kind, 'confirmed');
      const c = await ctx.database.db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { email, userId, intentId: h.id, consultationId: c.id };
    }

    const service = (provider: ScriptedCardProvider) =>
      new PersonChangeService({ database: ctx.database, clock: ctx.clock, config: ctx.config, mail: ctx.app.services.mail, provider, cache: ctx.app.services.directoryCache });
    const refunds = (consultationId: string) => ctx.database.db.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', consultationId).execute();
    const consultation = (id: string) => ctx.database.db.selectFrom('consultations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const intent = (id: string) => ctx.database.db.selectFrom('booking_intents').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const slot = (date: string, hour: string) => {
      const b = slotBody(lawyerId, date, hour);
      return { date, start_time: b.start_time, end_time: b.end_time };
    };

    async function mailsTo(to: string): Promise<ParsedMail[]> {
      await ctx.app.services.mail.settled();
      return Promise.all(smtp.messages.filter((m) => m.to.includes(to)).map((m) => simpleParser(m.raw)));
    }

    function calendarOf(mail: ParsedMail) {
      const attachment = mail.attachments.find((a) => a.contentType === 'text/calendar');
      assert.ok(attachment, 'an .ics attachment');
      const cal = new ICAL.Component(ICAL.parse(attachment.content.toString('utf8')));
      const vevent = cal.getFirstSubcomponent('vevent')!;
      return { method: cal.getFirstPropertyValue('method'), uid: new ICAL.Event(vevent).uid, start: new ICAL.Event(vevent).startDate.toJSDate().toISOString(), status: vevent.getFirstPropertyValue('status'), sequence: Number(vevent.getFirstPropertyValue('sequence')) };
    }

    /** Runs `fn` with the clock at `iso`, then puts it back. */
    async function at<T>(iso: string, fn: () => Promise<T>): Promise<T> {
      const saved = ctx.clock.now().getTime();
      ctx.clock.set(new Date(iso));
      try {
        return await fn();
      } finally {
        ctx.clock.set(new Date(saved));
      }
    }

    it('cancelled in time: refunded in full through the provider, time freed, both sides get METHOD:CANCEL with the same UID and a higher SEQUENCE', async () => {
      const b = await booked(THU, '10');
      assert.equal(await isAvailable(ctx, lawyerId, THU, '10:00:00'), false);
      const receipt = calendarOf((await mailsTo(b.email))[0]!);
      assert.equal(receipt.method, 'PUBLISH');
      const provider = new ScriptedCardProvider(ctx.clock);
      const svc = service(provider);
      assert.equal((await svc.policyFor(b.userId, b.consultationId))?.canCancelWithRefund, true);
      const result = await svc.cancel(b.userId, b.consultationId, { expectRefund: true });
      assert.deepEqual(result, { outcome: 'cancelled', consultationId: b.consultationId, inTime: true, refund: 'refunded' });
      assert.equal(provider.done('refund'), 1);
      const rows = await refunds(b.consultationId);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.initiated_by, 'person');
      assert.equal(rows[0]!.status, 'succeeded');
      assert.equal(rows[0]!.amount_cents, 6000);
      const c = await consultation(b.consultationId);
      assert.equal(c.status, 'cancelled_by_person');
      assert.equal(c.ics_sequence, 1);
      assert.equal(await isAvailable(ctx, lawyerId, THU, '10:00:00'), true, 'freed');
      // The intent is untouched: still confirmed (no event; the spec defines none).
      assert.equal((await intent(b.intentId)).status, 'confirmed');
      const mail = (await mailsTo(b.email)).find((m) => m.subject?.startsWith('Cancelled:'));
      assert.ok(mail, 'the person is told');
      assert.match(mail.text ?? '', /a refund of €60\.00/);
      const cancel = calendarOf(mail);
      assert.equal(cancel.method, 'CANCEL');
      assert.equal(cancel.status, 'CANCELLED');
      assert.equal(cancel.uid, receipt.uid);
      assert.ok(cancel.sequence > receipt.sequence);
      const lawyerMail = (await mailsTo(`lucia-${target.name}@despacho.example`)).find((m) => m.subject?.startsWith('Cancelada por la persona cliente'));
      assert.ok(lawyerMail, 'the lawyer is told, in Spanish');
      assert.match(lawyerMail.text ?? '', /se le reembolsa todo/);
      assert.equal(calendarOf(lawyerMail).uid, receipt.uid);
      assert.equal(calendarOf(lawyerMail).method, 'CANCEL');
      // Again: nothing more.
      assert.equal((await svc.cancel(b.userId, b.consultationId)).outcome, 'not_allowed');
      assert.equal(provider.done('refund'), 1);
    });

    it('late (under 24 hours): a page that promised a refund changes nothing; confirmed without one, the time is freed and nothing is refunded', async () => {
      const b = await booked(TUE, '10');
      const provider = new ScriptedCardProvider(ctx.clock);
      const svc = service(provider);
      await at('2026-11-23T10:00:00.000Z', async () => {
        const policy = await svc.policyFor(b.userId, b.consultationId);
        assert.deepEqual({ refund: policy?.canCancelWithRefund, late: policy?.canCancelWithoutRefund, move: policy?.canMove }, { refund: false, late: true, move: false });
        const changed = await svc.cancel(b.userId, b.consultationId, { expectRefund: true });
        assert.equal(changed.outcome, 'changed');
        assert.equal((await consultation(b.consultationId)).status, 'confirmed', 'nothing done under terms not shown');
        const result = await svc.cancel(b.userId, b.consultationId, { expectRefund: false });
        assert.deepEqual(result, { outcome: 'cancelled', consultationId: b.consultationId, inTime: false, refund: 'none' });
      });
      assert.equal(provider.calls.length, 0, 'no provider call');
      assert.equal((await refunds(b.consultationId)).length, 0);
      assert.equal((await attemptsOf(ctx.database, b.intentId))[0]!.status, 'captured', 'the payment stays');
      assert.equal((await consultation(b.consultationId)).status, 'cancelled_by_person');
      assert.equal(await isAvailable(ctx, lawyerId, TUE, '10:00:00'), true, 'freed for others');
      const mail = (await mailsTo(b.email)).find((m) => m.subject?.startsWith('Cancelled:'));
      assert.match(mail?.text ?? '', /less than 24 hours before the start, so the €60\.00 is not refunded/);
    });

    it('two concurrent cancellations: one proceeds, one refund row, one refund at the provider', async () => {
      const b = await booked(THU, '11');
      const provider = new ScriptedCardProvider(ctx.clock);
      const svc = service(provider);
      const results = await Promise.all([svc.cancel(b.userId, b.consultationId), svc.cancel(b.userId, b.consultationId)]);
      assert.deepEqual(results.map((r) => r.outcome).sort(), ['cancelled', 'not_allowed']);
      assert.equal(provider.done('refund'), 1);
      assert.equal((await refunds(b.consultationId)).length, 1);
      assert.equal((await mailsTo(b.email)).filter((m) => m.subject?.startsWith('Cancelled:')).length, 1, 'one email');
    });

    it('a move takes the new time and frees the old one, keeps the payment and the intent, and sends the updated invitation', async () => {
      const b = await booked(FRI, '09');
      const receipt = calendarOf((await mailsTo(b.email))[0]!);
      const provider = new ScriptedCardProvider(ctx.clock);
      const result = await service(provider).move(b.userId, b.consultationId, slot(FRI, '12'));
      assert.equal(result.outcome, 'moved');
      const c = await consultation(b.consultationId);
      assert.deepEqual(
        { date: c.slot_date, start: c.start_time, end: c.end_time, status: c.status, seq: c.ics_sequence, fromDate: c.moved_from_date, fromStart: c.moved_from_start_time },
        { date: FRI, start: '12:00:00', end: '13:00:00', status: 'confirmed', seq: 1, fromDate: FRI, fromStart: '09:00:00' },
      );
      assert.equal(await isAvailable(ctx, lawyerId, FRI, '09:00:00'), true, 'the old time is free');
      assert.equal(await isAvailable(ctx, lawyerId, FRI, '12:00:00'), false, 'the new time is taken');
      const holds = await ctx.database.db.selectFrom('slot_holds').selectAll().where('booking_intent_id', '=', b.intentId).execute();
      assert.deepEqual(holds.map((h) => [h.slot_date, h.start_time, h.status]), [[FRI, '12:00:00', 'booked']], 'exactly one booked hold, at the new time');
      // The payment is kept; the intent keeps the slot it held and stays confirmed.
      assert.equal(provider.calls.length, 0);
      assert.equal((await attemptsOf(ctx.database, b.intentId))[0]!.status, 'captured');
      const i = await intent(b.intentId);
      assert.deepEqual([i.status, i.slot_date, i.start_time], ['confirmed', FRI, '09:00:00']);
      const mail = (await mailsTo(b.email)).find((m) => m.subject?.startsWith('New time:'));
      assert.ok(mail, 'the person gets the update');
      const update = calendarOf(mail);
      assert.equal(update.method, 'PUBLISH');
      assert.equal(update.uid, receipt.uid, 'same UID');
      assert.ok(update.sequence > receipt.sequence, 'higher SEQUENCE');
      assert.equal(update.start, '2026-11-27T11:00:00.000Z', 'the new time');
      const lawyerMail = (await mailsTo(`lucia-${target.name}@despacho.example`)).find((m) => m.subject?.startsWith('Cambiada por la persona cliente'));
      assert.ok(lawyerMail, 'the lawyer gets the update');
      assert.equal(calendarOf(lawyerMail).uid, receipt.uid);
      assert.equal(calendarOf(lawyerMail).sequence, 1);
      // The calendar download on the site carries the new time and SEQUENCE too.
      const ics = await ctx.app.services.consultations.calendar(b.userId, b.consultationId, 'en');
      assert.match(ics ?? '', /SEQUENCE:1/);
      assert.match(ics ?? '', /DTSTART:20261127T110000Z/);
    });

    it('RACE: a move against another person\'s hold of the same time — exactly one wins, the loser keeps what it had', async () => {
      const rounds: Array<'move' | 'hold'> = [];
      for (const [date, from, to] of [[THU, '09', '13'], [FRI, '10', '13'], [TUE, '11', '13']] as const) {
        const b = await booked(date, from);
        const [moved, held] = await Promise.all([
          service(new ScriptedCardProvider(ctx.clock)).move(b.userId, b.consultationId, slot(date, to)),
          initiate(ctx, slotBody(lawyerId, date, to), { remoteAddress: `203.0.113.${++address}` }),
        ]);
        const moveWon = moved.outcome === 'moved';
        const holdWon = held.statusCode === 201;
        assert.ok(moveWon !== holdWon, `exactly one winner (move: ${moved.outcome}, hold: ${held.statusCode})`);
        rounds.push(moveWon ? 'move' : 'hold');
        const c = await consultation(b.consultationId);
        const holdsAtTarget = await ctx.database.db.selectFrom('slot_holds').selectAll().where('lawyer_id', '=', lawyerId).where('slot_date', '=', date).where('start_time', '=', slot(date, to).start_time).execute();
        assert.equal(holdsAtTarget.length, 1, 'the target time is held once');
        const mine = await ctx.database.db.selectFrom('slot_holds').selectAll().where('booking_intent_id', '=', b.intentId).execute();
        assert.equal(mine.length, 1, 'the consultation holds exactly one time: never both, never neither');
        if (moveWon) {
          assert.equal(c.start_time, slot(date, to).start_time);
          assert.equal(holdsAtTarget[0]!.booking_intent_id, b.intentId);
          assert.equal(await isAvailable(ctx, lawyerId, date, slot(date, from).start_time), true);
        } else {
          assert.equal(c.start_time, slot(date, from).start_time, 'the consultation keeps its time');
          assert.equal(c.ics_sequence, 0);
          assert.equal(mine[0]!.start_time, slot(date, from).start_time);
          assert.notEqual(holdsAtTarget[0]!.booking_intent_id, b.intentId);
        }
      }
      assert.equal(rounds.length, 3);
    });

    it('RACE: six concurrent moves confirmed on the same page — exactly one applies (one pair of emails), the others are already_moved', async () => {
      const b = await booked(WED, '09');
      const lawyerMail = `lucia-${target.name}@despacho.example`;
      const kinds = async () => (await ctx.database.db.selectFrom('mail_outbox').select(['kind', 'recipient']).where('kind', 'in', [MOVE_KIND, MOVE_LAWYER_KIND]).where('recipient', 'in', [b.email, lawyerMail]).execute()).map((m) => `${m.kind} ${m.recipient}`);
      // Rows come back in no particular order (PostgreSQL moves updated rows): compare as multisets.
      const before = await kinds();
      const seen = { date: WED, start_time: '09:00:00', moveCount: 0 };
      const svc = service(new ScriptedCardProvider(ctx.clock));
      // Different targets and the same one twice: the guard is the consultation, not the time.
      const results = await Promise.all(['10', '11', '12', '13', '10', '11'].map((h) => svc.move(b.userId, b.consultationId, slot(WED, h), seen)));
      const outcomes = results.map((r) => r.outcome).sort();
      assert.deepEqual(outcomes, ['already_moved', 'already_moved', 'already_moved', 'already_moved', 'already_moved', 'moved']);
      const won = results.find((r) => r.outcome === 'moved')!;
      assert.equal(won.outcome, 'moved');
      const c = await consultation(b.consultationId);
      assert.deepEqual([c.start_time, c.move_count, c.ics_sequence, c.moved_from_start_time], [won.to.start_time, 1, 1, '09:00:00']);
      const mine = await ctx.database.db.selectFrom('slot_holds').select('start_time').where('booking_intent_id', '=', b.intentId).execute();
      assert.deepEqual(mine.map((h) => h.start_time), [won.to.start_time], 'one time held');
      const sent = await kinds();
      for (const m of before) sent.splice(sent.indexOf(m), 1);
      assert.deepEqual(sent.sort(), [`${MOVE_LAWYER_KIND} ${lawyerMail}`, `${MOVE_KIND} ${b.email}`].sort(), 'one pair of emails');
    });

    it(`the cap: at most ${MAX_MOVES} moves, then not_allowed 'limit' (cancel and book again); a stale page is already_moved`, async () => {
      const b = await booked(DEC1, '09');
      const svc = service(new ScriptedCardProvider(ctx.clock));
      const first = await svc.move(b.userId, b.consultationId, slot(DEC1, '11'), { date: DEC1, start_time: '09:00:00', moveCount: 0 });
      assert.equal(first.outcome, 'moved');
      // The first page again (another tab): already moved, nothing done.
      assert.deepEqual(await svc.move(b.userId, b.consultationId, slot(DEC1, '12'), { date: DEC1, start_time: '09:00:00', moveCount: 0 }), { outcome: 'already_moved' });
      const second = await svc.move(b.userId, b.consultationId, slot(DEC1, '09'), { date: DEC1, start_time: '11:00:00', moveCount: 1 });
      assert.equal(second.outcome, 'moved', 'back to its first time: a second move');
      // Back at the first time, a page from before the first move still does not apply (the count differs).
      assert.deepEqual(await svc.move(b.userId, b.consultationId, slot(DEC1, '12'), { date: DEC1, start_time: '09:00:00', moveCount: 0 }), { outcome: 'already_moved' });
      assert.deepEqual(await svc.move(b.userId, b.consultationId, slot(DEC1, '12'), { date: DEC1, start_time: '09:00:00', moveCount: 2 }), { outcome: 'not_allowed', reason: 'limit' });
      assert.equal((await svc.policyFor(b.userId, b.consultationId))?.canMove, false);
      assert.equal((await svc.policyFor(b.userId, b.consultationId))?.canCancelWithRefund, true, 'it can still be cancelled with a refund');
      const c = await consultation(b.consultationId);
      assert.deepEqual([c.slot_date, c.start_time, c.move_count, c.ics_sequence], [DEC1, '09:00:00', 2, 2]);
      // The database's guard holds on its own too: a third move written straight at the repository changes nothing.
      const third = await ctx.database.db.transaction().execute((tx) =>
        moveIfUnchanged(tx, { id: b.consultationId, userId: b.userId, from: { slot_date: DEC1, start_time: '09:00:00', move_count: 2 }, to: { slot_date: DEC1, start_time: '12:00:00', end_time: '13:00:00' }, maxMoves: MAX_MOVES, at: ctx.clock.now().toISOString() }),
      );
      assert.equal(third, false);
    });

    // PostgreSQL, deterministically: another hold of the target time is inside its transaction
    // when the move reads the time as free; the move then waits on the key, loses it when the
    // other commits, and rolls back — the consultation keeps its old time and its old hold.
    // (SQLite has one writer at a time: the other transaction would hold the whole database, which
    // is the same guarantee by other means and is covered by the race above.)
    if (target.name === 'postgres') it('the move loses inside its transaction: rolled back, the old time still its own', async () => {
      const b = await booked(MON, '10');
      const nowIso = ctx.clock.now().toISOString();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      let holding!: () => void;
      const inside = new Promise<void>((r) => (holding = r));
      const other = ctx.database.db.transaction().execute(async (tx) => {
        const ok = await takeHold(
          tx,
          { lawyer_id: lawyerId, slot_date: MON, start_time: '12:00:00', end_time: '13:00:00', status: 'held', booking_intent_id: null, expires_at: new Date(ctx.clock.now().getTime() + 15 * 60_000).toISOString(), created_at: nowIso, occupied_until: '2026-11-30T12:00:00.000Z' },
          cellsCovering(Date.parse('2026-11-30T11:00:00.000Z'), Date.parse('2026-11-30T12:00:00.000Z')),
          nowIso,
        );
        assert.equal(ok, true);
        holding();
        await gate;
      });
      await inside;
      const moving = service(new ScriptedCardProvider(ctx.clock)).move(b.userId, b.consultationId, slot(MON, '12'));
      // The move is waiting on the other transaction's key (a lock wait), not finished.
      await waitFor('the move to wait on a lock', async () => Number((await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock'`.execute(ctx.database.db)).rows[0]?.n) > 0, 10_000, 20);
      release();
      await other;
      assert.deepEqual(await moving, { outcome: 'unavailable' });
      const c = await consultation(b.consultationId);
      assert.deepEqual([c.slot_date, c.start_time, c.ics_sequence, c.moved_from_date], [MON, '10:00:00', 0, null]);
      const mine = await ctx.database.db.selectFrom('slot_holds').selectAll().where('booking_intent_id', '=', b.intentId).execute();
      assert.deepEqual(mine.map((h) => [h.start_time, h.status]), [['10:00:00', 'booked']], 'its old hold is back: never neither');
      assert.equal(await isAvailable(ctx, lawyerId, MON, '10:00:00'), false);
      assert.equal(await isAvailable(ctx, lawyerId, MON, '12:00:00'), false, 'the other hold has the time');
    });

    it('refused: a move under 24 hours, to a time that is not free or not offered, and someone else\'s consultation', async () => {
      const b = await booked(TUE, '12');
      const other = await booked(THU, '12');
      const svc = service(new ScriptedCardProvider(ctx.clock));
      await at('2026-11-23T12:00:00.000Z', async () => {
        assert.deepEqual(await svc.move(b.userId, b.consultationId, slot(THU, '14')), { outcome: 'not_allowed', reason: 'late' });
      });
      assert.deepEqual(await svc.move(b.userId, b.consultationId, slot(THU, '12')), { outcome: 'unavailable' }, 'taken by another booking');
      assert.deepEqual(await svc.move(b.userId, b.consultationId, { date: THU, start_time: '10:30:00', end_time: '11:30:00' }), { outcome: 'unavailable' }, 'not one of her candidates');
      assert.deepEqual(await svc.move(b.userId, b.consultationId, slot('2026-11-28', '10')), { outcome: 'unavailable' }, 'Saturday: not offered');
      await assert.rejects(svc.move(b.userId, other.consultationId, slot(FRI, '11')), { code: 'not_found' });
      await assert.rejects(svc.cancel(b.userId, other.consultationId), { code: 'not_found' });
      await assert.rejects(svc.cancel(b.userId, 'not-a-uuid'), { code: 'not_found' });
      const c = await consultation(b.consultationId);
      assert.deepEqual([c.slot_date, c.start_time, c.status, c.ics_sequence], [TUE, '12:00:00', 'confirmed', 0]);
      assert.equal((await consultation(other.consultationId)).status, 'confirmed');
      // After the start: nothing at all.
      await at('2026-11-24T11:30:00.000Z', async () => {
        assert.deepEqual(await svc.move(b.userId, b.consultationId, slot(FRI, '11')), { outcome: 'not_allowed', reason: 'closed' });
        assert.equal((await svc.cancel(b.userId, b.consultationId)).outcome, 'not_allowed');
      });
    });
  });
}
