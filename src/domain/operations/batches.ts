/**
 * Purges delete in bounded batches: one statement removes at most `limit` rows, so no purge holds
 * a long lock or builds a huge transaction, and the serving process's own queries run between
 * batches (on SQLite they share one connection).
 */

/** What one purge did: rows deleted, statements run, and the longest one (the longest lock held). */
export interface BatchRun {
  deleted: number;
  batches: number;
  longestBatchMs: number;
  totalMs: number;
}

/**
 * Runs `step(limit)` until a batch deletes fewer than `limit` rows. `step` deletes at most
 * `limit` rows past a cutoff fixed before the first batch, so the loop ends.
 */
export async function drainInBatches(step: (limit: number) => Promise<number>, limit: number): Promise<BatchRun> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`batch size must be a positive integer, got ${limit}`);
  const started = performance.now();
  const run: BatchRun = { deleted: 0, batches: 0, longestBatchMs: 0, totalMs: 0 };
  for (;;) {
    const t0 = performance.now();
    const n = await step(limit);
    run.longestBatchMs = Math.max(run.longestBatchMs, performance.now() - t0);
    run.batches += 1;
    run.deleted += n;
    if (n < limit) break;
    // Let requests waiting on the event loop (and, on SQLite, on the one connection) go first.
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  run.totalMs = performance.now() - started;
  return run;
}
