/**
 * Idempotency-Key semantics (IETF draft): per caller scope, a key and its request fingerprint.
 * The same key and body within 24 h replays the stored outcome; a different body is a 422.
 *
 * A hold reads the key first (`lookup`, no write) and stores its outcome in its own transaction
 * (`storeIdempotentOutcome`, one commit per hold): the record is written exactly when the hold
 * is, and a concurrent request with the same key finds the key taken when it stores its own,
 * rolls back and answers the committed outcome. In-progress claims (`claim`, a lease) remain for
 * records written that way (older processes during a rolling deploy): a live one is a 409, a
 * lapsed one is taken over.
 */
import { createHash } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  deleteIdempotencyClaim,
  deleteStaleIdempotencyKey,
  findIdempotencyKey,
  purgeIdempotencyKeysBefore,
  takeOverLapsedClaim,
  tryClaimIdempotencyKey,
} from '../../db/repositories/idempotency.repository.ts';
import type { IdempotencyKeyTable } from '../../db/schema.ts';
import { DomainError } from '../errors.ts';
import { drainInBatches } from '../operations/batches.ts';

export const REPLAY_WINDOW_MS = 24 * 3_600_000;

export interface StoredOutcome {
  status: number;
  /** The exact bytes of the original body. */
  body: string;
  headers: Record<string, string>;
}

export type Claim = { kind: 'owner' } | { kind: 'replay'; outcome: StoredOutcome };

/** JSON with object keys sorted at every level, so key order and whitespace do not matter. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

export function fingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n`).update(canonicalJson(body)).digest('hex');
}

export class IdempotencyService {
  constructor(private readonly deps: { database: Database; clock: Clock; leaseSeconds: number }) {}

  /**
   * What (scope, key) says before a request does any work, without writing: a stored outcome to
   * replay (once it is on disk), `new` (nothing stored, a record past the replay window, or a
   * lapsed claim), or throws 422 (another body) / 409 (a live in-progress claim).
   */
  async lookup(scope: string, key: string, print: string): Promise<{ kind: 'new' } | { kind: 'replay'; outcome: StoredOutcome }> {
    const now = this.deps.clock.now().getTime();
    const existing = await findIdempotencyKey(this.deps.database.db, scope, key);
    if (!existing || existing.created_at < new Date(now - REPLAY_WINDOW_MS).toISOString()) return { kind: 'new' };
    if (existing.fingerprint !== print) {
      throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body within the last 24 hours. Use a new key for a new request.');
    }
    if (existing.state === 'completed') {
      // Stored by a request that may have committed a moment ago: answered once it is on disk.
      await this.deps.database.durable();
      return { kind: 'replay', outcome: { status: existing.response_status!, body: existing.response_body!, headers: JSON.parse(existing.response_headers ?? '{}') as Record<string, string> } };
    }
    if (existing.locked_until !== null && existing.locked_until <= new Date(now).toISOString()) return { kind: 'new' };
    throw new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly to get its result.', undefined, { 'retry-after': '1' });
  }

  /** The arguments of storeIdempotentOutcome for this outcome, now. */
  record(scope: string, key: string, print: string, outcome: StoredOutcome): { row: IdempotencyKeyTable; staleBefore: string; nowIso: string } {
    const now = this.deps.clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    return {
      row: { scope, key, fingerprint: print, state: 'completed', locked_until: null, response_status: outcome.status, response_body: outcome.body, response_headers: JSON.stringify(outcome.headers), created_at: nowIso },
      staleBefore: new Date(now - REPLAY_WINDOW_MS).toISOString(),
      nowIso,
    };
  }

  /** Claims (scope, key) for this request, or returns the outcome to replay; throws 409/422. */
  async claim(scope: string, key: string, print: string): Promise<Claim> {
    const db = this.deps.database.db;
    const now = this.deps.clock.now().getTime();
    const nowIso = new Date(now).toISOString();
    const lockedUntil = new Date(now + this.deps.leaseSeconds * 1000).toISOString();
    // A record older than the replay window no longer binds the key.
    await deleteStaleIdempotencyKey(db, scope, key, new Date(now - REPLAY_WINDOW_MS).toISOString());
    for (let attempt = 0; attempt < 3; attempt++) {
      const claimed = await tryClaimIdempotencyKey(db, {
        scope,
        key,
        fingerprint: print,
        state: 'in_progress',
        locked_until: lockedUntil,
        response_status: null,
        response_body: null,
        response_headers: null,
        created_at: nowIso,
      });
      if (claimed) return { kind: 'owner' };
      const existing = await findIdempotencyKey(db, scope, key);
      if (!existing) continue; // released in between: try again
      if (existing.fingerprint !== print) {
        throw new DomainError('idempotency_key_reused', 'This Idempotency-Key was already used with a different request body within the last 24 hours. Use a new key for a new request.');
      }
      if (existing.state === 'completed') {
        return {
          kind: 'replay',
          outcome: { status: existing.response_status!, body: existing.response_body!, headers: JSON.parse(existing.response_headers ?? '{}') as Record<string, string> },
        };
      }
      if (existing.locked_until !== null && existing.locked_until <= nowIso && (await takeOverLapsedClaim(db, scope, key, nowIso, lockedUntil))) {
        return { kind: 'owner' };
      }
      throw new DomainError('idempotency_key_in_use', 'A request with this Idempotency-Key is still being processed; retry shortly to get its result.', undefined, {
        'retry-after': '1',
      });
    }
    throw new DomainError('idempotency_key_in_use', 'This Idempotency-Key is contended; retry shortly.', undefined, { 'retry-after': '1' });
  }

  /** Gives up a claim whose outcome is not stored, so a retry runs afresh. */
  async release(scope: string, key: string): Promise<void> {
    await deleteIdempotencyClaim(this.deps.database.db, scope, key);
  }

  /** Deletes records past the replay window, in bounded batches. */
  async purge(batch = 1000): Promise<number> {
    const cutoff = new Date(this.deps.clock.now().getTime() - REPLAY_WINDOW_MS).toISOString();
    return (await drainInBatches((limit) => purgeIdempotencyKeysBefore(this.deps.database.db, cutoff, limit), batch)).deleted;
  }
}
