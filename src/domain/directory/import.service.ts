/**
 * `consulta import FILE`: lawyers from JSON Lines. Every line is validated (schema, reference
 * data, duplicates, ids already present) before anything is written; one bad record means
 * nothing is imported. The write is one transaction, so a crash imports nothing either.
 */
import type { ValidateFunction } from 'ajv';
import type { Database } from '../../db/database.ts';
import type { LawyerWrite } from '../../db/repositories/lawyer.repository.ts';
import { bumpDirectoryVersion } from '../../db/repositories/reference.repository.ts';
import { createAjv, exceedsJsonDepth, MAX_JSON_DEPTH, toFieldErrors } from '../validation.ts';
import { ensureReferenceData, findExistingLawyerIds, prepareLawyer, writeLawyers } from './directory-writer.ts';
import { LawyerRecordSchema, type LawyerRecord } from './lawyer-record.ts';
import { DirectoryCache } from './reference.service.ts';

export interface ImportIssue {
  line: number;
  pointer: string;
  detail: string;
}

export class ImportFailedError extends Error {
  constructor(
    readonly issues: ImportIssue[],
    readonly totalIssues: number,
  ) {
    super(`import rejected: ${totalIssues} problem${totalIssues === 1 ? '' : 's'}; nothing was imported`);
    this.name = 'ImportFailedError';
  }
}

/** Spreadsheet exports often start with a UTF-8 byte-order mark. */
const stripBom = (line: string) => line.replace(/^\uFEFF/, '');

let validator: ValidateFunction | undefined;
function validate(value: unknown): ReturnType<typeof toFieldErrors> {
  validator ??= createAjv({ coerceTypes: false, useDefaults: false }).compile(LawyerRecordSchema);
  return validator(value) ? [] : toFieldErrors(validator.errors ?? [], '');
}

export interface ImportOptions {
  now: Date;
  /** How many problems to report at most (all are counted). */
  maxIssues?: number;
  batchSize?: number;
}

/**
 * Imports the lines produced by `openLines` (called twice: once to validate, once to write,
 * so a large file never sits in memory). Throws ImportFailedError listing the problems.
 */
export async function importLawyers(
  database: Database,
  openLines: () => AsyncIterable<string>,
  options: ImportOptions,
): Promise<{ imported: number }> {
  const nowIso = options.now.toISOString();
  const maxIssues = options.maxIssues ?? 100;
  await database.db.transaction().execute((trx) => ensureReferenceData(trx, nowIso));
  const ref = await new DirectoryCache(database, { refreshIntervalMs: 0 }).current();

  const issues: ImportIssue[] = [];
  let totalIssues = 0;
  const report = (line: number, pointer: string, detail: string) => {
    totalIssues++;
    if (issues.length < maxIssues) issues.push({ line, pointer, detail });
  };

  // Pass 1: validate everything, remember ids (given or generated) per line.
  const idsByLine = new Map<number, string>();
  const seenIds = new Map<string, number>();
  let lineNo = 0;
  let records = 0;
  for await (const raw of openLines()) {
    lineNo++;
    const line = lineNo === 1 ? stripBom(raw) : raw;
    if (line.trim() === '') continue;
    records++;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      report(lineNo, '', `not valid JSON (${(err as Error).message})`);
      continue;
    }
    // Bounded before validation, as every JSON entry point is: the validator recurses.
    if (exceedsJsonDepth(value)) {
      report(lineNo, '', `nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep`);
      continue;
    }
    const schemaErrors = validate(value);
    if (schemaErrors.length > 0) {
      for (const e of schemaErrors) report(lineNo, e.pointer, e.detail);
      continue;
    }
    const record = value as LawyerRecord;
    const prepared = prepareLawyer(record, ref, nowIso);
    if ('errors' in prepared) {
      for (const e of prepared.errors) report(lineNo, e.pointer, e.detail);
      continue;
    }
    const id = prepared.write.lawyer.id;
    const first = seenIds.get(id);
    if (first !== undefined) report(lineNo, '/id', `duplicate of the id on line ${first}`);
    else seenIds.set(id, lineNo);
    idsByLine.set(lineNo, id);
  }
  if (records === 0) report(0, '', 'the file holds no records');
  const existing = await findExistingLawyerIds(database, [...seenIds.keys()]);
  for (const id of existing) report(seenIds.get(id)!, '/id', `a lawyer with id ${id} already exists`);
  if (totalIssues > 0) {
    issues.sort((a, b) => a.line - b.line);
    throw new ImportFailedError(issues, totalIssues);
  }

  // Pass 2: write, in one transaction, with the ids fixed in pass 1.
  const batchSize = options.batchSize ?? 1000;
  let imported = 0;
  await database.db.transaction().execute(async (trx) => {
    let batch: LawyerWrite[] = [];
    let n = 0;
    for await (const raw of openLines()) {
      n++;
      const line = n === 1 ? stripBom(raw) : raw;
      if (line.trim() === '') continue;
      const record = JSON.parse(line) as LawyerRecord;
      const prepared = prepareLawyer({ ...record, id: idsByLine.get(n)! }, ref, nowIso);
      if ('errors' in prepared) throw new Error(`line ${n} changed while importing`);
      batch.push(prepared.write);
      if (batch.length >= batchSize) {
        await writeLawyers(trx, batch);
        imported += batch.length;
        batch = [];
      }
    }
    await writeLawyers(trx, batch);
    imported += batch.length;
    await bumpDirectoryVersion(trx, nowIso);
  });
  await database.analyze();
  return { imported };
}
