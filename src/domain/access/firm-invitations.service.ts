/**
 * Invitations to join a firm, by email (docs/keys-and-firms.md#invitations):
 * - whoever may add a role (AccountsService's rule) may invite someone with that role;
 * - the link carries a random token; only its SHA-256 is stored. It expires after 7 days, is used
 *   once, and can be revoked; inviting the same address again replaces the pending invitation;
 * - the email is queued in the mail outbox in the same transaction as the invitation;
 * - only a person signed in with the invited address may accept; anyone else learns the address
 *   the invitation was sent to and nothing more (not the firm, not the role);
 * - accepting adds the membership through AccountsService.addMemberWithin on behalf of the sender,
 *   so an invitation never grants more than its sender may grant when it is accepted (a sender
 *   who left the firm, or was demoted, leaves invitations that no longer work).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { findFirmById, findMembership, findUserByEmail, findUserById } from '../../db/repositories/account.repository.ts';
import {
  findFirmInvitation,
  findInvitationByTokenHash,
  insertInvitation,
  listPendingInvitations,
  markInvitationAccepted,
  revokeInvitation,
  revokePendingInvitationsTo,
} from '../../db/repositories/firm-invitation.repository.ts';
import type { FirmInvitationTable } from '../../db/schema.ts';
import { formatInstant } from '../../i18n/format.ts';
import { isLocale, messages, type Locale } from '../../i18n/index.ts';
import { DomainError, conflict, forbidden, invalidRequest, notFound, type FieldError } from '../errors.ts';
import type { MailQueue } from '../notify/outbox.ts';
import { checkPermissions, checkRole, mayManageMember, parsePermissions, type AccountsService, type Firm } from './accounts.service.ts';
import { normalizeEmail } from '../identity/email-address.ts';
import type { Actor, FirmMember, FirmPermission, FirmRole } from './types.ts';

export const INVITATION_TTL_DAYS = 7;
export const INVITATION_MAIL_KIND = 'firm_invitation';
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/** A pending invitation, as the members page lists it. */
export interface PendingInvitation {
  id: string;
  email: string;
  role: FirmRole;
  permissions: FirmPermission[];
  /** Null when the operator invited. */
  invitedBy: string | null;
  createdAt: string;
  expiresAt: string;
}

/** Why an invitation can no longer be accepted. */
export type ClosedReason = 'expired' | 'accepted' | 'revoked';

/**
 * What the person holding an invitation link may learn: the wrong account learns only the
 * invited address; the right one sees the invitation, or why it no longer works.
 */
export type InvitationView =
  | { kind: 'wrong_account'; invitedEmail: string }
  | { kind: 'closed'; reason: ClosedReason; firm: Firm }
  | { kind: 'already_member'; firm: Firm }
  | { kind: 'open'; firm: Firm; email: string; role: FirmRole; permissions: FirmPermission[]; invitedBy: string | null; expiresAt: string };

/** The outcome of accepting: the membership, or the same refusals the view explains. */
export type AcceptResult =
  | { ok: true; firm: Firm; member: FirmMember }
  | { ok: false; view: Exclude<InvitationView, { kind: 'open' }> | { kind: 'sender_cannot'; firm: Firm } };

export interface FirmInvitationsDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'siteUrl'>;
  mail: MailQueue;
  accounts: AccountsService;
}

function toFirm(row: { id: string; slug: string; name: string; created_at: string }): Firm {
  return { id: row.id, slug: row.slug, name: row.name, createdAt: row.created_at };
}

export class FirmInvitationsService {
  constructor(private readonly deps: FirmInvitationsDeps) {}

  private get db() {
    return this.deps.database.db;
  }

  /**
   * Invites `email` to the firm with a role (and permissions, for members) and queues the email.
   * Refused like addMember: outsiders not_found, a role the actor may not add forbidden, an
   * existing member conflict (as a field error on /email). `locale` is the email's language when
   * the invited person has none of their own yet.
   */
  async invite(
    actor: Actor,
    firmSlug: string,
    input: { email: string; role: string; permissions?: readonly string[] },
    locale: Locale,
  ): Promise<{ invitation: PendingInvitation; replaced: number }> {
    const errors: FieldError[] = [];
    const grab = <T>(check: () => T): T | undefined => {
      try {
        return check();
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
        errors.push(...(err.errors ?? [{ pointer: '/', detail: err.message }]));
        return undefined;
      }
    };
    const email = grab(() => normalizeEmail(input.email));
    const role = grab(() => checkRole(input.role));
    const permissions = role ? grab(() => checkPermissions(input.permissions ?? [], role)) : undefined;
    const { firm, standing } = await this.deps.accounts.resolveFirm(actor, firmSlug);
    if (errors.length > 0 || !email || !role || !permissions) throw invalidRequest('the invitation is not valid; see errors', errors);
    if (!mayManageMember(standing, 'add', role)) throw forbidden(`your role in ${firm.slug} does not allow inviting ${role}s`);

    const invitee = await findUserByEmail(this.db, email);
    if (invitee && (await findMembership(this.db, firm.id, invitee.id))) {
      throw new DomainError('conflict', `${email} is already a member of ${firm.slug}`, [{ pointer: '/email', detail: 'is already a member' }]);
    }
    const inviter = actor.type === 'user' ? await findUserById(this.db, actor.userId) : undefined;
    const mailLocale: Locale = isLocale(invitee?.locale) ? invitee.locale : locale;
    const now = this.deps.clock.now();
    const token = randomBytes(32).toString('base64url');
    const row: FirmInvitationTable = {
      id: randomUUID(),
      firm_id: firm.id,
      email,
      role,
      permissions: JSON.stringify(permissions),
      token_hash: sha256(token),
      invited_by_user_id: inviter?.id ?? null,
      locale: mailLocale,
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + INVITATION_TTL_DAYS * 86_400_000).toISOString(),
      accepted_at: null,
      accepted_by_user_id: null,
      revoked_at: null,
    };
    const t = messages(mailLocale).firms;
    const link = `${this.deps.config.siteUrl}/firms/invitations/${token}`;
    const sender = inviter?.email ?? t.mail.theOperator;
    const { replaced, ids } = await this.db.transaction().execute(async (tx) => {
      // One open invitation per address and firm: the newest link is the one that works.
      const replaced = await revokePendingInvitationsTo(tx, firm.id, email, row.created_at);
      await insertInvitation(tx, row);
      const ids = await this.deps.mail.enqueue(tx, [
        {
          kind: INVITATION_MAIL_KIND,
          to: email,
          subject: t.mail.subject(sender, firm.name),
          text: t.mail.body({
            sender,
            firm: firm.name,
            role: t.roles[role],
            permissions: permissions.map((p) => t.permissionNames[p]),
            link,
            email,
            expires: formatInstant(row.expires_at, 'Europe/Madrid', mailLocale),
          }),
        },
      ]);
      return { replaced, ids };
    });
    await this.deps.mail.deliver(ids);
    return {
      invitation: { id: row.id, email, role, permissions, invitedBy: inviter?.email ?? null, createdAt: row.created_at, expiresAt: row.expires_at },
      replaced,
    };
  }

  /** The firm's invitations that can still be accepted, newest first (for those who may invite). */
  async listPending(actor: Actor, firmSlug: string): Promise<PendingInvitation[]> {
    const { firm, standing } = await this.deps.accounts.resolveFirm(actor, firmSlug);
    if (!mayManageMember(standing, 'add', 'member')) throw forbidden(`your role in ${firm.slug} does not allow seeing invitations`);
    const rows = await listPendingInvitations(this.db, firm.id, this.deps.clock.now().toISOString());
    return rows.map((r) => ({
      id: r.id,
      email: r.email,
      role: r.role as FirmRole,
      permissions: parsePermissions(r.permissions),
      invitedBy: r.invited_by_email,
      createdAt: r.created_at,
      expiresAt: r.expires_at,
    }));
  }

  /**
   * Revokes a pending invitation: its link stops working. Allowed to whoever may add its role.
   * An id of another firm is not_found; revoking twice is a no-op; an accepted one is a conflict.
   */
  async revoke(actor: Actor, firmSlug: string, invitationId: string): Promise<void> {
    const { firm, standing } = await this.deps.accounts.resolveFirm(actor, firmSlug);
    const row = typeof invitationId === 'string' && /^[0-9a-f-]{36}$/.test(invitationId) ? await findFirmInvitation(this.db, firm.id, invitationId) : undefined;
    if (!row) throw notFound(`no invitation ${invitationId} in ${firm.slug}`);
    if (!mayManageMember(standing, 'add', row.role as FirmRole)) throw forbidden(`your role in ${firm.slug} does not allow revoking invitations of ${row.role}s`);
    if (row.revoked_at !== null) return;
    if (row.accepted_at !== null) throw conflict('the invitation was already accepted; remove the member instead');
    if (!(await revokeInvitation(this.db, row.id, this.deps.clock.now().toISOString()))) {
      const again = await findFirmInvitation(this.db, firm.id, row.id);
      if (again?.accepted_at) throw conflict('the invitation was already accepted; remove the member instead');
    }
  }

  /** What the signed-in person sees when they open an invitation link. Unknown token: not_found. */
  async open(actor: Actor & { type: 'user' }, token: string): Promise<InvitationView> {
    const { row, firm, user } = await this.lookup(actor, token);
    if (user.email !== row.email) return { kind: 'wrong_account', invitedEmail: row.email };
    const closed = this.closedReason(row);
    if (closed) return { kind: 'closed', reason: closed, firm };
    if (await findMembership(this.db, firm.id, user.id)) return { kind: 'already_member', firm };
    const inviter = row.invited_by_user_id ? await findUserById(this.db, row.invited_by_user_id) : undefined;
    return {
      kind: 'open',
      firm,
      email: row.email,
      role: row.role as FirmRole,
      permissions: parsePermissions(row.permissions),
      invitedBy: inviter?.email ?? null,
      expiresAt: row.expires_at,
    };
  }

  /**
   * Accepts an invitation as the signed-in person: in one transaction the membership is added
   * (on behalf of the sender, with their rights now) and the invitation is used up — guarded, so
   * of two concurrent acceptances, or an acceptance racing a revocation, only one takes effect.
   */
  async accept(actor: Actor & { type: 'user' }, token: string): Promise<AcceptResult> {
    const { row, firm, user } = await this.lookup(actor, token);
    if (user.email !== row.email) return { ok: false, view: { kind: 'wrong_account', invitedEmail: row.email } };
    const closed = this.closedReason(row);
    if (closed) return { ok: false, view: { kind: 'closed', reason: closed, firm } };
    const sender: Actor = row.invited_by_user_id ? { type: 'user', userId: row.invited_by_user_id } : { type: 'operator' };
    try {
      const member = await this.db.transaction().execute(async (tx) => {
        const added = await this.deps.accounts.addMemberWithin(tx, sender, firm.slug, row.email, row.role, parsePermissions(row.permissions));
        if (!(await markInvitationAccepted(tx, row.id, user.id, this.deps.clock.now().toISOString()))) throw new StaleInvitation();
        return added;
      });
      return { ok: true, firm, member };
    } catch (err) {
      if (err instanceof StaleInvitation) {
        const again = await findInvitationByTokenHash(this.db, row.token_hash);
        return { ok: false, view: { kind: 'closed', reason: (again && this.closedReason(again)) ?? 'revoked', firm } };
      }
      if (!(err instanceof DomainError)) throw err;
      if (err.code === 'conflict') return { ok: false, view: { kind: 'already_member', firm } };
      // The sender left the firm (not_found) or may no longer add this role (forbidden).
      if (err.code === 'not_found' || err.code === 'forbidden') return { ok: false, view: { kind: 'sender_cannot', firm } };
      throw err;
    }
  }

  private closedReason(row: FirmInvitationTable): ClosedReason | null {
    if (row.accepted_at !== null) return 'accepted';
    if (row.revoked_at !== null) return 'revoked';
    if (row.expires_at <= this.deps.clock.now().toISOString()) return 'expired';
    return null;
  }

  private async lookup(actor: Actor & { type: 'user' }, token: string) {
    const row = typeof token === 'string' && TOKEN_PATTERN.test(token) ? await findInvitationByTokenHash(this.db, sha256(token)) : undefined;
    const firm = row ? await findFirmById(this.db, row.firm_id) : undefined;
    const user = await findUserById(this.db, actor.userId);
    if (!row || !firm || !user) throw notFound('no such invitation');
    return { row, firm: toFirm(firm), user };
  }
}

/** The invitation stopped being pending between the read and the acceptance. */
class StaleInvitation extends Error {}
