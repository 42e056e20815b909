/**
 * The holds a person made on the site itself (the free-times page's POST, `source: widget`, no
 * API key, no AI app): found by the confirmation tokens their browser keeps (the holds cookie) or,
 * when they were signed in, by `held_for_user_id` (with no OAuth client: an AI app's holds are
 * another thing). Holds made through the API or MCP are never found here.
 */
import type { BookingIntentTable } from '../schema.ts';
import { tryClaimIdempotencyKey } from './idempotency.repository.ts';
import type { Executor } from './types.ts';

/** The idempotency scope recording that a site hold was followed (replaced, or chosen again after being let go). */
const FOLLOWS_SCOPE = 'site-hold-follows';

/** Whose site holds: the browser's tokens, and the signed-in person. */
export interface SiteHolderRef {
  tokens: readonly string[];
  userId: string | null;
}

export type SiteHoldRow = BookingIntentTable & { lawyer_name: string; lawyer_timezone: string };

/**
 * The person's site holds that are still pending (unexpired at `nowIso`) or were created since
 * `sinceIso`, newest first, with the lawyer's name and zone.
 */
export async function listSiteHolds(db: Executor, who: SiteHolderRef, nowIso: string, sinceIso: string): Promise<SiteHoldRow[]> {
  if (who.tokens.length === 0 && who.userId === null) return [];
  return db
    .selectFrom('booking_intents as i')
    .innerJoin('lawyers as l', 'l.id', 'i.lawyer_id')
    .selectAll('i')
    .select(['l.name as lawyer_name', 'l.timezone as lawyer_timezone'])
    .where('i.key_id', 'is', null)
    .where('i.oauth_client_id', 'is', null)
    .where('i.source', '=', 'widget')
    .where((eb) => {
      const mine = [];
      if (who.tokens.length > 0) mine.push(eb('i.confirmation_token', 'in', [...who.tokens]));
      if (who.userId !== null) mine.push(eb('i.held_for_user_id', '=', who.userId));
      return eb.or(mine);
    })
    .where((eb) => eb.or([eb.and([eb('i.status', '=', 'pending'), eb('i.expires_at', '>', nowIso)]), eb('i.created_at', '>=', sinceIso)]))
    .orderBy('i.created_at', 'desc')
    .limit(50)
    .execute() as Promise<SiteHoldRow[]>;
}

/** Ends these pending holds now, whatever their expiry (let go, or replaced): the rows it changed. */
export function endPendingIntents(db: Executor, ids: readonly string[], nowIso: string): Promise<BookingIntentTable[]> {
  if (ids.length === 0) return Promise.resolve([]);
  return db.updateTable('booking_intents').set({ status: 'expired', expired_at: nowIso }).where('id', 'in', [...ids]).where('status', '=', 'pending').returningAll().execute();
}

/**
 * Records, in the caller's transaction, that a hold follows the site hold `id`: true for the first
 * caller only (the idempotency table's primary key), so each hold is followed once.
 */
export function claimFollow(db: Executor, id: string, nowIso: string): Promise<boolean> {
  return tryClaimIdempotencyKey(db, { scope: FOLLOWS_SCOPE, key: id, fingerprint: '', state: 'completed', locked_until: null, response_status: null, response_body: null, response_headers: null, created_at: nowIso });
}

/** Which of these site holds were already followed. */
export async function followedAmong(db: Executor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await db.selectFrom('idempotency_keys').select('key').where('scope', '=', FOLLOWS_SCOPE).where('key', 'in', [...ids]).execute();
  return new Set(rows.map((r) => r.key));
}
