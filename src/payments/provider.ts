/**
 * What the payment domain needs from a payment provider. Two flows, told apart by `flow`:
 *
 * - `card` (the demo provider): the person types a card on our own origin and the provider
 *   authorizes it synchronously.
 * - `hosted` (Stripe): we start a hosted checkout and send the person there; the authorization
 *   arrives later, asynchronously, as a signed provider event.
 *
 * Either way the money moves in two steps, authorize then capture (or void), so the booking can
 * be decided by the database in between. Every call that changes something at the provider
 * carries an idempotency key: the same key never moves money twice.
 */

/** Why a card payment was refused. */
export type DeclineCode = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'invalid_number' | 'invalid_expiry' | 'invalid_cvc';

export interface CardDetails {
  number: string;
  /** `MM/YY`. */
  expiry: string;
  cvc: string;
  name?: string;
}

export interface CardAuthorization {
  attemptId: string;
  amountCents: number;
  currency: 'EUR';
  card: CardDetails;
  idempotencyKey: string;
}

export type AuthorizeResult = { ok: true; paymentRef: string } | { ok: false; code: DeclineCode };

export interface CheckoutRequest {
  attemptId: string;
  intentId: string;
  amountCents: number;
  currency: 'EUR';
  /** What the person sees on the checkout page (one line item). */
  description: string;
  customerEmail: string;
  successUrl: string;
  cancelUrl: string;
  /** Our notion of now: the checkout's own expiry is computed from it. */
  now: Date;
  idempotencyKey: string;
  /**
   * A destination charge (Stripe Connect): the money goes to the lawyer's connected account and
   * the platform keeps `applicationFeeCents` (quote()'s platform share). Absent: a platform charge.
   */
  destination?: { account: string; applicationFeeCents: number } | null;
}

/** A lawyer's connected (Stripe Connect Express) account, as the provider reports it. */
export interface ConnectedAccountState {
  accountId: string;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
}

export interface StartedCheckout {
  checkoutRef: string;
  url: string;
}

/** Where a hosted checkout stands. A completed one carries its authorization. */
export type CheckoutState = { status: 'open' } | { status: 'expired' } | { status: 'complete'; paymentRef: string | null };

/** Where an authorization stands at the provider. */
export type PaymentState = 'authorized' | 'captured' | 'canceled' | 'pending';

/** A verified provider event, reduced to what the domain acts on. */
export type ProviderEvent =
  | { id: string; type: string; kind: 'checkout_completed'; checkoutRef: string; attemptId: string | null; paymentRef: string | null }
  | { id: string; type: string; kind: 'checkout_expired'; checkoutRef: string; attemptId: string | null }
  | { id: string; type: string; kind: 'account_updated'; account: ConnectedAccountState }
  | { id: string; type: string; kind: 'other' };

/** Thrown by `parseEvent` when the signature is missing, wrong or too old. */
export class InvalidSignatureError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidSignatureError';
  }
}

/** A full refund of a captured payment. */
export interface RefundRequest {
  /** The captured payment (Stripe PaymentIntent id, or the demo's authorization id). */
  paymentRef: string;
  amountCents: number;
  /** The refund row's id: the same refund asked twice is one refund at the provider. */
  idempotencyKey: string;
  /**
   * Destination charges (Stripe Connect): also take the transfer back from the lawyer's account
   * and give back the platform's fee (`reverse_transfer`, `refund_application_fee`). False while
   * payments are not destination charges.
   */
  reverseTransfer: boolean;
  /** Our own reference, recorded at the provider (metadata). */
  consultationId: string;
}

/** A refund the provider accepted (`ref` its id), or refused for good (`code` why). Network failures throw: retry later with the same key. */
export type RefundResult = { ok: true; ref: string } | { ok: false; code: string };

interface Settlement {
  /** Takes the authorized amount. Capturing an already captured authorization succeeds. */
  capture(paymentRef: string, idempotencyKey: string): Promise<void>;
  /** Releases an authorization without charging. Voiding an already voided one succeeds. */
  void(paymentRef: string, idempotencyKey: string): Promise<void>;
  /** Gives a captured payment back in full. Asking again with the same key returns the same refund. */
  refund(request: RefundRequest): Promise<RefundResult>;
}

/** Authorizes a card typed on our own origin, synchronously. */
export interface CardPaymentProvider extends Settlement {
  readonly name: 'demo';
  readonly flow: 'card';
  authorize(request: CardAuthorization): Promise<AuthorizeResult>;
}

/** Starts a hosted checkout; the authorization arrives later as a signed event. */
export interface HostedPaymentProvider extends Settlement {
  readonly name: 'stripe';
  readonly flow: 'hosted';
  startCheckout(request: CheckoutRequest): Promise<StartedCheckout>;
  /** Closes an open checkout; when the person completed it first, says so instead. */
  expireCheckout(checkoutRef: string, idempotencyKey: string): Promise<CheckoutState>;
  paymentState(paymentRef: string): Promise<PaymentState>;
  /** Verifies the signature of a raw event body (throws `InvalidSignatureError`) and reads it. */
  parseEvent(rawBody: Buffer | string, signature: string | undefined, receivedAtMs: number): ProviderEvent;
  /** Creates a lawyer's Express account (country ES); the same key returns the same account. */
  createConnectedAccount(request: { lawyerId: string; email: string | null; idempotencyKey: string }): Promise<ConnectedAccountState>;
  /** A one-time onboarding link for the account; Stripe sends her back to `returnUrl` (or `refreshUrl` once the link expired). */
  onboardingLink(accountId: string, urls: { refreshUrl: string; returnUrl: string }): Promise<string>;
  retrieveConnectedAccount(accountId: string): Promise<ConnectedAccountState>;
}

export type PaymentProvider = CardPaymentProvider | HostedPaymentProvider;

/** The idempotency key of one provider operation of one attempt: a retry reuses it, nothing else does. */
export function idempotencyKey(attemptId: string, operation: 'authorize' | 'checkout' | 'capture' | 'void' | 'expire'): string {
  return `consulta-${attemptId}-${operation}`;
}
