/** API keys: lookup by hash (authentication), owner listings and guarded state changes. */
import { sql } from 'kysely';
import type { ApiKeyTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** A key row with what identifies its owner to people: the user's email or the firm's slug. */
export interface ApiKeyRow extends ApiKeyTable {
  owner_email: string | null;
  owner_firm_slug: string | null;
}

function selectKeys(db: Executor) {
  return db
    .selectFrom('api_keys')
    .leftJoin('users as owner_user', 'owner_user.id', 'api_keys.owner_user_id')
    .leftJoin('firms as owner_firm', 'owner_firm.id', 'api_keys.owner_firm_id')
    .selectAll('api_keys')
    .select(['owner_user.email as owner_email', 'owner_firm.slug as owner_firm_slug']);
}

/** Stores a new key (its hash, never the key). */
export async function insertApiKey(db: Executor, key: ApiKeyTable): Promise<void> {
  await db.insertInto('api_keys').values(key).execute();
}

/** The key whose stored hash is `hash` (revoked, expired and suspended keys included). */
export function findApiKeyByHash(db: Executor, hash: string): Promise<ApiKeyRow | undefined> {
  return selectKeys(db).where('api_keys.key_hash', '=', hash).executeTakeFirst();
}

/** The key with this id, with its owner's email or slug. */
export function findApiKeyById(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return selectKeys(db).where('api_keys.id', '=', id).executeTakeFirst();
}

export interface ApiKeyListFilter {
  ownerUserId?: string;
  ownerFirmId?: string;
}

/** Keys of one owner (or every key without a filter), newest first. */
export function listApiKeys(db: Executor, filter: ApiKeyListFilter): Promise<ApiKeyRow[]> {
  let query = selectKeys(db);
  if (filter.ownerUserId !== undefined) query = query.where('api_keys.owner_user_id', '=', filter.ownerUserId);
  if (filter.ownerFirmId !== undefined) query = query.where('api_keys.owner_firm_id', '=', filter.ownerFirmId);
  return query.orderBy('api_keys.created_at', 'desc').orderBy('api_keys.id').execute();
}

/** Firm keys created by one person that still work or could work again (not revoked, not expired). */
export function listLiveFirmKeysCreatedBy(db: Executor, firmId: string, userId: string, nowIso: string): Promise<ApiKeyRow[]> {
  return selectKeys(db)
    .where('api_keys.owner_firm_id', '=', firmId)
    .where('api_keys.created_by_user_id', '=', userId)
    .where('api_keys.revoked_at', 'is', null)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', nowIso)]))
    .orderBy('api_keys.created_at')
    .orderBy('api_keys.id')
    .execute();
}

/** Revokes a key that is not revoked yet; false when it already was. */
export async function revokeApiKey(db: Executor, id: string, atIso: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ revoked_at: atIso }).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Sets a suspension on an unrevoked key, but only while the current suspension party is one of
 * `ifCurrentBy` (null = not suspended). The condition is part of the UPDATE, so a firm can never
 * overwrite an operator suspension that landed between its read and its write.
 * Returns false when the guard did not hold.
 */
export async function setApiKeySuspension(
  db: Executor,
  id: string,
  suspension: { by: string; reason: string; at: string },
  ifCurrentBy: ReadonlyArray<string | null>,
): Promise<boolean> {
  const parties = ifCurrentBy.filter((p): p is string => p !== null);
  const result = await db
    .updateTable('api_keys')
    .set({ suspended_by: suspension.by, suspension_reason: suspension.reason, suspended_at: suspension.at })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where((eb) => {
      const options = [];
      if (ifCurrentBy.includes(null)) options.push(eb('suspended_by', 'is', null));
      if (parties.length > 0) options.push(eb('suspended_by', 'in', parties));
      return eb.or(options);
    })
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Clears the suspension of an unrevoked key if it was set by `by`; false when it was not. */
export async function clearApiKeySuspension(db: Executor, id: string, by: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ suspended_by: null, suspension_reason: null, suspended_at: null })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .where('suspended_by', '=', by)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Changes tier or allow-list of an unrevoked key; false when it is revoked (or unknown). */
export async function updateApiKeySettings(
  db: Executor,
  id: string,
  changes: Partial<Pick<ApiKeyTable, 'tier' | 'allowed_ips'>>,
): Promise<boolean> {
  const result = await db.updateTable('api_keys').set(changes).where('id', '=', id).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/**
 * Keys whose display prefix starts with `start`, or equals one of `exact` (the prefix of a longer
 * string someone pasted), newest first: the operator console's search.
 */
export function findApiKeysByPrefix(db: Executor, start: string, exact: readonly string[], limit: number): Promise<ApiKeyRow[]> {
  const pattern = `${start.replace(/[!%_]/g, (c) => `!${c}`)}%`;
  return selectKeys(db)
    .where((eb) => eb.or([sql<boolean>`api_keys.prefix like ${pattern} escape '!'`, ...(exact.length > 0 ? [eb('api_keys.prefix', 'in', exact)] : [])]))
    .orderBy('api_keys.created_at', 'desc')
    .orderBy('api_keys.id')
    .limit(limit)
    .execute();
}
