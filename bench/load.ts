/**
 * One measurement: a warm-up run whose numbers are discarded, then a measured autocannon run
 * against one server process, with that process's CPU time and memory read from /proc around
 * the measured run. Latencies are recorded here, per response, at sub-millisecond precision
 * (autocannon's own histogram keeps whole milliseconds, too coarse for fast endpoints).
 */
import autocannon from 'autocannon';
import type { Options, Result } from 'autocannon';
import { setTimeout as sleep } from 'node:timers/promises';
import { FORWARDED_FOR, nextClientAddress } from './addresses.ts';
import { cpuMs, memory, ownCpuMs, systemCpu } from './proc.ts';

export interface LoadOptions {
  connections: number;
  /** Seconds measured. */
  duration: number;
  /** Seconds of warm-up before the measured run (0 for none). */
  warmup: number;
  /** Sent with every request (e.g. an API key once the service requires or rate-limits by one). */
  headers?: Record<string, string>;
  /** GET unless set (the MCP scenario POSTs one JSON-RPC request). */
  method?: 'GET' | 'POST';
  /** The request body, sent with every request. */
  body?: string;
}

export interface Target {
  url: string;
  pid: number;
}

export interface Measurement {
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  seconds: number;
  rps: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  serverCpuMs: number;
  serverCpuMsPerReq: number;
  /** Share of one core the server used while measured (1 = one core busy). */
  serverCores: number;
  /** CPU used by the bench process itself (the load generator) per request, ms. */
  clientCpuMsPerReq: number;
  /**
   * Cores used by processes other than the server and the load generator while measured: the
   * machine is shared, and on two cores anything else running skews the figures.
   */
  otherCores: number;
  /** Cores the hypervisor withheld (steal time) while measured. */
  stealCores: number;
  serverRssMaxMb: number;
  serverPeakRssMb: number;
  statusCodes: Record<string, number>;
  /** The measured window on the monotonic clock (µs), which V8 CPU profiles also use. */
  windowUs: [number, number];
}

/** Bounds the latency record: at most this many samples are kept (far above any 2-core run). */
const MAX_SAMPLES = 4_000_000;

function fire(target: Target, paths: readonly string[], load: LoadOptions, seconds: number, onLatency?: (ms: number, status: number) => void): Promise<Result> {
  const options: Options = { url: `${target.url}${paths[0]}`, connections: load.connections, duration: seconds, timeout: 10, headers: load.headers ?? {} };
  // One shared cursor across all connections, so each request asks for the next lawyer (when
  // there are several paths) and comes from the next client address.
  let next = 0;
  options.requests = [
    {
      method: load.method ?? 'GET',
      ...(load.body === undefined ? {} : { body: load.body }),
      setupRequest: (request) => {
        if (paths.length > 1) request.path = paths[next++ % paths.length];
        request.headers = { ...request.headers, [FORWARDED_FOR]: nextClientAddress() };
        return request;
      },
    },
  ];
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (err, result) => (err ? reject(err) : resolve(result)));
    if (onLatency) {
      instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => onLatency(ms, status));
    }
  });
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[rank]!;
}

export async function measure(target: Target, paths: readonly string[], options: LoadOptions): Promise<Measurement> {
  if (options.warmup > 0) await fire(target, paths, options, options.warmup);

  const latencies: number[] = [];
  let ok = 0;
  const statusCodes: Record<string, number> = {};
  let rssMax = 0;
  const sampleRss = () => {
    try {
      rssMax = Math.max(rssMax, memory(target.pid).rssMb);
    } catch {
      // the process is gone; the run will report its errors
    }
  };
  const sampler = setInterval(sampleRss, 200);
  const windowStartUs = Number(process.hrtime.bigint() / 1000n);
  const cpuBefore = cpuMs(target.pid);
  const clientBefore = process.cpuUsage();
  const systemBefore = systemCpu();
  let result: Result;
  try {
    result = await fire(target, paths, options, options.duration, (ms, status) => {
      statusCodes[status] = (statusCodes[status] ?? 0) + 1;
      if (status >= 200 && status < 300) {
        ok++;
        if (latencies.length < MAX_SAMPLES) latencies.push(ms);
      }
    });
  } finally {
    clearInterval(sampler);
  }
  const client = process.cpuUsage(clientBefore);
  const serverCpuMs = cpuMs(target.pid) - cpuBefore;
  const systemAfter = systemCpu();
  const windowEndUs = Number(process.hrtime.bigint() / 1000n);
  const wallMs = (windowEndUs - windowStartUs) / 1000;
  const clientMs = (client.user + client.system) / 1000;
  sampleRss();
  const mem = memory(target.pid);

  const sorted = Float64Array.from(latencies).sort();
  const requests = Object.values(statusCodes).reduce((a, b) => a + b, 0);
  const seconds = result.duration;
  return {
    requests,
    ok,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    seconds,
    rps: ok / seconds,
    p50Ms: percentile(sorted, 0.5),
    p90Ms: percentile(sorted, 0.9),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    serverCpuMs,
    serverCpuMsPerReq: requests ? serverCpuMs / requests : Number.NaN,
    serverCores: serverCpuMs / (seconds * 1000),
    clientCpuMsPerReq: requests ? clientMs / requests : Number.NaN,
    otherCores: Math.max(0, systemAfter.busyMs - systemBefore.busyMs - serverCpuMs - clientMs) / wallMs,
    stealCores: (systemAfter.stealMs - systemBefore.stealMs) / wallMs,
    serverRssMaxMb: rssMax,
    serverPeakRssMb: mem.peakRssMb,
    statusCodes,
    windowUs: [windowStartUs, windowEndUs],
  };
}

/**
 * Waits, at most `maxWaitMs`, until processes other than the bench and `pids` use less than
 * `thresholdCores` over a one-second sample; returns the last sample's load (cores).
 */
export async function waitForQuiet(pids: readonly number[], maxWaitMs: number, thresholdCores: number, onWait?: (cores: number) => void): Promise<number> {
  const deadline = Date.now() + maxWaitMs;
  let announced = false;
  for (;;) {
    const ours = () => ownCpuMs() + pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
    const sys0 = systemCpu().busyMs;
    const ours0 = ours();
    const t0 = performance.now();
    await sleep(1000);
    const other = Math.max(0, systemCpu().busyMs - sys0 - (ours() - ours0)) / (performance.now() - t0);
    if (other < thresholdCores || Date.now() >= deadline) return other;
    if (!announced && onWait) onWait(other);
    announced = true;
  }
}

/**
 * Two measurements of the same server and scenario as one: counts and CPU summed (so rates are
 * over both runs), latency percentiles averaged (an approximation: the runs are alike), the
 * worst of the disturbance and memory figures. Used to measure A, B, B, A and compare the sums,
 * so that drift during a scenario weighs on both sides alike.
 */
export function combine(a: Measurement, b: Measurement): Measurement {
  const requests = a.requests + b.requests;
  const seconds = a.seconds + b.seconds;
  const serverCpuMs = a.serverCpuMs + b.serverCpuMs;
  const mean = (x: number, y: number) => (x + y) / 2;
  const statusCodes: Record<string, number> = { ...a.statusCodes };
  for (const [k, v] of Object.entries(b.statusCodes)) statusCodes[k] = (statusCodes[k] ?? 0) + v;
  return {
    requests,
    ok: a.ok + b.ok,
    non2xx: a.non2xx + b.non2xx,
    errors: a.errors + b.errors,
    timeouts: a.timeouts + b.timeouts,
    seconds,
    rps: (a.ok + b.ok) / seconds,
    p50Ms: mean(a.p50Ms, b.p50Ms),
    p90Ms: mean(a.p90Ms, b.p90Ms),
    p99Ms: mean(a.p99Ms, b.p99Ms),
    maxMs: Math.max(a.maxMs, b.maxMs),
    serverCpuMs,
    serverCpuMsPerReq: requests ? serverCpuMs / requests : Number.NaN,
    serverCores: serverCpuMs / (seconds * 1000),
    clientCpuMsPerReq: mean(a.clientCpuMsPerReq, b.clientCpuMsPerReq),
    otherCores: Math.max(a.otherCores, b.otherCores),
    stealCores: Math.max(a.stealCores, b.stealCores),
    serverRssMaxMb: Math.max(a.serverRssMaxMb, b.serverRssMaxMb),
    serverPeakRssMb: Math.max(a.serverPeakRssMb, b.serverPeakRssMb),
    statusCodes,
    windowUs: [Math.min(a.windowUs[0], b.windowUs[0]), Math.max(a.windowUs[1], b.windowUs[1])],
  };
}
