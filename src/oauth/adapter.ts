/**
 * oidc-provider's storage adapter over our database (SQLite or PostgreSQL through Kysely): one
 * table, one row per object. Objects whose id is a bearer secret (tokens, codes, sessions,
 * interactions…) are stored under the SHA-256 of the id, and their payload without the id, so a
 * copy of the database hands out nothing usable. Grants and registered clients keep their ids:
 * grant ids are shown on connected apps and in the CLI, client ids are public.
 */
import type { Adapter, AdapterPayload } from 'oidc-provider';
import type { Clock } from '../clock.ts';
import type { Database } from '../db/database.ts';
import {
  consumeOAuthRecord,
  deleteOAuthRecord,
  deleteOAuthTokensOfGrant,
  findOAuthRecord,
  findOAuthRecordByUid,
  upsertOAuthRecord,
} from '../db/repositories/oauth.repository.ts';
import { hashOAuthId } from '../domain/oauth/token-hash.ts';

/** Models whose ids are not secret. */
const CLEAR_ID_MODELS = new Set(['Grant', 'Client']);

/** The class oidc-provider instantiates once per model name. */
export type AdapterClass = new (model: string) => Adapter;

/** Builds the adapter class bound to a database and clock (expiry instants use the injected clock). */
export function kyselyAdapter(database: Database, clock: Clock): AdapterClass {
  return class KyselyAdapter implements Adapter {
    private readonly hashed: boolean;

    constructor(private readonly model: string) {
      this.hashed = !CLEAR_ID_MODELS.has(model);
    }

    private key(id: string): string {
      return this.hashed ? hashOAuthId(id) : id;
    }

    async upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void> {
      const now = clock.now();
      const stored: AdapterPayload = { ...payload };
      if (this.hashed) delete stored.jti;
      await upsertOAuthRecord(database.db, {
        model: this.model,
        id: this.key(id),
        payload: JSON.stringify(stored),
        grant_id: payload.grantId ?? null,
        account_id: payload.accountId ?? null,
        client_id: payload.clientId ?? (this.model === 'Client' ? (payload.client_id ?? null) : null),
        uid: payload.uid ? this.key(payload.uid) : null,
        expires_at: expiresIn ? new Date(now.getTime() + expiresIn * 1000).toISOString() : null,
        consumed_at: null,
        last_used_at: null,
        created_at: now.toISOString(),
      });
    }

    async find(id: string): Promise<AdapterPayload | undefined> {
      return this.load(await findOAuthRecord(database.db, this.model, this.key(id)), id);
    }

    async findByUid(uid: string): Promise<AdapterPayload | undefined> {
      // Only Sessions are found by uid, to check that one still exists and whose it is; the
      // session's own id (its cookie value) is stored hashed and not returned.
      return this.load(await findOAuthRecordByUid(database.db, this.model, this.key(uid)), '');
    }

    async findByUserCode(): Promise<undefined> {
      // The device flow is not enabled.
      return undefined;
    }

    async consume(id: string): Promise<void> {
      await consumeOAuthRecord(database.db, this.model, this.key(id), clock.now().toISOString());
    }

    async destroy(id: string): Promise<void> {
      await deleteOAuthRecord(database.db, this.model, this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await deleteOAuthTokensOfGrant(database.db, grantId);
    }

    private load(row: { payload: string; expires_at: string | null; consumed_at: string | null } | undefined, id: string): AdapterPayload | undefined {
      if (!row) return undefined;
      // Expired rows are gone as far as anyone can tell, even before the sweep deletes them.
      if (row.expires_at !== null && row.expires_at <= clock.now().toISOString()) return undefined;
      const payload = JSON.parse(row.payload) as AdapterPayload;
      if (this.hashed && id) payload.jti = id;
      if (row.consumed_at !== null) payload.consumed = Math.floor(Date.parse(row.consumed_at) / 1000);
      return payload;
    }
  };
}
