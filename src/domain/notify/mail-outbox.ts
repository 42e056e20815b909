/**
 * The mail outbox: every email is stored in the transaction of the change it reports (so it
 * exists exactly when that change committed) and sent after commit.
 *
 * - With SMTP (a mailer): `deliver` sends at once; a send the server refuses or that fails is
 *   retried by `deliverDue` after 1 min, 5 min and 30 min, then the mail is `failed`. Sending is
 *   claimed under a lease (mail.repository.ts), so several processes never send the same attempt,
 *   and a mail whose sender died is sent again once its lease lapses (at least once, not exactly once).
 * - Without SMTP (mailer null): mail moves to the local outbox (status `local`) and is logged;
 *   `consulta mail show --last` reads it there.
 * - Sensitive mail (sign-in codes): its body and attachments are erased as soon as an SMTP server
 *   accepted it (or it finally failed), so the database never keeps a usable code. In the local
 *   outbox it stays: there the console is the mailbox.
 * - `deliver` and `deliverDue` never throw: mail is best effort and never undoes what it reports.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  claimQueuedMails,
  deleteOldMails,
  findMail,
  insertMails,
  keepQueuedMailsLocally,
  listMails,
  releaseMailClaims,
  settleMail,
  type MailSettlement,
  type QueuedSelection,
} from '../../db/repositories/mail.repository.ts';
import type { MailOutboxTable } from '../../db/schema.ts';
import type { Executor } from '../../db/repositories/types.ts';
import { emailRefusalDetail, normalizeEmail, parseEmailAddress } from '../identity/email-address.ts';
import { drainInBatches } from '../operations/batches.ts';
import { oneLine, type Logger, type Mailer } from './mailer.ts';
import type { MailAttachment, MailQueue, OutgoingMail } from './outbox.ts';

/** Delays before the 2nd, 3rd and 4th attempt; after the 4th failure the mail is `failed`. */
export const MAIL_RETRY_SCHEDULE_SECONDS: readonly number[] = [60, 300, 1800];
/** A claim outlasts one SMTP send (nodemailer's timeouts add up to 40 s). */
export const MAIL_LEASE_MS = 120_000;
/** How long mail that is no longer queued is kept. */
export const MAIL_RETENTION_DAYS = 30;

export interface MailOutboxDeps {
  database: Database;
  clock: Clock;
  /** The SMTP mailer; null when SMTP_URL is unset (mail stays in the local outbox). */
  mailer: Mailer | null;
  logger: Logger;
  retryScheduleSeconds?: readonly number[];
}

/** A stored mail, as `consulta mail` shows it. */
export interface OutboxMail {
  id: string;
  kind: string;
  to: string;
  subject: string;
  /** Empty once erased. */
  text: string;
  html: string | null;
  attachments: MailAttachment[];
  sensitive: boolean;
  status: 'queued' | 'sent' | 'local' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  sentAt: string | null;
  erasedAt: string | null;
}

export interface MailDeliveryReport {
  /** Accepted by the SMTP server. */
  sent: number;
  /** Refused or failed, to be retried later. */
  retrying: number;
  /** Refused or failed for the last time. */
  failed: number;
  /** Kept in the local outbox (no SMTP). */
  local: number;
}

let lastIdMs = 0;
let idSequence = 0;

/**
 * A UUID version 7 (RFC 9562): the time in ms, then a per-process sequence and random bits.
 * Time-ordered, so "newest first" is well defined even for mails enqueued in the same millisecond.
 */
function mailId(nowMs: number): string {
  if (nowMs > lastIdMs) {
    lastIdMs = nowMs;
    idSequence = 0;
  } else if (++idSequence > 0xfff) {
    lastIdMs++;
    idSequence = 0;
  }
  const random = randomBytes(8);
  const hex = lastIdMs.toString(16).padStart(12, '0') + '7' + idSequence.toString(16).padStart(3, '0') + ((random[0]! & 0x3f) | 0x80).toString(16).padStart(2, '0') + random.subarray(1).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

function parseAttachments(json: string): MailAttachment[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? (value as MailAttachment[]) : [];
  } catch {
    return [];
  }
}

function view(row: MailOutboxTable): OutboxMail {
  return {
    id: row.id,
    kind: row.kind,
    to: row.recipient,
    subject: row.subject,
    text: row.text,
    html: row.html,
    attachments: parseAttachments(row.attachments),
    sensitive: row.sensitive === 1,
    status: row.status as OutboxMail['status'],
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    lastError: row.last_error,
    createdAt: row.created_at,
    sentAt: row.sent_at,
    erasedAt: row.erased_at,
  };
}

const ERASED = { text: '', html: null, attachments: '[]' } as const;

export class MailOutbox implements MailQueue {
  private readonly schedule: readonly number[];
  private readonly inFlight = new Set<Promise<unknown>>();
  private closed = false;

  constructor(private readonly deps: MailOutboxDeps) {
    this.schedule = deps.retryScheduleSeconds ?? MAIL_RETRY_SCHEDULE_SECONDS;
  }

  /** Whether mail goes out through SMTP (false: the local outbox). */
  get sendsMail(): boolean {
    return this.deps.mailer !== null;
  }

  /** Stores mails with `tx` (the caller's transaction); pass the ids to `deliver` after commit. */
  async enqueue(tx: Executor, mails: readonly OutgoingMail[]): Promise<string[]> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const rows: MailOutboxTable[] = mails.map((m) => {
      const row: MailOutboxTable = {
        id: mailId(now.getTime()),
        kind: m.kind,
        recipient: '',
        subject: oneLine(m.subject),
        text: m.text,
        html: m.html ?? null,
        attachments: JSON.stringify((m.attachments ?? []).map((a) => ({ filename: a.filename, contentType: a.contentType, content: a.content }))),
        sensitive: m.sensitive ? 1 : 0,
        status: 'queued',
        attempts: 0,
        // Due at once: if the process dies before `deliver`, the sweep sends it.
        next_attempt_at: nowIso,
        locked_until: null,
        claim_token: null,
        last_error: null,
        created_at: nowIso,
        sent_at: null,
        erased_at: null,
      };
      // The recipient in the normal form every other place uses, so `mail list --to` and the
      // SMTP envelope name the same mailbox as the account. An address stored before the strict
      // rules that no longer parses is never handed to the mail library (which might read it as
      // another mailbox): the mail is recorded as failed, and what it reported still commits.
      const parsed = parseEmailAddress(m.to);
      if (parsed.ok) return { ...row, recipient: parsed.address };
      this.deps.logger.warn({ mail: { id: row.id, kind: row.kind } }, 'mail not sent: the recipient is not a valid email address');
      return {
        ...row,
        ...(m.sensitive ? { ...ERASED, erased_at: nowIso } : {}),
        recipient: oneLine(m.to).slice(0, 254),
        status: 'failed',
        next_attempt_at: null,
        last_error: `not sent: the recipient is not a valid email address (${emailRefusalDetail(parsed.reason)})`,
      };
    });
    await insertMails(tx, rows);
    return rows.map((r) => r.id);
  }

  /** Sends stored mails now (or keeps them in the local outbox). Never throws. */
  async deliver(ids: readonly string[]): Promise<void> {
    if (ids.length === 0 || this.closed) return;
    await this.track(this.run({ ids }).catch((err: unknown) => {
      this.deps.logger.error({ err, mails: ids }, 'mail delivery failed');
    }));
  }

  /** Sends (or keeps locally) every queued mail that is due, retries included. Never throws. */
  async deliverDue(batch = 50): Promise<MailDeliveryReport> {
    const total: MailDeliveryReport = { sent: 0, retrying: 0, failed: 0, local: 0 };
    try {
      for (;;) {
        if (this.closed) return total;
        const { report, taken } = await this.track(this.run({ dueBy: this.deps.clock.now().toISOString(), limit: batch }));
        total.sent += report.sent;
        total.retrying += report.retrying;
        total.failed += report.failed;
        total.local += report.local;
        if (taken < batch) return total;
      }
    } catch (err) {
      this.deps.logger.error({ err }, 'mail sweep failed');
      return total;
    }
  }

  /** Resolves once every delivery started so far has finished (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops sending, waits for the sends in flight, and closes the SMTP connection. */
  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
    await this.deps.mailer?.close().catch(() => {});
  }

  /** Deletes mail older than `days` that is no longer queued, in bounded batches; returns how many. */
  async purge(days = MAIL_RETENTION_DAYS, batch = 1000): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - days * 86_400_000).toISOString();
    return (await drainInBatches((limit) => deleteOldMails(this.deps.database.db, before, limit), batch)).deleted;
  }

  /** Mails newest first, all or those to one address. */
  async list(options: { to?: string; limit?: number } = {}): Promise<OutboxMail[]> {
    const recipient = options.to === undefined ? undefined : normalizeEmail(options.to, '/to');
    const rows = await listMails(this.deps.database.db, { recipient, limit: options.limit ?? 20 });
    return rows.map(view);
  }

  async find(id: string): Promise<OutboxMail | undefined> {
    const row = await findMail(this.deps.database.db, id);
    return row && view(row);
  }

  /** The newest mail, to one address or to anyone. */
  async last(to?: string): Promise<OutboxMail | undefined> {
    return (await this.list({ to, limit: 1 }))[0];
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.inFlight.add(work);
    void work.finally(() => this.inFlight.delete(work)).catch(() => {});
    return work;
  }

  private async run(selection: QueuedSelection): Promise<{ report: MailDeliveryReport; taken: number }> {
    const report: MailDeliveryReport = { sent: 0, retrying: 0, failed: 0, local: 0 };
    const { database, clock, mailer, logger } = this.deps;
    const now = clock.now();
    if (!mailer) {
      const rows = await keepQueuedMailsLocally(database.db, database.dialect, selection, now.toISOString());
      for (const row of rows) {
        const attachments = parseAttachments(row.attachments).map((a) => a.filename);
        logger.info(
          { mail: { id: row.id, kind: row.kind, to: row.recipient, subject: row.subject, text: row.text, ...(attachments.length ? { attachments } : {}) } },
          'email kept in the local outbox (SMTP_URL is unset); read it with consulta mail show --last',
        );
      }
      report.local = rows.length;
      return { report, taken: rows.length };
    }
    const token = randomUUID();
    const claimed = await claimQueuedMails(database.db, database.dialect, selection, {
      nowIso: now.toISOString(),
      lockedUntil: new Date(now.getTime() + MAIL_LEASE_MS).toISOString(),
      token,
    });
    for (let i = 0; i < claimed.length; i++) {
      if (this.closed) {
        // Not sent: given back at once rather than after the lease.
        await releaseMailClaims(database.db, claimed.slice(i).map((r) => r.id), token);
        break;
      }
      const outcome = await this.sendOne(mailer, claimed[i]!, token);
      report[outcome]++;
    }
    return { report, taken: claimed.length };
  }

  private async sendOne(mailer: Mailer, row: MailOutboxTable, token: string): Promise<'sent' | 'retrying' | 'failed'> {
    const { clock, logger, database } = this.deps;
    const attempt = row.attempts + 1;
    let changes: MailSettlement;
    let outcome: 'sent' | 'retrying' | 'failed';
    try {
      await mailer.send({
        to: row.recipient,
        subject: row.subject,
        text: row.text,
        ...(row.html !== null ? { html: row.html } : {}),
        attachments: parseAttachments(row.attachments),
      });
      const nowIso = clock.now().toISOString();
      outcome = 'sent';
      changes = { status: 'sent', attempts: attempt, next_attempt_at: null, last_error: null, sent_at: nowIso, ...(row.sensitive ? { ...ERASED, erased_at: nowIso } : {}) };
    } catch (err) {
      const nowMs = clock.now().getTime();
      const error = oneLine(err instanceof Error ? err.message : String(err)).slice(0, 500) || 'send failed';
      const delay = this.schedule[attempt - 1];
      if (delay === undefined) {
        outcome = 'failed';
        // Nothing will send it any more: a secret in it has no reason to stay.
        const erase = row.sensitive ? { ...ERASED, erased_at: new Date(nowMs).toISOString() } : {};
        changes = { status: 'failed', attempts: attempt, next_attempt_at: null, last_error: error, sent_at: null, ...erase };
        logger.error({ mail: row.id, kind: row.kind, attempt, error }, 'email failed for the last time; giving up');
      } else {
        outcome = 'retrying';
        changes = { status: 'queued', attempts: attempt, next_attempt_at: new Date(nowMs + delay * 1000).toISOString(), last_error: error, sent_at: null };
        logger.warn({ mail: row.id, kind: row.kind, attempt, error, retry_in_s: delay }, 'email not accepted; will retry');
      }
    }
    try {
      if (!(await settleMail(database.db, row.id, token, changes))) {
        logger.warn({ mail: row.id }, 'email claim lapsed before its outcome was recorded; it may be sent again');
      }
    } catch (err) {
      logger.error({ err, mail: row.id }, `email ${outcome} but its outcome was not recorded; it may be sent again`);
    }
    return outcome;
  }
}
