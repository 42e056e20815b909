/**
 * Migration 0024 on a database that already holds lawyers (both databases): verified lawyers
 * become `verified` with an `import` verification per verified membership, valid 12 months; the
 * former listing switch becomes `hidden`; existing lawyers offer phone consultations of their
 * hours' slot length; memberships point at their colegio; the listing flags follow the rule
 * (a lawyer without hours is unlisted). Down and up again leave the schema usable.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import * as m0024 from '../../src/db/migrations/0024-lawyers-side.ts';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

for (const target of databaseTargets()) {
  describe(`migration 0024: the lawyers' side over existing lawyers (${target.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await target.create();
      await ensureReferenceData(t.database.db, '2026-11-23T08:00:00.000Z');
    });
    after(async () => t?.drop());

    it('backfills status, hidden, offer, colegios and verification records, and the listing flags', async () => {
      const db = t.database.db;
      await m0024.down(db as never);
      const lawyer = async (name: string, verified: number, listed: number, hours: Array<[number, number]>) => {
        const id = randomUUID();
        await sql`insert into lawyers (id, name, city_slug, timezone, consultation_fee_cents, platform_commission_percent, bio, verified, listed, rating_key, review_count, practice_areas_json, languages_json, created_at, updated_at)
          values (${id}, ${name}, 'madrid', 'Europe/Madrid', 6000, 12, null, ${verified}, ${listed}, 0, 0, '[]', '["es"]', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`.execute(db);
        await sql`insert into lawyer_practice_areas (lawyer_id, area_slug, is_primary) values (${id}, 'arraigo-social', 1)`.execute(db);
        await sql`insert into bar_memberships (lawyer_id, bar_name, verified) values (${id}, 'Ilustre Colegio de la Abogacía de Madrid', ${verified}), (${id}, 'Colegio Inventado', 0)`.execute(db);
        for (const [weekday, slot] of hours) {
          await sql`insert into lawyer_weekly_hours (lawyer_id, weekday, start_time, end_time, slot_minutes) values (${id}, ${weekday}, '09:00:00', '14:00:00', ${slot})`.execute(db);
        }
        return id;
      };
      const pub = await lawyer('Pública', 1, 1, [[1, 30], [2, 45]]);
      const hidden = await lawyer('Oculta', 1, 0, [[1, 60]]);
      const applicant = await lawyer('Solicitante', 0, 1, [[1, 120]]);
      const hourless = await lawyer('Sin Horas', 1, 1, []);

      await m0024.up(db as never);

      const rows = await db.selectFrom('lawyers').select(['id', 'status', 'hidden', 'verified', 'listed', 'consultation_minutes', 'offers_phone', 'verified_until']).where('id', 'in', [pub, hidden, applicant, hourless]).execute();
      const by = new Map(rows.map((r) => [r.id, r]));
      assert.deepEqual({ ...by.get(pub), id: undefined, verified_until: undefined }, { id: undefined, status: 'verified', hidden: 0, verified: 1, listed: 1, consultation_minutes: 45, offers_phone: 1, verified_until: undefined });
      assert.ok(by.get(pub)!.verified_until! > '2027-01-01');
      assert.deepEqual([by.get(hidden)!.status, by.get(hidden)!.hidden, by.get(hidden)!.listed, by.get(hidden)!.consultation_minutes], ['verified', 1, 0, 60]);
      assert.deepEqual([by.get(applicant)!.status, by.get(applicant)!.verified, by.get(applicant)!.listed, by.get(applicant)!.consultation_minutes], ['applied', 0, 0, 60]);
      assert.deepEqual([by.get(hourless)!.status, by.get(hourless)!.listed], ['verified', 0]);

      const records = await db.selectFrom('lawyer_verifications').select(['lawyer_id', 'bar_name', 'bar_association_id', 'source']).where('lawyer_id', '=', pub).execute();
      assert.deepEqual(records, [{ lawyer_id: pub, bar_name: 'Ilustre Colegio de la Abogacía de Madrid', bar_association_id: 'madrid', source: 'import' }]);
      assert.equal((await db.selectFrom('lawyer_verifications').select('id').where('lawyer_id', '=', applicant).execute()).length, 0);
      const colegios = await db.selectFrom('bar_memberships').select(['bar_name', 'bar_association_id']).where('lawyer_id', '=', pub).orderBy('bar_name').execute();
      assert.deepEqual(colegios, [{ bar_name: 'Colegio Inventado', bar_association_id: null }, { bar_name: 'Ilustre Colegio de la Abogacía de Madrid', bar_association_id: 'madrid' }]);
      assert.equal(Number((await db.selectFrom('bar_associations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n), 83);
    });
  });
}
