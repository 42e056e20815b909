/**
 * Writes request-log batches on a worker thread with its own connection to the SQLite file.
 * In the serving thread the inserts, the commit's fsync and the WAL checkpoints they trigger took
 * about 14 % of the CPU of a cached request at 16,000 requests a second (docs/performance.md);
 * here the serving thread only hands over each batch as arrays of column values (under 1 µs a
 * row). A separate connection also can never join a transaction the serving connection has
 * open: it waits for SQLite's write lock like another process would (busy_timeout).
 *
 * The worker is a few lines of plain JavaScript evaluated from a string, so it needs neither a
 * build step nor the TypeScript loader; it knows nothing but "run these prepared statements over
 * these rows in one transaction". The rows and the daily aggregates are prepared here.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const SQLite = require(workerData.driver);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = ' + workerData.busyTimeoutMs);
db.pragma('synchronous = FULL');
let write;
parentPort.on('message', (msg) => {
  if (msg === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    if (!write) {
      const insert = db.prepare(workerData.insertSql);
      const add = workerData.addSql.map((s) => db.prepare(s));
      write = db.transaction((rows, adds) => {
        for (const r of rows) insert.run(r);
        add.forEach((statement, i) => {
          for (const a of adds[i] || []) statement.run(a);
        });
      });
    }
    write.immediate(msg.rows, msg.adds);
    parentPort.postMessage({ id: msg.id });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
  }
});
`;

export interface RequestLogThreadOptions {
  /** The SQLite file. */
  file: string;
  /** One row's insert, positional parameters. */
  insertSql: string;
  /** Each aggregate table's upsert, positional parameters. */
  addSql: readonly string[];
  busyTimeoutMs: number;
}

type Pending = { resolve: () => void; reject: (err: Error) => void; written: Promise<void> };

export class RequestLogThread {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly driver = createRequire(import.meta.url).resolve('better-sqlite3');

  constructor(private readonly options: RequestLogThreadOptions) {}

  /**
   * Writes the rows and adds the aggregates (`adds[i]`: the values for `addSql[i]`) in one
   * transaction; resolves once committed.
   */
  write(rows: unknown[][], adds: unknown[][][]): Promise<void> {
    const worker = this.worker ?? this.start();
    const id = ++this.nextId;
    let settle!: Omit<Pending, 'written'>;
    const written = new Promise<void>((resolve, reject) => (settle = { resolve, reject }));
    this.pending.set(id, { ...settle, written });
    // A write in progress keeps the process alive; an idle thread does not.
    if (this.pending.size === 1) worker.ref();
    worker.postMessage({ id, rows, adds });
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
    const { file, insertSql, addSql, busyTimeoutMs } = this.options;
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: this.driver, file, insertSql, addSql, busyTimeoutMs } });
    worker.unref();
    worker.on('message', (msg: { id: number; error?: string }) => {
      const p = this.pending.get(msg.id);
      if (p === undefined) return;
      this.pending.delete(msg.id);
      if (this.pending.size === 0) worker.unref();
      if (msg.error === undefined) p.resolve();
      else p.reject(new Error(msg.error));
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
