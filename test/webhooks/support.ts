/**
 * Helpers for the webhook suites: a real receiver on loopback that records every request and
 * answers as the test says, Standard Webhooks verification at a chosen instant, and the
 * services over a test database with a manual clock.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { ManualClock, type Clock } from '../../src/clock.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { SmtpMailer, type Mailer } from '../../src/domain/notify/mailer.ts';
import { Notifier } from '../../src/domain/notify/notifier.ts';
import type { AddressPolicy, HostResolver } from '../../src/domain/webhooks/address-policy.ts';
import { WebhookDispatcher } from '../../src/domain/webhooks/dispatcher.ts';
import { WebhookEndpointsService } from '../../src/domain/webhooks/endpoints.service.ts';
import { memoryLogger } from '../access/support.ts';

export const OPERATOR: Actor = { type: 'operator' };

/** One request the receiver got. */
export interface Received {
  path: string;
  headers: Record<string, string>;
  /** The raw body bytes, as text. */
  body: string;
  at: number;
}

/** What the receiver answers to one request. */
export interface Answer {
  status?: number;
  body?: string;
  headers?: Record<string, string>;
  /** Answer after this many ms (real time). */
  delayMs?: number;
  /** Never answer (the socket is closed when the receiver closes). */
  hang?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  requests: Received[];
  /** Sets how every following request is answered (default 200 "ok"). */
  answer(fn: (req: Received) => Answer): void;
  /** Resolves when at least `n` requests arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** A real HTTP (or HTTPS, given a key and certificate) receiver on 127.0.0.1, random port. */
export async function startReceiver(tls?: { key: string; cert: string }): Promise<Receiver> {
  const requests: Received[] = [];
  const sockets = new Set<Socket>();
  let answer: (req: Received) => Answer = () => ({ status: 200, body: 'ok' });
  const waiters: Array<() => void> = [];
  const handler = (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const received: Received = { path: req.url ?? '', headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      requests.push(received);
      for (const w of waiters.splice(0)) w();
      const a = answer(received);
      if (a.hang) return;
      const send = () => {
        res.writeHead(a.status ?? 200, { 'content-type': 'text/plain', ...a.headers });
        res.end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    requests,
    answer(fn) {
      answer = fn;
    },
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} webhook requests, got ${requests.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * Verifies a received message with the standardwebhooks library as a receiver would, as if the
 * receiver's clock read `atMs` (the library checks the timestamp against Date.now()). Returns
 * the parsed payload; throws WebhookVerificationError when it does not verify.
 */
export function verifyAt(secret: string, req: Received, atMs: number = Date.now()): unknown {
  const realNow = Date.now;
  Date.now = () => atMs;
  try {
    return new Webhook(secret).verify(req.body, req.headers);
  } finally {
    Date.now = realNow;
  }
}

/** Whether `verifyAt` accepts the message. */
export function verifies(secret: string, req: Received, atMs?: number): boolean {
  try {
    verifyAt(secret, req, atMs);
    return true;
  } catch {
    return false;
  }
}

export function webhookConfig(overrides: Partial<Config> = {}): Config {
  return loadConfig(
    { LOG_LEVEL: 'silent', SITE_URL: 'http://consulta.test', WEBHOOK_ALLOW_INSECURE_TARGETS: 'true' },
    { webhookTimeoutMs: 2_000, webhookDispatchIntervalMs: 50, ...overrides },
  );
}

export interface WebhookKit {
  clock: Clock;
  config: Config;
  logger: ReturnType<typeof memoryLogger>;
  mailer: Mailer;
  notifier: Notifier;
  accounts: AccountsService;
  dispatcher: WebhookDispatcher;
  service: WebhookEndpointsService;
  /** A further dispatcher over another database handle (multi-process simulation). */
  dispatcherOver(database: Database): WebhookDispatcher;
  close(): Promise<void>;
}

/** Services over `database`: a manual clock unless `clock` is given, insecure targets allowed unless configured otherwise. */
export function webhookKit(
  database: Database,
  options: { clock?: Clock; config?: Partial<Config>; smtpUrl?: string; resolver?: HostResolver; policy?: AddressPolicy; tls?: { ca: string } } = {},
): WebhookKit {
  const clock = options.clock ?? new ManualClock('2026-11-23T08:00:00.000Z');
  const config = webhookConfig(options.config);
  const logger = memoryLogger();
  const mailer: Mailer = options.smtpUrl ? new SmtpMailer(options.smtpUrl, 'Consulta <no-reply@consulta.test>') : { send: async () => {}, close: async () => {} };
  const notifier = new Notifier({ database, mailer, clock, logger });
  const accounts = new AccountsService({ database, clock, notifier });
  const dispatcherOver = (db: Database) =>
    new WebhookDispatcher({ database: db, clock, config, notifier, logger, resolver: options.resolver, policy: options.policy, tls: options.tls });
  const dispatcher = dispatcherOver(database);
  const service = new WebhookEndpointsService({ database, clock, config, accounts, resolver: options.resolver, dispatcher });
  return {
    clock,
    config,
    logger,
    mailer,
    notifier,
    accounts,
    dispatcher,
    service,
    dispatcherOver,
    async close() {
      await dispatcher.stop();
      await mailer.close();
    },
  };
}

/** Writes an outbox event for an owner, as the booking service does for a live key's intent. */
export async function emitEvent(
  database: Database,
  owner: { type: 'user' | 'firm'; id: string },
  options: { type?: string; createdAt: string; intentId?: string; status?: string; extra?: Record<string, unknown> },
): Promise<{ eventId: string; intentId: string }> {
  const intentId = options.intentId ?? randomUUID();
  const eventId = `evt_${randomUUID().replaceAll('-', '')}`;
  const type = options.type ?? 'booking_intent.confirmed';
  const status = options.status ?? (type === 'booking_intent.expired' ? 'expired' : 'confirmed');
  await database.db
    .insertInto('outbox_events')
    .values({
      id: eventId,
      type,
      booking_intent_id: intentId,
      key_id: randomUUID(),
      owner_type: owner.type,
      owner_id: owner.id,
      data: JSON.stringify({
        booking_intent_id: intentId,
        status,
        lawyer_id: 'b0f5c6de-0000-4000-8000-000000000001',
        slot: { date: '2026-12-01', start_time: '10:00:00', end_time: '11:00:00' },
        ...(status === 'confirmed' ? { confirmed_at: options.createdAt } : {}),
        ...options.extra,
      }),
      created_at: options.createdAt,
      published_at: null,
    })
    .execute();
  return { eventId, intentId };
}

let counter = 0;
/** An email no other test in this process uses. */
export function uniqueEmail(base = 'dev'): string {
  return `${base}-${process.pid}-${++counter}@example.com`;
}

/** Messages of an endpoint, as stored. */
export function messagesOf(database: Database, endpointId: string) {
  return database.db.selectFrom('webhook_messages').selectAll().where('endpoint_id', '=', endpointId).orderBy('created_at').orderBy('id').execute();
}

/** The endpoint row, as stored. */
export function endpointRow(database: Database, endpointId: string) {
  return database.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', endpointId).executeTakeFirstOrThrow();
}
