/**
 * Request counts and latency by route, method and status, kept in plain numbers on the hot path
 * and turned into Prometheus series only when scraped.
 *
 * prom-client's labelled counters and histograms hash their label object on every call (a
 * string built per increment); a request here costs a Map lookup on the route's own series, an
 * integer increment and a bucket search, with no allocation. The series of a route is resolved
 * once, when the route is registered (see `instrument` in metrics.ts), so the label values are
 * route patterns and methods known at start-up: a random URL never creates a series. Requests no
 * route matched share one `route="unmatched"` series per method.
 */

/** Upper bounds (seconds) of the duration buckets: 1 ms … 5 s, for an API whose cached answers take well under a millisecond. */
export const DURATION_BUCKETS: readonly number[] = Object.freeze([0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]);
const BUCKET_LABELS = [...DURATION_BUCKETS.map(String), '+Inf'];

export const UNMATCHED_ROUTE = 'unmatched';

/** One route and method: counts by status and the duration histogram. */
export class RouteSeries {
  /** Per bucket (not cumulative); the last cell counts durations above the largest bound. */
  private readonly buckets = new Float64Array(DURATION_BUCKETS.length + 1);
  private sum = 0;
  private count = 0;
  private readonly statuses = new Map<number, number>();

  constructor(
    readonly route: string,
    readonly method: string,
  ) {}

  /** Records one response: its status and how long it took (milliseconds, as Fastify measures it). */
  observe(status: number, elapsedMs: number): void {
    const seconds = elapsedMs / 1000;
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    this.buckets[i]!++;
    this.sum += seconds;
    this.count++;
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
  }

  /** Counter samples: one per status seen. */
  counts(name: string, into: Sample[]): void {
    for (const [status, value] of this.statuses) into.push({ metricName: name, labels: { route: this.route, method: this.method, status: String(status) }, value });
  }

  /** Histogram samples: cumulative buckets, sum and count (only once the route served a request). */
  histogram(name: string, into: Sample[]): void {
    if (this.count === 0) return;
    let cumulative = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cumulative += this.buckets[i]!;
      into.push({ metricName: `${name}_bucket`, labels: { route: this.route, method: this.method, le: BUCKET_LABELS[i]! }, value: cumulative });
    }
    into.push({ metricName: `${name}_sum`, labels: { route: this.route, method: this.method }, value: this.sum });
    into.push({ metricName: `${name}_count`, labels: { route: this.route, method: this.method }, value: this.count });
  }
}

export interface Sample {
  metricName: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A metric as prom-client's Registry reads it (`name`, `get()`); prom-client formats it with
 * its own metrics, so the exposition is one document with one content type.
 */
export interface Collector {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): { name: string; help: string; type: string; aggregator: 'sum'; values: Sample[] };
}

export const REQUESTS_TOTAL = 'consulta_http_requests_total';
export const REQUEST_DURATION = 'consulta_http_request_duration_seconds';

export class HttpMetrics {
  private readonly all = new Map<string, RouteSeries>();
  private readonly unmatched = new Map<string, RouteSeries>();

  /** The series of a registered route (resolved once, at registration). */
  route(route: string, method: string): RouteSeries {
    const key = `${method} ${route}`;
    let series = this.all.get(key);
    if (!series) {
      series = new RouteSeries(route, method);
      this.all.set(key, series);
    }
    return series;
  }

  /** Records a response no route matched (the method set is Node's parser's: bounded). */
  observeUnmatched(method: string, status: number, elapsedMs: number): void {
    let series = this.unmatched.get(method);
    if (!series) {
      series = this.route(UNMATCHED_ROUTE, method);
      this.unmatched.set(method, series);
    }
    series.observe(status, elapsedMs);
  }

  collectors(): Collector[] {
    const collector = (name: string, help: string, type: 'counter' | 'histogram', fill: (s: RouteSeries, into: Sample[]) => void): Collector => ({
      name,
      help,
      type,
      aggregator: 'sum',
      get: () => {
        const values: Sample[] = [];
        for (const series of this.all.values()) fill(series, values);
        return { name, help, type, aggregator: 'sum', values };
      },
    });
    return [
      collector(REQUESTS_TOTAL, 'HTTP requests answered, by route pattern, method and status.', 'counter', (s, into) => s.counts(REQUESTS_TOTAL, into)),
      collector(REQUEST_DURATION, 'Time from receiving a request to finishing its response, by route pattern and method.', 'histogram', (s, into) => s.histogram(REQUEST_DURATION, into)),
    ];
  }
}
