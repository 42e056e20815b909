/**
 * Stripe, through the official SDK: hosted Checkout, card only, manual capture, so the booking
 * can be decided between authorization and capture. The authorization arrives as a signed
 * `checkout.session.completed` event whose PaymentIntent is `requires_capture`.
 * This file and the rest of src/payments/ are the only code that talks to Stripe.
 */
import Stripe from 'stripe';
import type {
  CheckoutRequest,
  ConnectedAccountState,
  CheckoutState,
  HostedPaymentProvider,
  PaymentState,
  ProviderEvent,
  RefundRequest,
  RefundResult,
  StartedCheckout,
} from './provider.ts';
import { InvalidSignatureError } from './provider.ts';

/**
 * Stripe refuses a Checkout Session that expires sooner than 30 minutes after creation; a minute
 * more absorbs clock skew between us and Stripe. Our hold is shorter: when it lapses, the sweep
 * expires the session explicitly.
 */
export const CHECKOUT_LIFETIME_SECONDS = 31 * 60;

export interface StripeProviderOptions {
  secretKey: string;
  webhookSecret: string;
  /** `http(s)://host:port` of the API; null for Stripe's own. */
  apiBase: string | null;
  /** Per request; the SDK retries network failures with the same idempotency key. */
  timeoutMs?: number;
}

/** The SDK's host/port/protocol options for an API base URL. */
export function stripeAddress(apiBase: string | null): { host?: string; port?: number; protocol?: 'http' | 'https' } {
  if (!apiBase) return {};
  const url = new URL(apiBase);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  return { host: url.hostname, port: url.port ? Number(url.port) : protocol === 'http' ? 80 : 443, protocol };
}

function isUnexpectedState(err: unknown): boolean {
  return err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'payment_intent_unexpected_state';
}

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : value.id;
}

export class StripePaymentProvider implements HostedPaymentProvider {
  readonly name = 'stripe';
  readonly flow = 'hosted';
  private readonly stripe: Stripe;
  private readonly webhookSecret: string;

  constructor(options: StripeProviderOptions) {
    this.stripe = new Stripe(options.secretKey, {
      ...stripeAddress(options.apiBase),
      maxNetworkRetries: 2,
      timeout: options.timeoutMs ?? 20_000,
      telemetry: false,
      appInfo: { name: 'consulta' },
    });
    this.webhookSecret = options.webhookSecret;
  }

  async startCheckout(request: CheckoutRequest): Promise<StartedCheckout> {
    const metadata = { payment_attempt_id: request.attemptId, booking_intent_id: request.intentId };
    const session = await this.stripe.checkout.sessions.create(
      {
        mode: 'payment',
        allowed_payment_method_types: ['card'],
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: request.currency.toLowerCase(),
              unit_amount: request.amountCents,
              product_data: { name: request.description },
            },
          },
        ],
        payment_intent_data: {
          capture_method: 'manual',
          metadata,
          // A destination charge: the lawyer's account receives the payment less the platform's share.
          ...(request.destination
            ? { transfer_data: { destination: request.destination.account }, application_fee_amount: request.destination.applicationFeeCents }
            : {}),
        },
        metadata,
        client_reference_id: request.attemptId,
        customer_email: request.customerEmail,
        success_url: request.successUrl,
        cancel_url: request.cancelUrl,
        expires_at: Math.floor(request.now.getTime() / 1000) + CHECKOUT_LIFETIME_SECONDS,
      },
      { idempotencyKey: request.idempotencyKey },
    );
    if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
    return { checkoutRef: session.id, url: session.url };
  }

  async expireCheckout(checkoutRef: string, idempotencyKey: string): Promise<CheckoutState> {
    try {
      await this.stripe.checkout.sessions.expire(checkoutRef, {}, { idempotencyKey });
      return { status: 'expired' };
    } catch (err) {
      // Only open sessions can be expired: one the person completed (or that expired by itself) says why.
      if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw err;
      const session = await this.stripe.checkout.sessions.retrieve(checkoutRef);
      if (session.status === 'complete') return { status: 'complete', paymentRef: idOf(session.payment_intent) };
      if (session.status === 'expired') return { status: 'expired' };
      throw err;
    }
  }

  async paymentState(paymentRef: string): Promise<PaymentState> {
    const intent = await this.stripe.paymentIntents.retrieve(paymentRef);
    switch (intent.status) {
      case 'requires_capture':
        return 'authorized';
      case 'succeeded':
        return 'captured';
      case 'canceled':
        return 'canceled';
      default:
        return 'pending';
    }
  }

  async capture(paymentRef: string, idempotencyKey: string): Promise<void> {
    try {
      await this.stripe.paymentIntents.capture(paymentRef, {}, { idempotencyKey });
    } catch (err) {
      if (isUnexpectedState(err) && (await this.paymentState(paymentRef)) === 'captured') return;
      throw err;
    }
  }

  async void(paymentRef: string, idempotencyKey: string): Promise<void> {
    try {
      await this.stripe.paymentIntents.cancel(paymentRef, { cancellation_reason: 'abandoned' }, { idempotencyKey });
    } catch (err) {
      if (isUnexpectedState(err) && (await this.paymentState(paymentRef)) === 'canceled') return;
      throw err;
    }
  }

  /**
   * A full refund of a captured PaymentIntent, keyed by our refund row's id (a retry — the sweep
   * after a crash — is the same refund at Stripe). Stripe's refusals (already refunded, disputed…)
   * come back as a code; network failures and Stripe's 5xx throw, to be retried with the same key.
   */
  async refund(request: RefundRequest): Promise<RefundResult> {
    try {
      const refund = await this.stripe.refunds.create(
        {
          payment_intent: request.paymentRef,
          amount: request.amountCents,
          reason: 'requested_by_customer',
          metadata: { consultation_id: request.consultationId, consulta_refund_id: request.idempotencyKey },
          ...(request.reverseTransfer ? { reverse_transfer: true, refund_application_fee: true } : {}),
        },
        { idempotencyKey: request.idempotencyKey },
      );
      if (refund.status === 'failed' || refund.status === 'canceled') return { ok: false, code: refund.failure_reason ?? `refund_${refund.status}` };
      return { ok: true, ref: refund.id };
    } catch (err) {
      if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError) return { ok: false, code: err.code ?? 'refund_refused' };
      throw err;
    }
  }

  parseEvent(rawBody: Buffer | string, signature: string | undefined, receivedAtMs: number): ProviderEvent {
    let event: Stripe.Event;
    try {
      // The exact bytes received: a re-serialised body would not match the signature.
      event = this.stripe.webhooks.constructEvent(rawBody, signature ?? '', this.webhookSecret, undefined, undefined, receivedAtMs);
    } catch (err) {
      throw new InvalidSignatureError(err instanceof Error ? err.message : String(err));
    }
    if (event.type === 'checkout.session.completed' || event.type === 'checkout.session.expired') {
      const session = event.data.object;
      const attemptId = session.metadata?.payment_attempt_id ?? session.client_reference_id ?? null;
      return event.type === 'checkout.session.completed'
        ? { id: event.id, type: event.type, kind: 'checkout_completed', checkoutRef: session.id, attemptId, paymentRef: idOf(session.payment_intent) }
        : { id: event.id, type: event.type, kind: 'checkout_expired', checkoutRef: session.id, attemptId };
    }
    if (event.type === 'account.updated') return { id: event.id, type: event.type, kind: 'account_updated', account: accountState(event.data.object) };
    return { id: event.id, type: event.type, kind: 'other' };
  }

  async createConnectedAccount(request: { lawyerId: string; email: string | null; idempotencyKey: string }): Promise<ConnectedAccountState> {
    const account = await this.stripe.accounts.create(
      {
        type: 'express',
        country: 'ES',
        ...(request.email ? { email: request.email } : {}),
        capabilities: { card_payments: { requested: true }, transfers: { requested: true } },
        metadata: { lawyer_id: request.lawyerId },
      },
      { idempotencyKey: request.idempotencyKey },
    );
    return accountState(account);
  }

  async onboardingLink(accountId: string, urls: { refreshUrl: string; returnUrl: string }): Promise<string> {
    const link = await this.stripe.accountLinks.create({ account: accountId, type: 'account_onboarding', refresh_url: urls.refreshUrl, return_url: urls.returnUrl });
    return link.url;
  }

  async retrieveConnectedAccount(accountId: string): Promise<ConnectedAccountState> {
    return accountState(await this.stripe.accounts.retrieve(accountId));
  }
}

function accountState(account: Stripe.Account): ConnectedAccountState {
  return { accountId: account.id, chargesEnabled: account.charges_enabled === true, payoutsEnabled: account.payouts_enabled === true, detailsSubmitted: account.details_submitted === true };
}
