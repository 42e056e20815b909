/**
 * Connected apps: the AI apps a person has consented to, at which level, and their revocation.
 * Revoking deletes the grant and every token of it in one transaction, so the app's access and
 * refresh tokens fail from the next call (this process forgets its cached answers at once; other
 * processes within the verifier's cache time, 1 s).
 */
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import {
  countGrantsByClient,
  deleteExpiredOAuthRecords,
  deleteOAuthGrantRecords,
  findGrantOfAccount,
  listAllGrants,
  listClientProfiles,
  listGrantsOfAccount,
  listRegisteredClients,
  upsertClientProfile,
} from '../../db/repositories/oauth.repository.ts';
import { notFound } from '../errors.ts';
import { appDisplayName } from '../third-party-text.ts';
import type { AccessTokenVerifier } from './access-token-verifier.ts';
import { highestLevel, LEVELS, type Level } from './levels.ts';

/**
 * A grant's public id: the authorization server's id behind `grant_`. Its ids are nanoids, which may
 * begin with `-`; a shell command given one would read it as an option.
 */
const GRANT_PREFIX = 'grant_';
const publicGrantId = (id: string) => `${GRANT_PREFIX}${id}`;
const storedGrantId = (publicId: string) => (publicId.startsWith(GRANT_PREFIX) ? publicId.slice(GRANT_PREFIX.length) : null);

/** One connected app as its person sees it. */
export interface ConnectedApp {
  /** `grant_…`: the id the connected-apps page and the CLI show and accept. */
  grantId: string;
  clientId: string;
  clientName: string;
  /** `registered` (Dynamic Client Registration) or `metadata` (Client ID Metadata Document). */
  kind: 'registered' | 'metadata';
  redirectHost: string | null;
  /** The levels granted for the MCP server, in order. */
  levels: Level[];
  level: Level | null;
  grantedAt: string;
  lastUsedAt: string | null;
}

/** Every grant with its person, for the operator's CLI. */
export interface GrantRecord extends ConnectedApp {
  userId: string | null;
  userEmail: string | null;
}

/** A client the authorization server knows, for the operator's CLI. */
export interface ClientRecord {
  clientId: string;
  clientName: string;
  /** `registered` (Dynamic Client Registration) or `metadata` (Client ID Metadata Document). */
  kind: 'registered' | 'metadata';
  /** Hosts of its redirect URIs (a metadata-document client: the one its consent page showed). */
  redirectHosts: string[];
  /** When it registered; a metadata-document client: when a consent page last showed it. */
  since: string;
  /** How many people it holds a grant of. */
  grants: number;
}

interface GrantPayload {
  resources?: Record<string, string>;
}

export interface ConnectedAppsDeps {
  database: Database;
  clock: Clock;
  verifier?: AccessTokenVerifier;
}

export class ConnectedAppsService {
  constructor(private readonly deps: ConnectedAppsDeps) {}

  /** The person's connected apps, most recently granted first. */
  async list(userId: string): Promise<ConnectedApp[]> {
    const rows = await listGrantsOfAccount(this.deps.database.db, userId);
    return rows.map((r) => this.view(r));
  }

  /** Every grant (optionally of one person), for the CLI. */
  async listAll(userId?: string): Promise<GrantRecord[]> {
    const rows = await listAllGrants(this.deps.database.db, userId);
    return rows.map((r) => ({ ...this.view(r), userId: r.account_id, userEmail: r.account_email }));
  }

  /**
   * Every client: the registered ones (stored by the authorization server), then the metadata-
   * document ones a person was asked about (their documents are fetched and cached, never stored:
   * only what the consent page showed is), newest first within each.
   */
  async listClients(): Promise<ClientRecord[]> {
    const db = this.deps.database.db;
    const [registered, profiles, counts] = await Promise.all([listRegisteredClients(db), listClientProfiles(db), countGrantsByClient(db)]);
    const grants = new Map(counts.map((c) => [c.client_id, Number(c.grants)]));
    const named = new Map(profiles.map((p) => [p.client_id, p]));
    const hostOf = (uri: unknown) => (typeof uri === 'string' ? (URL.parse(uri)?.host ?? null) : null);
    const clients: ClientRecord[] = registered.map((r) => {
      const payload = JSON.parse(r.payload) as { client_name?: string; redirect_uris?: unknown[] };
      return {
        clientId: r.id,
        clientName: payload.client_name ?? named.get(r.id)?.client_name ?? r.id,
        kind: 'registered',
        redirectHosts: [...new Set((payload.redirect_uris ?? []).map(hostOf).filter((h): h is string => h !== null))],
        since: r.created_at,
        grants: grants.get(r.id) ?? 0,
      };
    });
    for (const p of profiles) {
      if (p.kind !== 'metadata') continue;
      clients.push({ clientId: p.client_id, clientName: p.client_name, kind: 'metadata', redirectHosts: [p.redirect_host], since: p.updated_at, grants: grants.get(p.client_id) ?? 0 });
    }
    return clients;
  }

  /** Ends a grant of this person (someone else's is not found). */
  async revoke(userId: string, publicId: string): Promise<void> {
    const grantId = storedGrantId(publicId);
    const deleted =
      grantId === null
        ? 0
        : await this.deps.database.db.transaction().execute(async (trx) => {
            if (!(await findGrantOfAccount(trx, grantId, userId))) return 0;
            return deleteOAuthGrantRecords(trx, grantId);
          });
    if (deleted === 0 || grantId === null) throw notFound('No connected app with this id.');
    this.deps.verifier?.forgetGrant(grantId);
  }

  /** Ends any grant (the operator's `consulta oauth revoke`). */
  async revokeAny(publicId: string): Promise<void> {
    const grantId = storedGrantId(publicId);
    const deleted = grantId === null ? 0 : await deleteOAuthGrantRecords(this.deps.database.db, grantId);
    if (deleted === 0 || grantId === null) throw notFound('No grant with this id.');
    this.deps.verifier?.forgetGrant(grantId);
  }

  /** Remembers what the consent page showed about a client (connected apps show it later). */
  async recordClient(client: { clientId: string; clientName: string; kind: 'registered' | 'metadata'; redirectHost: string }): Promise<void> {
    await upsertClientProfile(this.deps.database.db, {
      client_id: client.clientId,
      client_name: client.clientName.slice(0, 200),
      kind: client.kind,
      redirect_host: client.redirectHost.slice(0, 255),
      updated_at: this.deps.clock.now().toISOString(),
    });
  }

  /** Deletes expired authorization-server objects in batches; returns how many. */
  async sweepExpired(batch = 1000): Promise<number> {
    let total = 0;
    for (;;) {
      const n = await deleteExpiredOAuthRecords(this.deps.database.db, this.deps.clock.now().toISOString(), batch);
      total += n;
      if (n < batch) return total;
    }
  }

  private view(r: {
    grant_id: string;
    client_id: string | null;
    payload: string;
    created_at: string;
    last_used_at: string | null;
    client_name: string | null;
    kind: string | null;
    redirect_host: string | null;
  }): ConnectedApp {
    const payload = JSON.parse(r.payload) as GrantPayload;
    // Read from the resource the grant is for (a grant holds the one resource its consent named),
    // not looked up by this process's MCP_URL: a command run without the server's SITE_URL or
    // MCP_URL would otherwise show no levels for every grant.
    const granted = new Set(Object.values(payload.resources ?? {}).flatMap((scope) => scope.split(' ')));
    const levels = LEVELS.filter((l) => granted.has(l));
    return {
      grantId: publicGrantId(r.grant_id),
      clientId: r.client_id ?? '',
      clientName: appDisplayName(r.client_name ?? r.client_id ?? ''),
      kind: r.kind === 'metadata' ? 'metadata' : 'registered',
      redirectHost: r.redirect_host,
      levels,
      level: highestLevel(levels),
      grantedAt: r.created_at,
      lastUsedAt: r.last_used_at,
    };
  }
}
