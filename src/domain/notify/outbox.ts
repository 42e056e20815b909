/**
 * The mail queue every email of the booking flow goes through (sign-in codes, receipts, lawyer
 * notices). Mail is stored in the caller's transaction, so it exists exactly when the change it
 * describes committed, and is sent after commit; with no SMTP_URL it stays in the local outbox
 * (readable with `consulta mail show --last`) and is logged.
 */
import type { Executor } from '../../db/repositories/types.ts';

export interface MailAttachment {
  filename: string;
  contentType: string;
  /** UTF-8 text (an .ics invitation). */
  content: string;
}

export interface OutgoingMail {
  /** Stable machine name: `sign_in`, `consultation_receipt`, `consultation_lawyer_notice`… */
  kind: string;
  to: string;
  subject: string;
  text: string;
  html?: string;
  attachments?: readonly MailAttachment[];
  /**
   * Holds a secret (a sign-in code): its body is erased from the queue once an SMTP server
   * accepted it. In the local outbox (no SMTP) it stays, for the mailbox owner at the console.
   */
  sensitive?: boolean;
}

export interface MailQueue {
  /** Stores mails with `tx`; returns their ids, to pass to `deliver` after commit. */
  enqueue(tx: Executor, mails: readonly OutgoingMail[]): Promise<string[]>;
  /** Sends stored mails now (best effort; failures are retried by the jobs runner). Never throws. */
  deliver(ids: readonly string[]): Promise<void>;
}
