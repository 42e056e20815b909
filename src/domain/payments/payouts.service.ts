/**
 * A lawyer's payouts through Stripe Connect Express (docs/payments.md#connect). She connects from
 * her earnings page: we create her Express account (country ES) once, then send her to Stripe's
 * onboarding by a one-time account link; Stripe brings her back and we read the account again.
 * The `account.updated` event keeps charges_enabled / payouts_enabled / details_submitted current
 * in between (PaymentsService.handleStripeWebhook). While her account can take charges, her
 * consultations are destination charges to it (PaymentsService.begin).
 *
 * With the demo provider there is nothing to connect: `status` says `demo` and `connect` refuses.
 * Always called with the lawyer the signed-in account is (lawyers.user_id), never an id from a request.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findPayoutAccount, tryInsertPayoutAccount, updatePayoutAccountState } from '../../db/repositories/earnings.repository.ts';
import type { HostedPaymentProvider, PaymentProvider } from '../../payments/provider.ts';
import { DomainError } from '../errors.ts';

export type PayoutStatus =
  /** The demo provider: no money moves, nothing to connect. */
  | { kind: 'demo' }
  | { kind: 'not_connected' }
  | { kind: 'connected'; accountId: string; chargesEnabled: boolean; payoutsEnabled: boolean; detailsSubmitted: boolean; updatedAt: string };

/** The idempotency key of creating her account: a retry (or a double tap) names the same account. */
export const connectKey = (lawyerId: string): string => `consulta-connect-${lawyerId}`;

export class PayoutsService {
  constructor(private readonly deps: { database: Database; clock: Clock; provider: PaymentProvider }) {}

  async status(lawyerId: string): Promise<PayoutStatus> {
    if (this.deps.provider.flow !== 'hosted') return { kind: 'demo' };
    const row = await findPayoutAccount(this.deps.database.db, lawyerId);
    if (!row) return { kind: 'not_connected' };
    return { kind: 'connected', accountId: row.account_id, chargesEnabled: row.charges_enabled === 1, payoutsEnabled: row.payouts_enabled === 1, detailsSubmitted: row.details_submitted === 1, updatedAt: row.updated_at };
  }

  /**
   * Where to send her to set up (or finish setting up) her account: a fresh onboarding link.
   * Creates her Express account the first time.
   */
  async onboardingUrl(lawyer: { id: string; email: string | null }, urls: { refreshUrl: string; returnUrl: string }): Promise<string> {
    const provider = this.hosted();
    const db = this.deps.database.db;
    let row = await findPayoutAccount(db, lawyer.id);
    if (!row) {
      const state = await this.unavailable(() => provider.createConnectedAccount({ lawyerId: lawyer.id, email: lawyer.email, idempotencyKey: connectKey(lawyer.id) }));
      await tryInsertPayoutAccount(db, lawyer.id, provider.name, state, this.deps.clock.now().toISOString());
      row = await findPayoutAccount(db, lawyer.id);
      if (!row) throw new Error(`payout account of ${lawyer.id} vanished`);
    }
    const accountId = row.account_id;
    return this.unavailable(() => provider.onboardingLink(accountId, urls));
  }

  /** Back from Stripe's onboarding: read her account again and store what it can do. */
  async refresh(lawyerId: string): Promise<PayoutStatus> {
    if (this.deps.provider.flow !== 'hosted') return { kind: 'demo' };
    const provider = this.deps.provider;
    const row = await findPayoutAccount(this.deps.database.db, lawyerId);
    if (row) {
      const state = await this.unavailable(() => provider.retrieveConnectedAccount(row.account_id));
      await updatePayoutAccountState(this.deps.database.db, state, this.deps.clock.now().toISOString());
    }
    return this.status(lawyerId);
  }

  private hosted(): HostedPaymentProvider {
    const provider = this.deps.provider;
    if (provider.flow !== 'hosted') throw new DomainError('conflict', 'Payouts are simulated with the demo payment provider: there is no account to connect.');
    return provider;
  }

  private async unavailable<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch {
      throw new DomainError('service_unavailable', 'Stripe could not be reached. Try again in a moment.', undefined, { 'retry-after': '5' });
    }
  }
}
