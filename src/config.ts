/**
 * Configuration is read from the environment exactly once, validated, and frozen.
 * Nothing else in the codebase reads `process.env` (enforced by lint).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';

export interface Config {
  readonly port: number;
  readonly host: string;
  /** `sqlite:<path>`, a plain file path, `:memory:`, or `postgres://…`. */
  readonly databaseUrl: string;
  /** Public base of the REST API, ends with `/api/v1`. */
  readonly baseUrl: string;
  /** Public origin of the web site (confirmation pages, docs). */
  readonly siteUrl: string;
  readonly mcpUrl: string;
  /**
   * Whether the MCP endpoint answers the canonical stateless tools/call itself (same bytes as the
   * SDK, see src/mcp/direct-call.ts); off sends every request through the SDK. On by default.
   */
  readonly mcpDirectCalls: boolean;
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Fastify `trustProxy` value: false, or a list of addresses/CIDRs, or a hop count. */
  readonly trustProxy: false | string[] | number;
  /** Secret mixed into the tags of fenced user text; random per process when unset. */
  readonly fenceSecret: string;
  readonly minLeadTimeMinutes: number;
  readonly bodyLimitBytes: number;
  readonly shutdownTimeoutMs: number;
  readonly dbPoolSize: number;
  /** How many demo lawyers `consulta start` seeds into an empty database. */
  readonly demoLawyers: number;
  readonly nodeEnv: string;
  /** Rate-limit counters live in Redis when set (required for several processes), else in memory. */
  readonly redisUrl: string | null;
  /** SMTP server for notifications (`smtp://user:pass@host:port`); the log when unset. */
  readonly smtpUrl: string | null;
  readonly mailFrom: string;
  /** How long a process may reuse a looked-up API key before reading it again. */
  readonly keyCacheTtlMs: number;
  /**
   * How often a process checks for directory writes and lawyer changes (holds, bookings) made by
   * other processes; its own changes take effect at once. 0 checks on every request.
   */
  readonly directoryRefreshMs: number;
  /** Memory budget (estimated MB) of each process's cached directory answers. */
  readonly directoryCacheMb: number;
  /**
   * How far (percent) the server's JavaScript heap may grow past its live size before a full
   * collection; 0 leaves V8's own heuristic (which lets it grow up to 4× under a high request
   * rate). Applied by `consulta serve` and `start` only.
   */
  readonly heapGrowthPercent: number;
  readonly requestLogRetentionDays: number;
  /** Days delivered and dead webhook messages (with their attempts) and fanned-out outbox events are kept. */
  readonly webhookRetentionDays: number;
  /** Days mail no longer queued stays in the mail outbox. */
  readonly mailRetentionDays: number;
  /** Days of the daily usage aggregates kept (the dashboard charts show the last 30). */
  readonly usageRetentionDays: number;
  /** Rows one retention purge statement deletes at most (bounds each lock and transaction). */
  readonly retentionBatchSize: number;
  /** Whether API requests are written to the request log (on unless REQUEST_LOG=off). */
  readonly requestLogEnabled: boolean;
  readonly requestLogFlushMs: number;
  /** Failed key attempts allowed per client address per minute before 429. */
  readonly maxFailedAuthPerMinute: number;
  /**
   * Multiplies every rate limit (load tests and benchmarks only): the limiter still runs in full
   * on every request, it just refuses later. 1 in production.
   */
  readonly rateLimitMultiplier: number;
  /** How long a booking intent holds its slot. */
  readonly bookingIntentTtlSeconds: number;
  /** How often the sweeper makes expiries durable. */
  readonly sweepIntervalMs: number;
  /** Pending (unexpired) intents one key may hold at once. */
  readonly maxPendingIntentsPerKey: number;
  /** How long an in-progress Idempotency-Key claim lasts before another process may take it over. */
  readonly idempotencyLeaseSeconds: number;
  /** Delays between webhook delivery attempts (after the first); attempts = length + 1. */
  readonly webhookRetryScheduleSeconds: readonly number[];
  /** Lifts HTTPS-only and the SSRF address checks of webhook targets: local development and tests only. */
  readonly webhookAllowInsecureTargets: boolean;
  /** Whole-attempt timeout of one webhook delivery (connect, send, response headers and body). */
  readonly webhookTimeoutMs: number;
  /** Webhook deliveries in flight at once, per process. */
  readonly webhookConcurrency: number;
  /** Webhook deliveries in flight at once to one endpoint, per process. */
  readonly webhookEndpointConcurrency: number;
  /** How often an idle webhook dispatcher looks for new events and due retries. */
  readonly webhookDispatchIntervalMs: number;
  /** Consecutive failed attempts (across messages) that disable an endpoint. */
  readonly webhookDisableAfterFailures: number;
  /** How long a claimed delivery is reserved for its process; after a crash it is redelivered then. */
  readonly webhookLeaseSeconds: number;
  /** `demo` (default: a checkout page on our origin, no money moves) or `stripe` (hosted Checkout). */
  readonly paymentProvider: 'demo' | 'stripe';
  /** Stripe secret key (`sk_…`); required when the provider is `stripe`. */
  readonly stripeSecretKey: string | null;
  /** Signing secret of the Stripe webhook endpoint (`whsec_…`); required when the provider is `stripe`. */
  readonly stripeWebhookSecret: string | null;
  /** Base URL of Stripe's API (tests point it at a local stand-in); null means the SDK's default. */
  readonly stripeApiBase: string | null;
  /** A signed-in session ends after this many days without use. */
  readonly sessionIdleDays: number;
  /** A signed-in session ends this many days after sign-in, used or not. */
  readonly sessionMaxDays: number;
  /** Lifetime of an OAuth access token for the MCP server (opaque, audience MCP_URL). */
  readonly oauthAccessTokenTtlSeconds: number;
  /**
   * Keys that sign the authorization server's cookies (first signs, all verify: rotation).
   * Random per process when unset, which is only right for one process.
   */
  readonly oauthCookieKeys: readonly string[];
  /**
   * Bearer token that GET /metrics on the public port requires (at least 16 characters); null
   * leaves /metrics off the public port (docs/metrics.md).
   */
  readonly metricsToken: string | null;
  /** Port of the admin listener serving GET /metrics without a token; null: no admin listener. */
  readonly metricsPort: number | null;
  /** Address the admin listener binds to (127.0.0.1 unless set). */
  readonly metricsHost: string;
  /**
   * Who runs the service, as the legal notice (LSSI-CE art. 10) and the privacy statement name
   * it: `LEGAL_*` settings. Each unset one is a clearly marked demonstration value, and `demo`
   * is then true so the pages say so (docs/site.md#legal-pages).
   */
  readonly legal: LegalIdentity;
  /** Where the contact form's messages are emailed (CONTACT_EMAIL; the legal email when unset). */
  readonly contactEmail: string;
}

/** The operator's identity on the legal pages. */
export interface LegalIdentity {
  /** Company or person's name (LEGAL_NAME). */
  readonly name: string;
  /** NIF/CIF (LEGAL_TAX_ID). */
  readonly taxId: string;
  /** Registered address (LEGAL_ADDRESS). */
  readonly address: string;
  /** Contact address for legal and data-protection matters (LEGAL_EMAIL). */
  readonly email: string;
  /** Registry entry, e.g. "Registro Mercantil de Madrid, tomo …" (LEGAL_REGISTRY); empty if none applies. */
  readonly registry: string;
  /** True while any of the above is a demonstration default. */
  readonly demo: boolean;
  /**
   * The LEGAL_* settings left unset, whose value above is a demonstration default: the pages show
   * those in the reader's language, start-up names them, and a production site refuses people's
   * pages while any is missing (issue 25 item 18; docs/operations.md#legal-details).
   */
  readonly missing: readonly LegalSetting[];
}

export const LEGAL_SETTINGS = ['LEGAL_NAME', 'LEGAL_TAX_ID', 'LEGAL_ADDRESS', 'LEGAL_EMAIL', 'LEGAL_REGISTRY'] as const;
export type LegalSetting = (typeof LEGAL_SETTINGS)[number];

/** The demonstration operator: marked as such wherever it shows. */
export const DEMO_LEGAL = {
  name: 'Consulta Demo, S.L. (DEMO)',
  taxId: 'B00000000 (DEMO)',
  address: 'Calle de Ejemplo 1, 28001 Madrid, España (DEMO)',
  email: 'legal@consulta.invalid',
  registry: 'Registro Mercantil de Madrid (DEMO: no real entry)',
} as const;

const EMAIL_SHAPE = /^[^\s@<>()",;]+@[^\s@<>()",;]+\.[^\s@<>()",;]+$/;

function legalIdentity(env: Env): LegalIdentity {
  const read = (name: string, fallback: string, max = 300): [string, boolean] => {
    const raw = (env[name] ?? '').trim();
    if (raw === '') return [fallback, true];
    if (raw.length > max || [...raw].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) throw new ConfigError(name, `use one line of at most ${max} characters`);
    return [raw, false];
  };
  const [name, d1] = read('LEGAL_NAME', DEMO_LEGAL.name);
  const [taxId, d2] = read('LEGAL_TAX_ID', DEMO_LEGAL.taxId, 40);
  const [address, d3] = read('LEGAL_ADDRESS', DEMO_LEGAL.address);
  const [email, d4] = read('LEGAL_EMAIL', DEMO_LEGAL.email, 254);
  if (!EMAIL_SHAPE.test(email)) throw new ConfigError('LEGAL_EMAIL', `expected an email address, got "${email}"`);
  const [registry, d5] = read('LEGAL_REGISTRY', DEMO_LEGAL.registry);
  const missing = LEGAL_SETTINGS.filter((_, i) => [d1, d2, d3, d4, d5][i]);
  return { name, taxId, address, email, registry, demo: missing.length > 0, missing };
}

/** A production start (NODE_ENV=production) with any LEGAL_* setting unset: the site refuses people's pages. */
export function refusesPeoplePages(config: Pick<Config, 'nodeEnv' | 'legal'>): boolean {
  return config.nodeEnv === 'production' && config.legal.missing.length > 0;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function url(env: Env, name: string, fallback: string): string {
  const raw = (env[name] ?? '').trim() || fallback;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid absolute URL: "${raw}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(name, `must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function onOff(env: Env, name: string, fallback: boolean): boolean {
  const raw = (env[name] ?? '').trim().toLowerCase();
  if (raw === '') return fallback;
  if (raw === 'on' || raw === 'true' || raw === '1') return true;
  if (raw === 'off' || raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be on or off, got "${env[name]}"`);
}

function optionalUrl(env: Env, name: string, protocols: string[]): string | null {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return null;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) throw new ConfigError(name, `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  return raw;
}

function trustProxy(raw: string | undefined): Config['trustProxy'] {
  const value = (raw ?? '').trim();
  if (value === '' || value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  if (value === 'true') {
    throw new ConfigError('TRUST_PROXY', 'name the trusted proxies (addresses or CIDRs, comma-separated) or a hop count; "true" would let any client forge its address');
  }
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}

/** Comma-separated whole seconds (`60,300,1800`): each 1 s … 7 days, at most 20 of them. */
function secondsList(env: Env, name: string, fallback: readonly number[]): readonly number[] {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return Object.freeze([...fallback]);
  const parts = raw.split(',').map((p) => p.trim());
  if (parts.length > 20) throw new ConfigError(name, `at most 20 delays, got ${parts.length}`);
  const values = parts.map((p) => {
    if (!/^\d+$/.test(p)) throw new ConfigError(name, `expected comma-separated whole seconds, got "${raw}"`);
    const n = Number(p);
    if (n < 1 || n > 7 * 86_400) throw new ConfigError(name, `each delay must be between 1 and 604800 seconds, got ${n}`);
    return n;
  });
  return Object.freeze(values);
}

/** OAUTH_COOKIE_KEYS: comma-separated secrets of at least 32 characters each; random when unset. */
function cookieKeys(raw: string | undefined): readonly string[] {
  const keys = (raw ?? '').split(',').map((k) => k.trim()).filter(Boolean);
  if (keys.length === 0) return Object.freeze([randomBytes(32).toString('base64url')]);
  if (keys.some((k) => k.length < 32)) throw new ConfigError('OAUTH_COOKIE_KEYS', 'each key needs at least 32 characters');
  return Object.freeze(keys);
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Builds the frozen configuration from an environment (defaults to `process.env`). */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const port = int(env, 'PORT', 3000, 0, 65535);
  const siteUrl = url(env, 'SITE_URL', `http://localhost:${port}`);
  const baseUrl = url(env, 'BASE_URL', `${siteUrl}/api/v1`);
  if (!baseUrl.endsWith('/api/v1')) throw new ConfigError('BASE_URL', 'must end with the version prefix /api/v1');
  const logLevel = (env.LOG_LEVEL ?? 'info').trim() as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError('LOG_LEVEL', `must be one of ${LOG_LEVELS.join(', ')}`);
  const databaseUrl = (env.DATABASE_URL ?? '').trim() || `sqlite:${path.join('data', 'consulta.db')}`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(databaseUrl) && !/^postgres(ql)?:\/\//i.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL', 'use a file path, sqlite:<path> or postgres://…');
  }
  const fenceSecret = (env.FENCE_SECRET ?? '').trim();
  if (fenceSecret !== '' && fenceSecret.length < 16) throw new ConfigError('FENCE_SECRET', 'use at least 16 characters');

  const webhookTimeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 600_000);
  // The lease must outlast an attempt, or a second process could send the same attempt meanwhile.
  const webhookLeaseSeconds = int(env, 'WEBHOOK_LEASE_SECONDS', Math.max(60, Math.ceil(webhookTimeoutMs / 1000) + 30), 1, 86_400);
  if (webhookLeaseSeconds * 1000 <= webhookTimeoutMs) {
    throw new ConfigError('WEBHOOK_LEASE_SECONDS', `must be longer than WEBHOOK_TIMEOUT_MS (${webhookTimeoutMs} ms), got ${webhookLeaseSeconds} s`);
  }

  const metricsToken = (env.METRICS_TOKEN ?? '').trim() || null;
  if (metricsToken !== null && (metricsToken.length < 16 || !/^[\x21-\x7e]+$/.test(metricsToken))) {
    throw new ConfigError('METRICS_TOKEN', 'use at least 16 printable characters without spaces');
  }
  const metricsPort = (env.METRICS_PORT ?? '').trim() === '' ? null : int(env, 'METRICS_PORT', 0, 0, 65535);
  if (metricsPort !== null && metricsPort !== 0 && metricsPort === port) throw new ConfigError('METRICS_PORT', `must differ from PORT (${port})`);

  const paymentProvider = ((env.PAYMENT_PROVIDER ?? '').trim() || 'demo') as Config['paymentProvider'];
  if (paymentProvider !== 'demo' && paymentProvider !== 'stripe') throw new ConfigError('PAYMENT_PROVIDER', `must be demo or stripe, got "${paymentProvider}"`);
  const stripeSecretKey = (env.STRIPE_SECRET_KEY ?? '').trim() || null;
  const stripeWebhookSecret = (env.STRIPE_WEBHOOK_SECRET ?? '').trim() || null;
  if (paymentProvider === 'stripe') {
    if (!stripeSecretKey) throw new ConfigError('STRIPE_SECRET_KEY', 'is required when PAYMENT_PROVIDER=stripe');
    if (!stripeWebhookSecret) throw new ConfigError('STRIPE_WEBHOOK_SECRET', 'is required when PAYMENT_PROVIDER=stripe');
  }

  const legal = legalIdentity(env);
  const contactEmail = (env.CONTACT_EMAIL ?? '').trim() || legal.email;
  if (!EMAIL_SHAPE.test(contactEmail)) throw new ConfigError('CONTACT_EMAIL', `expected an email address, got "${contactEmail}"`);

  const config: Config = {
    port,
    host: (env.HOST ?? '').trim() || '0.0.0.0',
    databaseUrl,
    baseUrl,
    siteUrl,
    mcpUrl: url(env, 'MCP_URL', `${siteUrl}/mcp`),
    logLevel,
    trustProxy: trustProxy(env.TRUST_PROXY),
    fenceSecret: fenceSecret || randomBytes(32).toString('hex'),
    minLeadTimeMinutes: int(env, 'MIN_LEAD_TIME_MINUTES', 120, 0, 60 * 24 * 30),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 600_000),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 10, 1, 200),
    demoLawyers: int(env, 'DEMO_LAWYERS', 300, 0, 1_000_000),
    nodeEnv: (env.NODE_ENV ?? 'development').trim(),
    redisUrl: optionalUrl(env, 'REDIS_URL', ['redis:', 'rediss:']),
    smtpUrl: optionalUrl(env, 'SMTP_URL', ['smtp:', 'smtps:']),
    mailFrom: (env.MAIL_FROM ?? '').trim() || 'Consulta <no-reply@consulta.invalid>',
    keyCacheTtlMs: int(env, 'KEY_CACHE_TTL_MS', 1000, 0, 60_000),
    directoryRefreshMs: int(env, 'DIRECTORY_REFRESH_MS', 1000, 0, 60_000),
    directoryCacheMb: int(env, 'DIRECTORY_CACHE_MB', 32, 1, 4096),
    heapGrowthPercent: int(env, 'HEAP_GROWTH_PERCENT', 100, 0, 1000),
    requestLogRetentionDays: int(env, 'REQUEST_LOG_RETENTION_DAYS', 30, 1, 3650),
    webhookRetentionDays: int(env, 'WEBHOOK_RETENTION_DAYS', 30, 1, 3650),
    mailRetentionDays: int(env, 'MAIL_RETENTION_DAYS', 30, 1, 3650),
    usageRetentionDays: int(env, 'USAGE_RETENTION_DAYS', 400, 30, 3650),
    retentionBatchSize: int(env, 'RETENTION_BATCH_SIZE', 1000, 1, 100_000),
    requestLogEnabled: onOff(env, 'REQUEST_LOG', true),
    requestLogFlushMs: int(env, 'REQUEST_LOG_FLUSH_MS', 1000, 10, 60_000),
    maxFailedAuthPerMinute: int(env, 'MAX_FAILED_AUTH_PER_MINUTE', 20, 1, 100_000),
    rateLimitMultiplier: int(env, 'RATE_LIMIT_MULTIPLIER', 1, 1, 1_000_000),
    bookingIntentTtlSeconds: int(env, 'BOOKING_INTENT_TTL_SECONDS', 900, 1, 86_400),
    sweepIntervalMs: int(env, 'SWEEP_INTERVAL_MS', 5_000, 10, 3_600_000),
    maxPendingIntentsPerKey: int(env, 'MAX_PENDING_INTENTS_PER_KEY', 50, 1, 100_000),
    idempotencyLeaseSeconds: int(env, 'IDEMPOTENCY_LEASE_SECONDS', 30, 1, 3_600),
    webhookRetryScheduleSeconds: secondsList(env, 'WEBHOOK_RETRY_SCHEDULE_SECONDS', [60, 300, 1800, 7200, 43_200]),
    webhookAllowInsecureTargets: onOff(env, 'WEBHOOK_ALLOW_INSECURE_TARGETS', false),
    webhookTimeoutMs,
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 64, 1, 10_000),
    webhookEndpointConcurrency: int(env, 'WEBHOOK_ENDPOINT_CONCURRENCY', 4, 1, 1_000),
    webhookDispatchIntervalMs: int(env, 'WEBHOOK_DISPATCH_INTERVAL_MS', 250, 10, 600_000),
    webhookDisableAfterFailures: int(env, 'WEBHOOK_DISABLE_AFTER_FAILURES', 20, 1, 100_000),
    webhookLeaseSeconds,
    paymentProvider,
    stripeSecretKey,
    stripeWebhookSecret,
    stripeApiBase: optionalUrl(env, 'STRIPE_API_BASE', ['http:', 'https:']),
    sessionIdleDays: int(env, 'SESSION_IDLE_DAYS', 7, 1, 365),
    sessionMaxDays: int(env, 'SESSION_MAX_DAYS', 30, 1, 365),
    oauthAccessTokenTtlSeconds: int(env, 'OAUTH_ACCESS_TOKEN_TTL_SECONDS', 900, 30, 86_400),
    oauthCookieKeys: cookieKeys(env.OAUTH_COOKIE_KEYS),
    mcpDirectCalls: onOff(env, 'MCP_DIRECT_CALLS', true),
    metricsToken,
    metricsPort,
    metricsHost: (env.METRICS_HOST ?? '').trim() || '127.0.0.1',
    legal,
    contactEmail,
    ...overrides,
  };
  return Object.freeze(config);
}
