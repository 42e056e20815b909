/** Test data factories: valid lawyer records with sensible defaults, written through the real writer. */
import { randomUUID } from 'node:crypto';
import type { Database } from '../../src/db/database.ts';
import { bumpDirectoryVersion } from '../../src/db/repositories/reference.repository.ts';
import { ensureReferenceData, prepareLawyer, writeLawyers } from '../../src/domain/directory/directory-writer.ts';
import type { LawyerRecord } from '../../src/domain/directory/lawyer-record.ts';
import { DirectoryCache } from '../../src/domain/directory/reference.service.ts';

const WEEKDAYS_9_TO_14 = [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '14:00:00', slot_minutes: 60 as const }));

export function lawyerRecord(overrides: Partial<LawyerRecord> = {}): LawyerRecord {
  return {
    id: randomUUID(),
    name: 'Lucía Fernández Ruiz',
    city: 'madrid',
    consultation_fee_cents: 6000,
    platform_commission_percent: 12,
    bio: 'Immigration lawyer in Madrid with ten years of experience.',
    verified: true,
    listed: true,
    languages: ['es', 'en'],
    practice_areas: [{ slug: 'arraigo-social', is_primary: true }],
    bar_memberships: [{ bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: true }],
    weekly_hours: WEEKDAYS_9_TO_14,
    reviews: [],
    total_bookings: 10,
    ...overrides,
  };
}

/** Writes lawyers (reference data first) and returns their ids, in order. */
export async function insertLawyers(database: Database, records: LawyerRecord[], now = new Date('2026-11-23T08:00:00Z')): Promise<string[]> {
  const nowIso = now.toISOString();
  await ensureReferenceData(database.db, nowIso);
  const ref = await new DirectoryCache(database, { refreshIntervalMs: 0 }).current();
  const writes = records.map((r, i) => {
    const prepared = prepareLawyer(r, ref, nowIso);
    if ('errors' in prepared) throw new Error(`factory record ${i} invalid: ${JSON.stringify(prepared.errors)}`);
    return prepared.write;
  });
  await database.db.transaction().execute(async (trx) => {
    await writeLawyers(trx, writes);
    await bumpDirectoryVersion(trx, nowIso);
  });
  return writes.map((w) => w.lawyer.id);
}
