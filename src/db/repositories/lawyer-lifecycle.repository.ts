/**
 * The lawyers' side (0024; docs/lawyers.md): the facts the listing rule reads, its materialised
 * result, verification records, applications and the expiry sweep's queries.
 */
import type { Insertable } from 'kysely';
import type { DialectName } from '../database.ts';
import type { LawyerTable, LawyerVerificationTable } from '../schema.ts';
import type { Executor } from './types.ts';

export type ListingFactsRow = Pick<
  LawyerTable,
  'id' | 'name' | 'status' | 'status_reason' | 'hidden' | 'verified' | 'listed' | 'consultation_fee_cents' | 'consultation_minutes' | 'video_url' | 'offers_phone' | 'office_address'
> & { practice_areas: number; weekly_hours: number };

/** What the listing rule needs of one lawyer (counts of areas and hours included), or undefined. */
export function findListingFacts(db: Executor, lawyerId: string): Promise<ListingFactsRow | undefined> {
  return db
    .selectFrom('lawyers')
    .select((eb) => [
      'lawyers.id',
      'lawyers.name',
      'lawyers.status',
      'lawyers.status_reason',
      'lawyers.hidden',
      'lawyers.verified',
      'lawyers.listed',
      'lawyers.consultation_fee_cents',
      'lawyers.consultation_minutes',
      'lawyers.video_url',
      'lawyers.offers_phone',
      'lawyers.office_address',
      eb.selectFrom('lawyer_practice_areas').select((e) => e.fn.countAll<number>().as('n')).whereRef('lawyer_practice_areas.lawyer_id', '=', 'lawyers.id').as('practice_areas'),
      eb.selectFrom('lawyer_weekly_hours').select((e) => e.fn.countAll<number>().as('n')).whereRef('lawyer_weekly_hours.lawyer_id', '=', 'lawyers.id').as('weekly_hours'),
    ])
    .where('lawyers.id', '=', lawyerId)
    .executeTakeFirst() as Promise<ListingFactsRow | undefined>;
}

/** The verifications in force at `nowIso` (`bar_name` null: a record without a membership). */
export function listVerificationsInForce(db: Executor, lawyerId: string, nowIso: string): Promise<Array<{ bar_name: string | null; expires_at: string }>> {
  return db.selectFrom('lawyer_verifications').select(['bar_name', 'expires_at']).where('lawyer_id', '=', lawyerId).where('expires_at', '>', nowIso).execute();
}

/** Her latest verification's expiry (`YYYY-MM-DDT…`), in force or not; null: never verified. */
export async function findLatestVerificationExpiry(db: Executor, lawyerId: string): Promise<string | null> {
  const row = await db.selectFrom('lawyer_verifications').select('expires_at').where('lawyer_id', '=', lawyerId).orderBy('expires_at', 'desc').limit(1).executeTakeFirst();
  return row?.expires_at ?? null;
}

/** Writes the materialised flags; true when `verified` or `listed` changed (a directory write). */
export async function setMaterialisedListing(db: Executor, lawyerId: string, values: { verified: number; listed: number; verified_until: string | null }, updatedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('lawyers')
    .set({ verified: values.verified, listed: values.listed, updated_at: updatedAt })
    .where('id', '=', lawyerId)
    .where((eb) => eb.or([eb('verified', '!=', values.verified), eb('listed', '!=', values.listed)]))
    .executeTakeFirst();
  await db.updateTable('lawyers').set({ verified_until: values.verified_until }).where('id', '=', lawyerId).execute();
  return Number(result.numUpdatedRows) > 0;
}

/** Marks exactly the memberships in `verifiedBars` verified (the API's `bar_memberships[].verified`). */
export async function setMembershipsVerified(db: Executor, lawyerId: string, verifiedBars: string[]): Promise<void> {
  let clear = db.updateTable('bar_memberships').set({ verified: 0 }).where('lawyer_id', '=', lawyerId).where('verified', '=', 1);
  if (verifiedBars.length > 0) clear = clear.where('bar_name', 'not in', verifiedBars);
  await clear.execute();
  if (verifiedBars.length > 0) {
    await db.updateTable('bar_memberships').set({ verified: 1 }).where('lawyer_id', '=', lawyerId).where('bar_name', 'in', verifiedBars).where('verified', '=', 0).execute();
  }
}

export type LawyerLifecycleRow = Pick<LawyerTable, 'id' | 'name' | 'city_slug' | 'status' | 'status_reason' | 'user_id' | 'contact_email' | 'verified' | 'listed' | 'hidden' | 'created_at' | 'updated_at'>;

const LIFECYCLE_COLUMNS = ['id', 'name', 'city_slug', 'status', 'status_reason', 'user_id', 'contact_email', 'verified', 'listed', 'hidden', 'created_at', 'updated_at'] as const;

/**
 * Her lifecycle row. `lock` (inside a transaction, PostgreSQL): FOR UPDATE, so two operators'
 * decisions on her (two processes, two terminals) run one after the other and the second reads
 * what the first decided (SQLite runs one writing transaction at a time already).
 */
export function findLawyerLifecycle(db: Executor, lawyerId: string, lock?: DialectName): Promise<LawyerLifecycleRow | undefined> {
  let query = db.selectFrom('lawyers').select(LIFECYCLE_COLUMNS).where('id', '=', lawyerId);
  if (lock === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

/** Applications waiting for the operator (`applied`), oldest first. */
export function listApplications(db: Executor, limit: number): Promise<LawyerLifecycleRow[]> {
  return db.selectFrom('lawyers').select(LIFECYCLE_COLUMNS).where('status', '=', 'applied').orderBy('created_at').orderBy('id').limit(limit).execute();
}

export async function setLawyerLifecycleStatus(db: Executor, lawyerId: string, status: string, reason: string | null, updatedAt: string): Promise<void> {
  await db.updateTable('lawyers').set({ status, status_reason: reason, updated_at: updatedAt }).where('id', '=', lawyerId).execute();
}

export async function setLawyerHidden(db: Executor, lawyerId: string, hidden: boolean, updatedAt: string): Promise<void> {
  await db.updateTable('lawyers').set({ hidden: hidden ? 1 : 0, updated_at: updatedAt }).where('id', '=', lawyerId).execute();
}

export type MembershipRow = { bar_name: string; bar_association_id: string | null; membership_number: string | null; verified: number };

/** A lawyer's claimed memberships (the colegio when it is one of the 83), by name. */
export function listMemberships(db: Executor, lawyerId: string): Promise<MembershipRow[]> {
  return db
    .selectFrom('bar_memberships')
    .select(['bar_name', 'bar_association_id', 'membership_number', 'verified'])
    .where('lawyer_id', '=', lawyerId)
    .orderBy('bar_name')
    .execute() as Promise<MembershipRow[]>;
}

export async function setMembershipNumber(db: Executor, lawyerId: string, barName: string, number: string): Promise<void> {
  await db.updateTable('bar_memberships').set({ membership_number: number }).where('lawyer_id', '=', lawyerId).where('bar_name', '=', barName).execute();
}

export async function insertVerifications(db: Executor, rows: Insertable<LawyerVerificationTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 1000) await db.insertInto('lawyer_verifications').values(rows.slice(i, i + 1000)).execute();
}

/** The lawyer's verification records, newest first. */
export function listVerifications(db: Executor, lawyerId: string): Promise<LawyerVerificationTable[]> {
  return db.selectFrom('lawyer_verifications').selectAll().where('lawyer_id', '=', lawyerId).orderBy('verified_at', 'desc').orderBy('id').execute();
}

/** One colegio by id. */
export function findBarAssociation(db: Executor, id: string): Promise<{ id: string; name: string; province_code: string; website_url: string | null } | undefined> {
  return db.selectFrom('bar_associations').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findBarAssociationByName(db: Executor, name: string): Promise<{ id: string; name: string; province_code: string; website_url: string | null } | undefined> {
  return db.selectFrom('bar_associations').selectAll().where('name', '=', name).executeTakeFirst();
}

export function listBarAssociations(db: Executor): Promise<Array<{ id: string; name: string; province_code: string; website_url: string | null }>> {
  return db.selectFrom('bar_associations').selectAll().orderBy('name').execute();
}

export async function upsertBarAssociations(db: Executor, rows: Array<{ id: string; name: string; province_code: string }>): Promise<void> {
  for (const row of rows) {
    await db
      .insertInto('bar_associations')
      .values({ ...row, website_url: null })
      .onConflict((oc) => oc.column('id').doUpdateSet({ name: row.name, province_code: row.province_code }))
      .execute();
  }
}

/**
 * Lawyers still marked verified whose verification in force ended by `nowIso`: the expiry sweep
 * unlists them (the materialised flags are what search reads). Reads the partial index only.
 */
export async function listExpiredButVerified(db: Executor, nowIso: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('lawyers')
    .select('id')
    .where('verified', '=', 1)
    .where('verified_until', '<=', nowIso)
    .orderBy('verified_until')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export type ReminderRow = { verification_id: string; lawyer_id: string; name: string; contact_email: string | null; user_email: string | null; expires_at: string };

/**
 * Verifications of verified lawyers expiring within the window and not yet reminded, and that
 * are the lawyer's latest (a renewed lawyer is not reminded of the record she replaced).
 */
export function listDueReminders(db: Executor, nowIso: string, untilIso: string, limit: number): Promise<ReminderRow[]> {
  return db
    .selectFrom('lawyer_verifications as v')
    .innerJoin('lawyers', 'lawyers.id', 'v.lawyer_id')
    .leftJoin('users', 'users.id', 'lawyers.user_id')
    .select(['v.id as verification_id', 'v.lawyer_id', 'lawyers.name', 'lawyers.contact_email', 'users.email as user_email', 'v.expires_at'])
    .where('lawyers.status', '=', 'verified')
    .where('v.reminder_sent_at', 'is', null)
    .where('v.expires_at', '>', nowIso)
    .where('v.expires_at', '<=', untilIso)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('lawyer_verifications as later').select('later.id').whereRef('later.lawyer_id', '=', 'v.lawyer_id').whereRef('later.expires_at', '>', 'v.expires_at'))),
    )
    .orderBy('v.expires_at')
    .limit(limit)
    .execute();
}

/** Claims a reminder (true once): concurrent sweeps send it once. */
export async function claimReminder(db: Executor, verificationId: string, nowIso: string): Promise<boolean> {
  const result = await db.updateTable('lawyer_verifications').set({ reminder_sent_at: nowIso }).where('id', '=', verificationId).where('reminder_sent_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Whether the lawyer has a verification record not expired at `nowIso`. */
export async function hasVerificationInForce(db: Executor, lawyerId: string, nowIso: string): Promise<boolean> {
  const row = await db.selectFrom('lawyer_verifications').select('id').where('lawyer_id', '=', lawyerId).where('expires_at', '>', nowIso).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** The lawyer record linked to an account (her application, whatever its status). */
export function findLawyerByUser(db: Executor, userId: string): Promise<LawyerTable | undefined> {
  return db.selectFrom('lawyers').selectAll().where('user_id', '=', userId).executeTakeFirst();
}

/** A lawyer record by id, whole (the operator's view of an application). */
export function findLawyerRecord(db: Executor, lawyerId: string): Promise<LawyerTable | undefined> {
  return db.selectFrom('lawyers').selectAll().where('id', '=', lawyerId).executeTakeFirst();
}

/** A lawyer's practice areas (the primary one first) and languages. */
export async function listAreasAndLanguages(db: Executor, lawyerId: string): Promise<{ areas: Array<{ area_slug: string; is_primary: number }>; languages: string[] }> {
  const [areas, languages] = await Promise.all([
    db.selectFrom('lawyer_practice_areas').select(['area_slug', 'is_primary']).where('lawyer_id', '=', lawyerId).orderBy('is_primary', 'desc').orderBy('area_slug').execute(),
    db.selectFrom('lawyer_languages').select('language').where('lawyer_id', '=', lawyerId).orderBy('language').execute(),
  ]);
  return { areas, languages: languages.map((l) => l.language) };
}

/** Which of a city and practice areas the database's reference data holds (rows point at them). */
export async function findKnownReferences(db: Executor, citySlug: string, areaSlugs: string[]): Promise<{ city: boolean; areas: number }> {
  const [city, areas] = await Promise.all([
    db.selectFrom('cities').select('slug').where('slug', '=', citySlug).executeTakeFirst(),
    db.selectFrom('practice_areas').select('slug').where('slug', 'in', areaSlugs).execute(),
  ]);
  return { city: city !== undefined, areas: areas.length };
}

/** An account's email address, or null when the account is gone. */
export async function findUserEmail(db: Executor, userId: string): Promise<string | null> {
  const row = await db.selectFrom('users').select('email').where('id', '=', userId).executeTakeFirst();
  return row?.email ?? null;
}
