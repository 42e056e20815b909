/**
 * The webhook dispatcher: turns outbox events into messages (one per event and endpoint) and
 * delivers them, at least once, following the retry schedule.
 *
 * - Fan-out: every endpoint of the event's owner that subscribes to its type gets a message, an
 *   enabled one or not (a disabled endpoint's messages wait and resume when it is re-enabled).
 *   The message id (`msg_…`) is the `webhook-id`, the same on every attempt; the payload bytes
 *   are fixed at fan-out, so every attempt sends exactly the same body.
 * - Claims: a message is sent only under a lease (see webhook.repository.ts); several processes
 *   on PostgreSQL never send the same attempt, and an attempt whose process died is sent again
 *   with the same webhook-id once its lease lapses.
 * - Concurrency is bounded per process and per endpoint, and claims take at most a per-endpoint
 *   share of due messages: a slow or dead endpoint occupies its own few slots, never everyone's.
 * - Outcomes: any 2xx delivers. Anything else is a failed attempt: the next one is scheduled
 *   after the next delay of the schedule, or the message is dead after the last. A 410 disables
 *   the endpoint at once; N consecutive failed attempts (across messages) disable it too, and
 *   its owner (a user, or a firm's owners and admins) is notified.
 * - Outcomes are recorded by group commit: attempts that finish while a commit runs are written
 *   together by the next one (one transaction, one fsync, per batch rather than per delivery).
 * - Time comes from the injected clock: the schedule is tested without sleeping.
 */
import { randomUUID } from 'node:crypto';
import type { ConnectionOptions } from 'node:tls';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { findUserById, listMembers } from '../../db/repositories/account.repository.ts';
import type { Executor } from '../../db/repositories/types.ts';
import {
  claimMessages,
  countEndpointFailures,
  countPendingMessages,
  disableEndpointIfEnabled,
  endpointsOfOwners,
  findDueMessages,
  findEndpointsByIds,
  insertAttempts,
  insertMessages,
  isTransientConflict,
  lockUnpublishedEvents,
  markEventsPublished,
  parkWaitingMessages,
  releaseClaims,
  resetEndpointFailures,
  settleMessage,
} from '../../db/repositories/webhook.repository.ts';
import type { OutboxEventTable, WebhookAttemptTable, WebhookEndpointTable, WebhookMessageTable } from '../../db/schema.ts';
import { noMetrics, type DomainMetrics } from '../metrics.ts';
import type { Logger } from '../notify/mailer.ts';
import type { NotificationInput, Notifier, PendingNotifications } from '../notify/notifier.ts';
import type { AddressPolicy, HostResolver } from './address-policy.ts';
import { WebhookHttpClient, type AttemptOutcome } from './delivery.ts';
import { signatureHeader } from './signing.ts';
import type { DisabledCause } from './types.ts';

export const USER_AGENT = 'Consulta-Webhooks/1.0';
export const ENDPOINT_DISABLED = 'webhook_endpoint_disabled';

/** The fields of an outbox event's data that a payload may carry (no personal data). */
const PAYLOAD_DATA_FIELDS = ['booking_intent_id', 'status', 'lawyer_id', 'slot', 'confirmed_at'] as const;

export type DispatcherConfig = Pick<
  Config,
  | 'webhookRetryScheduleSeconds'
  | 'webhookAllowInsecureTargets'
  | 'webhookTimeoutMs'
  | 'webhookConcurrency'
  | 'webhookEndpointConcurrency'
  | 'webhookDispatchIntervalMs'
  | 'webhookDisableAfterFailures'
  | 'webhookLeaseSeconds'
>;

export interface WebhookDispatcherDeps {
  database: Database;
  clock: Clock;
  config: DispatcherConfig;
  notifier: Notifier;
  logger: Logger;
  /** DNS resolution at connect time (tests inject one). */
  resolver?: HostResolver;
  /** Extra TLS options for outgoing connections (tests pass a private CA). */
  tls?: ConnectionOptions;
  /** The address policy at connect time (tests narrow it); refusalReason by default. */
  policy?: AddressPolicy;
  /** Attempts by outcome and disabled endpoints, counted once their outcome is recorded. */
  metrics?: DomainMetrics;
}

/** The result of one attempt, as the caller of `deliver` sees it. */
export interface DeliveredAttempt extends AttemptOutcome {
  messageId: string;
  attempt: number;
  /** Where the message stands after the attempt. */
  messageStatus: 'pending' | 'delivered' | 'dead';
  nextAttemptAt: string | null;
  /** Set when this attempt disabled the endpoint. */
  disabledEndpoint: DisabledCause | null;
}

/** An attempt's outcome waiting for the next group commit. */
interface PendingOutcome {
  message: WebhookMessageTable;
  endpoint: WebhookEndpointTable;
  finishedIso: string;
  result: DeliveredAttempt;
  attemptRow: WebhookAttemptTable;
  resolve(result: DeliveredAttempt): void;
  reject(err: unknown): void;
}

/** The exact payload bytes of an outbox event: `{"id","type","created_at","data"}`. */
export function eventPayload(event: Pick<OutboxEventTable, 'id' | 'type' | 'created_at' | 'data'>): string {
  let source: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(event.data);
    if (parsed && typeof parsed === 'object') source = parsed as Record<string, unknown>;
  } catch {
    // An unreadable data column still produces a well-formed payload; nothing else is invented.
  }
  const data: Record<string, unknown> = {};
  for (const field of PAYLOAD_DATA_FIELDS) if (source[field] !== undefined && source[field] !== null) data[field] = source[field];
  return JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at, data });
}

/** A new message id: the `webhook-id` header. */
export const newMessageId = (): string => `msg_${randomUUID().replaceAll('-', '')}`;

function subscribes(endpoint: WebhookEndpointTable, type: string): boolean {
  if (endpoint.event_types === null) return true;
  try {
    const types: unknown = JSON.parse(endpoint.event_types);
    return Array.isArray(types) && types.includes(type);
  } catch {
    return false;
  }
}

export class WebhookDispatcher {
  private readonly http: WebhookHttpClient;
  private readonly tasks = new Set<Promise<void>>();
  private readonly perEndpoint = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private started = false;
  private stopped = false;
  private pumping = false;
  private pumpAgain = false;
  private fanningOut: Promise<number> | null = null;
  private readonly outcomes: PendingOutcome[] = [];
  private readonly background = new Set<Promise<void>>();
  private flushing: Promise<void> | null = null;
  private flushScheduled = false;
  private pumpScheduled = false;
  /** What this dispatcher did since it was built (benchmarks, tests, logs). */
  readonly stats = { attempts: 0, delivered: 0, failed: 0, claimQueries: 0, commits: 0, commitRetries: 0 };

  constructor(private readonly deps: WebhookDispatcherDeps) {
    this.http = new WebhookHttpClient({
      timeoutMs: deps.config.webhookTimeoutMs,
      allowInsecureTargets: deps.config.webhookAllowInsecureTargets,
      resolver: deps.resolver,
      tls: deps.tls,
      policy: deps.policy,
    });
  }

  /** Deliveries in flight in this process. */
  get inFlight(): number {
    return this.tasks.size;
  }

  /** Runs in the background: polls every WEBHOOK_DISPATCH_INTERVAL_MS, refills as deliveries end. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    const tick = () => {
      this.fanOut().then(
        () => this.pump(),
        (err: unknown) => {
          // A tick still running while the process stops may find the database closed: not news.
          if (!this.stopped) this.deps.logger.error({ err }, 'webhook fan-out failed');
          this.pump();
        },
      );
    };
    this.timer = setInterval(tick, this.deps.config.webhookDispatchIntervalMs);
    this.timer.unref();
    tick();
  }

  /**
   * Stops claiming and waits for the deliveries in flight. A delivery that cannot be recorded
   * any more (database closed) is sent again by another run once its lease lapses.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.allSettled([...this.tasks]);
    await Promise.allSettled([...this.background]);
    await this.http.close().catch(() => {});
  }

  /** Turns unpublished outbox events into messages; returns how many events it handled. */
  fanOut(batch = 500): Promise<number> {
    // One fan-out at a time per process; concurrent callers share it.
    this.fanningOut ??= this.fanOutAll(batch).finally(() => {
      this.fanningOut = null;
    });
    return this.fanningOut;
  }

  private async fanOutAll(batch: number): Promise<number> {
    const { database, clock } = this.deps;
    let total = 0;
    for (;;) {
      const handled = await database.db.transaction().execute(async (trx) => {
        const events = await lockUnpublishedEvents(trx, database.dialect, batch);
        if (events.length === 0) return 0;
        const owners = new Map<string, { type: string; id: string }>();
        for (const e of events) owners.set(`${e.owner_type}:${e.owner_id}`, { type: e.owner_type, id: e.owner_id });
        const endpoints = await endpointsOfOwners(trx, [...owners.values()]);
        const nowIso = clock.now().toISOString();
        const messages: WebhookMessageTable[] = [];
        for (const event of events) {
          const payload = eventPayload(event);
          for (const endpoint of endpoints) {
            if (endpoint.owner_type !== event.owner_type || endpoint.owner_id !== event.owner_id) continue;
            // An endpoint hears of what happens after it was registered, not of older events.
            if (endpoint.created_at > event.created_at) continue;
            if (!subscribes(endpoint, event.type)) continue;
            messages.push({
              id: newMessageId(),
              endpoint_id: endpoint.id,
              event_id: event.id,
              event_type: event.type,
              payload,
              status: 'pending',
              attempts: 0,
              // A disabled endpoint's message is parked until the endpoint is enabled again.
              next_attempt_at: endpoint.disabled_at === null ? nowIso : null,
              locked_until: null,
              claim_token: null,
              created_at: nowIso,
              last_attempt_at: null,
              delivered_at: null,
            });
          }
        }
        await insertMessages(trx, messages);
        await markEventsPublished(
          trx,
          events.map((e) => e.id),
          nowIso,
        );
        return events.length;
      });
      total += handled;
      if (handled < batch) return total;
    }
  }

  /** Claims due messages up to the free slots and starts delivering them; returns how many it claimed. */
  async dispatchDue(): Promise<number> {
    // Another process may claim every message we picked between our query and our claim; that
    // says nothing about what else is due, so look again (a few times) rather than go idle.
    for (let round = 0; round < 5; round++) {
      const { picked, claimed } = await this.claimDue();
      if (claimed > 0 || picked === 0) return claimed;
    }
    return 0;
  }

  private async claimDue(): Promise<{ picked: number; claimed: number }> {
    const { config, database, clock } = this.deps;
    const free = config.webhookConcurrency - this.tasks.size;
    if (free <= 0 || this.stopped) return { picked: 0, claimed: 0 };
    const perEndpoint = config.webhookEndpointConcurrency;
    const saturated = [...this.perEndpoint].filter(([, n]) => n >= perEndpoint).map(([id]) => id);
    const now = clock.now();
    const nowIso = now.toISOString();
    this.stats.claimQueries++;
    const candidates = await findDueMessages(database.db, { nowIso, perEndpoint, limit: free * 2, excludeEndpointIds: saturated });
    const picked: string[] = [];
    const counts = new Map(this.perEndpoint);
    for (const c of candidates) {
      if (picked.length >= free) break;
      const n = counts.get(c.endpoint_id) ?? 0;
      if (n >= perEndpoint) continue;
      counts.set(c.endpoint_id, n + 1);
      picked.push(c.id);
    }
    if (picked.length === 0) return { picked: 0, claimed: 0 };
    const token = randomUUID();
    const lockedUntil = new Date(now.getTime() + config.webhookLeaseSeconds * 1000).toISOString();
    const claimed = await claimMessages(database.db, database.dialect, picked, { nowIso, lockedUntil, token });
    if (claimed.length === 0) return { picked: picked.length, claimed: 0 };
    const endpoints = new Map((await findEndpointsByIds(database.db, [...new Set(claimed.map((m) => m.endpoint_id))])).map((e) => [e.id, e]));
    const unsendable: string[] = [];
    for (const message of claimed) {
      const endpoint = endpoints.get(message.endpoint_id);
      // Disabled between the candidate query and the claim: the message waits for re-enabling.
      if (!endpoint || endpoint.disabled_at !== null || this.stopped) unsendable.push(message.id);
      else this.launch(message, endpoint);
    }
    await releaseClaims(database.db, unsendable, token);
    return { picked: picked.length, claimed: claimed.length - unsendable.length };
  }

  /**
   * Fans out and delivers everything due now, waiting for every attempt to finish (tests, the
   * CLI, benchmarks). Retries scheduled in the future are left for later.
   */
  async runUntilIdle(): Promise<void> {
    for (;;) {
      await this.fanOut();
      // A claim made while deliveries were in flight skipped their (then saturated) endpoints;
      // if they all finished meanwhile, only a claim made with nothing in flight proves idleness.
      const busyBefore = this.tasks.size > 0;
      const claimed = await this.dispatchDue();
      if (claimed > 0) continue;
      if (this.tasks.size === 0) {
        if (busyBefore) continue;
        await Promise.allSettled([...this.background]);
        return;
      }
      await Promise.race(this.tasks);
    }
  }

  /** Makes one attempt of a message this caller has claimed (`claim_token` set); never throws for HTTP reasons. */
  async deliver(message: WebhookMessageTable, endpoint: WebhookEndpointTable): Promise<DeliveredAttempt> {
    const { clock, config } = this.deps;
    const attempt = message.attempts + 1;
    const startedAt = clock.now();
    let outcome: AttemptOutcome;
    if (!config.webhookAllowInsecureTargets && !endpoint.url.startsWith('https://')) {
      // Registered while WEBHOOK_ALLOW_INSECURE_TARGETS was on; never sent once it is off.
      outcome = { success: false, statusCode: null, durationMs: 0, error: 'refused: plain http targets are allowed only with WEBHOOK_ALLOW_INSECURE_TARGETS', responseBody: null };
    } else {
      outcome = await this.http.send(endpoint.url, this.headers(message, endpoint, startedAt, attempt), message.payload);
    }
    this.stats.attempts++;
    if (outcome.success) this.stats.delivered++;
    else this.stats.failed++;
    return this.record(message, endpoint, attempt, startedAt, outcome);
  }

  private headers(message: WebhookMessageTable, endpoint: WebhookEndpointTable, at: Date, attempt: number): Record<string, string> {
    const secrets = [endpoint.secret];
    // During a rotation's overlap both secrets sign: receivers holding either one verify.
    if (endpoint.previous_secret && endpoint.previous_secret_expires_at && endpoint.previous_secret_expires_at > at.toISOString()) {
      secrets.push(endpoint.previous_secret);
    }
    return {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      'webhook-id': message.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': signatureHeader(secrets, message.id, at, message.payload),
      // Informational (not signed): which attempt of this message this is, 1-based.
      'webhook-attempt': String(attempt),
    };
  }

  /**
   * Queues an attempt's outcome for the next group commit and resolves once it is recorded.
   * Outcomes that finish while a commit is running are written together by the next one: one
   * transaction (one fsync) per batch instead of per delivery.
   */
  private record(message: WebhookMessageTable, endpoint: WebhookEndpointTable, attempt: number, startedAt: Date, outcome: AttemptOutcome): Promise<DeliveredAttempt> {
    const { clock, config } = this.deps;
    const schedule = config.webhookRetryScheduleSeconds;
    const finishedIso = clock.now().toISOString();
    const dead = !outcome.success && attempt >= schedule.length + 1;
    const nextAttemptAt = outcome.success || dead ? null : new Date(Date.parse(finishedIso) + schedule[attempt - 1]! * 1000).toISOString();
    const messageStatus = outcome.success ? 'delivered' : dead ? 'dead' : 'pending';
    return new Promise<DeliveredAttempt>((resolve, reject) => {
      this.outcomes.push({
        message,
        endpoint,
        finishedIso,
        result: { ...outcome, messageId: message.id, attempt, messageStatus, nextAttemptAt, disabledEndpoint: null },
        attemptRow: {
          id: randomUUID(),
          message_id: message.id,
          endpoint_id: endpoint.id,
          attempt,
          attempted_at: startedAt.toISOString(),
          duration_ms: outcome.durationMs,
          status_code: outcome.statusCode,
          success: outcome.success ? 1 : 0,
          error: outcome.error,
          response_body: outcome.responseBody,
        },
        resolve,
        reject,
      });
      this.flushOutcomes();
    });
  }

  private flushOutcomes(): void {
    if (this.flushing || this.flushScheduled) return;
    // Deferred to the check phase: every response that arrived in this turn of the event loop
    // joins the batch (on SQLite a commit blocks the loop, so responses pile up meanwhile).
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushing = (async () => {
        while (this.outcomes.length > 0) await this.commitOutcomes(this.outcomes.splice(0, 500));
      })().finally(() => {
        this.flushing = null;
        if (this.outcomes.length > 0) this.flushOutcomes();
      });
    });
  }

  private async commitOutcomes(batch: PendingOutcome[]): Promise<void> {
    const notices: Array<{ endpointId: string; cause: DisabledCause; pending: PendingNotifications }> = [];
    // Another dispatcher's commit may touch the same endpoint rows: a deadlock or busy database
    // aborts one of the two, which then simply runs again (nothing of it was applied).
    for (let round = 1; ; round++) {
      notices.length = 0;
      for (const o of batch) o.result.disabledEndpoint = null;
      try {
        this.stats.commits++;
        await this.writeOutcomes(batch, notices);
        break;
      } catch (err) {
        if (round < 5 && isTransientConflict(err)) {
          this.stats.commitRetries++;
          continue;
        }
        for (const o of batch) o.reject(err);
        return;
      }
    }
    const metrics = this.deps.metrics ?? noMetrics;
    for (const o of batch) {
      metrics.webhookAttempt(o.result.messageStatus === 'pending' ? 'failed' : o.result.messageStatus);
      o.resolve(o.result);
    }
    for (const notice of notices) {
      metrics.webhookEndpointDisabled(notice.cause);
      this.deps.logger.warn({ endpoint: notice.endpointId, cause: notice.cause }, 'webhook endpoint disabled');
      // Emailed in the background: a slow mail server must hold neither a slot nor the next commit.
      const sending: Promise<void> = this.deps.notifier.deliver(notice.pending).then(
        () => undefined,
        () => undefined,
      );
      this.background.add(sending);
      void sending.finally(() => this.background.delete(sending));
    }
  }

  /** One transaction recording a batch of outcomes, locking rows in one order: messages by id, then endpoints by id. */
  private async writeOutcomes(batch: PendingOutcome[], notices: Array<{ endpointId: string; cause: DisabledCause; pending: PendingNotifications }>): Promise<void> {
    const { database, config } = this.deps;
    await database.db.transaction().execute(async (trx) => {
      await insertAttempts(
        trx,
        batch.map((o) => o.attemptRow),
      );
      const ours: PendingOutcome[] = [];
      for (const o of [...batch].sort((a, b) => (a.message.id < b.message.id ? -1 : 1))) {
        const settled = await settleMessage(trx, o.message.id, o.message.claim_token ?? '', {
          status: o.result.messageStatus,
          attempts: o.result.attempt,
          next_attempt_at: o.result.nextAttemptAt,
          last_attempt_at: o.attemptRow.attempted_at,
          delivered_at: o.result.success ? o.finishedIso : null,
        });
        // A claim that lapsed and was taken over: the other process owns the outcome and the counters.
        if (settled) ours.push(o);
      }
      const byEndpoint = new Map<string, PendingOutcome[]>();
      // In completion order (the batch's order), which decides what "consecutive" means.
      for (const o of batch) if (ours.includes(o)) byEndpoint.set(o.endpoint.id, [...(byEndpoint.get(o.endpoint.id) ?? []), o]);
      for (const endpointId of [...byEndpoint.keys()].sort()) {
        const outcomes = byEndpoint.get(endpointId)!;
        // Failures after the last success are the current run of consecutive failures.
        const lastSuccess = outcomes.map((o) => o.result.success).lastIndexOf(true);
        const failures = outcomes.slice(lastSuccess + 1);
        // A 410 disables the endpoint whatever else the batch holds.
        const gone = outcomes.find((o) => o.result.statusCode === 410);
        if (failures.length === 0 && !gone) {
          await resetEndpointFailures(trx, [endpointId]);
          continue;
        }
        const counted = await countEndpointFailures(trx, endpointId, lastSuccess >= 0 ? { set: failures.length } : { add: failures.length });
        if (!counted?.enabled) continue;
        const last = failures[failures.length - 1] ?? gone!;
        const cause: DisabledCause | null = gone ? 'gone' : counted.failures >= config.webhookDisableAfterFailures ? 'failures' : null;
        if (!cause) continue;
        const reason =
          cause === 'gone' ? 'the endpoint answered 410 Gone' : `${counted.failures} consecutive failed delivery attempts (last: ${last.result.error ?? 'no response'})`;
        const disabled = await disableEndpointIfEnabled(trx, endpointId, { cause, reason: reason.slice(0, 500), nowIso: last.finishedIso });
        if (!disabled) continue;
        await parkWaitingMessages(trx, endpointId);
        (gone ?? last).result.disabledEndpoint = cause;
        notices.push({ endpointId, cause, pending: await this.storeDisabledNotice(trx, disabled, cause, reason) });
      }
    });
  }

  /** Tells the endpoint's owner (a user, or the firm's owners and admins) that it was disabled. */
  private async storeDisabledNotice(trx: Executor, endpoint: WebhookEndpointTable, cause: DisabledCause, reason: string): Promise<PendingNotifications> {
    let recipients: string[];
    let firmId: string | null = null;
    if (endpoint.owner_type === 'firm') {
      firmId = endpoint.owner_id;
      recipients = (await listMembers(trx, endpoint.owner_id, ['owner', 'admin'])).map((m) => m.user_id);
    } else {
      recipients = (await findUserById(trx, endpoint.owner_id)) ? [endpoint.owner_id] : [];
    }
    if (recipients.length === 0) return { ids: [] };
    const waiting = (await countPendingMessages(trx, [endpoint.id])).get(endpoint.id) ?? 0;
    const body = [
      'Hello,',
      '',
      `Consulta stopped delivering webhooks to ${endpoint.url} (endpoint ${endpoint.id}):`,
      `${reason}.`,
      '',
      `${waiting} undelivered ${waiting === 1 ? 'message waits' : 'messages wait'} for it. Nothing is lost: once the endpoint is`,
      'enabled again, waiting messages are delivered at once and new events resume.',
      '',
      'Fix the endpoint (it must answer 2xx within the timeout, at this exact URL, without redirects), then:',
      '',
      `  consulta webhooks enable ${endpoint.id}`,
      '',
      '— Consulta',
    ].join('\n');
    const inputs: NotificationInput[] = recipients.map((userId) => ({
      userId,
      firmId,
      kind: ENDPOINT_DISABLED,
      subject: `Webhook endpoint disabled: ${endpoint.url}`,
      body,
      data: { endpoint_id: endpoint.id, url: endpoint.url, cause, reason, waiting_messages: waiting },
    }));
    return this.deps.notifier.store(trx, inputs);
  }

  private launch(message: WebhookMessageTable, endpoint: WebhookEndpointTable): void {
    this.perEndpoint.set(endpoint.id, (this.perEndpoint.get(endpoint.id) ?? 0) + 1);
    const task: Promise<void> = this.deliver(message, endpoint)
      .then(
        () => undefined,
        (err: unknown) => this.deps.logger.error({ err, message: message.id, endpoint: endpoint.id }, 'webhook attempt could not be recorded; it is sent again when its lease lapses'),
      )
      .finally(() => {
        const n = (this.perEndpoint.get(endpoint.id) ?? 1) - 1;
        if (n <= 0) this.perEndpoint.delete(endpoint.id);
        else this.perEndpoint.set(endpoint.id, n);
        this.tasks.delete(task);
        if (this.started) this.pump();
      });
    this.tasks.add(task);
  }

  /** Claims and launches until nothing more is due or every slot is taken; one pump at a time. */
  private pump(): void {
    if (this.stopped || !this.started) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    if (this.pumpScheduled) return;
    // Deferred like the outcome commits: slots freed in one turn of the event loop are claimed together.
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.runPump();
    });
  }

  private runPump(): void {
    if (this.stopped || this.pumping) return;
    this.pumping = true;
    void (async () => {
      try {
        do {
          this.pumpAgain = false;
          const claimed = await this.dispatchDue();
          if (claimed > 0 && this.tasks.size < this.deps.config.webhookConcurrency) this.pumpAgain = true;
        } while (this.pumpAgain && !this.stopped);
      } catch (err) {
        if (!this.stopped) this.deps.logger.error({ err }, 'webhook dispatch failed');
      } finally {
        this.pumping = false;
      }
    })();
  }
}
