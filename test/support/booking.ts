/** Helpers for the booking-intent suites: requests, keys, users and direct database reads. */
import { sql } from 'kysely';
import type { Database } from '../../src/db/database.ts';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import type { Scope } from '../../src/domain/access/types.ts';
import { TEST_NOW, type TestContext } from './app.ts';
import { OPERATOR } from './keys.ts';

export const INITIATE_URL = '/api/v1/bookings/initiate';
/** The suites' start time (Monday 2026-11-23 09:00 Madrid), a minute, and the default hold TTL, in ms. */
export const T0 = Date.parse(TEST_NOW);
export const MIN = 60_000;
export const TTL_MS = 15 * MIN;
export const PROBLEM = 'application/problem+json; charset=utf-8';
export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface InitiateBodyInput {
  lawyer_id: string;
  date: string;
  start_time: string;
  end_time: string;
  source?: string;
  agent_name?: string;
  [extra: string]: unknown;
}

/** A request body for `lawyerId` on `date` at `start` (HH or HH:MM), `minutes` long. */
export function slotBody(lawyerId: string, date: string, start: string, minutes = 60, extra: Record<string, unknown> = {}): InitiateBodyInput {
  const [h, m = '00'] = start.split(':');
  const startMin = Number(h) * 60 + Number(m);
  const endMin = startMin + minutes;
  const fmt = (t: number) => `${String(Math.floor(t / 60)).padStart(2, '0')}:${String(t % 60).padStart(2, '0')}:00`;
  return { lawyer_id: lawyerId, date, start_time: fmt(startMin), end_time: fmt(endMin), ...extra };
}

export interface InitiateOptions {
  token?: string;
  idempotencyKey?: string;
  remoteAddress?: string;
  headers?: Record<string, string>;
}

/** POST /bookings/initiate through inject; `body` may be an object or a raw string. */
export function initiate(ctx: TestContext, body: unknown, options: InitiateOptions = {}) {
  const headers: Record<string, string> = {};
  if (typeof body === 'string') headers['content-type'] = 'application/json';
  Object.assign(headers, options.headers);
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
  if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
  return ctx.app.fastify.inject({
    method: 'POST',
    url: INITIATE_URL,
    headers,
    payload: body as string | object,
    ...(options.remoteAddress ? { remoteAddress: options.remoteAddress } : {}),
  });
}

/** GET /booking-intents/{id}, with a key or without. */
export function poll(ctx: TestContext, id: string, token?: string) {
  return ctx.app.fastify.inject({
    method: 'GET',
    url: `/api/v1/booking-intents/${id}`,
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
}

export interface AvailabilitySlot {
  date: string;
  start_time: string;
  end_time: string;
  available: boolean;
}

/** The availability of one lawyer on one date (anonymous GET). */
export async function availabilityOn(ctx: TestContext, lawyerId: string, date: string): Promise<AvailabilitySlot[]> {
  const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyerId}/availability?start_date=${date}&end_date=${date}` });
  if (res.statusCode !== 200) throw new Error(`availability ${res.statusCode}: ${res.body}`);
  return (res.json() as { slots: AvailabilitySlot[] }).slots;
}

/** Whether the slot starting at `startTime` on `date` reads available. */
export async function isAvailable(ctx: TestContext, lawyerId: string, date: string, startTime: string): Promise<boolean> {
  const slot = (await availabilityOn(ctx, lawyerId, date)).find((s) => s.start_time === startTime);
  if (!slot) throw new Error(`no slot ${date} ${startTime} in the availability of ${lawyerId}`);
  return slot.available;
}

export interface CreatedTestKey {
  id: string;
  token: string;
}

let keyCounter = 0;

/** A key created by the operator for `ownerEmail` (default: a fresh owner). */
export async function createKey(
  ctx: TestContext,
  options: { mode?: 'live' | 'test'; scopes?: Scope[]; ownerEmail?: string; tier?: 'free' | 'partner' | 'internal' } = {},
): Promise<CreatedTestKey> {
  const ownerEmail = options.ownerEmail ?? `booking-${process.pid}-${++keyCounter}@example.com`;
  const created = await ctx.app.services.keys.create(
    OPERATOR,
    { ownerEmail },
    { mode: options.mode ?? 'live', ...(options.scopes ? { scopes: options.scopes } : {}), ...(options.tier ? { tier: options.tier } : {}) },
  );
  return { id: created.key.id, token: created.token };
}

/** A user of the site (who confirms intents). */
export async function createUser(ctx: TestContext, email: string): Promise<string> {
  return (await new AccountsService({ database: ctx.database, clock: ctx.clock }).ensureUser(email)).id;
}

/** The token of a confirmation_url (its last path segment). */
export function tokenOf(confirmationUrl: string): string {
  return new URL(confirmationUrl).pathname.split('/').pop()!;
}

export type CountedTable = 'booking_intents' | 'slot_holds' | 'outbox_events' | 'consultations' | 'idempotency_keys';

/** How many rows a table holds. */
export async function countRows(database: Database, table: CountedTable): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)}`.execute(database.db);
  return Number(rows[0]!.n);
}

export interface OutboxRow {
  id: string;
  type: string;
  booking_intent_id: string;
  data: string;
  created_at: string;
}

export function outboxOf(database: Database, intentId: string): Promise<OutboxRow[]> {
  return database.db
    .selectFrom('outbox_events')
    .select(['id', 'type', 'booking_intent_id', 'data', 'created_at'])
    .where('booking_intent_id', '=', intentId)
    .orderBy('created_at')
    .execute();
}

export function intentRow(database: Database, id: string) {
  return database.db.selectFrom('booking_intents').selectAll().where('id', '=', id).executeTakeFirst();
}

export function holdsOf(database: Database, lawyerId: string, date: string, startTime: string) {
  return database.db
    .selectFrom('slot_holds')
    .selectAll()
    .where('lawyer_id', '=', lawyerId)
    .where('slot_date', '=', date)
    .where('start_time', '=', startTime)
    .execute();
}

/** `YYYY-MM-DD` of an instant in Madrid, plus `days`. */
export function madridDate(ms: number, days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Madrid', year: 'numeric', month: '2-digit', day: '2-digit' }).format(new Date(ms));
  const d = new Date(`${today}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/** Every day of the week, 09:00–14:00, 60-minute slots (for real-time suites that cannot pick the weekday). */
export const EVERY_DAY_9_TO_14 = [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '14:00:00', slot_minutes: 60 as const }));

/** Polls `check` until it returns a truthy value or the deadline passes (real time, for child processes). */
export async function waitFor<T>(what: string, check: () => Promise<T | false | null | undefined>, timeoutMs: number, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
