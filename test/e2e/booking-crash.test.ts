/**
 * `kill -9` in the middle of a stream of initiates, then a restart on the same database: every
 * answered 201 survives, no slot is doubled, unanswered requests retried with their
 * Idempotency-Key give one intent each, and every intent expires exactly once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { systemClock } from '../../src/clock.ts';
import { KeysService } from '../../src/domain/access/keys.service.ts';
import { EVERY_DAY_9_TO_14, madridDate, slotBody, waitFor, type InitiateBodyInput } from '../support/booking.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';

const LAWYERS = 10;
const DAYS = 6;
const HOURS = ['09', '10', '11', '12', '13'];
const TOTAL = LAWYERS * DAYS * HOURS.length; // 300 distinct slots
const CONCURRENCY = 12;
const KILL_AFTER = 110;

interface Sent {
  body: InitiateBodyInput;
  idempotencyKey: string;
  status?: number;
  id?: string;
  error?: string;
}

interface RetryResult {
  status: number;
  id?: string;
  replayed: boolean;
  attempts: number;
}

function describeOn(target: ReturnType<typeof databaseTargets>[number]) {
  describe(`kill -9 in the middle of a stream of initiates, then restart (${target.name})`, () => {
    let db: TestDatabase;
    let first: ServerProcess | undefined;
    let second: ServerProcess | undefined;
    let token: string;
    let keyId: string;
    const sent: Sent[] = [];
    const retried = new Map<number, RetryResult>();
    const env = (ttlSeconds: number) => ({
      DATABASE_URL: db.url,
      RATE_LIMIT_MULTIPLIER: '1000',
      MAX_PENDING_INTENTS_PER_KEY: '1000',
      BOOKING_INTENT_TTL_SECONDS: String(ttlSeconds),
      SWEEP_INTERVAL_MS: '200',
      // A claim left by the killed process lapses quickly, so retries can take it over.
      IDEMPOTENCY_LEASE_SECONDS: '1',
    });
    const headers = (idempotencyKey?: string) => ({
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
    });
    /** POST /bookings/initiate with the request's body and Idempotency-Key. */
    const post = (url: string, s: { body: unknown; idempotencyKey?: string }) =>
      fetch(`${url}/api/v1/bookings/initiate`, {
        method: 'POST',
        headers: headers(s.idempotencyKey),
        body: JSON.stringify(s.body),
        signal: AbortSignal.timeout(10_000),
      });

    before(async () => {
      db = await target.create();
      const lawyers = await insertLawyers(
        db.database,
        Array.from({ length: LAWYERS }, (_, i) => lawyerRecord({ name: `Crash Lawyer ${i}`, weekly_hours: EVERY_DAY_9_TO_14 })),
        new Date(),
      );
      const created = await new KeysService({ database: db.database, clock: systemClock }).create(OPERATOR, { ownerEmail: 'crash@example.com' }, { mode: 'live' });
      token = created.token;
      keyId = created.key.id;
      const now = Date.now();
      for (let d = 0; d < DAYS; d++) {
        const date = madridDate(now, 2 + d);
        for (const hour of HOURS) {
          for (const lawyer of lawyers) sent.push({ body: slotBody(lawyer, date, hour), idempotencyKey: `crash-${target.name}-${sent.length}` });
        }
      }
      assert.equal(sent.length, TOTAL);
    });
    after(async () => {
      await Promise.all([first?.stop('SIGKILL'), second?.stop('SIGKILL')]);
      await db?.drop();
    });

    it('answers 201 for distinct free slots until the process is killed mid-stream', async () => {
      // Expiry times are fixed at creation: the first process uses a short TTL too.
      first = await startServerProcess(env(3));
      const server = first;
      let next = 0;
      let answered = 0;
      let killed = false;
      const worker = async () => {
        while (next < sent.length) {
          const s = sent[next++]!;
          try {
            const res = await post(server.url, s);
            const text = await res.text();
            s.status = res.status;
            if (res.status === 201) s.id = (JSON.parse(text) as { booking_intent_id: string }).booking_intent_id;
            if (++answered >= KILL_AFTER && !killed) {
              killed = true;
              server.child.kill('SIGKILL');
            }
          } catch (err) {
            s.error = (err as Error).message;
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      assert.equal(await server.stop(), null, 'killed by a signal, not exited');
      assert.equal(server.child.signalCode, 'SIGKILL');

      const ok = sent.filter((s) => s.status === 201);
      const other = sent.filter((s) => s.status !== undefined && s.status !== 201);
      assert.deepEqual(other.map((s) => s.status), [], 'every answered request was a 201');
      assert.ok(ok.length >= KILL_AFTER && ok.length < TOTAL, `answered ${ok.length} of ${TOTAL}`);
      assert.ok(sent.some((s) => s.error !== undefined), 'some requests got no answer');

      // The stored outcome commits with the intent: every answered 201 has a completed record;
      // claims left in progress by the killed process belong to unanswered requests only.
      const records = await db.database.db.selectFrom('idempotency_keys').select(['key', 'state', 'response_status', 'response_body']).execute();
      const byKey = new Map(records.map((r) => [r.key, r]));
      for (const s of ok) {
        const record = byKey.get(s.idempotencyKey);
        assert.equal(record?.state, 'completed', s.idempotencyKey);
        assert.equal(record?.response_status, 201);
        assert.ok(record?.response_body?.includes(s.id!));
      }
      const answeredKeys = new Set(ok.map((s) => s.idempotencyKey));
      assert.deepEqual(records.filter((r) => r.state === 'in_progress' && answeredKeys.has(r.key)), []);
    });

    it('after a restart, every answered 201 is pollable with its key', async () => {
      second = await startServerProcess(env(2));
      const server = second;
      const ok = sent.filter((s) => s.status === 201);
      const polled = await Promise.all(
        ok.map(async (s) => {
          const res = await fetch(`${server.url}/api/v1/booking-intents/${s.id}`, { headers: headers(), signal: AbortSignal.timeout(10_000) });
          return { status: res.status, body: (await res.json()) as { booking_intent_id?: string } };
        }),
      );
      assert.deepEqual(polled.filter((p) => p.status !== 200), []);
      assert.deepEqual(polled.map((p) => p.body.booking_intent_id), ok.map((s) => s.id));
    });

    it('retrying every unanswered request with its Idempotency-Key gives a replay or a fresh 201, one intent per key', async () => {
      const server = second!;
      const deadline = Date.now() + 20_000;
      const unanswered = sent.map((s, i) => [s, i] as const).filter(([s]) => s.status === undefined);
      await Promise.all(
        unanswered.map(async ([s, i]) => {
          for (let attempts = 1; ; attempts++) {
            const res = await post(server.url, s);
            const text = await res.text();
            // A claim of the killed process may still be leased for a moment: honour Retry-After.
            if (res.status === 409 && Date.now() < deadline) {
              await new Promise((r) => setTimeout(r, Number(res.headers.get('retry-after') ?? '1') * 1000));
              continue;
            }
            const id = res.status === 201 ? (JSON.parse(text) as { booking_intent_id: string }).booking_intent_id : undefined;
            retried.set(i, { status: res.status, id, replayed: res.headers.get('idempotent-replayed') === 'true', attempts });
            return;
          }
        }),
      );
      // Answered requests retried after the restart replay their original 201.
      for (const s of sent.filter((x) => x.status === 201).slice(0, 10)) {
        const res = await post(server.url, s);
        assert.equal(res.status, 201);
        assert.equal(res.headers.get('idempotent-replayed'), 'true');
        assert.equal(((await res.json()) as { booking_intent_id: string }).booking_intent_id, s.id);
      }

      const failed = [...retried.values()].filter((r) => r.status !== 201);
      assert.deepEqual(failed, [], 'every retry ends in a 201');

      for (const [i, r] of retried) {
        const s = sent[i]!;
        const intents = await db.database.db
          .selectFrom('booking_intents')
          .select('id')
          .where('lawyer_id', '=', s.body.lawyer_id)
          .where('slot_date', '=', s.body.date)
          .where('start_time', '=', s.body.start_time)
          .execute();
        assert.deepEqual(intents.map((x) => x.id), [r.id], `key ${s.idempotencyKey}`);
      }
      const inProgress = await db.database.db.selectFrom('idempotency_keys').select('key').where('state', '=', 'in_progress').execute();
      assert.deepEqual(inProgress, [], 'no claim is left behind');
    });

    it('holds no slot twice, and holds exactly the intents that were answered', async () => {
      const doubledHolds = await sql<{ n: number }>`
        select count(*) as n from slot_holds group by lawyer_id, slot_date, start_time having count(*) > 1`.execute(db.database.db);
      assert.deepEqual(doubledHolds.rows, []);
      const nowIso = new Date().toISOString();
      const doubledLive = await sql<{ n: number }>`
        select count(*) as n from booking_intents
        where status = 'confirmed' or (status = 'pending' and expires_at > ${nowIso})
        group by lawyer_id, slot_date, start_time having count(*) > 1`.execute(db.database.db);
      assert.deepEqual(doubledLive.rows, []);
      // Each slot was requested under one Idempotency-Key only: never two intents for one slot.
      const doubledAny = await sql<{ n: number }>`
        select count(*) as n from booking_intents group by lawyer_id, slot_date, start_time having count(*) > 1`.execute(db.database.db);
      assert.deepEqual(doubledAny.rows, []);

      const expected = new Set([...sent.filter((s) => s.id).map((s) => s.id!), ...[...retried.values()].map((r) => r.id!)]);
      const rows = await db.database.db.selectFrom('booking_intents').select(['id', 'key_id']).execute();
      assert.deepEqual(new Set(rows.map((r) => r.id)), expected, 'no intent nobody was told about, none lost');
      assert.ok(rows.every((r) => r.key_id === keyId));
    });

    it('expires every intent once its TTL passed, with exactly one booking_intent.expired event each', async () => {
      const total = await db.database.db.selectFrom('booking_intents').select('id').execute();
      await waitFor(
        'every intent to be swept',
        async () => {
          const pending = await db.database.db.selectFrom('booking_intents').select('id').where('status', '!=', 'expired').execute();
          const events = await db.database.db.selectFrom('outbox_events').select('id').execute();
          return pending.length === 0 && events.length >= total.length;
        },
        20_000,
        100,
      );
      const events = await db.database.db.selectFrom('outbox_events').select(['booking_intent_id', 'type']).execute();
      assert.equal(events.length, total.length);
      assert.ok(events.every((e) => e.type === 'booking_intent.expired'));
      assert.deepEqual(new Set(events.map((e) => e.booking_intent_id)), new Set(total.map((r) => r.id)));
      const holds = await db.database.db.selectFrom('slot_holds').select('lawyer_id').execute();
      assert.deepEqual(holds, [], 'every hold released');
    });
  });
}

for (const target of databaseTargets()) describeOn(target);
