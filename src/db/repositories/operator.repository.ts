/**
 * What the operator console and the operator's commands read and write beyond the other
 * repositories: the audit log, the operators list, look-ups across users, firms and lawyers
 * whatever their state (hidden lawyers included), and a lawyer's verification and listing.
 */
import { sql, type Insertable } from 'kysely';
import type { FirmTable, LawyerTable, OperatorAuditTable, UserTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** `%needle%` for LIKE with `!` as the escape character (the same on SQLite and PostgreSQL). */
function containsPattern(needle: string): string {
  return `%${needle.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`)}%`;
}

// ── audit log ──

/** Appends one entry to the audit log (call inside the action's transaction). */
export async function insertAuditEntry(db: Executor, entry: Insertable<OperatorAuditTable>): Promise<void> {
  await db.insertInto('operator_audit').values(entry).execute();
}

export type AuditRow = Omit<OperatorAuditTable, 'id'> & { id: number };

/** Entries newest first, a page at a time (`beforeId`: the last id of the previous page); optionally one target's. */
export async function listAuditEntries(
  db: Executor,
  options: { beforeId?: number; limit: number; target?: { type: string; id: string } },
): Promise<AuditRow[]> {
  let query = db.selectFrom('operator_audit').selectAll();
  if (options.target) query = query.where('target_type', '=', options.target.type).where('target_id', '=', options.target.id);
  if (options.beforeId !== undefined) query = query.where('id', '<', options.beforeId);
  const rows = await query.orderBy('id', 'desc').limit(options.limit).execute();
  // bigserial arrives as a string from pg.
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

// ── operators ──

/** Lists the user as an operator; false when they already are. */
export async function insertOperatorIfAbsent(db: Executor, userId: string, addedAt: string): Promise<boolean> {
  const result = await db.insertInto('operators').values({ user_id: userId, added_at: addedAt }).onConflict((oc) => oc.column('user_id').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes the user from the operators; false when they were not one. */
export async function deleteOperator(db: Executor, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('operators').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** When the user became an operator, or undefined. */
export async function findOperatorSince(db: Executor, userId: string): Promise<string | undefined> {
  return (await db.selectFrom('operators').select('added_at').where('user_id', '=', userId).executeTakeFirst())?.added_at;
}

/** Every operator with their email, by email. */
export function listOperators(db: Executor): Promise<Array<{ user_id: string; email: string; added_at: string }>> {
  return db
    .selectFrom('operators')
    .innerJoin('users', 'users.id', 'operators.user_id')
    .select(['operators.user_id', 'users.email', 'operators.added_at'])
    .orderBy('users.email')
    .execute();
}

// ── look-ups ──

/** Users whose email contains `needle` (any case), by email. */
export function searchUsersByEmail(db: Executor, needle: string, limit: number): Promise<UserTable[]> {
  return db
    .selectFrom('users')
    .selectAll()
    .where(sql<boolean>`lower(email) like ${containsPattern(needle)} escape '!'`)
    .orderBy('email')
    .limit(limit)
    .execute();
}

/** Firms whose slug or name contains `needle` (any case), by slug. */
export function searchFirms(db: Executor, needle: string, limit: number): Promise<FirmTable[]> {
  const pattern = containsPattern(needle);
  return db
    .selectFrom('firms')
    .selectAll()
    .where((eb) => eb.or([sql<boolean>`lower(slug) like ${pattern} escape '!'`, sql<boolean>`lower(name) like ${pattern} escape '!'`]))
    .orderBy('slug')
    .limit(limit)
    .execute();
}

/** The firms a user belongs to, with their role, by slug. */
export function listFirmsOfUser(db: Executor, userId: string): Promise<Array<FirmTable & { role: string }>> {
  return db
    .selectFrom('firm_memberships')
    .innerJoin('firms', 'firms.id', 'firm_memberships.firm_id')
    .selectAll('firms')
    .select('firm_memberships.role')
    .where('firm_memberships.user_id', '=', userId)
    .orderBy('firms.slug')
    .execute();
}

// ── lawyers, whatever their state ──

export type LawyerStatusRow = Pick<LawyerTable, 'id' | 'name' | 'city_slug' | 'verified' | 'listed' | 'hidden' | 'status' | 'status_reason' | 'updated_at' | 'form_of_address'> & { city_name: string | null };

function selectLawyerStatus(db: Executor) {
  return db
    .selectFrom('lawyers')
    .leftJoin('cities', 'cities.slug', 'lawyers.city_slug')
    .select(['lawyers.id', 'lawyers.name', 'lawyers.city_slug', 'lawyers.verified', 'lawyers.listed', 'lawyers.hidden', 'lawyers.status', 'lawyers.status_reason', 'lawyers.updated_at', 'lawyers.form_of_address', 'cities.name as city_name']);
}

/** One lawyer, verified and listed or not. */
export function findLawyerStatus(db: Executor, id: string): Promise<LawyerStatusRow | undefined> {
  return selectLawyerStatus(db).where('lawyers.id', '=', id).executeTakeFirst();
}

/** Lawyers whose name contains `needle` (any case), verified and listed or not, by name then id. */
export function searchLawyersByName(db: Executor, needle: string, limit: number): Promise<LawyerStatusRow[]> {
  return selectLawyerStatus(db)
    .where(sql<boolean>`lower(lawyers.name) like ${containsPattern(needle)} escape '!'`)
    .orderBy('lawyers.name')
    .orderBy('lawyers.id')
    .limit(limit)
    .execute();
}

/** Lawyers that are not both verified and listed (what the operator has to look at), by name. */
export function listHiddenLawyers(db: Executor, limit: number): Promise<LawyerStatusRow[]> {
  return selectLawyerStatus(db)
    .where((eb) => eb.or([eb('lawyers.verified', '=', 0), eb('lawyers.listed', '=', 0)]))
    .orderBy('lawyers.name')
    .orderBy('lawyers.id')
    .limit(limit)
    .execute();
}
