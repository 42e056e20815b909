/**
 * Free times from the lawyer's offer and calendar (issue 18, step E), end to end on every
 * database: her length, buffer, notice and horizon; busy times of her own calendar; holds of
 * other lengths and grids that can never both commit (slot_cells); a hold made under old hours
 * that is honoured through confirmation; changes visible within a second.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { recordLawyerChanges } from '../../src/db/repositories/reference.repository.ts';
import { replaceBusyIntervals, takeHold } from '../../src/db/repositories/schedule.repository.ts';
import { freeConsultationTime } from '../../src/db/repositories/lawyer-consultations.repository.ts';
import { cellsCovering } from '../../src/domain/directory/slots.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, holdsOf, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

// The suite starts on Monday 2026-11-23 at 09:00 in Madrid (08:00 UTC; CET is UTC+1).
const WED_9_TO_13 = [{ weekday: 3, start_time: '09:00:00', end_time: '13:00:00', slot_minutes: 60 as const }];
const EVERY_DAY_9_TO_13 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '13:00:00', slot_minutes: 60 as const }));
/** Thursday: two ranges, each cut from its own start (09:00–11:15 and 11:15–14:00). */
const THU_TWO_GRIDS = [
  { weekday: 4, start_time: '09:00:00', end_time: '11:15:00', slot_minutes: 60 as const },
  { weekday: 4, start_time: '11:15:00', end_time: '14:00:00', slot_minutes: 60 as const },
];

type Slot = { date: string; start_time: string; end_time: string; available: boolean };

for (const target of databaseTargets()) {
  describe(`free times from the offer and calendar (${target.name})`, () => {
    let ctx: TestContext;
    let offerLawyer: string;
    let gridLawyer: string;
    let raceLawyer: string;
    let changingLawyer: string;
    let busyLawyer: string;
    let lapsedLawyer: string;
    let noticeLawyer: string;
    let user: string;

    const db = () => ctx.database.db;
    const nowIso = () => ctx.clock.now().toISOString();
    const slotsOf = async (lawyer: string, date: string): Promise<Slot[]> => {
      const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer}/availability?start_date=${date}&end_date=${date}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json().slots as Slot[];
    };
    const freeOn = async (lawyer: string, date: string) => (await slotsOf(lawyer, date)).filter((s) => s.available).map((s) => s.start_time.slice(0, 5));
    let address = 0;
    const hold = (body: ReturnType<typeof slotBody>) => initiate(ctx, body, { remoteAddress: `10.77.${(++address >> 8) & 255}.${address & 255}` });
    /** What the lawyer's portal does: write, record the change; a second later every process shows it. */
    const changed = async (lawyer: string) => {
      await recordLawyerChanges(db(), [lawyer], nowIso());
      ctx.clock.advance(1000);
    };
    const setOffer = async (lawyer: string, offer: { consultation_minutes?: number; buffer_minutes?: number; min_notice_minutes?: number | null; horizon_days?: number }) => {
      await db().updateTable('lawyers').set(offer).where('id', '=', lawyer).execute();
      await changed(lawyer);
    };
    const setWeekly = async (lawyer: string, ranges: Array<{ weekday: number; start_time: string; end_time: string }>, length: number) => {
      await db().deleteFrom('lawyer_weekly_hours').where('lawyer_id', '=', lawyer).execute();
      await db().insertInto('lawyer_weekly_hours').values(ranges.map((r) => ({ lawyer_id: lawyer, ...r, slot_minutes: length }))).execute();
      await db().updateTable('lawyers').set({ consultation_minutes: length }).where('id', '=', lawyer).execute();
      await changed(lawyer);
    };
    const cellsOf = async (lawyer: string) =>
      (await db().selectFrom('slot_cells').select(['cell_start', 'slot_date', 'start_time']).where('lawyer_id', '=', lawyer).orderBy('cell_start').execute());

    before(async () => {
      // The directory re-reads the change feed at most once a second, as in production.
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 100_000, directoryRefreshMs: 1000 } });
      [offerLawyer, gridLawyer, raceLawyer, changingLawyer, busyLawyer, lapsedLawyer, noticeLawyer] = await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Offer', weekly_hours: WED_9_TO_13, consultation_minutes: 60 }),
        lawyerRecord({ name: 'Grids', weekly_hours: THU_TWO_GRIDS, consultation_minutes: 60 }),
        lawyerRecord({ name: 'Race', weekly_hours: EVERY_DAY_9_TO_13, consultation_minutes: 60 }),
        lawyerRecord({ name: 'Changing', weekly_hours: WED_9_TO_13, consultation_minutes: 60 }),
        lawyerRecord({ name: 'Busy', weekly_hours: WED_9_TO_13, consultation_minutes: 60 }),
        lawyerRecord({ name: 'Lapsed', weekly_hours: WED_9_TO_13, consultation_minutes: 60 }),
        lawyerRecord({ name: 'Notice', weekly_hours: EVERY_DAY_9_TO_13, consultation_minutes: 60 }),
      ]) as [string, string, string, string, string, string, string];
      await db().updateTable('lawyers').set({ buffer_minutes: 15 }).where('id', '=', gridLawyer).execute();
      user = await createUser(ctx, 'calendar-person@example.com');
    });
    after(() => ctx.close());

    it('cuts her ranges by her length and buffer, and shows an offer change within a second', async () => {
      assert.deepEqual(await freeOn(offerLawyer, '2026-11-25'), ['09:00', '10:00', '11:00', '12:00']);
      // Written by another process: this one still answers from its cache within the second...
      await db().updateTable('lawyers').set({ consultation_minutes: 45, buffer_minutes: 30 }).where('id', '=', offerLawyer).execute();
      await recordLawyerChanges(db(), [offerLawyer], nowIso());
      assert.deepEqual(await freeOn(offerLawyer, '2026-11-25'), ['09:00', '10:00', '11:00', '12:00']);
      // ...and shows the change once the second has passed.
      ctx.clock.advance(1000);
      const slots = await slotsOf(offerLawyer, '2026-11-25');
      assert.deepEqual(slots.map((s) => `${s.start_time.slice(0, 5)}-${s.end_time.slice(0, 5)}`), ['09:00-09:45', '10:15-11:00', '11:30-12:15']);
      // The old 60-minute grid is gone for bookings too.
      assert.equal((await hold(slotBody(offerLawyer, '2026-11-25', '10'))).statusCode, 404);
    });

    it('takes busy times of her own calendar (with her buffer) out, within a second of the feed being written', async () => {
      // 10:20–10:40 Madrid: 10:15–11:00 meets it; 09:00–09:45 + 30 ends at 10:15, and 11:30 − 30 is 11:00.
      await replaceBusyIntervals(db(), offerLawyer, 'ical', [{ starts_at: '2026-11-25T09:20:00.000Z', ends_at: '2026-11-25T09:40:00.000Z' }], nowIso());
      ctx.clock.advance(1000);
      assert.deepEqual(await freeOn(offerLawyer, '2026-11-25'), ['09:00', '11:30']);
      assert.equal((await hold(slotBody(offerLawyer, '2026-11-25', '10:15', 45))).statusCode, 404);
      // Her feed says the time is free again: it is offered again.
      await replaceBusyIntervals(db(), offerLawyer, 'ical', [], nowIso());
      ctx.clock.advance(1000);
      assert.deepEqual(await freeOn(offerLawyer, '2026-11-25'), ['09:00', '10:15', '11:30']);
    });

    it('keeps her buffer between a hold and a neighbouring candidate of another grid', async () => {
      // Thursday, 60 minutes + 15: 09:00, 10:15 (first range) and 11:15, 12:30 (second).
      assert.deepEqual(await freeOn(gridLawyer, '2026-11-26'), ['09:00', '10:15', '11:15', '12:30']);
      const res = await hold(slotBody(gridLawyer, '2026-11-26', '10:15'));
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual((await cellsOf(gridLawyer)).map((c) => c.cell_start), cellsCovering(Date.parse('2026-11-26T09:15:00Z'), Date.parse('2026-11-26T10:30:00Z')));
      // 11:15 starts right at the hold's end: no buffer, not offered, not bookable; 12:30 is.
      assert.deepEqual(await freeOn(gridLawyer, '2026-11-26'), ['09:00', '12:30']);
      assert.equal((await hold(slotBody(gridLawyer, '2026-11-26', '11:15'))).statusCode, 404);
      assert.equal((await hold(slotBody(gridLawyer, '2026-11-26', '12:30'))).statusCode, 201);
    });

    it('lets exactly one of many simultaneous holds on two overlapping grids win', async () => {
      // 10:15–11:15 (+15) and 11:15–12:15 overlap by their cells: 40 requests at once, one 201.
      const bodies = Array.from({ length: 40 }, (_, i) => slotBody(gridLawyer, '2026-12-03', i % 2 === 0 ? '10:15' : '11:15'));
      const responses = await Promise.all(bodies.map((b) => hold(b)));
      const statuses = responses.map((r) => r.statusCode);
      assert.equal(statuses.filter((s) => s === 201).length, 1, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 404).length, 39);
      const winner = responses.find((r) => r.statusCode === 201)!.json();
      const rows = await db().selectFrom('slot_holds').select(['start_time', 'booking_intent_id']).where('lawyer_id', '=', gridLawyer).where('slot_date', '=', '2026-12-03').execute();
      assert.deepEqual(rows.map((r) => r.booking_intent_id), [winner.booking_intent_id]);
      const cells = (await cellsOf(gridLawyer)).filter((c) => c.slot_date === '2026-12-03');
      assert.equal(cells.length, 5, 'the winner\'s 60 minutes + 15 of buffer, nothing of the losers');
      assert.ok(cells.every((c) => c.start_time === rows[0]!.start_time));
    });

    it('never commits two overlapping holds of different lengths made at the same moment', async () => {
      // The hold-taking transaction of the booking service, run twice at once per round: a
      // 60-minute hold at 10:00 (cells 10:00–11:00) and a 45-minute one at 10:30 (10:30–11:15).
      const expires = new Date(ctx.clock.now().getTime() + 15 * 60_000).toISOString();
      for (let day = 0; day < 12; day++) {
        const date = `2026-12-${String(7 + day).padStart(2, '0')}`;
        const take = (start: string, end: string, startUtc: string, endUtc: string) =>
          db().transaction().execute((trx) =>
            takeHold(
              trx,
              { lawyer_id: raceLawyer, slot_date: date, start_time: start, end_time: end, status: 'held', booking_intent_id: null, expires_at: expires, created_at: nowIso(), occupied_until: `${date}T${endUtc}` },
              cellsCovering(Date.parse(`${date}T${startUtc}`), Date.parse(`${date}T${endUtc}`)),
              nowIso(),
            ),
          );
        const results = await Promise.all([take('10:00:00', '11:00:00', '09:00:00Z', '10:00:00Z'), take('10:30:00', '11:15:00', '09:30:00Z', '10:15:00Z')]);
        assert.equal(results.filter(Boolean).length, 1, `${date}: ${JSON.stringify(results)}`);
        const rows = await db().selectFrom('slot_holds').select('start_time').where('lawyer_id', '=', raceLawyer).where('slot_date', '=', date).execute();
        assert.equal(rows.length, 1, `${date}: the loser left no hold`);
        const cells = (await cellsOf(raceLawyer)).filter((c) => c.slot_date === date);
        assert.equal(cells.length, rows[0]!.start_time === '10:00:00' ? 4 : 3, `${date}: only the winner's cells`);
      }
    });

    it('honours a hold made under old hours through confirmation, and shows the new hours within a second', async () => {
      const res = await hold(slotBody(changingLawyer, '2026-11-25', '10'));
      assert.equal(res.statusCode, 201, res.body);
      // She moves her Wednesday to the afternoon, with 30-minute consultations, while it is held.
      await setWeekly(changingLawyer, [{ weekday: 3, start_time: '15:00:00', end_time: '17:00:00' }], 30);
      assert.deepEqual(await freeOn(changingLawyer, '2026-11-25'), ['15:00', '15:30', '16:00', '16:30']);
      assert.equal((await hold(slotBody(changingLawyer, '2026-11-25', '10'))).statusCode, 404, 'the old time is not offered any more');
      const confirmed = await ctx.app.services.booking.confirm(tokenOf(res.json().confirmation_url), user);
      assert.equal(confirmed.outcome, 'confirmed');
      const consultation = await db().selectFrom('consultations').selectAll().where('booking_intent_id', '=', res.json().booking_intent_id).executeTakeFirstOrThrow();
      assert.deepEqual([consultation.slot_date, consultation.start_time, consultation.end_time], ['2026-11-25', '10:00:00', '11:00:00']);
      assert.equal((await holdsOf(ctx.database, changingLawyer, '2026-11-25', '10:00:00'))[0]!.status, 'booked');
      // Back to mornings on the 30-minute grid: the booked hour (and nothing else) is taken.
      await setWeekly(changingLawyer, [{ weekday: 3, start_time: '09:00:00', end_time: '12:00:00' }], 30);
      assert.deepEqual(await freeOn(changingLawyer, '2026-11-25'), ['09:00', '09:30', '11:00', '11:30']);
      assert.equal((await hold(slotBody(changingLawyer, '2026-11-25', '10:30', 30))).statusCode, 404);
      // Cancelled by the lawyer: the time is hers again, and a new hold reclaims the booking's cells.
      await db().updateTable('consultations').set({ status: 'cancelled_by_lawyer' }).where('id', '=', consultation.id).execute();
      await changed(changingLawyer);
      assert.deepEqual(await freeOn(changingLawyer, '2026-11-25'), ['09:00', '09:30', '10:00', '10:30', '11:00', '11:30']);
      assert.equal((await hold(slotBody(changingLawyer, '2026-11-25', '10:30', 30))).statusCode, 201);
      assert.deepEqual(await holdsOf(ctx.database, changingLawyer, '2026-11-25', '10:00:00'), []);
    });

    it('decides consistently when her calendar\'s busy times change while holds are made', async () => {
      for (const date of ['2026-12-02', '2026-12-09', '2026-12-16', '2026-12-23']) {
        const [res] = await Promise.all([
          hold(slotBody(busyLawyer, date, '10')),
          replaceBusyIntervals(db(), busyLawyer, 'ical', [{ starts_at: `${date}T09:30:00.000Z`, ends_at: `${date}T09:45:00.000Z` }], nowIso()),
        ]);
        assert.ok(res.statusCode === 201 || res.statusCode === 404, `${date}: ${res.statusCode} ${res.body}`);
        ctx.clock.advance(1000);
        // Either way the time is not offered now; a hold that was made stands and is honoured.
        assert.equal((await slotsOf(busyLawyer, date)).find((s) => s.start_time === '10:00:00')!.available, false);
        if (res.statusCode === 201) {
          assert.equal((await ctx.app.services.booking.confirm(tokenOf(res.json().confirmation_url), user)).outcome, 'confirmed');
        } else {
          assert.deepEqual(await holdsOf(ctx.database, busyLawyer, date, '10:00:00'), []);
        }
      }
    });

    it('reclaims an expired hold\'s cells for a new hold on another grid, and frees cells with the hold', async () => {
      const first = await hold(slotBody(lapsedLawyer, '2026-11-25', '10'));
      assert.equal(first.statusCode, 201);
      ctx.clock.advance(16 * 60_000); // past the 15-minute hold; not swept yet
      await setOffer(lapsedLawyer, { consultation_minutes: 45 });
      // 09:45–10:30 meets the lapsed hold's cells (10:00–11:00): they give way.
      const second = await hold(slotBody(lapsedLawyer, '2026-11-25', '09:45', 45));
      assert.equal(second.statusCode, 201, second.body);
      assert.deepEqual(await holdsOf(ctx.database, lapsedLawyer, '2026-11-25', '10:00:00'), []);
      assert.deepEqual((await cellsOf(lapsedLawyer)).map((c) => c.start_time), ['09:45:00', '09:45:00', '09:45:00']);
      // When that one expires and is swept, its cells go with it.
      ctx.clock.advance(16 * 60_000);
      await ctx.app.services.booking.expireDue();
      assert.deepEqual(await cellsOf(lapsedLawyer), []);
    });

    it('frees a cancelled booking\'s time and cells when the canceller calls freeConsultationTime', async () => {
      const res = await hold(slotBody(lapsedLawyer, '2026-12-02', '09:45', 45));
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((await ctx.app.services.booking.confirm(tokenOf(res.json().confirmation_url), user)).outcome, 'confirmed');
      assert.equal((await cellsOf(lapsedLawyer)).length, 3);
      assert.ok(!(await freeOn(lapsedLawyer, '2026-12-02')).includes('09:45'));
      await db().transaction().execute(async (trx) => {
        await trx.updateTable('consultations').set({ status: 'cancelled_by_person' }).where('booking_intent_id', '=', res.json().booking_intent_id).execute();
        await freeConsultationTime(trx, res.json().booking_intent_id);
      });
      await changed(lapsedLawyer);
      assert.deepEqual(await cellsOf(lapsedLawyer), []);
      assert.ok((await freeOn(lapsedLawyer, '2026-12-02')).includes('09:45'));
    });

    it('applies her minimum notice (never below the platform\'s) and her horizon', async () => {
      // Monday 09:00: the platform's 2 hours allow 11:00 today.
      await setOffer(noticeLawyer, { min_notice_minutes: 60 });
      assert.equal((await hold(slotBody(noticeLawyer, '2026-11-23', '10'))).statusCode, 404, 'her 60 minutes do not undercut the platform\'s 120');
      await setOffer(noticeLawyer, { min_notice_minutes: 1440 });
      assert.equal((await hold(slotBody(noticeLawyer, '2026-11-23', '12'))).statusCode, 404, 'a day\'s notice');
      const profile = (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${noticeLawyer}` })).json();
      assert.equal(profile.next_available, '2026-11-24');
      assert.equal((await hold(slotBody(noticeLawyer, '2026-11-24', '10'))).statusCode, 201);
      await setOffer(noticeLawyer, { min_notice_minutes: null, horizon_days: 14 });
      // Today and the next 13 days: Sunday 2026-12-06 is the last date offered.
      assert.equal((await freeOn(noticeLawyer, '2026-12-07')).length, 0);
      assert.equal((await hold(slotBody(noticeLawyer, '2026-12-07', '10'))).statusCode, 404);
      // 6 December is a national holiday (closed by default, docs/lawyers.md#holidays): she opened it.
      await ctx.database.db.insertInto('lawyer_holiday_choices').values({ lawyer_id: noticeLawyer, date: '2026-12-06', choice: 'open', created_at: ctx.clock.now().toISOString() }).execute();
      ctx.app.services.directoryCache.invalidate();
      assert.equal((await hold(slotBody(noticeLawyer, '2026-12-06', '10'))).statusCode, 201);
    });
  });
}
