/**
 * Booking intents: the 15-minute hold of a free slot while the user confirms and pays on the
 * site. Every booking rule lives here.
 *
 * - A slot can be requested only if it is one of the lawyer's generated slots, starts beyond
 *   the lead time, and is not occupied. The occupancy check is the slot_holds primary key, not a
 *   read: of any number of concurrent requests exactly one inserts the hold.
 * - Test keys run every check and store nothing.
 * - State changes (pending → confirmed / expired) write their outbox event in the same
 *   transaction, for intents created with a live key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import {
  bookHeldSlot,
  confirmPendingIntent,
  expireDueIntents,
  expireIntent,
  findIntentByToken,
  findIntentOfKey,
  insertConsultation,
  insertIntent,
  insertOutboxEvents,
  lockKeyForIntents,
  pendingIntentsOfKey,
  releaseHolds,
} from '../../db/repositories/booking.repository.ts';
import { findUserById } from '../../db/repositories/account.repository.ts';
import {
  findIntentOfUser,
  findPendingIntentOfUserForSlot,
  listIntentsOfUser,
  lockUserForIntents,
  pendingIntentsOfUser,
} from '../../db/repositories/agent-booking.repository.ts';
import { expirePendingIntentsOfUser } from '../../db/repositories/account-deletion.repository.ts';
import { storeIdempotentOutcome } from '../../db/repositories/idempotency.repository.ts';
import { findUnfinishedAttempt } from '../../db/repositories/payment.repository.ts';
import { claimFollow, endPendingIntents, followedAmong, listSiteHolds, type SiteHolderRef, type SiteHoldRow } from '../../db/repositories/site-holds.repository.ts';
import { findLawyerForMail, findPublicLawyer } from '../../db/repositories/lawyer.repository.ts';
import { recomputeLawyerAggregates } from '../../db/repositories/review.repository.ts';
import { recordLawyerChanges } from '../../db/repositories/reference.repository.ts';
import { takeHold } from '../../db/repositories/schedule.repository.ts';
import type { BookingIntentTable, OutboxEventTable } from '../../db/schema.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { BookingIntent, InitiateBody, InitiateResponse } from '../../contract/booking.ts';
import type { Caller } from '../access/access.service.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import type { DirectoryCache } from '../directory/reference.service.ts';
import { loadSchedules } from '../directory/schedules.ts';
import { cellsCovering, isBookable, slotsOnDate, type GeneratedSlot, type LawyerOffer } from '../directory/slots.ts';
import { formatInZone, zonedToUtcMs } from '../../zoned-time.ts';
import { DomainError, notFound } from '../errors.ts';
import { noMetrics, type DomainMetrics } from '../metrics.ts';
import type { MailQueue } from '../notify/outbox.ts';
import { consultationMails, type ConsultationMailFacts } from './consultation-mail.ts';
import { boughtOf } from './purchase-confirm.ts';
import { fingerprint, type IdempotencyService, type StoredOutcome } from './idempotency.ts';

export const SLOT_UNAVAILABLE_BODY = JSON.stringify({
  code: 'slot_unavailable',
  message: 'This slot cannot be booked. Choose another one from the lawyer\'s availability.',
});

export interface InitiateOutcome extends StoredOutcome {
  replayed: boolean;
}

export type ConfirmOutcome =
  | { outcome: 'confirmed'; intent: BookingIntentTable }
  | { outcome: 'already_confirmed'; intent: BookingIntentTable }
  | { outcome: 'expired'; intent: BookingIntentTable };

export interface BookingServiceDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'siteUrl' | 'baseUrl' | 'minLeadTimeMinutes' | 'bookingIntentTtlSeconds' | 'maxPendingIntentsPerKey'>;
  cache: DirectoryCache;
  idempotency: IdempotencyService;
  /** Where the receipt and the lawyer's notice of a confirmation go; without it, nobody is emailed. */
  mail?: MailQueue;
  /** Holds created, confirmed and expired, counted once their transaction committed. */
  metrics?: DomainMetrics;
}

interface Idem {
  scope: string;
  key: string;
  /** The request's fingerprint (canonical body). */
  print: string;
}

/** Pending holds one person may have at once through AI apps (DESIGN §8). */
export const MAX_PENDING_HOLDS_PER_USER = 3;

/**
 * A person on the site (docs/booking-intents.md#holding-on-the-site): the confirmation tokens of
 * the holds their browser made (the holds cookie) and who is signed in.
 */
export type SiteHolder = SiteHolderRef;
export type { SiteHoldRow };

/**
 * How long a site hold with a lawyer makes the next one with her a replacement rather than a new
 * hold: the window of the hourly limit it would otherwise count against (limits.ts, `initiate`).
 */
export const SITE_HOLD_MEMORY_MS = 3_600_000;

export type SiteHoldOutcome =
  | { kind: 'held'; token: string; replaced: boolean }
  /** Taken meanwhile or no longer bookable; `kept`: their hold with this lawyer, which stays. */
  | { kind: 'unavailable'; kept: SiteHoldRow | null }
  /** The hourly limit on new holds from this address: their holds waiting now, and when to try again. */
  | { kind: 'limited'; retryAfterSeconds: number; holds: SiteHoldRow[] };

export type SiteReleaseOutcome = { kind: 'released' | 'not_pending' | 'paying'; lawyerId: string; date: string };

/** The person an AI app holds a slot for, and the app (an OAuth client). */
export interface Holder {
  userId: string;
  clientId: string;
  /** The app's name, as the person saw it on the consent page: the intent's `agent_name`. */
  clientName: string;
}

/** A slot as an agent asks for it. */
export interface SlotRequest {
  lawyer_id: string;
  date: string;
  start_time: string;
  end_time: string;
}

export type HoldOutcome =
  | { kind: 'held'; response: InitiateResponse; replayed: boolean }
  | { kind: 'unavailable' }
  /** MAX_PENDING_HOLDS_PER_USER holds are waiting for the person: none more until one is confirmed or expires. */
  | { kind: 'pending_limit'; message: string; retryAfterSeconds: number };

/**
 * Whether `userId` may confirm (and pay) this intent. An intent held by an AI app for a person
 * is theirs alone; any other intent is a capability: whoever holds its link may (DESIGN §7).
 */
export function mayConfirm(intent: Pick<BookingIntentTable, 'held_for_user_id'>, userId: string | null): boolean {
  const owner = intent.held_for_user_id ?? null;
  return owner === null || owner === userId;
}

/**
 * Thrown inside the booking transaction when another request with the same Idempotency-Key stored
 * its outcome first (a concurrent retry): the transaction rolls back, holding nothing, and the
 * caller answers the stored outcome, so one key never ends with two different answers.
 */
class IdempotencyKeyTaken extends Error {}

/** Thrown inside a replacing hold's transaction when the new time is taken: it rolls back, the old hold stays. */
class ReplacementTaken extends Error {}

/**
 * Thrown inside a replacing hold's transaction when the hold it replaces was no longer pending
 * (a concurrent replacement or confirmation got it first): it rolls back, so one person never
 * ends with two holds with the lawyer.
 */
class ReplacementLost extends Error {}

/** Thrown inside the hold's transaction (which rolls back) when the person has too many holds waiting. */
class PendingHoldsLimit extends Error {
  constructor(
    readonly pending: number,
    readonly retryAfterSeconds: number,
  ) {
    super('pending holds limit');
  }
}

async function complete(db: Executor, idempotency: IdempotencyService, idem: Idem | null, outcome: StoredOutcome): Promise<void> {
  if (!idem) return;
  const { row, staleBefore, nowIso } = idempotency.record(idem.scope, idem.key, idem.print, outcome);
  if (!(await storeIdempotentOutcome(db, row, staleBefore, nowIso))) throw new IdempotencyKeyTaken();
}

export class BookingService {
  private readonly metrics: DomainMetrics;

  constructor(private readonly deps: BookingServiceDeps) {
    this.metrics = deps.metrics ?? noMetrics;
  }

  /**
   * POST /bookings/initiate. `body` is schema-valid. `admitNew` applies the caller's limits on new
   * initiations (the anonymous hourly one): replays come before limits, so it runs only once the
   * request is known not to replay a stored outcome, and a retry after the limit still gets its
   * answer.
   */
  async initiate(caller: Caller, body: InitiateBody, idempotencyKey: string | undefined, admitNew: () => void | Promise<void> = () => {}, site: SiteHold | null = null): Promise<InitiateOutcome> {
    // A publishable key is the booking widget's: its holds are the widget's, whatever the page sent.
    if (caller.kind === 'key' && caller.key.kind === 'publishable') body = { ...body, source: 'widget' };
    if (idempotencyKey === undefined) {
      await admitNew();
      return { ...(await this.execute(caller, body, null, null, site)), replayed: false };
    }
    const scope = caller.kind === 'key' ? `key:${caller.key.id}` : `ip:${caller.ip}`;
    const print = fingerprint('POST', '/bookings/initiate', body);
    // Replays come before limits, and reading the key writes nothing: the outcome is stored in the
    // hold's own transaction (one commit per hold; docs/booking-intents.md#idempotency).
    const seen = await this.deps.idempotency.lookup(scope, idempotencyKey, print);
    if (seen.kind === 'replay') return { ...seen.outcome, replayed: true };
    await admitNew();
    try {
      return { ...(await this.execute(caller, body, { scope, key: idempotencyKey, print }, null, site)), replayed: false };
    } catch (err) {
      if (!(err instanceof IdempotencyKeyTaken)) throw err; // nothing was stored: the key stays free for a retry
      // A request with the same key committed first; this one rolled back, holding nothing: its answer.
      const stored = await this.deps.idempotency.lookup(scope, idempotencyKey, print);
      if (stored.kind === 'replay') return { ...stored.outcome, replayed: true };
      throw new DomainError('idempotency_key_in_use', 'This Idempotency-Key is contended; retry shortly.', undefined, { 'retry-after': '1' });
    }
  }

  /**
   * A hold made by an AI app for a signed-in person (MCP `hold_consultation_slot`): every check of
   * an initiation, owned by that person (only they may confirm it), `source: ai_agent` with the
   * app's name. Idempotent per person and slot: asking again for a slot the person already holds
   * answers that same hold, before any limit (`admitNew`, the hourly one, runs only for a new
   * hold; then at most MAX_PENDING_HOLDS_PER_USER pending holds per person).
   */
  async holdForUser(holder: Holder, ip: string, slot: SlotRequest, admitNew: () => void | Promise<void> = () => {}): Promise<HoldOutcome> {
    const requested: InitiateBody = { ...slot, lawyer_id: slot.lawyer_id.toLowerCase(), source: 'ai_agent', agent_name: holder.clientName.slice(0, 100) };
    const existing = await this.ownHold(holder.userId, requested);
    if (existing) return { kind: 'held', response: existing, replayed: true };
    await admitNew();
    let outcome: StoredOutcome;
    try {
      outcome = await this.execute({ kind: 'anonymous', ip }, requested, null, holder);
    } catch (err) {
      if (!(err instanceof PendingHoldsLimit)) throw err;
      return {
        kind: 'pending_limit',
        message: `This person already has ${err.pending} holds waiting for confirmation, the most allowed at once (${MAX_PENDING_HOLDS_PER_USER}). They confirm and pay one at its link, or one expires; then hold again.`,
        retryAfterSeconds: err.retryAfterSeconds,
      };
    }
    if (outcome.status === 201) return { kind: 'held', response: JSON.parse(outcome.body) as InitiateResponse, replayed: false };
    // Lost the slot to a concurrent request: it may have been this person's own (a retried call).
    const mine = await this.ownHold(holder.userId, requested);
    return mine ? { kind: 'held', response: mine, replayed: true } : { kind: 'unavailable' };
  }

  /**
   * A hold made on the site's own pages (the free-times page's POST: `source: widget`, no key).
   * Choosing again with a lawyer the person already holds a time with — from this browser, or
   * signed in — replaces that hold in one transaction (the old one ends and the new one is taken;
   * if the new time is taken the transaction rolls back and the old hold stays) and is not a new
   * hold for the hourly limit (`admitNew`); nor is one after letting go of a time with her within
   * the hour. A hold being paid is never replaced. Holds made through the API or MCP are never
   * replaced (their spec's semantics). Signed in, the hold is the person's alone
   * (`held_for_user_id`, with no OAuth client: not an AI app's).
   */
  async holdOnSite(ip: string, body: InitiateBody, idempotencyKey: string | undefined, who: SiteHolder, admitNew: () => void | Promise<void>): Promise<SiteHoldOutcome> {
    const requested: InitiateBody = { ...body, lawyer_id: body.lawyer_id.toLowerCase(), source: 'widget' };
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const mine = await listSiteHolds(this.deps.database.db, who, nowIso, new Date(now.getTime() - SITE_HOLD_MEMORY_MS).toISOString());
    const withLawyer = mine.filter((r) => r.lawyer_id === requested.lawyer_id);
    const waiting = withLawyer.filter((r) => pendingAt(r, nowIso));
    const same = waiting.find((r) => r.slot_date === requested.date && r.start_time === requested.start_time && r.end_time === requested.end_time);
    if (same) return { kind: 'held', token: same.confirmation_token, replaced: false };
    const replacing: SiteHoldRow[] = [];
    for (const r of waiting) if (!(await findUnfinishedAttempt(this.deps.database.db, r.id))) replacing.push(r);
    // The hold this one follows: their latest with her not followed yet (each is followed once).
    // All followed: the follower is a hold this browser does not know of yet (two taps at once,
    // a stale cookie); following the first again is refused in the transaction.
    const followed = await followedAmong(this.deps.database.db, withLawyer.map((r) => r.id));
    const follows = (withLawyer.find((r) => !followed.has(r.id)) ?? withLawyer[0])?.id ?? null;
    try {
      const outcome = await this.initiate(
        { kind: 'anonymous', ip },
        requested,
        idempotencyKey,
        withLawyer.length > 0 ? () => {} : admitNew,
        { userId: who.userId, replacing: replacing.map((r) => r.id), follows },
      );
      // Not bookable (read before any change) or taken: nothing of theirs was touched.
      if (outcome.status !== 201) return { kind: 'unavailable', kept: replacing[0] ?? null };
      const url = (JSON.parse(outcome.body) as InitiateResponse).confirmation_url;
      return { kind: 'held', token: url.slice(url.lastIndexOf('/') + 1), replaced: replacing.length > 0 };
    } catch (err) {
      if (err instanceof ReplacementTaken) return { kind: 'unavailable', kept: replacing[0] ?? null };
      if (err instanceof ReplacementLost) return { kind: 'unavailable', kept: null };
      if (err instanceof DomainError && err.code === 'rate_limited') {
        return { kind: 'limited', retryAfterSeconds: Math.max(1, Number(err.headers?.['retry-after'] ?? 60)), holds: mine.filter((r) => pendingAt(r, nowIso)) };
      }
      throw err;
    }
  }

  /** The person's site holds still waiting (for the limit page, and to keep the holds cookie short). */
  async siteHoldsWaiting(who: SiteHolder): Promise<SiteHoldRow[]> {
    const nowIso = this.deps.clock.now().toISOString();
    return (await listSiteHolds(this.deps.database.db, who, nowIso, nowIso)).filter((r) => pendingAt(r, nowIso));
  }

  /** The site holds (any state) among these that the browser may still need to know: made within the hour, or waiting. */
  async siteHoldsRemembered(who: SiteHolder): Promise<SiteHoldRow[]> {
    const now = this.deps.clock.now();
    return listSiteHolds(this.deps.database.db, who, now.toISOString(), new Date(now.getTime() - SITE_HOLD_MEMORY_MS).toISOString());
  }

  /** Whether this intent is a site hold of this person: their browser made it, or they were signed in. */
  isSiteHoldOf(intent: BookingIntentTable, who: SiteHolder): boolean {
    if (intent.key_id !== null || (intent.oauth_client_id ?? null) !== null || intent.source !== 'widget') return false;
    return who.tokens.includes(intent.confirmation_token) || (who.userId !== null && intent.held_for_user_id === who.userId);
  }

  /**
   * "Choose another time" on the hold page: ends the person's own pending site hold now, its time
   * freed. Anyone else's hold (another browser's, an API or AI app's) is not found; a hold being
   * paid is not let go (`paying`); one already confirmed or ended changes nothing (`not_pending`).
   */
  async releaseOnSite(token: string, who: SiteHolder): Promise<SiteReleaseOutcome> {
    const nowIso = this.deps.clock.now().toISOString();
    const intent = await findIntentByToken(this.deps.database.db, token);
    if (!intent || !this.isSiteHoldOf(intent, who)) throw notFound('No hold of yours has this link.');
    const where = { lawyerId: intent.lawyer_id, date: intent.slot_date };
    if (intent.status !== 'pending') return { kind: 'not_pending', ...where };
    const ended = await this.changingLawyer(intent.lawyer_id, () =>
      this.deps.database.db.transaction().execute(async (trx) => {
        if (await findUnfinishedAttempt(trx, intent.id)) return null;
        const rows = await endPendingIntents(trx, [intent.id], nowIso);
        await this.afterExpiry(trx, rows, nowIso);
        await recordLawyerChanges(trx, [intent.lawyer_id], nowIso);
        return rows;
      }),
    );
    if (ended === null) return { kind: 'paying', ...where };
    this.countExpired(ended);
    return { kind: ended.length > 0 ? 'released' : 'not_pending', ...where };
  }

  /** One intent held for this person (anyone else's is not found); expiry exact on read. */
  async getIntentOfUser(userId: string, intentId: string): Promise<BookingIntent> {
    const row = /^[0-9a-f-]{36}$/i.test(intentId) ? await findIntentOfUser(this.deps.database.db, intentId, userId) : undefined;
    if (!row) throw notFound('No booking intent with this id was held for you.');
    const lawyer = await findPublicLawyer(this.deps.database.db, row.lawyer_id);
    return this.intentView(row, lawyer?.timezone ?? 'Europe/Madrid');
  }

  /** The intents AI apps held for this person, newest first (at most `limit`). */
  async listIntentsOfUser(userId: string, limit = 50): Promise<BookingIntent[]> {
    const rows = await listIntentsOfUser(this.deps.database.db, userId, limit);
    const zones = new Map<string, string>();
    for (const id of new Set(rows.map((r) => r.lawyer_id))) zones.set(id, (await findPublicLawyer(this.deps.database.db, id))?.timezone ?? 'Europe/Madrid');
    return rows.map((r) => this.intentView(r, zones.get(r.lawyer_id)!));
  }

  /** The person's unexpired hold of exactly this slot, as the hold call answered it. */
  private async ownHold(userId: string, body: InitiateBody): Promise<InitiateResponse | null> {
    const nowIso = this.deps.clock.now().toISOString();
    const row = await findPendingIntentOfUserForSlot(this.deps.database.db, userId, { lawyer_id: body.lawyer_id, slot_date: body.date, start_time: body.start_time }, nowIso);
    if (!row || row.end_time !== body.end_time) return null;
    const lawyer = await findPublicLawyer(this.deps.database.db, row.lawyer_id);
    if (!lawyer) return null;
    const ref = await this.deps.cache.current();
    const startsAtMs = zoned(row.slot_date, row.start_time, lawyer.timezone);
    const endsAtMs = zoned(row.slot_date, row.end_time, lawyer.timezone);
    return this.initiateResponse(lawyer, ref, { date: row.slot_date, start_time: row.start_time, end_time: row.end_time, startsAtMs, endsAtMs }, row.id, row.confirmation_token, row.expires_at, true);
  }

  /** GET /booking-intents/{id}: only the calling key's intents; expiry exact on read. */
  async getIntent(keyId: string, intentId: string): Promise<BookingIntent> {
    const row = await findIntentOfKey(this.deps.database.db, intentId, keyId);
    if (!row) throw notFound('No booking intent with this id was created with this API key.');
    const lawyer = await findPublicLawyer(this.deps.database.db, row.lawyer_id);
    return this.intentView(row, lawyer?.timezone ?? 'Europe/Madrid');
  }

  /** The intent behind a confirmation token (for the site's confirmation page). */
  findByConfirmationToken(token: string): Promise<BookingIntentTable | undefined> {
    return findIntentByToken(this.deps.database.db, token);
  }

  /**
   * Confirms by the token of the confirmation_url, for a signed-in user, before expiry:
   * pending → confirmed, the slot booked for good, the consultation recorded, the event written,
   * the receipt (to `userId`) and the lawyer's notice queued; they are sent once this committed.
   * `personZone`: the confirming person's time zone as the site knows it (its `consulta_tz`
   * cookie); else the zone the hold page kept on the intent (a Stripe webhook has no cookie).
   * Stored on the consultation with the hold page's choices, for the receipt and the pages.
   */
  async confirm(token: string, userId: string, options: { personZone?: string | null | undefined } = {}): Promise<ConfirmOutcome> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    let mailIds: string[] = [];
    let expiredNow: BookingIntentTable | undefined;
    const result = await this.deps.database.db.transaction().execute(async (trx): Promise<ConfirmOutcome> => {
      const intent = await findIntentByToken(trx, token);
      // Someone else's AI-app hold reads as unknown: the link alone gives nothing away.
      if (!intent || !mayConfirm(intent, userId)) throw notFound('No booking intent has this confirmation link.');
      if (intent.status === 'confirmed') return { outcome: 'already_confirmed', intent };
      if (intent.status === 'expired' || intent.expires_at <= nowIso) {
        const expired = await expireIntent(trx, intent.id, nowIso);
        if (expired) await this.afterExpiry(trx, [expired], nowIso);
        expiredNow = expired;
        return { outcome: 'expired', intent: expired ?? intent };
      }
      const confirmed = await confirmPendingIntent(trx, intent.id, nowIso, userId);
      if (!confirmed) {
        // Lost a race with the sweeper or another confirmation: report what happened.
        const now = await findIntentByToken(trx, token);
        return now?.status === 'confirmed' ? { outcome: 'already_confirmed', intent: now } : { outcome: 'expired', intent: now ?? intent };
      }
      if ((await bookHeldSlot(trx, confirmed.id)) !== 1) throw new Error(`intent ${confirmed.id} had no hold to book`);
      // What the hold page chose, copied as it was (docs/booking-intents.md#the-hold-pages-choices).
      const bought = await boughtOf(trx, confirmed, options.personZone);
      const consultationId = randomUUID();
      await insertConsultation(trx, {
        id: consultationId,
        booking_intent_id: confirmed.id,
        user_id: userId,
        lawyer_id: confirmed.lawyer_id,
        slot_date: confirmed.slot_date,
        start_time: confirmed.start_time,
        end_time: confirmed.end_time,
        created_at: nowIso,
        ...bought.columns,
      });
      // total_bookings is the count of her consultation records (docs/reviews.md#aggregates).
      await recomputeLawyerAggregates(trx, confirmed.lawyer_id);
      await recordLawyerChanges(trx, [confirmed.lawyer_id], nowIso);
      await insertOutboxEvents(trx, this.events([confirmed], 'booking_intent.confirmed', nowIso));
      if (this.deps.mail) mailIds = await this.queueConfirmationMail(trx, this.deps.mail, confirmed, userId, now, bought.columns.person_timezone, { consultationId, ...bought.mail });
      return { outcome: 'confirmed', intent: confirmed };
    });
    // Counted after the commit: a rolled-back confirmation or expiry never happened.
    if (expiredNow) this.metrics.holdsExpired(expiredNow.source);
    // total_bookings changed: this process's cached rows of the lawyer go now, other processes' through the feed.
    if (result.outcome === 'confirmed') {
      this.metrics.holdsConfirmed(result.intent.source);
      this.deps.cache.lawyersChanged([result.intent.lawyer_id]);
    }
    // Not awaited: the payment is captured without waiting for a mail server; retries are the jobs'.
    if (mailIds.length > 0) void this.deps.mail?.deliver(mailIds);
    return result;
  }

  /**
   * Queues the receipt (to the confirming user, whoever created the intent) and the lawyer's
   * notice in the confirming transaction: they exist exactly when the confirmation does, and a
   * second confirmation of the same intent (already confirmed) queues nothing.
   */
  private async queueConfirmationMail(trx: Executor, mail: MailQueue, intent: BookingIntentTable, userId: string, now: Date, personZone: string | null, bought: ConsultationMailFacts['bought']): Promise<string[]> {
    const user = await findUserById(trx, userId);
    const lawyer = await findLawyerForMail(trx, intent.lawyer_id);
    if (!user || !lawyer) throw new Error(`intent ${intent.id}: no user ${userId} or lawyer ${intent.lawyer_id} to email`);
    const mails = consultationMails({
      intent,
      confirmedAt: now,
      person: { email: user.email, locale: user.locale, zone: personZone },
      lawyer: { ...lawyer, city: lawyer.city_name, locale: lawyer.user_locale },
      siteUrl: this.deps.config.siteUrl,
      // The name they gave when booking, else their account's: the lawyer never gets the email as a name.
      bought: bought ? { ...bought, person_name: bought.person_name || user.name || null } : bought,
    });
    return mail.enqueue(trx, mails);
  }

  /** Runs a write that may hold one of the lawyer's slots, then drops what is cached about the lawyer. */
  private async changingLawyer<T>(lawyerId: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } finally {
      this.deps.cache.lawyersChanged([lawyerId]);
    }
  }

  /** Makes due expiries durable: releases holds and records booking_intent.expired once. */
  async expireDue(batch = 200): Promise<number> {
    let total = 0;
    for (;;) {
      const nowIso = this.deps.clock.now().toISOString();
      const rows = await this.deps.database.db.transaction().execute(async (trx) => {
        const rows = await expireDueIntents(trx, this.deps.database.dialect, nowIso, batch);
        await this.afterExpiry(trx, rows, nowIso);
        return rows;
      });
      this.countExpired(rows);
      const expired = rows.length;
      total += expired;
      if (expired < batch) return total;
    }
  }

  /**
   * Ends now, inside the caller's transaction, the holds still waiting for a person (held for
   * them by an AI app, or being paid by them): an account being deleted leaves no slot taken.
   * They expire as the sweep would expire them (slots released, `booking_intent.expired` for
   * keyed intents; a payment authorized meanwhile is voided by the payment sweep), and other
   * processes are told the lawyers' free times changed. Call the returned `afterCommit` once the
   * transaction committed.
   */
  async releaseHoldsOfUserWithin(trx: Executor, userId: string): Promise<{ released: number; afterCommit(): void }> {
    const nowIso = this.deps.clock.now().toISOString();
    const rows = await expirePendingIntentsOfUser(trx, userId, nowIso);
    await this.afterExpiry(trx, rows, nowIso);
    const lawyers = [...new Set(rows.map((r) => r.lawyer_id))];
    await recordLawyerChanges(trx, lawyers, nowIso);
    return {
      released: rows.length,
      afterCommit: () => {
        this.countExpired(rows);
        if (lawyers.length > 0) this.deps.cache.lawyersChanged(lawyers);
      },
    };
  }

  private countExpired(rows: readonly BookingIntentTable[]): void {
    if (rows.length === 0) return;
    const bySource = new Map<string | null, number>();
    for (const r of rows) bySource.set(r.source, (bySource.get(r.source) ?? 0) + 1);
    for (const [source, n] of bySource) this.metrics.holdsExpired(source, n);
  }

  private async afterExpiry(trx: Executor, rows: BookingIntentTable[], nowIso: string): Promise<void> {
    await releaseHolds(trx, rows.map((r) => r.id));
    await insertOutboxEvents(trx, this.events(rows, 'booking_intent.expired', nowIso));
  }

  /** Outbox events for intents created with a (live) key; anonymous intents notify nobody. */
  private events(rows: BookingIntentTable[], type: string, nowIso: string): OutboxEventTable[] {
    return rows
      .filter((r) => r.key_id !== null && r.owner_type !== null && r.owner_id !== null)
      .map((r) => ({
        id: `evt_${randomUUID().replaceAll('-', '')}`,
        type,
        booking_intent_id: r.id,
        key_id: r.key_id!,
        owner_type: r.owner_type!,
        owner_id: r.owner_id!,
        data: JSON.stringify({
          booking_intent_id: r.id,
          status: r.status,
          lawyer_id: r.lawyer_id,
          slot: { date: r.slot_date, start_time: r.start_time, end_time: r.end_time },
          ...(r.confirmed_at ? { confirmed_at: r.confirmed_at } : {}),
        }),
        created_at: nowIso,
        published_at: null,
      }));
  }

  private async execute(caller: Caller, requested: InitiateBody, idem: Idem | null, holder: Holder | null = null, site: SiteHold | null = null): Promise<StoredOutcome> {
    // UUIDs are case-insensitive; the directory stores them in lower case.
    const body = { ...requested, lawyer_id: requested.lawyer_id.toLowerCase() };
    const db = this.deps.database.db;
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const unavailable = async (trx: Executor): Promise<StoredOutcome> => {
      const outcome = { status: 404, body: SLOT_UNAVAILABLE_BODY, headers: {} };
      await complete(trx, this.deps.idempotency, idem, outcome);
      return outcome;
    };

    const lawyer = await findPublicLawyer(db, body.lawyer_id);
    if (!lawyer) return unavailable(db);
    const slot = await this.requestableSlot(body, lawyer, now.getTime());
    if (!slot) return unavailable(db);
    // The cells the hold takes: [start, end + buffer), whatever grid or length it was cut from.
    const cells = cellsCovering(slot.startsAtMs, slot.endsAtMs + lawyer.buffer_minutes * 60_000);

    const ref = await this.deps.cache.current();
    const expiresAt = new Date(now.getTime() + this.deps.config.bookingIntentTtlSeconds * 1000).toISOString();
    const isTest = caller.kind === 'key' && caller.key.mode === 'test';
    const id = isTest ? null : randomUUID();
    const token = isTest ? null : randomBytes(24).toString('base64url');
    const response = this.initiateResponse(lawyer, ref, slot, id, token, expiresAt, holder !== null);
    const headers: Record<string, string> = id && caller.kind === 'key' ? { location: `${this.deps.config.baseUrl}/booking-intents/${id}` } : {};
    const created: StoredOutcome = { status: 201, body: JSON.stringify(response), headers };

    if (isTest) {
      // Test keys run every check, availability included (requestableSlot: free now), and hold nothing.
      await complete(db, this.deps.idempotency, idem, created);
      return created;
    }

    // Whatever the outcome, what this process cached about the lawyer is dropped afterwards.
    let replaced: BookingIntentTable[] = [];
    const outcome = await this.changingLawyer(lawyer.id, () => db.transaction().execute(async (trx) => {
      if (holder) {
        await lockUserForIntents(trx, holder.userId);
        const pending = await pendingIntentsOfUser(trx, holder.userId, nowIso);
        if (pending.count >= MAX_PENDING_HOLDS_PER_USER) {
          this.metrics.rateLimitRefused('pending_holds_per_person');
          throw new PendingHoldsLimit(pending.count, Math.max(1, Math.ceil((Date.parse(pending.firstExpiry!) - now.getTime()) / 1000)));
        }
      }
      // A site hold replacing the person's hold with this lawyer: the old one ends first (its
      // cells may be the new one's), in this transaction; if the new time is taken, all rolls back.
      // Each hold is followed (replaced, or chosen again after letting it go) once: a second
      // request following the same hold — two taps at once, or a stale cookie — is refused, so the
      // person never ends with two holds with her (the claim is keyed by the hold's id).
      if (site?.follows && !(await claimFollow(trx, site.follows, nowIso))) throw new ReplacementLost();
      if (site && site.replacing.length > 0) {
        replaced = await endPendingIntents(trx, site.replacing, nowIso);
        if (replaced.length < site.replacing.length) throw new ReplacementLost();
        await this.afterExpiry(trx, replaced, nowIso);
      }
      // Lapsed holds (and freed bookings) on the same key or any of these cells give way, cells
      // and all; then the key and every cell must be this hold's (slot_holds and slot_cells keys).
      const held = await takeHold(
        trx,
        {
          lawyer_id: lawyer.id,
          slot_date: slot.date,
          start_time: slot.start_time,
          end_time: slot.end_time,
          status: 'held',
          booking_intent_id: id,
          expires_at: expiresAt,
          created_at: nowIso,
          occupied_until: new Date(slot.endsAtMs + lawyer.buffer_minutes * 60_000).toISOString(),
        },
        cells,
        nowIso,
      );
      if (!held) {
        if (replaced.length > 0) throw new ReplacementTaken();
        return unavailable(trx);
      }
      await recordLawyerChanges(trx, [lawyer.id], nowIso);
      const key = caller.kind === 'key' ? caller.key : null;
      await insertIntent(trx, {
        id: id!,
        lawyer_id: lawyer.id,
        slot_date: slot.date,
        start_time: slot.start_time,
        end_time: slot.end_time,
        status: 'pending',
        key_id: key?.id ?? null,
        owner_type: key ? key.owner.type : null,
        owner_id: key ? (key.owner.type === 'user' ? key.owner.userId : key.owner.firmId) : null,
        source: body.source ?? null,
        agent_name: body.agent_name ?? null,
        confirmation_token: token!,
        client_ip: caller.ip,
        expires_at: expiresAt,
        confirmed_at: null,
        confirmed_by_user_id: null,
        expired_at: null,
        created_at: nowIso,
        held_for_user_id: holder?.userId ?? site?.userId ?? null,
        oauth_client_id: holder?.clientId ?? null,
      });
      // The stored outcome commits with the intent: a crash can never leave one without the other.
      await complete(trx, this.deps.idempotency, idem, created);
      if (caller.kind === 'key') {
        // The hoarding guard, last: the key's row lock serialises the key's holds (on PostgreSQL
        // until each commits), so it is taken when nothing but the count and the commit is left.
        // The count includes this intent.
        await lockKeyForIntents(trx, caller.key.id);
        const cap = this.deps.config.maxPendingIntentsPerKey;
        const counted = await pendingIntentsOfKey(trx, caller.key.id, nowIso, cap + 1);
        const others = counted.count - 1;
        if (others >= cap) {
          this.metrics.rateLimitRefused('pending_intents_per_key');
          const pending = await pendingIntentsOfKey(trx, caller.key.id, nowIso, cap + 1, true);
          const retryAfter = Math.max(1, Math.ceil((Date.parse(pending.firstExpiry!) - now.getTime()) / 1000));
          throw new DomainError(
            'rate_limited',
            `This API key already holds ${others} pending booking intents, the most allowed at once (${this.deps.config.maxPendingIntentsPerKey}). Wait for users to confirm or for intents to expire.`,
            undefined,
            { 'retry-after': String(retryAfter) },
          );
        }
      }
      return created;
    }));
    if (outcome === created) {
      this.metrics.holdsCreated(body.source ?? null);
      this.countExpired(replaced);
    }
    return outcome;
  }

  /** The answer to an initiation (REST, the booking page, an AI app's hold). */
  private initiateResponse(
    lawyer: { id: string; name: string; city_slug: string; timezone: string; consultation_fee_cents: number; platform_commission_percent: number },
    ref: { cityBySlug: ReadonlyMap<string, { name: string }> },
    slot: { date: string; start_time: string; end_time: string; startsAtMs: number; endsAtMs: number },
    id: string | null,
    token: string | null,
    expiresAt: string,
    forPerson: boolean,
  ): InitiateResponse {
    const minutes = Math.round(this.deps.config.bookingIntentTtlSeconds / 60);
    return {
      booking_intent_id: id,
      ...(token === null ? { test: true as const } : {}),
      confirmation_url: token ? `${this.deps.config.siteUrl}/confirm/${token}` : `${this.deps.config.siteUrl}/booking/test-mode`,
      expires_at: expiresAt,
      slot: {
        date: slot.date,
        start_time: slot.start_time,
        end_time: slot.end_time,
        timezone: lawyer.timezone,
        starts_at: formatInZone(slot.startsAtMs, lawyer.timezone),
        ends_at: formatInZone(slot.endsAtMs, lawyer.timezone),
      },
      lawyer: {
        id: lawyer.id,
        name: sanitizeShortText(lawyer.name),
        city: ref.cityBySlug.get(lawyer.city_slug)?.name ?? lawyer.city_slug,
        consultation_fee_cents: lawyer.consultation_fee_cents,
        currency: 'EUR',
        platform_commission_percent: lawyer.platform_commission_percent,
        profile_url: `${this.deps.config.siteUrl}/lawyers/${lawyer.id}`,
      },
      message:
        token === null
          ? 'Test mode: every check passed, but nothing was held or stored and nobody was notified. The confirmation_url explains test mode.'
          : forPerson
            ? `The slot is held for this person until ${expiresAt} (${minutes} minutes). Give them confirmation_url: they sign in there with their own account, confirm and pay. The booking is final only when the person confirms and pays at the link; nobody else can confirm this hold.`
            : `The slot is held until ${expiresAt} (${minutes} minutes). Send the user to confirmation_url to sign in, confirm and pay there; the booking is final only then.`,
    };
  }

  private requestableSlot(body: InitiateBody, lawyer: LawyerOffer & { id: string }, nowMs: number): Promise<GeneratedSlot | null> {
    return requestableSlot(this.deps.database.db, lawyer, { date: body.date, start_time: body.start_time, end_time: body.end_time }, nowMs, this.deps.config.minLeadTimeMinutes * 60_000);
  }

  private intentView(row: BookingIntentTable, timezone: string): BookingIntent {
    const nowIso = this.deps.clock.now().toISOString();
    const status = row.status === 'pending' && row.expires_at <= nowIso ? 'expired' : (row.status as BookingIntent['status']);
    return {
      booking_intent_id: row.id,
      status,
      slot: this.slotRef(row, timezone),
      expires_at: row.expires_at,
      confirmed_at: row.confirmed_at,
      created_at: row.created_at,
      confirmation_url: `${this.deps.config.siteUrl}/confirm/${row.confirmation_token}`,
      lawyer_id: row.lawyer_id,
    };
  }

  private slotRef(row: Pick<BookingIntentTable, 'slot_date' | 'start_time' | 'end_time'>, timezone: string): BookingIntent['slot'] {
    return {
      date: row.slot_date,
      start_time: row.start_time,
      end_time: row.end_time,
      timezone,
      starts_at: formatInZone(zoned(row.slot_date, row.start_time, timezone), timezone),
      ends_at: formatInZone(zoned(row.slot_date, row.end_time, timezone), timezone),
    };
  }
}

/** A site hold's part of an initiation: who is signed in, and the holds it replaces. */
interface SiteHold {
  userId: string | null;
  replacing: string[];
  /** The person's latest hold with this lawyer (pending or not), which this one follows; null: a new hold. */
  follows: string | null;
}

const pendingAt = (r: Pick<BookingIntentTable, 'status' | 'expires_at'>, nowIso: string): boolean => r.status === 'pending' && r.expires_at > nowIso;

/**
 * The generated candidate matching the request exactly (same date, start and end), if it is
 * bookable now: within her notice and horizon, and free of holds, bookings and her calendar's
 * busy times as read now. Concurrent holds are decided by the cells, not by this read. Initiating
 * a hold and moving a consultation (person-change.service.ts) accept only such a time.
 */
export async function requestableSlot(
  db: Executor,
  lawyer: LawyerOffer & { id: string },
  wanted: { date: string; start_time: string; end_time: string },
  nowMs: number,
  minLeadTimeMs: number,
): Promise<GeneratedSlot | null> {
  const schedule = (await loadSchedules(db, [lawyer], wanted.date, wanted.date, nowMs)).get(lawyer.id)!;
  const slot = slotsOnDate(schedule, wanted.date).find((s) => s.start_time === wanted.start_time && s.end_time === wanted.end_time);
  if (!slot) return null;
  return isBookable(schedule, slot, { nowMs, minLeadTimeMs }) ? slot : null;
}

function zoned(date: string, time: string, timezone: string): number {
  return zonedToUtcMs(date, time, timezone) ?? Date.parse(`${date}T${time}Z`);
}
