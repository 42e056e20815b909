/**
 * The one price computation every surface shows (site, emails, API, MCP). The person pays exactly
 * the lawyer's `consultation_fee_cents`: the advertised price is the total (EU price rules).
 * `platform_commission_percent` is the platform's share of that fee, kept from the lawyer's
 * payout, never added on top.
 */
export interface Quote {
  /** What the person pays, in EUR cents: the consultation fee. */
  totalCents: number;
  currency: 'EUR';
  commissionPercent: number;
  /** The platform's share of the total, rounded to the nearest cent (half up). */
  platformShareCents: number;
  /** What the lawyer receives: the total less the platform's share. */
  lawyerPayoutCents: number;
}

export function quote(lawyer: { consultation_fee_cents: number; platform_commission_percent: number }): Quote {
  const total = lawyer.consultation_fee_cents;
  const percent = lawyer.platform_commission_percent;
  if (!Number.isInteger(total) || total < 0) throw new RangeError(`consultation fee must be whole cents, got ${total}`);
  if (!Number.isInteger(percent) || percent < 0 || percent > 100) throw new RangeError(`commission must be 0–100 %, got ${percent}`);
  // Integer arithmetic: (total * percent) / 100, rounded half up, without floating-point error.
  const platformShareCents = Math.floor((total * percent + 50) / 100);
  return { totalCents: total, currency: 'EUR', commissionPercent: percent, platformShareCents, lawyerPayoutCents: total - platformShareCents };
}
