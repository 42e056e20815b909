/** Builds the real app over a real database with a manual clock, for `inject()` tests. */
import type { FastifyInstance } from 'fastify';
import { buildApp, type App } from '../../src/app.ts';
import type { RateLimitStore } from '../../src/domain/access/rate-limit.ts';
import { ManualClock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { DeprecatedRoute } from '../../src/http/plugins/deprecation.ts';
import type { OutboundOptions } from '../../src/oauth/safe-fetch.ts';
import type { DatabaseTarget, TestDatabase } from './databases.ts';

/** Monday 23 November 2026, 09:00 in Madrid. */
export const TEST_NOW = '2026-11-23T08:00:00.000Z';
export const SITE = 'http://consulta.test';

export interface TestContext extends TestDatabase {
  app: App;
  clock: ManualClock;
  config: Config;
  close(): Promise<void>;
}

export function testConfig(overrides: Partial<Config> = {}): Config {
  // DIRECTORY_REFRESH_MS=0: tests that write to the database directly (as another process would)
  // see their writes on the next request; test/directory-cache.test.ts covers the cached path.
  return loadConfig({ SITE_URL: SITE, LOG_LEVEL: 'silent', FENCE_SECRET: 'test-fence-secret-0123456789', DIRECTORY_REFRESH_MS: '0' }, overrides);
}

export async function createTestContext(
  target: DatabaseTarget,
  options: {
    config?: Partial<Config>;
    deprecatedRoutes?: DeprecatedRoute[];
    now?: string;
    /** Registers test-only routes before the app is ready. */
    extend?: (fastify: FastifyInstance) => void;
    /** A rate-limit store (e.g. Redis); memory by default. */
    limiter?: RateLimitStore;
    /** How the authorization server fetches Client ID Metadata Documents (a local HTTPS host). */
    oauthOutbound?: OutboundOptions;
  } = {},
): Promise<TestContext> {
  const testDb = await target.create();
  const clock = new ManualClock(options.now ?? TEST_NOW);
  // Suites about other things must not trip the per-address limits (every inject comes from
  // 127.0.0.1); the security suite sets the multiplier back to 1 to test the real limits.
  const config = testConfig({ databaseUrl: testDb.url, rateLimitMultiplier: 1000, ...options.config });
  const app = await buildApp({ config, database: testDb.database, clock, deprecatedRoutes: options.deprecatedRoutes, limiter: options.limiter, oauthOutbound: options.oauthOutbound });
  options.extend?.(app.fastify as unknown as FastifyInstance);
  await app.fastify.ready();
  return {
    ...testDb,
    app,
    clock,
    config,
    async close() {
      await app.fastify.close();
      await testDb.drop();
    },
  };
}
