/**
 * What the dashboard's areas (developer, firms, operator console, passkeys) are built from: the
 * same domain services the CLI uses, so no rule is written twice. Built once in site.plugin.ts.
 */
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Database } from '../db/database.ts';
import type { AccessService } from '../domain/access/access.service.ts';
import type { AccountsService } from '../domain/access/accounts.service.ts';
import type { FirmInvitationsService } from '../domain/access/firm-invitations.service.ts';
import type { GettingStartedService } from '../domain/access/getting-started.service.ts';
import type { KeysService } from '../domain/access/keys.service.ts';
import type { RequestLog } from '../domain/access/request-log.ts';
import type { RequestHistoryService } from '../domain/access/request-history.service.ts';
import type { UsageService } from '../domain/access/usage.service.ts';
import type { DirectoryService } from '../domain/directory/directory.service.ts';
import type { PasskeysService } from '../domain/identity/passkeys.service.ts';
import type { OperatorService } from '../domain/operator/operator.service.ts';
import type { SessionService } from '../domain/identity/session.service.ts';
import type { MailOutbox } from '../domain/notify/mail-outbox.ts';
import type { WebhookEndpointsService } from '../domain/webhooks/endpoints.service.ts';
import type { SiteCookies } from './plugin.ts';

export interface DashboardDeps {
  config: Config;
  clock: Clock;
  database: Database;
  cookies: SiteCookies;
  accounts: AccountsService;
  keys: KeysService;
  access: AccessService;
  webhooks: WebhookEndpointsService;
  requestLog: RequestLog;
  requestHistory: RequestHistoryService;
  usage: UsageService;
  sessions: SessionService;
  directory: DirectoryService;
  mail: MailOutbox;
  /** Passkeys: registration, sign-in, step-up (requirePasskeyEnrolled takes it). */
  passkeys: PasskeysService;
  /** The operator console's actions and look-ups (audited). */
  operator: OperatorService;
  /** Invitations to join a firm (sent by email, accepted after sign-in). */
  firmInvitations: FirmInvitationsService;
  /** The developer overview's getting-started checklist. */
  gettingStarted: GettingStartedService;
}
