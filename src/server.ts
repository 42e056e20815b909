/**
 * A running server: database open and migrated, app listening, background jobs started, and a
 * graceful stop (stop accepting, let in-flight requests finish, stop jobs, close the database).
 */
import v8 from 'node:v8';
import { buildApp, type App } from './app.ts';
import { systemClock, type Clock } from './clock.ts';
import type { Config } from './config.ts';
import { openDatabase, type Database } from './db/database.ts';
import { migrateToLatest } from './db/migrator.ts';
import { startJobs } from './jobs/jobs.ts';
import { startAdminServer, type AdminServer } from './metrics/admin-server.ts';

export interface RunningServer {
  app: App;
  database: Database;
  /** The address actually bound (PORT=0 picks a free port). */
  url: string;
  /** The admin listener's address (GET /metrics), when METRICS_PORT is set. */
  metricsUrl: string | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  clock?: Clock;
  /** Runs after the app is built and before it listens (tests add routes here). */
  beforeListen?: (app: App) => void | Promise<void>;
}

export async function startServer(config: Config, options: StartOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const database = openDatabase(config.databaseUrl, { poolSize: config.dbPoolSize });
  try {
    await migrateToLatest(database);
    const app = await buildApp({ config, database, clock });
    // Ready means ready: the search index is built before the first request, not by it.
    await app.services.directoryCache.warm();
    await options.beforeListen?.(app);
    const address = await app.fastify.listen({ port: config.port, host: config.host });
    let admin: AdminServer | null = null;
    if (app.metrics && config.metricsPort !== null) {
      try {
        admin = await startAdminServer({ metrics: app.metrics, host: config.metricsHost, port: config.metricsPort, siteUrl: config.siteUrl, onError: (err) => app.fastify.log.error({ err }, 'metrics scrape failed') });
      } catch (err) {
        await app.fastify.close();
        throw err;
      }
    }
    const jobs = startJobs({ app, database, clock, config });
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= (async () => {
        // Fastify stops accepting, answers 503 to new requests on open connections, waits for
        // in-flight requests and closes idle keep-alive connections.
        jobs.stop();
        await admin?.close();
        await app.fastify.close();
        // A photo being re-encoded is written before the database closes (the pass stops after it).
        await jobs.photos;
        await database.close();
      })();
      return stopping;
    };
    return { app, database, url: address.replace('0.0.0.0', '127.0.0.1'), metricsUrl: admin?.url ?? null, stop };
  } catch (err) {
    await database.close().catch(() => {});
    throw err;
  }
}

/**
 * Bounds how far V8 lets the heap grow past its live size before a full collection
 * (HEAP_GROWTH_PERCENT). Left to its own heuristic, V8 raises that factor towards 4 when
 * collecting is cheap relative to allocating, which a server answering thousands of requests a
 * second always is: 50–90 MB of live heap then peaked at 380 MB of RSS. At 100 % (the default:
 * up to twice the live size) the same load peaks near 260 MB, for about 2 % more CPU per request
 * (docs/performance.md, Memory). The V8
 * flag is read each time a collection sets the next limit, so it may be set after start-up.
 * Returns the flag set, if any.
 */
export function applyHeapGrowth(config: Pick<Config, 'heapGrowthPercent'>): string | null {
  if (config.heapGrowthPercent === 0) return null;
  const flag = `--heap-growing-percent=${config.heapGrowthPercent}`;
  v8.setFlagsFromString(flag);
  return flag;
}

/** Stops the server on SIGTERM/SIGINT, forcing exit if draining exceeds the timeout. */
export function stopOnSignals(server: RunningServer, timeoutMs: number, log: (msg: string) => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    log(`${signal} received: draining in-flight requests`);
    const timer = setTimeout(() => {
      log(`shutdown took longer than ${timeoutMs} ms: exiting`);
      process.exit(1);
    }, timeoutMs);
    timer.unref();
    server.stop().then(
      () => {
        log('stopped cleanly');
        process.exit(0);
      },
      (err: unknown) => {
        log(`error while stopping: ${(err as Error).message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
