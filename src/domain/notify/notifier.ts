/**
 * Notifications: stored first (inside the caller's transaction, so they exist exactly when the
 * change they describe committed), emailed after commit.
 *
 * With a mail queue (the application's MailOutbox) the email is queued in that same transaction
 * and sent after commit, with the outbox's retries: a notice is never lost to a mail server that
 * was down, and it shows in `consulta mail list`. Without one (unit tests, the CLI's own
 * notifier), email is best effort: a failed send is logged and leaves `emailed_at` null. Either
 * way a failed email never undoes the stored notification or the change.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import type { DB, NotificationTable } from '../../db/schema.ts';
import type { Executor } from '../../db/repositories/types.ts';
import { findNotificationsWithEmail, insertNotifications, markNotificationEmailed } from '../../db/repositories/notification.repository.ts';
import { LogMailer, type Logger, type Mailer } from './mailer.ts';
import type { MailQueue } from './outbox.ts';

export interface NotificationInput {
  userId: string;
  firmId?: string | null;
  /** Stable machine name (`firm_key_creator_left`). */
  kind: string;
  subject: string;
  body: string;
  data?: Record<string, unknown>;
}

/** Notifications stored in a transaction that still have to be emailed once it commits. */
export interface PendingNotifications {
  readonly ids: readonly string[];
  /** Their emails, queued in the same transaction (with a mail queue). */
  readonly mailIds?: readonly string[];
}

export interface DeliveryReport {
  sent: number;
  failed: number;
}

export interface NotifierDeps {
  database: Database;
  /** Sends each email directly when there is no queue (the log when omitted). */
  mailer?: Mailer;
  clock: Clock;
  logger: Logger;
  /** Queue the emails in the caller's transaction and send them through it (retries, `mail list`). */
  queue?: MailQueue;
}

export class Notifier {
  private readonly deps: { db: Kysely<DB>; mailer: Mailer; clock: Clock; logger: Logger; queue: MailQueue | null };

  constructor(deps: NotifierDeps) {
    this.deps = { db: deps.database.db, mailer: deps.mailer ?? new LogMailer(deps.logger), clock: deps.clock, logger: deps.logger, queue: deps.queue ?? null };
  }

  /** Stores notifications with `tx` (the caller's transaction); pass the result to `deliver` after commit. */
  async store(tx: Executor, inputs: readonly NotificationInput[]): Promise<PendingNotifications> {
    const createdAt = this.deps.clock.now().toISOString();
    const rows: NotificationTable[] = inputs.map((n) => ({
      id: randomUUID(),
      user_id: n.userId,
      firm_id: n.firmId ?? null,
      kind: n.kind,
      subject: n.subject,
      body: n.body,
      data: JSON.stringify(n.data ?? {}),
      created_at: createdAt,
      emailed_at: null,
    }));
    await insertNotifications(tx, rows);
    const ids = rows.map((r) => r.id);
    if (!this.deps.queue) return { ids };
    // Each notice's email joins the same transaction: it exists exactly when the notice does.
    const withEmail = await findNotificationsWithEmail(tx, ids);
    const mailIds = await this.deps.queue.enqueue(
      tx,
      withEmail.map((n) => ({ kind: n.kind, to: n.email, subject: n.subject, text: n.body })),
    );
    return { ids, mailIds };
  }

  /** Emails stored notifications one by one, marking each that the server accepted. Never throws. */
  async deliver(pending: PendingNotifications): Promise<DeliveryReport> {
    const report: DeliveryReport = { sent: 0, failed: 0 };
    if (pending.ids.length === 0) return report;
    if (this.deps.queue) {
      // The outbox sends them, retries a failure, and its rows say what happened.
      await this.deps.queue.deliver(pending.mailIds ?? []);
      return report;
    }
    let rows;
    try {
      rows = await findNotificationsWithEmail(this.deps.db, [...pending.ids]);
    } catch (err) {
      this.deps.logger.error({ err, notifications: pending.ids }, 'could not read notifications to email');
      return { sent: 0, failed: pending.ids.length };
    }
    for (const row of rows) {
      try {
        await this.deps.mailer.send({ to: row.email, subject: row.subject, text: row.body });
      } catch (err) {
        report.failed++;
        this.deps.logger.warn({ err, notification: row.id, kind: row.kind }, 'notification stored but its email failed');
        continue;
      }
      report.sent++;
      try {
        await markNotificationEmailed(this.deps.db, row.id, this.deps.clock.now().toISOString());
      } catch (err) {
        this.deps.logger.error({ err, notification: row.id }, 'notification emailed but not marked as such');
      }
    }
    return report;
  }

  /** Stores and emails notifications outside any other transaction. */
  async notify(inputs: readonly NotificationInput[]): Promise<DeliveryReport> {
    const pending = await this.deps.db.transaction().execute((tx) => this.store(tx, inputs));
    return this.deliver(pending);
  }
}
