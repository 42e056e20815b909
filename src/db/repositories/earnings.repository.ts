/**
 * The queries behind a lawyer's earnings and payouts (src/domain/payments/earnings.service.ts,
 * payouts.service.ts): her consultations with what was captured and refunded for each, and her
 * connected payout account.
 */
import type { LawyerPayoutAccountTable, LawyerTable } from '../schema.ts';
import type { Executor } from './types.ts';

/**
 * What the payment provider last said of a connected account, as stored (payments/provider.ts's
 * ConnectedAccountState has this shape; db does not import the providers, DESIGN.md §2).
 */
export interface PayoutAccountState {
  accountId: string;
  chargesEnabled: boolean;
  payoutsEnabled: boolean;
  detailsSubmitted: boolean;
}

export type EarningsLawyerRow = Pick<LawyerTable, 'id' | 'name' | 'timezone' | 'consultation_fee_cents' | 'platform_commission_percent' | 'contact_email'>;

/** The lawyer record linked to an account (lawyers.user_id is unique), if any. */
export function findLawyerOfUser(db: Executor, userId: string): Promise<EarningsLawyerRow | undefined> {
  return db
    .selectFrom('lawyers')
    .select(['id', 'name', 'timezone', 'consultation_fee_cents', 'platform_commission_percent', 'contact_email'])
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export function findLawyersById(db: Executor, ids: readonly string[]): Promise<EarningsLawyerRow[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('lawyers')
    .select(['id', 'name', 'timezone', 'consultation_fee_cents', 'platform_commission_percent', 'contact_email'])
    .where('id', 'in', ids)
    .execute();
}

/** One consultation with its captured payment (if any) and its succeeded refund (if any). */
export interface EarningSourceRow {
  consultation_id: string;
  lawyer_id: string;
  slot_date: string;
  start_time: string;
  status: string;
  paid_cents: number | null;
  platform_fee_cents: number | null;
  destination_account: string | null;
  refunded_cents: number | null;
}

/**
 * The lawyers' consultations between `fromDate` and `toDate` (inclusive, `YYYY-MM-DD`, her
 * dates), oldest first, each with the captured attempt of its booking (at most one per intent)
 * and its succeeded refund (at most one per consultation).
 */
export async function listEarningSources(db: Executor, lawyerIds: readonly string[], range: { fromDate?: string; toDate?: string } = {}): Promise<EarningSourceRow[]> {
  if (lawyerIds.length === 0) return [];
  let query = db
    .selectFrom('consultations as c')
    .leftJoin('payment_attempts as p', (j) => j.onRef('p.booking_intent_id', '=', 'c.booking_intent_id').on('p.status', '=', 'captured'))
    .leftJoin('consultation_refunds as r', (j) => j.onRef('r.consultation_id', '=', 'c.id').on('r.status', '=', 'succeeded'))
    .select([
      'c.id as consultation_id',
      'c.lawyer_id',
      'c.slot_date',
      'c.start_time',
      'c.status',
      'p.amount_cents as paid_cents',
      'p.platform_fee_cents',
      'p.destination_account',
      'r.amount_cents as refunded_cents',
    ])
    .where('c.lawyer_id', 'in', lawyerIds);
  if (range.fromDate) query = query.where('c.slot_date', '>=', range.fromDate);
  if (range.toDate) query = query.where('c.slot_date', '<=', range.toDate);
  const rows = await query.orderBy('c.slot_date').orderBy('c.start_time').orderBy('c.id').execute();
  return rows.map((r) => ({
    ...r,
    status: String(r.status),
    paid_cents: r.paid_cents === null ? null : Number(r.paid_cents),
    platform_fee_cents: r.platform_fee_cents === null || r.platform_fee_cents === undefined ? null : Number(r.platform_fee_cents),
    destination_account: r.destination_account ?? null,
    refunded_cents: r.refunded_cents === null ? null : Number(r.refunded_cents),
  }));
}

export function findPayoutAccount(db: Executor, lawyerId: string): Promise<LawyerPayoutAccountTable | undefined> {
  return db.selectFrom('lawyer_payout_accounts').selectAll().where('lawyer_id', '=', lawyerId).executeTakeFirst();
}

/** Records her account once; a second connect (a race) keeps the first. True when inserted. */
export async function tryInsertPayoutAccount(db: Executor, lawyerId: string, provider: string, state: PayoutAccountState, nowIso: string): Promise<boolean> {
  const result = await db
    .insertInto('lawyer_payout_accounts')
    .values({
      lawyer_id: lawyerId,
      provider,
      account_id: state.accountId,
      charges_enabled: state.chargesEnabled ? 1 : 0,
      payouts_enabled: state.payoutsEnabled ? 1 : 0,
      details_submitted: state.detailsSubmitted ? 1 : 0,
      created_at: nowIso,
      updated_at: nowIso,
    })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0n) === 1;
}

/** Stores what the provider says of an account we know; false when it is not one of ours. */
export async function updatePayoutAccountState(db: Executor, state: PayoutAccountState, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('lawyer_payout_accounts')
    .set({
      charges_enabled: state.chargesEnabled ? 1 : 0,
      payouts_enabled: state.payoutsEnabled ? 1 : 0,
      details_submitted: state.detailsSubmitted ? 1 : 0,
      updated_at: nowIso,
    })
    .where('account_id', '=', state.accountId)
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0n) > 0;
}

/** Her connected account when it can take charges now, else null (the platform charges). */
export async function findChargeableAccount(db: Executor, lawyerId: string, provider: string): Promise<string | null> {
  const row = await db
    .selectFrom('lawyer_payout_accounts')
    .select('account_id')
    .where('lawyer_id', '=', lawyerId)
    .where('provider', '=', provider)
    .where('charges_enabled', '=', 1)
    .executeTakeFirst();
  return row?.account_id ?? null;
}
