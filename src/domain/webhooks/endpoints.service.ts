/**
 * Webhook endpoint management. Every call is authorised per object:
 * - the operator manages every endpoint;
 * - a user manages their personal endpoints;
 * - a firm's endpoints are managed by its owners and admins, and by members granted
 *   `webhooks:manage`.
 * An endpoint the actor may not manage answers not_found, exactly like an unknown id (existence
 * is not revealed). Creating or listing for a firm the actor belongs to but may not manage
 * webhooks of answers forbidden; for a firm they are not in, not_found.
 *
 * Targets: HTTPS only, and the host's resolved addresses must all be public (address-policy.ts)
 * at registration; they are checked again at every connection. WEBHOOK_ALLOW_INSECURE_TARGETS
 * lifts both rules for local development and tests.
 *
 * Secrets are returned only by `create` and `rotateSecret`. A rotation keeps the previous secret
 * signing for 24 hours (both signatures are sent meanwhile); rotating again within that window
 * replaces the previous secret, which then stops signing at once.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { findUserByEmail, findUserById } from '../../db/repositories/account.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import {
  countPendingMessages,
  disableEndpointIfEnabled,
  enableEndpoint,
  findEndpoint,
  insertEndpoint,
  findMessage,
  insertMessages,
  listAttempts,
  listEndpoints,
  listMessageAttempts,
  makeWaitingMessagesDue,
  parkWaitingMessages,
  requeueDeadMessage,
  rotateEndpointSecret,
  type AttemptCursor,
  type WebhookAttemptRow,
  type WebhookEndpointRow,
} from '../../db/repositories/webhook.repository.ts';
import type { WebhookMessageTable } from '../../db/schema.ts';
import { AccountsService } from '../access/accounts.service.ts';
import { normalizeEmail } from '../identity/email-address.ts';
import type { Actor } from '../access/types.ts';
import { conflict, forbidden, invalidRequest, notFound, type FieldError } from '../errors.ts';
import { resolveTarget, systemResolver, TargetRefusedError, type HostResolver } from './address-policy.ts';
import { newMessageId, type DeliveredAttempt, type WebhookDispatcher } from './dispatcher.ts';
import { generateSecret } from './signing.ts';
import {
  TEST_EVENT_TYPE,
  WEBHOOK_EVENT_TYPES,
  type DisabledCause,
  type WebhookAttempt,
  type WebhookAttemptPage,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookMessage,
} from './types.ts';

/** How long a replaced secret keeps signing after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
export const MAX_URL_LENGTH = 2048;
// Each event is sent once per endpoint: a cap keeps one owner from multiplying our outbound traffic.
export const MAX_ENDPOINTS_PER_OWNER = 100;
const MAX_REASON_LENGTH = 500;
const ID_PATTERN = /^ep_[0-9a-f]{32}$/;
const MESSAGE_ID_PATTERN = /^msg_[0-9a-f]{32}$/;
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

/** Whose endpoint: a user's (by email) or a firm's (by slug). */
export type EndpointOwnerRef = { ownerEmail: string } | { firmSlug: string };

export interface CreateEndpointInput {
  url: string;
  /** Event types to receive; absent or null: all. */
  eventTypes?: readonly string[] | null;
}

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** The signing secret, returned this once. */
  secret: string;
}

/** The result of `sendTest` and `retryMessage`: the queued message, and the attempt when one was made at once. */
export interface TestSend {
  messageId: string;
  attempt: DeliveredAttempt | null;
}

export interface WebhookEndpointsDeps {
  database: Database;
  clock: Clock;
  config: Pick<Config, 'webhookAllowInsecureTargets' | 'webhookLeaseSeconds'>;
  accounts?: AccountsService;
  /** DNS resolution for the registration check (tests inject one). */
  resolver?: HostResolver;
  /** When given, `sendTest` makes the first attempt at once; otherwise the running dispatcher does. */
  dispatcher?: WebhookDispatcher;
}

function parseEventTypes(json: string | null): WebhookEventType[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((t): t is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(t)) : [];
  } catch {
    return [];
  }
}

function toEndpoint(row: WebhookEndpointRow, pending: number): WebhookEndpoint {
  return {
    id: row.id,
    owner: row.owner_type === 'firm' ? { type: 'firm', id: row.owner_id, slug: row.owner_slug ?? '' } : { type: 'user', id: row.owner_id, email: row.owner_email ?? '' },
    url: row.url,
    eventTypes: parseEventTypes(row.event_types),
    enabled: row.disabled_at === null,
    disabled: row.disabled_at === null ? null : { at: row.disabled_at, cause: (row.disabled_cause ?? 'manual') as DisabledCause, reason: row.disabled_reason ?? '' },
    consecutiveFailures: row.consecutive_failures,
    previousSecretExpiresAt: row.previous_secret !== null ? row.previous_secret_expires_at : null,
    pendingMessages: pending,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toAttempt(row: WebhookAttemptRow): WebhookAttempt {
  return {
    messageId: row.message_id,
    eventId: row.event_id,
    eventType: row.event_type,
    attempt: row.attempt,
    attemptedAt: row.attempted_at,
    durationMs: row.duration_ms,
    statusCode: row.status_code,
    success: row.success === 1,
    error: row.error,
    responseBody: row.response_body,
    messageStatus: row.message_status,
    nextAttemptAt: row.next_attempt_at,
  };
}

function toMessage(row: WebhookMessageTable, history: WebhookAttempt[]): WebhookMessage {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    createdAt: row.created_at,
    deliveredAt: row.delivered_at,
    history,
  };
}

function encodeCursor(row: WebhookAttemptRow): string {
  return Buffer.from(JSON.stringify([row.attempted_at, row.attempt, row.id])).toString('base64url');
}

function decodeCursor(raw: string): AttemptCursor {
  const bad = () => invalidRequest('not a page of this delivery list', [{ pointer: '/before', detail: 'must be a cursor from the previous page' }]);
  if (typeof raw !== 'string' || raw.length > 200 || !/^[A-Za-z0-9_-]+$/.test(raw)) throw bad();
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(value) || value.length !== 3) throw bad();
  const [attemptedAt, attempt, id] = value as unknown[];
  if (typeof attemptedAt !== 'string' || Number.isNaN(Date.parse(attemptedAt)) || !Number.isInteger(attempt) || typeof id !== 'string' || id.length > 64) throw bad();
  return { attemptedAt, attempt: attempt as number, id };
}

export class WebhookEndpointsService {
  private readonly accounts: AccountsService;
  private readonly resolver: HostResolver;

  constructor(private readonly deps: WebhookEndpointsDeps) {
    this.accounts = deps.accounts ?? new AccountsService({ database: deps.database, clock: deps.clock });
    this.resolver = deps.resolver ?? systemResolver;
  }

  /**
   * Checks a target URL: absolute, https (unless insecure targets are allowed), no credentials or
   * fragment, and a host whose every address is public. Returns the normalised URL.
   */
  async validateUrl(raw: unknown, pointer = '/url'): Promise<string> {
    const fail = (detail: string) => invalidRequest(`the webhook URL is not allowed: ${detail}`, [{ pointer, detail }]);
    if (typeof raw !== 'string' || raw.trim() === '') throw fail('must be an absolute https URL');
    const text = raw.trim();
    if (text.length > MAX_URL_LENGTH) throw fail(`must be at most ${MAX_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw fail('must be an absolute https URL');
    }
    const insecure = this.deps.config.webhookAllowInsecureTargets;
    if (url.protocol !== 'https:' && !(insecure && url.protocol === 'http:')) throw fail('must use https');
    if (url.username !== '' || url.password !== '') throw fail('must not contain credentials (sign with the webhook secret instead)');
    if (url.hash !== '') throw fail('must not contain a fragment');
    if (!insecure) {
      // The WHATWG parser has already turned odd IPv4 spellings (2130706433, 0177.0.0.1, 0x7f.1,
      // 127.1) into dotted quads, so they are judged as the address they really are.
      try {
        await resolveTarget(url.hostname, this.resolver);
      } catch (err) {
        if (err instanceof TargetRefusedError) throw fail(err.message);
        throw err;
      }
    }
    return url.href;
  }

  private checkEventTypes(input: readonly string[] | null | undefined): WebhookEventType[] | null {
    if (input === undefined || input === null) return null;
    if (!Array.isArray(input)) throw invalidRequest('event types must be a list', [{ pointer: '/event_types', detail: 'must be an array' }]);
    const errors: FieldError[] = [];
    input.forEach((t, i) => {
      if (!(WEBHOOK_EVENT_TYPES as readonly unknown[]).includes(t)) errors.push({ pointer: `/event_types/${i}`, detail: `must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}` });
    });
    if (errors.length > 0) throw invalidRequest('unknown event type', errors);
    if (input.length === 0) throw invalidRequest('subscribe to at least one event type, or omit the filter to receive all', [{ pointer: '/event_types', detail: 'must not be empty' }]);
    return [...new Set(input)] as WebhookEventType[];
  }

  /** Registers an endpoint and returns it with its secret (shown once). */
  async create(actor: Actor, ownerRef: EndpointOwnerRef | null, input: CreateEndpointInput): Promise<EndpointWithSecret> {
    const url = await this.validateUrl(input?.url);
    const eventTypes = this.checkEventTypes(input?.eventTypes);
    const db = this.deps.database.db;
    const owner = await this.resolveOwner(db, actor, ownerRef, 'create');
    const existing = await listEndpoints(db, owner);
    if (existing.length >= MAX_ENDPOINTS_PER_OWNER) throw conflict(`an owner may have at most ${MAX_ENDPOINTS_PER_OWNER} webhook endpoints`);
    const nowIso = this.deps.clock.now().toISOString();
    const secret = generateSecret();
    const id = `ep_${randomUUID().replaceAll('-', '')}`;
    await insertEndpoint(db, {
      id,
      owner_type: owner.type,
      owner_id: owner.id,
      url,
      event_types: eventTypes === null ? null : JSON.stringify(eventTypes),
      secret,
      previous_secret: null,
      previous_secret_expires_at: null,
      disabled_at: null,
      disabled_cause: null,
      disabled_reason: null,
      consecutive_failures: 0,
      created_by_user_id: actor.type === 'user' ? actor.userId : null,
      created_at: nowIso,
      updated_at: nowIso,
    });
    return { endpoint: await this.view(db, id), secret };
  }

  /**
   * Endpoints the actor may see, oldest first: the operator's are all endpoints, a user's their
   * personal ones; a filter narrows to one user's or one firm's endpoints.
   */
  async list(actor: Actor, filter: { ownerEmail?: string; firmSlug?: string } = {}): Promise<WebhookEndpoint[]> {
    const db = this.deps.database.db;
    if (filter.ownerEmail !== undefined && filter.firmSlug !== undefined) {
      throw invalidRequest('filter by owner or by firm, not both', [{ pointer: '/firm_slug', detail: 'cannot be combined with owner_email' }]);
    }
    let rows: WebhookEndpointRow[];
    if (filter.firmSlug !== undefined || filter.ownerEmail !== undefined || actor.type === 'user') {
      const ref: EndpointOwnerRef | null = filter.firmSlug !== undefined ? { firmSlug: filter.firmSlug } : filter.ownerEmail !== undefined ? { ownerEmail: filter.ownerEmail } : null;
      const owner = await this.resolveOwner(db, actor, ref, 'list').catch((err: unknown) => {
        // The operator listing a user who does not exist simply gets nothing.
        if (actor.type === 'operator' && (err as { code?: string }).code === 'not_found' && ref && 'ownerEmail' in ref) return null;
        throw err;
      });
      rows = owner ? await listEndpoints(db, owner) : [];
    } else {
      rows = await listEndpoints(db);
    }
    const pending = await countPendingMessages(db, rows.map((r) => r.id));
    return rows.map((r) => toEndpoint(r, pending.get(r.id) ?? 0));
  }

  /** One endpoint the actor may manage; not_found otherwise. */
  async get(actor: Actor, id: string): Promise<WebhookEndpoint> {
    const row = await this.visible(this.deps.database.db, actor, id);
    return this.view(this.deps.database.db, row.id);
  }

  /** Issues a new secret; the previous one keeps signing for 24 hours. Returns the new secret (shown once). */
  async rotateSecret(actor: Actor, id: string): Promise<EndpointWithSecret> {
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, id);
    const now = this.deps.clock.now();
    const secret = generateSecret();
    await rotateEndpointSecret(db, row.id, secret, new Date(now.getTime() + ROTATION_OVERLAP_MS).toISOString(), now.toISOString());
    return { endpoint: await this.view(db, row.id), secret };
  }

  /** Stops deliveries to an endpoint; its messages wait (see enable). */
  async disable(actor: Actor, id: string, reason: string): Promise<WebhookEndpoint> {
    const text = typeof reason === 'string' ? reason.trim() : '';
    if (text.length === 0 || text.length > MAX_REASON_LENGTH || CONTROL_CHARACTERS.test(text)) {
      throw invalidRequest('give a reason for disabling the endpoint', [{ pointer: '/reason', detail: `must be 1–${MAX_REASON_LENGTH} characters of text` }]);
    }
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, id);
    // Messages first, then the endpoint: the order the dispatcher's commits lock rows in. Parking
    // is harmless when the endpoint turns out to be disabled already.
    const disabled = await db.transaction().execute(async (trx) => {
      await parkWaitingMessages(trx, row.id);
      return disableEndpointIfEnabled(trx, row.id, { cause: 'manual', reason: text, nowIso: this.deps.clock.now().toISOString() });
    });
    if (!disabled) throw conflict(`the endpoint is already disabled (${row.disabled_reason ?? row.disabled_cause})`);
    return this.view(db, row.id);
  }

  /**
   * Enables an endpoint: its failure count starts again from zero and every waiting message is
   * due at once. Enabling an enabled endpoint changes nothing.
   */
  async enable(actor: Actor, id: string): Promise<WebhookEndpoint> {
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, id);
    if (row.disabled_at !== null) {
      const nowIso = this.deps.clock.now().toISOString();
      // Messages first, then the endpoint: the order the dispatcher's commits lock rows in.
      await db.transaction().execute(async (trx) => {
        await makeWaitingMessagesDue(trx, row.id, nowIso);
        await enableEndpoint(trx, row.id, nowIso);
      });
    }
    return this.view(db, row.id);
  }

  /**
   * Sends a `webhook.test` message to this endpoint only (an ordinary message: signed, logged,
   * retried like any other). With a dispatcher, the first attempt is made now and returned.
   */
  async sendTest(actor: Actor, id: string): Promise<TestSend> {
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, id);
    if (row.disabled_at !== null) throw conflict('the endpoint is disabled; enable it first (its waiting messages are then delivered too)');
    const now = this.deps.clock.now();
    const nowIso = now.toISOString();
    const eventId = `evt_test_${randomUUID().replaceAll('-', '')}`;
    const dispatcher = this.deps.dispatcher;
    const message: WebhookMessageTable = {
      id: newMessageId(),
      endpoint_id: row.id,
      event_id: eventId,
      event_type: TEST_EVENT_TYPE,
      payload: JSON.stringify({ id: eventId, type: TEST_EVENT_TYPE, created_at: nowIso, data: { endpoint_id: row.id } }),
      status: 'pending',
      attempts: 0,
      next_attempt_at: nowIso,
      // Claimed from the start when we send it ourselves, so no dispatcher races us to it.
      locked_until: dispatcher ? new Date(now.getTime() + this.deps.config.webhookLeaseSeconds * 1000).toISOString() : null,
      claim_token: dispatcher ? randomUUID() : null,
      created_at: nowIso,
      last_attempt_at: null,
      delivered_at: null,
    };
    await insertMessages(db, [message]);
    if (!dispatcher) return { messageId: message.id, attempt: null };
    return { messageId: message.id, attempt: await dispatcher.deliver(message, row) };
  }

  /** The endpoint's delivery attempts, newest first (1–200, default 20). */
  async deliveries(actor: Actor, id: string, limit = 20): Promise<WebhookAttempt[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalidRequest('limit must be 1–200', [{ pointer: '/limit', detail: 'must be an integer from 1 to 200' }]);
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, id);
    return (await listAttempts(db, row.id, limit)).map(toAttempt);
  }

  /**
   * A page of the endpoint's attempts, newest first (1–200 per page, default 20); `before` is the
   * `next` cursor of the previous page. Keyset paging: a page costs the same however deep it is.
   */
  async deliveryPage(actor: Actor, id: string, options: { limit?: number; before?: string | null } = {}): Promise<WebhookAttemptPage> {
    const limit = options.limit ?? 20;
    if (!Number.isInteger(limit) || limit < 1 || limit > 200) throw invalidRequest('limit must be 1–200', [{ pointer: '/limit', detail: 'must be an integer from 1 to 200' }]);
    const after = options.before ? decodeCursor(options.before) : undefined;
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, id);
    const rows = await listAttempts(db, row.id, limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { attempts: page.map(toAttempt), next: rows.length > limit && last ? encodeCursor(last) : null };
  }

  /** One message of an endpoint the actor may manage, with its attempts; not_found otherwise. */
  async message(actor: Actor, endpointId: string, messageId: string): Promise<WebhookMessage> {
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, endpointId);
    const message = await this.messageOf(db, row.id, messageId);
    return toMessage(message, (await listMessageAttempts(db, message.id)).map(toAttempt));
  }

  /**
   * Sends a dead message again (a manual retry): only a dead message, of an enabled endpoint the
   * actor may manage. It keeps its webhook-id and body (receivers deduplicate), and its attempt
   * count: the retry is the next attempt after the last (7 after the sixth), made at once, and
   * — being past the schedule — if it fails the message is dead again (retry it again later).
   * With a dispatcher, the attempt is made now and returned; otherwise the running dispatcher
   * makes it (it is due at once).
   */
  async retryMessage(actor: Actor, endpointId: string, messageId: string): Promise<TestSend> {
    const db = this.deps.database.db;
    const row = await this.visible(db, actor, endpointId);
    const message = await this.messageOf(db, row.id, messageId);
    if (row.disabled_at !== null) throw conflict('the endpoint is disabled; enable it first (its waiting messages are then delivered too)');
    if (message.status !== 'dead') throw conflict(`only a dead message can be retried; ${message.id} is ${message.status}`);
    const now = this.deps.clock.now();
    const dispatcher = this.deps.dispatcher;
    const claim = dispatcher ? { lockedUntil: new Date(now.getTime() + this.deps.config.webhookLeaseSeconds * 1000).toISOString(), token: randomUUID() } : null;
    const requeued = await requeueDeadMessage(db, row.id, message.id, { nowIso: now.toISOString(), claim });
    // Someone retried it a moment before us: it is no longer dead.
    if (!requeued) throw conflict(`only a dead message can be retried; ${message.id} was just re-queued`);
    if (!dispatcher) return { messageId: requeued.id, attempt: null };
    return { messageId: requeued.id, attempt: await dispatcher.deliver(requeued, row) };
  }

  private async messageOf(db: Executor, endpointId: string, messageId: string): Promise<WebhookMessageTable> {
    const message = typeof messageId === 'string' && MESSAGE_ID_PATTERN.test(messageId) ? await findMessage(db, messageId) : undefined;
    // Another endpoint's message is not found here, exactly like an unknown id.
    if (!message || message.endpoint_id !== endpointId) throw notFound(`no message ${typeof messageId === 'string' ? messageId.slice(0, 40) : ''} at this endpoint`);
    return message;
  }

  private async view(db: Executor, id: string): Promise<WebhookEndpoint> {
    const row = await findEndpoint(db, id);
    if (!row) throw notFound(`no webhook endpoint ${id}`);
    const pending = (await countPendingMessages(db, [id])).get(id) ?? 0;
    return toEndpoint(row, pending);
  }

  /** The endpoint, if the actor may manage it; not_found (never forbidden) otherwise. */
  private async visible(db: Executor, actor: Actor, id: string): Promise<WebhookEndpointRow> {
    const missing = () => notFound(`no webhook endpoint ${typeof id === 'string' ? id : ''}`.trim());
    if (typeof id !== 'string' || !ID_PATTERN.test(id)) throw missing();
    const row = await findEndpoint(db, id);
    if (!row) throw missing();
    if (actor.type === 'operator') return row;
    if (row.owner_type === 'user' && row.owner_id === actor.userId) return row;
    if (row.owner_type === 'firm' && (await this.accounts.can(actor, row.owner_id, 'webhooks:manage', db))) return row;
    throw missing();
  }

  /** Whose endpoints a create or list names, after checking the actor may manage them. */
  private async resolveOwner(db: Executor, actor: Actor, ref: EndpointOwnerRef | null, action: 'create' | 'list'): Promise<{ type: 'user' | 'firm'; id: string }> {
    if (ref !== null && 'firmSlug' in ref) {
      const { firm } = await this.accounts.resolveFirm(actor, ref.firmSlug, db);
      if (!(await this.accounts.can(actor, firm.id, 'webhooks:manage', db))) throw forbidden(`you may not manage the webhooks of ${firm.slug}`);
      return { type: 'firm', id: firm.id };
    }
    if (ref !== null && 'ownerEmail' in ref) {
      const email = normalizeEmail(ref.ownerEmail, '/owner_email');
      if (actor.type === 'operator') {
        const user = await findUserByEmail(db, email);
        if (!user) throw notFound(`no user ${email}`);
        return { type: 'user', id: user.id };
      }
      const me = await findUserById(db, actor.userId);
      if (!me || me.email !== email) throw forbidden(`you may ${action} personal webhook endpoints of your own only`);
      return { type: 'user', id: me.id };
    }
    if (actor.type === 'user') return { type: 'user', id: actor.userId };
    throw invalidRequest('name the owner: a user (owner email) or a firm (slug)', [{ pointer: '/owner_email', detail: 'required for the operator' }]);
  }
}
