/** Renders the bench results as Markdown tables (the same text goes to the console and the docs). */
import type { Measurement } from './load.ts';

export interface ScenarioResult {
  name: string;
  kind: string;
  paths: number;
  target: number;
  app: Measurement;
  baseline: Measurement;
  ratio: number;
  pass: boolean;
}

export interface ScaleRow {
  name: string;
  /** p50 (ms) and req/s per directory size. */
  bySize: Record<string, { p50Ms: number; p99Ms: number; rps: number; cpuMsPerReq: number; otherCores: number }>;
  ratio: number;
  /** null: informational row, no target. */
  pass: boolean | null;
}

export interface MemoryRow {
  server: string;
  lawyers: number;
  peakRssMb: number;
  maxRssUnderLoadMb: number;
  targetMb: number | null;
  pass: boolean | null;
}

const mark = (pass: boolean | null) => (pass === null ? '' : pass ? '✓' : '✗ MISS');
const int = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '–');
const fixed = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : '–');
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)} %` : '–');

export function table(header: string[], rows: string[][], alignRight: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (alignRight[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (alignRight[i] ? `${'-'.repeat(w + 1)}:` : `:${'-'.repeat(w + 1)}`)).join('|')}|`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function scenarioTable(results: ScenarioResult[]): string {
  const header = [
    'Scenario', 'App req/s', 'Raw req/s', 'App ÷ raw', 'Target', '',
    'App p50 ms', 'App p99 ms', 'Raw p50 ms', 'Raw p99 ms', 'App CPU ms/req', 'Raw CPU ms/req', 'CPU app ÷ raw', 'Other load',
  ];
  const rows = results.map((r) => [
    r.name,
    int(r.app.rps),
    int(r.baseline.rps),
    pct(r.ratio),
    `≥ ${pct(r.target)}`,
    mark(r.pass),
    fixed(r.app.p50Ms, 2),
    fixed(r.app.p99Ms, 2),
    fixed(r.baseline.p50Ms, 2),
    fixed(r.baseline.p99Ms, 2),
    fixed(r.app.serverCpuMsPerReq, 3),
    fixed(r.baseline.serverCpuMsPerReq, 3),
    `${fixed(r.app.serverCpuMsPerReq / r.baseline.serverCpuMsPerReq, 1)} ×`,
    fixed(Math.max(r.app.otherCores, r.baseline.otherCores), 2),
  ]);
  return table(header, rows, [false, true, true, true, true, false, true, true, true, true, true, true, true, true]);
}

export function scaleTable(rows: ScaleRow[], sizes: number[], target: number): string {
  const small = sizes[0]!;
  const large = sizes[sizes.length - 1]!;
  const sizeLabel = (n: number) => (n >= 1000 ? `${n / 1000}k` : String(n));
  const header = [
    'Search mix',
    ...sizes.map((s) => `p50 ms @${sizeLabel(s)}`),
    `p50 @${sizeLabel(large)} ÷ @${sizeLabel(small)}`,
    'Target',
    '',
    ...sizes.map((s) => `req/s @${sizeLabel(s)}`),
    `p99 ms @${sizeLabel(large)}`,
    ...sizes.map((s) => `CPU ms/req @${sizeLabel(s)}`),
    'Other load',
  ];
  const body = rows.map((r) => [
    r.name,
    ...sizes.map((s) => fixed(r.bySize[s]?.p50Ms ?? Number.NaN, 2)),
    `${fixed(r.ratio, 2)} ×`,
    r.pass === null ? '(info)' : `≤ ${target} ×`,
    mark(r.pass),
    ...sizes.map((s) => int(r.bySize[s]?.rps ?? Number.NaN)),
    fixed(r.bySize[large]?.p99Ms ?? Number.NaN, 2),
    ...sizes.map((s) => fixed(r.bySize[s]?.cpuMsPerReq ?? Number.NaN, 3)),
    fixed(Math.max(...sizes.map((s) => r.bySize[s]?.otherCores ?? 0)), 2),
  ]);
  return table(header, body, [false, ...sizes.map(() => true), true, true, false, ...sizes.map(() => true), true, ...sizes.map(() => true), true]);
}

export function memoryTable(rows: MemoryRow[]): string {
  const header = ['Server', 'Lawyers', 'Peak RSS MB (VmHWM)', 'Max RSS under load MB', 'Target', ''];
  const body = rows.map((r) => [
    r.server,
    int(r.lawyers),
    fixed(r.peakRssMb, 1),
    fixed(r.maxRssUnderLoadMb, 1),
    r.targetMb === null ? '' : `< ${r.targetMb} MB`,
    mark(r.pass),
  ]);
  return table(header, body, [false, true, true, true, true, false]);
}

/** Any response that was not a 2xx, or any socket error, makes a measurement suspect. */
export function anomalies(label: string, m: Measurement): string | null {
  const bad = Object.entries(m.statusCodes).filter(([code]) => !code.startsWith('2'));
  if (bad.length === 0 && m.errors === 0 && m.timeouts === 0) return null;
  const codes = bad.map(([code, n]) => `${n}× ${code}`).join(', ');
  return `${label}: ${[codes, m.errors ? `${m.errors} errors` : '', m.timeouts ? `${m.timeouts} timeouts` : ''].filter(Boolean).join(', ')}`;
}
