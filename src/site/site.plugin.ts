/**
 * The web site's areas: the services only pages use (the dashboard's, purchases, contact, the
 * application review, the widget's), then every area inside the site context of
 * src/site/plugin.ts (cookies, CSRF, page context, HTML errors), then the booking widget
 * (/embed.js, /embed/…), which has a context of its own.
 */
import fp from 'fastify-plugin';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AccessService } from '../domain/access/access.service.ts';
import type { AccountDeletionService } from '../domain/identity/account-deletion.service.ts';
import type { AccountsService } from '../domain/access/accounts.service.ts';
import type { ApplicationService } from '../domain/lawyers/application.service.ts';
import type { BookingService } from '../domain/booking/booking.service.ts';
import type { CalendarFeedService } from '../domain/calendar-feed/calendar-feed.service.ts';
import type { CalendarService } from '../domain/lawyers/calendar.service.ts';
import type { ConnectedAppsService } from '../domain/oauth/connected-apps.service.ts';
import type { ConsultationsService } from '../domain/booking/consultations.service.ts';
import type { DirectoryCache } from '../domain/directory/reference.service.ts';
import type { DirectoryService } from '../domain/directory/directory.service.ts';
import type { EarningsService } from '../domain/payments/earnings.service.ts';
import type { FirmLawyersService } from '../domain/access/firm-lawyers.service.ts';
import type { KeysService } from '../domain/access/keys.service.ts';
import type { LawyerCancellationService } from '../domain/booking/lawyer-cancellation.service.ts';
import type { LawyerConsultationsService } from '../domain/booking/lawyer-consultations.service.ts';
import type { MailOutbox } from '../domain/notify/mail-outbox.ts';
import type { PasskeysService } from '../domain/identity/passkeys.service.ts';
import type { PaymentsService } from '../domain/payments/payments.service.ts';
import type { PayoutsService } from '../domain/payments/payouts.service.ts';
import type { PersonChangeService } from '../domain/booking/person-change.service.ts';
import type { PersonLanguagesService } from '../domain/people/person-languages.service.ts';
import { PersonNameService } from '../domain/people/person-name.ts';
import type { PortalService } from '../domain/lawyers/portal.service.ts';
import type Provider from 'oidc-provider';
import type { RateLimitStore } from '../domain/access/rate-limit.ts';
import type { RequestLog } from '../domain/access/request-log.ts';
import type { ReviewModerationService } from '../domain/reviews/review-moderation.service.ts';
import type { ReviewsService } from '../domain/reviews/reviews.service.ts';
import type { ScopeChallenges } from '../domain/oauth/scope-challenges.ts';
import type { SessionService } from '../domain/identity/session.service.ts';
import type { SignInService } from '../domain/identity/sign-in.service.ts';
import type { TrustService } from '../domain/directory/trust.service.ts';
import type { UsageService } from '../domain/access/usage.service.ts';
import type { VerificationService } from '../domain/lawyers/verification.service.ts';
import type { WebhookEndpointsService } from '../domain/webhooks/endpoints.service.ts';
import { FirmInvitationsService } from '../domain/access/firm-invitations.service.ts';
import { GettingStartedService } from '../domain/access/getting-started.service.ts';
import { RequestHistoryService } from '../domain/access/request-history.service.ts';
import { PurchaseService } from '../domain/booking/purchase.service.ts';
import { WidgetService } from '../domain/booking/widget.service.ts';
import { ContactService } from '../domain/contact/contact.service.ts';
import { ApplicationReviewService } from '../domain/lawyers/application-review.ts';
import { OperatorService } from '../domain/operator/operator.service.ts';
import type { AllowedMethods } from '../http/problem.ts';
import { accountArea } from './account/account.routes.ts';
import { personLanguagesArea } from './account/languages.routes.ts';
import { myAccountArea } from './account/my-account.routes.ts';
import { passkeysArea } from './account/passkeys.routes.ts';
import { confirmArea } from './booking/confirm.routes.ts';
import { testModeArea } from './booking/test-mode.routes.ts';
import { zoneArea } from './booking/zone.routes.ts';
import { consultationChangeArea } from './consultation-change/change.routes.ts';
import type { DashboardDeps } from './dashboard-deps.ts';
import { keysArea } from './developer/keys.routes.ts';
import { overviewArea } from './developer/overview.routes.ts';
import { requestsArea } from './developer/requests.routes.ts';
import { webhooksArea } from './developer/webhooks.routes.ts';
import { docsArea } from './docs/docs.routes.ts';
import { firmLawyersArea } from './firm-lawyers/firm-lawyers.routes.ts';
import { firmsArea } from './firms/firms.routes.ts';
import { helpArea } from './help/help.routes.ts';
import { homeArea } from './home/home.routes.ts';
import { joinArea } from './join/join.routes.ts';
import { calendarFeedArea } from './lawyer-calendar-feed/calendar-feed.routes.ts';
import { lawyerConsultationsArea } from './lawyer-consultations/lawyer-consultations.routes.ts';
import { lawyerEarningsArea } from './lawyer-earnings/earnings.routes.ts';
import { lawyerReviewsArea } from './lawyer-reviews/lawyer-reviews.routes.ts';
import { lawyerPortalArea } from './lawyer/lawyer.routes.ts';
import { lawyerArea } from './lawyers/lawyer.routes.ts';
import { consentArea } from './oauth/consent.routes.ts';
import { applicationsQueueArea } from './operator/applications.routes.ts';
import { operatorArea } from './operator/operator.routes.ts';
import { reviewModerationArea } from './operator/reviews.routes.ts';
import { siteCookies, sitePlugin } from './plugin.ts';
import { reviewReportsArea } from './review-reports/report.routes.ts';
import { reviewsArea } from './reviews/reviews.routes.ts';
import { trustArea } from './trust/trust.routes.ts';
import { widgetDeveloperArea } from './widget/snippet.routes.tsx';
import { widgetArea } from './widget/widget.routes.ts';

export interface SiteAreasOptions {
  config: Config;
  database: Database;
  clock: Clock;
  /** The app's shared services that pages use (src/services.ts builds them). */
  services: {
    directory: DirectoryService;
    trust: TrustService;
    people: PersonLanguagesService;
    booking: BookingService;
    access: AccessService;
    payments: PaymentsService;
    consultations: ConsultationsService;
    signIn: SignInService;
    sessions: SessionService;
    passkeys: PasskeysService;
    connectedApps: ConnectedAppsService;
    deletion: AccountDeletionService;
    accounts: AccountsService;
    keys: KeysService;
    webhooks: WebhookEndpointsService;
    requestLog: RequestLog;
    usage: UsageService;
    mail: MailOutbox;
    directoryCache: DirectoryCache;
    lawyerCancellation: LawyerCancellationService;
    verification: VerificationService;
    applications: ApplicationService;
    reviewModeration: ReviewModerationService;
    oauthProvider: Provider;
    scopeChallenges: ScopeChallenges;
    calendarFeeds: CalendarFeedService;
    lawyerPortal: PortalService;
    lawyerConsultations: LawyerConsultationsService;
    lawyerCalendar: CalendarService;
    earnings: EarningsService;
    payouts: PayoutsService;
    firmLawyers: FirmLawyersService;
    reviews: ReviewsService;
    personChange: PersonChangeService;
    limiter: RateLimitStore;
  };
  /** Every registered route's methods (the site's 405 pages). */
  routeMethods: AllowedMethods;
}

export const siteAreasPlugin = fp<SiteAreasOptions>(async (fastify, { config, database, clock, services, routeMethods: routes }) => {
  const { directory, trust, people, booking, access, payments, consultations, signIn, sessions, passkeys, connectedApps, deletion, accounts, keys, webhooks, requestLog, usage, mail, directoryCache, lawyerCancellation, verification, applications, reviewModeration, oauthProvider, scopeChallenges, calendarFeeds, lawyerPortal, lawyerConsultations, lawyerCalendar, earnings, payouts, firmLawyers, reviews, personChange, limiter } = services;
  const cookies = siteCookies(config.siteUrl);
  const dashboard: DashboardDeps = { config, clock, database, cookies, accounts, keys, access, webhooks, requestLog, requestHistory: new RequestHistoryService({ database, clock, accounts }), usage, sessions, directory, mail, passkeys, firmInvitations: new FirmInvitationsService({ database, clock, config, mail, accounts }), operator: new OperatorService({ database, clock, keys, accounts, caches: { directory: directoryCache, keys: access }, consultations: lawyerCancellation }), gettingStarted: new GettingStartedService({ database, clock }) };
  await fastify.register(sitePlugin, {
    config,
    sessions,
    routes,
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
});
