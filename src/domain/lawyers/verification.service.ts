/**
 * Verification by the operator (DESIGN.md §10; docs/lawyers.md). An application is a lawyer in
 * status `applied`; the operator verifies it (a record: which membership, what was checked — the
 * public Censo General de Letrados and/or the colegio's own directory —, by whom, a note; valid
 * 12 months), refuses it (a reason, emailed to the applicant) or later suspends her (a reason).
 * Every decision is audited in the operator's log, in its own transaction, and recomputes the
 * listing rule at once (listing.ts): a suspended or expired lawyer is unlisted everywhere.
 * The sweep (jobs) sends the reminders 30 and 7 days before expiry, once, to lawyer and operators, and
 * unlists lawyers whose verification lapsed.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  claimReminder,
  findLatestVerificationExpiry,
  findLawyerLifecycle,
  findUserEmail,
  insertVerifications,
  listApplications,
  listDueReminders,
  listExpiredButVerified,
  listMemberships,
  listVerifications,
  setLawyerLifecycleStatus,
  setMembershipNumber,
  type LawyerLifecycleRow,
  type MembershipRow,
} from '../../db/repositories/lawyer-lifecycle.repository.ts';
import { listLawyersUnableToHoldConfirmed } from '../../db/repositories/lawyer-consultations.repository.ts';
import { listOperators } from '../../db/repositories/operator.repository.ts';
import type { DB, LawyerVerificationTable } from '../../db/schema.ts';
import type { Actor } from '../access/types.ts';
import { conflict, forbidden, invalidRequest, notFound, type FieldError } from '../errors.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';
import { recordOperatorAction } from '../operator/audit.ts';
import { claimVerificationNotice, findNoticeTarget, listExpiringWithoutNotice } from '../../db/repositories/verification-notices.repository.ts';
import { queueVerificationNotice } from './verification-notices.ts';
import { checkShortText } from '../third-party-text.ts';
import { barAssociationById, CENSUS_URL } from './bar-associations.ts';
import { refreshListing, type ListingChange } from './listing.ts';
import { REMINDER_DAYS, verificationExpiry } from './verification-rules.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DAY_MS = 86_400_000;
/** Applications listed at most, oldest first. */
export const APPLICATIONS_LIMIT = 200;
const SWEEP_BATCH = 200;
export const NOTE_MAX = 2000;

export type CheckedSource = 'census' | 'colegio';

export interface VerificationDeps {
  database: Database;
  clock: Clock;
  mail: MailQueue;
  /** This process's directory cache, dropped after a change (other processes follow within DIRECTORY_REFRESH_MS). */
  caches?: { directory?: { invalidate(): void } };
  /**
   * Her upcoming consultations once she can no longer hold them (suspension, expiry): cancelled by
   * the lawyer-cancellation flow (LawyerCancellationService.cancelAllUpcoming). The app, the jobs
   * and the CLI pass it; without it (a unit test of the listing alone) they stand.
   */
  consultations?: UnlistedConsultations;
}

/** Cancels every upcoming confirmed consultation of a lawyer who can no longer hold them. */
export interface UnlistedConsultations {
  cancelAllUpcoming(lawyerId: string): Promise<{ cancelled: number }>;
}

export interface Membership {
  barName: string;
  /** One of the 83 colegios, when the claimed name is one of them. */
  colegio: { id: string; name: string } | null;
  membershipNumber: string | null;
  verified: boolean;
}

export interface Application {
  id: string;
  name: string;
  citySlug: string;
  status: string;
  statusReason: string | null;
  appliedAt: string;
  memberships: Membership[];
  /** Where the operator checks the claim: the public census (search there by name and number). */
  censusUrl: string;
}

export interface VerificationRecord {
  id: string;
  barName: string | null;
  colegioId: string | null;
  membershipNumber: string | null;
  checked: CheckedSource[];
  source: string;
  operatorUserId: string | null;
  note: string;
  verifiedAt: string;
  expiresAt: string;
  reminderSentAt: string | null;
}

function toMembership(m: MembershipRow): Membership {
  const colegio = m.bar_association_id ? barAssociationById(m.bar_association_id) : undefined;
  return { barName: m.bar_name, colegio: colegio ? { id: colegio.id, name: colegio.name } : null, membershipNumber: m.membership_number, verified: m.verified === 1 };
}

function toRecord(v: LawyerVerificationTable): VerificationRecord {
  const checked: CheckedSource[] = [];
  if (v.checked_census === 1) checked.push('census');
  if (v.checked_colegio === 1) checked.push('colegio');
  return {
    id: v.id,
    barName: v.bar_name,
    colegioId: v.bar_association_id,
    membershipNumber: v.membership_number,
    checked,
    source: v.source,
    operatorUserId: v.operator_user_id,
    note: v.note,
    verifiedAt: v.verified_at,
    expiresAt: v.expires_at,
    reminderSentAt: v.reminder_sent_at,
  };
}

/** A reason or note: trimmed, 1…NOTE_MAX characters, no control or invisible characters. */
function requireText(raw: unknown, pointer: string, what: string): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  const errors: FieldError[] = [];
  if (text === '') errors.push({ pointer, detail: `give a ${what}` });
  else if (text.length > NOTE_MAX) errors.push({ pointer, detail: `at most ${NOTE_MAX} characters` });
  else {
    const bad = checkShortText(text, pointer);
    if (bad) errors.push(bad);
  }
  if (errors.length > 0) throw invalidRequest(`the ${what} is missing or not acceptable`, errors);
  return text;
}

/** Where a lawyer is written to: her account's address, else her contact address. */

export class VerificationService {
  private readonly db: Kysely<DB>;

  constructor(private readonly deps: VerificationDeps) {
    this.db = deps.database.db;
  }

  private operator(actor: Actor): Extract<Actor, { type: 'operator' }> {
    if (actor.type !== 'operator') throw forbidden('operators only');
    return actor;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  /** Her row; `lock` inside a decision's transaction, so two decisions at once on her are one after the other. */
  private async lawyerOr404(db: Kysely<DB> | Parameters<typeof findLawyerLifecycle>[0], lawyerId: unknown, lock = false): Promise<LawyerLifecycleRow> {
    const id = typeof lawyerId === 'string' && UUID.test(lawyerId) ? lawyerId.toLowerCase() : null;
    const row = id ? await findLawyerLifecycle(db, id, lock ? this.deps.database.dialect : undefined) : undefined;
    if (!row) throw notFound(`no lawyer ${String(lawyerId)}`);
    return row;
  }

  private async toApplication(row: LawyerLifecycleRow): Promise<Application> {
    return {
      id: row.id,
      name: row.name,
      citySlug: row.city_slug,
      status: row.status,
      statusReason: row.status_reason,
      appliedAt: row.created_at,
      memberships: (await listMemberships(this.db, row.id)).map(toMembership),
      censusUrl: CENSUS_URL,
    };
  }

  /** Applications waiting for a decision, oldest first. */
  async applications(actor: Actor): Promise<Application[]> {
    this.operator(actor);
    const rows = await listApplications(this.db, APPLICATIONS_LIMIT);
    return Promise.all(rows.map((r) => this.toApplication(r)));
  }

  /** One lawyer as the operator judges her: what she claimed and every verification made. */
  async application(actor: Actor, lawyerId: string): Promise<Application & { verifications: VerificationRecord[] }> {
    this.operator(actor);
    const row = await this.lawyerOr404(this.db, lawyerId);
    return { ...(await this.toApplication(row)), verifications: (await listVerifications(this.db, row.id)).map(toRecord) };
  }

  /**
   * Verifies a lawyer: a record for one of her memberships (`barName`, or her only/first one with
   * a colegio), valid 12 months; status `verified`. Also renews a verified lawyer's record and
   * lifts a suspension. A refused application can be verified later (she may have fixed her claim).
   */
  async verify(
    actor: Actor,
    lawyerId: string,
    input: { note: string; checked: CheckedSource[]; barName?: string; membershipNumber?: string },
  ): Promise<{ lawyer: LawyerLifecycleRow; verification: VerificationRecord; listing: ListingChange }> {
    const op = this.operator(actor);
    const note = requireText(input.note, '/note', 'note of what was checked');
    const checked = [...new Set(input.checked)];
    if (checked.length === 0 || checked.some((c) => c !== 'census' && c !== 'colegio')) {
      throw invalidRequest('say what was checked', [{ pointer: '/checked', detail: 'one or both of census, colegio' }]);
    }
    const number = input.membershipNumber?.trim();
    if (number !== undefined && !/^[0-9A-Za-z./ -]{1,40}$/.test(number)) throw invalidRequest('not a membership number', [{ pointer: '/membership_number', detail: 'letters, digits, . / - and spaces, at most 40' }]);
    const result = await this.db.transaction().execute(async (tx) => {
      const row = await this.lawyerOr404(tx, lawyerId, true);
      const memberships = await listMemberships(tx, row.id);
      const membership = input.barName !== undefined
        ? memberships.find((m) => m.bar_name === input.barName || m.bar_association_id === input.barName)
        : (memberships.find((m) => m.bar_association_id !== null) ?? memberships[0]);
      if (!membership) {
        throw conflict(input.barName !== undefined ? `she claims no membership of "${input.barName}"` : 'she claims no bar membership: there is nothing to verify');
      }
      const membershipNumber = number ?? membership.membership_number;
      if (number !== undefined && number !== membership.membership_number) await setMembershipNumber(tx, row.id, membership.bar_name, number);
      const at = this.now();
      // Verifying her again while her verification is in force and not yet due for renewal (a
      // double click, two operators at once, a corrected membership number) is not news to her.
      const previousExpiry = row.status === 'verified' ? await findLatestVerificationExpiry(tx, row.id) : null;
      const tellHer = previousExpiry === null || Date.parse(previousExpiry) - Date.parse(at) <= REMINDER_DAYS * DAY_MS;
      const record = {
        id: randomUUID(),
        lawyer_id: row.id,
        bar_name: membership.bar_name,
        bar_association_id: membership.bar_association_id,
        membership_number: membershipNumber,
        checked_census: checked.includes('census') ? 1 : 0,
        checked_colegio: checked.includes('colegio') ? 1 : 0,
        source: 'operator',
        operator_user_id: op.by?.kind === 'user' ? op.by.userId : null,
        note,
        verified_at: at,
        expires_at: verificationExpiry(at),
        reminder_sent_at: null,
      };
      await insertVerifications(tx, [record]);
      await setLawyerLifecycleStatus(tx, row.id, 'verified', null, at);
      const listing = (await refreshListing(tx, row.id, at))!;
      await recordOperatorAction(tx, {
        at,
        by: op.by,
        action: 'lawyer.verify',
        target: { type: 'lawyer', id: row.id, label: row.name },
        details: {
          status_before: row.status,
          bar_name: membership.bar_name,
          colegio: membership.bar_association_id,
          membership_number: membershipNumber,
          checked,
          note,
          expires_at: record.expires_at,
          public_before: listing.before.listed,
          public_after: listing.after.listed,
        },
      });
      // A renewal is a new cycle (its expiry): she hears of it once it was due (within the reminder
      // window, or after expiry); each verification's email is claimed once per cycle.
      const mailIds = tellHer ? await queueVerificationNotice(tx, this.deps.mail, { lawyerId: row.id, kind: 'verified', cycle: record.expires_at, nowIso: at, expiresAt: record.expires_at }) : [];
      return { lawyer: { ...row, status: 'verified', status_reason: null, updated_at: at }, verification: toRecord(record), listing, mailIds };
    });
    this.deps.caches?.directory?.invalidate();
    if (result.mailIds.length > 0) await this.deps.mail.deliver(result.mailIds);
    const { mailIds: _sent, ...out } = result;
    return out;
  }

  /** Refuses an application with a reason, emailed to the applicant in her language (verification-notices.ts). */
  async refuse(actor: Actor, lawyerId: string, rawReason: string): Promise<{ lawyer: LawyerLifecycleRow; mailed: boolean }> {
    const op = this.operator(actor);
    const reason = requireText(rawReason, '/reason', 'reason');
    const { lawyer, mailIds } = await this.db.transaction().execute(async (tx) => {
      const row = await this.lawyerOr404(tx, lawyerId, true);
      if (row.status !== 'applied') throw conflict(`only an application can be refused; this lawyer is ${row.status} (suspend a verified lawyer instead)`);
      const at = this.now();
      await setLawyerLifecycleStatus(tx, row.id, 'refused', reason, at);
      const listing = (await refreshListing(tx, row.id, at))!;
      await recordOperatorAction(tx, { at, by: op.by, action: 'lawyer.refuse', target: { type: 'lawyer', id: row.id, label: row.name }, details: { reason, public_before: listing.before.listed, public_after: listing.after.listed } });
      const mailIds = await queueVerificationNotice(tx, this.deps.mail, { lawyerId: row.id, kind: 'refused', cycle: at, nowIso: at, reason });
      return { lawyer: { ...row, status: 'refused', status_reason: reason, updated_at: at }, mailIds };
    });
    if (mailIds.length > 0) await this.deps.mail.deliver(mailIds);
    return { lawyer, mailed: mailIds.length > 0 };
  }

  /**
   * Suspends a lawyer with a reason: unlisted at once (search, profile, availability, booking,
   * the site, MCP). Her upcoming consultations are then cancelled (deps.consultations):
   * full refund, the person emailed, the time freed.
   */
  async suspend(actor: Actor, lawyerId: string, rawReason: string, action: 'lawyer.suspend' | 'lawyer.unverify' = 'lawyer.suspend'): Promise<{ lawyer: LawyerLifecycleRow; changed: boolean; listing: ListingChange | null }> {
    const op = this.operator(actor);
    const reason = requireText(rawReason, '/reason', 'reason');
    const result = await this.db.transaction().execute(async (tx) => {
      const row = await this.lawyerOr404(tx, lawyerId, true);
      if (row.status === 'suspended') return { lawyer: row, changed: false, listing: null, mailIds: [] as string[] };
      if (row.status !== 'verified') throw conflict(`only a verified lawyer can be suspended; this one is ${row.status}`);
      const at = this.now();
      await setLawyerLifecycleStatus(tx, row.id, 'suspended', reason, at);
      const listing = (await refreshListing(tx, row.id, at))!;
      await recordOperatorAction(tx, { at, by: op.by, action, target: { type: 'lawyer', id: row.id, label: row.name }, details: { reason, public_before: listing.before.listed, public_after: listing.after.listed } });
      const mailIds = await queueVerificationNotice(tx, this.deps.mail, { lawyerId: row.id, kind: 'suspended', cycle: at, nowIso: at, reason });
      return { lawyer: { ...row, status: 'suspended', status_reason: reason, updated_at: at }, changed: true, listing, mailIds };
    });
    const { mailIds: _mailIds, ...out } = result;
    if (result.mailIds.length > 0) await this.deps.mail.deliver(result.mailIds);
    if (result.changed) {
      this.deps.caches?.directory?.invalidate();
      // After the commit: each cancellation is its own transaction (refund, email, time freed).
      await this.deps.consultations?.cancelAllUpcoming(result.lawyer.id);
    }
    return out;
  }

  /** Lifts a suspension: she is verified again if her verification has not expired (else verify her anew). */
  async reinstate(actor: Actor, lawyerId: string, action: 'lawyer.reinstate' | 'lawyer.verify' = 'lawyer.reinstate'): Promise<{ lawyer: LawyerLifecycleRow; changed: boolean; listing: ListingChange | null }> {
    const op = this.operator(actor);
    const result = await this.db.transaction().execute(async (tx) => {
      const row = await this.lawyerOr404(tx, lawyerId, true);
      if (row.status === 'verified' && row.verified === 1) return { lawyer: row, changed: false, listing: null };
      const at = this.now();
      const current = (await listVerifications(tx, row.id)).some((v) => v.expires_at > at);
      if (!current) throw conflict('she has no verification in force: verify her with a note of what was checked (consulta lawyers verify ID --note …)');
      if (row.status === 'refused') throw conflict('a refused application is verified anew, with a note of what was checked');
      await setLawyerLifecycleStatus(tx, row.id, 'verified', null, at);
      const listing = (await refreshListing(tx, row.id, at))!;
      await recordOperatorAction(tx, { at, by: op.by, action, target: { type: 'lawyer', id: row.id, label: row.name }, details: { status_before: row.status, public_before: listing.before.listed, public_after: listing.after.listed } });
      return { lawyer: { ...row, status: 'verified', status_reason: null, updated_at: at }, changed: true, listing };
    });
    if (result.changed) this.deps.caches?.directory?.invalidate();
    return result;
  }

  private async accountEmail(db: Parameters<typeof findLawyerLifecycle>[0], userId: string | null): Promise<string | null> {
    if (userId === null) return null;
    return findUserEmail(db, userId);
  }

  /**
   * The expiry sweep (jobs runner; safe in several processes): reminders 30 days before a
   * verification expires, once (claimed), to the lawyer and every operator; lawyers whose
   * verification lapsed are unlisted (the materialised flags recomputed) and their upcoming
   * consultations cancelled. Then the cancellations left undone: a process that died between
   * committing a suspension or an expiry and cancelling her consultations left them confirmed
   * with a lawyer who can no longer hold them; this pass finishes them through the same service
   * (each consultation's conditional update: once, whatever runs at the same time). `finished`:
   * the consultations it cancelled.
   */
  async sweep(): Promise<{ reminded: number; expired: number; finished: number }> {
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const until = new Date(now.getTime() + REMINDER_DAYS * DAY_MS).toISOString();
    let reminded = 0;
    const operators = await listOperators(this.db);
    // The operators' reminder, 30 days before (claimed on the verification row).
    for (const due of await listDueReminders(this.db, nowIso, until, SWEEP_BATCH)) {
      const ids = await this.db.transaction().execute(async (tx) => {
        if (!(await claimReminder(tx, due.verification_id, nowIso))) return [];
        return this.deps.mail.enqueue(tx, operators.map((o) => reminderMail(o.email, due.name, due.expires_at, 'operator', due.lawyer_id)));
      });
      if (ids.length > 0) await this.deps.mail.deliver(ids);
    }
    // Hers, in her language, 30 and 7 days before (verification-notices.ts: each once, whatever runs at the same time).
    // Within 7 days the 30-day one is not sent any more: one reminder, the nearer. The two windows
    // do not overlap, so a verification that is already within 7 days when a sweep first sees it
    // (imported so, or after the sweeps stood still) is never in another process's 30-day pass
    // while this one sends the 7-day one; the 7-day one also claims the 30-day notice.
    const in7 = new Date(now.getTime() + 7 * DAY_MS).toISOString();
    for (const [kind, windowStart, windowEnd] of [['expires_7', nowIso, in7], ['expires_30', in7, until]] as const) {
      for (const due of await listExpiringWithoutNotice(this.db, kind, windowStart, windowEnd, SWEEP_BATCH)) {
        const ids = await this.db.transaction().execute(async (tx) => {
          if (kind === 'expires_7') await claimVerificationNotice(tx, { lawyer_id: due.lawyer_id, kind: 'expires_30', cycle: due.expires_at, created_at: nowIso });
          return queueVerificationNotice(tx, this.deps.mail, { lawyerId: due.lawyer_id, kind, cycle: due.expires_at, nowIso, expiresAt: due.expires_at });
        });
        if (ids.length > 0) {
          reminded++;
          await this.deps.mail.deliver(ids);
        }
      }
    }
    let expired = 0;
    for (const lawyerId of await listExpiredButVerified(this.db, nowIso, SWEEP_BATCH)) {
      const { change, mailIds } = await this.db.transaction().execute(async (tx) => {
        const change = await refreshListing(tx, lawyerId, nowIso);
        if (!change || !change.before.verified || change.after.verified) return { change, mailIds: [] as string[] };
        const target = await findNoticeTarget(tx, lawyerId);
        return { change, mailIds: await queueVerificationNotice(tx, this.deps.mail, { lawyerId, kind: 'expired', cycle: target?.expires_at ?? nowIso, nowIso }) };
      });
      if (mailIds.length > 0) await this.deps.mail.deliver(mailIds);
      if (change && change.before.verified && !change.after.verified) {
        expired++;
        await this.deps.consultations?.cancelAllUpcoming(lawyerId);
      }
    }
    if (expired > 0) this.deps.caches?.directory?.invalidate();
    let finished = 0;
    if (this.deps.consultations) {
      // From yesterday (UTC) on, as cancelAllUpcoming reads: it keeps those not yet started in her zone.
      const fromDate = new Date(now.getTime() - DAY_MS).toISOString().slice(0, 10);
      for (const lawyerId of await listLawyersUnableToHoldConfirmed(this.db, fromDate, SWEEP_BATCH)) {
        finished += (await this.deps.consultations.cancelAllUpcoming(lawyerId)).cancelled;
      }
    }
    return { reminded, expired, finished };
  }
}

function reminderMail(to: string, name: string, expiresAt: string, who: 'lawyer' | 'operator', lawyerId?: string): OutgoingMail {
  const date = expiresAt.slice(0, 10);
  if (who === 'operator') {
    return {
      kind: 'lawyer_verification_reminder_operator',
      to,
      subject: `Verification of ${name} expires on ${date}`,
      text: `The verification of ${name} (lawyer ${lawyerId}) expires on ${date}. Check the census and her colegio again, then renew it: consulta lawyers verify ${lawyerId} --note "…". Without a renewal she is unlisted on that day.`,
    };
  }
  return {
    kind: 'lawyer_verification_reminder',
    to,
    subject: 'Tu verificación en Consulta caduca pronto / Your Consulta verification expires soon',
    text: [
      `Hola, ${name}: tu verificación como abogada o abogado en Consulta caduca el ${date}. La revisaremos de nuevo; si ha cambiado tu colegiación, responde a este correo.`,
      '',
      `Hello ${name}: your verification as a lawyer on Consulta expires on ${date}. We will check it again; if your bar membership has changed, reply to this email.`,
    ].join('\n'),
  };
}
