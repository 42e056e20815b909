/**
 * Prometheus metrics of one app instance (GET /metrics, docs/metrics.md).
 *
 * - One prom-client Registry per app, never the library's global one: tests build many apps in
 *   one process, and each gets its own series and its own default process metrics.
 * - The domain services report through `DomainMetrics` (src/domain/metrics.ts), which this class
 *   implements; HTTP requests are counted by a hook resolved per route (http-metrics.ts).
 * - Queue depth and job lag are read from the database when scraped, at most once per
 *   BACKLOG_CACHE_MS (injected clock), so frequent or concurrent scrapes cost one set of queries.
 */
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import type { FastifyInstance, onResponseHookHandler } from 'fastify';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import { readBacklog, type BacklogSnapshot } from '../db/repositories/metrics.repository.ts';
import type { RateLimitStore } from '../domain/access/rate-limit.ts';
import { holdSource, type DomainMetrics, type PaymentOutcome, type RateLimitKind, type WebhookAttemptOutcome } from '../domain/metrics.ts';
import type { Logger } from '../domain/notify/mailer.ts';
import { HttpMetrics, type RouteSeries } from './http-metrics.ts';

/** How long one read of the backlog (queue depth, job lag) serves scrapes. */
export const BACKLOG_CACHE_MS = 5_000;

const HOLD_SOURCES = ['api', 'widget', 'ai_agent', 'unspecified'] as const;
const PAYMENT_OUTCOMES: readonly PaymentOutcome[] = ['authorized', 'declined', 'captured', 'voided', 'capture_failed', 'void_failed', 'provider_error'];
const WEBHOOK_OUTCOMES: readonly WebhookAttemptOutcome[] = ['delivered', 'failed', 'dead'];
const RATE_LIMIT_KINDS: readonly RateLimitKind[] = [
  'api_key',
  'diagnostic',
  'anonymous_availability',
  'anonymous_initiate',
  'anonymous_default',
  'failed_auth',
  'mcp_tool_call',
  'mcp_hold',
  'oauth_registration',
  'sign_in',
  'passkey',
  'pending_intents_per_key',
  'pending_holds_per_person',
  'other',
];

/** Which limit a limiter bucket belongs to (bucket names: src/domain/access, identity, oauth). */
export function limitKind(bucket: string): RateLimitKind {
  if (bucket.startsWith('key:')) return 'api_key';
  if (bucket.startsWith('anon:availability:')) return 'anonymous_availability';
  if (bucket.startsWith('anon:initiate:')) return 'anonymous_initiate';
  if (bucket.startsWith('anon:')) return 'anonymous_default';
  if (bucket.startsWith('diag:')) return 'diagnostic';
  if (bucket.startsWith('authfail:')) return 'failed_auth';
  if (bucket.startsWith('mcp:call:')) return 'mcp_tool_call';
  if (bucket.startsWith('mcp:hold:')) return 'mcp_hold';
  if (bucket.startsWith('oauth:reg:')) return 'oauth_registration';
  if (bucket.startsWith('signin:')) return 'sign_in';
  if (bucket.startsWith('passkey:')) return 'passkey';
  return 'other';
}

export interface AppMetricsDeps {
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Cache of the backlog read; BACKLOG_CACHE_MS by default. */
  backlogCacheMs?: number;
}

const secondsSince = (iso: string | null, nowMs: number): number => (iso === null ? 0 : Math.max(0, (nowMs - Date.parse(iso)) / 1000));

export class AppMetrics implements DomainMetrics {
  readonly registry = new Registry();
  readonly http = new HttpMetrics();
  private readonly created: Counter<'source'>;
  private readonly confirmed: Counter<'source'>;
  private readonly expired: Counter<'source'>;
  private readonly payments: Counter<'provider' | 'outcome'>;
  private readonly attempts: Counter<'outcome'>;
  private readonly disabled: Counter<'cause'>;
  private readonly tools: Counter<'tool' | 'outcome'>;
  private readonly refusals: Counter<'limit'>;
  private readonly backlogErrors: Counter;
  private backlog: { atMs: number; read: Promise<BacklogSnapshot | null> } | null = null;

  constructor(private readonly deps: AppMetricsDeps) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    for (const collector of this.http.collectors()) this.registry.registerMetric(collector as never);
    const counter = <L extends string>(name: string, help: string, labelNames: readonly L[]) => new Counter<L>({ name, help, labelNames, registers });
    this.created = counter('consulta_holds_created_total', 'Booking holds committed (test-key initiations hold nothing), by source.', ['source']);
    this.confirmed = counter('consulta_holds_confirmed_total', 'Booking holds confirmed, by source.', ['source']);
    this.expired = counter('consulta_holds_expired_total', 'Booking holds made durably expired (sweep or late confirmation), by source.', ['source']);
    this.payments = counter('consulta_payment_outcomes_total', 'Payment outcomes by provider: authorized, declined, captured, voided, and provider failures.', ['provider', 'outcome']);
    this.attempts = counter('consulta_webhook_attempts_total', 'Webhook delivery attempts recorded, by outcome: delivered, failed (retry scheduled), dead (last attempt failed).', ['outcome']);
    this.disabled = counter('consulta_webhook_endpoints_disabled_total', 'Webhook endpoints disabled by the dispatcher, by cause (gone: a 410; failures: consecutive failed attempts).', ['cause']);
    this.tools = counter('consulta_mcp_tool_calls_total', 'MCP tool calls by tool and outcome (ok, or the error code of the result).', ['tool', 'outcome']);
    this.refusals = counter('consulta_rate_limit_refusals_total', 'Requests refused by a rate limit, by limit.', ['limit']);
    this.backlogErrors = counter('consulta_metrics_backlog_read_errors_total', 'Scrape-time reads of queue depth and job lag that failed (the gauges are then absent).', []);
    // Series that exist from the start (at 0): rate() and increase() see their first event.
    for (const source of HOLD_SOURCES) {
      this.created.inc({ source }, 0);
      this.confirmed.inc({ source }, 0);
      this.expired.inc({ source }, 0);
    }
    for (const outcome of WEBHOOK_OUTCOMES) this.attempts.inc({ outcome }, 0);
    for (const limit of RATE_LIMIT_KINDS) this.refusals.inc({ limit }, 0);

    const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[], fill: (g: Gauge<L>, b: BacklogSnapshot, nowMs: number) => void) => {
      const g: Gauge<L> = new Gauge<L>({
        name,
        help,
        labelNames,
        registers,
        collect: async () => {
          const snapshot = await this.readBacklog();
          g.reset();
          if (snapshot) fill(g, snapshot, this.deps.clock.now().getTime());
        },
      });
      return g;
    };
    gauge('consulta_webhook_queue_depth', 'Pending webhook messages: due (sending or waiting for a slot), scheduled (a later retry), parked (endpoint disabled).', ['state'], (g, b) => {
      g.set({ state: 'due' }, b.webhookDue);
      g.set({ state: 'scheduled' }, b.webhookScheduled);
      g.set({ state: 'parked' }, b.webhookParked);
    });
    gauge('consulta_outbox_unpublished_events', 'Booking events not yet fanned out into webhook messages.', [], (g, b) => g.set(b.outboxUnpublished));
    gauge('consulta_mail_queue_due', 'Queued mail that is due to be sent.', [], (g, b) => g.set(b.mailDue));
    // The label is `task`, not `job`: Prometheus sets `job` on every series to the scrape job's name.
    gauge('consulta_job_lag_seconds', 'How long the oldest item due for a background job has been waiting (0: nothing due), by task.', ['task'], (g, b, nowMs) => {
      g.set({ task: 'expiry_sweep' }, secondsSince(b.expiryOldestDue, nowMs));
      g.set({ task: 'webhook_delivery' }, secondsSince(b.webhookOldestDue, nowMs));
      g.set({ task: 'outbox_fanout' }, secondsSince(b.outboxOldest, nowMs));
      g.set({ task: 'mail_delivery' }, secondsSince(b.mailOldestDue, nowMs));
    });
  }

  /** The exposition text and its content type (Prometheus text format 0.0.4). */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  /**
   * Counts every response: a hook of each route, added as the route is registered (its series
   * resolved then), and one app-wide hook for requests no route matched. Call before any route
   * is registered.
   */
  instrument(fastify: FastifyInstance): void {
    fastify.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      let hook: onResponseHookHandler;
      if (methods.length === 1) {
        const series = this.http.route(route.url, methods[0]!);
        hook = (_request, reply, done) => {
          series.observe(reply.statusCode, reply.elapsedTime);
          done();
        };
      } else {
        const byMethod = new Map<string, RouteSeries>(methods.map((m) => [m, this.http.route(route.url, m)]));
        hook = (request, reply, done) => {
          byMethod.get(request.method)?.observe(reply.statusCode, reply.elapsedTime);
          done();
        };
      }
      const existing = route.onResponse;
      route.onResponse = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
    });
    fastify.addHook('onResponse', (request, reply, done) => {
      if (request.is404) this.http.observeUnmatched(request.method, reply.statusCode, reply.elapsedTime);
      done();
    });
  }

  /** The limiter, counting its refusals by limit (every caller of the shared limiter is covered). */
  countRefusals(store: RateLimitStore): RateLimitStore {
    return {
      consume: (bucket, rules, nowMs) =>
        store.consume(bucket, rules, nowMs).then((result) => {
          // A failed-key bucket only counts bad keys; those requests are refused with a 401 anyway.
          if (!result.allowed && !bucket.startsWith('authfail:')) this.refusals.inc({ limit: limitKind(bucket) });
          return result;
        }),
      peek: (bucket, rules, nowMs) =>
        store.peek(bucket, rules, nowMs).then((windows) => {
          // The failed-key guard refuses on a peek (AccessService): exhausted means refused.
          if (bucket.startsWith('authfail:') && windows.some((w) => w.remaining <= 0)) this.refusals.inc({ limit: 'failed_auth' });
          return windows;
        }),
      close: () => store.close(),
    };
  }

  holdsCreated(source: string | null, n = 1): void {
    this.created.inc({ source: holdSource(source) }, n);
  }

  holdsConfirmed(source: string | null, n = 1): void {
    this.confirmed.inc({ source: holdSource(source) }, n);
  }

  holdsExpired(source: string | null, n = 1): void {
    this.expired.inc({ source: holdSource(source) }, n);
  }

  paymentOutcome(provider: string, outcome: PaymentOutcome): void {
    this.payments.inc({ provider, outcome });
  }

  webhookAttempt(outcome: WebhookAttemptOutcome): void {
    this.attempts.inc({ outcome });
  }

  webhookEndpointDisabled(cause: string): void {
    this.disabled.inc({ cause });
  }

  toolCall(tool: string, outcome: string): void {
    this.tools.inc({ tool, outcome });
  }

  rateLimitRefused(kind: RateLimitKind): void {
    this.refusals.inc({ limit: kind });
  }

  /** Prepares the payment series of a provider at 0 (the app knows its provider at start-up). */
  providerSeries(provider: string): void {
    for (const outcome of PAYMENT_OUTCOMES) this.payments.inc({ provider, outcome }, 0);
  }

  private readBacklog(): Promise<BacklogSnapshot | null> {
    const nowMs = this.deps.clock.now().getTime();
    const cacheMs = this.deps.backlogCacheMs ?? BACKLOG_CACHE_MS;
    if (this.backlog && nowMs >= this.backlog.atMs && nowMs - this.backlog.atMs < cacheMs) return this.backlog.read;
    const read = readBacklog(this.deps.database.db, new Date(nowMs).toISOString()).catch((err: unknown) => {
      this.backlogErrors.inc();
      this.deps.logger.warn({ err }, 'metrics: reading the job backlog failed');
      return null;
    });
    this.backlog = { atMs: nowMs, read };
    return read;
  }
}
