/**
 * Builds the Fastify application (never listens): REST API under /api/v1, the site, docs.
 * Dependencies come in as arguments so tests and the server build the same thing.
 */
import { VerificationService } from './domain/lawyers/verification.service.ts';
import { RemindersService } from './domain/reminders/reminders.service.ts';
import { ApplicationService } from './domain/lawyers/application.service.ts';
import { calendarFeedArea } from './site/lawyer-calendar-feed/calendar-feed.routes.ts';
import { CalendarFeedService } from './domain/calendar-feed/calendar-feed.service.ts';
import { joinArea } from './site/join/join.routes.ts';
import { applicationsQueueArea } from './site/operator/applications.routes.ts';
import { ApplicationReviewService } from './domain/lawyers/application-review.ts';
import { lawyerConsultationsArea } from './site/lawyer-consultations/lawyer-consultations.routes.ts';
import { LawyerCancellationService } from './domain/booking/lawyer-cancellation.service.ts';
import { LawyerConsultationsService } from './domain/booking/lawyer-consultations.service.ts';
import { lawyerPortalArea } from './site/lawyer/lawyer.routes.ts';
import { PortalService } from './domain/lawyers/portal.service.ts';
import { CalendarService } from './domain/lawyers/calendar.service.ts';
import { lawyerEarningsArea } from './site/lawyer-earnings/earnings.routes.ts';
import { reviewsArea } from './site/reviews/reviews.routes.ts';
import { ReviewsService } from './domain/reviews/reviews.service.ts';
import { consultationChangeArea } from './site/consultation-change/change.routes.ts';
import { PersonChangeService } from './domain/booking/person-change.service.ts';
import { lawyerReviewsArea } from './site/lawyer-reviews/lawyer-reviews.routes.ts';
import { reviewReportsArea } from './site/review-reports/report.routes.ts';
import { reviewModerationArea } from './site/operator/reviews.routes.ts';
import { ReviewModerationService } from './domain/reviews/review-moderation.service.ts';
import { firmLawyersArea } from './site/firm-lawyers/firm-lawyers.routes.ts';
import { EarningsService } from './domain/payments/earnings.service.ts';
import { PayoutsService } from './domain/payments/payouts.service.ts';
import { FirmLawyersService } from './domain/access/firm-lawyers.service.ts';
import { randomUUID } from 'node:crypto';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import pino from 'pino';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { AccessService } from './domain/access/access.service.ts';
import { KeysService } from './domain/access/keys.service.ts';
import { createRateLimitStore, type RateLimitStore } from './domain/access/rate-limit.ts';
import { RequestLog } from './domain/access/request-log.ts';
import { UsageService } from './domain/access/usage.service.ts';
import { BookingService } from './domain/booking/booking.service.ts';
import { SmtpMailer } from './domain/notify/mailer.ts';
import { Notifier } from './domain/notify/notifier.ts';
import { MailOutbox } from './domain/notify/mail-outbox.ts';
import { IdempotencyService } from './domain/booking/idempotency.ts';
import { PaymentsService } from './domain/payments/payments.service.ts';
import { createPaymentProvider } from './payments/index.ts';
import { stripeWebhookRoutes } from './payments/stripe-webhook.routes.ts';
import { DirectoryService } from './domain/directory/directory.service.ts';
import { TrustService } from './domain/directory/trust.service.ts';
import { createFencer } from './domain/directory/fence.ts';
import { DirectoryCache } from './domain/directory/reference.service.ts';
import { createAjv } from './domain/validation.ts';
import { DEPRECATED_ROUTES, registerDeprecations, type DeprecatedRoute } from './http/plugins/deprecation.ts';
import { registerAccess } from './http/plugins/access.ts';
import { clientErrorHandler, frameworkErrorHandler, registerProblemHandlers, registerUnrouted, sendUnrouted } from './http/problem.ts';
import { depthBoundedJson } from './http/json-body.ts';
import { RouteMethods } from './http/allowed-methods.ts';
import { bookingRoutes } from './http/routes/booking.routes.ts';
import { keyRoutes } from './http/routes/key.routes.ts';
import { lawyerRoutes } from './http/routes/lawyers.routes.ts';
import { referenceRoutes } from './http/routes/reference.routes.ts';
import { docsArea } from './site/docs/docs.routes.ts';
import { homeArea } from './site/home/home.routes.ts';
import { trustArea } from './site/trust/trust.routes.ts';
import { lawyerArea } from './site/lawyers/lawyer.routes.ts';
import { testModeArea } from './site/booking/test-mode.routes.ts';
import { confirmArea } from './site/booking/confirm.routes.ts';
import { PurchaseService } from './domain/booking/purchase.service.ts';
import { ConsultationsService } from './domain/booking/consultations.service.ts';
import { badRequestPage, siteCookies, sitePlugin } from './site/plugin.ts';
import { accountArea } from './site/account/account.routes.ts';
import { zoneArea } from './site/booking/zone.routes.ts';
import { SessionService } from './domain/identity/session.service.ts';
import { SignInService } from './domain/identity/sign-in.service.ts';
import { opsRoutes } from './site/ops.routes.ts';
import { AccountsService } from './domain/access/accounts.service.ts';
import { FirmInvitationsService } from './domain/access/firm-invitations.service.ts';
import { WebhookEndpointsService } from './domain/webhooks/endpoints.service.ts';
import type { DashboardDeps } from './site/dashboard-deps.ts';
import { RequestHistoryService } from './domain/access/request-history.service.ts';
import { GettingStartedService } from './domain/access/getting-started.service.ts';
import { overviewArea } from './site/developer/overview.routes.ts';
import { keysArea } from './site/developer/keys.routes.ts';
import { webhooksArea } from './site/developer/webhooks.routes.ts';
import { requestsArea } from './site/developer/requests.routes.ts';
import { firmsArea } from './site/firms/firms.routes.ts';
import { operatorArea } from './site/operator/operator.routes.ts';
import { passkeysArea } from './site/account/passkeys.routes.ts';
import { myAccountArea } from './site/account/my-account.routes.ts';
import { helpArea } from './site/help/help.routes.ts';
import { ContactService } from './domain/contact/contact.service.ts';
import { AccountDeletionService } from './domain/identity/account-deletion.service.ts';
import { PasskeysService } from './domain/identity/passkeys.service.ts';
import { ConnectedAppsService } from './domain/oauth/connected-apps.service.ts';
import { DatabaseAccessTokenVerifier, type AccessTokenVerifier } from './domain/oauth/access-token-verifier.ts';
import { createProvider } from './oauth/provider.ts';
import { oauthRoutes } from './oauth/oauth.routes.ts';
import type { OutboundOptions } from './oauth/safe-fetch.ts';
import { consentArea } from './site/oauth/consent.routes.ts';
import { ScopeChallenges } from './domain/oauth/scope-challenges.ts';
import { AgentLimits } from './domain/oauth/agent-limits.ts';
import { mcpRoutes } from './mcp/mcp.routes.ts';
import { toolDefinitions } from './mcp/tools.ts';
import { PersonLanguagesService } from './domain/people/person-languages.service.ts';
import { PersonNameService } from './domain/people/person-name.ts';
import { personLanguagesArea } from './site/account/languages.routes.ts';
import { OperatorService } from './domain/operator/operator.service.ts';
import { AppMetrics } from './metrics/metrics.ts';
import { metricsRoutes } from './metrics/metrics.routes.ts';
import { widgetArea } from './site/widget/widget.routes.ts';
import { widgetDeveloperArea } from './site/widget/snippet.routes.tsx';
import { WidgetService } from './domain/booking/widget.service.ts';

export const API_PREFIX = '/api/v1';

export interface AppDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** Deprecated routes; tests inject their own declarations. */
  deprecatedRoutes?: readonly DeprecatedRoute[];
  /** Rate-limit counters; by default Redis when REDIS_URL is set, else memory. Closed with the app. */
  limiter?: RateLimitStore;
  /** How the authorization server fetches Client ID Metadata Documents (tests: a local HTTPS host). */
  oauthOutbound?: OutboundOptions;
}

export interface App {
  fastify: FastifyInstance;
  /** Every registered route (method + full URL pattern), for docs and conformance tests. */
  routes: ReadonlyArray<{ method: string; url: string; hidden: boolean }>;
  services: {
    directory: DirectoryService;
    directoryCache: DirectoryCache;
    /** What the site shows beside a lawyer (badge facts, photo, offer, bios, reviews). */
    trust: TrustService;
    keys: KeysService;
    accounts: AccountsService;
    webhooks: WebhookEndpointsService;
    usage: UsageService;
    access: AccessService;
    requestLog: RequestLog;
    limiter: RateLimitStore;
    booking: BookingService;
    idempotency: IdempotencyService;
    payments: PaymentsService;
    /** The mail outbox: every email goes through it (enqueue in a transaction, deliver after commit). */
    mail: MailOutbox;
    sessions: SessionService;
    signIn: SignInService;
    consultations: ConsultationsService;
    passkeys: PasskeysService;
    /** AI apps people connected over OAuth: listing and revocation. */
    connectedApps: ConnectedAppsService;
    /** Checks OAuth access tokens presented to the MCP server. */
    accessTokens: AccessTokenVerifier;
    deletion: AccountDeletionService;
    /** The operator's verification of lawyers, and its expiry sweep (docs/lawyers.md). */
    verification: VerificationService;
    /** Lawyers applying to join (/join; docs/lawyers.md#joining-and-verification). */
    applications: ApplicationService;
    /** Her own calendar's busy times (docs/lawyers.md#busy-times-from-her-own-calendar). */
    calendarFeeds: CalendarFeedService;
    /** A lawyer's own consultations, outcomes and bookings feed (docs/lawyers.md#her-bookings). */
    lawyerConsultations: LawyerConsultationsService;
    /** A lawyer cancelling a consultation, its refund, and the sweep of pending refunds. */
    lawyerCancellation: LawyerCancellationService;
    personChange: PersonChangeService;
    /** The lawyer's portal: her profile, offer and photo (/lawyer; docs/lawyers.md#the-portal). */
    lawyerPortal: PortalService;
    /** Her weekly hours, date overrides and booking rules (/lawyer/calendar). */
    lawyerCalendar: CalendarService;
    /** A lawyer's earnings from the payment ledger (docs/lawyers.md#earnings-and-payouts). */
    earnings: EarningsService;
    /** Answers, reports and the operator's moderation of reviews (docs/reviews.md). */
    reviewModeration: ReviewModerationService;
    /** Her Stripe Connect Express account (docs/payments.md#connect). */
    payouts: PayoutsService;
    /** Firms' lawyers: invitations, her consent, what owners see (docs/keys-and-firms.md). */
    firmLawyers: FirmLawyersService;
    /** Consultation reminders, the held transition and review invitations (docs/mail.md#reminders). */
    reminders: RemindersService;
    /** Reviews from verified clients and the lawyers' aggregates (docs/reviews.md). */
    reviews: ReviewsService;
  };
  /** Prometheus metrics (docs/metrics.md); null when neither METRICS_TOKEN nor METRICS_PORT is set. */
  metrics: AppMetrics | null;
}

/**
 * Site pages: no inline script or style at all (one hashed stylesheet and one script file), no
 * framing, forms post only to us — and to Stripe's Checkout when it is the payment provider.
 */
function siteSecurityHeaders(config: Config): Record<string, string> {
  // Stripe: its Checkout, and Connect's onboarding (a lawyer setting up payouts).
  const formAction = config.paymentProvider === 'stripe' ? "'self' https://checkout.stripe.com https://connect.stripe.com" : "'self'";
  return {
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'cross-origin-opener-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    'content-security-policy': `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`,
  };
}

/** The interactive API reference (Swagger UI) sets styles inline; only its pages allow that. */
const API_REFERENCE_CSP = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

const EXPOSED_HEADERS = [
  'X-Request-Id',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
  'RateLimit',
  'RateLimit-Policy',
  'Retry-After',
  'Idempotent-Replayed',
  'Deprecation',
  'Sunset',
  'Link',
  'ETag',
  'Allow',
];

/**
 * Every API response: security headers, and CORS for browser callers (any origin, never
 * credentials). One constant object set by the request hook below, rather than a CORS plugin's
 * hook per request (about 2.5 % of a cached request's CPU); preflights are the OPTIONS route.
 */
const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'cross-origin-resource-policy': 'cross-origin',
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
  'access-control-expose-headers': EXPOSED_HEADERS.join(', '),
};

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'Authorization, Content-Type, Idempotency-Key',
  'access-control-max-age': '86400',
};

/**
 * A request id: `req_` and 32 hex characters, unique across processes: the time in ms (12 hex)
 * and 80 random bits. Time-ordered, so request-log rows are appended to the end of their primary
 * key index rather than scattered across it: with random ids every row of a flush dirtied a page
 * of its own (measured: a fifth of /practice-areas' CPU time went to the request-log write).
 */
export const newRequestId = (): string => `req_${Date.now().toString(16).padStart(12, '0')}${randomUUID().replaceAll('-', '').slice(12)}`;

/**
 * Standard output for the logs, buffered: lines are written 8 KB at a time, or every 500 ms,
 * asynchronously, instead of one synchronous write(2) per line on the event loop (about a tenth
 * of a cached request's CPU went to appending its log line to the file: docs/performance.md).
 * pino writes out what is left synchronously when the process exits, so a stop or a fatal error
 * loses nothing; a kill -9 loses at most half a second of lines. One stream per process.
 */
let stdoutLog: ReturnType<typeof pino.destination> | undefined;
const logDestination = () => {
  if (stdoutLog === undefined) {
    const stream = pino.destination({ dest: 1, sync: false, minLength: 8192 });
    setInterval(() => stream.flush(), 500).unref();
    stdoutLog = stream;
  }
  return stdoutLog;
};

export async function buildApp(deps: AppDeps): Promise<App> {
  const { config, database, clock } = deps;
  const fastify = Fastify({
    logger: { level: config.logLevel, redact: ['req.headers.authorization'], stream: logDestination() },
    // Fastify's two lines per request are replaced by one (onResponse hook below).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    genReqId: newRequestId,
    requestIdHeader: false,
    // A hop count is valid for Fastify (proxy-addr) though its types omit it.
    trustProxy: config.trustProxy as string[] | false,
    bodyLimit: config.bodyLimitBytes,
    return503OnClosing: true,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    // What the router and Node's HTTP parser refuse before any hook runs gets the same problem
    // documents (and request id) as everything else, not Fastify's own JSON (test/fuzz/).
    frameworkErrors: (error, request, reply) => onFrameworkError(error, request, reply),
    clientErrorHandler: clientErrorHandler(config.siteUrl, newRequestId, API_HEADERS),
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Bodies are JSON only: a JSON text labelled text/plain is a 415, not a string to validate.
  fastify.removeContentTypeParser('text/plain');
  // JSON bodies nest at most MAX_JSON_DEPTH levels, checked before any validation (json-body.ts).
  fastify.addContentTypeParser('application/json', { parseAs: 'string' }, depthBoundedJson(fastify.getDefaultJsonParser('error', 'error')));
  // Query strings, params and headers are text and are coerced (`limit=5` → 5); bodies are JSON
  // and are not (`"agent_name": 12345` is an error, not "12345").
  const textAjv = createAjv({ strict: false });
  const bodyAjv = createAjv({ strict: false, coerceTypes: false });
  fastify.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : textAjv).compile(schema));

  const securityHeaders = config.siteUrl.startsWith('https:')
    ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' }
    : {};
  const siteHeaders = siteSecurityHeaders(config);
  const baseHeaders = (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('x-request-id', request.id);
    reply.headers(request.url.startsWith(API_PREFIX) ? API_HEADERS : siteHeaders);
    if (request.url.startsWith('/docs/api')) reply.header('content-security-policy', API_REFERENCE_CSP);
    reply.headers(securityHeaders);
  };
  fastify.addHook('onRequest', (request, reply, done) => {
    baseHeaders(request, reply);
    done();
  });
  const onFrameworkError = frameworkErrorHandler(config.siteUrl, { prepare: baseHeaders, htmlBadRequest: badRequestPage(config), apiPrefix: API_PREFIX });
  // Draining on stop: Fastify closes the keep-alive connections that are idle when it starts
  // closing, but a connection whose request was still in flight goes idle later and would then
  // hold the stop until its client or the keep-alive timeout (72 s) ended it, past
  // SHUTDOWN_TIMEOUT_MS. Until the server has closed, idle connections are closed as they appear.
  fastify.addHook('preClose', (done) => {
    const timer = setInterval(() => fastify.server.closeIdleConnections(), 50);
    fastify.server.once('close', () => clearInterval(timer));
    done();
  });
  // One log line per request, written when the response is done.
  fastify.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, duration_ms: Math.round(reply.elapsedTime * 100) / 100 },
      'request',
    );
    done();
  });

  const routes: Array<{ method: string; url: string; hidden: boolean }> = [];
  // What a path is served with, for the 405s of requests no route took (RFC 9110 §15.5.6).
  const routeMethods = new RouteMethods();
  fastify.addHook('onRoute', (route) => {
    const hidden = (route.schema as { hide?: boolean } | undefined)?.hide === true;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      routes.push({ method, url: route.url, hidden });
      routeMethods.add(method, route.url);
    }
  });

  // Metrics only when something can read them: otherwise no hook runs and nothing is counted.
  const metrics = config.metricsToken !== null || config.metricsPort !== null ? new AppMetrics({ database, clock, logger: fastify.log }) : null;
  metrics?.instrument(fastify);
  metrics?.providerSeries(config.paymentProvider);

  // Errors are problem documents; requests no route took are answered by the API (below) and the
  // site (its not-found handler: pages for people, problems for scripts).
  registerProblemHandlers(fastify, config.siteUrl);
  registerDeprecations(fastify, deps.deprecatedRoutes ?? DEPRECATED_ROUTES);

  const store = deps.limiter ?? createRateLimitStore({ redisUrl: config.redisUrl });
  const limiter = metrics ? metrics.countRefusals(store) : store;
  // SMTP when SMTP_URL is set; otherwise mail stays in the local outbox (and the log).
  const mail = new MailOutbox({ database, clock, mailer: config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null, logger: fastify.log });
  fastify.addHook('onClose', async () => {
    await mail.close();
  });
  // Firm notices ("key creator left") are stored, and their emails queued in the same transaction
  // and sent through the outbox (retries, `consulta mail list`).
  const accounts = new AccountsService({ database, clock, notifier: new Notifier({ database, clock, logger: fastify.log, queue: mail }) });
  const keys = new KeysService({ database, clock, accounts });
  const access = new AccessService({
    keys,
    limiter,
    clock,
    keyCacheTtlMs: config.keyCacheTtlMs,
    maxFailedAuthPerMinute: config.maxFailedAuthPerMinute,
    rateLimitMultiplier: config.rateLimitMultiplier,
    onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; request let through'),
  });
  const requestLog = new RequestLog(database, {
    flushIntervalMs: config.requestLogFlushMs,
    enabled: config.requestLogEnabled,
    onError: (err, dropped) => fastify.log.error({ err, dropped }, 'request log flush failed'),
  });
  registerAccess(fastify, { prefix: API_PREFIX, access, requestLog, clock });
  fastify.addHook('onClose', async () => {
    await requestLog.close();
    await limiter.close();
  });

  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Consulta booking-intent API',
        version: '1.0.0',
        description: 'Find verified, publicly listed immigration lawyers in Spain, read their profiles, reviews and availability, and create booking intents. Errors are RFC 9457 problem documents; every response carries `X-Request-Id`.',
      },
      servers: [{ url: config.baseUrl }],
      tags: [
        { name: 'Lawyers', description: 'The directory of verified lawyers' },
        { name: 'Reference', description: 'Reference data, cacheable for 24 hours' },
        { name: 'Bookings', description: 'Booking intents: 15-minute holds confirmed and paid on the site' },
        { name: 'Account', description: 'The calling API key: description and usage' },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: `svc_…` (live) or `svc_test_…` (test). Optional on most endpoints (anonymous access has lower per-address limits).' },
        },
      },
      // Anonymous or keyed; key-only operations override this.
      security: [{}, { bearerAuth: [] }],
    },
    transform: ({ schema, url }) => ({ schema: schema as never, url: url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url }),
  });

  const directoryCache = new DirectoryCache(database, { refreshIntervalMs: config.directoryRefreshMs, clock, budgetMb: config.directoryCacheMb });
  const directory = new DirectoryService({ database, clock, config, fencer: createFencer(config.fenceSecret), cache: directoryCache });
  const trust = new TrustService({ database, clock, cache: directoryCache });
  const idempotency = new IdempotencyService({ database, clock, leaseSeconds: config.idempotencyLeaseSeconds });
  const domainMetrics = metrics ?? undefined;
  const booking = new BookingService({ database, clock, config, cache: directoryCache, idempotency, mail, metrics: domainMetrics });
  const paymentProvider = createPaymentProvider(config, clock);
  const payments = new PaymentsService({ database, clock, config, booking, provider: paymentProvider, logger: fastify.log, metrics: domainMetrics });
  // A lawyer's own consultations and her cancellations (docs/lawyers.md#her-bookings); refunds go through the same provider.
  const lawyerConsultations = new LawyerConsultationsService({ database, clock, siteUrl: config.siteUrl, limiter, onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; calendar feed read let through') });
  const lawyerCancellation = new LawyerCancellationService({ database, clock, mail, provider: paymentProvider, siteUrl: config.siteUrl, cache: directoryCache, logger: fastify.log });
  const earnings = new EarningsService({ database, clock });
  const payouts = new PayoutsService({ database, clock, provider: paymentProvider });

  const usage = new UsageService({ database, clock, limiter });
  const webhooks = new WebhookEndpointsService({ database, clock, config, accounts });

  await fastify.register(
    async (api) => {
      // No route for the path: 404, or 405 with Allow when the path exists for other methods.
      await registerUnrouted(api, (_request, reply) => sendUnrouted(reply, config.siteUrl, routeMethods));
      // CORS preflight, for any API path (the request hook adds the allow-origin header).
      api.options('/*', { schema: { hide: true } }, async (_request, reply) => reply.code(204).headers(PREFLIGHT_HEADERS).send());
      await api.register(lawyerRoutes, { directory });
      await api.register(referenceRoutes, { directory });
      await api.register(bookingRoutes, { booking });
      await api.register(keyRoutes, { usage });
      api.get('/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
        reply.header('cache-control', 'public, max-age=300').send(fastify.swagger()),
      );
    },
    { prefix: API_PREFIX },
  );

  await fastify.register(opsRoutes, { config, database });
  if (metrics && config.metricsToken !== null) await fastify.register(metricsRoutes, { metrics, token: config.metricsToken, siteUrl: config.siteUrl });
  // The OAuth authorization server (/oauth) and what the MCP endpoint checks its tokens with.
  const accessTokens = new DatabaseAccessTokenVerifier({ database, clock, audience: config.mcpUrl });
  const connectedApps = new ConnectedAppsService({ database, clock, verifier: accessTokens });
  const scopeChallenges = new ScopeChallenges(database, clock);
  const sessions = new SessionService({ database, clock, config });
  const cookies = siteCookies(config.siteUrl);
  const oauthProvider = await createProvider({
    config,
    database,
    clock,
    // Every authorization is checked against the site session it carries (docs/mcp.md#sessions).
    siteSession: async (token) => {
      const auth = await sessions.authenticate(token);
      return auth ? { accountId: auth.user.id, endsAt: auth.endsAt } : null;
    },
    siteSessionCookie: cookies.session,
    outbound: deps.oauthOutbound,
  });
  await fastify.register(
    oauthRoutes({ provider: oauthProvider, config, limiter, clock, onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; client registration let through') }),
  );
  const consultations = new ConsultationsService({ database, clock, siteUrl: config.siteUrl });
  const reviews = new ReviewsService({ database, clock, consultations, cache: directoryCache });
  // The person cancels or moves their own consultation (docs/booking-intents.md#cancel-or-move); refunds through the same provider.
  const personChange = new PersonChangeService({ database, clock, config, mail, provider: paymentProvider, cache: directoryCache, logger: fastify.log });
  const signIn = new SignInService({
    database,
    clock,
    config,
    limiter,
    mail,
    sessions,
    onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; sign-in let through'),
  });
  const passkeys = new PasskeysService({
    database,
    clock,
    config,
    limiter,
    sessions,
    onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; passkey sign-in let through'),
  });
  // Deleting an account: one service for the site and the CLI; this process's key and token caches forget at once.
  const verification = new VerificationService({ database, clock, mail, caches: { directory: directoryCache }, consultations: lawyerCancellation });
  const applications = new ApplicationService({ database, clock, caches: { directory: directoryCache } });
  const calendarFeeds = new CalendarFeedService({ database, clock, cache: directoryCache, allowInsecureTargets: config.webhookAllowInsecureTargets });
  fastify.addHook('onClose', async () => {
    await calendarFeeds.close();
  });
  const lawyerPortal = new PortalService({ database, clock, caches: { directory: directoryCache } });
  const lawyerCalendar = new CalendarService({ database, clock, defaultNoticeMinutes: config.minLeadTimeMinutes, caches: { directory: directoryCache } });
  const deletion = new AccountDeletionService({ database, clock, accounts, booking, consultations, mail, caches: { keys: access, grants: accessTokens }, logger: fastify.log });
  const firmLawyers = new FirmLawyersService({ database, clock, accounts, earnings });
  const reminders = new RemindersService({ database, clock, mail, siteUrl: config.siteUrl });
  // Reporters' address hashes are keyed with FENCE_SECRET (set it in production: a random one per process gives other hashes after a restart).
  const reviewModeration = new ReviewModerationService({ database, clock, limiter, reporterSalt: `review-reports:${config.fenceSecret}`, caches: { directory: directoryCache }, onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; review report let through') });
  const dashboard: DashboardDeps = { config, clock, database, cookies, accounts, keys, access, webhooks, requestLog, requestHistory: new RequestHistoryService({ database, clock, accounts }), usage, sessions, directory, mail, passkeys, firmInvitations: new FirmInvitationsService({ database, clock, config, mail, accounts }), operator: new OperatorService({ database, clock, keys, accounts, caches: { directory: directoryCache, keys: access }, consultations: lawyerCancellation }), gettingStarted: new GettingStartedService({ database, clock }) };
  // The languages a person reads (DESIGN.md §13): search ranking, the mismatch notice, MCP.
  const people = new PersonLanguagesService({ database });
  await fastify.register(sitePlugin, {
    config,
    sessions,
    routes: routeMethods,
    areas: [
      homeArea(directory, trust, people),
      lawyerArea({ directory, booking, access, trust, siteUrl: config.siteUrl, people }),
      trustArea(),
      docsArea(config),
      testModeArea,
      confirmArea({ payments, directory, consultations, booking, purchase: new PurchaseService({ database, clock }), clock, siteUrl: config.siteUrl, people }),
      accountArea({ config, cookies, signIn, sessions, consultations, holds: { payments, directory } }),
      zoneArea({ cookies }),
      overviewArea(dashboard),
      keysArea(dashboard),
      webhooksArea(dashboard),
      requestsArea(dashboard),
      widgetDeveloperArea(dashboard),
      firmsArea(dashboard),
      operatorArea(dashboard),
      applicationsQueueArea({ dashboard, review: new ApplicationReviewService({ database, verification, applications }), verification }),
      reviewModerationArea({ dashboard, moderation: reviewModeration }),
      passkeysArea(dashboard),
      consentArea({ provider: oauthProvider, connectedApps, resource: config.mcpUrl, scopeChallenges }),
      myAccountArea({ config, cookies, sessions, passkeys, connectedApps, deletion, names: new PersonNameService({ database }) }),
      personLanguagesArea({ people }),
      helpArea({ config, contact: new ContactService({ database, clock, limiter, mail, to: config.contactEmail, onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; contact message let through') }) }),
      joinArea({ applications }),
      calendarFeedArea({ calendarFeeds, portal: lawyerPortal }),
      lawyerConsultationsArea({ consultations: lawyerConsultations, cancellation: lawyerCancellation, portal: lawyerPortal }),
      lawyerPortalArea({ portal: lawyerPortal, calendar: lawyerCalendar }),
      lawyerEarningsArea({ earnings, payouts, firmLawyers, portal: lawyerPortal, siteUrl: config.siteUrl }),
      lawyerReviewsArea({ moderation: reviewModeration, portal: lawyerPortal }),
      reviewReportsArea({ moderation: reviewModeration }),
      firmLawyersArea({ firmLawyers }),
      reviewsArea({ reviews }),
      consultationChangeArea({ consultations, change: personChange, directory }),
    ],
  });
  await fastify.register(widgetArea({ config, clock, access, directory, booking, widget: new WidgetService({ database, clock }), requestLog }));
  await fastify.register(swaggerUi, {
    routePrefix: '/docs/api',
    uiConfig: { docExpansion: 'list', deepLinking: true, tryItOutEnabled: true },
    staticCSP: false,
  });

  // Stripe's signed events; the demo provider has none.
  if (config.paymentProvider === 'stripe') await fastify.register(stripeWebhookRoutes, { payments, siteUrl: config.siteUrl });

  // The MCP server at MCP_URL: the same services as the API, for the person who connected the app.
  const agentLimits = new AgentLimits({
    limiter,
    clock,
    multiplier: config.rateLimitMultiplier,
    onLimiterError: (err) => fastify.log.error({ err }, 'rate-limit store failed; MCP call let through'),
  });
  await fastify.register(
    mcpRoutes({
      config,
      verifier: accessTokens,
      server: {
        tools: toolDefinitions({ config, directory, booking, consultations, limits: agentLimits, accounts, fencer: createFencer(config.fenceSecret), people: { languages: people, purchase: new PurchaseService({ database, clock }) } }),
        admitCall: (userId, clientId) => agentLimits.admitCall(userId, clientId),
        requestLog,
        clock,
        newRequestId,
        metrics: domainMetrics,
      },
      onError: (err) => fastify.log.error({ err }, 'MCP request failed'),
      onScopeChallenge: (userId, clientId, scope) => scopeChallenges.record(userId, clientId, scope),
    }),
  );

  return { fastify, routes, metrics, services: { directory, directoryCache, trust, keys, accounts, webhooks, usage, access, requestLog, limiter, booking, idempotency, payments, mail, sessions, signIn, consultations, passkeys, connectedApps, accessTokens, deletion, verification, applications, calendarFeeds, lawyerConsultations, lawyerCancellation, lawyerPortal, lawyerCalendar, earnings, payouts, firmLawyers, reminders, reviews, personChange, reviewModeration } };
}
