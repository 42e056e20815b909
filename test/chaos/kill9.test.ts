/**
 * `kill -9` of one of two `consulta serve` processes (private PostgreSQL + Redis; see
 * docs/chaos.md) in the middle of mixed load: REST initiates with Idempotency-Keys, confirm and
 * pay on the site with the demo card, MCP tool calls with the official SDK client, webhook
 * deliveries to a real receiver. The killed process is restarted with the same environment, the
 * load finishes, the jobs drain (expiry sweep, payment sweep, webhook delivery), and then:
 *
 * - no 201 lost: every intent a client was told about exists; a retry after a connection reset
 *   with the same Idempotency-Key gets the same intent;
 * - no slot double-booked;
 * - every confirmed/expired intent of a live key has exactly one event, delivered to each
 *   endpoint, signed, under one webhook-id per (event, endpoint) reused on redelivery;
 * - no payment captured without a confirmed booking, and no booking paid twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import net from 'node:net';
import { sql } from 'kysely';
import { Agent, fetch as undiciFetch } from 'undici';
import { systemClock } from '../../src/clock.ts';
import { EVERY_DAY_9_TO_14, madridDate, slotBody, waitFor, type InitiateBodyInput } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { connectedAgent } from '../mcp/support.ts';
import { startReceiver, verifies, webhookKit, type Receiver } from '../webhooks/support.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { startDeployment, type Deployment, type Server } from './deployment.ts';
import { chaosSkip } from './support.ts';

const skip = await chaosSkip();

const TTL_SECONDS = 100; // a payment needs 90 s left on the hold (MIN_SECONDS_TO_PAY)
const REST_LAWYERS = 8;
const DAYS = 5;
const HOURS = ['09', '10', '11', '12', '13'];
const REST_WORKERS = 6;
/** Kill a process (the older one) once this many intents were created: twice, so each original process dies once. */
const KILL_AFTER_CREATED = [40, 100];
const REQUEST_TIMEOUT_MS = 20_000;
const GOOD_CARD = '4242 4242 4242 4242';
const DECLINED_CARD = '4000 0000 0000 0002';

interface Sent {
  body: InitiateBodyInput;
  key: string;
  /** Every definitive answer (status, intent id); connection failures are counted apart. */
  answers: Array<{ status: number; id: string | null; server: string }>;
  resets: number;
  token?: string;
  pay: 'no' | 'good' | 'declined-then-good';
  payOutcomes: string[];
}

/** What every client saw, for the checks and the figures in docs/chaos.md. */
const figures = {
  requests: 0,
  connectionErrors: 0,
  initiateResets: 0,
  payResets: 0,
  created: 0,
  payPosts: 0,
  mcpCalls: 0,
  mcpErrors: 0,
  mcpHolds: 0,
  kills: 0,
  /** The longest an initiate (with its retries) and a payment (page + post, with retries) took, in ms. */
  slowestInitiateMs: 0,
  slowestPayMs: 0,
  /** From each SIGKILL to its replacement listening, in ms. */
  restartMs: [] as number[],
  loadMs: 0,
  webhookRequests: 0,
  webhookRedeliveries: 0,
  eventsDelivered: 0,
};

describe('kill -9 of one of two processes under mixed load, then restart', { skip }, () => {
  let d: Deployment;
  let receiver: Receiver;
  let keyToken: string;
  let keyId: string;
  const secrets = new Map<string, string>(); // receiver path → endpoint secret
  let sessionCookie: string;
  let agentToken: string;
  let mcpLawyers: string[];
  const sent: Sent[] = [];
  const mcpHoldIds: string[] = [];
  let alive: Server[] = [];
  const failedFirstAttempt = new Set<string>();

  before(async () => {
    d = await startDeployment({
      RATE_LIMIT_MULTIPLIER: '1000',
      MAX_PENDING_INTENTS_PER_KEY: '1000',
      BOOKING_INTENT_TTL_SECONDS: String(TTL_SECONDS),
      SWEEP_INTERVAL_MS: '250',
      // A claim left by the killed process lapses quickly, so a retry elsewhere can take it over.
      IDEMPOTENCY_LEASE_SECONDS: '2',
      WEBHOOK_DISPATCH_INTERVAL_MS: '100',
      WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,2,2,3,5',
      WEBHOOK_TIMEOUT_MS: '2000',
      // A delivery claimed by the killed process is redelivered once its lease lapses.
      WEBHOOK_LEASE_SECONDS: '4',
    });
    const now = new Date();
    const restLawyers = await insertLawyers(
      d.database,
      Array.from({ length: REST_LAWYERS }, (_, i) => lawyerRecord({ name: `Chaos Lawyer ${i}`, weekly_hours: EVERY_DAY_9_TO_14 })),
      now,
    );
    mcpLawyers = await insertLawyers(d.database, [0, 1].map((i) => lawyerRecord({ name: `Agent Lawyer ${i}`, weekly_hours: EVERY_DAY_9_TO_14 })), now);

    const services = d.ctx.app.services;
    const created = await services.keys.create(OPERATOR, { ownerEmail: 'integrator@example.com' }, { mode: 'live', tier: 'internal' });
    keyToken = created.token;
    keyId = created.key.id;

    receiver = await startReceiver();
    // The first attempt of every fifth message fails: its retry must carry the same webhook-id.
    let seen = 0;
    receiver.answer((req) => {
      const id = req.headers['webhook-id'] ?? '';
      if (!failedFirstAttempt.has(id) && ++seen % 5 === 0) {
        failedFirstAttempt.add(id);
        return { status: 500, body: 'try again' };
      }
      // A slow receiver keeps deliveries in flight when a process is killed.
      return { status: 200, body: 'ok', delayMs: 50 };
    });
    const kit = webhookKit(d.database, { clock: systemClock });
    for (const path of ['/one', '/two']) {
      const endpoint = await kit.service.create(OPERATOR, { ownerEmail: 'integrator@example.com' }, { url: `${receiver.url}${path}` });
      secrets.set(path, endpoint.secret);
    }
    await kit.close();

    const person = await services.accounts.ensureUser('payer@example.com');
    const session = await services.sessions.create(person.id, { ip: '127.0.0.1' });
    sessionCookie = `${siteCookies(d.siteUrl).session}=${session.token}`;
    agentToken = (await connectedAgent(d.ctx, 'agent-user@example.com', 'directory:read slots:hold', 'Chaos Agent')).accessToken;

    for (let day = 2; day < 2 + DAYS; day++) {
      for (const hour of HOURS) {
        for (const lawyer of restLawyers) {
          const i = sent.length;
          sent.push({
            body: slotBody(lawyer, madridDate(Date.now(), day), hour),
            key: `chaos-${i}`,
            answers: [],
            resets: 0,
            pay: i % 3 === 2 ? 'no' : i % 7 === 0 ? 'declined-then-good' : 'good',
            payOutcomes: [],
          });
        }
      }
    }
    alive = await Promise.all([d.startServer('A'), d.startServer('B')]);
  });

  after(async () => {
    await receiver?.close();
    await d?.stop();
  });

  /** One of the processes still running, round robin. */
  let turn = 0;
  const pick = (): Server => alive[turn++ % alive.length]!;

  async function initiate(s: Sent): Promise<void> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const server = pick();
      figures.requests++;
      try {
        const res = await fetch(`${server.process.url}/api/v1/bookings/initiate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${keyToken}`, 'content-type': 'application/json', 'idempotency-key': s.key },
          body: JSON.stringify(s.body),
          signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
        });
        const body = (await res.json()) as { booking_intent_id?: string; confirmation_url?: string };
        s.answers.push({ status: res.status, id: body.booking_intent_id ?? null, server: server.name });
        if (res.status === 201) {
          s.token ??= body.confirmation_url!.split('/').pop()!;
          return;
        }
        // The killed process's claim is still leased, or a 503 during the restart: retry as told.
        if ((res.status === 409 || res.status === 503) && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 1000 * Number(res.headers.get('retry-after') ?? '1')));
          continue;
        }
        return;
      } catch {
        // Connection reset or refused (the process was killed): retry with the same key.
        figures.connectionErrors++;
        figures.initiateResets++;
        s.resets++;
        if (Date.now() > deadline) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
  }

  /** GET the pay page for its CSRF token, then POST the card, as a browser does; returns the outcome. */
  async function payOnce(s: Sent, card: string): Promise<string> {
    const server = pick();
    const jar = new Map<string, string>();
    const cookie = () => [sessionCookie, ...[...jar].map(([k, v]) => `${k}=${v}`)].join('; ');
    const keep = (res: Response) => {
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
    };
    const page = await fetch(`${server.process.url}/confirm/${s.token}/pay`, { headers: { cookie: cookie(), accept: 'text/html' }, redirect: 'manual', signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    keep(page);
    const html = await page.text();
    if (page.status === 303) return `page-303:${page.headers.get('location')?.split('?')[1] ?? ''}`;
    if (page.status !== 200) return `page-${page.status}`;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
    assert.ok(csrf, 'the pay page carries a CSRF token');
    figures.payPosts++;
    const res = await fetch(`${server.process.url}/confirm/${s.token}/pay`, {
      method: 'POST',
      headers: {
        cookie: cookie(),
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(d.siteUrl).origin,
        'sec-fetch-site': 'same-origin',
        accept: 'text/html',
      },
      body: new URLSearchParams({ _csrf: csrf, number: card, expiry: '12/30', cvc: '123', name: 'Chaos Payer' }).toString(),
      redirect: 'manual',
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    await res.arrayBuffer();
    if (res.status === 303) return `303:${res.headers.get('location')?.split('?')[1] ?? ''}`;
    return String(res.status);
  }

  async function pay(s: Sent): Promise<void> {
    const cards = s.pay === 'declined-then-good' ? [DECLINED_CARD, GOOD_CARD] : [GOOD_CARD];
    for (const card of cards) {
      for (let attempt = 0; attempt < 5; attempt++) {
        try {
          s.payOutcomes.push(await payOnce(s, card));
          break;
        } catch {
          figures.connectionErrors++;
          figures.payResets++;
          s.payOutcomes.push('reset');
          await new Promise((r) => setTimeout(r, 300));
        }
      }
    }
  }

  async function mcpClient(): Promise<Client> {
    const server = pick();
    // As behind the balancer: the request names MCP_URL's host (the endpoint refuses any other
    // host or port: DNS rebinding), and reaches this process's own port.
    const port = Number(new URL(server.process.url).port);
    const dispatcher = new Agent({
      connect: (_options, callback) => {
        const socket = net.connect(port, '127.0.0.1');
        socket.once('connect', () => callback(null, socket));
        socket.once('error', (err) => callback(err, null));
      },
    });
    const transport = new StreamableHTTPClientTransport(new URL(d.siteUrl + '/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${agentToken}` } },
      fetch: ((url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch,
    });
    const client = new Client({ name: 'chaos-agent', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    return client;
  }

  it('answers the mixed load across a kill -9 and a restart', async () => {
    let next = 0;
    let loadDone = false;
    const kills: Array<Promise<void>> = [];
    let restarting = false;
    const maybeKill = () => {
      // One process down at a time: the next kill waits until the replacement of the last one runs.
      if (restarting || kills.length >= KILL_AFTER_CREATED.length || figures.created < KILL_AFTER_CREATED[kills.length]!) return;
      restarting = true;
      kills.push((async () => {
        const victim = alive[0]!;
        alive = alive.filter((s) => s !== victim);
        const killedAt = Date.now();
        victim.process.child.kill('SIGKILL');
        figures.kills++;
        assert.equal(await victim.process.stop(), null, 'killed by a signal');
        assert.equal(victim.process.child.signalCode, 'SIGKILL');
        // Same environment, a fresh process (PORT=0: a new port, as a replacement behind the balancer).
        const replacement = await d.startServer(`${victim.name}'`);
        alive = [...alive, replacement];
        figures.restartMs.push(Date.now() - killedAt);
        restarting = false;
      })());
    };
    const restWorker = async () => {
      while (next < sent.length) {
        const s = sent[next++]!;
        const started = Date.now();
        await initiate(s);
        figures.slowestInitiateMs = Math.max(figures.slowestInitiateMs, Date.now() - started);
        if (s.answers.at(-1)?.status === 201) {
          figures.created++;
          maybeKill();
          const paying = Date.now();
          if (s.pay !== 'no') await pay(s);
          figures.slowestPayMs = Math.max(figures.slowestPayMs, Date.now() - paying);
        }
      }
    };
    let mcpHoldDay = 2;
    let mcpHour = 0;
    const mcpWorker = async () => {
      let client: Client | null = null;
      let i = 0;
      while (!loadDone) {
        try {
          client ??= await mcpClient();
          figures.mcpCalls++;
          const step = i++ % 4;
          if (step === 0) await client.callTool({ name: 'search_lawyers', arguments: { city: 'madrid' } });
          else if (step === 1) await client.callTool({ name: 'get_lawyer_availability', arguments: { lawyer_id: mcpLawyers[0]! } });
          else if (step === 2) await client.callTool({ name: 'list_my_booking_intents', arguments: {} });
          else {
            const hour = HOURS[mcpHour++ % HOURS.length]!;
            if (mcpHour % HOURS.length === 0) mcpHoldDay++;
            const slot = slotBody(mcpLawyers[mcpHour % 2]!, madridDate(Date.now(), mcpHoldDay), hour);
            const result = (await client.callTool({ name: 'hold_consultation_slot', arguments: slot })) as { isError?: boolean; structuredContent?: { booking_intent_id?: string } };
            if (!result.isError && result.structuredContent?.booking_intent_id) {
              figures.mcpHolds++;
              mcpHoldIds.push(result.structuredContent.booking_intent_id);
            }
          }
        } catch {
          // The process behind this session was killed: connect to another one.
          figures.mcpErrors++;
          await client?.close().catch(() => {});
          client = null;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      await client?.close().catch(() => {});
    };
    const loadStarted = Date.now();
    const mcp = mcpWorker();
    await Promise.all(Array.from({ length: REST_WORKERS }, restWorker));
    await Promise.all(kills);
    loadDone = true;
    await mcp;
    figures.loadMs = Date.now() - loadStarted;

    assert.equal(figures.kills, 2, 'each original process was killed once mid-load');
    assert.ok(figures.created > KILL_AFTER_CREATED.at(-1)!, `intents were created after the last kill too (${figures.created})`);
    const unanswered = sent.filter((s) => !s.answers.some((a) => a.status === 201));
    assert.deepEqual(unanswered.map((s) => [s.key, s.answers, s.resets]), [], 'every initiate ended in a 201, retried with its key when needed');
    assert.ok(figures.mcpCalls > 20, `MCP calls answered: ${figures.mcpCalls}`);
  });

  it('lost no 201: every intent a client was told about exists, and a key always meant one intent', async () => {
    const rows = await d.database.db.selectFrom('booking_intents').select(['id', 'key_id', 'lawyer_id', 'slot_date', 'start_time']).execute();
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const s of sent) {
      const ids = new Set(s.answers.filter((a) => a.status === 201).map((a) => a.id));
      assert.equal(ids.size, 1, `${s.key}: every 201 named the same intent: ${JSON.stringify(s.answers)}`);
      const row = byId.get([...ids][0]!);
      assert.ok(row, `${s.key}: its intent exists`);
      assert.deepEqual([row.lawyer_id, row.slot_date, row.start_time], [s.body.lawyer_id, s.body.date, s.body.start_time]);
    }
    for (const id of mcpHoldIds) assert.ok(byId.has(id), `MCP hold ${id} exists`);
    // No intent nobody was told about for the key (each key was one slot).
    assert.equal(rows.filter((r) => r.key_id === keyId).length, sent.length);
    // A retry after the fact, on a survivor, replays the same answer.
    for (const s of sent.filter((x) => x.resets > 0).concat(sent.slice(0, 5))) {
      const res = await fetch(`${alive[0]!.process.url}/api/v1/bookings/initiate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${keyToken}`, 'content-type': 'application/json', 'idempotency-key': s.key },
        body: JSON.stringify(s.body),
      });
      assert.equal(res.status, 201);
      assert.equal(res.headers.get('idempotent-replayed'), 'true');
      assert.equal(((await res.json()) as { booking_intent_id: string }).booking_intent_id, s.answers.find((a) => a.status === 201)!.id);
    }
  });

  it('drains: every intent ends confirmed or expired, every payment attempt settles, every event is delivered', async () => {
    // The load is over: no client will pay again. A hold that nobody is paying for (never paid, or
    // only declined) would lapse TTL_SECONDS after it was made, up to 100 s of real time from now,
    // the hold being that long only so a payment may start (90 s left). Its expiry is brought to
    // now instead: the running processes' sweep still expires it, releases its slot and records
    // and delivers its one `booking_intent.expired` event, as checked below. Holds with a payment
    // under way or done keep their time, so the payment sweep settles those as before.
    await sql`
      update booking_intents set expires_at = ${new Date().toISOString()}
      where status = 'pending' and not exists (
        select 1 from payment_attempts a
        where a.booking_intent_id = booking_intents.id and a.status in ('open', 'authorized', 'captured'))`.execute(d.database.db);
    await waitFor(
      'every intent to be confirmed or expired, and every payment attempt settled',
      async () => {
        const open = await d.database.db.selectFrom('booking_intents').select('id').where('status', 'not in', ['confirmed', 'expired']).execute();
        const attempts = await d.database.db.selectFrom('payment_attempts').select('id').where('status', 'in', ['open', 'authorized']).execute();
        return open.length === 0 && attempts.length === 0;
      },
      (TTL_SECONDS + 90) * 1000,
      1000,
    );
    await waitFor(
      'every webhook message to be delivered',
      async () => {
        const events = await d.database.db.selectFrom('outbox_events').select('id').where('published_at', 'is', null).execute();
        const messages = await d.database.db.selectFrom('webhook_messages').select('id').where('status', '!=', 'delivered').execute();
        return events.length === 0 && messages.length === 0;
      },
      60_000,
      500,
    );
  });

  it('double-booked no slot', async () => {
    const live = await sql<{ n: number }>`
      select count(*) as n from booking_intents where status = 'confirmed'
      group by lawyer_id, slot_date, start_time having count(*) > 1`.execute(d.database.db);
    assert.deepEqual(live.rows, []);
    const consultations = await sql<{ n: number }>`
      select count(*) as n from consultations group by lawyer_id, slot_date, start_time having count(*) > 1`.execute(d.database.db);
    assert.deepEqual(consultations.rows, []);
    const holds = await sql<{ n: number }>`
      select count(*) as n from slot_holds group by lawyer_id, slot_date, start_time having count(*) > 1`.execute(d.database.db);
    assert.deepEqual(holds.rows, []);
  });

  it('recorded exactly one event per confirmed/expired intent of the key, and delivered each once per endpoint under one webhook-id', async () => {
    const intents = await d.database.db.selectFrom('booking_intents').select(['id', 'status']).where('key_id', '=', keyId).execute();
    const events = await d.database.db.selectFrom('outbox_events').select(['id', 'type', 'booking_intent_id']).where('key_id', '=', keyId).execute();
    const eventsOf = new Map<string, string[]>();
    for (const e of events) eventsOf.set(e.booking_intent_id, [...(eventsOf.get(e.booking_intent_id) ?? []), e.type]);
    for (const intent of intents) assert.deepEqual(eventsOf.get(intent.id), [`booking_intent.${intent.status}`], `events of ${intent.id}`);
    assert.equal(events.length, intents.length);

    // At the receiver: every request verifies; per endpoint, one webhook-id per event.
    figures.webhookRequests = receiver.requests.length;
    const idsByEndpointEvent = new Map<string, Set<string>>();
    const bodyById = new Map<string, string>();
    const deliveries = new Map<string, number>();
    for (const req of receiver.requests) {
      const secret = secrets.get(req.path)!;
      assert.ok(verifies(secret, req), `signature of ${req.headers['webhook-id']} on ${req.path}`);
      const id = req.headers['webhook-id']!;
      const payload = JSON.parse(req.body) as { id: string; type: string; data: { booking_intent_id: string } };
      const k = `${req.path} ${payload.id}`;
      idsByEndpointEvent.set(k, (idsByEndpointEvent.get(k) ?? new Set()).add(id));
      // A redelivery repeats the same bytes under the same id.
      if (bodyById.has(id)) assert.equal(bodyById.get(id), req.body, `redelivery of ${id} is the same message`);
      bodyById.set(id, req.body);
      deliveries.set(id, (deliveries.get(id) ?? 0) + 1);
    }
    for (const [k, ids] of idsByEndpointEvent) assert.equal(ids.size, 1, `${k}: one webhook-id`);
    for (const path of secrets.keys()) {
      for (const e of events) assert.ok(idsByEndpointEvent.has(`${path} ${e.id}`), `${e.type} ${e.id} reached ${path}`);
    }
    assert.equal(idsByEndpointEvent.size, events.length * secrets.size, 'no event delivered that was not recorded');
    figures.eventsDelivered = idsByEndpointEvent.size;
    figures.webhookRedeliveries = [...deliveries.values()].reduce((s, n) => s + n - 1, 0);
    // Deliberately failed first attempts were retried under their id.
    for (const id of failedFirstAttempt) assert.ok((deliveries.get(id) ?? 0) >= 2, `${id} was redelivered`);
  });

  it('captured no payment without a confirmed booking, and none twice', async () => {
    const attempts = await d.database.db.selectFrom('payment_attempts').select(['booking_intent_id', 'status', 'user_id']).execute();
    const intents = new Map((await d.database.db.selectFrom('booking_intents').select(['id', 'status', 'confirmed_by_user_id']).execute()).map((r) => [r.id, r]));
    const consultations = new Map((await d.database.db.selectFrom('consultations').select(['booking_intent_id', 'user_id']).execute()).map((r) => [r.booking_intent_id, r]));
    const captured = attempts.filter((a) => a.status === 'captured');
    for (const a of captured) {
      assert.equal(intents.get(a.booking_intent_id)?.status, 'confirmed', `captured payment of ${a.booking_intent_id}`);
      assert.equal(consultations.get(a.booking_intent_id)?.user_id, a.user_id);
    }
    assert.equal(new Set(captured.map((a) => a.booking_intent_id)).size, captured.length, 'at most one capture per intent');
    // And every confirmed booking was paid: confirmation and capture settle together (or by the sweep).
    const confirmed = [...intents.values()].filter((i) => i.status === 'confirmed');
    assert.deepEqual(confirmed.filter((i) => !captured.some((a) => a.booking_intent_id === i.id)).map((i) => i.id), []);
    assert.ok(confirmed.length > 0, 'some bookings were confirmed');
    // The figures docs/chaos.md quotes.
    console.log(
      `chaos figures: ${JSON.stringify({
        ...figures,
        initiates: sent.length,
        confirmed: confirmed.length,
        captured: captured.length,
        declinedAttempts: attempts.filter((a) => a.status === 'failed').length,
        expired: [...intents.values()].filter((i) => i.status === 'expired').length,
        doubleBookings: 0,
      })}`,
    );
  });
});
