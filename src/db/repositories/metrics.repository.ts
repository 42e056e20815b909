/**
 * The cheap reads behind the scrape-time gauges (queue depth, job lag). Each is one aggregate
 * over an index range of unfinished work (booking_intents_due, webhook_messages_due,
 * outbox_events_unpublished, mail_outbox_due): its cost grows with the backlog, never with history.
 */
import type { Executor } from './types.ts';

/** What is waiting, and since when the oldest due item has been due (ISO, null when none). */
export interface BacklogSnapshot {
  /** Pending intents past `expires_at` that the sweep has not made durable yet. */
  expiryOldestDue: string | null;
  /** Pending webhook messages: due now (being sent or waiting for a slot), retries scheduled later, parked (endpoint disabled). */
  webhookDue: number;
  webhookScheduled: number;
  webhookParked: number;
  webhookOldestDue: string | null;
  /** Outbox events not fanned out into webhook messages yet. */
  outboxUnpublished: number;
  outboxOldest: string | null;
  /** Queued mail that is due. */
  mailDue: number;
  mailOldestDue: string | null;
}

const num = (value: unknown): number => Number(value ?? 0);

/** Reads the backlog of every background job at `nowIso`. */
export async function readBacklog(db: Executor, nowIso: string): Promise<BacklogSnapshot> {
  const [expiry, webhooks, outbox, mail] = await Promise.all([
    db
      .selectFrom('booking_intents')
      .select((eb) => eb.fn.min<string | null>('expires_at').as('oldest'))
      .where('status', '=', 'pending')
      .where('expires_at', '<=', nowIso)
      .executeTakeFirst(),
    db
      .selectFrom('webhook_messages')
      .select((eb) => [
        eb.fn.countAll<number | string>().as('total'),
        eb.fn.sum<number | string | null>(eb.case().when('next_attempt_at', 'is', null).then(1).else(0).end()).as('parked'),
        eb.fn.sum<number | string | null>(eb.case().when('next_attempt_at', '<=', nowIso).then(1).else(0).end()).as('due'),
        eb.fn.min<string | null>(eb.case().when('next_attempt_at', '<=', nowIso).then(eb.ref('next_attempt_at')).end()).as('oldest'),
      ])
      .where('status', '=', 'pending')
      .executeTakeFirst(),
    db
      .selectFrom('outbox_events')
      .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.min<string | null>('created_at').as('oldest')])
      .where('published_at', 'is', null)
      .executeTakeFirst(),
    db
      .selectFrom('mail_outbox')
      .select((eb) => [eb.fn.countAll<number | string>().as('total'), eb.fn.min<string | null>('next_attempt_at').as('oldest')])
      .where('status', '=', 'queued')
      .where('next_attempt_at', '<=', nowIso)
      .executeTakeFirst(),
  ]);
  const total = num(webhooks?.total);
  const parked = num(webhooks?.parked);
  const due = num(webhooks?.due);
  return {
    expiryOldestDue: expiry?.oldest ?? null,
    webhookDue: due,
    webhookScheduled: Math.max(0, total - parked - due),
    webhookParked: parked,
    webhookOldestDue: webhooks?.oldest ?? null,
    outboxUnpublished: num(outbox?.total),
    outboxOldest: outbox?.oldest ?? null,
    mailDue: num(mail?.total),
    mailOldestDue: mail?.oldest ?? null,
  };
}
