/** Provinces, cities, the practice-area tree and the directory version. */
import type { CityTable, PracticeAreaTable, ProvinceTable } from '../schema.ts';
import type { Executor } from './types.ts';

export async function getDirectoryVersion(db: Executor): Promise<number> {
  const row = await db.selectFrom('directory_state').select('version').where('id', '=', 1).executeTakeFirst();
  return row?.version ?? 0;
}

/** Marks the directory as changed so every process rebuilds its cached derived data. */
export async function bumpDirectoryVersion(db: Executor, nowIso: string): Promise<void> {
  await db
    .updateTable('directory_state')
    .set((eb) => ({ version: eb('version', '+', 1), updated_at: nowIso }))
    .where('id', '=', 1)
    .execute();
}

export function listProvinces(db: Executor): Promise<ProvinceTable[]> {
  return db.selectFrom('provinces').selectAll().orderBy('name').execute();
}

export function listCities(db: Executor): Promise<CityTable[]> {
  return db.selectFrom('cities').selectAll().orderBy('name').execute();
}

export function listPracticeAreas(db: Executor): Promise<PracticeAreaTable[]> {
  return db.selectFrom('practice_areas').selectAll().orderBy('position').execute();
}

/** Public lawyers per city, for the cities reference payload. */
export async function countPublicLawyersByCity(db: Executor): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('lawyers')
    .select((eb) => ['city_slug', eb.fn.countAll<number>().as('n')])
    .where('verified', '=', 1)
    .where('listed', '=', 1)
    .groupBy('city_slug')
    .execute();
  return new Map(rows.map((r) => [r.city_slug, Number(r.n)]));
}

export async function upsertProvinces(db: Executor, rows: ProvinceTable[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('provinces')
    .values(rows)
    .onConflict((oc) =>
      oc.column('code').doUpdateSet((eb) => ({
        slug: eb.ref('excluded.slug'),
        name: eb.ref('excluded.name'),
        autonomous_community: eb.ref('excluded.autonomous_community'),
        timezone: eb.ref('excluded.timezone'),
      })),
    )
    .execute();
}

export async function upsertCities(db: Executor, rows: CityTable[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await db
      .insertInto('cities')
      .values(rows.slice(i, i + 200))
      .onConflict((oc) =>
        oc.column('slug').doUpdateSet((eb) => ({ name: eb.ref('excluded.name'), province_code: eb.ref('excluded.province_code') })),
      )
      .execute();
  }
}

/** Parents must come before their children in `rows`. */
export async function upsertPracticeAreas(db: Executor, rows: PracticeAreaTable[]): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('practice_areas')
      .values(row)
      .onConflict((oc) =>
        oc.column('slug').doUpdateSet((eb) => ({
          name: eb.ref('excluded.name'),
          description: eb.ref('excluded.description'),
          parent_slug: eb.ref('excluded.parent_slug'),
          position: eb.ref('excluded.position'),
        })),
      )
      .execute();
  }
}

/** Records that a lawyer's availability or booking count changed, for other processes' caches. */
export async function recordLawyerChanges(db: Executor, lawyerIds: readonly string[], nowIso: string): Promise<void> {
  if (lawyerIds.length === 0) return;
  await db.insertInto('lawyer_changes').values(lawyerIds.map((lawyer_id) => ({ lawyer_id, changed_at: nowIso }))).execute();
}

/** The newest change id (0 when there is none). */
export async function latestLawyerChangeId(db: Executor): Promise<number> {
  const row = await db.selectFrom('lawyer_changes').select((eb) => eb.fn.max('id').as('id')).executeTakeFirst();
  return Number(row?.id ?? 0);
}

/** Changes after `afterId`, plus any of `gapIds` (ids skipped earlier that may have committed since). */
export function listLawyerChanges(db: Executor, afterId: number, gapIds: readonly number[], limit: number): Promise<Array<{ id: number; lawyer_id: string }>> {
  return db
    .selectFrom('lawyer_changes')
    .select(['id', 'lawyer_id'])
    .where((eb) => (gapIds.length === 0 ? eb('id', '>', afterId) : eb.or([eb('id', '>', afterId), eb('id', 'in', [...gapIds])])))
    .orderBy('id')
    .limit(limit)
    .execute()
    .then((rows) => rows.map((r) => ({ id: Number(r.id), lawyer_id: r.lawyer_id })));
}

/** Deletes up to `limit` feed entries older than `cutoffIso` (one bounded batch); returns how many. */
export async function deleteLawyerChangesBefore(db: Executor, cutoffIso: string, limit: number): Promise<number> {
  const old = db.selectFrom('lawyer_changes').select('id').where('changed_at', '<', cutoffIso).orderBy('changed_at').limit(limit);
  const result = await db.deleteFrom('lawyer_changes').where('id', 'in', old).executeTakeFirst();
  return Number(result.numDeletedRows);
}
