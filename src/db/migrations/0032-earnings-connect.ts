// Frozen migration: never import application code here.
// A lawyer's earnings and payouts (issue 18 items 7 and 8; docs/payments.md#connect):
// - `lawyer_payout_accounts`: her Stripe Connect Express account and what Stripe last said of it
//   (refreshed when she comes back from onboarding and by the `account.updated` event).
// - on `payment_attempts`, which connected account a destination charge went to (null: a
//   platform charge) and the platform's share fixed when the attempt began, so that the ledger
//   and a later refund (`reverse_transfer`, `refund_application_fee`) never depend on today's fee.
// - `firm_lawyers`: a firm's invitation to a lawyer and her answer. Nothing is shared with the firm
//   until she accepts (status `accepted`); she or the firm may end it at any time.
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('lawyer_payout_accounts')
    .addColumn('lawyer_id', 'text', (c) => c.primaryKey().references('lawyers.id').onDelete('cascade'))
    .addColumn('provider', 'text', (c) => c.notNull())
    // Stripe's `acct_…`; unique: one account is never two lawyers'.
    .addColumn('account_id', 'text', (c) => c.notNull().unique())
    .addColumn('charges_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('payouts_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('details_submitted', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema.alterTable('payment_attempts').addColumn('destination_account', 'text').execute();
  await db.schema.alterTable('payment_attempts').addColumn('platform_fee_cents', 'integer').execute();

  await db.schema
    .createTable('firm_lawyers')
    .addColumn('firm_id', 'text', (c) => c.notNull().references('firms.id').onDelete('cascade'))
    .addColumn('lawyer_id', 'text', (c) => c.notNull().references('lawyers.id').onDelete('cascade'))
    // invited → accepted | declined; accepted or invited → ended (she left, or the firm withdrew).
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('invited', 'accepted', 'declined', 'ended')`))
    .addColumn('invited_by_user_id', 'text')
    .addColumn('invited_at', 'text', (c) => c.notNull())
    .addColumn('responded_at', 'text')
    .addPrimaryKeyConstraint('firm_lawyers_pk', ['firm_id', 'lawyer_id'])
    .execute();
  await db.schema.createIndex('firm_lawyers_lawyer').on('firm_lawyers').columns(['lawyer_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('firm_lawyers').ifExists().execute();
  await db.schema.alterTable('payment_attempts').dropColumn('platform_fee_cents').execute();
  await db.schema.alterTable('payment_attempts').dropColumn('destination_account').execute();
  await db.schema.dropTable('lawyer_payout_accounts').ifExists().execute();
}
