/**
 * Reads calendar feeds off the serving thread (issue 25; docs/security.md#untrusted-input-that-costs-cpu-issue-25).
 * A feed is someone else's text: expanding it costs CPU that the text decides. On the serving
 * thread a 4 KB feed of 40 events repeating every second held every request — site, API, MCP,
 * OAuth, /healthz — for 35 seconds. Here the serving thread hands the bytes to one worker
 * thread and waits; the worker runs `expandCalendar` (ics-busy.ts: its work budget and cap on
 * events) and answers, or is terminated once it has taken `timeLimitMs` of wall-clock time,
 * and its heap is limited too. Feeds are read one at a time, each with the whole time limit.
 *
 * As for the request log's thread (src/db/request-log-thread.ts), the worker is plain
 * JavaScript evaluated from a string, so the same code runs under the bundle (bin/consulta.js)
 * and under tsx in the tests: `expandCalendar` is self-contained for this, and its source text
 * is put in the worker's; ical.js is imported there by the path resolved here.
 */
import { Worker } from 'node:worker_threads';
import { expandCalendar, type ExpandOptions, type ExpandOutcome } from './ics-busy.ts';

const WORKER_SOURCE = `
'use strict';
// tsx compiles named functions with esbuild's keepNames, which calls this helper; the bundle does not.
var __name = (target) => target;
const { parentPort, workerData } = require('node:worker_threads');
const expandCalendar = (${String(expandCalendar)});
import(workerData.ical).then(({ default: ICAL }) => {
  parentPort.on('message', ({ id, bytes, options }) => {
    let outcome;
    try {
      outcome = expandCalendar(ICAL, new TextDecoder().decode(bytes), options);
    } catch (err) {
      outcome = { ok: false, code: 'not_calendar', detail: ('unreadable: ' + String((err && err.message) || err)).slice(0, 200) };
    }
    parentPort.postMessage({ id, outcome });
  });
});
`;

export interface CalendarThreadOptions {
  /** Wall-clock time one feed may take in the worker before the worker is terminated. */
  timeLimitMs: number;
  /** The worker's heap (old generation), in MB; past it the worker ends and the feed is refused. */
  maxHeapMb: number;
}

export class CalendarThread {
  private worker: Worker | undefined;
  private nextId = 0;
  /** One feed at a time: each has the worker, and the whole time limit, to itself. */
  private queue: Promise<unknown> = Promise.resolve();
  private readonly ical = import.meta.resolve('ical.js');

  constructor(private readonly options: CalendarThreadOptions) {}

  /** The busy intervals of a feed's bytes (UTF-8), or why they are not read. Never rejects. */
  expand(bytes: Uint8Array, options: ExpandOptions): Promise<ExpandOutcome> {
    const turn = this.queue.then(() => this.run(bytes, options));
    this.queue = turn.catch(() => {});
    return turn;
  }

  private run(bytes: Uint8Array, options: ExpandOptions): Promise<ExpandOutcome> {
    const worker = this.worker ?? this.start();
    const id = ++this.nextId;
    return new Promise<ExpandOutcome>((resolve) => {
      const finish = (outcome: ExpandOutcome) => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        worker.off('error', onError);
        if (this.worker === worker) worker.unref();
        resolve(outcome);
      };
      const onMessage = (msg: { id: number; outcome: ExpandOutcome }) => {
        if (msg.id === id) finish(msg.outcome);
      };
      let failure: Error | undefined;
      const onError = (err: unknown) => {
        failure = err as Error;
      };
      const onExit = () => {
        const e = failure as (Error & { code?: string }) | undefined;
        if (this.worker === worker) this.worker = undefined;
        if (e?.code === 'ERR_WORKER_OUT_OF_MEMORY') finish({ ok: false, code: 'too_complex', detail: `it needs more than ${this.options.maxHeapMb} MB of memory to read` });
        else finish({ ok: false, code: 'not_calendar', detail: `the reader stopped: ${String(e?.message ?? 'no reason given').slice(0, 200)}` });
      };
      const timer = setTimeout(() => {
        // Whatever it is doing, it stops: a rule ical.js cannot satisfy loops inside one step.
        if (this.worker === worker) this.worker = undefined;
        void worker.terminate();
        finish({ ok: false, code: 'too_complex', detail: `it was not read within ${this.options.timeLimitMs / 1000} s` });
      }, this.options.timeLimitMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      // A read in progress keeps the process alive; an idle thread does not.
      worker.ref();
      worker.postMessage({ id, bytes, options });
    });
  }

  private start(): Worker {
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ical: this.ical }, resourceLimits: { maxOldGenerationSizeMb: this.options.maxHeapMb } });
    worker.unref();
    // Errors are read by the feed in progress (run); one between feeds must not crash the process.
    worker.on('error', () => {});
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
    });
    this.worker = worker;
    return worker;
  }

  /** Ends the thread (a read in progress is answered as not read). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }
}
