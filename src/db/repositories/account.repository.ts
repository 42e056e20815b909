/** Users, firms and firm memberships. */
import type { FirmMembershipTable, FirmTable, UserTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** A membership joined with its user, as member lists show it. */
export interface MemberRow extends FirmMembershipTable {
  email: string;
  name: string | null;
}

/** Inserts the user unless one with this (lower-cased) email exists; returns the stored user. */
export async function insertUserIfAbsent(db: Executor, user: UserTable): Promise<UserTable> {
  // insert … on conflict do nothing, then read: correct under concurrent sign-ups on both databases.
  await db.insertInto('users').values(user).onConflict((oc) => oc.column('email').doNothing()).execute();
  return db.selectFrom('users').selectAll().where('email', '=', user.email).executeTakeFirstOrThrow();
}

/** The user with this (already lower-cased) email. */
export function findUserByEmail(db: Executor, email: string): Promise<UserTable | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

/** The user with this id. */
export function findUserById(db: Executor, id: string): Promise<UserTable | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Sets the display name of a user who has none yet (a later sign-up never overwrites it). */
export async function setUserNameIfMissing(db: Executor, id: string, name: string): Promise<void> {
  await db.updateTable('users').set({ name }).where('id', '=', id).where('name', 'is', null).execute();
}

/** Sets (or, null, removes) a user's display name: Account → Your name. */
export async function setUserName(db: Executor, id: string, name: string | null): Promise<void> {
  await db.updateTable('users').set({ name }).where('id', '=', id).execute();
}

/** Inserts a firm; false when the slug is taken. */
export async function insertFirmIfSlugFree(db: Executor, firm: FirmTable): Promise<boolean> {
  const result = await db.insertInto('firms').values(firm).onConflict((oc) => oc.column('slug').doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The firm with this slug. */
export function findFirmBySlug(db: Executor, slug: string): Promise<FirmTable | undefined> {
  return db.selectFrom('firms').selectAll().where('slug', '=', slug).executeTakeFirst();
}

/** The firm with this id. */
export function findFirmById(db: Executor, id: string): Promise<FirmTable | undefined> {
  return db.selectFrom('firms').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Serialises membership changes of one firm until the transaction ends: a no-op update takes
 * the row lock on PostgreSQL and the write lock on SQLite. Without it, two owners removing each
 * other at the same time would both see "another owner remains" and leave the firm ownerless.
 */
export async function lockFirm(db: Executor, firmId: string): Promise<void> {
  await db.updateTable('firms').set((eb) => ({ name: eb.ref('name') })).where('id', '=', firmId).execute();
}

/** One user's membership of one firm. */
export function findMembership(db: Executor, firmId: string, userId: string): Promise<FirmMembershipTable | undefined> {
  return db.selectFrom('firm_memberships').selectAll().where('firm_id', '=', firmId).where('user_id', '=', userId).executeTakeFirst();
}

/** Inserts a membership; false when the user is already a member. */
export async function insertMembershipIfAbsent(db: Executor, membership: FirmMembershipTable): Promise<boolean> {
  const result = await db
    .insertInto('firm_memberships')
    .values(membership)
    .onConflict((oc) => oc.columns(['firm_id', 'user_id']).doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Changes a membership's role and/or granted permissions (JSON text). */
export async function updateMembership(
  db: Executor,
  firmId: string,
  userId: string,
  changes: Partial<Pick<FirmMembershipTable, 'role' | 'permissions'>>,
): Promise<void> {
  await db.updateTable('firm_memberships').set(changes).where('firm_id', '=', firmId).where('user_id', '=', userId).execute();
}

/** Removes a user from a firm. */
export async function deleteMembership(db: Executor, firmId: string, userId: string): Promise<void> {
  await db.deleteFrom('firm_memberships').where('firm_id', '=', firmId).where('user_id', '=', userId).execute();
}

/** Members with their email, owners first, then admins, then members, each by email. */
export async function listMembers(db: Executor, firmId: string, roles?: readonly string[]): Promise<MemberRow[]> {
  let query = db
    .selectFrom('firm_memberships')
    .innerJoin('users', 'users.id', 'firm_memberships.user_id')
    .select([
      'firm_memberships.firm_id',
      'firm_memberships.user_id',
      'firm_memberships.role',
      'firm_memberships.permissions',
      'firm_memberships.created_at',
      'users.email',
      'users.name',
    ])
    .where('firm_memberships.firm_id', '=', firmId);
  if (roles) query = query.where('firm_memberships.role', 'in', roles);
  const rows = await query.orderBy('users.email').execute();
  const rank: Record<string, number> = { owner: 0, admin: 1, member: 2 };
  return rows.sort((a, b) => (rank[a.role] ?? 9) - (rank[b.role] ?? 9));
}

/** How many owners the firm has (the service keeps it ≥ 1). */
export async function countOwners(db: Executor, firmId: string): Promise<number> {
  const row = await db
    .selectFrom('firm_memberships')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('firm_id', '=', firmId)
    .where('role', '=', 'owner')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A firm with the role one user holds in it. */
export interface FirmWithRole extends FirmTable {
  role: string;
  permissions: string;
}

/** The firms a user belongs to, by name. */
export function listFirmsOfUser(db: Executor, userId: string): Promise<FirmWithRole[]> {
  return db
    .selectFrom('firm_memberships')
    .innerJoin('firms', 'firms.id', 'firm_memberships.firm_id')
    .selectAll('firms')
    .select(['firm_memberships.role', 'firm_memberships.permissions'])
    .where('firm_memberships.user_id', '=', userId)
    .orderBy('firms.name')
    .orderBy('firms.slug')
    .execute();
}
