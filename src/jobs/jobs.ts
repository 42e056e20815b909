/**
 * Background jobs of a serving process. Each is safe to run in several processes at once:
 * the request-log flush writes only this process's entries, the retention purges are
 * idempotent bounded deletes, the webhook dispatcher sends only what it claimed under a lease, and
 * a calendar feed is read by the one process whose conditional update claimed it, and each
 * consultation reminder is claimed by its row in consultation_reminders, and a stored photo is
 * re-encoded or removed only while it still has the hash that was read.
 */
import type { App } from '../app.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { Notifier } from '../domain/notify/notifier.ts';
import { WebhookDispatcher } from '../domain/webhooks/dispatcher.ts';
import { RetentionService } from '../domain/operations/retention.service.ts';

const HOUR_MS = 3_600_000;
const CALENDAR_FEED_TICK_MS = 60_000;
const REMINDERS_TICK_MS = 60_000;

export interface Jobs {
  stop(): void;
  /** The start-up pass over stored photos: settles when it is done (or stopped between two photos). */
  photos: Promise<void>;
}

export function startJobs({ app, database, clock, config }: { app: App; database: Database; clock: Clock; config: Config }): Jobs {
  app.services.requestLog.start();
  // Expiry: exact on read; the sweeper makes it durable and records the event once.
  let expiring = false;
  const expire = async () => {
    if (expiring) return;
    expiring = true;
    try {
      const n = await app.services.booking.expireDue();
      if (n > 0) app.fastify.log.info({ expired: n }, 'booking intents expired');
      // Payments of lapsed holds are voided or their checkouts closed; interrupted ones are finished.
      const settled = await app.services.payments.sweep();
      if (settled > 0) app.fastify.log.info({ settled }, 'payment attempts swept');
      // Refunds of lawyers' cancellations left pending by a process that stopped (or an outage): same idempotency key.
      const refunded = await app.services.lawyerCancellation.finishPendingRefunds();
      if (refunded > 0) app.fastify.log.info({ refunded }, 'pending refunds finished');
    } catch (err) {
      app.fastify.log.error({ err }, 'booking intent expiry sweep failed');
    } finally {
      expiring = false;
    }
  };
  const expirer = setInterval(() => void expire(), config.sweepIntervalMs);
  expirer.unref();
  void expire();

  // Retention (docs/operations.md): every purge, one after another, in bounded batches; hourly,
  // and once at start. Expiry of OAuth objects, sessions and challenges is already exact on read.
  const retention = new RetentionService({ database, clock, config });
  let purging = false;
  const purge = async () => {
    if (purging) return;
    purging = true;
    try {
      const { results, failed } = await retention.run();
      for (const r of results) {
        if (r.deleted > 0) app.fastify.log.info({ purge: r.name, deleted: r.deleted, batches: r.batches, longest_batch_ms: Math.round(r.longestBatchMs), total_ms: Math.round(r.totalMs) }, 'retention purge');
      }
      for (const f of failed) app.fastify.log.error({ err: f.error, purge: f.name }, 'retention purge failed');
    } finally {
      purging = false;
    }
  };
  void purge();
  const sweeper = setInterval(() => void purge(), HOUR_MS);
  sweeper.unref();

  // Lawyers' verifications (docs/lawyers.md): unlisting at expiry on every sweep tick (a partial
  // index makes the look-up cheap), and the reminders 30 days before (once, claimed).
  let verifying = false;
  const sweepVerifications = async () => {
    if (verifying) return;
    verifying = true;
    try {
      const { reminded, expired, finished } = await app.services.verification.sweep();
      if (reminded + expired + finished > 0) app.fastify.log.info({ reminded, expired, finished }, 'lawyer verification sweep');
    } catch (err) {
      app.fastify.log.error({ err }, 'lawyer verification sweep failed');
    } finally {
      verifying = false;
    }
  };
  void sweepVerifications();
  const verifier = setInterval(() => void sweepVerifications(), config.sweepIntervalMs);
  verifier.unref();

  // Mail: retries of refused sends, and mail whose sender stopped before delivering it (leased claims).
  let mailing = false;
  const sendDueMail = async () => {
    if (mailing) return;
    mailing = true;
    try {
      const report = await app.services.mail.deliverDue();
      if (report.sent + report.failed + report.retrying > 0) app.fastify.log.info({ mail: report }, 'mail sweep');
    } finally {
      mailing = false;
    }
  };
  const mailer = setInterval(() => void sendDueMail(), config.sweepIntervalMs);
  mailer.unref();

  // Consultation reminders, the held transition and review invitations (docs/mail.md#reminders):
  // a tick a minute; each email is claimed once in the transaction that queues it.
  let reminding = false;
  const remind = async () => {
    if (reminding) return;
    reminding = true;
    try {
      const report = await app.services.reminders.sweep();
      if (Object.values(report).some((n) => n > 0)) app.fastify.log.info({ reminders: report }, 'consultation reminders sweep');
    } catch (err) {
      app.fastify.log.error({ err }, 'consultation reminders sweep failed');
    } finally {
      reminding = false;
    }
  };
  const reminder = setInterval(() => void remind(), REMINDERS_TICK_MS);
  reminder.unref();
  void remind();

  // Lawyers' own calendar feeds (docs/lawyers.md#busy-times-from-her-own-calendar): each feed is
  // read every 15 minutes; a tick a minute claims the due ones (one process wins each feed).
  let readingFeeds = false;
  const readFeeds = async () => {
    if (readingFeeds) return;
    readingFeeds = true;
    try {
      const { read, failed } = await app.services.calendarFeeds.refreshDue();
      if (read > 0) app.fastify.log.info({ read, failed }, 'calendar feeds read');
    } catch (err) {
      app.fastify.log.error({ err }, 'calendar feed refresh failed');
    } finally {
      readingFeeds = false;
    }
  };
  const feeds = setInterval(() => void readFeeds(), CALENDAR_FEED_TICK_MS);
  feeds.unref();
  void readFeeds();

  // Lawyers' photos stored before uploads were re-encoded (docs/lawyers.md#photos-stored-before):
  // once at start, one photo at a time; each is rewritten only while it still has the hash read,
  // so several processes running it at once write each photo once.
  let stopped = false;
  const photos = app.services.lawyerPortal
    .normaliseStoredPhotos({
      stopped: () => stopped,
      onOutcome: (o) => {
        if (o.action === 'removed') app.fastify.log.warn({ lawyer_id: o.lawyerId, reason: o.reason }, 'stored lawyer photo removed: it cannot be shown safely (her profile shows her initials)');
        else if (o.action === 'reencoded') app.fastify.log.info({ lawyer_id: o.lawyerId, from: o.from, bytes_before: o.bytesBefore, bytes_after: o.bytesAfter }, 'stored lawyer photo re-encoded');
      },
    })
    .then((r) => {
      if (r.reencoded + r.removed > 0) app.fastify.log.info({ checked: r.checked, reencoded: r.reencoded, removed: r.removed, unchanged: r.unchanged, skipped: r.skipped }, 'stored lawyer photos normalised');
    })
    .catch((err: unknown) => app.fastify.log.error({ err }, 'stored lawyer photo normalisation failed'));

  // Webhooks: fan-out from the outbox and delivery. Safe in several processes (leased claims).
  if (config.webhookAllowInsecureTargets) {
    app.fastify.log.warn('WEBHOOK_ALLOW_INSECURE_TARGETS is set: webhooks and lawyers\' calendar feeds may go to plain http and to private, loopback and metadata addresses. Local development and tests only.');
  }
  const webhooks = new WebhookDispatcher({
    database,
    clock,
    config,
    // "Endpoint disabled" notices: stored, and emailed through the mail outbox (retries).
    notifier: new Notifier({ database, clock, logger: app.fastify.log, queue: app.services.mail }),
    logger: app.fastify.log,
    metrics: app.metrics ?? undefined,
  });
  webhooks.start();
  return {
    photos,
    stop() {
      stopped = true;
      // Deliveries in flight finish while the server drains; any that cannot be recorded are sent again after their lease.
      void webhooks.stop().catch(() => {});
      clearInterval(sweeper);
      clearInterval(expirer);
      clearInterval(mailer);
      clearInterval(verifier);
      clearInterval(feeds);
      clearInterval(reminder);
    },
  };
}
