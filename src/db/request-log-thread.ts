/**
 * Writes request-log entries on a worker thread with its own connection to the SQLite file.
 * In the serving thread the inserts, the commit's fsync and the WAL checkpoints they trigger took
 * about 14 % of the CPU of a cached request at 16,000 requests a second (docs/performance.md);
 * here the serving thread only hands over chunks of rows as flat arrays of column values. A
 * separate connection also can never join a transaction the serving connection has open: it
 * waits for SQLite's write lock like another process would (busy_timeout).
 *
 * Two kinds of message: `stage` hands over a chunk of rows (and what it adds to the daily
 * aggregates) without committing, so the serving thread holds no large batch and never stalls on
 * one; `write` adds a last chunk and commits everything staged since the last commit in one
 * transaction. Few, large transactions are what make the thread cheap: the rows go in through a
 * multi-row insert (one statement call per ROWS_PER_STATEMENT rows), and the fsync, the WAL
 * checkpoints and the serving connection's cache reloads after another connection's commit
 * happen once per commit instead of once per 500 rows.
 *
 * A failed commit sends every row it held back with its error (RequestLogWriteError), so the
 * caller can hand them over again: the serving thread need not keep entries until their commit
 * (kept for up to a second, they reached V8's old generation and cost the collector about 1.6 µs
 * each). A `write` says how many rows should be staged; a thread that has fewer (a thread that
 * went took what was staged with it: at most one interval, as a crash) commits nothing and sends
 * back what it has, so what is committed is never counted twice.
 *
 * The worker is a few lines of plain JavaScript evaluated from a string, so it needs neither a
 * build step nor the TypeScript loader; it knows nothing but "run these prepared statements over
 * these rows in one transaction". The rows and the daily aggregates are prepared here.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** Rows bound to one multi-row insert. 64 × 14 columns stays far below SQLite's 32,766 parameters. */
export const ROWS_PER_STATEMENT = 64;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('synchronous = FULL');
const width = workerData.width;
const per = workerData.rowsPerStatement;
let staged = [];
let stagedRows = 0;
let write;
function prepare() {
  const one = db.prepare(workerData.insertSql);
  const many = db.prepare(workerData.insertManySql);
  const add = workerData.addSql.map((s) => db.prepare(s));
  write = db.transaction((chunks) => {
    for (const c of chunks) {
      const values = c.rows;
      const n = values.length / width;
      let i = 0;
      for (; i + per <= n; i += per) many.run(values.slice(i * width, (i + per) * width));
      for (; i < n; i++) one.run(values.slice(i * width, (i + 1) * width));
      add.forEach((statement, k) => {
        for (const a of c.adds[k] || []) statement.run(a);
      });
    }
  });
}
parentPort.on('message', (msg) => {
  if (msg === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  staged.push(msg);
  stagedRows += msg.rows.length / width;
  if (msg.kind === 'stage') return;
  const chunks = staged;
  const rows = stagedRows;
  staged = [];
  stagedRows = 0;
  try {
    if (rows !== msg.expectedRows) throw new Error('the thread holds ' + rows + ' staged rows, ' + msg.expectedRows + ' expected (restarted?): nothing committed');
    if (!write) prepare();
    write.immediate(chunks);
    parentPort.postMessage({ id: msg.id });
  } catch (err) {
    // Nothing was committed: the rows go back, to be handed over again.
    parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err), rows: chunks.map((c) => c.rows) });
  }
});
`;

export interface RequestLogThreadOptions {
  /** The SQLite file. */
  file: string;
  /** One row's insert, positional parameters (`width` of them). */
  insertSql: string;
  /** The same insert for ROWS_PER_STATEMENT rows. */
  insertManySql: string;
  /** Values per row. */
  width: number;
  /** Each aggregate table's upsert, positional parameters. */
  addSql: readonly string[];
  busyTimeoutMs: number;
}

/** A commit that wrote nothing; `rows` are the rows it held (flat, as staged), to hand over again. */
export class RequestLogWriteError extends Error {
  constructor(
    message: string,
    readonly rows: unknown[][],
  ) {
    super(message);
  }
}

type Pending = { resolve: () => void; reject: (err: Error) => void; written: Promise<void> };

export class RequestLogThread {
  private worker: Worker | undefined;
  private nextId = 0;
  /** Rows handed over since the last commit (the thread should hold as many). */
  private stagedRows = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3');

  constructor(private readonly options: RequestLogThreadOptions) {}

  /**
   * Hands over rows (flat: `width` values a row) and what they add to the aggregates (`adds[i]`:
   * the values for `addSql[i]`), to be committed by the next write(). Nothing is confirmed: the
   * caller keeps the entries until a write() resolves.
   */
  stage(rows: unknown[], adds: unknown[][][]): void {
    const worker = this.worker ?? this.start();
    this.stagedRows += rows.length / this.options.width;
    worker.postMessage({ kind: 'stage', rows, adds });
  }

  /**
   * Adds these rows to what was staged and commits it all in one transaction; resolves once
   * committed. Rejects, committing nothing, when the commit fails or the thread lost what was
   * staged: with a RequestLogWriteError holding the rows the thread had (to be handed over
   * again), or, when the thread itself went, a plain error (this write's rows were not written).
   */
  write(rows: unknown[], adds: unknown[][][]): Promise<void> {
    const worker = this.worker ?? this.start();
    const id = ++this.nextId;
    let settle!: Omit<Pending, 'written'>;
    const written = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(id, { ...settle, written });
    // A write in progress keeps the process alive; an idle thread does not.
    if (this.pending.size === 1) worker.ref();
    const expectedRows = this.stagedRows + rows.length / this.options.width;
    this.stagedRows = 0;
    worker.postMessage({ kind: 'write', id, rows, adds, expectedRows });
    return written;
  }

  /** Waits for the writes in progress, then closes the connection and ends the thread. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (worker === undefined) return;
    await Promise.allSettled([...this.pending.values()].map((p) => p.written));
    this.worker = undefined;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  private start(): Worker {
    const { file, insertSql, insertManySql, width, addSql, busyTimeoutMs } = this.options;
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: this.driver, file, insertSql, insertManySql, width, rowsPerStatement: ROWS_PER_STATEMENT, addSql, busyTimeoutMs },
    });
    worker.unref();
    // stagedRows is not reset: rows staged with a thread that went are not in this one, so the
    // next write fails on the count and its caller hands everything over again.
    worker.on('message', (msg: { id: number; error?: string; rows?: unknown[][] }) => {
      const p = this.pending.get(msg.id);
      if (p === undefined) return;
      this.pending.delete(msg.id);
      if (this.pending.size === 0) worker.unref();
      if (msg.error === undefined) p.resolve();
      else p.reject(new RequestLogWriteError(msg.error, msg.rows ?? []));
    });
    const fail = (err: Error) => {
      // Only for the current thread: an earlier one's writes were failed when it went.
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
    };
    // An error thrown in the thread (the file cannot be opened, say) may arrive as a plain object.
    worker.on('error', (err: unknown) => {
      const e = err as { message?: unknown; code?: unknown };
      fail(new Error(`request-log thread for ${file}: ${String(e?.message || e?.code || err)}`));
    });
    worker.on('exit', (code) => fail(new Error(`request-log thread for ${file} exited (${code})`)));
    this.worker = worker;
    return worker;
  }
}
