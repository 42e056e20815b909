/**
 * The demo seed on the lawyers' side (docs/lawyers.md): every demo lawyer has a colegio (one of
 * the 83) with a membership number, a consultation length and at least one format; each verified
 * one has a verification record; the listing rule's flags agree with the stored facts; and two
 * seeds with the same options hold the same lawyers' side.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { seedDemoDirectory } from '../../src/domain/demo/seed.service.ts';
import { generateLawyers } from '../../src/domain/demo/generator.ts';
import { refreshListing } from '../../src/domain/lawyers/listing.ts';
import { TEST_NOW } from '../support/app.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

describe('demo generator: the lawyers\' side', () => {
  it('gives every lawyer membership numbers, a length and at least one format; deterministically', () => {
    const options = { seed: 3, count: 300, referenceDate: '2026-11-23' };
    const records = [...generateLawyers(options)];
    assert.deepEqual([...generateLawyers(options)], records);
    for (const r of records) {
      assert.ok(r.bar_memberships.length > 0 && r.bar_memberships.every((m) => /^\d{4,5}$/.test(m.membership_number ?? '')), r.name);
      assert.ok(r.consultation_minutes === 30 || r.consultation_minutes === 60);
      const f = r.formats!;
      assert.ok(f.phone === true || f.video_url !== undefined || f.office_address !== undefined, r.name);
      if (f.video_url !== undefined && f.video_url !== null) assert.match(f.video_url, /^https:\/\/meet\.example\.com\//);
    }
    // Every format occurs.
    assert.ok(records.some((r) => r.formats!.video_url));
    assert.ok(records.some((r) => r.formats!.office_address));
    assert.ok(records.some((r) => r.formats!.phone));
  });
});

for (const target of databaseTargets()) {
  describe(`demo seed: colegios, verifications, listing (${target.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await target.create();
      await seedDemoDirectory(t.database, { lawyers: 250, seed: 4, referenceDate: '2026-11-23', now: new Date(TEST_NOW) });
    });
    after(() => t.drop());

    it('points every membership at one of the 83 colegios, with a number', async () => {
      const rows = await t.database.db.selectFrom('bar_memberships').select(['bar_association_id', 'membership_number']).execute();
      assert.ok(rows.length >= 250);
      assert.ok(rows.every((r) => r.bar_association_id !== null && r.membership_number !== null));
    });

    it('gives each verified lawyer a verification record valid 12 months', async () => {
      const db = t.database.db;
      const verified = await db.selectFrom('lawyers').select('id').where('status', '=', 'verified').execute();
      assert.ok(verified.length > 200);
      const withRecord = await db.selectFrom('lawyer_verifications').select('lawyer_id').distinct().where('expires_at', '=', '2027-11-23T08:00:00.000Z').execute();
      assert.equal(withRecord.length, verified.length);
      const applied = await db.selectFrom('lawyers').select('id').where('status', '=', 'applied').execute();
      assert.ok(applied.length > 0, 'some demo lawyers are applications waiting');
    });

    it('stores exactly what the listing rule says (recomputing changes nothing)', async () => {
      const db = t.database.db;
      const ids = (await db.selectFrom('lawyers').select('id').orderBy('id').execute()).map((r) => r.id);
      let listed = 0;
      for (const id of ids) {
        const change = (await refreshListing(db, id, TEST_NOW))!;
        assert.deepEqual(change.after, change.before, id);
        if (change.after.listed) listed++;
      }
      assert.ok(listed > 180 && listed < 250, `listed ${listed}`);
    });
  });
}
