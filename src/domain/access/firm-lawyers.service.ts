/**
 * Firms' lawyers (docs/keys-and-firms.md#lawyers-of-a-firm): a firm may count lawyers of the
 * directory as its own only with their consent.
 *
 * - A firm's owner invites a lawyer by her public lawyer id (or her profile address). The
 *   invitation shows on her earnings page; nothing about her is shared until she accepts.
 * - She accepts or declines; she may leave later, and the owner may withdraw the invitation or
 *   end the membership. A declined invitation can be sent again only DECLINED_PAUSE_DAYS after
 *   her answer (no pestering); an ended one at once.
 * - Only the firm's owners see its lawyers, their bookings and their earnings (financial data;
 *   admins and members do not). Someone outside the firm gets "not found" (the firm's existence
 *   is not confirmed); a member who is not an owner gets "forbidden".
 * - What owners see of a booking: date, time, lawyer, status. Never who booked (data
 *   minimisation, GDPR art. 5(1)(c), and the lawyer's professional secrecy), never her calendar's
 *   busy times.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findLawyerOfUser, type EarningsLawyerRow } from '../../db/repositories/earnings.repository.ts';
import {
  findFirmLawyer,
  findLawyerByPublicId,
  listFirmBookings,
  listFirmLawyers,
  listFirmsOfLawyer,
  transitionFirmLawyer,
  upsertInvitation,
  type FirmBookingRow,
  type FirmLawyerListRow,
  type LawyerFirmRow,
} from '../../db/repositories/firm-lawyers.repository.ts';
import { DomainError, forbidden, invalidRequest, notFound } from '../errors.ts';
import type { EarningLine, Earnings, EarningsService } from '../payments/earnings.service.ts';
import { monthTotals } from '../payments/earnings.service.ts';
import type { AccountsService, Firm } from './accounts.service.ts';
import type { Actor } from './types.ts';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** A declined invitation can be sent again only this many days after the answer (no pestering). */
export const DECLINED_PAUSE_DAYS = 30;
/** How many bookings the firm's page lists at most. */
export const FIRM_BOOKINGS_LIMIT = 200;
/** The firm's bookings start this many days back (recent and upcoming). */
export const FIRM_BOOKINGS_DAYS_BACK = 30;

export interface FirmLawyersDeps {
  database: Database;
  clock: Clock;
  accounts: Pick<AccountsService, 'firmStanding'>;
  earnings: Pick<EarningsService, 'lines'>;
}

export interface FirmLawyersOverview {
  firm: Firm;
  lawyers: FirmLawyerListRow[];
}

export class FirmLawyersService {
  constructor(private readonly deps: FirmLawyersDeps) {}

  /** The firm, if `actor` is one of its owners: anyone else outside it is not found, a non-owner member forbidden. */
  private async ownedFirm(actor: Actor, slug: string): Promise<Firm> {
    if (actor.type !== 'user') throw notFound(`no firm "${slug}"`);
    const { firm, standing } = await this.deps.accounts.firmStanding(actor, slug);
    if (standing.kind !== 'member' || standing.role !== 'owner') throw forbidden('Only the firm’s owners see and manage its lawyers.');
    return firm;
  }

  async overview(actor: Actor, slug: string): Promise<FirmLawyersOverview> {
    const firm = await this.ownedFirm(actor, slug);
    return { firm, lawyers: await listFirmLawyers(this.deps.database.db, firm.id) };
  }

  /** Invites the lawyer whose public id (or profile address) `reference` holds. */
  async invite(actor: Actor & { type: 'user' }, slug: string, reference: string): Promise<{ lawyerName: string }> {
    const firm = await this.ownedFirm(actor, slug);
    const id = UUID.exec(typeof reference === 'string' ? reference.slice(0, 500) : '')?.[0]?.toLowerCase();
    const lawyer = id ? await findLawyerByPublicId(this.deps.database.db, id) : undefined;
    if (!lawyer) throw invalidRequest('No lawyer has that id.', [{ pointer: '/lawyer', detail: 'unknown' }]);
    if (!lawyer.user_id) throw invalidRequest('That lawyer has no account yet, so she cannot accept.', [{ pointer: '/lawyer', detail: 'no_account' }]);
    const db = this.deps.database.db;
    const existing = await findFirmLawyer(db, firm.id, lawyer.id);
    if (existing?.status === 'invited' || existing?.status === 'accepted') {
      throw new DomainError('conflict', `${lawyer.name} is already ${existing.status === 'invited' ? 'invited' : 'one of the firm’s lawyers'}.`, [{ pointer: '/lawyer', detail: 'already' }]);
    }
    if (existing?.status === 'declined' && Date.parse(existing.responded_at ?? existing.invited_at) > this.deps.clock.now().getTime() - DECLINED_PAUSE_DAYS * 86_400_000) {
      throw new DomainError('conflict', `${lawyer.name} declined the firm’s invitation; it can be sent again ${DECLINED_PAUSE_DAYS} days after her answer.`, [{ pointer: '/lawyer', detail: 'declined' }]);
    }
    await upsertInvitation(db, { firm_id: firm.id, lawyer_id: lawyer.id, status: 'invited', invited_by_user_id: actor.userId, invited_at: this.nowIso(), responded_at: null });
    return { lawyerName: lawyer.name };
  }

  /** Withdraws an invitation or ends a lawyer's membership (the owner's side). */
  async remove(actor: Actor, slug: string, lawyerId: string): Promise<void> {
    const firm = await this.ownedFirm(actor, slug);
    if (!(await transitionFirmLawyer(this.deps.database.db, firm.id, String(lawyerId), ['invited', 'accepted'], 'ended', this.nowIso()))) throw notFound('no such lawyer in the firm');
  }

  /** The accepted lawyers' bookings, from FIRM_BOOKINGS_DAYS_BACK days ago on. */
  async bookings(actor: Actor, slug: string): Promise<{ firm: Firm; bookings: FirmBookingRow[] }> {
    const firm = await this.ownedFirm(actor, slug);
    const lawyers = (await listFirmLawyers(this.deps.database.db, firm.id)).filter((l) => l.status === 'accepted');
    const from = new Date(this.deps.clock.now().getTime() - FIRM_BOOKINGS_DAYS_BACK * 86_400_000).toISOString().slice(0, 10);
    return { firm, bookings: await listFirmBookings(this.deps.database.db, lawyers.map((l) => l.lawyer_id), from, FIRM_BOOKINGS_LIMIT) };
  }

  /** The accepted lawyers' earnings: all together by month, and per lawyer. */
  async earnings(actor: Actor, slug: string): Promise<{ firm: Firm; all: Earnings; perLawyer: Array<{ lawyerId: string; name: string; earnings: Earnings }> }> {
    const firm = await this.ownedFirm(actor, slug);
    const lawyers = (await listFirmLawyers(this.deps.database.db, firm.id)).filter((l) => l.status === 'accepted');
    const lines = await this.deps.earnings.lines(lawyers.map((l) => ({ id: l.lawyer_id, platform_commission_percent: l.platform_commission_percent })));
    const byLawyer = new Map<string, EarningLine[]>();
    for (const line of lines) byLawyer.set(line.lawyerId, [...(byLawyer.get(line.lawyerId) ?? []), line]);
    return {
      firm,
      all: monthTotals(lines),
      perLawyer: lawyers.map((l) => ({ lawyerId: l.lawyer_id, name: l.name, earnings: monthTotals(byLawyer.get(l.lawyer_id) ?? []) })),
    };
  }

  // ── the lawyer's side: always her own lawyer record, found from her account ──

  /** The lawyer record of a signed-in account, or null. */
  lawyerOf(userId: string): Promise<EarningsLawyerRow | undefined> {
    return findLawyerOfUser(this.deps.database.db, userId);
  }

  /** Her pending invitations and the firms she accepted. */
  firmsOf(lawyerId: string): Promise<LawyerFirmRow[]> {
    return listFirmsOfLawyer(this.deps.database.db, lawyerId);
  }

  /** She answers an invitation (`accept`/`decline`) or leaves a firm she accepted (`leave`). */
  async answer(lawyerId: string, firmSlug: string, answer: 'accept' | 'decline' | 'leave'): Promise<LawyerFirmRow> {
    const row = (await listFirmsOfLawyer(this.deps.database.db, lawyerId)).find((f) => f.slug === firmSlug);
    const [from, to] = answer === 'leave' ? (['accepted', 'ended'] as const) : (['invited', answer === 'accept' ? 'accepted' : 'declined'] as const);
    if (!row || row.status !== from || !(await transitionFirmLawyer(this.deps.database.db, row.firm_id, lawyerId, [from], to, this.nowIso()))) {
      throw new DomainError('not_found', 'no such invitation');
    }
    return row;
  }

  private nowIso(): string {
    return this.deps.clock.now().toISOString();
  }
}
