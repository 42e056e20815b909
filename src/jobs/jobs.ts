/**
 * Background jobs of a serving process. Each is safe to run in several processes at once:
 * the request-log flush writes only this process's entries, the retention sweep is an
 * idempotent delete, and the webhook dispatcher sends only what it claimed under a lease.
 */
import type { App } from '../app.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { sweepRequestLog } from '../domain/access/request-log.ts';
import { sweepLawyerChanges } from '../domain/directory/reference.service.ts';
import { createMailer } from '../domain/notify/mailer.ts';
import { Notifier } from '../domain/notify/notifier.ts';
import { WebhookDispatcher } from '../domain/webhooks/dispatcher.ts';

const HOUR_MS = 3_600_000;

export interface Jobs {
  stop(): void;
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
    } catch (err) {
      app.fastify.log.error({ err }, 'booking intent expiry sweep failed');
    } finally {
      expiring = false;
    }
  };
  const expirer = setInterval(() => void expire(), config.sweepIntervalMs);
  expirer.unref();
  void expire();

  const sweep = () =>
    sweepRequestLog(database, clock, config.requestLogRetentionDays).then(
      (deleted) => deleted > 0 && app.fastify.log.info({ deleted }, 'request log retention sweep'),
      (err: unknown) => app.fastify.log.error({ err }, 'request log retention sweep failed'),
    );
  void sweep();
  const sweepChanges = () =>
    sweepLawyerChanges(database, clock).catch((err: unknown) => app.fastify.log.error({ err }, 'lawyer change feed sweep failed'));
  void sweepChanges();
  const purgeIdempotency = () =>
    app.services.idempotency.purge().catch((err: unknown) => app.fastify.log.error({ err }, 'idempotency purge failed'));
  const purgeMail = () =>
    app.services.mail.purge().catch((err: unknown) => app.fastify.log.error({ err }, 'mail outbox purge failed'));
  const purgeSessions = () =>
    app.services.sessions.purgeExpired().catch((err: unknown) => app.fastify.log.error({ err }, 'sign-in and session purge failed'));
  // Expired OAuth objects (codes, tokens, interactions, sessions, lapsed grants); expiry is already exact on read.
  const purgeOAuth = () =>
    app.services.connectedApps.sweepExpired().catch((err: unknown) => app.fastify.log.error({ err }, 'OAuth expiry sweep failed'));
  const sweeper = setInterval(() => {
    void sweep();
    void sweepChanges();
    void purgeIdempotency();
    void purgeMail();
    void purgeSessions();
    void purgeOAuth();
  }, HOUR_MS);
  sweeper.unref();

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

  // Webhooks: fan-out from the outbox and delivery. Safe in several processes (leased claims).
  if (config.webhookAllowInsecureTargets) {
    app.fastify.log.warn('WEBHOOK_ALLOW_INSECURE_TARGETS is set: webhooks may go to plain http and to private, loopback and metadata addresses. Local development and tests only.');
  }
  const webhookMailer = createMailer(config, app.fastify.log);
  const webhooks = new WebhookDispatcher({
    database,
    clock,
    config,
    notifier: new Notifier({ database, mailer: webhookMailer, clock, logger: app.fastify.log }),
    logger: app.fastify.log,
  });
  webhooks.start();
  return {
    stop() {
      // Deliveries in flight finish while the server drains; any that cannot be recorded are sent again after their lease.
      void webhooks.stop().then(() => webhookMailer.close()).catch(() => {});
      clearInterval(sweeper);
      clearInterval(expirer);
      clearInterval(mailer);
    },
  };
}
