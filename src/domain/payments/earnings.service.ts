/**
 * A lawyer's earnings (docs/lawyers.md#earnings-and-payouts): per month, her consultations, what
 * people paid, the platform's share and what is hers, less refunds. Every figure is computed from
 * the ledger the payment flow keeps (payment_attempts, consultation_refunds), whichever provider
 * took the money, with quote()'s arithmetic, so the page, the CSV and Stripe agree to the cent.
 *
 * - A consultation belongs to the month it takes place (her date). Its refund is subtracted in
 *   that same month, whenever it happened: a month's figures can go down after the fact.
 * - What was paid is the captured attempt's amount (what the person was charged), not today's fee.
 * - The platform's share is the one fixed when the payment began (platform_fee_cents, quote());
 *   for payments made before it was recorded, quote() of the amount paid at her commission.
 * - A refund gives back the platform's share in proportion (Stripe's `refund_application_fee`):
 *   share kept = round_half_up(share × (paid − refunded) / paid). Refunds are full, so a refunded
 *   consultation earns nothing for anyone.
 * - Only succeeded refunds count; a pending or failed one changes nothing yet.
 *
 * Whose earnings: always a lawyer id the caller resolved from the signed-in account (or a firm's
 * accepted lawyers, FirmLawyersService), never an id from a request.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { listEarningSources, type EarningSourceRow, type EarningsLawyerRow } from '../../db/repositories/earnings.repository.ts';
import { quote } from '../booking/quote.ts';

export interface EarningLine {
  consultationId: string;
  lawyerId: string;
  /** `YYYY-MM-DD`, her date. */
  date: string;
  /** `HH:MM`. */
  time: string;
  /** The consultation's own status (confirmed, cancelled_by_person, …). */
  status: string;
  paidCents: number;
  refundedCents: number;
  platformShareCents: number;
  netCents: number;
  /** Whether the payment went to her connected account (a destination charge). */
  toConnectedAccount: boolean;
}

export interface MonthTotals {
  /** `YYYY-MM`. */
  month: string;
  consultations: number;
  paidCents: number;
  refundedCents: number;
  platformShareCents: number;
  netCents: number;
}

export interface Earnings {
  months: MonthTotals[];
  total: Omit<MonthTotals, 'month'>;
}

const MONTH = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** Whether `value` is a `YYYY-MM` month. */
export const isMonth = (value: string): boolean => MONTH.test(value);

/** round_half_up(a / b) for non-negative integers, without floating point. */
function divideHalfUp(a: number, b: number): number {
  return Math.floor((2 * a + b) / (2 * b));
}

/** One consultation's line from its ledger rows. */
export function earningLine(row: EarningSourceRow, lawyer: Pick<EarningsLawyerRow, 'platform_commission_percent'>): EarningLine {
  const paid = row.paid_cents ?? 0;
  const refunded = Math.min(paid, row.refunded_cents ?? 0);
  const share = paid === 0 ? 0 : (row.platform_fee_cents ?? quote({ consultation_fee_cents: paid, platform_commission_percent: lawyer.platform_commission_percent }).platformShareCents);
  const kept = paid === 0 ? 0 : divideHalfUp(share * (paid - refunded), paid);
  return {
    consultationId: row.consultation_id,
    lawyerId: row.lawyer_id,
    date: row.slot_date,
    time: row.start_time.slice(0, 5),
    status: row.status,
    paidCents: paid,
    refundedCents: refunded,
    platformShareCents: kept,
    netCents: paid - refunded - kept,
    toConnectedAccount: row.destination_account !== null,
  };
}

/** Month totals, newest month first. */
export function monthTotals(lines: readonly EarningLine[]): Earnings {
  const byMonth = new Map<string, MonthTotals>();
  const total = { consultations: 0, paidCents: 0, refundedCents: 0, platformShareCents: 0, netCents: 0 };
  for (const line of lines) {
    const month = line.date.slice(0, 7);
    let m = byMonth.get(month);
    if (!m) byMonth.set(month, (m = { month, consultations: 0, paidCents: 0, refundedCents: 0, platformShareCents: 0, netCents: 0 }));
    for (const t of [m, total]) {
      t.consultations += 1;
      t.paidCents += line.paidCents;
      t.refundedCents += line.refundedCents;
      t.platformShareCents += line.platformShareCents;
      t.netCents += line.netCents;
    }
  }
  return { months: [...byMonth.values()].sort((a, b) => (a.month < b.month ? 1 : -1)), total };
}

/** The last day of a `YYYY-MM` month. */
function lastDay(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return `${month}-${String(new Date(Date.UTC(y, m, 0)).getUTCDate()).padStart(2, '0')}`;
}

export class EarningsService {
  constructor(private readonly deps: { database: Database; clock: Clock }) {}

  /** Every consultation line of these lawyers (of one month when given), oldest first. */
  async lines(lawyers: ReadonlyArray<Pick<EarningsLawyerRow, 'id' | 'platform_commission_percent'>>, month?: string): Promise<EarningLine[]> {
    if (month !== undefined && !isMonth(month)) return [];
    const commission = new Map(lawyers.map((l) => [l.id, l]));
    const rows = await listEarningSources(this.deps.database.db, [...commission.keys()], month ? { fromDate: `${month}-01`, toDate: lastDay(month) } : {});
    return rows.map((row) => earningLine(row, commission.get(row.lawyer_id)!));
  }

  /** Month by month, newest first, with the grand total. */
  async summary(lawyers: ReadonlyArray<Pick<EarningsLawyerRow, 'id' | 'platform_commission_percent'>>): Promise<Earnings> {
    return monthTotals(await this.lines(lawyers));
  }
}

/** Headings of the CSV, in the reader's language. */
export interface CsvHeadings {
  month: string;
  date: string;
  time: string;
  consultation: string;
  status: string;
  paid: string;
  refunded: string;
  platformShare: string;
  net: string;
  account: string;
}

/**
 * A spreadsheet cell that cannot run: text starting with `=`, `+`, `-`, `@`, a tab or a carriage
 * return is read as a formula by spreadsheet programs (CSV injection, OWASP), so it is prefixed
 * with `'`; then RFC 4180 quoting.
 */
export function csvCell(value: string | number): string {
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n;]/.test(text) || text !== text.trim() ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Cents as `74.50`: a dot decimal, no symbol, readable by any spreadsheet's import. */
export const csvAmount = (cents: number): string => `${Math.trunc(cents / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** Lines as CSV (RFC 4180, CRLF, with a BOM so spreadsheet programs read UTF-8). */
export function earningsCsv(lines: readonly EarningLine[], headings: CsvHeadings, statusName: (status: string) => string, accountName: (connected: boolean) => string): string {
  const rows: Array<Array<string | number>> = [
    [headings.month, headings.date, headings.time, headings.consultation, headings.status, headings.paid, headings.refunded, headings.platformShare, headings.net, headings.account],
    ...lines.map((l) => [
      l.date.slice(0, 7),
      l.date,
      l.time,
      l.consultationId,
      statusName(l.status),
      csvAmount(l.paidCents),
      csvAmount(l.refundedCents),
      csvAmount(l.platformShareCents),
      csvAmount(l.netCents),
      accountName(l.toConnectedAccount),
    ]),
  ];
  return `\uFEFF${rows.map((r) => r.map(csvCell).join(',')).join('\r\n')}\r\n`;
}
