/**
 * Charts drawn on the server as SVG: no chart script, no inline style (colours are classes in
 * site.css). Each chart is an image with a title and a description for screen readers; the page
 * puts the same figures in a table next to it.
 */

export interface StackedSeries {
  /** CSS class of the series' bars (`bar-ok`, `bar-error`, `bar-limited`). */
  className: string;
  label: string;
  values: readonly number[];
}

// The per-day charts are drawn 400 units wide and shown at most 36rem wide (site.css): on a
// 390-pixel phone one unit is about one pixel, so the 12-unit tick labels stay legible, and on a
// desktop they grow to about 17 pixels instead of to 30.
const W = 400;
const H = 200;
const RIGHT = 6;
const TOP = 10;
const BOTTOM = 24;
const PLOT_H = H - TOP - BOTTOM;
/** The tick labels' font size in viewBox units (site.css: `svg.chart .tick`). */
const TICK_FONT = 13;

/**
 * Where the plot starts: right of the widest value label (`50000 ms`), so no label is cut off at
 * the left edge of the image. The width is estimated generously, 0.62 em a character (digits are
 * about 0.55 em in the system fonts, `m` 0.85 em, a space 0.28 em), since the server cannot
 * measure text; a label then never reaches past the left edge (test/browser/dashboard-usage.test.ts
 * measures it in Chromium).
 */
function plotLeft(labels: readonly string[]): number {
  const widest = Math.max(...labels.map((l) => l.length));
  return Math.max(28, Math.ceil(widest * 0.62 * TICK_FONT) + 8);
}

/** The value labels of an axis from 0 to `max` (gridlines at 0, half and the maximum); the unit on the top one. */
const valueLabels = (max: number, unit: string) => [0, 0.5, 1].map((f) => fmt(max * f) + (f === 1 ? unit : ''));

/** A "nice" axis maximum at or above the largest value (1, 2, 2.5, 5 × a power of ten). */
export function niceMax(max: number): number {
  if (!(max > 0)) return 1;
  const p = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 2.5, 5, 10].map((m) => m * p).find((v) => v >= max) ?? 10 * p);
}

const fmt = (v: number) => (Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(3))));

/** Axis, gridlines at 0, half and the maximum, and a day label every `tickEvery` days counted back from the last (today), so labels never collide. */
function Frame({ left, values, labels, tickEvery }: { left: number; values: readonly string[]; labels: readonly string[]; tickEvery: number }) {
  const step = (W - left - RIGHT) / Math.max(1, labels.length);
  return (
    <>
      {values.map((value, i) => {
        const y = TOP + PLOT_H - (i / (values.length - 1)) * PLOT_H;
        return (
          <>
            <line class={i === 0 ? 'axis' : 'grid'} x1={left} y1={y} x2={W - RIGHT} y2={y} />
            <text class="tick" x={left - 5} y={y + 4} text-anchor="end">{value}</text>
          </>
        );
      })}
      {labels.map((label, i) =>
        (labels.length - 1 - i) % tickEvery === 0 ? (
          <text class="tick" x={left + i * step + step / 2} y={H - 6} text-anchor={i === labels.length - 1 ? 'end' : 'middle'}>{label.slice(5)}</text>
        ) : null,
      )}
    </>
  );
}

/**
 * Vertical stacked bars, one per label (a day), scaled to a rounded maximum. `id` keeps the
 * title and description ids unique when a page has several charts.
 */
export function StackedBars({ id, title, description, labels, series, tickEvery = 7 }: { id: string; title: string; description: string; labels: readonly string[]; series: readonly StackedSeries[]; tickEvery?: number }) {
  const totals = labels.map((_, i) => series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = niceMax(Math.max(0, ...totals));
  const values = valueLabels(max, '');
  const left = plotLeft(values);
  const step = (W - left - RIGHT) / Math.max(1, labels.length);
  const barW = Math.max(2, step * 0.72);
  const y = (v: number) => TOP + PLOT_H - (v / max) * PLOT_H;
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} preserveAspectRatio="xMidYMid meet">
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <Frame left={left} values={values} labels={labels} tickEvery={tickEvery} />
      {labels.map((_, i) => {
        let base = 0;
        const x = left + i * step + (step - barW) / 2;
        return (
          <g>
            {series.map((s) => {
              const v = s.values[i] ?? 0;
              if (v <= 0) return null;
              const top = y(base + v);
              // At least a pixel tall, so one error among thousands of requests is still seen.
              const rect = <rect class={s.className} x={x} y={Math.min(top, y(base) - 1)} width={barW} height={Math.max(1, y(base) - top)} />;
              base += v;
              return rect;
            })}
          </g>
        );
      })}
    </svg>
  );
}

export interface LineSeries {
  /** CSS class of the line (`line-p50`, `line-p95`). */
  className: string;
  label: string;
  /** One value per label; null leaves a gap (a day without requests). */
  values: ReadonlyArray<number | null>;
}

/** Lines over the days (latency), scaled to a rounded maximum; a dot marks each day's value. */
export function LineChart({ id, title, description, labels, series, unit, tickEvery = 7 }: { id: string; title: string; description: string; labels: readonly string[]; series: readonly LineSeries[]; unit: string; tickEvery?: number }) {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values.map((v) => v ?? 0))));
  const values = valueLabels(max, unit);
  const left = plotLeft(values);
  const step = (W - left - RIGHT) / Math.max(1, labels.length);
  const x = (i: number) => left + i * step + step / 2;
  const y = (v: number) => TOP + PLOT_H - (v / max) * PLOT_H;
  return (
    <svg class="chart" viewBox={`0 0 ${W} ${H}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} preserveAspectRatio="xMidYMid meet">
      <title id={`${id}-title`}>{title}</title>
      <desc id={`${id}-desc`}>{description}</desc>
      <Frame left={left} values={values} labels={labels} tickEvery={tickEvery} />
      {series.map((s) => {
        let d = '';
        s.values.forEach((v, i) => {
          if (v === null) return;
          d += `${i > 0 && s.values[i - 1] !== null ? 'L' : 'M'}${x(i).toFixed(1)} ${y(v).toFixed(1)}`;
        });
        return (
          <g class={s.className}>
            {d ? <path d={d} /> : null}
            {s.values.map((v, i) => (v === null ? null : <circle cx={x(i).toFixed(1)} cy={y(v).toFixed(1)} r="2.2" />))}
          </g>
        );
      })}
    </svg>
  );
}

/** A bar in a table cell, as long as `value` is of `max`; decorative (the cell beside it has the figure). */
export function CellBar({ value, max, className = 'bar-ok' }: { value: number; max: number; className?: string }) {
  const w = max > 0 ? Math.max(value > 0 ? 1 : 0, (100 * value) / max) : 0;
  return (
    <svg class="cell-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true" focusable="false">
      <rect class={className} x="0" y="0" width={w.toFixed(2)} height="8" />
    </svg>
  );
}

/** One horizontal bar: how much of a limit is used. */
export function UseBar({ label, used, limit }: { label: string; used: number; limit: number | null }) {
  const share = limit ? Math.min(1, used / limit) : 0;
  return (
    <svg class="use-bar" viewBox="0 0 300 14" role="img" aria-label={label} preserveAspectRatio="none">
      <rect class="use-track" x="0" y="0" width="300" height="14" rx="7" />
      <rect class={share >= 0.9 ? 'use-fill high' : 'use-fill'} x="0" y="0" width={Math.max(share > 0 ? 4 : 0, 300 * share)} height="14" rx="7" />
    </svg>
  );
}
