/**
 * Background jobs of a serving process. Each is safe to run in several processes at once:
 * the request-log flush writes only this process's entries, and the retention sweep is an
 * idempotent delete.
 */
import type { App } from '../app.ts';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import { sweepRequestLog } from '../domain/access/request-log.ts';

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
  const purgeIdempotency = () =>
    app.services.idempotency.purge().catch((err: unknown) => app.fastify.log.error({ err }, 'idempotency purge failed'));
  const sweeper = setInterval(() => {
    void sweep();
    void purgeIdempotency();
  }, HOUR_MS);
  sweeper.unref();
  return {
    stop() {
      clearInterval(sweeper);
      clearInterval(expirer);
    },
  };
}
