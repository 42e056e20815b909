/** Helpers for the payment suites: holds to pay for, provider wrappers that script failures, row reads. */
import assert from 'node:assert/strict';
import type { Clock, ManualClock } from '../../src/clock.ts';
import type { Database } from '../../src/db/database.ts';
import type { PaymentAttemptTable } from '../../src/db/schema.ts';
import { PaymentsService, type PaymentsServiceDeps } from '../../src/domain/payments/payments.service.ts';
import { DemoPaymentProvider } from '../../src/payments/demo.provider.ts';
import type { AuthorizeResult, CardAuthorization, CardPaymentProvider, RefundRequest, RefundResult } from '../../src/payments/provider.ts';
import { createTestContext, TEST_NOW, type TestContext } from '../support/app.ts';
import { initiate, slotBody, tokenOf } from '../support/booking.ts';
import type { DatabaseTarget } from '../support/databases.ts';
import { StripeStandIn } from '../support/stripe-stand-in.ts';

export const GOOD_CARD = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' };
export const DECLINED_CARD = { ...GOOD_CARD, number: '4000 0000 0000 0002' };

export interface Hold {
  id: string;
  token: string;
  expiresAtMs: number;
}

let address = 0;

/** An anonymous hold of the slot at `hour` (HH) on `date`, from a fresh client address. */
export async function hold(ctx: TestContext, lawyerId: string, date: string, hour: string): Promise<Hold> {
  const n = ++address;
  const res = await initiate(ctx, slotBody(lawyerId, date, hour), { remoteAddress: `198.51.${(n >> 8) & 255}.${n & 255}` });
  assert.equal(res.statusCode, 201, res.body);
  const body = res.json() as { booking_intent_id: string; confirmation_url: string; expires_at: string };
  return { id: body.booking_intent_id, token: tokenOf(body.confirmation_url), expiresAtMs: Date.parse(body.expires_at) };
}

export function attemptsOf(database: Database, intentId: string): Promise<PaymentAttemptTable[]> {
  return database.db.selectFrom('payment_attempts').selectAll().where('booking_intent_id', '=', intentId).orderBy('created_at').orderBy('id').execute();
}

export async function consultationsOf(database: Database, intentId: string): Promise<number> {
  return (await database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', intentId).execute()).length;
}

export async function intentStatus(database: Database, intentId: string): Promise<{ status: string; confirmed_at: string | null; expires_at: string }> {
  return database.db.selectFrom('booking_intents').select(['status', 'confirmed_at', 'expires_at']).where('id', '=', intentId).executeTakeFirstOrThrow();
}

export interface ProviderCall {
  op: 'authorize' | 'capture' | 'void' | 'refund';
  ref: string;
  key: string;
}

/**
 * The demo provider with a script: records every call, runs `onAuthorize` after authorizing
 * (to move the clock, or to let a sweeper in), and fails the next `failCaptures` captures.
 */
export class ScriptedCardProvider implements CardPaymentProvider {
  readonly name = 'demo';
  readonly flow = 'card';
  readonly calls: ProviderCall[] = [];
  onAuthorize: (() => void | Promise<void>) | null = null;
  failCaptures = 0;
  private readonly inner: DemoPaymentProvider;

  constructor(clock: Clock) {
    this.inner = new DemoPaymentProvider(clock);
  }

  async authorize(request: CardAuthorization): Promise<AuthorizeResult> {
    const result = await this.inner.authorize(request);
    this.calls.push({ op: 'authorize', ref: result.ok ? result.paymentRef : '', key: request.idempotencyKey });
    await this.onAuthorize?.();
    return result;
  }

  async capture(ref: string, key: string): Promise<void> {
    this.calls.push({ op: 'capture', ref, key });
    if (this.failCaptures > 0) {
      this.failCaptures--;
      throw new Error('capture: connection reset');
    }
  }

  async void(ref: string, key: string): Promise<void> {
    this.calls.push({ op: 'void', ref, key });
  }

  async refund(request: RefundRequest): Promise<RefundResult> {
    this.calls.push({ op: 'refund', ref: request.paymentRef, key: request.idempotencyKey });
    return this.inner.refund(request);
  }

  /** Distinct operations (a retried call with the same idempotency key is one operation). */
  done(op: 'capture' | 'void' | 'refund'): number {
    return new Set(this.calls.filter((c) => c.op === op).map((c) => c.key)).size;
  }
}

/** A PaymentsService over the test app's database and booking service, with `overrides`. */
export function paymentsService(ctx: TestContext, overrides: Partial<PaymentsServiceDeps> = {}): PaymentsService {
  return new PaymentsService({
    database: ctx.database,
    clock: ctx.clock,
    config: ctx.config,
    booking: ctx.app.services.booking,
    provider: new DemoPaymentProvider(ctx.clock),
    ...overrides,
  });
}

export const STRIPE_SECRET_KEY = 'sk_test_standin_4eC39HqLyjWDarjtT1zdp7dc';
export const STRIPE_WEBHOOK_SECRET = 'whsec_standin_c2lnbmluZy1zZWNyZXQtZm9yLXRlc3Rz';

/** A Stripe-configured test app whose SDK talks to a stand-in sharing the app's clock. */
export async function stripeContext(target: DatabaseTarget): Promise<{ ctx: TestContext; standIn: StripeStandIn }> {
  // The app (and its clock) needs the stand-in's address first: the stand-in reads the clock late.
  const shared: { clock?: ManualClock } = {};
  const standIn = await StripeStandIn.start({
    secretKey: STRIPE_SECRET_KEY,
    webhookSecret: STRIPE_WEBHOOK_SECRET,
    now: () => (shared.clock ? shared.clock.now().getTime() : Date.parse(TEST_NOW)),
  });
  const ctx = await createTestContext(target, {
    config: { paymentProvider: 'stripe', stripeSecretKey: STRIPE_SECRET_KEY, stripeWebhookSecret: STRIPE_WEBHOOK_SECRET, stripeApiBase: standIn.url },
  });
  shared.clock = ctx.clock;
  return { ctx, standIn };
}
