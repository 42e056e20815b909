/**
 * Migration 0028 over existing holds (both databases): every live hold and future booking gets
 * its 15-minute cells, [start, end + her buffer) in her zone, and `occupied_until`; expired holds
 * and past bookings get none; afterwards an overlapping hold of another length cannot be taken,
 * and deleting a hold frees its cells.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as m0028 from '../../src/db/migrations/0028-slot-cells.ts';
import { deleteHold, takeHold } from '../../src/db/repositories/schedule.repository.ts';
import { cellsCovering } from '../../src/domain/directory/slots.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

for (const target of databaseTargets()) {
  describe(`migration 0028: slot cells for existing holds (${target.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await target.create();
    });
    after(async () => t?.drop());

    it('backfills the cells of live holds and future bookings, in the lawyer\'s zone and with her buffer', async () => {
      const db = t.database.db;
      const [madrid, canary] = await insertLawyers(t.database, [
        lawyerRecord({ name: 'Madrid' }),
        lawyerRecord({ name: 'Canarias', city: 'las-palmas-de-gran-canaria', bar_memberships: [{ bar_name: 'Ilustre Colegio de la Abogacía de Las Palmas', verified: true }] }),
      ]) as [string, string];
      await db.updateTable('lawyers').set({ buffer_minutes: 15 }).where('id', '=', madrid).execute();
      await m0028.down(db as never);
      const base = { booking_intent_id: null, created_at: '2026-11-01T00:00:00.000Z' };
      await db
        .insertInto('slot_holds')
        .values([
          // Summer in Madrid (UTC+2): 08:00–09:00Z, + 15 minutes of buffer.
          { ...base, lawyer_id: madrid, slot_date: '2027-06-07', start_time: '10:00:00', end_time: '11:00:00', status: 'booked', expires_at: null },
          // Winter in the Canaries (UTC+0), held until far ahead.
          { ...base, lawyer_id: canary, slot_date: '2027-01-11', start_time: '09:00:00', end_time: '09:45:00', status: 'held', expires_at: '2099-01-01T00:00:00.000Z' },
          // An expired hold and a past booking: nothing to record.
          { ...base, lawyer_id: canary, slot_date: '2027-01-12', start_time: '09:00:00', end_time: '10:00:00', status: 'held', expires_at: '2020-01-01T00:00:00.000Z' },
          { ...base, lawyer_id: madrid, slot_date: '2020-01-06', start_time: '10:00:00', end_time: '11:00:00', status: 'booked', expires_at: null },
        ] as never)
        .execute();

      await m0028.up(db as never);

      const cells = await db.selectFrom('slot_cells').selectAll().orderBy('lawyer_id').orderBy('cell_start').execute();
      const of = (lawyer: string) => cells.filter((c) => c.lawyer_id === lawyer).map((c) => c.cell_start);
      assert.deepEqual(of(madrid), cellsCovering(Date.parse('2027-06-07T08:00:00Z'), Date.parse('2027-06-07T09:15:00Z')));
      assert.deepEqual(of(canary), cellsCovering(Date.parse('2027-01-11T09:00:00Z'), Date.parse('2027-01-11T09:45:00Z')));
      const holds = await db.selectFrom('slot_holds').select(['lawyer_id', 'slot_date', 'occupied_until']).orderBy('slot_date').execute();
      assert.deepEqual(
        holds.map((h) => [h.slot_date, h.occupied_until]),
        [['2020-01-06', null], ['2027-01-11', '2027-01-11T09:45:00.000Z'], ['2027-01-12', null], ['2027-06-07', '2027-06-07T09:15:00.000Z']],
      );

      // A 30-minute hold at 11:00 Madrid meets the booking's buffer cell: refused, nothing left behind.
      const nowIso = '2026-11-26T00:00:00.000Z';
      const refused = await db.transaction().execute((trx) =>
        takeHold(
          trx,
          { lawyer_id: madrid, slot_date: '2027-06-07', start_time: '11:00:00', end_time: '11:30:00', status: 'held', booking_intent_id: null, expires_at: '2099-01-01T00:00:00.000Z', created_at: nowIso, occupied_until: null },
          cellsCovering(Date.parse('2027-06-07T09:00:00Z'), Date.parse('2027-06-07T09:45:00Z')),
          nowIso,
        ),
      );
      assert.equal(refused, false);
      assert.equal((await db.selectFrom('slot_holds').select('start_time').where('slot_date', '=', '2027-06-07').execute()).length, 1);
      // Deleting the hold frees its cells (ON DELETE CASCADE).
      await deleteHold(db, { lawyer_id: canary, slot_date: '2027-01-11', start_time: '09:00:00' });
      assert.equal((await db.selectFrom('slot_cells').select('cell_start').where('lawyer_id', '=', canary).execute()).length, 0);
    });
  });
}
