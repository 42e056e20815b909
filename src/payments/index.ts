/** The payment provider the configuration names. */
import { systemClock, type Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { DemoPaymentProvider } from './demo.provider.ts';
import type { PaymentProvider } from './provider.ts';
import { StripePaymentProvider } from './stripe.provider.ts';

export type { PaymentProvider } from './provider.ts';

/**
 * `demo` (default) or `stripe`. The demo provider reads the clock only to tell expired cards;
 * tests pass their manual clock.
 */
export function createPaymentProvider(
  config: Pick<Config, 'paymentProvider' | 'stripeSecretKey' | 'stripeWebhookSecret' | 'stripeApiBase'>,
  clock: Clock = systemClock,
): PaymentProvider {
  if (config.paymentProvider === 'demo') return new DemoPaymentProvider(clock);
  if (!config.stripeSecretKey || !config.stripeWebhookSecret) {
    throw new Error('PAYMENT_PROVIDER=stripe needs STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET');
  }
  return new StripePaymentProvider({ secretKey: config.stripeSecretKey, webhookSecret: config.stripeWebhookSecret, apiBase: config.stripeApiBase });
}
