/**
 * The operator's work, for the console and the CLI alike: finding users, keys and firms; a key's
 * tier and operator suspension (KeysService's rules); a lawyer's verification and listing (a
 * directory write); operators added and removed; any request by its X-Request-Id; the audit log.
 * Every method takes the operator actor and refuses anyone else. Every action is audited in its
 * own transaction (audit.ts), under the person in `actor.by` or, without one, the command line.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { findUserByEmail, findUserById, findFirmBySlug } from '../../db/repositories/account.repository.ts';
import { findApiKeyById, findApiKeysByPrefix, listApiKeys } from '../../db/repositories/api-key.repository.ts';
import {
  deleteOperator,
  findLawyerStatus,
  findOperatorSince,
  insertOperatorIfAbsent,
  listAuditEntries,
  listFirmsOfUser,
  listHiddenLawyers,
  listOperators,
  searchFirms,
  searchLawyersByName,
  searchUsersByEmail,
  type LawyerStatusRow,
} from '../../db/repositories/operator.repository.ts';
import { findRequest } from '../../db/repositories/request-log.repository.ts';
import type { DB, RequestLogTable } from '../../db/schema.ts';
import type { AccountsService, Firm, User } from '../access/accounts.service.ts';
import { normalizeEmail } from '../identity/email-address.ts';
import { toRecord, type KeysService } from '../access/keys.service.ts';
import type { Actor, ApiKeyRecord, FirmMember, FirmRole } from '../access/types.ts';
import { conflict, forbidden, invalidRequest, notFound } from '../errors.ts';
import { hasVerificationInForce, setLawyerHidden, setLawyerLifecycleStatus } from '../../db/repositories/lawyer-lifecycle.repository.ts';
import { refreshListing } from '../lawyers/listing.ts';
import type { UnlistedConsultations } from '../lawyers/verification.service.ts';
import { recordOperatorAction, toAuditEntry, type AuditAction, type AuditEntry } from './audit.ts';

/** How many of each kind a search shows. */
export const SEARCH_LIMIT = 20;
/** Lawyers per lawyer search. */
export const LAWYER_LIMIT = 50;
/** Audit entries per page. */
export const AUDIT_PAGE = 50;
/** How many of its own entries an object's page shows. */
export const HISTORY_LIMIT = 20;
/** The reason recorded when the console's switch withdraws a verification. */
export const WITHDRAWN_REASON = 'verification withdrawn by the operator';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const REQUEST_ID = /^req_[0-9a-f]{32}$/;
// A display prefix is 12 characters for live keys, 13 for test keys (api-key.ts).
const PREFIX_LENGTHS = [12, 13];
const MAX_QUERY = 200;

export type OperatorActor = Actor & { type: 'operator' };

export interface SearchResults {
  query: string;
  users: User[];
  keys: ApiKeyRecord[];
  firms: Firm[];
  /** The query was a whole API key, and this is its key (keys[0]). */
  wholeKey: boolean;
}

export interface LawyerStatus {
  id: string;
  name: string;
  citySlug: string;
  cityName: string | null;
  /** A verification in force and not suspended (materialised; docs/lawyers.md). */
  verified: boolean;
  /** The operator's listing switch (not hidden). */
  listed: boolean;
  /** In the directory: the listing rule holds (verified, not hidden, profile complete). */
  public: boolean;
  /** `applied` | `verified` | `refused` | `suspended`. */
  status: string;
  statusReason: string | null;
  /** How she wants to be named ('female' | 'male' | 'neutral'), null when she has not said. */
  formOfAddress: 'female' | 'male' | 'neutral' | null;
  updatedAt: string;
}

export interface RequestLookup {
  row: RequestLogTable;
  key: ApiKeyRecord | null;
}

export interface OperatorDeps {
  database: Database;
  clock: Clock;
  keys: KeysService;
  accounts: AccountsService;
  /**
   * This process's caches, dropped after a change so it shows at once here (other processes see
   * directory writes within DIRECTORY_REFRESH_MS and key changes within KEY_CACHE_TTL_MS).
   * The CLI serves nothing and passes none.
   */
  caches?: { directory?: { invalidate(): void }; keys?: { invalidate(): void } };
  /** Withdrawing the verification (a suspension) cancels her upcoming consultations through this. */
  consultations?: UnlistedConsultations;
}

function toLawyerStatus(row: LawyerStatusRow): LawyerStatus {
  return {
    id: row.id,
    name: row.name,
    citySlug: row.city_slug,
    cityName: row.city_name,
    verified: row.verified === 1,
    listed: row.hidden === 0,
    public: row.listed === 1,
    status: row.status,
    statusReason: row.status_reason,
    formOfAddress: row.form_of_address ?? null,
    updatedAt: row.updated_at,
  };
}

const toUser = (row: { id: string; email: string; name: string | null; created_at: string }): User => ({ id: row.id, email: row.email, name: row.name, createdAt: row.created_at });
const toFirm = (row: { id: string; slug: string; name: string; created_at: string }): Firm => ({ id: row.id, slug: row.slug, name: row.name, createdAt: row.created_at });

export class OperatorService {
  private readonly db: Kysely<DB>;

  constructor(private readonly deps: OperatorDeps) {
    this.db = deps.database.db;
  }

  /** The operator actor, or forbidden: nobody else reaches these methods. */
  private operator(actor: Actor): OperatorActor {
    if (actor.type !== 'operator') throw forbidden('operators only');
    return actor;
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }

  /**
   * One search box over users (email), keys (display prefix, id, or a whole key pasted — found
   * by its hash, never stored) and firms (slug or name). Empty: nothing.
   */
  async search(actor: Actor, raw: string): Promise<SearchResults> {
    this.operator(actor);
    const query = String(raw ?? '').trim().slice(0, MAX_QUERY);
    const results: SearchResults = { query, users: [], keys: [], firms: [], wholeKey: false };
    if (query === '') return results;
    if (UUID.test(query)) {
      const id = query.toLowerCase();
      const [user, key] = await Promise.all([findUserById(this.db, id), findApiKeyById(this.db, id)]);
      if (user) results.users.push(toUser(user));
      if (key) results.keys.push(toRecord(key));
      return results;
    }
    if (query.startsWith('svc_')) {
      const whole = await this.deps.keys.findByToken(query);
      if (whole) {
        results.keys.push(whole);
        results.wholeKey = true;
      } else results.keys = (await findApiKeysByPrefix(this.db, query, PREFIX_LENGTHS.map((n) => query.slice(0, n)).filter((p) => p.length < query.length), SEARCH_LIMIT)).map(toRecord);
      return results;
    }
    const [users, firms] = await Promise.all([searchUsersByEmail(this.db, query, SEARCH_LIMIT), searchFirms(this.db, query, SEARCH_LIMIT)]);
    results.users = users.map(toUser);
    results.firms = firms.map(toFirm);
    return results;
  }

  /** A user with their personal keys and their firms (and since when they are an operator). */
  async user(actor: Actor, userId: string): Promise<{ user: User; operatorSince: string | null; keys: ApiKeyRecord[]; firms: Array<Firm & { role: FirmRole }> }> {
    this.operator(actor);
    const row = typeof userId === 'string' && UUID.test(userId) ? await findUserById(this.db, userId.toLowerCase()) : undefined;
    if (!row) throw notFound(`no user ${userId}`);
    const [operatorSince, keys, firms] = await Promise.all([
      findOperatorSince(this.db, row.id),
      listApiKeys(this.db, { ownerUserId: row.id }),
      listFirmsOfUser(this.db, row.id),
    ]);
    return { user: toUser(row), operatorSince: operatorSince ?? null, keys: keys.map(toRecord), firms: firms.map((f) => ({ ...toFirm(f), role: f.role as FirmRole })) };
  }

  /** A firm with its members and keys. */
  async firm(actor: Actor, slug: string): Promise<{ firm: Firm; members: FirmMember[]; keys: ApiKeyRecord[] }> {
    const op = this.operator(actor);
    const row = typeof slug === 'string' ? await findFirmBySlug(this.db, slug) : undefined;
    if (!row) throw notFound(`no firm "${slug}"`);
    const [members, keys] = await Promise.all([this.deps.accounts.listMembers(op, row.slug), this.deps.keys.list(op, { firmSlug: row.slug })]);
    return { firm: toFirm(row), members, keys };
  }

  /** A key, when it was last used, and the operator's actions on it (newest first). */
  async key(actor: Actor, keyId: string): Promise<{ key: ApiKeyRecord; lastUsed: string | null; history: AuditEntry[] }> {
    const op = this.operator(actor);
    const key = await this.deps.keys.get(op, keyId);
    const [lastUsed, history] = await Promise.all([this.deps.keys.lastUsed([key]), this.history('key', key.id)]);
    return { key, lastUsed: lastUsed.get(key.id) ?? null, history };
  }

  /** Changes a key's tier (its rate limits); audited. */
  async setTier(actor: Actor, keyId: string, tier: string): Promise<ApiKeyRecord> {
    const key = await this.deps.keys.setTier(this.operator(actor), keyId, tier);
    this.deps.caches?.keys?.invalidate();
    return key;
  }

  /** Suspends a key as the operator (only the operator lifts it); audited. */
  async suspend(actor: Actor, keyId: string, reason: string): Promise<ApiKeyRecord> {
    const key = await this.deps.keys.suspend(this.operator(actor), keyId, reason);
    this.deps.caches?.keys?.invalidate();
    return key;
  }

  /** Lifts a key's suspension; audited. */
  async unsuspend(actor: Actor, keyId: string): Promise<ApiKeyRecord> {
    const key = await this.deps.keys.unsuspend(this.operator(actor), keyId);
    this.deps.caches?.keys?.invalidate();
    return key;
  }

  /**
   * Lawyers for the console: by id, by name (any part, any case), or — with an empty query —
   * those not both verified and listed, which are the ones needing the operator.
   */
  async lawyers(actor: Actor, raw: string): Promise<LawyerStatus[]> {
    this.operator(actor);
    const query = String(raw ?? '').trim().slice(0, MAX_QUERY);
    if (query === '') return (await listHiddenLawyers(this.db, LAWYER_LIMIT)).map(toLawyerStatus);
    if (UUID.test(query)) {
      const row = await findLawyerStatus(this.db, query.toLowerCase());
      return row ? [toLawyerStatus(row)] : [];
    }
    return (await searchLawyersByName(this.db, query, LAWYER_LIMIT)).map(toLawyerStatus);
  }

  /** One lawyer, whatever their state, with the operator's actions on them. */
  async lawyer(actor: Actor, lawyerId: string): Promise<{ lawyer: LawyerStatus; history: AuditEntry[] }> {
    this.operator(actor);
    const row = typeof lawyerId === 'string' && UUID.test(lawyerId) ? await findLawyerStatus(this.db, lawyerId.toLowerCase()) : undefined;
    if (!row) throw notFound(`no lawyer ${lawyerId}`);
    return { lawyer: toLawyerStatus(row), history: await this.history('lawyer', row.id) };
  }

  /**
   * The console's two switches (docs/lawyers.md): withdrawing the verification suspends her
   * (giving it back lifts the suspension, when a verification is in force); listing and
   * unlisting is the operator's `hidden` switch. Either way the listing rule is recomputed: she
   * appears in or disappears from search, profile, availability and booking at once in this
   * process and within DIRECTORY_REFRESH_MS in the others. Audited, one entry per switch changed.
   */
  async setLawyerStatus(actor: Actor, lawyerId: string, change: { verified?: boolean; listed?: boolean }): Promise<{ lawyer: LawyerStatus; changed: boolean }> {
    const op = this.operator(actor);
    if (change.verified === undefined && change.listed === undefined) throw invalidRequest('nothing to change', [{ pointer: '/verified', detail: 'give verified and/or listed' }]);
    const id = typeof lawyerId === 'string' && UUID.test(lawyerId) ? lawyerId.toLowerCase() : null;
    if (!id) throw notFound(`no lawyer ${lawyerId}`);
    const result = await this.db.transaction().execute(async (tx) => {
      const row = await findLawyerStatus(tx, id);
      if (!row) throw notFound(`no lawyer ${lawyerId}`);
      const before = toLawyerStatus(row);
      const actions: Array<{ action: AuditAction; details: Record<string, unknown> }> = [];
      const at = this.now();
      if (change.verified !== undefined && change.verified !== before.verified) {
        if (change.verified) {
          if (!(await hasVerificationInForce(tx, id, at))) throw conflict('she has no verification in force: verify her with a note of what was checked (consulta lawyers verify ID --note …)');
          if (before.status !== 'suspended' && before.status !== 'verified') throw conflict(`a lawyer in status ${before.status} is verified with a note of what was checked (consulta lawyers verify ID --note …)`);
          await setLawyerLifecycleStatus(tx, id, 'verified', null, at);
          actions.push({ action: 'lawyer.verify', details: { status_before: before.status } });
        } else {
          await setLawyerLifecycleStatus(tx, id, 'suspended', WITHDRAWN_REASON, at);
          actions.push({ action: 'lawyer.unverify', details: { status_before: before.status, reason: WITHDRAWN_REASON } });
        }
      }
      if (change.listed !== undefined && change.listed !== before.listed) {
        await setLawyerHidden(tx, id, !change.listed, at);
        actions.push({ action: change.listed ? 'lawyer.list' : 'lawyer.unlist', details: {} });
      }
      if (actions.length === 0) return { lawyer: before, changed: false };
      await refreshListing(tx, id, at);
      const after = toLawyerStatus((await findLawyerStatus(tx, id))!);
      for (const { action, details } of actions) {
        await recordOperatorAction(tx, {
          at,
          by: op.by,
          action,
          target: { type: 'lawyer', id, label: before.name },
          details: { ...details, public_before: before.public, public_after: after.public },
        });
      }
      return { lawyer: after, changed: true, suspended: actions.some((a) => a.action === 'lawyer.unverify') };
    });
    if (result.changed) this.deps.caches?.directory?.invalidate();
    // Suspended: after the commit, her upcoming consultations are cancelled (refund, email, time freed).
    if ('suspended' in result && result.suspended) await this.deps.consultations?.cancelAllUpcoming(id);
    return { lawyer: result.lawyer, changed: result.changed };
  }

  /** Every operator, by email. */
  async operators(actor: Actor): Promise<Array<{ userId: string; email: string; addedAt: string }>> {
    this.operator(actor);
    return (await listOperators(this.db)).map((r) => ({ userId: r.user_id, email: r.email, addedAt: r.added_at }));
  }

  /**
   * Makes someone an operator (the account is created if absent). They must add a passkey before
   * the console opens for them. Audited; `added: false` (and no entry) when they already were.
   */
  async addOperator(actor: Actor, email: string): Promise<{ user: User; added: boolean }> {
    const op = this.operator(actor);
    const normalized = normalizeEmail(email);
    return this.db.transaction().execute(async (tx) => {
      const user = await this.deps.accounts.ensureUser(normalized, null, tx);
      const at = this.now();
      const added = await insertOperatorIfAbsent(tx, user.id, at);
      if (added) await recordOperatorAction(tx, { at, by: op.by, action: 'operator.add', target: { type: 'user', id: user.id, label: user.email }, details: {} });
      return { user, added };
    });
  }

  /** Removes someone from the operators (their next request no longer opens the console). Audited. */
  async removeOperator(actor: Actor, email: string): Promise<{ user: User }> {
    const op = this.operator(actor);
    const normalized = normalizeEmail(email);
    return this.db.transaction().execute(async (tx) => {
      const row = await findUserByEmail(tx, normalized);
      if (!row || !(await deleteOperator(tx, row.id))) throw notFound(`${normalized} is not an operator`);
      await recordOperatorAction(tx, { at: this.now(), by: op.by, action: 'operator.remove', target: { type: 'user', id: row.id, label: row.email }, details: {} });
      return { user: toUser(row) };
    });
  }

  /** Any request in the log by its X-Request-Id, whoever's key made it (or none). */
  async request(actor: Actor, requestId: string): Promise<RequestLookup> {
    this.operator(actor);
    const id = typeof requestId === 'string' ? requestId.trim().toLowerCase() : '';
    const row = REQUEST_ID.test(id) ? await findRequest(this.db, id) : undefined;
    if (!row) throw notFound(`no request ${requestId}`);
    const key = row.key_id ? await findApiKeyById(this.db, row.key_id) : undefined;
    return { row, key: key ? toRecord(key) : null };
  }

  /** The audit log, newest first, a page at a time (`before`: the `next` of the previous page). */
  async audit(actor: Actor, before?: number): Promise<{ entries: AuditEntry[]; next: number | null }> {
    this.operator(actor);
    if (before !== undefined && (!Number.isSafeInteger(before) || before < 1)) throw invalidRequest('the page link is not valid', [{ pointer: '/before', detail: 'start again from the first page' }]);
    const rows = await listAuditEntries(this.db, { beforeId: before, limit: AUDIT_PAGE + 1 });
    const more = rows.length > AUDIT_PAGE;
    const entries = (more ? rows.slice(0, AUDIT_PAGE) : rows).map(toAuditEntry);
    return { entries, next: more ? entries.at(-1)!.id : null };
  }

  private async history(type: 'key' | 'lawyer', id: string): Promise<AuditEntry[]> {
    return (await listAuditEntries(this.db, { limit: HISTORY_LIMIT, target: { type, id } })).map(toAuditEntry);
  }
}
