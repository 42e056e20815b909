/**
 * The Redis the rate-limit suites run against: TEST_REDIS_URL, else a local server on
 * 127.0.0.1:6379 when one answers. In CI the Redis suites are required, so finding none fails the
 * run; elsewhere they are skipped with the reason. Every run uses its own key prefix so test
 * files running in parallel (and earlier runs) never see each other's counters.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const LOCAL_REDIS_URL = 'redis://127.0.0.1:6379';

export type TestRedis = { url: string; skip: false } | { url: null; skip: string };

/** PINGs the server, giving up after `timeoutMs`; resolves to the failure's message, or null when it answered. */
async function probe(url: string, timeoutMs: number): Promise<string | null> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  // The connect promise only says "Connection is closed."; the error event says why (ECONNREFUSED…).
  let cause: string | undefined;
  client.on('error', (error: Error) => {
    cause ??= error.message;
  });
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    await Promise.race([client.connect().then(() => client.ping()), timeout]);
    return null;
  } catch (error) {
    return cause ?? (error instanceof Error ? error.message : String(error));
  } finally {
    clearTimeout(timer);
    client.disconnect();
  }
}

let found: Promise<TestRedis> | undefined;

/** The Redis to test against, or why the Redis suites are skipped. Throws in CI when there is none. */
export function testRedis(): Promise<TestRedis> {
  found ??= (async (): Promise<TestRedis> => {
    const configured = process.env.TEST_REDIS_URL?.trim();
    const url = configured || LOCAL_REDIS_URL;
    const failure = await probe(url, 1_000);
    if (failure === null) return { url, skip: false };
    const reason = configured
      ? `TEST_REDIS_URL (${configured}) does not answer: ${failure}`
      : `no Redis: set TEST_REDIS_URL or run one on 127.0.0.1:6379 (${failure})`;
    if (process.env.CI === 'true') throw new Error(`Redis suites are required in CI; ${reason}`);
    return { url: null, skip: reason };
  })();
  return found;
}

/** A key prefix no other test run or file shares. */
export function uniquePrefix(label = 'rl'): string {
  return `consulta-test:${label}:${process.pid}:${randomBytes(6).toString('hex')}`;
}

/** Deletes every key under `prefix` (keys expire anyway; this keeps a shared server tidy). */
export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const client = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: 2_000, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) await client.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    client.disconnect();
  }
}
