/** Invitations to join a firm (0014): stored by the hash of their link's token. */
import type { FirmInvitationTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** A pending invitation with the email of whoever sent it (null: the operator). */
export interface InvitationRow extends FirmInvitationTable {
  invited_by_email: string | null;
}

/** Stores an invitation (in the caller's transaction). */
export async function insertInvitation(db: Executor, row: FirmInvitationTable): Promise<void> {
  await db.insertInto('firm_invitations').values(row).execute();
}

/** The invitation whose token has this hash. */
export function findInvitationByTokenHash(db: Executor, tokenHash: string): Promise<FirmInvitationTable | undefined> {
  return db.selectFrom('firm_invitations').selectAll().where('token_hash', '=', tokenHash).executeTakeFirst();
}

/** One invitation of one firm (an id from another firm is not found). */
export function findFirmInvitation(db: Executor, firmId: string, id: string): Promise<FirmInvitationTable | undefined> {
  return db.selectFrom('firm_invitations').selectAll().where('firm_id', '=', firmId).where('id', '=', id).executeTakeFirst();
}

/** A firm's invitations that can still be accepted at `nowIso`, newest first. */
export function listPendingInvitations(db: Executor, firmId: string, nowIso: string): Promise<InvitationRow[]> {
  return db
    .selectFrom('firm_invitations')
    .leftJoin('users', 'users.id', 'firm_invitations.invited_by_user_id')
    .selectAll('firm_invitations')
    .select('users.email as invited_by_email')
    .where('firm_invitations.firm_id', '=', firmId)
    .where('firm_invitations.accepted_at', 'is', null)
    .where('firm_invitations.revoked_at', 'is', null)
    .where('firm_invitations.expires_at', '>', nowIso)
    .orderBy('firm_invitations.created_at', 'desc')
    .orderBy('firm_invitations.id')
    .limit(200)
    .execute();
}

/**
 * Revokes the pending invitations of one address to one firm (a new invitation replaces them).
 * Returns how many were revoked.
 */
export async function revokePendingInvitationsTo(db: Executor, firmId: string, email: string, nowIso: string): Promise<number> {
  const result = await db
    .updateTable('firm_invitations')
    .set({ revoked_at: nowIso })
    .where('firm_id', '=', firmId)
    .where('email', '=', email)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Revokes one invitation if it is still open; false when it was already accepted or revoked. */
export async function revokeInvitation(db: Executor, id: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('firm_invitations')
    .set({ revoked_at: nowIso })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Marks an invitation accepted — only if it is still pending at `nowIso`. The guard is in the
 * update itself, so of two concurrent acceptances (or an acceptance racing a revocation) exactly
 * one wins. False when it was not pending.
 */
export async function markInvitationAccepted(db: Executor, id: string, userId: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('firm_invitations')
    .set({ accepted_at: nowIso, accepted_by_user_id: userId })
    .where('id', '=', id)
    .where('accepted_at', 'is', null)
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
