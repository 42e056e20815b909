/**
 * A child process for the two-process rate-limit test:
 *   node --import tsx test/support/rate-limit-worker.ts <redisUrl> <prefix> <bucket> <n> <limit> [nowMs]
 * Connects, prints "ready", waits for "go" on stdin (so both processes fire together), then fires
 * n concurrent consumes on one minute window and prints {"allowed":…,"refused":…,"failed":…}.
 */
import { RedisRateLimitStore } from '../../src/domain/access/rate-limit.redis.ts';
import type { WindowRule } from '../../src/domain/access/rate-limit.ts';

const [url, prefix, bucket, nArg, limitArg, nowArg] = process.argv.slice(2);
if (!url || !prefix || !bucket || !nArg || !limitArg) {
  console.error('usage: rate-limit-worker.ts <redisUrl> <prefix> <bucket> <n> <limit> [nowMs]');
  process.exit(2);
}
const n = Number(nArg);
const rules: WindowRule[] = [{ id: 'minute', limit: Number(limitArg), windowMs: 60_000 }];
// The parent passes one instant to both children so a minute boundary cannot split them.
const nowMs = nowArg ? Number(nowArg) : Date.now();

const store = new RedisRateLimitStore({ url, prefix, commandTimeoutMs: 2_000 });
await store.peek(bucket, rules, nowMs);
process.stdout.write('ready\n');

await new Promise<void>((resolve, reject) => {
  let input = '';
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    input += chunk;
    if (input.includes('go')) resolve();
  });
  process.stdin.on('end', () => reject(new Error('stdin closed before "go"')));
});

const results = await Promise.allSettled(Array.from({ length: n }, () => store.consume(bucket, rules, nowMs)));
let allowed = 0;
let refused = 0;
let failed = 0;
for (const r of results) {
  if (r.status === 'rejected') failed++;
  else if (r.value.allowed) allowed++;
  else refused++;
}
process.stdout.write(`${JSON.stringify({ allowed, refused, failed })}\n`);
await store.close();
process.exit(0);
