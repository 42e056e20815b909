/**
 * Users, firms and firm membership, with the firm permission rules (docs/keys-and-firms.md):
 * - operator: everything;
 * - owner: manages members of every role, and firm keys;
 * - admin: manages firm keys, and `member`s (add, remove, set permissions) — not owners or admins;
 * - member: nothing, unless granted permissions (`keys:manage` lets them manage firm keys).
 * Anyone may leave a firm. A firm always keeps at least one owner.
 * When someone who created firm keys leaves or changes role, the keys keep working and the
 * firm's other owners and admins are notified (stored with the change, emailed after commit).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import {
  countOwners,
  deleteMembership,
  findFirmById,
  findFirmBySlug,
  findMembership,
  findUserByEmail,
  findUserById,
  insertFirmIfSlugFree,
  insertMembershipIfAbsent,
  insertUserIfAbsent,
  listFirmsOfUser,
  listMembers,
  lockFirm,
  setUserNameIfMissing,
  updateMembership,
  type MemberRow,
} from '../../db/repositories/account.repository.ts';
import { listLiveFirmKeysCreatedBy } from '../../db/repositories/api-key.repository.ts';
import { listFirmNotificationsForUser } from '../../db/repositories/notification.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { Database } from '../../db/database.ts';
import type { DB, FirmMembershipTable, FirmTable, NotificationTable, UserTable } from '../../db/schema.ts';
import { conflict, forbidden, invalidRequest, notFound, type FieldError } from '../errors.ts';
import { normalizeEmail } from '../identity/email-address.ts';
import { LogMailer, type Logger } from '../notify/mailer.ts';
import { Notifier, type NotificationInput, type PendingNotifications } from '../notify/notifier.ts';
import { FIRM_PERMISSIONS, FIRM_ROLES, type Actor, type FirmMember, type FirmPermission, type FirmRole } from './types.ts';

export interface User {
  id: string;
  email: string;
  name: string | null;
  createdAt: string;
}

export interface Firm {
  id: string;
  slug: string;
  name: string;
  createdAt: string;
}

/** A firm key, as named in notifications. */
export interface KeyReference {
  id: string;
  prefix: string;
  name: string | null;
  mode: string;
}

/** What a role change or removal did besides the membership itself. */
export interface MembershipChange {
  /** The membership after the change; null after a removal. */
  member: FirmMember | null;
  /** Firm keys the person created that still work and should be replaced deliberately. */
  keysToReview: KeyReference[];
  /** Emails of the owners and admins who were notified about those keys. */
  notified: string[];
}

/** What the actor is to a firm: the operator, or their role and granted permissions. */
export type FirmStanding = { kind: 'operator' } | { kind: 'member'; role: FirmRole; permissions: FirmPermission[] };

/** The membership-management actions of the permission matrix. */
export type MemberAction = 'add' | 'remove' | 'set-role' | 'set-permissions';

const SILENT: Logger = { info() {}, warn() {}, error() {} };

export const KEY_CREATOR_LEFT = 'firm_key_creator_left';
export const KEY_CREATOR_ROLE_CHANGED = 'firm_key_creator_role_changed';

/** Slugs that name pages under /firms/ rather than a firm. */
const RESERVED_SLUGS = new Set(['invitations', 'new']);

/** A stored notification about a firm key's creator, as the firm's overview shows it. */
export interface KeyCreatorNotice {
  id: string;
  kind: typeof KEY_CREATOR_LEFT | typeof KEY_CREATOR_ROLE_CHANGED;
  createdAt: string;
  /** The person who left or changed role. */
  email: string;
  oldRole: FirmRole | null;
  newRole: FirmRole | null;
  keys: KeyReference[];
}

function toNotice(row: NotificationTable): KeyCreatorNotice {
  let data: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.data);
    if (parsed && typeof parsed === 'object') data = parsed as Record<string, unknown>;
  } catch {
    // A damaged row still shows, with what its columns say.
  }
  const role = (v: unknown) => ((FIRM_ROLES as readonly unknown[]).includes(v) ? (v as FirmRole) : null);
  const keys = Array.isArray(data.keys)
    ? (data.keys as Array<Record<string, unknown>>).map((k) => ({ id: String(k.id ?? ''), prefix: String(k.prefix ?? ''), name: typeof k.name === 'string' ? k.name : null, mode: String(k.mode ?? '') }))
    : [];
  return {
    id: row.id,
    kind: row.kind === KEY_CREATOR_ROLE_CHANGED ? KEY_CREATOR_ROLE_CHANGED : KEY_CREATOR_LEFT,
    createdAt: row.created_at,
    email: typeof data.email === 'string' ? data.email : '',
    oldRole: role(data.old_role),
    newRole: role(data.new_role),
    keys,
  };
}

const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** The role, or an invalid_request naming `pointer`. */
export function checkRole(role: string, pointer = '/role'): FirmRole {
  if (!(FIRM_ROLES as readonly string[]).includes(role)) {
    throw invalidRequest(`unknown role "${role}"`, [{ pointer, detail: `must be one of ${FIRM_ROLES.join(', ')}` }]);
  }
  return role as FirmRole;
}

/** Known permissions, granted to `member`s only; otherwise an invalid_request naming `pointer`. */
export function checkPermissions(permissions: readonly string[], role: FirmRole, pointer = '/permissions'): FirmPermission[] {
  const errors: FieldError[] = [];
  permissions.forEach((p, i) => {
    if (!(FIRM_PERMISSIONS as readonly string[]).includes(p)) errors.push({ pointer: `${pointer}/${i}`, detail: `must be one of ${FIRM_PERMISSIONS.join(', ')}` });
  });
  if (errors.length > 0) throw invalidRequest('unknown permission', errors);
  if (role !== 'member' && permissions.length > 0) {
    throw invalidRequest('owners and admins hold every permission by role; permissions are granted to members only', [
      { pointer, detail: 'only applies to the member role' },
    ]);
  }
  return [...new Set(permissions)] as FirmPermission[];
}

/** Stored permissions (JSON text) → the known ones. */
export function parsePermissions(json: string): FirmPermission[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value.filter((p) => (FIRM_PERMISSIONS as readonly unknown[]).includes(p)) as FirmPermission[]) : [];
  } catch {
    return [];
  }
}

/** Whether a role (with its granted permissions) holds `permission`. */
export function roleGrants(role: FirmRole, granted: readonly FirmPermission[], permission: FirmPermission): boolean {
  return role === 'owner' || role === 'admin' || granted.includes(permission);
}

/**
 * The membership rules as one pure function: may someone standing `standing` perform `action`
 * on a membership whose role is `targetRole` (for set-role, also the role it would get)?
 * Leaving (removing oneself) is decided by the caller: it is always allowed.
 */
export function mayManageMember(standing: FirmStanding, action: MemberAction, targetRole: FirmRole, newRole?: FirmRole): boolean {
  if (standing.kind === 'operator') return true;
  switch (standing.role) {
    case 'owner':
      return true;
    case 'admin':
      return action !== 'set-role' && targetRole === 'member' && (newRole === undefined || newRole === 'member');
    case 'member':
      return false;
  }
}

function toUser(row: UserTable): User {
  return { id: row.id, email: row.email, name: row.name, createdAt: row.created_at };
}

function toFirm(row: FirmTable): Firm {
  return { id: row.id, slug: row.slug, name: row.name, createdAt: row.created_at };
}

function toMember(row: MemberRow): FirmMember {
  return {
    userId: row.user_id,
    email: row.email,
    name: row.name,
    role: row.role as FirmRole,
    permissions: parsePermissions(row.permissions),
    createdAt: row.created_at,
  };
}

export interface AccountsDeps {
  database: Database;
  clock: Clock;
  /**
   * Stores and emails notifications. When absent, notifications are still stored but their
   * emails only go to a silent log: the application must pass a notifier over createMailer().
   */
  notifier?: Notifier;
}

export class AccountsService {
  private readonly deps: { db: Kysely<DB>; clock: Clock; notifier: Notifier };

  constructor(deps: AccountsDeps) {
    this.deps = {
      db: deps.database.db,
      clock: deps.clock,
      notifier: deps.notifier ?? new Notifier({ database: deps.database, clock: deps.clock, mailer: new LogMailer(SILENT), logger: SILENT }),
    };
  }

  /** The user with this email, created if absent; a missing name is filled in. */
  async ensureUser(email: string, name?: string | null, db: Executor = this.deps.db): Promise<User> {
    const normalized = normalizeEmail(email);
    const cleanName = name?.trim() ? name.trim().slice(0, 200) : null;
    const row = await insertUserIfAbsent(db, { id: randomUUID(), email: normalized, name: cleanName, created_at: this.deps.clock.now().toISOString(), locale: null });
    if (cleanName && row.name === null) {
      await setUserNameIfMissing(db, row.id, cleanName);
      return toUser({ ...row, name: cleanName });
    }
    return toUser(row);
  }

  /** The user with this email (any casing), or null. */
  async findUserByEmail(email: string): Promise<User | null> {
    const row = await findUserByEmail(this.deps.db, normalizeEmail(email));
    return row ? toUser(row) : null;
  }

  /** The user with this id, or null. */
  async findUserById(id: string): Promise<User | null> {
    const row = await findUserById(this.deps.db, id);
    return row ? toUser(row) : null;
  }

  /**
   * Creates a firm with its first owner. Any signed-in person may create a firm, and becomes its
   * owner (they may not name someone else as owner); the operator creates firms for anyone and
   * must name the owner.
   */
  async createFirm(actor: Actor, input: { slug: string; name: string; ownerEmail?: string }): Promise<{ firm: Firm; owner: FirmMember }> {
    const errors: FieldError[] = [];
    const slug = String(input.slug ?? '').trim();
    if (slug.length < 2 || slug.length > 63 || !SLUG_PATTERN.test(slug)) {
      errors.push({ pointer: '/slug', detail: 'must be 2–63 lower-case letters, digits and single hyphens, starting and ending with a letter or digit' });
    } else if (RESERVED_SLUGS.has(slug)) {
      errors.push({ pointer: '/slug', detail: `"${slug}" is reserved; choose another` });
    }
    const name = String(input.name ?? '').trim();
    if (name.length === 0 || name.length > 200 || CONTROL_CHARACTERS.test(name)) errors.push({ pointer: '/name', detail: 'must be 1–200 characters of text' });
    let ownerEmail = '';
    const creator = actor.type === 'user' ? await findUserById(this.deps.db, actor.userId) : undefined;
    if (actor.type === 'user' && !creator) throw notFound('no such user');
    try {
      if (input.ownerEmail !== undefined || !creator) ownerEmail = normalizeEmail(input.ownerEmail ?? '', '/owner_email');
      else ownerEmail = creator.email;
    } catch (err) {
      errors.push(...((err as { errors?: FieldError[] }).errors ?? []));
    }
    if (errors.length > 0) throw invalidRequest('the firm is not valid; see errors', errors);
    // A person creates firms for themselves: naming another owner would put a firm (and its
    // keys) under someone who never asked for it.
    if (creator && ownerEmail !== creator.email) throw forbidden('you can create a firm only as its owner; the operator creates firms for others');

    return this.deps.db.transaction().execute(async (tx) => {
      const now = this.deps.clock.now().toISOString();
      const firm: FirmTable = { id: randomUUID(), slug, name, created_at: now };
      if (!(await insertFirmIfSlugFree(tx, firm))) throw conflict(`a firm with the slug "${slug}" already exists`);
      const owner = await this.ensureUser(ownerEmail, null, tx);
      await insertMembershipIfAbsent(tx, { firm_id: firm.id, user_id: owner.id, role: 'owner', permissions: '[]', created_at: now });
      return {
        firm: toFirm(firm),
        owner: { userId: owner.id, email: owner.email, name: owner.name, role: 'owner' as const, permissions: [], createdAt: now },
      };
    });
  }

  /**
   * The firm named `slug` and where the actor stands in it. A user who is not a member gets
   * not_found, exactly as for a firm that does not exist: outsiders learn nothing.
   */
  async resolveFirm(actor: Actor, slug: string, db: Executor = this.deps.db): Promise<{ firm: FirmTable; standing: FirmStanding }> {
    const firm = typeof slug === 'string' ? await findFirmBySlug(db, slug.trim()) : undefined;
    if (firm) {
      const standing = await this.standing(actor, firm.id, db);
      if (standing) return { firm, standing };
    }
    throw notFound(`no firm "${slug}"`);
  }

  /** Where the actor stands in a firm, or null for a user who is not a member. */
  async standing(actor: Actor, firmId: string, db: Executor = this.deps.db): Promise<FirmStanding | null> {
    if (actor.type === 'operator') return { kind: 'operator' };
    const membership = await findMembership(db, firmId, actor.userId);
    if (!membership) return null;
    return { kind: 'member', role: membership.role as FirmRole, permissions: parsePermissions(membership.permissions) };
  }

  /** Whether the actor holds `permission` in the firm (the operator always does). */
  async can(actor: Actor, firmId: string, permission: FirmPermission, db: Executor = this.deps.db): Promise<boolean> {
    const standing = await this.standing(actor, firmId, db);
    if (!standing) return false;
    return standing.kind === 'operator' || roleGrants(standing.role, standing.permissions, permission);
  }

  /** The firm and where the actor stands in it (members and the operator; others not_found). */
  async firmStanding(actor: Actor, slug: string): Promise<{ firm: Firm; standing: FirmStanding }> {
    const { firm, standing } = await this.resolveFirm(actor, slug);
    return { firm: toFirm(firm), standing };
  }

  /** The firm (visible to its members and the operator). */
  async getFirm(actor: Actor, slug: string): Promise<Firm> {
    return toFirm((await this.resolveFirm(actor, slug)).firm);
  }

  /** Members of a firm, owners first. Visible to every member and the operator. */
  async listMembers(actor: Actor, firmSlug: string): Promise<FirmMember[]> {
    const { firm } = await this.resolveFirm(actor, firmSlug);
    return (await listMembers(this.deps.db, firm.id)).map(toMember);
  }

  /** Adds someone (by email; the account is created if needed) to a firm. */
  async addMember(actor: Actor, firmSlug: string, email: string, role: string, permissions: readonly string[] = []): Promise<FirmMember> {
    return this.deps.db.transaction().execute((tx) => this.addMemberWithin(tx, actor, firmSlug, email, role, permissions));
  }

  /**
   * addMember inside the caller's transaction: the firm lock, the rule on who may add which role,
   * and the insert. Accepting an invitation goes through here too, on behalf of whoever sent it,
   * so an invitation never grants more than its sender may grant at the moment it is accepted.
   */
  async addMemberWithin(tx: Executor, actor: Actor, firmSlug: string, email: string, role: string, permissions: readonly string[] = []): Promise<FirmMember> {
    const normalized = normalizeEmail(email);
    const checkedRole = checkRole(role);
    const granted = checkPermissions(permissions, checkedRole);
    const { firm, standing } = await this.lockedFirm(tx, actor, firmSlug);
    if (!mayManageMember(standing, 'add', checkedRole)) throw forbidden(`your role in ${firm.slug} does not allow adding ${checkedRole}s`);
    const user = await this.ensureUser(normalized, null, tx);
    const now = this.deps.clock.now().toISOString();
    const membership: FirmMembershipTable = { firm_id: firm.id, user_id: user.id, role: checkedRole, permissions: JSON.stringify(granted), created_at: now };
    if (!(await insertMembershipIfAbsent(tx, membership))) throw conflict(`${normalized} is already a member of ${firm.slug}; change their role instead`);
    return { userId: user.id, email: user.email, name: user.name, role: checkedRole, permissions: granted, createdAt: now };
  }

  /** The firms the person belongs to, by name, with their role and granted permissions. */
  async listMyFirms(actor: Actor): Promise<Array<Firm & { role: FirmRole; permissions: FirmPermission[] }>> {
    if (actor.type !== 'user') return [];
    const rows = await listFirmsOfUser(this.deps.db, actor.userId);
    return rows.map((r) => ({ ...toFirm(r), role: r.role as FirmRole, permissions: parsePermissions(r.permissions) }));
  }

  /**
   * The "key creator left / changed role" notifications this person received about the firm,
   * newest first. Owners and admins only (they are the ones notified, and the ones who can act
   * on them); a member gets forbidden, even one who was notified while an admin.
   */
  async keyCreatorNotices(actor: Actor, firmSlug: string): Promise<KeyCreatorNotice[]> {
    const { firm, standing } = await this.resolveFirm(actor, firmSlug);
    if (standing.kind === 'member' && standing.role === 'member') throw forbidden(`only owners and admins of ${firm.slug} see these notifications`);
    // The operator is not a member and receives none.
    if (actor.type !== 'user') return [];
    const rows = await listFirmNotificationsForUser(this.deps.db, actor.userId, firm.id, [KEY_CREATOR_LEFT, KEY_CREATOR_ROLE_CHANGED]);
    return rows.map(toNotice);
  }

  /**
   * Changes a member's role. Owners and admins hold every permission by role, so a role change
   * clears granted permissions (a demoted admin starts as a member with none). Refused when it
   * would leave the firm without an owner.
   */
  async setRole(actor: Actor, firmSlug: string, email: string, role: string): Promise<MembershipChange> {
    const normalized = normalizeEmail(email);
    const newRole = checkRole(role);
    let pending: PendingNotifications = { ids: [] };
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const { firm, standing } = await this.lockedFirm(tx, actor, firmSlug);
      const target = await this.memberByEmail(tx, firm, normalized);
      const oldRole = target.role as FirmRole;
      if (!mayManageMember(standing, 'set-role', oldRole, newRole)) throw forbidden(`your role in ${firm.slug} does not allow changing roles`);
      if (oldRole === newRole) return { member: toMember(target), keysToReview: [], notified: [] };
      await updateMembership(tx, firm.id, target.user_id, { role: newRole, permissions: '[]' });
      if (oldRole === 'owner' && (await countOwners(tx, firm.id)) === 0) {
        throw conflict(`${normalized} is the last owner of ${firm.slug}; make someone else an owner first`);
      }
      const notice = await this.noticeKeyCreatorChange(tx, firm, target, { event: 'role_changed', oldRole, newRole });
      pending = notice.pending;
      return { member: toMember({ ...target, role: newRole, permissions: '[]' }), keysToReview: notice.keys, notified: notice.notified };
    });
    await this.deps.notifier.deliver(pending);
    return result;
  }

  /** Replaces the permissions granted to a `member`. */
  async setPermissions(actor: Actor, firmSlug: string, email: string, permissions: readonly string[]): Promise<FirmMember> {
    const normalized = normalizeEmail(email);
    return this.deps.db.transaction().execute(async (tx) => {
      const { firm, standing } = await this.lockedFirm(tx, actor, firmSlug);
      const target = await this.memberByEmail(tx, firm, normalized);
      const role = target.role as FirmRole;
      if (!mayManageMember(standing, 'set-permissions', role)) throw forbidden(`your role in ${firm.slug} does not allow changing the permissions of ${role}s`);
      const granted = checkPermissions(permissions, role);
      await updateMembership(tx, firm.id, target.user_id, { permissions: JSON.stringify(granted) });
      return toMember({ ...target, permissions: JSON.stringify(granted) });
    });
  }

  /** Removes someone from a firm (anyone may remove themselves: leave). Never the last owner. */
  async removeMember(actor: Actor, firmSlug: string, email: string): Promise<MembershipChange> {
    const normalized = normalizeEmail(email);
    let pending: PendingNotifications = { ids: [] };
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const { firm, standing } = await this.lockedFirm(tx, actor, firmSlug);
      const target = await this.memberByEmail(tx, firm, normalized);
      const leaving = actor.type === 'user' && actor.userId === target.user_id;
      if (!leaving && !mayManageMember(standing, 'remove', target.role as FirmRole)) {
        throw forbidden(`your role in ${firm.slug} does not allow removing ${target.role}s`);
      }
      await deleteMembership(tx, firm.id, target.user_id);
      if (target.role === 'owner' && (await countOwners(tx, firm.id)) === 0) {
        throw conflict(`${normalized} is the last owner of ${firm.slug}; make someone else an owner first`);
      }
      const notice = await this.noticeKeyCreatorChange(tx, firm, target, { event: 'removed', oldRole: target.role as FirmRole, newRole: null });
      pending = notice.pending;
      return { member: null, keysToReview: notice.keys, notified: notice.notified };
    });
    await this.deps.notifier.deliver(pending);
    return result;
  }

  /**
   * Like resolveFirm, but takes the firm's lock before reading the actor's standing, so that a
   * membership change always decides on memberships no concurrent change can alter meanwhile.
   */
  private async lockedFirm(tx: Executor, actor: Actor, slug: string): Promise<{ firm: FirmTable; standing: FirmStanding }> {
    const firm = typeof slug === 'string' ? await findFirmBySlug(tx, slug.trim()) : undefined;
    if (firm) {
      await lockFirm(tx, firm.id);
      const standing = await this.standing(actor, firm.id, tx);
      if (standing) return { firm, standing };
    }
    throw notFound(`no firm "${slug}"`);
  }

  private async memberByEmail(tx: Executor, firm: FirmTable, email: string): Promise<MemberRow> {
    const user = await findUserByEmail(tx, email);
    const membership = user ? await findMembership(tx, firm.id, user.id) : undefined;
    if (!user || !membership) throw notFound(`${email} is not a member of ${firm.slug}`);
    return { ...membership, email: user.email, name: user.name };
  }

  /**
   * Firm keys created by `target` keep working when they leave or change role; the firm's other
   * owners and admins are told, in the same transaction as the change, so they can replace them.
   */
  private async noticeKeyCreatorChange(
    tx: Executor,
    firm: FirmTable,
    target: MemberRow,
    change: { event: 'removed' | 'role_changed'; oldRole: FirmRole; newRole: FirmRole | null },
  ): Promise<{ keys: KeyReference[]; notified: string[]; pending: PendingNotifications }> {
    const rows = await listLiveFirmKeysCreatedBy(tx, firm.id, target.user_id, this.deps.clock.now().toISOString());
    if (rows.length === 0) return { keys: [], notified: [], pending: { ids: [] } };
    const keys = rows.map((k) => ({ id: k.id, prefix: k.prefix, name: k.name, mode: k.mode }));
    const recipients = (await listMembers(tx, firm.id, ['owner', 'admin'])).filter((m) => m.user_id !== target.user_id);
    const what =
      change.event === 'removed'
        ? `${target.email} is no longer a member of ${firm.name} (${firm.slug}).`
        : `${target.email} changed role in ${firm.name} (${firm.slug}) from ${change.oldRole} to ${change.newRole}.`;
    const list = keys.map((k) => `  - ${k.prefix}…  ${k.name ? `"${k.name}"` : '(no name)'}  ${k.mode}, id ${k.id}`).join('\n');
    const body = [
      'Hello,',
      '',
      what,
      `They created ${keys.length === 1 ? 'this API key' : `these ${keys.length} API keys`} of the firm:`,
      '',
      list,
      '',
      `The ${keys.length === 1 ? 'key keeps' : 'keys keep'} working: nothing about ${keys.length === 1 ? 'it' : 'them'} has changed.`,
      'Please replace them deliberately: create new firm keys, move your integrations to them, then revoke the old ones',
      '(or keep them, if that is what you intend).',
      '',
      `Firm keys: consulta keys list --firm ${firm.slug}`,
      '',
      '— Consulta',
    ].join('\n');
    const inputs: NotificationInput[] = recipients.map((r) => ({
      userId: r.user_id,
      firmId: firm.id,
      kind: change.event === 'removed' ? KEY_CREATOR_LEFT : KEY_CREATOR_ROLE_CHANGED,
      subject: `${firm.name}: API keys created by ${target.email} need review`,
      body,
      data: {
        firm_id: firm.id,
        firm_slug: firm.slug,
        user_id: target.user_id,
        email: target.email,
        event: change.event,
        old_role: change.oldRole,
        new_role: change.newRole,
        keys,
      },
    }));
    const pending = await this.deps.notifier.store(tx, inputs);
    return { keys, notified: recipients.map((r) => r.email), pending };
  }

  /**
   * The firms of which this person is the only owner: leaving them (or deleting the account)
   * would leave them ownerless, which the rule above forbids. Pass a transaction that locked the
   * firms (lockFirmsOfUser) for an answer no concurrent change can alter.
   */
  async firmsOnlyOwnedBy(userId: string, db: Executor = this.deps.db): Promise<Firm[]> {
    const only: Firm[] = [];
    for (const firm of await listFirmsOfUser(db, userId)) {
      if (firm.role === 'owner' && (await countOwners(db, firm.id)) === 1) only.push(toFirm(firm));
    }
    return only;
  }

  /** Takes the locks of every firm the person belongs to, in id order (so two callers never deadlock). */
  async lockFirmsOfUser(tx: Executor, userId: string): Promise<void> {
    const firms = (await listFirmsOfUser(tx, userId)).map((f) => f.id).sort();
    for (const id of firms) await lockFirm(tx, id);
  }

  /**
   * Takes the person out of every firm they belong to, inside the caller's transaction (account
   * deletion): the same rules as leaving one by one — never a firm's last owner (conflict, and the
   * caller's transaction rolls back), and the other owners and admins are told about firm keys
   * the person created, which keep working. Pass the result's `pending` to deliverNotices after commit.
   */
  async leaveAllFirmsWithin(tx: Executor, userId: string): Promise<{ firms: Firm[]; pending: PendingNotifications[] }> {
    await this.lockFirmsOfUser(tx, userId);
    const user = await findUserById(tx, userId);
    if (!user) throw notFound('no such user');
    const firms: Firm[] = [];
    const pending: PendingNotifications[] = [];
    for (const firm of await listFirmsOfUser(tx, userId)) {
      await deleteMembership(tx, firm.id, userId);
      if (firm.role === 'owner' && (await countOwners(tx, firm.id)) === 0) {
        throw conflict(`${user.email} is the last owner of ${firm.slug}; make someone else an owner first`);
      }
      const target: MemberRow = { firm_id: firm.id, user_id: userId, role: firm.role, permissions: firm.permissions, created_at: firm.created_at, email: user.email, name: user.name };
      const notice = await this.noticeKeyCreatorChange(tx, firm, target, { event: 'removed', oldRole: firm.role as FirmRole, newRole: null });
      pending.push(notice.pending);
      firms.push(toFirm(firm));
    }
    return { firms, pending };
  }

  /** Emails notifications stored by leaveAllFirmsWithin, once its transaction committed. */
  async deliverNotices(pending: readonly PendingNotifications[]): Promise<void> {
    for (const p of pending) await this.deps.notifier.deliver(p);
  }

  /** The firm with this id (internal use: key owners). */
  async firmById(id: string, db: Executor = this.deps.db): Promise<Firm | null> {
    const row = await findFirmById(db, id);
    return row ? toFirm(row) : null;
  }
}
