/**
 * The domain services the areas share, built once per app from its dependencies (the same
 * services behind the API, the site, MCP and the CLI's app). Part of the composition, beside
 * src/app.ts: an area's own helpers are built in its plugin (src/site/site.plugin.ts,
 * src/mcp/mcp.plugin.ts). Services that hold timers or connections close with the app.
 */
import type { FastifyBaseLogger } from 'fastify';
import type Provider from 'oidc-provider';
import type { Clock } from './clock.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { AccessService } from './domain/access/access.service.ts';
import { AccountsService } from './domain/access/accounts.service.ts';
import { FirmLawyersService } from './domain/access/firm-lawyers.service.ts';
import { KeysService } from './domain/access/keys.service.ts';
import { createRateLimitStore, type RateLimitStore } from './domain/access/rate-limit.ts';
import { RequestLog } from './domain/access/request-log.ts';
import { UsageService } from './domain/access/usage.service.ts';
import { BookingService } from './domain/booking/booking.service.ts';
import { ConsultationsService } from './domain/booking/consultations.service.ts';
import { IdempotencyService } from './domain/booking/idempotency.ts';
import { LawyerCancellationService } from './domain/booking/lawyer-cancellation.service.ts';
import { LawyerConsultationsService } from './domain/booking/lawyer-consultations.service.ts';
import { PersonChangeService } from './domain/booking/person-change.service.ts';
import { CalendarFeedService } from './domain/calendar-feed/calendar-feed.service.ts';
import { DirectoryService } from './domain/directory/directory.service.ts';
import { createFencer } from './domain/directory/fence.ts';
import { DirectoryCache } from './domain/directory/reference.service.ts';
import { TrustService } from './domain/directory/trust.service.ts';
import { AccountDeletionService } from './domain/identity/account-deletion.service.ts';
import { PasskeysService } from './domain/identity/passkeys.service.ts';
import { SessionService } from './domain/identity/session.service.ts';
import { SignInService } from './domain/identity/sign-in.service.ts';
import { ApplicationService } from './domain/lawyers/application.service.ts';
import { CalendarService } from './domain/lawyers/calendar.service.ts';
import { PortalService } from './domain/lawyers/portal.service.ts';
import { VerificationService } from './domain/lawyers/verification.service.ts';
import { MailOutbox } from './domain/notify/mail-outbox.ts';
import { SmtpMailer } from './domain/notify/mailer.ts';
import { Notifier } from './domain/notify/notifier.ts';
import { DatabaseAccessTokenVerifier, type AccessTokenVerifier } from './domain/oauth/access-token-verifier.ts';
import { ConnectedAppsService } from './domain/oauth/connected-apps.service.ts';
import { ScopeChallenges } from './domain/oauth/scope-challenges.ts';
import { EarningsService } from './domain/payments/earnings.service.ts';
import { PaymentsService } from './domain/payments/payments.service.ts';
import { PayoutsService } from './domain/payments/payouts.service.ts';
import { PersonLanguagesService } from './domain/people/person-languages.service.ts';
import { RemindersService } from './domain/reminders/reminders.service.ts';
import { ReviewModerationService } from './domain/reviews/review-moderation.service.ts';
import { ReviewsService } from './domain/reviews/reviews.service.ts';
import { WebhookEndpointsService } from './domain/webhooks/endpoints.service.ts';
import type { AppMetrics } from './metrics/metrics.ts';
import { createProvider } from './oauth/provider.ts';
import type { OutboundOptions } from './oauth/safe-fetch.ts';
import { createPaymentProvider } from './payments/index.ts';
import { siteCookies } from './site/plugin.ts';

export interface AppServices {
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
  /** The languages a person reads (DESIGN.md §13): search ranking, the mismatch notice, MCP. */
  people: PersonLanguagesService;
  /** The levels MCP refused for want of scope, which the consent page preselects. */
  scopeChallenges: ScopeChallenges;
  /** The OAuth authorization server (/oauth, and the site's consent page). */
  oauthProvider: Provider;
}

export interface ServiceDeps {
  config: Config;
  database: Database;
  clock: Clock;
  /** Rate-limit counters; by default Redis when REDIS_URL is set, else memory. Closed with the app. */
  limiter?: RateLimitStore;
  /** How the authorization server fetches Client ID Metadata Documents (tests: a local HTTPS host). */
  oauthOutbound?: OutboundOptions;
}

export interface ServiceHost {
  logger: FastifyBaseLogger;
  metrics: AppMetrics | null;
  /** Runs `close` when the app closes (Fastify's onClose), in the order given. */
  onClose(close: () => Promise<void>): void;
}

export async function createServices(deps: ServiceDeps, { logger, metrics, onClose }: ServiceHost): Promise<AppServices> {
  const { config, database, clock } = deps;
  const store = deps.limiter ?? createRateLimitStore({ redisUrl: config.redisUrl });
  const limiter = metrics ? metrics.countRefusals(store) : store;
  // SMTP when SMTP_URL is set; otherwise mail stays in the local outbox (and the log).
  const mail = new MailOutbox({ database, clock, mailer: config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null, logger });
  onClose(async () => {
    await mail.close();
  });
  // Firm notices ("key creator left") are stored, and their emails queued in the same transaction
  // and sent through the outbox (retries, `consulta mail list`).
  const accounts = new AccountsService({ database, clock, notifier: new Notifier({ database, clock, logger, queue: mail }) });
  const keys = new KeysService({ database, clock, accounts });
  const access = new AccessService({
    keys,
    limiter,
    clock,
    keyCacheTtlMs: config.keyCacheTtlMs,
    maxFailedAuthPerMinute: config.maxFailedAuthPerMinute,
    rateLimitMultiplier: config.rateLimitMultiplier,
    onLimiterError: (err) => logger.error({ err }, 'rate-limit store failed; request let through'),
  });
  const requestLog = new RequestLog(database, {
    flushIntervalMs: config.requestLogFlushMs,
    enabled: config.requestLogEnabled,
    onError: (err, dropped) => logger.error({ err, dropped }, 'request log flush failed'),
  });
  onClose(async () => {
    await requestLog.close();
    await limiter.close();
  });

  const directoryCache = new DirectoryCache(database, { refreshIntervalMs: config.directoryRefreshMs, clock, budgetMb: config.directoryCacheMb });
  const directory = new DirectoryService({ database, clock, config, fencer: createFencer(config.fenceSecret), cache: directoryCache });
  const trust = new TrustService({ database, clock, cache: directoryCache });
  const idempotency = new IdempotencyService({ database, clock, leaseSeconds: config.idempotencyLeaseSeconds });
  const domainMetrics = metrics ?? undefined;
  const booking = new BookingService({ database, clock, config, cache: directoryCache, idempotency, mail, metrics: domainMetrics });
  const paymentProvider = createPaymentProvider(config, clock);
  const payments = new PaymentsService({ database, clock, config, booking, provider: paymentProvider, logger, metrics: domainMetrics });
  // A lawyer's own consultations and her cancellations (docs/lawyers.md#her-bookings); refunds go through the same provider.
  const lawyerConsultations = new LawyerConsultationsService({ database, clock, siteUrl: config.siteUrl, limiter, onLimiterError: (err) => logger.error({ err }, 'rate-limit store failed; calendar feed read let through') });
  const lawyerCancellation = new LawyerCancellationService({ database, clock, mail, provider: paymentProvider, siteUrl: config.siteUrl, cache: directoryCache, logger });
  const earnings = new EarningsService({ database, clock });
  const payouts = new PayoutsService({ database, clock, provider: paymentProvider });

  const usage = new UsageService({ database, clock, limiter });
  const webhooks = new WebhookEndpointsService({ database, clock, config, accounts });

  // The OAuth authorization server (/oauth) and what the MCP endpoint checks its tokens with.
  const accessTokens = new DatabaseAccessTokenVerifier({ database, clock, audience: config.mcpUrl });
  const connectedApps = new ConnectedAppsService({ database, clock, verifier: accessTokens });
  const scopeChallenges = new ScopeChallenges(database, clock);
  const sessions = new SessionService({ database, clock, config });
  const oauthProvider = await createProvider({
    config,
    database,
    clock,
    // Every authorization is checked against the site session it carries (docs/mcp.md#sessions).
    siteSession: async (token) => {
      const auth = await sessions.authenticate(token);
      return auth ? { accountId: auth.user.id, endsAt: auth.endsAt } : null;
    },
    siteSessionCookie: siteCookies(config.siteUrl).session,
    outbound: deps.oauthOutbound,
  });
  const consultations = new ConsultationsService({ database, clock, siteUrl: config.siteUrl });
  const reviews = new ReviewsService({ database, clock, consultations, cache: directoryCache });
  // The person cancels or moves their own consultation (docs/booking-intents.md#cancel-or-move); refunds through the same provider.
  const personChange = new PersonChangeService({ database, clock, config, mail, provider: paymentProvider, cache: directoryCache, logger });
  const signIn = new SignInService({
    database,
    clock,
    config,
    limiter,
    mail,
    sessions,
    onLimiterError: (err) => logger.error({ err }, 'rate-limit store failed; sign-in let through'),
  });
  const passkeys = new PasskeysService({
    database,
    clock,
    config,
    limiter,
    sessions,
    onLimiterError: (err) => logger.error({ err }, 'rate-limit store failed; passkey sign-in let through'),
  });
  const verification = new VerificationService({ database, clock, mail, caches: { directory: directoryCache }, consultations: lawyerCancellation });
  const applications = new ApplicationService({ database, clock, caches: { directory: directoryCache } });
  const calendarFeeds = new CalendarFeedService({ database, clock, cache: directoryCache, allowInsecureTargets: config.webhookAllowInsecureTargets });
  onClose(async () => {
    await calendarFeeds.close();
  });
  const lawyerPortal = new PortalService({ database, clock, caches: { directory: directoryCache } });
  const lawyerCalendar = new CalendarService({ database, clock, defaultNoticeMinutes: config.minLeadTimeMinutes, caches: { directory: directoryCache } });
  // Deleting an account: one service for the site and the CLI; this process's key and token caches forget at once.
  const deletion = new AccountDeletionService({ database, clock, accounts, booking, consultations, mail, caches: { keys: access, grants: accessTokens }, logger });
  const firmLawyers = new FirmLawyersService({ database, clock, accounts, earnings });
  const reminders = new RemindersService({ database, clock, mail, siteUrl: config.siteUrl });
  // Reporters' address hashes are keyed with FENCE_SECRET (set it in production: a random one per process gives other hashes after a restart).
  const reviewModeration = new ReviewModerationService({ database, clock, limiter, reporterSalt: `review-reports:${config.fenceSecret}`, caches: { directory: directoryCache }, onLimiterError: (err) => logger.error({ err }, 'rate-limit store failed; review report let through') });
  const people = new PersonLanguagesService({ database });

  return { directory, directoryCache, trust, keys, accounts, webhooks, usage, access, requestLog, limiter, booking, idempotency, payments, mail, sessions, signIn, consultations, passkeys, connectedApps, accessTokens, deletion, verification, applications, calendarFeeds, lawyerConsultations, lawyerCancellation, lawyerPortal, lawyerCalendar, earnings, payouts, firmLawyers, reminders, reviews, personChange, reviewModeration, people, scopeChallenges, oauthProvider };
}
