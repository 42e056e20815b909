/**
 * Paying for a booking intent, and confirming it exactly once. Every payment rule lives here.
 *
 * - The race with expiry is settled by the database: the money is authorized first, then one
 *   guarded transaction (BookingService.confirm: `pending` and `expires_at > now`) confirms the
 *   intent. Only if that committed is the authorization captured; otherwise it is voided, so
 *   nobody is ever charged for a slot they did not get.
 * - No payment starts with less than MIN_SECONDS_TO_PAY left on the hold.
 * - At most one attempt per intent is open or authorized (a partial unique index): concurrent
 *   submissions cannot both start, so they cannot both be charged. While an attempt is
 *   authorized, nothing else can confirm the intent: an authorized attempt whose intent is
 *   confirmed (by the same user) is the one that confirmed it, which is how the sweep finishes
 *   the work of a process that died between the confirmation and the capture.
 * - A declined card leaves the intent pending; the person may try again (a new attempt).
 * - Provider events are applied once: the event id is recorded in the transaction that applies it.
 * - Every provider call carries an idempotency key derived from the attempt and the operation.
 *
 * With payments on, intents are confirmed only through this service.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { findIntentByToken } from '../../db/repositories/booking.repository.ts';
import { findChargeableAccount, updatePayoutAccountState } from '../../db/repositories/earnings.repository.ts';
import {
  findAttempt,
  findAttemptByCheckout,
  findConsultationOfIntent,
  findIntentById,
  findLatestAttemptOfUser,
  findLawyerForPayment,
  findUnfinishedAttempt,
  listAttemptsToSweep,
  lockIntentForPayment,
  transitionAttempt,
  tryInsertAttempt,
  tryRecordPaymentEvent,
  type PaymentLawyerRow,
  type UnfinishedAttemptRow,
} from '../../db/repositories/payment.repository.ts';
import type { Selectable } from 'kysely';
import type { BookingIntentTable, ConsultationTable, PaymentAttemptTable } from '../../db/schema.ts';
import {
  idempotencyKey,
  InvalidSignatureError,
  type CardDetails,
  type CardPaymentProvider,
  type DeclineCode,
  type HostedPaymentProvider,
  type PaymentProvider,
  type ProviderEvent,
} from '../../payments/provider.ts';
import { mayConfirm, type BookingService, type ConfirmOutcome } from '../booking/booking.service.ts';
import { quote, type Quote } from '../booking/quote.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { formatInZone, zonedToUtcMs } from '../../zoned-time.ts';
import { DomainError } from '../errors.ts';
import { noMetrics, type DomainMetrics, type PaymentOutcome } from '../metrics.ts';
import type { Logger } from '../notify/mailer.ts';

/** A payment is not started with less time than this left on the hold. */
export const MIN_SECONDS_TO_PAY = 90;

/**
 * How long an open card attempt or an authorized attempt of a pending intent may sit untouched
 * before the sweep takes it over: long past any live request, so only a dead process's work is
 * taken (and taking over a live one is harmless: every step is guarded and idempotent).
 */
export const ATTEMPT_LEASE_MS = 60_000;

const SWEEP_BATCH = 500;

export type PayOutcome =
  | { kind: 'confirmed'; intentId: string; consultation?: Selectable<ConsultationTable> }
  | { kind: 'already_confirmed' }
  | { kind: 'declined'; code: DeclineCode }
  /** The hold lapsed during the payment: the authorization was voided, nothing was charged. */
  | { kind: 'expired_voided' }
  /** Less than MIN_SECONDS_TO_PAY left: no payment was started. */
  | { kind: 'too_late' }
  | { kind: 'expired' }
  /** Another payment of this intent is under way. */
  | { kind: 'in_progress' }
  | { kind: 'not_found' };

export type CheckoutState = 'payable' | 'too_late' | 'expired' | 'confirmed' | 'in_progress';

/** What the pay page shows. */
export type CheckoutView =
  | { state: 'not_found' }
  /**
   * A paid booking seen by anyone but the person who confirmed it: no detail of it at all. The
   * link (in the receipt and the .ics) stops being a capability once it was used to pay.
   */
  | { state: 'owner_only'; signedIn: boolean }
  | {
      state: CheckoutState;
      intent: BookingIntentTable;
      lawyer: Pick<PaymentLawyerRow, 'id' | 'name' | 'timezone' | 'city_slug'>;
      /** When the consultation starts: RFC 3339 with the lawyer's offset. */
      startsAt: string;
      quote: Quote;
      /** Whole seconds left on the hold, 0 once it lapsed. */
      secondsLeft: number;
      provider: PaymentProvider['name'];
      /** Why this user's latest attempt was declined, when it was. */
      lastFailure?: DeclineCode;
    };

/** The view of a token that exists. */
export type CheckoutDetails = Exclude<CheckoutView, { state: 'not_found' } | { state: 'owner_only' }>;

export interface PaymentsServiceDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'paymentProvider'>;
  booking: Pick<BookingService, 'confirm' | 'expireDue'>;
  provider: PaymentProvider;
  logger?: Logger;
  /** Payment outcomes (authorized, declined, captured, voided, failures), counted once recorded. */
  metrics?: DomainMetrics;
}

type Begun =
  | { kind: 'begun'; attempt: PaymentAttemptTable; intent: BookingIntentTable; lawyer: PaymentLawyerRow }
  | { kind: 'busy'; intent: BookingIntentTable }
  | PayOutcome;

const CONFIRMATION_TOKEN = /^[A-Za-z0-9_-]{20,64}$/;

const silent: Logger = { info() {}, warn() {}, error() {} };

export class PaymentsService {
  private readonly logger: Logger;
  private readonly metrics: DomainMetrics;

  constructor(private readonly deps: PaymentsServiceDeps) {
    this.logger = deps.logger ?? silent;
    this.metrics = deps.metrics ?? noMetrics;
  }

  private count(outcome: PaymentOutcome): void {
    this.metrics.paymentOutcome(this.deps.provider.name, outcome);
  }

  /** Which provider takes the payments: `demo` pays with `payWithCard`, `stripe` with `startHostedCheckout`. */
  get provider(): PaymentProvider['name'] {
    return this.deps.provider.name;
  }

  /** What the pay page of `token` shows to `userId` (null: not signed in). */
  async checkout(token: string, userId: string | null): Promise<CheckoutView> {
    const loaded = await this.load(token);
    // An AI app's hold is its person's alone: to anyone else signed in, the link is unknown.
    if (!loaded || (userId !== null && !mayConfirm(loaded.intent, userId))) return { state: 'not_found' };
    const { intent, lawyer } = loaded;
    // Before payment the link is a capability (DESIGN.md §7); after it, the booking is its person's.
    if (intent.status === 'confirmed' && (userId === null || intent.confirmed_by_user_id !== userId)) return { state: 'owner_only', signedIn: userId !== null };
    const nowMs = this.deps.clock.now().getTime();
    let state: CheckoutState = payability(intent, nowMs);
    if ((state === 'payable' || state === 'too_late') && (await findUnfinishedAttempt(this.deps.database.db, intent.id))) state = 'in_progress';
    const latest = userId ? await findLatestAttemptOfUser(this.deps.database.db, intent.id, userId) : undefined;
    return {
      state,
      intent,
      lawyer: { id: lawyer.id, name: sanitizeShortText(lawyer.name), timezone: lawyer.timezone, city_slug: lawyer.city_slug },
      startsAt: formatInZone(zonedToUtcMs(intent.slot_date, intent.start_time, lawyer.timezone) ?? Date.parse(`${intent.slot_date}T${intent.start_time}Z`), lawyer.timezone),
      quote: quote(lawyer),
      secondsLeft: Math.max(0, Math.floor((Date.parse(intent.expires_at) - nowMs) / 1000)),
      provider: this.deps.provider.name,
      ...(latest?.status === 'failed' && latest.failure_code ? { lastFailure: latest.failure_code as DeclineCode } : {}),
    };
  }

  /**
   * The demo provider's card form: begin an attempt, authorize the card, then settle (confirm,
   * then capture, or void if the hold lapsed meanwhile). Of concurrent submissions one pays and
   * the others get `in_progress` or `already_confirmed`.
   */
  async payWithCard(token: string, userId: string, card: CardDetails, personZone?: string | null): Promise<PayOutcome> {
    const provider = this.cardProvider();
    const begun = await this.begin(token, userId, personZone);
    if (begun.kind === 'busy') return { kind: 'in_progress' };
    if (begun.kind !== 'begun') return begun;
    const { attempt, intent } = begun;

    let result;
    try {
      result = await provider.authorize({
        attemptId: attempt.id,
        amountCents: attempt.amount_cents,
        currency: 'EUR',
        card,
        idempotencyKey: idempotencyKey(attempt.id, 'authorize'),
      });
    } catch (err) {
      this.count('provider_error');
      await transitionAttempt(this.deps.database.db, attempt.id, ['open'], { status: 'canceled', failure_code: 'provider_error', updated_at: this.nowIso() });
      throw err;
    }
    if (!result.ok) {
      await transitionAttempt(this.deps.database.db, attempt.id, ['open'], { status: 'failed', failure_code: result.code, updated_at: this.nowIso() });
      this.count('declined');
      return { kind: 'declined', code: result.code };
    }
    const nowIso = this.nowIso();
    const authorized = await transitionAttempt(this.deps.database.db, attempt.id, ['open'], {
      status: 'authorized',
      payment_ref: result.paymentRef,
      authorized_at: nowIso,
      updated_at: nowIso,
    });
    if (!authorized) {
      // The sweep gave this attempt up meanwhile (its hold lapsed): this authorization is nobody's.
      await provider.void(result.paymentRef, idempotencyKey(attempt.id, 'void'));
      this.count('voided');
      return { kind: 'expired_voided' };
    }
    this.count('authorized');
    return this.settle(authorized, intent.confirmation_token, personZone);
  }

  /**
   * Stripe: begin an attempt and open a hosted checkout for it, or send the same person back to
   * the checkout they already opened. The payment is settled when Stripe reports it (webhook).
   */
  async startHostedCheckout(
    token: string,
    user: { id: string; email: string },
    urls: { successUrl: string; cancelUrl: string },
    personZone?: string | null,
  ): Promise<{ kind: 'redirect'; url: string } | PayOutcome> {
    const provider = this.hostedProvider();
    // Only a free consultation is confirmed here; a paid one when Stripe reports it, without the zone.
    const begun = await this.begin(token, user.id, personZone);
    if (begun.kind === 'busy') {
      const current = await findUnfinishedAttempt(this.deps.database.db, begun.intent.id);
      if (current?.status === 'open' && current.user_id === user.id && current.checkout_url) return { kind: 'redirect', url: current.checkout_url };
      return { kind: 'in_progress' };
    }
    if (begun.kind !== 'begun') return begun;
    const { attempt, intent, lawyer } = begun;

    let started;
    try {
      started = await provider.startCheckout({
        attemptId: attempt.id,
        intentId: intent.id,
        amountCents: attempt.amount_cents,
        currency: 'EUR',
        description: `Consultation with ${lawyer.name}, ${intent.slot_date} ${intent.start_time.slice(0, 5)} (${lawyer.timezone})`,
        customerEmail: user.email,
        successUrl: urls.successUrl,
        cancelUrl: urls.cancelUrl,
        now: this.deps.clock.now(),
        idempotencyKey: idempotencyKey(attempt.id, 'checkout'),
        // Her connected account when it could take charges as the attempt began; else a platform charge.
        destination: attempt.destination_account ? { account: attempt.destination_account, applicationFeeCents: attempt.platform_fee_cents ?? price(attempt, lawyer) } : null,
      });
    } catch (err) {
      this.count('provider_error');
      await transitionAttempt(this.deps.database.db, attempt.id, ['open'], { status: 'canceled', failure_code: 'provider_error', updated_at: this.nowIso() });
      this.logger.error({ err, attempt: attempt.id }, 'could not start a hosted checkout');
      throw new DomainError('service_unavailable', 'The payment provider could not be reached. Nothing was charged; try again in a moment.', undefined, { 'retry-after': '5' });
    }
    const recorded = await transitionAttempt(this.deps.database.db, attempt.id, ['open'], {
      checkout_ref: started.checkoutRef,
      checkout_url: started.url,
      updated_at: this.nowIso(),
    });
    if (!recorded) {
      // The sweep gave the attempt up meanwhile (its hold lapsed): close the checkout nobody will see.
      await provider.expireCheckout(started.checkoutRef, idempotencyKey(attempt.id, 'expire')).catch((err: unknown) =>
        this.logger.warn({ err, attempt: attempt.id }, 'could not expire an orphaned checkout'),
      );
      return { kind: 'expired' };
    }
    return { kind: 'redirect', url: started.url };
  }

  /**
   * A Stripe webhook delivery: verifies the signature over the raw body (a bad, missing or stale
   * one is an `invalid_request`), then applies the event once.
   */
  async handleStripeWebhook(rawBody: Buffer | string, signature: string | undefined): Promise<{ status: 'applied' | 'duplicate' | 'ignored' }> {
    const provider = this.hostedProvider();
    let event: ProviderEvent;
    try {
      event = provider.parseEvent(rawBody, signature, this.deps.clock.now().getTime());
    } catch (err) {
      if (err instanceof InvalidSignatureError) {
        throw new DomainError('invalid_request', 'The Stripe-Signature header is missing, does not match the body, or is too old.');
      }
      throw err;
    }
    if (event.kind === 'other') return { status: 'ignored' };
    const db = this.deps.database.db;
    if (event.kind === 'account_updated') {
      // A lawyer's connected account changed (onboarding finished, a requirement came due): store
      // what it can do now. Accounts that are not a lawyer's of ours are ignored.
      const nowIso = this.nowIso();
      const applied = await db.transaction().execute(async (trx) => {
        if (!(await tryRecordPaymentEvent(trx, { provider: 'stripe', event_id: event.id, type: event.type, received_at: nowIso }))) return 'duplicate' as const;
        return (await updatePayoutAccountState(trx, event.account, nowIso)) ? ('applied' as const) : ('ignored' as const);
      });
      return { status: applied };
    }
    const attempt = (await findAttemptByCheckout(db, event.checkoutRef)) ?? (event.attemptId ? await findAttempt(db, event.attemptId) : undefined);
    // Not one of ours (another integration on the same Stripe account).
    if (!attempt || attempt.provider !== 'stripe') return { status: 'ignored' };

    if (event.kind === 'checkout_expired') {
      const nowIso = this.nowIso();
      const applied = await db.transaction().execute(async (trx) => {
        if (!(await tryRecordPaymentEvent(trx, { provider: 'stripe', event_id: event.id, type: event.type, received_at: nowIso }))) return false;
        await transitionAttempt(trx, attempt.id, ['open'], { status: 'expired', updated_at: nowIso });
        return true;
      });
      return { status: applied ? 'applied' : 'duplicate' };
    }
    return { status: await this.applyCompletion(attempt, event.paymentRef, event) };
  }

  /**
   * For the jobs runner (after the booking expiry sweep): closes hosted checkouts of lapsed
   * holds, gives up open attempts abandoned by a dead process, and settles authorized attempts
   * whose process stopped: captured when their intent is confirmed (a crash between the
   * confirmation and the capture), voided when it expired, and confirmed-then-captured (or voided)
   * when it is still pending. Returns how many attempts it moved on.
   */
  async sweep(): Promise<number> {
    // Decisions below read the intent's durable state: make due expiries durable first.
    await this.deps.booking.expireDue();
    // Attempts of another provider (the setting changed while payments were in flight) are left
    // alone: only the provider that authorized a payment can capture or void it.
    const nowMs = this.deps.clock.now().getTime();
    const rows = await listAttemptsToSweep(
      this.deps.database.db,
      this.deps.provider.name,
      new Date(nowMs).toISOString(),
      new Date(nowMs - ATTEMPT_LEASE_MS).toISOString(),
      SWEEP_BATCH,
    );
    let moved = 0;
    for (const row of rows) {
      try {
        if (await this.sweepOne(row)) moved++;
      } catch (err) {
        this.logger.error({ err, attempt: row.id }, 'payment sweep could not settle an attempt; it is retried on the next sweep');
      }
    }
    return moved;
  }

  private async sweepOne(row: UnfinishedAttemptRow): Promise<boolean> {
    const db = this.deps.database.db;
    const nowMs = this.deps.clock.now().getTime();
    const nowIso = new Date(nowMs).toISOString();
    const holdLapsed = row.intent_status !== 'pending' || row.intent_expires_at <= nowIso;
    const idle = nowMs - Date.parse(row.updated_at) >= ATTEMPT_LEASE_MS;

    if (row.status === 'open') {
      const provider = this.deps.provider;
      if (row.checkout_ref && provider.flow === 'hosted') {
        if (!holdLapsed) return false;
        const state = await provider.expireCheckout(row.checkout_ref, idempotencyKey(row.id, 'expire'));
        // The person completed it just before: authorize it, and settle (which voids: the hold lapsed).
        if (state.status === 'complete') return (await this.applyCompletion(row, state.paymentRef, null)) === 'applied';
        if (state.status === 'open') return false;
        return !!(await transitionAttempt(db, row.id, ['open'], { status: 'expired', updated_at: nowIso }));
      }
      // A card authorization or a checkout creation in flight, or a process that died during one.
      if (!holdLapsed && !idle) return false;
      return !!(await transitionAttempt(db, row.id, ['open'], { status: 'canceled', failure_code: 'abandoned', updated_at: nowIso }));
    }

    // Authorized.
    if (row.intent_status === 'confirmed') {
      if (row.confirmed_by_user_id === row.user_id) return this.capture(row);
      return this.void(row);
    }
    if (row.intent_status === 'expired') return this.void(row);
    if (!idle) return false;
    // The process that authorized it stopped before confirming: finish what the person asked for.
    await this.settle(row, row.confirmation_token);
    return true;
  }

  /** Authorizes a completed hosted checkout and settles it; `event` null when the sweep found it. */
  private async applyCompletion(
    attempt: PaymentAttemptTable,
    paymentRef: string | null,
    event: { id: string; type: string } | null,
  ): Promise<'applied' | 'duplicate' | 'ignored'> {
    const provider = this.hostedProvider();
    const db = this.deps.database.db;
    const record = (trx: Parameters<typeof tryRecordPaymentEvent>[0], nowIso: string) =>
      event ? tryRecordPaymentEvent(trx, { provider: 'stripe', event_id: event.id, type: event.type, received_at: nowIso }) : Promise.resolve(true);

    const state = paymentRef ? await provider.paymentState(paymentRef) : null;
    if (!paymentRef || state !== 'authorized') {
      // Nothing to capture (already settled by the sweep, or not an authorization at all).
      const recorded = await record(db, this.nowIso());
      return recorded ? 'ignored' : 'duplicate';
    }
    const nowIso = this.nowIso();
    const applied = await db.transaction().execute(async (trx) => {
      if (!(await record(trx, nowIso))) return 'duplicate' as const;
      const authorized = await transitionAttempt(trx, attempt.id, ['open'], {
        status: 'authorized',
        payment_ref: paymentRef,
        authorized_at: nowIso,
        updated_at: nowIso,
      });
      return authorized ?? ('stale' as const);
    });
    if (applied === 'duplicate') return 'duplicate';
    if (applied === 'stale') {
      const current = await findAttempt(db, attempt.id);
      if (current?.payment_ref === paymentRef) return 'applied';
      // The attempt was given up (its checkout expired or was abandoned) before this payment
      // arrived: never charge it.
      await provider.void(paymentRef, idempotencyKey(attempt.id, 'void'));
      const voidedAt = this.nowIso();
      await transitionAttempt(db, attempt.id, ['expired', 'canceled', 'failed'], { status: 'voided', payment_ref: paymentRef, voided_at: voidedAt, updated_at: voidedAt });
      this.count('voided');
      return 'applied';
    }
    this.count('authorized');
    const intent = await findIntentById(db, applied.booking_intent_id);
    if (intent) await this.settle(applied, intent.confirmation_token);
    return 'applied';
  }

  /**
   * Confirms the intent for the attempt's user in BookingService's guarded transaction; captures
   * the authorization only if that committed, voids it otherwise.
   */
  private async settle(attempt: PaymentAttemptTable, token: string, personZone?: string | null): Promise<PayOutcome> {
    let confirmed: ConfirmOutcome;
    try {
      confirmed = await this.deps.booking.confirm(token, attempt.user_id, { personZone });
    } catch (err) {
      // The attempt stays authorized: the sweep settles it once it can.
      this.logger.error({ err, attempt: attempt.id }, 'confirmation failed after authorization; the sweep settles it');
      throw err;
    }
    if (confirmed.outcome === 'expired') {
      await this.void(attempt);
      return { kind: 'expired_voided' };
    }
    if (confirmed.outcome === 'already_confirmed' && confirmed.intent.confirmed_by_user_id !== attempt.user_id) {
      await this.void(attempt);
      return { kind: 'already_confirmed' };
    }
    // Confirmed now, or by this very attempt before (a concurrent or interrupted settle).
    await this.capture(attempt);
    const consultation = await findConsultationOfIntent(this.deps.database.db, attempt.booking_intent_id);
    return { kind: 'confirmed', intentId: attempt.booking_intent_id, ...(consultation ? { consultation } : {}) };
  }

  /** Captures an authorized attempt; on failure it stays authorized and the sweep retries. */
  private async capture(attempt: PaymentAttemptTable): Promise<boolean> {
    try {
      await this.deps.provider.capture(attempt.payment_ref!, idempotencyKey(attempt.id, 'capture'));
    } catch (err) {
      this.count('capture_failed');
      this.logger.error({ err, attempt: attempt.id }, 'capture failed; the sweep retries it');
      return false;
    }
    const nowIso = this.nowIso();
    const captured = !!(await transitionAttempt(this.deps.database.db, attempt.id, ['authorized'], { status: 'captured', captured_at: nowIso, updated_at: nowIso }));
    // Counted once: a concurrent settle of the same attempt finds it captured already.
    if (captured) this.count('captured');
    return captured;
  }

  /** Voids an authorized attempt; on failure it stays authorized and the sweep retries. */
  private async void(attempt: PaymentAttemptTable): Promise<boolean> {
    try {
      await this.deps.provider.void(attempt.payment_ref!, idempotencyKey(attempt.id, 'void'));
    } catch (err) {
      this.count('void_failed');
      this.logger.error({ err, attempt: attempt.id }, 'void failed; the sweep retries it');
      return false;
    }
    const nowIso = this.nowIso();
    const voided = !!(await transitionAttempt(this.deps.database.db, attempt.id, ['authorized'], { status: 'voided', voided_at: nowIso, updated_at: nowIso }));
    if (voided) this.count('voided');
    return voided;
  }

  /**
   * Starts an attempt: the intent must be pending with at least MIN_SECONDS_TO_PAY left, and have
   * no open or authorized attempt. Read and insert happen in one transaction with the intent
   * locked (PostgreSQL) or the database's single writer (SQLite), so a confirmation cannot slip
   * between the check and the insert.
   */
  private async begin(token: string, userId: string, personZone?: string | null): Promise<Begun> {
    const loaded = await this.load(token);
    if (!loaded || !mayConfirm(loaded.intent, userId)) return { kind: 'not_found' };
    const { lawyer } = loaded;
    const nowMs = this.deps.clock.now().getTime();
    const early = outcomeOf(payability(loaded.intent, nowMs));
    if (early) return early;
    const price = quote(lawyer);
    if (price.totalCents === 0) return this.confirmFree(token, userId, personZone);

    const { database } = this.deps;
    const nowIso = new Date(nowMs).toISOString();
    // Stripe Connect: a destination charge to her account when it can take charges (docs/payments.md#connect).
    const destination = this.deps.provider.flow === 'hosted' ? await findChargeableAccount(database.db, lawyer.id, this.deps.provider.name) : null;
    return database.db.transaction().execute(async (trx): Promise<Begun> => {
      const intent = await lockIntentForPayment(trx, database.dialect, loaded.intent.id);
      if (!intent) return { kind: 'not_found' };
      const late = outcomeOf(payability(intent, nowMs));
      if (late) return late;
      const attempt: PaymentAttemptTable = {
        id: randomUUID(),
        booking_intent_id: intent.id,
        user_id: userId,
        provider: this.deps.provider.name,
        status: 'open',
        amount_cents: price.totalCents,
        currency: price.currency,
        checkout_ref: null,
        checkout_url: null,
        payment_ref: null,
        failure_code: null,
        created_at: nowIso,
        updated_at: nowIso,
        authorized_at: null,
        captured_at: null,
        voided_at: null,
        destination_account: destination,
        platform_fee_cents: price.platformShareCents,
      };
      if (!(await tryInsertAttempt(trx, attempt))) return { kind: 'busy', intent };
      return { kind: 'begun', attempt, intent, lawyer };
    });
  }

  /** A consultation that costs nothing is confirmed without a payment. */
  private async confirmFree(token: string, userId: string, personZone?: string | null): Promise<PayOutcome> {
    const confirmed = await this.deps.booking.confirm(token, userId, { personZone });
    if (confirmed.outcome === 'expired') return { kind: 'expired' };
    if (confirmed.outcome === 'already_confirmed') return { kind: 'already_confirmed' };
    const consultation = await findConsultationOfIntent(this.deps.database.db, confirmed.intent.id);
    return { kind: 'confirmed', intentId: confirmed.intent.id, ...(consultation ? { consultation } : {}) };
  }

  private async load(token: string): Promise<{ intent: BookingIntentTable; lawyer: PaymentLawyerRow } | null> {
    if (!CONFIRMATION_TOKEN.test(token)) return null;
    const intent = await findIntentByToken(this.deps.database.db, token);
    if (!intent) return null;
    const lawyer = await findLawyerForPayment(this.deps.database.db, intent.lawyer_id);
    return lawyer ? { intent, lawyer } : null;
  }

  private cardProvider(): CardPaymentProvider {
    const provider = this.deps.provider;
    if (provider.flow !== 'card') throw new Error(`payWithCard needs a card provider; ${provider.name} payments start with startHostedCheckout`);
    return provider;
  }

  private hostedProvider(): HostedPaymentProvider {
    const provider = this.deps.provider;
    if (provider.flow !== 'hosted') throw new Error(`the ${provider.name} provider has no hosted checkout`);
    return provider;
  }

  private nowIso(): string {
    return this.deps.clock.now().toISOString();
  }
}

/** quote()'s platform share of an attempt begun before its share was recorded (0032). */
function price(attempt: PaymentAttemptTable, lawyer: PaymentLawyerRow): number {
  return quote({ consultation_fee_cents: attempt.amount_cents, platform_commission_percent: lawyer.platform_commission_percent }).platformShareCents;
}

/** Where an intent stands for paying at `nowMs` (ignoring attempts under way). */
function payability(intent: BookingIntentTable, nowMs: number): Exclude<CheckoutState, 'in_progress'> {
  if (intent.status === 'confirmed') return 'confirmed';
  const leftMs = Date.parse(intent.expires_at) - nowMs;
  if (intent.status !== 'pending' || leftMs <= 0) return 'expired';
  return leftMs < MIN_SECONDS_TO_PAY * 1000 ? 'too_late' : 'payable';
}

function outcomeOf(state: Exclude<CheckoutState, 'in_progress'>): PayOutcome | null {
  switch (state) {
    case 'confirmed':
      return { kind: 'already_confirmed' };
    case 'expired':
      return { kind: 'expired' };
    case 'too_late':
      return { kind: 'too_late' };
    case 'payable':
      return null;
  }
}
