/**
 * The demo provider (the default): a card form on our own origin that moves no money. It accepts
 * Stripe's public test card numbers, so a person trying the site meets the same outcomes they
 * would meet in Stripe's test mode. Authorizations, captures and voids exist only as the
 * attempt row's state; the calls here decide outcomes and nothing else.
 */
import type { Clock } from '../clock.ts';
import type { AuthorizeResult, CardAuthorization, CardPaymentProvider, DeclineCode, RefundRequest, RefundResult } from './provider.ts';

/** Stripe's public test cards and what they do. */
export const DEMO_TEST_CARDS: Readonly<Record<string, 'ok' | DeclineCode>> = {
  '4242424242424242': 'ok',
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
};

/** The Luhn checksum every real card number satisfies. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/**
 * The outcome of a card at `now`: format first (number, expiry, CVC, as a card form checks
 * them), then the expiry date, then what the issuer says about the number.
 */
export function demoCardOutcome(card: { number: string; expiry: string; cvc: string }, now: Date): 'ok' | DeclineCode {
  const number = card.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) return 'invalid_number';
  // MM/YY as printed, or the four digits alone (MMYY): without JavaScript nothing puts the slash in.
  const expiry = /^(\d{1,2})\s*\/\s*(\d{2})$/.exec(card.expiry.trim()) ?? /^(\d{2})(\d{2})$/.exec(card.expiry.trim());
  const month = expiry ? Number(expiry[1]) : 0;
  if (!expiry || month < 1 || month > 12) return 'invalid_expiry';
  if (!/^\d{3,4}$/.test(card.cvc.trim())) return 'invalid_cvc';
  // A card is valid through the last day of its expiry month (UTC, like the rest of our instants).
  const firstInvalidMs = Date.UTC(2000 + Number(expiry[2]), month, 1);
  if (now.getTime() >= firstInvalidMs) return 'expired_card';
  return DEMO_TEST_CARDS[number] ?? 'card_declined';
}

export class DemoPaymentProvider implements CardPaymentProvider {
  readonly name = 'demo';
  readonly flow = 'card';

  constructor(private readonly clock: Clock) {}

  async authorize(request: CardAuthorization): Promise<AuthorizeResult> {
    const outcome = demoCardOutcome(request.card, this.clock.now());
    // Derived from the attempt: authorizing the same attempt again names the same authorization.
    return outcome === 'ok' ? { ok: true, paymentRef: `demo_auth_${request.attemptId}` } : { ok: false, code: outcome };
  }

  async capture(): Promise<void> {}

  async void(): Promise<void> {}

  /**
   * Moves no money either: the refund is the consultation_refunds row (our ledger). Its reference
   * is derived from the idempotency key, so the same refund asked twice names the same refund.
   */
  async refund(request: RefundRequest): Promise<RefundResult> {
    return { ok: true, ref: `demo_refund_${request.idempotencyKey}` };
  }
}
