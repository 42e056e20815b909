/**
 * The lawyer's portal (0029; docs/lawyers.md#the-portal): her own record's profile, offer and
 * calendar, her bios per language and her photo. Every function takes the lawyer id the domain
 * found from her account; none of them is ever given an id from a request.
 */
import type { LawyerPhotoTable, LawyerTable } from '../schema.ts';
import type { Executor } from './types.ts';

export type PortalLawyerRow = LawyerTable;

/** Her bios, by language. */
export async function listBios(db: Executor, lawyerId: string): Promise<Record<string, string>> {
  const rows = await db.selectFrom('lawyer_bios').select(['language', 'bio']).where('lawyer_id', '=', lawyerId).orderBy('language').execute();
  return Object.fromEntries(rows.map((r) => [r.language, r.bio]));
}

/** Replaces her bios for the languages given (an empty or null text removes that language's). */
export async function replaceBios(db: Executor, lawyerId: string, bios: Record<string, string | null>, nowIso: string): Promise<void> {
  const languages = Object.keys(bios);
  if (languages.length === 0) return;
  await db.deleteFrom('lawyer_bios').where('lawyer_id', '=', lawyerId).where('language', 'in', languages).execute();
  const rows = Object.entries(bios)
    .filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '')
    .map(([language, bio]) => ({ lawyer_id: lawyerId, language, bio, updated_at: nowIso }));
  if (rows.length > 0) await db.insertInto('lawyer_bios').values(rows).execute();
}

/** Writes her profile columns and the denormalised summaries search reads. */
export async function updateLawyerProfile(
  db: Executor,
  lawyerId: string,
  values: Pick<LawyerTable, 'name' | 'bio' | 'consultation_fee_cents' | 'practice_areas_json' | 'languages_json' | 'form_of_address'>,
  nowIso: string,
): Promise<void> {
  await db.updateTable('lawyers').set({ ...values, updated_at: nowIso }).where('id', '=', lawyerId).execute();
}

/** Replaces her practice areas (one primary) and languages. */
export async function replaceAreasAndLanguages(db: Executor, lawyerId: string, areas: Array<{ slug: string; isPrimary: boolean }>, languages: string[]): Promise<void> {
  await db.deleteFrom('lawyer_practice_areas').where('lawyer_id', '=', lawyerId).execute();
  await db.deleteFrom('lawyer_languages').where('lawyer_id', '=', lawyerId).execute();
  if (areas.length > 0) await db.insertInto('lawyer_practice_areas').values(areas.map((a) => ({ lawyer_id: lawyerId, area_slug: a.slug, is_primary: a.isPrimary ? 1 : 0 }))).execute();
  if (languages.length > 0) await db.insertInto('lawyer_languages').values(languages.map((language) => ({ lawyer_id: lawyerId, language }))).execute();
}

/** Writes her consultation offer. */
export async function updateLawyerOffer(
  db: Executor,
  lawyerId: string,
  values: Pick<LawyerTable, 'consultation_minutes' | 'video_url' | 'offers_phone' | 'office_address'>,
  nowIso: string,
): Promise<void> {
  await db.updateTable('lawyers').set({ ...values, updated_at: nowIso }).where('id', '=', lawyerId).execute();
}

/** Writes her calendar settings. */
export async function updateLawyerCalendarSettings(
  db: Executor,
  lawyerId: string,
  values: Pick<LawyerTable, 'min_notice_minutes' | 'buffer_minutes' | 'horizon_days' | 'timezone'>,
  nowIso: string,
): Promise<void> {
  await db.updateTable('lawyers').set({ ...values, updated_at: nowIso }).where('id', '=', lawyerId).execute();
}

/** Replaces her weekly hours as a whole. */
export async function replaceWeeklyHours(db: Executor, lawyerId: string, ranges: Array<{ weekday: number; start_time: string; end_time: string }>, slotMinutes: number): Promise<void> {
  await db.deleteFrom('lawyer_weekly_hours').where('lawyer_id', '=', lawyerId).execute();
  if (ranges.length > 0) await db.insertInto('lawyer_weekly_hours').values(ranges.map((r) => ({ lawyer_id: lawyerId, ...r, slot_minutes: slotMinutes }))).execute();
}

/** Keeps every stored range's slot length equal to her consultation length (the column must hold one). */
export async function setSlotMinutes(db: Executor, lawyerId: string, slotMinutes: number): Promise<void> {
  await db.updateTable('lawyer_weekly_hours').set({ slot_minutes: slotMinutes }).where('lawyer_id', '=', lawyerId).execute();
  await db.updateTable('lawyer_date_exceptions').set({ slot_minutes: slotMinutes }).where('lawyer_id', '=', lawyerId).where('start_time', 'is not', null).execute();
}

/** Her weekly hours, by weekday then start. */
export function listOwnWeeklyHours(db: Executor, lawyerId: string): Promise<Array<{ weekday: number; start_time: string; end_time: string }>> {
  return db.selectFrom('lawyer_weekly_hours').select(['weekday', 'start_time', 'end_time']).where('lawyer_id', '=', lawyerId).orderBy('weekday').orderBy('start_time').execute();
}

/** Her date overrides from `fromDate` on, by date then start (closed days have no times). */
export function listOwnDateExceptions(db: Executor, lawyerId: string, fromDate: string): Promise<Array<{ date: string; start_time: string | null; end_time: string | null }>> {
  return db
    .selectFrom('lawyer_date_exceptions')
    .select(['date', 'start_time', 'end_time'])
    .where('lawyer_id', '=', lawyerId)
    .where('date', '>=', fromDate)
    .orderBy('date')
    .orderBy('start_time')
    .execute();
}

/** Replaces what she set for one date: closed (no ranges) or these ranges. */
export async function replaceDateException(db: Executor, lawyerId: string, date: string, ranges: Array<{ start_time: string; end_time: string }> | 'closed', slotMinutes: number): Promise<void> {
  await db.deleteFrom('lawyer_date_exceptions').where('lawyer_id', '=', lawyerId).where('date', '=', date).execute();
  const rows = ranges === 'closed' ? [{ lawyer_id: lawyerId, date, start_time: null, end_time: null, slot_minutes: null }] : ranges.map((r) => ({ lawyer_id: lawyerId, date, ...r, slot_minutes: slotMinutes }));
  await db.insertInto('lawyer_date_exceptions').values(rows).execute();
}

/** Removes what she set for one date; true when there was something. */
export async function deleteDateException(db: Executor, lawyerId: string, date: string): Promise<boolean> {
  const result = await db.deleteFrom('lawyer_date_exceptions').where('lawyer_id', '=', lawyerId).where('date', '=', date).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export type PhotoMeta = Pick<LawyerPhotoTable, 'lawyer_id' | 'content_type' | 'sha256' | 'byte_size' | 'updated_at'>;

/** Her photo's description (no bytes), or undefined. */
export function findPhotoMeta(db: Executor, lawyerId: string): Promise<PhotoMeta | undefined> {
  return db.selectFrom('lawyer_photos').select(['lawyer_id', 'content_type', 'sha256', 'byte_size', 'updated_at']).where('lawyer_id', '=', lawyerId).executeTakeFirst();
}

/** Photos' descriptions for several lawyers (cards), by lawyer id. */
export async function listPhotoMeta(db: Executor, lawyerIds: readonly string[]): Promise<PhotoMeta[]> {
  if (lawyerIds.length === 0) return [];
  return db.selectFrom('lawyer_photos').select(['lawyer_id', 'content_type', 'sha256', 'byte_size', 'updated_at']).where('lawyer_id', 'in', [...lawyerIds]).execute();
}

/** A photo with its bytes, when its hash is the one asked for. */
export function findPhoto(db: Executor, lawyerId: string, sha256: string): Promise<LawyerPhotoTable | undefined> {
  return db.selectFrom('lawyer_photos').selectAll().where('lawyer_id', '=', lawyerId).where('sha256', '=', sha256).executeTakeFirst();
}

export async function upsertPhoto(db: Executor, row: LawyerPhotoTable): Promise<void> {
  await db.deleteFrom('lawyer_photos').where('lawyer_id', '=', row.lawyer_id).execute();
  await db.insertInto('lawyer_photos').values(row).execute();
}

export async function deletePhoto(db: Executor, lawyerId: string): Promise<boolean> {
  const result = await db.deleteFrom('lawyer_photos').where('lawyer_id', '=', lawyerId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
