/**
 * The emails a lawyer gets about her verification (issue 26 item 6; docs/mail.md#to-lawyers):
 * verified, refused (with the operator's reason), 30 and 7 days before it expires (with what to
 * do), expired, suspended (with the reason). In her language — her account's locale among the six,
 * else Spanish — from the one mail outbox, each once: the notice row (lawyer, kind, cycle) is
 * inserted in the transaction that queues the mail, so two sweeps or two operators' processes on
 * one PostgreSQL database queue it once (the second insert waits for the first and does nothing).
 */
import { claimVerificationNotice, findNoticeTarget, listVerificationNoticesOf, setVerificationNoticeMail } from '../../db/repositories/verification-notices.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { VerificationNoticeKind } from '../../db/schema.ts';
import { formatDay } from '../../i18n/format.ts';
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import { DEFAULT_LOCALE, isLocale, messages, type Locale } from '../../i18n/index.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';

export const VERIFICATION_NOTICE_KINDS: Readonly<Record<VerificationNoticeKind, string>> = {
  verified: 'lawyer_verified',
  refused: 'lawyer_application_refused',
  expires_30: 'lawyer_verification_expires_30',
  expires_7: 'lawyer_verification_expires_7',
  expired: 'lawyer_verification_expired',
  suspended: 'lawyer_suspended',
};

/** The email of one notice, in `locale`. `reason`: the operator's words (refused, suspended), quoted as written. */
export function verificationNoticeMail(kind: VerificationNoticeKind, c: { to: string; name: string; locale: Locale; expiresAt: string | null; reason?: string | null; form?: FormOfAddress | null }): OutgoingMail {
  const t = messages(c.locale).lawyerMail;
  const date = c.expiresAt ? formatDay(c.expiresAt.slice(0, 10), c.locale) : '—';
  const quoted = (reason: string | null | undefined) => (reason ? ['', '-----', reason, '-----', ''] : ['']);
  let subject: string;
  let body: string[];
  switch (kind) {
    case 'verified':
      subject = t.verified.subject(c.form ?? null);
      body = [t.verified.text(date)];
      break;
    case 'refused':
      subject = t.refused.subject;
      body = [t.refused.text, ...quoted(c.reason), t.refused.todo];
      break;
    case 'expires_30':
    case 'expires_7':
      subject = t.expires.subject(date);
      body = [t.expires.text(date), '', t.expires.todo];
      break;
    case 'expired':
      subject = t.expired.subject;
      body = [t.expired.text, '', t.expired.todo];
      break;
    case 'suspended':
      subject = t.suspended.subject;
      body = [t.suspended.text, ...quoted(c.reason), t.suspended.todo];
      break;
  }
  return { kind: VERIFICATION_NOTICE_KINDS[kind], to: c.to, subject, text: [t.hello(sanitizeShortText(c.name)), '', ...body, '', `— ${t.signature}`].join('\n') };
}

/**
 * Queues one notice with `tx`, once per (lawyer, kind, cycle); returns the mail ids to deliver
 * after commit (none when it was already sent, or she has no address).
 */
export async function queueVerificationNotice(tx: Executor, mail: MailQueue, c: { lawyerId: string; kind: VerificationNoticeKind; cycle: string; nowIso: string; reason?: string | null; expiresAt?: string | null }): Promise<string[]> {
  const target = await findNoticeTarget(tx, c.lawyerId);
  if (!target) return [];
  const to = target.user_email ?? target.contact_email;
  if (!(await claimVerificationNotice(tx, { lawyer_id: c.lawyerId, kind: c.kind, cycle: c.cycle, created_at: c.nowIso }))) return [];
  if (!to) return [];
  const locale: Locale = isLocale(target.user_locale) ? target.user_locale : DEFAULT_LOCALE;
  const ids = await mail.enqueue(tx, [verificationNoticeMail(c.kind, { to, name: target.name, locale, expiresAt: c.expiresAt ?? target.expires_at, reason: c.reason ?? null, form: target.form_of_address ?? null })]);
  if (ids[0]) await setVerificationNoticeMail(tx, { lawyer_id: c.lawyerId, kind: c.kind, cycle: c.cycle }, ids[0]);
  return ids;
}

/** A verification email as the operator sees it (`consulta lawyers show`). */
export interface SentVerificationNotice {
  kind: VerificationNoticeKind;
  /** When it was queued (ISO). */
  at: string;
  /** The expiry it is about (reminders, expiry) or the event's time. */
  cycle: string;
  /** The outbox's state (`queued`, `sent`, `local`, `failed`), or `no_address` when she had none and nothing was written. */
  delivery: string;
}

/** The verification emails written for her, oldest first. */
export async function sentVerificationNotices(db: Executor, lawyerId: string): Promise<SentVerificationNotice[]> {
  const rows = await listVerificationNoticesOf(db, lawyerId);
  return rows.map((r) => ({ kind: r.kind, at: r.created_at, cycle: r.cycle, delivery: r.mail_id === null ? 'no_address' : (r.mail_status ?? 'erased') }));
}
