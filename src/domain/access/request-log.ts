/**
 * The request log: one entry per API request, buffered in memory and written in batches (one
 * transaction per flush) so the hot path never waits for the database. Daily aggregates per key
 * are added in the same transaction, from live traffic only (test keys are flagged in the log and
 * excluded from aggregates). A crash loses at most one flush interval of log entries; nothing a
 * client was promised depends on them.
 *
 * On a SQLite file the batches are written by a worker thread with its own connection, so neither
 * the inserts nor the commit block the event loop (they took about 14 % of a cached request's
 * CPU in the serving thread); on PostgreSQL the driver does not block either. There, each
 * `maxBatch` entries are handed to the thread as they fill (staged) and committed together once
 * per flush interval: one transaction a second instead of one per 500 entries is most of what
 * makes the log cheap (docs/performance.md). A failed commit gives back every entry it held
 * (staged ones included), which are handed over again; a writing thread that went takes what was
 * staged with it, at most one interval's worth, as a crash of the process would.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findApiKeyById } from '../../db/repositories/api-key.repository.ts';
import { deleteRequestsBefore, findRequest, openRequestLogWriter, type RequestLogWriter } from '../../db/repositories/request-log.repository.ts';
import type { RequestLogTable } from '../../db/schema.ts';
import { drainInBatches } from '../operations/batches.ts';

export type RequestLogEntry = RequestLogTable;

/** The longest query string kept, in characters; a longer one is cut and ends with `…`. */
export const LOGGED_QUERY_MAX = 512;
// A key sent where it does not belong (keys count only in the Authorization header): `svc_` with
// its underscore as typed or percent-encoded, and everything up to the next separator.
const KEY_SHAPED = /svc(?:_|%5f)[^&;#\s]*/gi;

/**
 * The query string of `url` as the request log keeps it: the text after the first `?` exactly as
 * the client sent it (percent-encoding and all), null when there is none. Bounded to
 * LOGGED_QUERY_MAX characters. A key is never authenticated from a URL, but a client may put
 * one there by mistake: anything shaped like one is blanked (`svc_…`) before the log stores it,
 * because the log is shown to every member who may read usage and kept for 30 days.
 * Cheap on the hot path: one slice, and the pattern only when `svc` appears at all.
 */
export function loggedQuery(url: string, questionMark = url.indexOf('?')): string | null {
  if (questionMark < 0 || questionMark === url.length - 1) return null;
  let query = url.length - questionMark - 1 > LOGGED_QUERY_MAX ? `${url.slice(questionMark + 1, questionMark + 1 + LOGGED_QUERY_MAX)}…` : url.slice(questionMark + 1);
  if (/svc/i.test(query)) query = query.replace(KEY_SHAPED, 'svc_…');
  return query;
}

export interface RequestLogOptions {
  flushIntervalMs: number;
  /**
   * Hand entries to the writer as soon as this many wait: staged (a SQLite file's thread, see
   * above) or written (other writers, a flush each).
   */
  maxBatch?: number;
  /** With a staging writer: flush before the interval once this many entries wait uncommitted. */
  maxUncommitted?: number;
  /** Entries kept while the database is failing; the oldest are dropped beyond it. */
  maxBuffered?: number;
  onError?: (err: unknown, dropped: number) => void;
  /** false: entries are dropped (REQUEST_LOG=off). */
  enabled?: boolean;
}

export class RequestLog {
  /** Entries not yet handed to the writer. */
  private buffer: RequestLogEntry[] = [];
  /** Entries staged with the writer since the last write began (the writer holds them). */
  private stagedCount = 0;
  private writer: RequestLogWriter | undefined;
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly maxBatch: number;
  private readonly maxUncommitted: number;
  private readonly maxBuffered: number;

  constructor(
    private readonly database: Database,
    private readonly options: RequestLogOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 500;
    this.maxUncommitted = options.maxUncommitted ?? 20_000;
    this.maxBuffered = options.maxBuffered ?? 50_000;
  }

  /** Starts the periodic flush. */
  start(): void {
    this.timer ??= setInterval(() => void this.flush(), this.options.flushIntervalMs);
    this.timer.unref();
  }

  /** Queues an entry; never waits for the database. */
  record(entry: RequestLogEntry): void {
    if (this.options.enabled === false) return;
    this.buffer.push(entry);
    if (this.buffer.length < this.maxBatch) return;
    const writer = this.openWriter();
    if (writer.stage) {
      const batch = this.buffer;
      this.buffer = [];
      this.stagedCount += batch.length;
      writer.stage(batch);
      if (this.stagedCount >= this.maxUncommitted && !this.flushing) void this.flush();
    } else if (!this.flushing) void this.flush();
  }

  /**
   * Writes everything queued so far; resolves once it is committed (readable by any connection).
   * Concurrent calls share one flush. A failed write keeps its entries for the next flush.
   */
  flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.buffer.length > 0 || this.stagedCount > 0 ? this.flush() : undefined));
    if (this.buffer.length === 0 && this.stagedCount === 0) return Promise.resolve();
    const batch = this.buffer;
    this.stagedCount = 0;
    this.buffer = [];
    this.flushing = this.openWriter()
      .write(batch)
      .catch((err: unknown) => {
        // Nothing of this commit was written: keep what it held (staged batches included, when
        // the writer gives them back) for the next attempt, within bounds. Batches staged since
        // are in the next commit already.
        const back = (err as { entries?: RequestLogEntry[] }).entries ?? batch;
        this.buffer = back.concat(this.buffer);
        const dropped = Math.max(0, this.buffer.length - this.maxBuffered);
        if (dropped > 0) this.buffer.splice(0, dropped);
        this.options.onError?.(err, dropped);
      })
      .finally(() => {
        this.flushing = undefined;
      });
    return this.flushing;
  }

  /** Stops the timer and writes what is left. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    const writer = this.writer;
    this.writer = undefined;
    await writer?.close();
  }

  /** One entry, for support (`consulta requests show`). Flushes first so a fresh id is found. */
  async find(requestId: string): Promise<RequestLogEntry | undefined> {
    await this.flush();
    return findRequest(this.database.db, requestId);
  }

  private openWriter(): RequestLogWriter {
    return (this.writer ??= openRequestLogWriter(this.database));
  }
}

/**
 * A logged request by id (support tooling, other processes: no buffer to flush), with `widget`:
 * 1 when its key is publishable (the booking widget's), as the dashboard flags it. The row does
 * not record it; a key never changes kind, so its key says.
 */
export async function findLoggedRequest(database: Database, requestId: string): Promise<(RequestLogEntry & { widget: 0 | 1 }) | undefined> {
  const row = await findRequest(database.db, requestId);
  if (!row) return undefined;
  const key = row.key_id ? await findApiKeyById(database.db, row.key_id) : undefined;
  return { ...row, widget: key?.kind === 'publishable' ? 1 : 0 };
}

/** Deletes log entries older than the retention period, in bounded batches. */
export async function sweepRequestLog(database: Database, clock: Clock, retentionDays: number, batch = 1000): Promise<number> {
  const cutoff = new Date(clock.now().getTime() - retentionDays * 86_400_000).toISOString();
  return (await drainInBatches((limit) => deleteRequestsBefore(database.db, cutoff, limit), batch)).deleted;
}
