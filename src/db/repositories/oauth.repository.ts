/**
 * The OAuth authorization server's storage: oidc-provider's objects (one row per object, keyed by
 * model and id), the client profiles shown on connected apps, and the lookups the MCP endpoint
 * makes to check an access token without going through oidc-provider.
 */
import type { OAuthClientProfileTable, OAuthRecordTable } from '../schema.ts';
import type { Executor } from './types.ts';

/** Inserts or replaces one object (oidc-provider's upsert). `last_used_at` and `created_at` survive replacement. */
export async function upsertOAuthRecord(db: Executor, row: OAuthRecordTable): Promise<void> {
  await db
    .insertInto('oauth_records')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['model', 'id']).doUpdateSet({
        payload: row.payload,
        grant_id: row.grant_id,
        account_id: row.account_id,
        client_id: row.client_id,
        uid: row.uid,
        expires_at: row.expires_at,
        consumed_at: row.consumed_at,
      }),
    )
    .execute();
}

export function findOAuthRecord(db: Executor, model: string, id: string): Promise<OAuthRecordTable | undefined> {
  return db.selectFrom('oauth_records').selectAll().where('model', '=', model).where('id', '=', id).executeTakeFirst();
}

export function findOAuthRecordByUid(db: Executor, model: string, uid: string): Promise<OAuthRecordTable | undefined> {
  return db.selectFrom('oauth_records').selectAll().where('model', '=', model).where('uid', '=', uid).executeTakeFirst();
}

/** Marks an object consumed (single-use codes, rotated refresh tokens). */
export async function consumeOAuthRecord(db: Executor, model: string, id: string, nowIso: string): Promise<void> {
  await db.updateTable('oauth_records').set({ consumed_at: nowIso }).where('model', '=', model).where('id', '=', id).execute();
}

export async function deleteOAuthRecord(db: Executor, model: string, id: string): Promise<void> {
  await db.deleteFrom('oauth_records').where('model', '=', model).where('id', '=', id).execute();
}

/** Deletes every object carrying this grant id (access and refresh tokens, codes), not the grant. */
export async function deleteOAuthTokensOfGrant(db: Executor, grantId: string): Promise<void> {
  await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
}

/** Deletes every object of a grant, the grant itself included: its tokens stop working at once. */
export async function deleteOAuthGrantRecords(db: Executor, grantId: string): Promise<number> {
  const tokens = await db.deleteFrom('oauth_records').where('grant_id', '=', grantId).executeTakeFirst();
  const grant = await db.deleteFrom('oauth_records').where('model', '=', 'Grant').where('id', '=', grantId).executeTakeFirst();
  return Number(tokens.numDeletedRows ?? 0n) + Number(grant.numDeletedRows ?? 0n);
}

/** Deletes the authorization server's login sessions of a person (sign-out, suspension); returns how many. */
export async function deleteOAuthSessionsOfAccount(db: Executor, accountId: string): Promise<number> {
  const result = await db.deleteFrom('oauth_records').where('account_id', '=', accountId).where('model', '=', 'Session').executeTakeFirst();
  return Number(result.numDeletedRows ?? 0n);
}

/** Deletes up to `limit` objects that expired before `nowIso`; returns how many. */
export async function deleteExpiredOAuthRecords(db: Executor, nowIso: string, limit: number): Promise<number> {
  // Ordered by the indexed column so that PostgreSQL walks oauth_records_expiry, not the table.
  const due = db.selectFrom('oauth_records').select(['model', 'id']).where('expires_at', '<', nowIso).orderBy('expires_at').limit(limit);
  const ids = await due.execute();
  if (ids.length === 0) return 0;
  let deleted = 0;
  // Grouped by model so each delete is one indexed statement.
  const byModel = new Map<string, string[]>();
  for (const r of ids) byModel.set(r.model, [...(byModel.get(r.model) ?? []), r.id]);
  for (const [model, list] of byModel) {
    const result = await db.deleteFrom('oauth_records').where('model', '=', model).where('id', 'in', list).executeTakeFirst();
    deleted += Number(result.numDeletedRows ?? 0n);
  }
  return deleted;
}

/** The grants of a person, newest first, with what they were shown about each client. */
export function listGrantsOfAccount(db: Executor, accountId: string) {
  return db
    .selectFrom('oauth_records as g')
    .leftJoin('oauth_client_profiles as p', 'p.client_id', 'g.client_id')
    .select(['g.id as grant_id', 'g.client_id', 'g.payload', 'g.created_at', 'g.last_used_at', 'g.expires_at', 'p.client_name', 'p.kind', 'p.redirect_host'])
    .where('g.model', '=', 'Grant')
    .where('g.account_id', '=', accountId)
    .orderBy('g.created_at', 'desc')
    .orderBy('g.id', 'asc')
    .execute();
}

/** Every grant (for the operator's CLI), optionally of one person, with the person's email. */
export function listAllGrants(db: Executor, accountId?: string) {
  let query = db
    .selectFrom('oauth_records as g')
    .leftJoin('oauth_client_profiles as p', 'p.client_id', 'g.client_id')
    .leftJoin('users as u', 'u.id', 'g.account_id')
    .select(['g.id as grant_id', 'g.client_id', 'g.account_id', 'u.email as account_email', 'g.payload', 'g.created_at', 'g.last_used_at', 'g.expires_at', 'p.client_name', 'p.kind', 'p.redirect_host'])
    .where('g.model', '=', 'Grant');
  if (accountId !== undefined) query = query.where('g.account_id', '=', accountId);
  return query.orderBy('g.created_at', 'desc').orderBy('g.id', 'asc').execute();
}

/** The newest grant a person gave a client, if any. */
export async function findLatestGrantOfClient(db: Executor, accountId: string, clientId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('oauth_records')
    .select('id')
    .where('model', '=', 'Grant')
    .where('account_id', '=', accountId)
    .where('client_id', '=', clientId)
    .orderBy('created_at', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

/** One grant, if it belongs to this person. */
export function findGrantOfAccount(db: Executor, grantId: string, accountId: string): Promise<OAuthRecordTable | undefined> {
  return db.selectFrom('oauth_records').selectAll().where('model', '=', 'Grant').where('id', '=', grantId).where('account_id', '=', accountId).executeTakeFirst();
}

/**
 * An access token (by the hash of its value) with its grant's existence and the client's name:
 * everything the resource server needs in one indexed read. No grant row means it was revoked.
 */
export function findAccessTokenForResource(db: Executor, tokenHash: string) {
  return db
    .selectFrom('oauth_records as t')
    .leftJoin('oauth_records as g', (join) => join.onRef('g.id', '=', 't.grant_id').on('g.model', '=', 'Grant'))
    .leftJoin('oauth_client_profiles as p', 'p.client_id', 't.client_id')
    .select(['t.payload', 't.grant_id', 't.account_id', 't.client_id', 't.expires_at', 't.consumed_at', 'g.id as live_grant', 'p.client_name'])
    .where('t.model', '=', 'AccessToken')
    .where('t.id', '=', tokenHash)
    .executeTakeFirst();
}

/** Records that a grant was used, unless it was recorded after `notAfterIso` already (at most one write a minute). */
export async function touchGrant(db: Executor, grantId: string, nowIso: string, notAfterIso: string): Promise<void> {
  await db
    .updateTable('oauth_records')
    .set({ last_used_at: nowIso })
    .where('model', '=', 'Grant')
    .where('id', '=', grantId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notAfterIso)]))
    .execute();
}

/** Stores (or refreshes) what the consent page showed about a client. */
export async function upsertClientProfile(db: Executor, row: OAuthClientProfileTable): Promise<void> {
  await db
    .insertInto('oauth_client_profiles')
    .values(row)
    .onConflict((oc) => oc.column('client_id').doUpdateSet({ client_name: row.client_name, kind: row.kind, redirect_host: row.redirect_host, updated_at: row.updated_at }))
    .execute();
}

/** Registered clients (Dynamic Client Registration) for the operator's CLI. */
export function listRegisteredClients(db: Executor) {
  return db.selectFrom('oauth_records').select(['id', 'payload', 'created_at']).where('model', '=', 'Client').orderBy('created_at', 'desc').execute();
}

/** What consent pages showed about each client (metadata-document clients exist only here). */
export function listClientProfiles(db: Executor) {
  return db.selectFrom('oauth_client_profiles').selectAll().orderBy('updated_at', 'desc').orderBy('client_id', 'asc').execute();
}

/** How many grants each client holds. */
export function countGrantsByClient(db: Executor) {
  return db
    .selectFrom('oauth_records')
    .select(['client_id', (eb) => eb.fn.countAll<number | string>().as('grants')])
    .where('model', '=', 'Grant')
    .groupBy('client_id')
    .execute();
}
