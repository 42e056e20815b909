/**
 * Migration 0029 (the lawyer's portal), on both databases: a photo's media type is one of JPEG,
 * PNG and WebP by constraint (never SVG), one photo and one bio per language per lawyer, and
 * down/up leaves the tables as they were.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as m0029 from '../../src/db/migrations/0029-lawyer-portal.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

for (const target of databaseTargets()) {
  describe(`migration 0029: bios per language and photos (${target.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await target.create();
    });
    after(async () => t?.drop());

    it('constraints, and down/up', async () => {
      const db = t.database.db;
      const [id] = await insertLawyers(t.database, [lawyerRecord()]);
      const photo = { lawyer_id: id!, content_type: 'image/png', sha256: 'a'.repeat(64), byte_size: 3, data_base64: 'AAAA', updated_at: '2026-11-23T08:00:00.000Z' };
      await db.insertInto('lawyer_photos').values(photo).execute();
      await assert.rejects(db.insertInto('lawyer_photos').values(photo).execute(), 'one photo per lawyer');
      await db.deleteFrom('lawyer_photos').execute();
      await assert.rejects(db.insertInto('lawyer_photos').values({ ...photo, content_type: 'image/svg+xml' }).execute(), 'never SVG');
      await db.insertInto('lawyer_bios').values({ lawyer_id: id!, language: 'es', bio: 'Hola', updated_at: photo.updated_at }).execute();
      await assert.rejects(db.insertInto('lawyer_bios').values({ lawyer_id: id!, language: 'es', bio: 'Otra', updated_at: photo.updated_at }).execute(), 'one bio per language');

      await m0029.down(db as never);
      await assert.rejects(db.selectFrom('lawyer_bios').selectAll().execute());
      await m0029.up(db as never);
      assert.deepEqual(await db.selectFrom('lawyer_photos').selectAll().execute(), []);
      await db.insertInto('lawyer_photos').values({ ...photo, content_type: 'image/webp' }).execute();
      assert.equal((await db.selectFrom('lawyer_photos').select('content_type').executeTakeFirstOrThrow()).content_type, 'image/webp');
    });
  });
}
