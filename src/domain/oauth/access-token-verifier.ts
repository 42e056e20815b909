/**
 * The resource server's view of an OAuth access token: who it acts for, for which client, with
 * which levels, until when. The MCP endpoint depends on this interface only, never on the
 * authorization server's internals.
 *
 * Tokens are opaque; the database holds the SHA-256 of each one. A token is accepted when its
 * row exists, is unexpired and unconsumed, was issued for our one resource (MCP_URL) and its grant
 * still exists: revoking a grant on the site deletes the grant and its tokens, so the next check
 * refuses them. Answers are cached per process for at most `cacheTtlMs` (1 s): a revocation made
 * in this process drops the cache entries of the grant at once; one made in another process is
 * seen within that second.
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findAccessTokenForResource, touchGrant } from '../../db/repositories/oauth.repository.ts';
import { hashOAuthId } from './token-hash.ts';
import { appDisplayName } from '../third-party-text.ts';

/** What an accepted token stands for. */
export interface VerifiedAccess {
  grantId: string;
  /** The person (users.id) who consented. */
  userId: string;
  clientId: string;
  /** The client's name as the person saw it on the consent page. */
  clientName: string;
  scopes: string[];
  expiresAt: Date;
}

/** Checks bearer tokens presented to the MCP endpoint. */
export interface AccessTokenVerifier {
  /** The token's access, or null when it is not (or no longer) valid for this resource. */
  verify(token: string): Promise<VerifiedAccess | null>;
  /** Forgets cached answers for a grant (called when this process revokes it). */
  forgetGrant(grantId: string): void;
}

interface StoredAccessToken {
  accountId?: string;
  clientId?: string;
  grantId?: string;
  scope?: string;
  aud?: string | string[];
  exp?: number;
}

/** How long a grant's last use is left alone before it is written again. */
const LAST_USE_RESOLUTION_MS = 60_000;
/** Cached answers kept at most (a flood of made-up tokens must not grow memory without bound). */
const MAX_CACHED = 10_000;

export interface DatabaseAccessTokenVerifierDeps {
  database: Database;
  clock: Clock;
  /** The one resource tokens must be issued for (MCP_URL). */
  audience: string;
  cacheTtlMs?: number;
}

/** The verifier over our own database (the authorization server's storage). */
export class DatabaseAccessTokenVerifier implements AccessTokenVerifier {
  private readonly cache = new Map<string, { access: VerifiedAccess | null; until: number }>();
  private readonly touched = new Map<string, number>();
  private readonly cacheTtlMs: number;

  constructor(private readonly deps: DatabaseAccessTokenVerifierDeps) {
    this.cacheTtlMs = deps.cacheTtlMs ?? 1000;
  }

  async verify(token: string): Promise<VerifiedAccess | null> {
    // API keys are never OAuth tokens; the shape check spares the database junk.
    if (token.length < 20 || token.length > 512 || token.startsWith('svc_')) return null;
    const nowMs = this.deps.clock.now().getTime();
    const key = hashOAuthId(token);
    const cached = this.cache.get(key);
    let access: VerifiedAccess | null;
    if (cached && cached.until > nowMs) {
      access = cached.access;
    } else {
      access = await this.load(key, nowMs);
      if (this.cache.size >= MAX_CACHED) this.cache.clear();
      this.cache.set(key, { access, until: nowMs + this.cacheTtlMs });
    }
    if (!access || access.expiresAt.getTime() <= nowMs) return null;
    this.noteUse(access.grantId, nowMs);
    return access;
  }

  forgetGrant(grantId: string): void {
    for (const [key, entry] of this.cache) if (entry.access?.grantId === grantId) this.cache.delete(key);
  }

  private async load(key: string, nowMs: number): Promise<VerifiedAccess | null> {
    const row = await findAccessTokenForResource(this.deps.database.db, key);
    if (!row || row.live_grant === null || row.consumed_at !== null) return null;
    if (row.expires_at !== null && Date.parse(row.expires_at) <= nowMs) return null;
    const payload = JSON.parse(row.payload) as StoredAccessToken;
    const audiences = Array.isArray(payload.aud) ? payload.aud : payload.aud === undefined ? [] : [payload.aud];
    // Bound to one audience: ours, and only ours (a token for several resources is refused too).
    if (audiences.length !== 1 || audiences[0] !== this.deps.audience) return null;
    if (!payload.accountId || !payload.clientId || !payload.grantId || payload.exp === undefined) return null;
    const expiresAtMs = Math.min(payload.exp * 1000, row.expires_at !== null ? Date.parse(row.expires_at) : Infinity);
    return {
      grantId: payload.grantId,
      userId: payload.accountId,
      clientId: payload.clientId,
      // Third-party text: registrations refuse control and invisible characters; older rows are cleaned.
      clientName: appDisplayName(row.client_name ?? payload.clientId),
      scopes: (payload.scope ?? '').split(' ').filter(Boolean),
      expiresAt: new Date(expiresAtMs),
    };
  }

  /** Connected apps show when each grant was last used; written at most once a minute per grant. */
  private noteUse(grantId: string, nowMs: number): void {
    const last = this.touched.get(grantId);
    if (last !== undefined && nowMs - last < LAST_USE_RESOLUTION_MS) return;
    if (this.touched.size >= MAX_CACHED) this.touched.clear();
    this.touched.set(grantId, nowMs);
    const nowIso = new Date(nowMs).toISOString();
    touchGrant(this.deps.database.db, grantId, nowIso, new Date(nowMs - LAST_USE_RESOLUTION_MS).toISOString()).catch(() => {
      // Best effort: a missed last-use write changes nothing but a date on a page.
      this.touched.delete(grantId);
    });
  }
}
