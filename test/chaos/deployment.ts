/**
 * A small production-like deployment for the chaos suites: a private PostgreSQL and Redis, the
 * schema applied with `consulta migrate`, and two real `consulta serve` processes sharing the
 * database, the Redis counters and the secrets several processes must agree on, behind one
 * public site address (as behind a load balancer). An in-process app over the same database
 * creates what setup needs through the real services (keys, webhook endpoints, sessions, OAuth
 * grants); it never serves the load.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { runConsulta } from '../support/cli.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';
import { onExit, startPrivatePostgres, startPrivateRedis, type PrivatePostgres, type PrivateRedis } from './support.ts';

export interface Server {
  name: string;
  process: ServerProcess;
  /** Every log line the process printed (JSON, pino). */
  logs: string[];
}

export interface Deployment {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  databaseUrl: string;
  /** The public site address every process is configured with (no process listens on it). */
  siteUrl: string;
  /** The test's own handle on the database, for checks. */
  database: Database;
  /** The in-process app over the same database, for setup through the real services. */
  ctx: TestContext;
  env: Record<string, string>;
  servers: Server[];
  /** Starts one more `consulta serve` with the deployment's environment. */
  startServer(name: string): Promise<Server>;
  /** Stops everything (servers, the in-process app, Redis, PostgreSQL); safe to call twice. */
  stop(): Promise<void>;
}

function watchLogs(process: ServerProcess): string[] {
  const logs: string[] = [];
  let buffered = '';
  process.child.stdout!.on('data', (d: Buffer) => {
    buffered += d.toString();
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      logs.push(buffered.slice(0, nl));
      buffered = buffered.slice(nl + 1);
    }
  });
  process.child.stderr!.on('data', (d: Buffer) => logs.push(`stderr: ${d.toString()}`));
  process.child.once('exit', (code, signal) => logs.push(`exited: code ${code}, signal ${signal}`));
  return logs;
}

export async function startDeployment(env: Record<string, string>): Promise<Deployment> {
  const stops: Array<() => Promise<unknown>> = [];
  const stopAll = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => {});
  };
  try {
    const pg = await startPrivatePostgres();
    stops.push(() => pg.stop());
    const redis = await startPrivateRedis();
    stops.push(() => redis.stop());
    const databaseUrl = await pg.createDatabase('consulta_chaos');

    // Secrets every process must share: OAuth cookie keys and the fence secret.
    const siteUrl = 'http://127.0.0.1:3999';
    const shared = {
      DATABASE_URL: databaseUrl,
      REDIS_URL: redis.url,
      SITE_URL: siteUrl,
      OAUTH_COOKIE_KEYS: randomBytes(32).toString('base64url'),
      FENCE_SECRET: randomBytes(24).toString('hex'),
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
      DB_POOL_SIZE: '8',
      ...env,
    };
    const migrated = await runConsulta(['migrate', '--json'], { ...process.env, ...shared, LOG_LEVEL: 'warn' });
    if (migrated.code !== 0) throw new Error(`consulta migrate failed: ${migrated.stderr}`);

    const database = openDatabase(databaseUrl, { poolSize: 4 });
    stops.push(() => database.close());
    const ctx = await createTestContext(
      {
        name: 'postgres',
        create: async () => {
          const own = openDatabase(databaseUrl, { poolSize: 4 });
          return { database: own, url: databaseUrl, drop: () => own.close() };
        },
      },
      {
        now: new Date().toISOString(),
        config: {
          siteUrl,
          baseUrl: `${siteUrl}/api/v1`,
          mcpUrl: `${siteUrl}/mcp`,
          oauthCookieKeys: [shared.OAUTH_COOKIE_KEYS],
          fenceSecret: shared.FENCE_SECRET,
          webhookAllowInsecureTargets: true,
          oauthAccessTokenTtlSeconds: 3600,
        },
      },
    );
    stops.push(() => ctx.close());

    const servers: Server[] = [];
    stops.push(() => Promise.all(servers.map((s) => s.process.stop('SIGKILL'))));
    const startServer = async (name: string) => {
      const process = await startServerProcess(shared, 60_000);
      // Never leave a server behind, even if this test process dies before `after` runs.
      const forget = onExit(() => process.child.kill('SIGKILL'));
      process.child.once('exit', forget);
      const server = { name, process, logs: watchLogs(process) };
      servers.push(server);
      return server;
    };
    return { pg, redis, databaseUrl, siteUrl, database, ctx, env: shared, servers, startServer, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
