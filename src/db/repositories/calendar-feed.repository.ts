/**
 * A lawyer's own calendar feed (0031) and the busy intervals it gives (0027,
 * `lawyer_busy_intervals`, source 'ical'). docs/lawyers.md#busy-times-from-her-own-calendar.
 */
import type { Selectable } from 'kysely';
import type { LawyerCalendarFeedTable } from '../schema.ts';
import type { Executor } from './types.ts';

export type CalendarFeedRow = Selectable<LawyerCalendarFeedTable>;

const updated = (result: { numUpdatedRows?: bigint }) => Number(result.numUpdatedRows ?? 0n) > 0;

/** The lawyer record a signed-in user is (lawyers.user_id), with what the feed needs of it. */
export function findLawyerOfUser(db: Executor, userId: string): Promise<{ id: string; name: string; timezone: string; horizon_days: number } | undefined> {
  return db.selectFrom('lawyers').select(['id', 'name', 'timezone', 'horizon_days']).where('user_id', '=', userId).executeTakeFirst();
}

export function findLawyerCalendarFacts(db: Executor, lawyerId: string): Promise<{ timezone: string; horizon_days: number; verified: number } | undefined> {
  return db.selectFrom('lawyers').select(['timezone', 'horizon_days', 'verified']).where('id', '=', lawyerId).executeTakeFirst();
}

export function findFeed(db: Executor, lawyerId: string): Promise<CalendarFeedRow | undefined> {
  return db.selectFrom('lawyer_calendar_feeds').selectAll().where('lawyer_id', '=', lawyerId).executeTakeFirst();
}

/** Adds her feed or replaces its address (validators, errors and counts start again). */
export async function upsertFeed(db: Executor, row: { lawyer_id: string; url: string; url_hint: string; nowIso: string }): Promise<void> {
  const fresh = {
    url: row.url,
    url_hint: row.url_hint,
    updated_at: row.nowIso,
    next_due_at: row.nowIso,
    last_attempt_at: null,
    last_success_at: null,
    parsed_at: null,
    last_error_code: null,
    last_error_message: null,
    last_error_at: null,
    etag: null,
    last_modified: null,
    busy_count: 0,
  };
  await db
    .insertInto('lawyer_calendar_feeds')
    .values({ lawyer_id: row.lawyer_id, created_at: row.nowIso, manual_refresh_at: null, ...fresh })
    .onConflict((oc) => oc.column('lawyer_id').doUpdateSet(fresh))
    .execute();
}

export async function deleteFeed(db: Executor, lawyerId: string): Promise<boolean> {
  const result = await db.deleteFrom('lawyer_calendar_feeds').where('lawyer_id', '=', lawyerId).executeTakeFirst();
  return Number(result.numDeletedRows ?? 0n) > 0;
}

/** Feeds due at `nowIso`, oldest first (candidates: each is then claimed with claimFeed). */
/** The due feeds of verified lawyers (only they may have one read: issue 25), the longest due first. */
export function listDueFeeds(db: Executor, nowIso: string, limit: number): Promise<Array<{ lawyer_id: string; next_due_at: string }>> {
  return db
    .selectFrom('lawyer_calendar_feeds as f')
    .innerJoin('lawyers as l', 'l.id', 'f.lawyer_id')
    .select(['f.lawyer_id', 'f.next_due_at'])
    .where('f.next_due_at', '<=', nowIso)
    .where('l.verified', '=', 1)
    .orderBy('f.next_due_at')
    .limit(limit)
    .execute();
}

/**
 * Claims a due feed for this process: moves its next-due time forward only if it is still the
 * one that was seen. Of several processes that saw the same feed due, exactly one wins.
 */
export async function claimFeed(db: Executor, lawyerId: string, seenDueAt: string, nextDueIso: string): Promise<boolean> {
  return updated(await db.updateTable('lawyer_calendar_feeds').set({ next_due_at: nextDueIso }).where('lawyer_id', '=', lawyerId).where('next_due_at', '=', seenDueAt).executeTakeFirst());
}

/** Claims her "refresh now" unless she had one since `notBeforeIso` (one a minute). */
export async function claimManualRefresh(db: Executor, lawyerId: string, nowIso: string, notBeforeIso: string, nextDueIso: string): Promise<boolean> {
  return updated(
    await db
      .updateTable('lawyer_calendar_feeds')
      .set({ manual_refresh_at: nowIso, next_due_at: nextDueIso })
      .where('lawyer_id', '=', lawyerId)
      .where((eb) => eb.or([eb('manual_refresh_at', 'is', null), eb('manual_refresh_at', '<=', notBeforeIso)]))
      .executeTakeFirst(),
  );
}

/** A good read with a body: the feed's record, if its address is still `url`. */
export async function recordFeedSuccess(
  db: Executor,
  lawyerId: string,
  url: string,
  values: { nowIso: string; etag: string | null; lastModified: string | null; busyCount: number },
): Promise<boolean> {
  return updated(
    await db
      .updateTable('lawyer_calendar_feeds')
      .set({
        last_attempt_at: values.nowIso,
        last_success_at: values.nowIso,
        parsed_at: values.nowIso,
        last_error_code: null,
        last_error_message: null,
        last_error_at: null,
        etag: values.etag,
        last_modified: values.lastModified,
        busy_count: values.busyCount,
      })
      .where('lawyer_id', '=', lawyerId)
      .where('url', '=', url)
      .executeTakeFirst(),
  );
}

/** A 304: nothing changed since the last good read. */
export async function recordFeedNotModified(db: Executor, lawyerId: string, url: string, nowIso: string): Promise<boolean> {
  return updated(
    await db
      .updateTable('lawyer_calendar_feeds')
      .set({ last_attempt_at: nowIso, last_success_at: nowIso, last_error_code: null, last_error_message: null, last_error_at: null })
      .where('lawyer_id', '=', lawyerId)
      .where('url', '=', url)
      .executeTakeFirst(),
  );
}

/** A failed read: the error is recorded; the last good intervals stay. */
export async function recordFeedFailure(db: Executor, lawyerId: string, url: string, values: { nowIso: string; code: string; message: string }): Promise<boolean> {
  return updated(
    await db
      .updateTable('lawyer_calendar_feeds')
      .set({ last_attempt_at: values.nowIso, last_error_code: values.code, last_error_message: values.message, last_error_at: values.nowIso })
      .where('lawyer_id', '=', lawyerId)
      .where('url', '=', url)
      .executeTakeFirst(),
  );
}

export function listBusyIntervals(db: Executor, lawyerId: string): Promise<Array<{ source: string; starts_at: string; ends_at: string }>> {
  return db.selectFrom('lawyer_busy_intervals').select(['source', 'starts_at', 'ends_at']).where('lawyer_id', '=', lawyerId).orderBy('starts_at').execute();
}
