/**
 * Reading GET /metrics in tests: a strict parser of the Prometheus text exposition format 0.0.4
 * (it throws on any line the format does not allow), and lookups of one series' value.
 */
import assert from 'node:assert/strict';
import type { TestContext } from '../support/app.ts';

export const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
export const PROMETHEUS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  samples: Sample[];
  /** Family name → type, from the `# TYPE` lines. */
  types: Map<string, string>;
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*';
// Values are what Go's strconv.ParseFloat accepts (Prometheus parses them with it): NaN and Inf
// in any case (prom-client writes NaN as "Nan").
const VALUE = '(?:[+-]?(?:\\d+\\.?\\d*(?:[eE][+-]?\\d+)?|\\.\\d+(?:[eE][+-]?\\d+)?)|[+-]?[iI][nN][fF]|[nN][aA][nN])';
const SAMPLE_LINE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (${VALUE})(?: -?\\d+)?$`);
const LABEL_PAIR = new RegExp(`^(${LABEL})="((?:[^"\\\\\\n]|\\\\[\\\\"n])*)"`);
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseValue(raw: string): number {
  if (/^[+]?inf$/i.test(raw)) return Infinity;
  if (/^-inf$/i.test(raw)) return -Infinity;
  if (/^nan$/i.test(raw)) return NaN;
  return Number(raw);
}

function parseLabels(raw: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  let rest = raw;
  while (rest.length > 0) {
    const m = LABEL_PAIR.exec(rest);
    if (!m) throw new Error(`bad labels in: ${line}`);
    if (m[1]! in labels) throw new Error(`duplicate label ${m[1]} in: ${line}`);
    labels[m[1]!] = m[2]!.replace(/\\(["\\n])/g, (_, c: string) => (c === 'n' ? '\n' : c));
    rest = rest.slice(m[0].length);
    if (rest.startsWith(',')) rest = rest.slice(1);
    else if (rest.length > 0) throw new Error(`bad labels in: ${line}`);
  }
  return labels;
}

/** The family a sample belongs to, given the declared families (histogram suffixes stripped). */
function familyOf(name: string, types: Map<string, string>): string | undefined {
  if (types.has(name)) return name;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.endsWith(suffix) ? name.slice(0, -suffix.length) : null;
    if (base !== null && (types.get(base) === 'histogram' || types.get(base) === 'summary')) return base;
  }
  return undefined;
}

/** Parses an exposition; throws on a malformed line, an undeclared family or a duplicate series. */
export function parseExposition(text: string): Exposition {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a newline');
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const seen = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    if (line.startsWith('#')) {
      const help = new RegExp(`^# HELP (${NAME}) .*$`).exec(line);
      const type = new RegExp(`^# TYPE (${NAME}) (\\w+)$`).exec(line);
      if (type) {
        if (!TYPES.has(type[2]!)) throw new Error(`unknown type in: ${line}`);
        if (types.has(type[1]!)) throw new Error(`family declared twice: ${line}`);
        types.set(type[1]!, type[2]!);
      } else if (!help) throw new Error(`bad comment line: ${line}`);
      continue;
    }
    const m = SAMPLE_LINE.exec(line);
    if (!m) throw new Error(`bad sample line: ${line}`);
    const name = m[1]!;
    if (familyOf(name, types) === undefined) throw new Error(`sample of an undeclared family: ${line}`);
    const labels = m[2] === undefined ? {} : parseLabels(m[2], line);
    const key = `${name}{${Object.entries(labels).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}}`;
    if (seen.has(key)) throw new Error(`duplicate series: ${line}`);
    seen.add(key);
    samples.push({ name, labels, value: parseValue(m[3]!) });
  }
  return { samples, types };
}

/** The value of the one series of `name` whose labels are exactly `labels`; undefined when absent. */
export function valueOf(exposition: Exposition, name: string, labels: Record<string, string> = {}): number | undefined {
  const want = Object.entries(labels);
  const found = exposition.samples.filter(
    (s) => s.name === name && Object.keys(s.labels).length === want.length && want.every(([k, v]) => s.labels[k] === v),
  );
  assert.ok(found.length <= 1, `${name}${JSON.stringify(labels)} matches ${found.length} series`);
  return found[0]?.value;
}

/** The series of a family (every label set). */
export function seriesOf(exposition: Exposition, name: string): Sample[] {
  return exposition.samples.filter((s) => s.name === name);
}

/** GET /metrics with the test token; asserts the status and content type, returns the parsed text. */
export async function scrape(ctx: TestContext): Promise<Exposition> {
  const res = await ctx.app.fastify.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal(res.headers['content-type'], PROMETHEUS_CONTENT_TYPE);
  return parseExposition(res.body);
}
