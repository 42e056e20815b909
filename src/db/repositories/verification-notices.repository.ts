/** The emails of a lawyer's verification, each once (0037): the key is (lawyer, kind, cycle). */
import type { VerificationNoticeKind } from '../schema.ts';
import type { Executor } from './types.ts';

/** Records a notice; true only for the first caller (a concurrent insert of the same key waits, then does nothing). */
export async function claimVerificationNotice(db: Executor, row: { lawyer_id: string; kind: VerificationNoticeKind; cycle: string; created_at: string }): Promise<boolean> {
  const result = await db.insertInto('lawyer_verification_notices').values({ ...row, mail_id: null }).onConflict((oc) => oc.columns(['lawyer_id', 'kind', 'cycle']).doNothing()).executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

export async function setVerificationNoticeMail(db: Executor, key: { lawyer_id: string; kind: VerificationNoticeKind; cycle: string }, mailId: string): Promise<void> {
  await db.updateTable('lawyer_verification_notices').set({ mail_id: mailId }).where('lawyer_id', '=', key.lawyer_id).where('kind', '=', key.kind).where('cycle', '=', key.cycle).execute();
}

/** Who a verification email goes to: her account's address and language, else her contact address (Spanish). */
export interface NoticeTarget {
  lawyer_id: string;
  name: string;
  /** How she asked to be addressed (docs/lawyers.md#how-she-is-named); null: not given. */
  form_of_address?: 'female' | 'male' | 'neutral' | null;
  contact_email: string | null;
  user_email: string | null;
  user_locale: string | null;
  /** Her latest verification's expiry, if any. */
  expires_at: string | null;
}

export async function findNoticeTarget(db: Executor, lawyerId: string): Promise<NoticeTarget | undefined> {
  const row = await db
    .selectFrom('lawyers as l')
    .leftJoin('users as u', 'u.id', 'l.user_id')
    .select(['l.id as lawyer_id', 'l.name', 'l.form_of_address', 'l.contact_email', 'u.email as user_email', 'u.locale as user_locale'])
    .where('l.id', '=', lawyerId)
    .executeTakeFirst();
  if (!row) return undefined;
  const v = await db.selectFrom('lawyer_verifications').select('expires_at').where('lawyer_id', '=', lawyerId).orderBy('expires_at', 'desc').limit(1).executeTakeFirst();
  return { ...row, expires_at: v?.expires_at ?? null };
}

/** Verified lawyers whose latest verification expires within (after, until] and who have not had `kind` for it. */
export async function listExpiringWithoutNotice(db: Executor, kind: VerificationNoticeKind, afterIso: string, untilIso: string, limit: number): Promise<Array<{ lawyer_id: string; expires_at: string }>> {
  return db
    .selectFrom('lawyer_verifications as v')
    .innerJoin('lawyers as l', 'l.id', 'v.lawyer_id')
    .select(['v.lawyer_id', 'v.expires_at'])
    .where('l.status', '=', 'verified')
    .where('v.expires_at', '>', afterIso)
    .where('v.expires_at', '<=', untilIso)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('lawyer_verifications as later').select('later.id').whereRef('later.lawyer_id', '=', 'v.lawyer_id').whereRef('later.expires_at', '>', 'v.expires_at'))),
    )
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('lawyer_verification_notices as n').select('n.lawyer_id').whereRef('n.lawyer_id', '=', 'v.lawyer_id').where('n.kind', '=', kind).whereRef('n.cycle', '=', 'v.expires_at'))),
    )
    .orderBy('v.expires_at')
    .limit(limit)
    .execute();
}

/** The verification emails sent to a lawyer, oldest first, with the mail's delivery state (null: she had no address). */
export function listVerificationNoticesOf(db: Executor, lawyerId: string): Promise<Array<{ kind: VerificationNoticeKind; cycle: string; created_at: string; mail_id: string | null; mail_status: string | null; recipient: string | null }>> {
  return db
    .selectFrom('lawyer_verification_notices as n')
    .leftJoin('mail_outbox as m', 'm.id', 'n.mail_id')
    .select(['n.kind', 'n.cycle', 'n.created_at', 'n.mail_id', 'm.status as mail_status', 'm.recipient'])
    .where('n.lawyer_id', '=', lawyerId)
    .orderBy('n.created_at', 'asc')
    .orderBy('n.kind', 'asc')
    .execute();
}
