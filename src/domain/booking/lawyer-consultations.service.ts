/**
 * A lawyer's own consultations (docs/lawyers.md#her-bookings): the list (upcoming and past), the
 * outcome of a past one (held or no-show), and her bookings feed — a secret, rotatable https
 * address of an iCalendar feed her calendar app subscribes to, without a session. Only the
 * SHA-256 of the feed's token is stored; rotating replaces it, so the old address is dead at once.
 * Every call names the lawyer: another lawyer's consultation id is not found.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  findConsultationOfLawyer,
  findFeed,
  findFeedPrivateDetails,
  setFeedPrivateDetails,
  findLawyerByFeedHash,
  findLawyerOfUser,
  findRefundOfConsultation,
  listConsultationsOfLawyer,
  setFeedTokenHash,
  setOutcome,
  touchFeed,
  type LawyerConsultationRow,
  type LawyerSelfRow,
} from '../../db/repositories/lawyer-consultations.repository.ts';
import type { ConsultationFormat, ConsultationStatus } from '../../db/schema.ts';
import { messages } from '../../i18n/index.ts';
import { sanitizeShortText } from '../directory/fence.ts';
import { zonedToUtcMs } from '../../zoned-time.ts';
import { admitOrThrow, type RateLimitStore, type WindowRule } from '../access/rate-limit.ts';
import { conflict, invalidRequest, notFound } from '../errors.ts';
import { sha256 } from '../identity/session.service.ts';
import { buildCalendar, type IcsEvent } from '../notify/ics.ts';
import { consultationUid, lawyerSideLocale } from './consultation-mail.ts';
import { quote, type Quote } from './quote.ts';
import { whoComes, whoComesLines, type WhoComes } from './who-comes.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** 32 random bytes, base64url: the feed token's form (anything else is not looked up). */
const FEED_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Past consultations the feed keeps (a calendar needs recent history, not all of it). */
const FEED_PAST_DAYS = 180;
/** `last_fetched_at` is written at most this often (calendar apps poll). */
const TOUCH_EVERY_MS = 60_000;

export type LawyerSelf = LawyerSelfRow;

export interface LawyerConsultation {
  id: string;
  bookingIntentId: string;
  date: string;
  startTime: string;
  endTime: string;
  timezone: string;
  startsAt: string;
  endsAt: string;
  status: ConsultationStatus;
  statusReason: string | null;
  icsSequence: number;
  person: { name: string | null; email: string };
  /** What the person chose on the hold page: the format, their number (phone), their note (third-party text: escaped on pages). */
  bought: { format: ConsultationFormat | null; phoneE164: string | null; note: string | null };
  /** Who comes and how (who-comes.ts): their name and languages, the note's language, her meeting link, the 8-character reference. */
  who: WhoComes;
  quote: Quote;
  /** The refund a cancellation started, when there is one. */
  refund: { status: 'pending' | 'succeeded' | 'failed'; amountCents: number } | null;
  /** Still to come: starts after now. */
  upcoming: boolean;
}

export interface FeedState {
  createdAt: string;
  lastFetchedAt: string | null;
}

/** Who comes, from a row: the name they gave when booking, else their account's; never their email. */
function whoOf(row: LawyerConsultationRow): WhoComes {
  return whoComes({
    consultationId: row.id,
    name: row.booked_name || row.person_name,
    languages: row.person_languages,
    languageAck: row.language_ack,
    noteLanguage: row.note_language,
    format: row.format,
    phoneE164: row.phone_e164,
    note: row.note,
    videoUrl: row.video_url,
  });
}

function at(row: LawyerConsultationRow, time: string): number {
  return zonedToUtcMs(row.slot_date, time, row.lawyer_timezone) ?? Date.parse(`${row.slot_date}T${time}Z`);
}

/** Reads of one feed: calendar apps poll every few minutes to hours; more than this is a leaked address being scraped. */
export const FEED_RULES: readonly WindowRule[] = [
  { id: 'feed-10m', limit: 30, windowMs: 10 * 60_000 },
  { id: 'feed-1d', limit: 600, windowMs: 86_400_000 },
];

export class LawyerConsultationsService {
  constructor(private readonly deps: { database: Database; clock: Clock; siteUrl: string; limiter?: RateLimitStore; onLimiterError?: (err: unknown) => void }) {}

  /** The lawyer record linked to this account, or null (she is not a lawyer). */
  async lawyerOfUser(userId: string): Promise<LawyerSelf | null> {
    return (await findLawyerOfUser(this.deps.database.db, userId)) ?? null;
  }

  private view(row: LawyerConsultationRow, nowMs: number): LawyerConsultation {
    const start = at(row, row.start_time);
    const who = whoOf(row);
    return {
      id: row.id,
      bookingIntentId: row.booking_intent_id,
      date: row.slot_date,
      startTime: row.start_time,
      endTime: row.end_time,
      timezone: row.lawyer_timezone,
      startsAt: new Date(start).toISOString(),
      endsAt: new Date(at(row, row.end_time)).toISOString(),
      status: row.status,
      statusReason: row.status_reason,
      icsSequence: row.ics_sequence,
      person: { name: who.name, email: row.person_email },
      who,
      bought: { format: row.format ?? null, phoneE164: row.phone_e164 ?? null, note: row.note ?? null },
      quote: quote(row),
      refund: null,
      upcoming: start > nowMs,
    };
  }

  /** Her consultations: upcoming soonest first, past most recent first (cancelled ones included, marked). */
  async list(lawyerId: string): Promise<{ upcoming: LawyerConsultation[]; past: LawyerConsultation[] }> {
    const now = this.deps.clock.now().getTime();
    const all = (await listConsultationsOfLawyer(this.deps.database.db, lawyerId)).map((r) => this.view(r, now));
    return { upcoming: all.filter((c) => c.upcoming), past: all.filter((c) => !c.upcoming).reverse() };
  }

  /** One of hers, with its refund; another lawyer's id is not found. */
  async get(lawyerId: string, consultationId: string): Promise<LawyerConsultation> {
    if (!UUID.test(consultationId)) throw notFound('no such consultation');
    const row = await findConsultationOfLawyer(this.deps.database.db, lawyerId, consultationId.toLowerCase());
    if (!row) throw notFound('no such consultation');
    const refund = await findRefundOfConsultation(this.deps.database.db, row.id);
    return { ...this.view(row, this.deps.clock.now().getTime()), refund: refund ? { status: refund.status, amountCents: refund.amount_cents } : null };
  }

  /**
   * Records how a consultation that has started went: held or a no-show. A cancelled or moved one
   * has no outcome; marking again corrects the outcome.
   */
  async markOutcome(lawyerId: string, consultationId: string, outcome: unknown): Promise<{ changed: boolean }> {
    if (outcome !== 'held' && outcome !== 'no_show') throw invalidRequest('outcome must be held or no_show', [{ pointer: '/outcome', detail: 'held or no_show' }]);
    const c = await this.get(lawyerId, consultationId);
    if (c.upcoming) throw conflict('this consultation has not started yet');
    if (c.status === outcome) return { changed: false };
    if (c.status !== 'confirmed' && c.status !== 'held' && c.status !== 'no_show') throw conflict(`this consultation is ${c.status}`);
    const changed = await setOutcome(this.deps.database.db, { id: c.id, lawyerId, status: outcome, at: this.deps.clock.now().toISOString() });
    return { changed };
  }

  /** Whether her feed carries phone numbers, emails and notes (off by default). */
  feedPrivateDetails(lawyerId: string): Promise<boolean> {
    return findFeedPrivateDetails(this.deps.database.db, lawyerId);
  }

  /** Turns her feed's phone numbers, emails and notes on or off. */
  async setFeedPrivateDetails(lawyerId: string, on: boolean): Promise<void> {
    await setFeedPrivateDetails(this.deps.database.db, lawyerId, on);
  }

  /** Her feed's state (no token: it is not stored), or null before she made one. */
  async feed(lawyerId: string): Promise<FeedState | null> {
    const row = await findFeed(this.deps.database.db, lawyerId);
    return row ? { createdAt: row.created_at, lastFetchedAt: row.last_fetched_at } : null;
  }

  /** A new feed token (the first, or replacing the old one: its address stops working now). Shown once. */
  async rotateFeed(lawyerId: string): Promise<{ token: string }> {
    const token = randomBytes(32).toString('base64url');
    await setFeedTokenHash(this.deps.database.db, lawyerId, sha256(token), this.deps.clock.now().toISOString());
    return { token };
  }

  /** The feed's URLs for a token: the https address and the same as webcal:// (calendar apps open it). */
  feedUrls(token: string): { https: string; webcal: string } {
    const https = `${this.deps.siteUrl}/lawyer/consultations/feed/${token}.ics`;
    return { https, webcal: https.replace(/^https?:/, 'webcal:') };
  }

  /**
   * The iCalendar text of the feed for a token, or null when no feed has it (wrong or rotated).
   * Her consultations from FEED_PAST_DAYS ago on: confirmed, held and no-show ones as events,
   * cancelled and moved ones as STATUS:CANCELLED with their raised SEQUENCE, each with the UID
   * of the person's invitation. Times are UTC instants (no VTIMEZONE needed).
   */
  async feedIcs(token: string): Promise<string | null> {
    if (!FEED_TOKEN.test(token)) return null;
    const db = this.deps.database.db;
    const lawyer = await findLawyerByFeedHash(db, sha256(token));
    if (!lawyer) return null;
    const now = this.deps.clock.now();
    // Per feed (its lawyer names the bucket: a rotated address shares it): a 429 with Retry-After when scraped.
    if (this.deps.limiter) await admitOrThrow(this.deps.limiter, `feed:${lawyer.id}`, FEED_RULES, now.getTime(), 'This calendar address is read too often; try again later.', this.deps.onLimiterError);
    if (!lawyer.last_fetched_at || now.getTime() - Date.parse(lawyer.last_fetched_at) >= TOUCH_EVERY_MS) await touchFeed(db, lawyer.id, now.toISOString());
    const since = new Date(now.getTime() - FEED_PAST_DAYS * 86_400_000).toISOString().slice(0, 10);
    // In her language, by the rule of her notice and digest (the lawyer's side is written in Spanish and English).
    const locale = lawyerSideLocale(lawyer.user_locale);
    const t = messages(locale).lawyerBookings.feed;
    const privateDetails = lawyer.feed_private_details === 1;
    const events: IcsEvent[] = (await listConsultationsOfLawyer(db, lawyer.id))
      .filter((r) => r.slot_date >= since)
      .map((r) => {
        const who = whoOf(r);
        const cancelled = r.status === 'cancelled_by_lawyer' || r.status === 'cancelled_by_person' || r.status === 'moved';
        return {
          uid: consultationUid(r.booking_intent_id, this.deps.siteUrl),
          stamp: new Date(r.status_changed_at ?? r.confirmed_at ?? r.created_at),
          date: r.slot_date,
          startTime: r.start_time,
          endTime: r.end_time,
          timezone: r.lawyer_timezone,
          summary: t.summary(who.name ?? messages(locale).lawyerBookings.noName),
          // Phone numbers, emails and notes only when she turned that on: the address is a secret, but calendars get shared.
          description: [
            ...whoComesLines(who, locale, privateDetails),
            ...(privateDetails ? [t.email(r.person_email)] : []),
            t.status(t.statuses[r.status] ?? r.status),
            ...(r.status_reason ? [t.reason(sanitizeShortText(r.status_reason))] : []),
            ...(privateDetails && who.note ? [`${messages(locale).purchase.client.note}:`, who.note] : []),
          ].join('\n'),
          ...(who.meetingUrl && !cancelled ? { location: who.meetingUrl } : {}),
          url: `${this.deps.siteUrl}/lawyer/consultations/${r.id}`,
          status: cancelled ? ('CANCELLED' as const) : ('CONFIRMED' as const),
          sequence: r.ics_sequence,
        };
      });
    return buildCalendar(events, { name: t.calendarName(sanitizeShortText(lawyer.name)) });
  }
}
