/**
 * The queries behind firms' lawyers (src/domain/access/firm-lawyers.service.ts): invitations and
 * answers, and the few booking facts a firm's owners see of the lawyers who accepted.
 */
import type { FirmLawyerTable } from '../schema.ts';
import type { Executor } from './types.ts';

export function findFirmLawyer(db: Executor, firmId: string, lawyerId: string): Promise<FirmLawyerTable | undefined> {
  return db.selectFrom('firm_lawyers').selectAll().where('firm_id', '=', firmId).where('lawyer_id', '=', lawyerId).executeTakeFirst();
}

/** A new invitation, or a fresh one after an ended membership. */
export async function upsertInvitation(db: Executor, row: FirmLawyerTable): Promise<void> {
  await db
    .insertInto('firm_lawyers')
    .values(row)
    .onConflict((oc) => oc.columns(['firm_id', 'lawyer_id']).doUpdateSet({ status: row.status, invited_by_user_id: row.invited_by_user_id, invited_at: row.invited_at, responded_at: null }))
    .execute();
}

/** Moves one row from one of `from` to `to`; true when it moved. */
export async function transitionFirmLawyer(db: Executor, firmId: string, lawyerId: string, from: ReadonlyArray<FirmLawyerTable['status']>, to: FirmLawyerTable['status'], nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('firm_lawyers')
    .set({ status: to, responded_at: nowIso })
    .where('firm_id', '=', firmId)
    .where('lawyer_id', '=', lawyerId)
    .where('status', 'in', [...from])
    .executeTakeFirst();
  return Number(result.numUpdatedRows ?? 0n) > 0;
}

export interface FirmLawyerListRow {
  lawyer_id: string;
  name: string;
  status: FirmLawyerTable['status'];
  invited_at: string;
  responded_at: string | null;
  platform_commission_percent: number;
  timezone: string;
}

/** The firm's invitations and lawyers (declined and ended included), by name. */
export function listFirmLawyers(db: Executor, firmId: string): Promise<FirmLawyerListRow[]> {
  return db
    .selectFrom('firm_lawyers as f')
    .innerJoin('lawyers as l', 'l.id', 'f.lawyer_id')
    .select(['f.lawyer_id', 'l.name', 'f.status', 'f.invited_at', 'f.responded_at', 'l.platform_commission_percent', 'l.timezone'])
    .where('f.firm_id', '=', firmId)
    .orderBy('l.name')
    .orderBy('f.lawyer_id')
    .execute();
}

export interface LawyerFirmRow {
  firm_id: string;
  slug: string;
  name: string;
  status: FirmLawyerTable['status'];
  invited_at: string;
}

/** A lawyer's invitations waiting for her answer and the firms she accepted. */
export function listFirmsOfLawyer(db: Executor, lawyerId: string): Promise<LawyerFirmRow[]> {
  return db
    .selectFrom('firm_lawyers as f')
    .innerJoin('firms', 'firms.id', 'f.firm_id')
    .select(['f.firm_id', 'firms.slug', 'firms.name', 'f.status', 'f.invited_at'])
    .where('f.lawyer_id', '=', lawyerId)
    .where('f.status', 'in', ['invited', 'accepted'])
    .orderBy('firms.name')
    .execute();
}

export interface FirmBookingRow {
  lawyer_id: string;
  lawyer_name: string;
  slot_date: string;
  start_time: string;
  end_time: string;
  status: string;
}

/**
 * Consultations of these lawyers from `fromDate` on (their dates), soonest first: date, time,
 * lawyer and status only — never who booked, nor anything of their calendars.
 */
export async function listFirmBookings(db: Executor, lawyerIds: readonly string[], fromDate: string, limit: number): Promise<FirmBookingRow[]> {
  if (lawyerIds.length === 0) return [];
  const rows = await db
    .selectFrom('consultations as c')
    .innerJoin('lawyers as l', 'l.id', 'c.lawyer_id')
    .select(['c.lawyer_id', 'l.name as lawyer_name', 'c.slot_date', 'c.start_time', 'c.end_time', 'c.status'])
    .where('c.lawyer_id', 'in', lawyerIds)
    .where('c.slot_date', '>=', fromDate)
    .orderBy('c.slot_date')
    .orderBy('c.start_time')
    .orderBy('l.name')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ ...r, status: String(r.status) }));
}

export function findLawyerByPublicId(db: Executor, lawyerId: string): Promise<{ id: string; name: string; user_id: string | null } | undefined> {
  return db.selectFrom('lawyers').select(['id', 'name', 'user_id']).where('id', '=', lawyerId).executeTakeFirst();
}
