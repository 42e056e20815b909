/**
 * Seeds the demo directory: Spain's reference data and `count` generated lawyers, in batches,
 * through the same writer as imports. Deterministic for a given seed and reference date.
 */
import type { Database } from '../../db/database.ts';
import { bumpDirectoryVersion } from '../../db/repositories/reference.repository.ts';
import { ensureReferenceData, findExistingLawyerIds, prepareLawyer, writeLawyers } from '../directory/directory-writer.ts';
import { DirectoryCache } from '../directory/reference.service.ts';
import { generateLawyers } from './generator.ts';
import type { LawyerWrite } from '../../db/repositories/lawyer.repository.ts';

export interface SeedOptions {
  lawyers: number;
  seed: number;
  /** `YYYY-MM-DD` that generated dates (reviews, closed days) are relative to. */
  referenceDate: string;
  now: Date;
  batchSize?: number;
  onProgress?: (done: number, total: number) => void;
}

export class SeedConflictError extends Error {}

export async function seedDemoDirectory(database: Database, options: SeedOptions): Promise<{ lawyers: number }> {
  const nowIso = options.now.toISOString();
  await database.db.transaction().execute((trx) => ensureReferenceData(trx, nowIso));
  const ref = await new DirectoryCache(database, { refreshIntervalMs: 0 }).current();
  const batchSize = options.batchSize ?? 1000;
  let batch: LawyerWrite[] = [];
  let done = 0;
  let checkedConflicts = false;

  const flush = async () => {
    if (batch.length === 0) return;
    if (!checkedConflicts) {
      const existing = await findExistingLawyerIds(database, batch.map((w) => w.lawyer.id));
      if (existing.size > 0) {
        throw new SeedConflictError(`the database already holds lawyers generated with seed ${options.seed}; use another --seed or an empty database`);
      }
      checkedConflicts = true;
    }
    const writes = batch;
    batch = [];
    await database.db.transaction().execute((trx) => writeLawyers(trx, writes));
    done += writes.length;
    options.onProgress?.(done, options.lawyers);
  };

  for (const record of generateLawyers({ seed: options.seed, count: options.lawyers, referenceDate: options.referenceDate })) {
    const prepared = prepareLawyer(record, ref, nowIso);
    if ('errors' in prepared) {
      throw new Error(`generated lawyer ${record.id ?? record.name} is invalid: ${prepared.errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`);
    }
    batch.push(prepared.write);
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  await bumpDirectoryVersion(database.db, nowIso);
  await database.analyze();
  return { lawyers: done };
}
