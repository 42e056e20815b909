/**
 * Signed-in sessions. The browser holds a random 32-byte token; only its SHA-256 is stored, so a
 * copy of the database signs nobody in. A session ends at its absolute expiry, after
 * `sessionIdleDays` unused, at sign-out, or when every session of the user is revoked.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import {
  findSessionByTokenHash,
  insertSession,
  markSessionSteppedUp,
  purgeEndedIdentityRows,
  revokeSessionByTokenHash,
  revokeSessionsOfUser,
  setUserLocale,
  touchSession,
} from '../../db/repositories/identity.repository.ts';
import { findUserById } from '../../db/repositories/account.repository.ts';
import { deleteOAuthSessionsOfAccount } from '../../db/repositories/oauth.repository.ts';
import { isLocale, type Locale } from '../../i18n/index.ts';

const DAY_MS = 86_400_000;
/**
 * Which sign-in challenges and sessions the purge deletes at `now`: those that ended (expired,
 * revoked, or idle for `idleDays`) a day ago or more. The day's grace lets a late visitor still
 * be told "expired".
 */
export function endedIdentityCutoffs(now: Date, idleDays: number): { endedBefore: string; idleBefore: string } {
  const cutoffMs = now.getTime() - DAY_MS;
  return { endedBefore: new Date(cutoffMs).toISOString(), idleBefore: new Date(cutoffMs - idleDays * DAY_MS).toISOString() };
}

/** last_seen_at is written at most this often: not a write per page view. */
const TOUCH_EVERY_MS = 60_000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export const sha256 = (value: string): string => createHash('sha256').update(value).digest('hex');

export interface SessionUser {
  id: string;
  email: string;
  name: string | null;
  locale: string | null;
  /** Listed in `operators` (consulta operators add): may open the operator console. */
  operator: boolean;
  /** Linked to a lawyer record (lawyers.user_id): the site header offers her the lawyer's portal. */
  lawyer: boolean;
  /**
   * Has done developer work: an API key or a webhook endpoint of their own, a firm membership, or
   * is an operator. Only then does the site's header offer the developer area everywhere; a person
   * who only books never meets it there (docs/site.md#two-areas-people-and-developers).
   */
  developer: boolean;
}

/** A signed-in browser's session as pages see it. */
export interface AuthenticatedSession {
  user: SessionUser;
  sessionId: string;
  /** When this session last proved a passkey, or null. */
  stepUpAt: string | null;
  /** When it ends if it is not used again: its absolute expiry or the end of its idle time, whichever is first. */
  endsAt: string;
}

/** How recent a passkey proof must be for sensitive operator actions. */
export const STEP_UP_WINDOW_MS = 10 * 60_000;

export class SessionService {
  constructor(private readonly deps: { database: Database; clock: Clock; config: Pick<Config, 'sessionIdleDays' | 'sessionMaxDays'> }) {}

  /** A new session for the user; the token goes in the cookie and is never stored. */
  async create(userId: string, meta: { ip: string; userAgent?: string; /** Signed in with a passkey: counts as a step-up. */ passkey?: boolean }): Promise<{ id: string; token: string; expiresAt: string }> {
    const now = this.deps.clock.now();
    const token = randomBytes(32).toString('base64url');
    const id = randomUUID();
    const expiresAt = new Date(now.getTime() + this.deps.config.sessionMaxDays * DAY_MS).toISOString();
    await insertSession(this.deps.database.db, {
      id,
      token_hash: sha256(token),
      user_id: userId,
      created_at: now.toISOString(),
      last_seen_at: now.toISOString(),
      expires_at: expiresAt,
      revoked_at: null,
      client_ip: meta.ip,
      user_agent: meta.userAgent?.slice(0, 300) ?? null,
      step_up_at: meta.passkey ? now.toISOString() : null,
    });
    return { id, token, expiresAt };
  }

  /** The signed-in user of a cookie's token, or null (unknown, revoked, idle or past its end). */
  async authenticate(token: string | undefined): Promise<AuthenticatedSession | null> {
    if (!token || !TOKEN.test(token)) return null;
    const row = await findSessionByTokenHash(this.deps.database.db, sha256(token));
    if (!row || row.revoked_at !== null) return null;
    const nowMs = this.deps.clock.now().getTime();
    if (Date.parse(row.expires_at) <= nowMs) return null;
    let lastSeen = Date.parse(row.last_seen_at);
    const idleMs = this.deps.config.sessionIdleDays * DAY_MS;
    if (lastSeen + idleMs <= nowMs) return null;
    if (nowMs - lastSeen >= TOUCH_EVERY_MS) {
      await touchSession(this.deps.database.db, row.id, new Date(nowMs).toISOString());
      lastSeen = nowMs;
    }
    return {
      user: { id: row.user_id, email: row.email, name: row.name, locale: row.locale, operator: row.operator_since !== null, lawyer: row.lawyer_id !== null, developer: row.operator_since !== null || Boolean(row.has_developer_work) },
      sessionId: row.id,
      stepUpAt: row.step_up_at,
      endsAt: new Date(Math.min(Date.parse(row.expires_at), lastSeen + idleMs)).toISOString(),
    };
  }

  /** Records that the session has just proved a passkey (sign-in with one, or a step-up). */
  markSteppedUp(sessionId: string): Promise<void> {
    return markSessionSteppedUp(this.deps.database.db, sessionId, this.deps.clock.now().toISOString());
  }

  /** Whether the session proved a passkey within the step-up window (10 minutes). */
  steppedUpRecently(stepUpAt: string | null): boolean {
    return stepUpAt !== null && this.deps.clock.now().getTime() - Date.parse(stepUpAt) < STEP_UP_WINDOW_MS;
  }

  /**
   * Ends this browser's session, and the OAuth authorization server's login sessions of its
   * person (they would otherwise let an app's next authorization through without the person:
   * docs/mcp.md#sessions). Their apps' grants stay: an app keeps working until disconnected.
   */
  async signOut(token: string): Promise<void> {
    if (!TOKEN.test(token)) return;
    await this.deps.database.db.transaction().execute(async (tx) => {
      const userId = await revokeSessionByTokenHash(tx, sha256(token), this.deps.clock.now().toISOString());
      if (userId !== undefined) await deleteOAuthSessionsOfAccount(tx, userId);
    });
  }

  /** Ends every session of the user, at their own request. Returns how many. */
  signOutEverywhere(userId: string): Promise<number> {
    return this.revokeAllForUser(userId);
  }

  /**
   * Ends every session of the user, the authorization server's login sessions included: what
   * sign-out everywhere does and what suspending them will call. Returns how many site sessions.
   */
  revokeAllForUser(userId: string): Promise<number> {
    return this.deps.database.db.transaction().execute(async (tx) => {
      const revoked = await revokeSessionsOfUser(tx, userId, this.deps.clock.now().toISOString());
      await deleteOAuthSessionsOfAccount(tx, userId);
      return revoked;
    });
  }

  /** The language emails to this person are written in. */
  setLocale(userId: string, locale: Locale): Promise<void> {
    return setUserLocale(this.deps.database.db, userId, locale);
  }

  /** The language stored on the account (setLocale, or the last sign-in's), or null when none is. */
  async accountLocale(userId: string): Promise<Locale | null> {
    const locale = (await findUserById(this.deps.database.db, userId))?.locale;
    return isLocale(locale) ? locale : null;
  }

  /**
   * Deletes sign-in challenges and sessions that ended (expired, revoked or idle) a day ago or
   * more, in bounded batches. The day's grace lets a late visitor still be told "expired".
   */
  async purgeExpired(batch = 1000): Promise<number> {
    const cutoffs = endedIdentityCutoffs(this.deps.clock.now(), this.deps.config.sessionIdleDays);
    let total = 0;
    for (;;) {
      const n = await purgeEndedIdentityRows(this.deps.database.db, cutoffs, batch);
      total += n;
      if (n < batch) return total;
    }
  }
}
