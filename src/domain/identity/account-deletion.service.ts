/**
 * Deleting a person's account: the one way it is done, for the site (the person, after proving
 * it is them again) and the operator's `consulta users delete EMAIL` alike.
 *
 * Refused, with what to do, while the person
 * - has a consultation that has not ended (cancel it first: the lawyer has kept the time);
 * - is the only owner of a firm (the firm rule: make someone else an owner first);
 * - is linked to a lawyer record (a lawyer's account carries her profile, calendar and payouts:
 *   for now the operator handles it by hand);
 * - is an operator (remove the operator rights first: the console must keep an operator).
 *
 * Otherwise one transaction, so that either everything below happened or nothing did:
 * pending holds released; firm memberships left (the other owners told about keys the person
 * created); connected apps disconnected with every token and code, and the authorization
 * server's login sessions ended; passkeys deleted; every site session deleted (signed out on every
 * device); their sign-in codes deleted; their API keys revoked (names and allow-lists erased);
 * their webhook endpoints disabled and waiting deliveries ended; notifications to them deleted;
 * queued mail to them dropped and mail already sent to them erased; the address, name and
 * language on the account replaced by a tombstone (`deleted:<id>`), so the address can sign up
 * again as a new, empty account. The confirmation email is queued in the same transaction, to
 * the address before it is erased. Consultations, payment records, the request log and the
 * operator audit log are kept (docs/site.md#deleting-an-account says what, why and how long).
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findUserByEmail, findUserById } from '../../db/repositories/account.repository.ts';
import {
  anonymiseReviewsOfUser,
  anonymiseUser,
  countKeptRecordsOfUser,
  countOwnedByUser,
  deleteChallengesOfEmail,
  deleteNotificationsOfUser,
  deleteOAuthRecordsOfAccount,
  deletePasskeysOfUser,
  deleteQueuedMailTo,
  deleteSessionsOfUser,
  disableEndpointsOfUser,
  eraseAcceptedInvitationAddresses,
  eraseIntentAddressesOfUser,
  erasePurchaseChoicesOfUser,
  eraseMailTo,
  findLinkedLawyerId,
  findLiveSessionOfUser,
  revokeApiKeysOfUser,
} from '../../db/repositories/account-deletion.repository.ts';
import { deleteContactMessagesOf } from '../../db/repositories/contact.repository.ts';
import { detachReviewReports } from '../../db/repositories/review-moderation.repository.ts';
import { lockUserForIntents } from '../../db/repositories/agent-booking.repository.ts';
import { isOperator } from '../../db/repositories/passkey.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { UserTable } from '../../db/schema.ts';
import { formatInstant } from '../../i18n/format.ts';
import { DEFAULT_LOCALE, isLocale, messages, type Locale } from '../../i18n/index.ts';
import type { AccountsService, Firm } from '../access/accounts.service.ts';
import type { Actor } from '../access/types.ts';
import type { BookingService } from '../booking/booking.service.ts';
import type { Consultation, ConsultationsService } from '../booking/consultations.service.ts';
import { DomainError, forbidden, invalidRequest, notFound } from '../errors.ts';
import type { Logger } from '../notify/mailer.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';
import { recordOperatorAction } from '../operator/audit.ts';
import { normalizeEmail } from './email-address.ts';
import { STEP_UP_WINDOW_MS } from './session.service.ts';

export const ACCOUNT_DELETED_KIND = 'account_deleted';
/** What a deleted account's address becomes: never an address, so no mail or sign-in reaches it. */
export const TOMBSTONE_PREFIX = 'deleted:';
/** The zone of the dates the confirmation names (the service's own). */
const ZONE = 'Europe/Madrid';

/**
 * What deleting an account does to each table, and why (docs/site.md#deleting-an-account is the
 * same table for people). A test fails when the schema has a table this does not decide: a new
 * table holding personal data must say here what becomes of it.
 * - erased: the person's rows (or fields) are deleted at once;
 * - anonymised: the rows stay, what identifies the person is erased;
 * - ended: revoked or disabled, the row kept for the records that refer to it;
 * - kept: kept as it is, for the reason given;
 * - unrelated: holds nothing of the person.
 */
export const DELETION_DECISIONS = {
  users: { effect: 'anonymised', what: 'address replaced by deleted:<id> (free to sign up again), name and language erased; the row stays so kept records point somewhere' },
  sessions: { effect: 'erased', what: 'every session, live or ended (addresses, browsers): signed out everywhere' },
  sign_in_challenges: { effect: 'erased', what: 'sign-in codes asked for the address' },
  passkeys: { effect: 'erased', what: 'every passkey' },
  passkey_user_handles: { effect: 'erased', what: 'the WebAuthn user handle' },
  passkey_challenges: { effect: 'erased', what: 'unfinished passkey ceremonies of the person or their sessions' },
  oauth_records: { effect: 'erased', what: 'connected apps: grants with every token and code, the authorization server\'s login sessions, interactions' },
  oauth_client_profiles: { effect: 'unrelated', what: 'what apps say about themselves' },
  api_keys: { effect: 'ended', what: 'personal keys revoked, their names and allow-lists erased; rows kept for the request log and usage figures; firm keys the person created stay the firm\'s' },
  webhook_endpoints: { effect: 'ended', what: 'personal endpoints disabled (cause manual)' },
  webhook_messages: { effect: 'ended', what: 'waiting deliveries to those endpoints ended (dead); purged with their attempts after WEBHOOK_RETENTION_DAYS' },
  webhook_attempts: { effect: 'kept', what: 'delivery attempts to those endpoints, purged after WEBHOOK_RETENTION_DAYS' },
  outbox_events: { effect: 'kept', what: 'events of intents made with the person\'s keys, purged WEBHOOK_RETENTION_DAYS after fan-out' },
  request_log: { effect: 'kept', what: 'requests made with the person\'s keys: kept REQUEST_LOG_RETENTION_DAYS (30) for security, then purged' },
  usage_daily: { effect: 'unrelated', what: 'counts per key and day' },
  usage_daily_errors: { effect: 'unrelated', what: 'counts per key and day' },
  usage_daily_routes: { effect: 'unrelated', what: 'counts per key and day' },
  usage_daily_latency: { effect: 'unrelated', what: 'counts per key and day' },
  idempotency_keys: { effect: 'kept', what: 'replays of API answers, purged after 24 hours' },
  booking_intents: { effect: 'anonymised', what: 'pending holds for the person expired; their client addresses, the note for the lawyer, the phone number and the time zone chosen on the hold page erased; the intents stay as booking records' },
  slot_holds: { effect: 'ended', what: 'pending holds released; booked slots stay (the lawyer\'s calendar)' },
  slot_cells: { effect: 'ended', what: 'the 15-minute cells of the released holds go with them; booked ones stay (the lawyer\'s calendar)' },
  consultations: { effect: 'kept', what: 'booking records (date, lawyer, price, format), six years: Código de Comercio art. 30; refused while one has not ended; the note for the lawyer, the phone number and the time zone are erased' },
  payment_attempts: { effect: 'kept', what: 'payment records (amount, provider reference), six years: Código de Comercio art. 30' },
  consultation_refunds: { effect: 'kept', what: 'refunds of the person\'s payments (amount, provider reference), six years: Código de Comercio art. 30' },
  lawyer_booking_feeds: { effect: 'unrelated', what: 'the hash of a lawyer\'s bookings-feed address (her lawyer record, which blocks deletion, owns it)' },
  lawyer_busy_intervals: { effect: 'unrelated', what: 'a lawyer\'s busy times (no titles)' },
  lawyer_calendar_feeds: { effect: 'kept', what: 'a lawyer\'s calendar feed address: refused while a lawyer record is linked to the account; goes with the lawyer record' },
  payment_events: { effect: 'unrelated', what: 'provider event ids applied' },
  mail_outbox: { effect: 'erased', what: 'queued mail to the address dropped, sent mail to it erased (text and address); the confirmation kept MAIL_RETENTION_DAYS (30) as proof, its text erased once delivered' },
  notifications: { effect: 'erased', what: 'notifications to the person; notices about them sent to a firm\'s owners stay the firm\'s' },
  firm_memberships: { effect: 'erased', what: 'every membership; refused while the only owner of a firm' },
  firms: { effect: 'unrelated', what: 'firms stay' },
  firm_invitations: { effect: 'anonymised', what: 'the address on invitations the person accepted replaced; purged 30 days after the link expired' },
  operators: { effect: 'kept', what: 'refused while the person is an operator' },
  operator_audit: { effect: 'kept', what: 'operator actions, kept to answer for them (GDPR art. 17(3)(e)); the deletion by the operator is an entry naming the account by id only' },
  lawyers: { effect: 'kept', what: 'refused while a lawyer record is linked to the account (lawyers.user_id)' },
  bar_memberships: { effect: 'unrelated', what: 'directory data' },
  bar_associations: { effect: 'unrelated', what: 'reference data (the 83 colegios)' },
  lawyer_verifications: { effect: 'kept', what: 'the operator\'s verifications of a lawyer (the operator who verified by id): kept to answer for them, like the audit log' },
  lawyer_practice_areas: { effect: 'unrelated', what: 'directory data' },
  lawyer_languages: { effect: 'unrelated', what: 'directory data' },
  lawyer_weekly_hours: { effect: 'unrelated', what: 'directory data' },
  lawyer_date_exceptions: { effect: 'unrelated', what: 'directory data' },
  lawyer_bios: { effect: 'unrelated', what: 'directory data (her bio per language; the lawyer record blocks deletion)' },
  lawyer_photos: { effect: 'unrelated', what: 'directory data (her photo; the lawyer record blocks deletion)' },
  lawyer_changes: { effect: 'unrelated', what: 'which lawyers changed, for other processes\' caches' },
  lawyer_holiday_choices: { effect: 'unrelated', what: 'the days a lawyer reopened or closed (directory data)' },
  lawyer_verification_notices: { effect: 'unrelated', what: 'which verification emails a lawyer was sent (the lawyer\'s record, not a booking person\'s)' },
  user_languages: { effect: 'erased', what: 'the languages the person reads' },
  reviews: { effect: 'anonymised', what: 'the person\'s reviews stay on the lawyer\'s profile (they were published as a verified consultation, not under a name); the link to the account is erased' },
  review_reports: { effect: 'anonymised', what: 'reports the person made stay for the moderation record; the link to the account is erased' },
  consultation_reminders: { effect: 'unrelated', what: 'which reminders were queued for a consultation (ids and times only)' },
  directory_state: { effect: 'unrelated', what: 'a version counter' },
  provinces: { effect: 'unrelated', what: 'reference data' },
  cities: { effect: 'unrelated', what: 'reference data' },
  practice_areas: { effect: 'unrelated', what: 'reference data' },
  lawyer_payout_accounts: { effect: 'unrelated', what: 'a lawyer\'s payout account (Stripe Connect); the lawyer record is not deleted with an account (see lawyers)' },
  firm_lawyers: { effect: 'unrelated', what: 'which lawyers accepted a firm\'s invitation; the firm\'s and the lawyer record\'s, not the person\'s (who invited is kept as an id)' },
  contact_messages: { effect: 'erased', what: 'messages sent from the contact form while signed in, or with the address; the copy emailed to the operator is outside the service' },
} as const satisfies Record<string, { effect: 'erased' | 'anonymised' | 'ended' | 'kept' | 'unrelated'; what: string }>;

/** Whether a stored address is a deleted account's tombstone. */
export const isTombstone = (email: string): boolean => email.startsWith(TOMBSTONE_PREFIX);

/** Why an account cannot be deleted now, and what the page or the command says to do. */
export type DeletionBlocker =
  | { kind: 'upcoming_consultations'; consultations: Consultation[] }
  | { kind: 'last_owner'; firms: Firm[] }
  | { kind: 'lawyer'; lawyerId: string }
  | { kind: 'operator' };

const BLOCKER_DETAIL: Record<DeletionBlocker['kind'], string> = {
  upcoming_consultations: 'the person has consultations that have not ended; they must be cancelled first',
  last_owner: 'the person is the only owner of a firm; make someone else an owner first',
  lawyer: 'the account is linked to a lawyer record; a lawyer\'s account is closed by the operator by hand for now',
  operator: 'the account is an operator; remove the operator rights first (consulta operators remove EMAIL)',
};

/** Refused: the account stays as it was. `blockers` says why (the site shows each). */
export class AccountDeletionRefused extends DomainError {
  constructor(readonly blockers: DeletionBlocker[]) {
    super('conflict', `The account cannot be deleted now: ${blockers.map((b) => BLOCKER_DETAIL[b.kind]).join('; ')}.`);
    this.name = 'AccountDeletionRefused';
  }
}

/** The session did not sign in or prove a passkey recently enough: prove it is you first. */
export class ReauthenticationRequired extends DomainError {
  constructor() {
    super('forbidden', 'Deleting an account needs a session that signed in, or proved a passkey, within the last 10 minutes.');
    this.name = 'ReauthenticationRequired';
  }
}

/** What the page shows before asking. */
export interface DeletionPreview {
  email: string;
  createdAt: string;
  blockers: DeletionBlocker[];
  /** What would end or be erased. */
  owned: { sessions: number; passkeys: number; apps: number; keys: number; endpoints: number; firms: Firm[] };
  /** What is kept (without the person's name or address). */
  kept: { consultations: number; payments: number };
  /** The session may delete now (signed in, or proved a passkey, within 10 minutes). */
  fresh: boolean;
}

/** What a deletion did. */
export interface DeletionReport {
  userId: string;
  deletedAt: string;
  /** Site sessions that were live, now ended (every row of the user is deleted). */
  sessions: number;
  /** Connected apps (OAuth grants) disconnected, with all their tokens. */
  apps: number;
  passkeys: number;
  /** API keys revoked now. */
  keys: number;
  /** Webhook endpoints disabled now. */
  endpoints: number;
  /** Slugs of the firms left. */
  firms: string[];
  holdsReleased: number;
  /** Mail to the person that was waiting, dropped. */
  mailDropped: number;
  /** Mail already sent to the person, erased (text and address). */
  mailErased: number;
  kept: { consultations: number; payments: number };
  /** The confirmation email, queued to the address before it was erased. */
  confirmationMailId: string;
}

export interface AccountDeletionDeps {
  database: Database;
  clock: Clock;
  accounts: AccountsService;
  booking: BookingService;
  consultations: ConsultationsService;
  mail: MailQueue;
  /**
   * This process's caches, forgotten after a deletion so that its keys and tokens fail at once
   * here (other processes: within KEY_CACHE_TTL_MS and the token verifier's 1 s). The CLI has none.
   */
  caches?: { keys?: { invalidate(): void }; grants?: { forgetGrant(grantId: string): void } };
  logger?: Logger;
}

export class AccountDeletionService {
  constructor(private readonly deps: AccountDeletionDeps) {}

  /** What deleting would do, and what stands in the way; `sessionId` says whether it may go ahead now. */
  async preview(userId: string, sessionId: string | null): Promise<DeletionPreview> {
    const db = this.deps.database.db;
    const user = await findUserById(db, userId);
    if (!user || isTombstone(user.email)) throw notFound('no such account');
    const nowIso = this.deps.clock.now().toISOString();
    const [blockers, counts, kept, firms, fresh] = await Promise.all([
      this.blockers(db, user),
      countOwnedByUser(db, userId, nowIso),
      countKeptRecordsOfUser(db, userId),
      this.deps.accounts.listMyFirms({ type: 'user', userId }),
      sessionId === null ? Promise.resolve(false) : this.sessionIsFresh(db, sessionId, userId),
    ]);
    return {
      email: user.email,
      createdAt: user.created_at,
      blockers,
      owned: { ...counts, firms: firms.map(({ id, slug, name, createdAt }) => ({ id, slug, name, createdAt })) },
      kept,
      fresh,
    };
  }

  /**
   * The person deletes their own account from a signed-in session. The session must have signed
   * in or proved a passkey within the last 10 minutes (ReauthenticationRequired otherwise), and
   * `confirmation` must be the account's address (invalid_request, pointer /confirm_email).
   * `locale` is the language of the confirmation email (the page's).
   */
  deleteOwnAccount(input: { userId: string; sessionId: string; confirmation: string; locale?: Locale }): Promise<DeletionReport> {
    return this.run(input.userId, input.locale ?? null, async (tx, user) => {
      if (!(await this.sessionIsFresh(tx, input.sessionId, user.id))) throw new ReauthenticationRequired();
      let typed: string | null = null;
      try {
        typed = normalizeEmail(String(input.confirmation ?? ''), '/confirm_email');
      } catch {
        // Not an address at all: the same answer as another address.
      }
      if (typed !== user.email) throw invalidRequest('type the address of the account to confirm', [{ pointer: '/confirm_email', detail: 'must be the address of this account' }]);
    });
  }

  /**
   * The operator deletes the account of this address (`consulta users delete EMAIL`), at the
   * person's request by another channel. Audited; the audit entry names the account by id only
   * (its address is what is being erased).
   */
  async deleteByOperator(actor: Actor, email: string): Promise<DeletionReport> {
    if (actor.type !== 'operator') throw forbidden('operators only');
    const address = normalizeEmail(email, '/email');
    const user = await findUserByEmail(this.deps.database.db, address);
    if (!user) throw notFound(`no account with the address ${address}`);
    return this.run(user.id, null, async () => {}, async (tx, report) => {
      const { userId, deletedAt, confirmationMailId: _mail, ...details } = report;
      await recordOperatorAction(tx, { at: deletedAt, by: actor.by, action: 'user.delete', target: { type: 'user', id: userId, label: null }, details });
    });
  }

  private async run(
    userId: string,
    locale: Locale | null,
    check: (tx: Executor, user: UserTable) => Promise<void>,
    audit?: (tx: Executor, report: DeletionReport) => Promise<void>,
  ): Promise<DeletionReport> {
    const { database, clock, accounts, booking, mail } = this.deps;
    const result = await database.db.transaction().execute(async (tx) => {
      // The user's row lock first: an AI app's hold for them waits for us (and we for it).
      await lockUserForIntents(tx, userId);
      const user = await findUserById(tx, userId);
      if (!user || isTombstone(user.email)) throw notFound('no such account');
      await check(tx, user);
      const nowIso = clock.now().toISOString();
      await accounts.lockFirmsOfUser(tx, userId);
      // Holds first: on PostgreSQL this waits for a confirmation in progress on one of them, whose
      // consultation the check below then sees (and refuses on) instead of missing it.
      const holds = await booking.releaseHoldsOfUserWithin(tx, userId);
      const blockers = await this.blockers(tx, user);
      if (blockers.length > 0) throw new AccountDeletionRefused(blockers);

      const owned = await countOwnedByUser(tx, userId, nowIso);
      const kept = await countKeptRecordsOfUser(tx, userId);
      const left = await accounts.leaveAllFirmsWithin(tx, userId);
      const oauth = await deleteOAuthRecordsOfAccount(tx, userId);
      const passkeys = await deletePasskeysOfUser(tx, userId);
      await deleteSessionsOfUser(tx, userId);
      await deleteChallengesOfEmail(tx, user.email);
      const keys = await revokeApiKeysOfUser(tx, userId, nowIso);
      const endpoints = await disableEndpointsOfUser(tx, userId, 'The account that owned this endpoint was deleted.', nowIso);
      await deleteNotificationsOfUser(tx, userId);
      await eraseIntentAddressesOfUser(tx, userId);
      await erasePurchaseChoicesOfUser(tx, userId);
      await deleteContactMessagesOf(tx, userId, user.email);
      // Reports the person made stay for the moderation record, without the account (DELETION_DECISIONS).
      await detachReviewReports(tx, userId);
      const tombstone = `${TOMBSTONE_PREFIX}${userId}`;
      await eraseAcceptedInvitationAddresses(tx, userId, tombstone);
      await anonymiseReviewsOfUser(tx, userId);
      // Mail to the address before the confirmation is queued: the confirmation is the one mail left.
      const mailDropped = await deleteQueuedMailTo(tx, user.email);
      const mailErased = await eraseMailTo(tx, user.email, tombstone, nowIso);
      const report: Omit<DeletionReport, 'confirmationMailId'> = {
        userId,
        deletedAt: nowIso,
        sessions: owned.sessions,
        apps: oauth.grantIds.length,
        passkeys,
        keys,
        endpoints,
        firms: left.firms.map((f) => f.slug),
        holdsReleased: holds.released,
        mailDropped,
        mailErased,
        kept,
      };
      const mailLocale = locale ?? (isLocale(user.locale) ? user.locale : DEFAULT_LOCALE);
      const [confirmationMailId] = await mail.enqueue(tx, [confirmationMail(user.email, report, mailLocale)]);
      if (!(await anonymiseUser(tx, userId, tombstone))) throw notFound('no such account');
      const done: DeletionReport = { ...report, confirmationMailId: confirmationMailId! };
      await audit?.(tx, done);
      return { done, grants: oauth.grantIds, pending: left.pending, afterHolds: holds.afterCommit };
    });
    // Committed: this process forgets what it cached, then the mail goes out (best effort).
    this.deps.caches?.keys?.invalidate();
    for (const grant of result.grants) this.deps.caches?.grants?.forgetGrant(grant);
    result.afterHolds();
    const { done } = result;
    this.deps.logger?.info(
      { user: done.userId, sessions: done.sessions, apps: done.apps, keys: done.keys, endpoints: done.endpoints, firms: done.firms.length, holds: done.holdsReleased },
      'account deleted',
    );
    await mail.deliver([done.confirmationMailId]);
    await accounts.deliverNotices(result.pending);
    return done;
  }

  /** What stands in the way of deleting this account now (empty: nothing). */
  private async blockers(db: Executor, user: UserTable): Promise<DeletionBlocker[]> {
    const blockers: DeletionBlocker[] = [];
    const { upcoming } = await this.deps.consultations.listForUser(user.id, db);
    if (upcoming.length > 0) blockers.push({ kind: 'upcoming_consultations', consultations: upcoming });
    const firms = await this.deps.accounts.firmsOnlyOwnedBy(user.id, db);
    if (firms.length > 0) blockers.push({ kind: 'last_owner', firms });
    const lawyerId = await findLinkedLawyerId(db, this.deps.database.dialect, user.id);
    if (lawyerId !== null) blockers.push({ kind: 'lawyer', lawyerId });
    if (await isOperator(db, user.id)) blockers.push({ kind: 'operator' });
    return blockers;
  }

  /** The session is this user's, live, and signed in or proved a passkey within STEP_UP_WINDOW_MS. */
  private async sessionIsFresh(db: Executor, sessionId: string, userId: string): Promise<boolean> {
    const row = await findLiveSessionOfUser(db, sessionId, userId);
    if (!row) return false;
    const nowMs = this.deps.clock.now().getTime();
    if (Date.parse(row.expires_at) <= nowMs) return false;
    const recent = (iso: string | null) => iso !== null && nowMs - Date.parse(iso) < STEP_UP_WINDOW_MS;
    return recent(row.created_at) || recent(row.step_up_at);
  }
}

/** The confirmation, in the person's language: what went, what stays and why, and that the address is free again. */
export function confirmationMail(to: string, report: Omit<DeletionReport, 'confirmationMailId'>, locale: Locale): OutgoingMail {
  const t = messages(locale).myAccount.mail;
  return {
    kind: ACCOUNT_DELETED_KIND,
    to,
    subject: t.subject,
    text: t.body({
      email: to,
      when: formatInstant(report.deletedAt, ZONE, locale),
      firms: report.firms,
      consultations: report.kept.consultations,
      payments: report.kept.payments,
    }),
    // Erased from the outbox once an SMTP server accepted it: the row (address, subject, time)
    // stays until the mail retention purges it, as the record that the deletion was confirmed.
    sensitive: true,
  };
}
