/**
 * The operator's audit log: every operator action (a key's tier, suspension and lifting, a
 * lawyer's verification and listing, operators added and removed, accounts deleted, reviews
 * hidden, restored or kept after a report) leaves one
 * entry, written in the action's own transaction, so an action without its entry cannot be
 * committed. Actions that change nothing (the tier the key already has) and refused ones leave none.
 */
import { insertAuditEntry, type AuditRow } from '../../db/repositories/operator.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { OperatorIdentity } from '../access/types.ts';

export const AUDIT_ACTIONS = ['key.set_tier', 'key.suspend', 'key.unsuspend', 'lawyer.verify', 'lawyer.unverify', 'lawyer.list', 'lawyer.unlist', 'lawyer.refuse', 'lawyer.suspend', 'lawyer.reinstate', 'operator.add', 'operator.remove', 'user.delete', 'review.hide', 'review.restore', 'review.keep'] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

export type AuditTargetType = 'key' | 'lawyer' | 'user' | 'review';

export interface AuditTarget {
  type: AuditTargetType;
  id: string;
  /** What a person recognises it by, as it was then (a key's prefix, a lawyer's name, an email). */
  label: string | null;
}

/** One entry of the log, as the console and the CLI show it. */
export interface AuditEntry {
  id: number;
  at: string;
  actor: { kind: 'user'; userId: string | null; email: string | null } | { kind: 'cli' };
  action: string;
  target: { type: string; id: string; label: string | null };
  details: Record<string, unknown>;
  requestId: string | null;
}

/**
 * Writes the entry for an operator action. `db` must be the action's transaction; `by` absent
 * means the command line.
 */
export async function recordOperatorAction(
  db: Executor,
  entry: { at: string; by: OperatorIdentity | undefined; action: AuditAction; target: AuditTarget; details: Record<string, unknown> },
): Promise<void> {
  const by = entry.by ?? { kind: 'cli' as const };
  await insertAuditEntry(db, {
    at: entry.at,
    actor_type: by.kind,
    actor_user_id: by.kind === 'user' ? by.userId : null,
    actor_email: by.kind === 'user' ? by.email : null,
    action: entry.action,
    target_type: entry.target.type,
    target_id: entry.target.id,
    target_label: entry.target.label,
    details: JSON.stringify(entry.details),
    request_id: by.kind === 'user' ? by.requestId : null,
  });
}

/** A stored row as an entry (details that are not a JSON object read as empty). */
export function toAuditEntry(row: AuditRow): AuditEntry {
  let details: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(row.details);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) details = parsed as Record<string, unknown>;
  } catch {
    // An unreadable stored value shows as no details rather than breaking the log.
  }
  return {
    id: row.id,
    at: row.at,
    actor: row.actor_type === 'user' ? { kind: 'user', userId: row.actor_user_id, email: row.actor_email } : { kind: 'cli' },
    action: row.action,
    target: { type: row.target_type, id: row.target_id, label: row.target_label },
    details,
    requestId: row.request_id,
  };
}
