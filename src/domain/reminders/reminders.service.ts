/**
 * Reminders of consultations and the "held" transition (DESIGN.md §11; docs/mail.md#reminders),
 * swept by the background jobs. Safe in several processes and across restarts: every email is
 * claimed by inserting its row in `consultation_reminders` (primary key consultation, kind and
 * the start it was for) in the transaction that queues it in the mail outbox; a conflict means
 * another process, or an earlier run, did it, and nothing is queued.
 *
 * - `person_24h`, from 24 hours before the start, and `person_1h`, from 1 hour before, to the
 *   person in their language. None for a booking made (or moved) inside the window: its receipt
 *   (or the move's email) serves. A 24-hour reminder not sent before the 1-hour one is due (the
 *   processes were down) is skipped; a 1-hour one is not sent once the consultation has started.
 * - `lawyer_day_before`: one email per lawyer listing her confirmed consultations of the next day
 *   in her zone, from 18:00 her time until midnight; consultations booked or moved after 18:00
 *   are left out (she got their notice). One row per consultation listed, in the same transaction.
 * - `review_invitation`: an hour after the end (time for the lawyer to mark a no-show first), a
 *   consultation still `confirmed` becomes `held` (conditional update: a no-show or a
 *   cancellation wins) and the person is invited to review it, once; so is the person of one the
 *   lawyer marked held herself. Consultations that ended more than a week before the sweep first
 *   sees them are left as they are.
 * - A moved consultation has a new start, so its reminders are due again for the new time.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  claimReminder,
  isConfirmedAt,
  isHeld,
  listClaimedKeys,
  listConfirmedBetween,
  markHeldIfConfirmed,
  reminderKey,
  setReminderMail,
  type ReminderCandidate,
  type ReminderKind,
} from '../../db/repositories/reminders.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import { addDays, dateInZone, utcMsToDate, zonedToUtcMs } from '../../zoned-time.ts';
import type { MailQueue, OutgoingMail } from '../notify/outbox.ts';
import { lawyerDigestMail, personReminderMail, reviewInvitationMail } from './reminder-mail.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The person's reminders, before the start. */
export const REMINDER_24H_MS = DAY_MS;
export const REMINDER_1H_MS = HOUR_MS;
/** The lawyer's digest of tomorrow goes from this hour, her time, until midnight. */
export const LAWYER_DIGEST_HOUR = 18;
/** After the end, time for the lawyer to mark a no-show before the consultation counts as held. */
export const HELD_AFTER_END_MS = HOUR_MS;
/** Consultations that ended longer ago than this are not swept (not marked held, no invitation). */
export const HELD_LOOKBACK_MS = 7 * DAY_MS;
/** Any zone's wall clock is within 14 hours of UTC: slot dates lie within this of UTC dates. */
const ZONE_SLACK_MS = 14 * HOUR_MS;
const SWEEP_BATCH = 200;

export interface RemindersDeps {
  database: Database;
  clock: Clock;
  mail: MailQueue;
  siteUrl: string;
}

export interface SweepReport {
  person24h: number;
  person1h: number;
  lawyerDigests: number;
  held: number;
  reviewInvitations: number;
}

interface Timed extends ReminderCandidate {
  startMs: number;
  endMs: number;
  /** When it was booked, or moved (status_changed_at of a confirmed consultation is its move). */
  bookedMs: number;
  /** Whether a reminder of this kind for its current start was claimed before this sweep read the batch. */
  claimed(kind: ReminderKind): boolean;
}

export class RemindersService {
  constructor(private readonly deps: RemindersDeps) {}

  /**
   * One pass over confirmed consultations from a week ago to the day after tomorrow (in keyset
   * batches): what is due at `now` is queued, once. Returns what this call queued.
   */
  async sweep(now: Date = this.deps.clock.now()): Promise<SweepReport> {
    const nowMs = now.getTime();
    const report: SweepReport = { person24h: 0, person1h: 0, lawyerDigests: 0, held: 0, reviewInvitations: 0 };
    const window = { fromDate: utcMsToDate(nowMs - HELD_LOOKBACK_MS - ZONE_SLACK_MS), toDate: utcMsToDate(nowMs + DAY_MS + ZONE_SLACK_MS) };
    let after: { lawyerId: string; slotDate: string; id: string } | null = null;
    // A lawyer's consultations come together (ordered by lawyer): her digest is decided when the next lawyer starts.
    let lawyerId: string | null = null;
    let digest: Timed[] = [];
    for (;;) {
      const batch = await listConfirmedBetween(this.deps.database.db, window, after, SWEEP_BATCH);
      // What earlier sweeps claimed is skipped without a transaction (the claim still decides).
      const claimed = await listClaimedKeys(this.deps.database.db, batch.map((r) => r.id));
      for (const row of batch) {
        const c = timed(row, claimed);
        if (c === null) continue;
        if (row.lawyer_id !== lawyerId) {
          if (digest.length > 0) report.lawyerDigests += await this.sendDigest(digest, nowMs);
          lawyerId = row.lawyer_id;
          digest = [];
        }
        if (c.status === 'confirmed' && inDigest(c, nowMs) && !c.claimed('lawyer_day_before')) digest.push(c);
        await this.person(c, nowMs, report);
      }
      if (batch.length < SWEEP_BATCH) break;
      const last = batch[batch.length - 1]!;
      after = { lawyerId: last.lawyer_id, slotDate: last.slot_date, id: last.id };
    }
    if (digest.length > 0) report.lawyerDigests += await this.sendDigest(digest, nowMs);
    return report;
  }

  /** What is due for the person: the held transition and its invitation, or a reminder. */
  private async person(c: Timed, nowMs: number, report: SweepReport): Promise<void> {
    if (c.endMs + HELD_AFTER_END_MS <= nowMs) {
      if (c.endMs < nowMs - HELD_LOOKBACK_MS || c.claimed('review_invitation')) return;
      const invited = await this.once(async (tx) => {
        if (c.status === 'confirmed') {
          if (!(await markHeldIfConfirmed(tx, c.id, new Date(nowMs).toISOString()))) return null;
          report.held++;
        } else if (!(await isHeld(tx, c.id))) {
          return null;
        }
        if (!c.person_email) return null;
        return this.claimAndQueue(tx, [c], 'review_invitation', nowMs, reviewInvitationMail({ ...c, person_email: c.person_email }, this.deps.siteUrl));
      });
      if (invited) report.reviewInvitations++;
      return;
    }
    if (c.status !== 'confirmed' || !c.person_email || nowMs >= c.startMs) return;
    const email = c.person_email;
    let which: '24h' | '1h' | null = null;
    if (nowMs >= c.startMs - REMINDER_1H_MS) {
      if (c.bookedMs <= c.startMs - REMINDER_1H_MS) which = '1h';
    } else if (nowMs >= c.startMs - REMINDER_24H_MS) {
      if (c.bookedMs <= c.startMs - REMINDER_24H_MS) which = '24h';
    }
    if (which === null) return;
    const kind: ReminderKind = which === '24h' ? 'person_24h' : 'person_1h';
    if (c.claimed(kind)) return;
    const sent = await this.once(async (tx) => {
      if (!(await isConfirmedAt(tx, c))) return null;
      return this.claimAndQueue(tx, [c], kind, nowMs, personReminderMail({ ...c, person_email: email }, which, { startsAtMs: c.startMs, nowMs, siteUrl: this.deps.siteUrl }));
    });
    if (sent) report[which === '24h' ? 'person24h' : 'person1h']++;
  }

  /** The lawyer's digest of the consultations listed (one lawyer, one date): 1 when queued. */
  private async sendDigest(consultations: Timed[], nowMs: number): Promise<number> {
    const first = consultations[0]!;
    const to = first.lawyer_contact_email ?? first.lawyer_user_email;
    if (!to) return 0;
    const sorted = [...consultations].sort((a, b) => a.startMs - b.startMs || (a.id < b.id ? -1 : 1));
    const sent = await this.once(async (tx) => {
      const claimed: Timed[] = [];
      // In id order, so two processes claiming the same rows on PostgreSQL wait rather than deadlock.
      for (const c of [...sorted].sort((a, b) => (a.id < b.id ? -1 : 1))) {
        if (!(await isConfirmedAt(tx, c))) continue;
        if (await claimReminder(tx, { consultationId: c.id, kind: 'lawyer_day_before', startsAt: new Date(c.startMs).toISOString(), nowIso: new Date(nowMs).toISOString() })) claimed.push(c);
      }
      if (claimed.length === 0) return null;
      const listed = sorted.filter((c) => claimed.includes(c));
      const [id] = await this.deps.mail.enqueue(tx, [lawyerDigestMail(to, first.slot_date, listed, this.deps.siteUrl)]);
      await setReminderMail(tx, { keys: listed.map((c) => ({ consultationId: c.id, startsAt: new Date(c.startMs).toISOString() })), kind: 'lawyer_day_before', mailId: id! });
      return id!;
    });
    return sent ? 1 : 0;
  }

  /** Claims `kind` for each consultation and queues `mail`; null (nothing queued) when already claimed. */
  private async claimAndQueue(tx: Executor, consultations: readonly Timed[], kind: ReminderKind, nowMs: number, mail: OutgoingMail): Promise<string | null> {
    const keys = consultations.map((c) => ({ consultationId: c.id, startsAt: new Date(c.startMs).toISOString() }));
    for (const key of keys) {
      if (!(await claimReminder(tx, { ...key, kind, nowIso: new Date(nowMs).toISOString() }))) return null;
    }
    const [id] = await this.deps.mail.enqueue(tx, [mail]);
    await setReminderMail(tx, { keys, kind, mailId: id! });
    return id!;
  }

  /** Runs `work` in its own transaction and delivers the mail it queued after the commit. */
  private async once(work: (tx: Executor) => Promise<string | null>): Promise<boolean> {
    const id = await this.deps.database.db.transaction().execute(work);
    if (id === null) return false;
    await this.deps.mail.deliver([id]);
    return true;
  }
}

/** The candidate with its instants; null when its wall-clock time does not exist (a DST gap). */
function timed(row: ReminderCandidate, claimed: ReadonlySet<string>): Timed | null {
  const startMs = zonedToUtcMs(row.slot_date, row.start_time, row.lawyer_timezone);
  const endMs = zonedToUtcMs(row.slot_date, row.end_time, row.lawyer_timezone);
  if (startMs === null || endMs === null) return null;
  const created = Date.parse(row.created_at);
  const changed = row.status_changed_at ? Date.parse(row.status_changed_at) : Number.NaN;
  const startsAt = new Date(startMs).toISOString();
  return { ...row, startMs, endMs, bookedMs: Number.isNaN(changed) ? created : Math.max(created, changed), claimed: (kind) => claimed.has(reminderKey(row.id, kind, startsAt)) };
}

/**
 * Whether a consultation belongs in its lawyer's digest at `nowMs`: it is on her tomorrow, it is
 * 18:00 or later today her time, and it was booked (or moved) before 18:00.
 */
function inDigest(c: Timed, nowMs: number): boolean {
  const today = dateInZone(nowMs, c.lawyer_timezone);
  if (c.slot_date !== addDays(today, 1)) return false;
  const from = zonedToUtcMs(today, `${String(LAWYER_DIGEST_HOUR).padStart(2, '0')}:00:00`, c.lawyer_timezone);
  return from !== null && nowMs >= from && c.bookedMs < from;
}
