/**
 * API key management and lookup. Every management call is authorised per object:
 * - the operator sees and changes every key;
 * - a user sees their personal keys, and the keys of firms where they may manage keys
 *   (owner, admin, or member granted `keys:manage`);
 * - a key the actor cannot see answers not_found, exactly like an unknown id (existence is not
 *   revealed); a visible key the actor may not change in that way answers forbidden.
 * Suspension: the operator's suspension outranks the firm's; a firm can neither lift nor
 * overwrite it. Personal keys are suspended by the operator only (their owner can revoke them).
 * Audit: every change the operator makes to a key (tier, suspension, lifting) is written to the
 * operator audit log in the change's own transaction (src/domain/operator/audit.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.ts';
import {
  clearApiKeySuspension,
  findApiKeyByHash,
  findApiKeyById,
  insertApiKey,
  listApiKeys,
  revokeApiKey,
  setApiKeySuspension,
  updateApiKeySettings,
  type ApiKeyRow,
} from '../../db/repositories/api-key.repository.ts';
import { findUserByEmail, findUserById } from '../../db/repositories/account.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import type { Database } from '../../db/database.ts';
import type { DB } from '../../db/schema.ts';
import { conflict, forbidden, invalidRequest, notFound, type FieldError } from '../errors.ts';
import { lastUsedByKey } from '../../db/repositories/request-log.repository.ts';
import { recordOperatorAction } from '../operator/audit.ts';
import { AccountsService } from './accounts.service.ts';
import { normalizeEmail } from '../identity/email-address.ts';
import { generateApiKey, hashApiKey, parseApiKey } from './api-key.ts';
import { validateAllowList } from './ip-allowlist.ts';
import { validateOrigins } from './web-origins.ts';
import { PUBLISHABLE_SCOPES, SCOPES, TIERS, type Actor, type ApiKeyRecord, type KeyMode, type KeyOwner, type Scope, type SuspendedBy, type Tier } from './types.ts';

/** Whose key: a user's personal key (by email) or a firm's (by slug). */
export type KeyOwnerRef = { ownerEmail: string } | { firmSlug: string };

export interface CreateKeyOptions {
  mode: KeyMode;
  /** Default `free`; anything else is granted by the operator only. */
  tier?: string;
  /** Default: all six scopes. */
  scopes?: readonly string[];
  name?: string | null;
  /** RFC 3339 instant in the future; default: never expires. */
  expiresAt?: string | null;
  /** Addresses and CIDR ranges; null/absent: any address. */
  allowedIps?: readonly string[] | null;
  /** A publishable key for the booking widget (pk_live_/pk_test_): read and hold scopes only. */
  publishable?: boolean;
  /** Publishable keys: the web origins it works from (required, web-origins.ts). */
  origins?: readonly string[] | null;
}

export interface CreatedKey {
  key: ApiKeyRecord;
  /** The secret, returned this once and never again. */
  token: string;
}

export type KeyListFilter = { ownerEmail?: string; firmSlug?: string };

const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_NAME_LENGTH = 100;
const MAX_REASON_LENGTH = 500;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function parseJsonArray(json: string | null): unknown[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value : [];
  } catch {
    return [];
  }
}

/** Maps a stored key row to the record the access layer works with (never the hash). */
export function toRecord(row: ApiKeyRow): ApiKeyRecord {
  const owner: KeyOwner =
    row.owner_firm_id !== null
      ? { type: 'firm', firmId: row.owner_firm_id, slug: row.owner_firm_slug ?? '' }
      : { type: 'user', userId: row.owner_user_id ?? '', email: row.owner_email ?? '' };
  const allowed = parseJsonArray(row.allowed_ips);
  return {
    id: row.id,
    prefix: row.prefix,
    name: row.name,
    mode: row.mode === 'test' ? 'test' : 'live',
    tier: (TIERS as readonly string[]).includes(row.tier) ? (row.tier as Tier) : 'free',
    // Unknown values are dropped, never widened: a scope we do not know grants nothing.
    scopes: (parseJsonArray(row.scopes) ?? []).filter((s): s is Scope => (SCOPES as readonly unknown[]).includes(s)),
    owner,
    createdByUserId: row.created_by_user_id,
    expiresAt: row.expires_at,
    revokedAt: row.revoked_at,
    suspension:
      row.suspended_by !== null
        ? { by: row.suspended_by === 'firm' ? 'firm' : 'operator', reason: row.suspension_reason ?? '', at: row.suspended_at ?? '' }
        : null,
    // A stored list that is not a list of strings allows nothing (fail closed), never everything.
    allowedIps: allowed === null ? null : allowed.filter((e): e is string => typeof e === 'string'),
    createdAt: row.created_at,
    kind: row.kind === 'publishable' ? 'publishable' : 'secret',
    // A publishable key with a damaged list works from nowhere (fail closed).
    allowedOrigins: row.kind === 'publishable' ? (parseJsonArray(row.allowed_origins ?? '[]') ?? []).filter((e): e is string => typeof e === 'string') : null,
    publicToken: row.kind === 'publishable' ? (row.public_token ?? null) : null,
  };
}

/** What the actor may do with a key it can see. */
type Access = { role: 'operator' } | { role: 'personal-owner' } | { role: 'firm-manager' };

export interface KeysDeps {
  database: Database;
  clock: Clock;
  /** The firm rules; built over the same database when not given. */
  accounts?: AccountsService;
}

export class KeysService {
  private readonly deps: { db: Kysely<DB>; clock: Clock; accounts: AccountsService };

  constructor(deps: KeysDeps) {
    this.deps = {
      db: deps.database.db,
      clock: deps.clock,
      accounts: deps.accounts ?? new AccountsService({ database: deps.database, clock: deps.clock }),
    };
  }

  /** Creates a key and returns it with its secret (shown once). */
  async create(actor: Actor, ownerRef: KeyOwnerRef, options: CreateKeyOptions): Promise<CreatedKey> {
    const input = this.validateCreate(options);
    if (input.tier !== 'free' && actor.type !== 'operator') throw forbidden('only the operator grants tiers other than free');
    return this.deps.db.transaction().execute(async (tx) => {
      let ownerUserId: string | null = null;
      let ownerFirmId: string | null = null;
      if ('firmSlug' in ownerRef) {
        const { firm } = await this.deps.accounts.resolveFirm(actor, ownerRef.firmSlug, tx);
        if (!(await this.deps.accounts.can(actor, firm.id, 'keys:manage', tx))) throw forbidden(`you may not manage the keys of ${firm.slug}`);
        ownerFirmId = firm.id;
      } else {
        const email = normalizeEmail(ownerRef.ownerEmail, '/owner_email');
        if (actor.type === 'operator') {
          ownerUserId = (await this.deps.accounts.ensureUser(email, null, tx)).id;
        } else {
          const me = await findUserById(tx, actor.userId);
          if (!me || me.email !== email) throw forbidden('you may create personal keys for yourself only');
          ownerUserId = me.id;
        }
      }
      const generated = generateApiKey(input.mode, input.publishable ? 'publishable' : 'secret');
      const id = randomUUID();
      await insertApiKey(tx, {
        id,
        key_hash: generated.hash,
        prefix: generated.prefix,
        name: input.name,
        mode: input.mode,
        tier: input.tier,
        scopes: JSON.stringify(input.scopes),
        owner_user_id: ownerUserId,
        owner_firm_id: ownerFirmId,
        created_by_user_id: actor.type === 'user' ? actor.userId : null,
        expires_at: input.expiresAt,
        revoked_at: null,
        suspended_by: null,
        suspension_reason: null,
        suspended_at: null,
        allowed_ips: input.allowedIps === null ? null : JSON.stringify(input.allowedIps),
        created_at: this.deps.clock.now().toISOString(),
        kind: input.publishable ? 'publishable' : 'secret',
        allowed_origins: input.publishable ? JSON.stringify(input.origins) : null,
        public_token: input.publishable ? generated.token : null,
      });
      const row = await findApiKeyById(tx, id);
      return { key: toRecord(row!), token: generated.token };
    });
  }

  /**
   * Keys the actor may see, newest first: by default the operator's are all keys and a user's
   * are their personal keys; a filter narrows to one user's or one firm's keys.
   */
  async list(actor: Actor, filter: KeyListFilter = {}): Promise<ApiKeyRecord[]> {
    const db = this.deps.db;
    if (filter.ownerEmail !== undefined && filter.firmSlug !== undefined) {
      throw invalidRequest('filter by owner or by firm, not both', [{ pointer: '/firm_slug', detail: 'cannot be combined with owner_email' }]);
    }
    if (filter.firmSlug !== undefined) {
      const { firm } = await this.deps.accounts.resolveFirm(actor, filter.firmSlug, db);
      if (!(await this.deps.accounts.can(actor, firm.id, 'keys:manage', db))) throw forbidden(`you may not see the keys of ${firm.slug}`);
      return (await listApiKeys(db, { ownerFirmId: firm.id })).map(toRecord);
    }
    if (actor.type === 'operator') {
      if (filter.ownerEmail === undefined) return (await listApiKeys(db, {})).map(toRecord);
      const user = await findUserByEmail(db, normalizeEmail(filter.ownerEmail, '/owner_email'));
      return user ? (await listApiKeys(db, { ownerUserId: user.id })).map(toRecord) : [];
    }
    if (filter.ownerEmail !== undefined) {
      const me = await findUserById(db, actor.userId);
      if (!me || me.email !== normalizeEmail(filter.ownerEmail, '/owner_email')) throw forbidden('you may list your own personal keys only');
    }
    return (await listApiKeys(db, { ownerUserId: actor.userId })).map(toRecord);
  }

  /** When each of these keys (already visible to the caller) was last used: key id → ISO time. */
  lastUsed(keys: readonly ApiKeyRecord[]): Promise<Map<string, string>> {
    return lastUsedByKey(this.deps.db, keys.map((k) => k.id));
  }

  /** One key the actor may see; not_found otherwise. */
  async get(actor: Actor, keyId: string): Promise<ApiKeyRecord> {
    const { row } = await this.visible(this.deps.db, actor, keyId);
    return toRecord(row);
  }

  /** Revokes a key for good (idempotent). A firm may revoke its key even under an operator suspension. */
  async revoke(actor: Actor, keyId: string): Promise<ApiKeyRecord> {
    return this.deps.db.transaction().execute(async (tx) => {
      await this.visible(tx, actor, keyId);
      await revokeApiKey(tx, keyId, this.deps.clock.now().toISOString());
      return toRecord((await findApiKeyById(tx, keyId))!);
    });
  }

  /**
   * Pauses a key. The operator's suspension is `operator` (and replaces a firm's); a firm
   * manager's is `firm` and cannot touch an operator suspension. Suspending again by the same
   * party replaces the reason and keeps the original time.
   */
  async suspend(actor: Actor, keyId: string, reason: string): Promise<ApiKeyRecord> {
    const cleanReason = String(reason ?? '').trim();
    if (cleanReason.length === 0 || cleanReason.length > MAX_REASON_LENGTH || CONTROL_CHARACTERS.test(cleanReason)) {
      throw invalidRequest('a suspension needs a reason', [{ pointer: '/reason', detail: `must be 1–${MAX_REASON_LENGTH} characters of text` }]);
    }
    return this.deps.db.transaction().execute(async (tx) => {
      const { row, access } = await this.visible(tx, actor, keyId);
      this.refuseRevoked(row);
      let by: SuspendedBy;
      if (access.role === 'operator') by = 'operator';
      else if (access.role === 'firm-manager') by = 'firm';
      else throw forbidden('personal keys are suspended by the operator only; revoke the key to stop it');
      if (by === 'firm' && row.suspended_by === 'operator') throw forbidden('the operator suspended this key; only the operator can change that');
      const at = row.suspended_by === by && row.suspended_at ? row.suspended_at : this.deps.clock.now().toISOString();
      // The guard repeats the rule inside the UPDATE: a firm's write never lands on an operator
      // suspension that appeared after the read above.
      const ok = await setApiKeySuspension(tx, keyId, { by, reason: cleanReason, at }, by === 'operator' ? [null, 'firm', 'operator'] : [null, 'firm']);
      if (!ok) throw conflict('the key changed meanwhile; read it again');
      if (actor.type === 'operator' && !(row.suspended_by === by && row.suspension_reason === cleanReason)) {
        await this.audit(tx, actor, 'key.suspend', row, {
          reason: cleanReason,
          replaced: row.suspended_by === null ? null : { by: row.suspended_by, reason: row.suspension_reason },
        });
      }
      return toRecord((await findApiKeyById(tx, keyId))!);
    });
  }

  /** Lifts a suspension: a firm's by the firm or the operator, an operator's by the operator only. Idempotent. */
  async unsuspend(actor: Actor, keyId: string): Promise<ApiKeyRecord> {
    return this.deps.db.transaction().execute(async (tx) => {
      const { row, access } = await this.visible(tx, actor, keyId);
      this.refuseRevoked(row);
      if (row.suspended_by === null) return toRecord(row);
      if (row.suspended_by === 'operator' && access.role !== 'operator') throw forbidden('the operator suspended this key; only the operator can lift that');
      if (access.role === 'personal-owner') throw forbidden('only the operator lifts suspensions of personal keys');
      const ok = await clearApiKeySuspension(tx, keyId, row.suspended_by);
      if (!ok) throw conflict('the key changed meanwhile; read it again');
      if (actor.type === 'operator') {
        await this.audit(tx, actor, 'key.unsuspend', row, { lifted: { by: row.suspended_by, reason: row.suspension_reason, at: row.suspended_at } });
      }
      return toRecord((await findApiKeyById(tx, keyId))!);
    });
  }

  /** Changes a key's tier. Operator only. */
  async setTier(actor: Actor, keyId: string, tier: string): Promise<ApiKeyRecord> {
    if (!(TIERS as readonly string[]).includes(tier)) {
      throw invalidRequest(`unknown tier "${tier}"`, [{ pointer: '/tier', detail: `must be one of ${TIERS.join(', ')}` }]);
    }
    return this.deps.db.transaction().execute(async (tx) => {
      const { row, access } = await this.visible(tx, actor, keyId);
      if (access.role !== 'operator') throw forbidden('only the operator changes tiers');
      this.refuseRevoked(row);
      if (row.tier === tier) return toRecord(row);
      if (!(await updateApiKeySettings(tx, keyId, { tier }))) throw conflict('the key was revoked meanwhile');
      if (actor.type === 'operator') await this.audit(tx, actor, 'key.set_tier', row, { from: row.tier, to: tier });
      return toRecord((await findApiKeyById(tx, keyId))!);
    });
  }

  /** Replaces a key's IP allow-list; null allows any address again. */
  async setAllowList(actor: Actor, keyId: string, entries: readonly string[] | null): Promise<ApiKeyRecord> {
    const allowed = entries === null ? null : this.checkAllowList(entries, '/allowed_ips');
    return this.deps.db.transaction().execute(async (tx) => {
      const { row } = await this.visible(tx, actor, keyId);
      this.refuseRevoked(row);
      if (!(await updateApiKeySettings(tx, keyId, { allowed_ips: allowed === null ? null : JSON.stringify(allowed) }))) {
        throw conflict('the key was revoked meanwhile');
      }
      return toRecord((await findApiKeyById(tx, keyId))!);
    });
  }

  /**
   * The key a bearer token names, for the auth layer: malformed tokens (bad format or checksum,
   * MCP tokens) are answered null without a query. Revoked, expired and suspended keys are
   * returned too; the caller judges them (see keyStatus).
   */
  async findByToken(token: string): Promise<ApiKeyRecord | null> {
    if (!parseApiKey(token)) return null;
    const row = await findApiKeyByHash(this.deps.db, hashApiKey(token));
    return row ? toRecord(row) : null;
  }

  /** The audit entry of an operator's change to a key, in the change's transaction. */
  private audit(tx: Executor, actor: Actor & { type: 'operator' }, action: 'key.set_tier' | 'key.suspend' | 'key.unsuspend', row: ApiKeyRow, details: Record<string, unknown>): Promise<void> {
    return recordOperatorAction(tx, { at: this.deps.clock.now().toISOString(), by: actor.by, action, target: { type: 'key', id: row.id, label: row.prefix }, details });
  }

  private refuseRevoked(row: ApiKeyRow): void {
    if (row.revoked_at !== null) throw conflict('the key is revoked; revoked keys cannot be changed');
  }

  /**
   * The key, if the actor may see it, and in which capacity. Firm keys are visible to firm
   * members who may manage keys; personal keys to their owner; everything to the operator.
   */
  private async visible(db: Executor, actor: Actor, keyId: string): Promise<{ row: ApiKeyRow; access: Access }> {
    const row = typeof keyId === 'string' && ID_PATTERN.test(keyId) ? await findApiKeyById(db, keyId.toLowerCase()) : undefined;
    if (row) {
      if (actor.type === 'operator') return { row, access: { role: 'operator' } };
      if (row.owner_user_id !== null && row.owner_user_id === actor.userId) return { row, access: { role: 'personal-owner' } };
      if (row.owner_firm_id !== null && (await this.deps.accounts.can(actor, row.owner_firm_id, 'keys:manage', db))) {
        return { row, access: { role: 'firm-manager' } };
      }
    }
    throw notFound(`no key ${keyId}`);
  }

  private checkAllowList(entries: readonly string[], pointer: string): string[] {
    if (!Array.isArray(entries)) throw invalidRequest('the allow-list must be a list', [{ pointer, detail: 'must be an array of addresses or CIDR ranges' }]);
    const result = validateAllowList(entries);
    if (result.errors.length > 0) {
      throw invalidRequest(
        'the IP allow-list is not valid; see errors',
        result.errors.map((e) => ({ pointer: e.index < 0 ? pointer : `${pointer}/${e.index}`, detail: e.detail })),
      );
    }
    return result.entries;
  }

  private validateCreate(options: CreateKeyOptions): {
    mode: KeyMode;
    tier: Tier;
    scopes: Scope[];
    name: string | null;
    expiresAt: string | null;
    allowedIps: string[] | null;
    publishable: boolean;
    origins: string[];
  } {
    const errors: FieldError[] = [];
    const publishable = options.publishable === true;
    let origins: string[] = [];
    if (publishable) {
      const checked = validateOrigins(options.origins ?? []);
      for (const e of checked.errors) errors.push({ pointer: e.index < 0 ? '/allowed_origins' : `/allowed_origins/${e.index}`, detail: e.detail });
      origins = checked.origins;
      const wider = (options.scopes ?? []).filter((sc) => !(PUBLISHABLE_SCOPES as readonly string[]).includes(sc));
      if (wider.length > 0) errors.push({ pointer: '/scopes', detail: `a publishable key may hold only ${PUBLISHABLE_SCOPES.join(', ')}` });
      if (options.allowedIps) errors.push({ pointer: '/allowed_ips', detail: 'a publishable key is used from visitors\' browsers: restrict it by web origin, not IP address' });
    } else if (options.origins) {
      errors.push({ pointer: '/allowed_origins', detail: 'web origins apply to publishable keys only' });
    }
    const mode = options.mode;
    if (mode !== 'live' && mode !== 'test') errors.push({ pointer: '/mode', detail: 'must be live or test' });
    const tier = options.tier ?? 'free';
    if (!(TIERS as readonly string[]).includes(tier)) errors.push({ pointer: '/tier', detail: `must be one of ${TIERS.join(', ')}` });
    let scopes: Scope[] = publishable ? [...PUBLISHABLE_SCOPES] : [...SCOPES];
    if (options.scopes !== undefined) {
      if (!Array.isArray(options.scopes) || options.scopes.length === 0) errors.push({ pointer: '/scopes', detail: 'must name at least one scope' });
      else {
        options.scopes.forEach((s, i) => {
          if (!(SCOPES as readonly string[]).includes(s)) errors.push({ pointer: `/scopes/${i}`, detail: `must be one of ${SCOPES.join(', ')}` });
        });
        // Stored in catalogue order, so equal sets look equal.
        scopes = SCOPES.filter((s) => options.scopes!.includes(s));
      }
    }
    let name: string | null = null;
    if (options.name !== undefined && options.name !== null) {
      name = String(options.name).trim();
      if (name.length > MAX_NAME_LENGTH || CONTROL_CHARACTERS.test(name)) errors.push({ pointer: '/name', detail: `must be at most ${MAX_NAME_LENGTH} characters of text` });
      if (name === '') name = null;
    }
    let expiresAt: string | null = null;
    if (options.expiresAt !== undefined && options.expiresAt !== null) {
      const raw = String(options.expiresAt);
      // RFC 3339 with an explicit offset: a bare local time would mean different instants on different machines.
      const ms = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i.test(raw) ? Date.parse(raw) : Number.NaN;
      if (Number.isNaN(ms)) errors.push({ pointer: '/expires_at', detail: 'must be an RFC 3339 date-time with offset, e.g. 2027-01-31T00:00:00Z' });
      else if (ms <= this.deps.clock.now().getTime()) errors.push({ pointer: '/expires_at', detail: 'must be in the future' });
      else expiresAt = new Date(ms).toISOString();
    }
    let allowedIps: string[] | null = null;
    if (options.allowedIps !== undefined && options.allowedIps !== null) {
      try {
        allowedIps = this.checkAllowList(options.allowedIps, '/allowed_ips');
      } catch (err) {
        errors.push(...((err as { errors?: FieldError[] }).errors ?? []));
      }
    }
    if (errors.length > 0) throw invalidRequest(`the key is not valid: ${errors.length === 1 ? `${errors[0]!.pointer.slice(1)} ${errors[0]!.detail}` : 'see errors'}`, errors);
    return { mode: mode as KeyMode, tier: tier as Tier, scopes, name, expiresAt, allowedIps, publishable, origins };
  }
}

