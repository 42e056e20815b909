/**
 * Dependencies failing under two running `consulta serve` processes (PostgreSQL, Redis, private to
 * this suite; see docs/chaos.md):
 *
 * - Redis stopped mid-load: the documented degradation (docs/access.md: requests are let through
 *   and the failure is logged — fail open), then Redis-backed limiting again, shared by both
 *   processes, once it is back, without restarting them.
 * - PostgreSQL restarted: /readyz goes red, API requests fail fast with 503 problem documents
 *   (never a 500, never a hang), nothing is half-written, and the same processes recover on
 *   their own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EVERY_DAY_9_TO_14, madridDate, slotBody, waitFor, type InitiateBodyInput } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { startDeployment, type Deployment, type Server } from './deployment.ts';
import { chaosSkip } from './support.ts';

const skip = await chaosSkip();
const REQUEST_TIMEOUT_MS = 20_000;

interface Answer {
  status: number;
  type: string;
  body: string;
  headers: Headers;
}

async function call(server: Server, path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${server.process.url}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: await res.text(), headers: res.headers };
}

describe('dependencies failing under two server processes', { skip }, () => {
  let d: Deployment;
  let a: Server;
  let b: Server;
  let lawyers: string[];
  let limitedKey: { id: string; token: string };
  let bookingKey: { id: string; token: string };
  let sessionCookie: string;

  before(async () => {
    d = await startDeployment({
      // The real limits: the Redis scenario exhausts a free key's 60 a minute.
      RATE_LIMIT_MULTIPLIER: '1',
      MAX_PENDING_INTENTS_PER_KEY: '1000',
      IDEMPOTENCY_LEASE_SECONDS: '2',
      SWEEP_INTERVAL_MS: '500',
      KEY_CACHE_TTL_MS: '200',
    });
    lawyers = await insertLawyers(
      d.database,
      Array.from({ length: 6 }, (_, i) => lawyerRecord({ name: `Outage Lawyer ${i}`, weekly_hours: EVERY_DAY_9_TO_14 })),
      new Date(),
    );
    const keys = d.ctx.app.services.keys;
    const free = await keys.create(OPERATOR, { ownerEmail: 'limited@example.com' }, { mode: 'live' });
    limitedKey = { id: free.key.id, token: free.token };
    const internal = await keys.create(OPERATOR, { ownerEmail: 'booker@example.com' }, { mode: 'live', tier: 'internal' });
    bookingKey = { id: internal.key.id, token: internal.token };
    const person = await d.ctx.app.services.accounts.ensureUser('person@example.com');
    sessionCookie = `${siteCookies(d.siteUrl).session}=${(await d.ctx.app.services.sessions.create(person.id, { ip: '127.0.0.1' })).token}`;
    [a, b] = await Promise.all([d.startServer('A'), d.startServer('B')]);
  });
  after(async () => {
    await d?.stop();
  });

  describe('Redis stopped mid-load', () => {
    const keyed = (server: Server) => call(server, '/api/v1/practice-areas', { headers: { authorization: `Bearer ${limitedKey.token}` } });
    /** The key's per-minute counters in Redis: window index → count. */
    const counters = async (): Promise<Map<string, number>> => {
      const client = d.redis.client();
      try {
        const keys = await client.keys(`consulta:rl:key:${limitedKey.id}:minute:*`);
        const values = keys.length > 0 ? await client.mget(...keys) : [];
        return new Map(keys.map((k, i) => [k.split(':').pop()!, Number(values[i] ?? 0)]));
      } finally {
        client.disconnect();
      }
    };
    const total = (m: Map<string, number>) => [...m.values()].reduce((s, n) => s + n, 0);

    it('with Redis up, both processes count in the same Redis counters', async () => {
      for (let i = 0; i < 10; i++) {
        const res = await keyed(i % 2 === 0 ? a : b);
        assert.equal(res.status, 200, res.body);
        assert.ok(res.headers.get('x-ratelimit-limit'), 'rate-limit headers on a counted request');
      }
      assert.equal(total(await counters()), 10, 'ten requests over two processes, one shared count');
    });

    it('with Redis down, requests are let through (fail open) and the failure is logged, never a 429, 5xx or hang', async () => {
      await d.redis.stopServer();
      // More than the key's 60 a minute: a per-process fallback or a shared limiter would refuse some.
      const statuses: number[] = [];
      for (let i = 0; i < 70; i++) statuses.push((await keyed(i % 2 === 0 ? a : b)).status);
      assert.deepEqual([...new Set(statuses)], [200], JSON.stringify(statuses));
      for (const server of [a, b]) {
        assert.ok(
          server.logs.some((l) => l.includes('rate-limit store failed; request let through')),
          `process ${server.name} logged the limiter failure`,
        );
        assert.equal(server.process.child.exitCode, null, `process ${server.name} still runs`);
      }
      // Bookings (which need no Redis) keep working too.
      const res = await call(a, '/api/v1/bookings/initiate', {
        method: 'POST',
        headers: { authorization: `Bearer ${bookingKey.token}`, 'content-type': 'application/json', 'idempotency-key': 'redis-down-1' },
        body: JSON.stringify(slotBody(lawyers[5]!, madridDate(Date.now(), 2), '09')),
      });
      assert.equal(res.status, 201, res.body);
    });

    it('when Redis returns, the same processes count in Redis again and enforce the shared limit', async () => {
      await d.redis.startServer();
      // ioredis reconnects in the background; the first requests may still find it reconnecting.
      await waitFor(
        'both processes to count in Redis again',
        async () => {
          const before = total(await counters());
          assert.equal((await keyed(a)).status, 200);
          assert.equal((await keyed(b)).status, 200);
          return total(await counters()) === before + 2;
        },
        30_000,
        250,
      );
      // Exhaust the minute window over both processes: the shared counter stops at the limit.
      let refused: Answer | undefined;
      for (let i = 0; i < 140 && !refused; i++) {
        const res = await keyed(i % 2 === 0 ? a : b);
        if (res.status === 429) refused = res;
        else assert.equal(res.status, 200, res.body);
      }
      assert.ok(refused, 'a 429 once the shared window is used up');
      assert.match(refused.type, /^application\/problem\+json/);
      assert.equal((JSON.parse(refused.body) as { code: string }).code, 'rate_limited');
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      const current = String(Math.floor(Date.now() / 60_000));
      const windows = await counters();
      // The refusal may straddle a minute boundary: the window it was refused in holds exactly 60.
      assert.ok([...windows.values()].includes(60), `a window counted exactly the limit: ${JSON.stringify([...windows])} (now ${current})`);
    });
  });

  describe('PostgreSQL restarted', () => {
    const hours = ['09', '10', '11', '12', '13'];
    interface Sent {
      body: InitiateBodyInput;
      key: string;
      answers: Array<{ status: number; id?: string; code?: string }>;
      error?: string;
    }
    const sent: Sent[] = [];
    const initiate = (server: Server, s: Sent) =>
      call(server, '/api/v1/bookings/initiate', {
        method: 'POST',
        headers: { authorization: `Bearer ${bookingKey.token}`, 'content-type': 'application/json', 'idempotency-key': s.key },
        body: JSON.stringify(s.body),
      });
    const record = async (server: Server, s: Sent) => {
      try {
        const res = await initiate(server, s);
        const parsed = JSON.parse(res.body) as { booking_intent_id?: string; code?: string };
        s.answers.push({ status: res.status, id: parsed.booking_intent_id, code: parsed.code });
        return res;
      } catch (err) {
        s.error = (err as Error).message;
        return null;
      }
    };

    it('before: ready, and initiates succeed on both processes', async () => {
      for (const server of [a, b]) {
        const ready = await call(server, '/readyz');
        assert.equal(ready.status, 200, ready.body);
      }
    });

    it('while PostgreSQL is down: /readyz is a 503 problem, initiates are 503 problems (bounded), and the processes stay up', async () => {
      // A stream of initiates (distinct slots) on both processes while PostgreSQL stops and starts.
      const slots: Sent[] = [];
      for (let day = 3; day < 13; day++) {
        for (const lawyer of lawyers.slice(0, 5)) for (const hour of hours) slots.push({ body: slotBody(lawyer, madridDate(Date.now(), day), hour), key: `pg-${slots.length}`, answers: [] });
      }
      let stop = false;
      const stream = async (worker: number) => {
        while (!stop && slots.length > 0) {
          const s = slots.shift()!;
          sent.push(s);
          await record(worker % 2 === 0 ? a : b, s);
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      const workers = Promise.all([0, 1, 2, 3].map(stream));
      await new Promise((r) => setTimeout(r, 300));
      await d.pg.stopServer();
      const downAnswers: Answer[] = [];
      try {
        for (const server of [a, b]) {
          const ready = await waitFor(`/readyz of ${server.name} to go red`, async () => {
            const res = await call(server, '/readyz');
            return res.status === 503 ? res : null;
          }, 30_000);
          assert.match(ready.type, /^application\/problem\+json/);
          assert.equal((JSON.parse(ready.body) as { code: string }).code, 'service_unavailable');
          // An initiate while the database is down: a fast, well-formed 503, not a 500.
          const probe: Sent = { body: slotBody(lawyers[5]!, madridDate(Date.now(), 3), server === a ? '10' : '11'), key: `pg-down-${server.name}`, answers: [] };
          sent.push(probe);
          const res = await record(server, probe);
          assert.ok(res, `the request to ${server.name} was answered: ${probe.error}`);
          downAnswers.push(res);
          // Reference data may come from the process's cache; if not, it is a 503 too.
          const reference = await call(server, '/api/v1/practice-areas', { headers: { authorization: `Bearer ${bookingKey.token}` } });
          assert.ok(reference.status === 200 || reference.status === 503, `reference data: ${reference.status} ${reference.body}`);
          // A signed-in page needs the database: the site's error page with 503, not a 500.
          const page = await call(server, '/consultations', { headers: { accept: 'text/html', cookie: sessionCookie } });
          assert.equal(page.status, 503, page.body.slice(0, 300));
          assert.match(page.type, /^text\/html/);
        }
      } catch (err) {
        for (const server of [a, b]) if (server.process.child.exitCode !== null) console.log(server.name, server.logs.slice(-15).join('\n'));
        throw err;
      } finally {
        await d.pg.startServer();
      }
      stop = true;
      await workers;
      assert.ok(slots.length > 0, 'the stream outlasted the outage');
      for (const res of downAnswers) {
        assert.equal(res.status, 503, res.body);
        assert.match(res.type, /^application\/problem\+json/);
        const problem = JSON.parse(res.body) as { code: string; type: string };
        assert.equal(problem.code, 'service_unavailable');
        assert.ok(Number(res.headers.get('retry-after')) >= 1);
      }
      const statuses = sent.flatMap((s) => s.answers.map((x) => x.status));
      assert.deepEqual(statuses.filter((st) => st !== 201 && st !== 503), [], 'only 201 or 503 while PostgreSQL restarted');
      for (const server of [a, b]) assert.equal(server.process.child.exitCode, null, `process ${server.name} still runs`);
    });

    it('after PostgreSQL returns, the same processes are ready again and serve requests, without a restart', async () => {
      for (const server of [a, b]) {
        await waitFor(`/readyz of ${server.name} to go green`, async () => (await call(server, '/readyz')).status === 200, 60_000, 250);
        assert.equal(server.process.child.exitCode, null);
      }
      // Retrying every request that did not get a 201 with its Idempotency-Key gives one intent each.
      const deadline = Date.now() + 60_000;
      for (const [i, s] of sent.entries()) {
        if (s.answers.some((x) => x.status === 201)) continue;
        for (;;) {
          const res = await record(i % 2 === 0 ? a : b, s);
          if (res?.status === 201) break;
          // Only "not answered" or "unavailable, retry" may precede the 201: never a stored 404.
          assert.ok(res === null || res.status === 503 || res.status === 409, `retry of ${s.key}: ${res?.status} ${res?.body}`);
          assert.ok(Date.now() < deadline, `retry of ${s.key} never succeeded: ${JSON.stringify(s.answers)} ${s.error ?? ''}`);
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      // An answered 201 replays on retry, on either process.
      for (const [i, s] of sent.entries()) {
        const first = s.answers.find((x) => x.status === 201)!;
        const res = await initiate(i % 2 === 0 ? b : a, s);
        assert.equal(res.status, 201);
        assert.equal((JSON.parse(res.body) as { booking_intent_id: string }).booking_intent_id, first.id);
      }
    });

    it('nothing is half-written: one intent per request, each with its hold and its completed idempotency record', async () => {
      const intents = await d.database.db.selectFrom('booking_intents').select(['id', 'lawyer_id', 'slot_date', 'start_time', 'status']).where('key_id', '=', bookingKey.id).execute();
      const ids = new Set(sent.map((s) => s.answers.find((x) => x.status === 201)!.id!));
      // The Redis scenario's one intent belongs to the same key.
      assert.equal(intents.length, sent.length + 1);
      for (const id of ids) assert.ok(intents.some((r) => r.id === id), `intent ${id} answered 201 exists`);
      const holds = await d.database.db.selectFrom('slot_holds').select(['booking_intent_id']).execute();
      const held = new Set(holds.map((h) => h.booking_intent_id));
      for (const intent of intents.filter((r) => r.status === 'pending')) assert.ok(held.has(intent.id), `pending intent ${intent.id} holds its slot`);
      const records = await d.database.db.selectFrom('idempotency_keys').select(['key', 'state']).where('key', 'like', 'pg-%').execute();
      assert.equal(records.length, sent.length);
      assert.deepEqual(records.filter((r) => r.state !== 'completed'), []);
      const answers = sent.flatMap((s) => s.answers);
      console.log(
        `outage figures: ${JSON.stringify({
          initiates: sent.length,
          answers: answers.length,
          created: answers.filter((x) => x.status === 201).length,
          unavailable503: answers.filter((x) => x.status === 503).length,
          unanswered: sent.filter((s) => s.error !== undefined).length,
          intents: intents.length - 1,
        })}`,
      );
    });
  });
});
