/**
 * Many simultaneous requests in one process, on every database: one slot has exactly one winner,
 * one Idempotency-Key creates exactly one intent, and the per-key pending cap holds under load.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { SLOT_UNAVAILABLE_BODY } from '../../src/domain/booking/booking.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { countRows, createKey, holdsOf, initiate, slotBody, waitFor, type CreatedTestKey } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const HALF_HOURS_9_TO_19 = [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '19:00:00', slot_minutes: 30 as const }));

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const s of statuses) out[s] = (out[s] ?? 0) + 1;
  return out;
}

for (const target of databaseTargets()) {
  describe(`concurrent initiates (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;

    before(async () => {
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 100_000 } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: HALF_HOURS_9_TO_19 })])) as [string];
    });
    after(() => ctx.close());

    it('200 anonymous callers from 200 addresses race for one slot: exactly one 201, 199 generic 404s', async () => {
      const body = slotBody(lawyer, '2026-11-24', '10', 30);
      const responses = await Promise.all(
        Array.from({ length: 200 }, (_, i) => initiate(ctx, body, { remoteAddress: `10.20.${i >> 8}.${i & 255}` })),
      );
      assert.deepEqual(tally(responses.map((r) => r.statusCode)), { 201: 1, 404: 199 });
      for (const r of responses.filter((x) => x.statusCode === 404)) assert.equal(r.body, SLOT_UNAVAILABLE_BODY);
      const winner = responses.find((r) => r.statusCode === 201)!.json();
      const holds = await holdsOf(ctx.database, lawyer, '2026-11-24', '10:00:00');
      assert.equal(holds.length, 1);
      assert.equal(holds[0]!.booking_intent_id, winner.booking_intent_id);
      const intents = await ctx.database.db.selectFrom('booking_intents').select('id').where('slot_date', '=', '2026-11-24').where('start_time', '=', '10:00:00').execute();
      assert.deepEqual(intents.map((r) => r.id), [winner.booking_intent_id]);
    });

    it('200 distinct API keys race for one slot: exactly one 201', async () => {
      const keys: CreatedTestKey[] = [];
      for (let i = 0; i < 200; i++) keys.push(await createKey(ctx, { ownerEmail: `racer-${i}@example.com` }));
      const body = slotBody(lawyer, '2026-11-24', '11', 30);
      const responses = await Promise.all(keys.map((k) => initiate(ctx, body, { token: k.token })));
      assert.deepEqual(tally(responses.map((r) => r.statusCode)), { 201: 1, 404: 199 });
      assert.equal((await holdsOf(ctx.database, lawyer, '2026-11-24', '11:00:00')).length, 1);
      const intents = await ctx.database.db.selectFrom('booking_intents').select('key_id').where('slot_date', '=', '2026-11-24').where('start_time', '=', '11:00:00').execute();
      assert.equal(intents.length, 1);
      const winner = responses.findIndex((r) => r.statusCode === 201);
      assert.equal(intents[0]!.key_id, keys[winner]!.id);
    });

    it('50 simultaneous requests with one Idempotency-Key and body create one intent; each is a 201 for it or a 409', async () => {
      const key = await createKey(ctx);
      const body = slotBody(lawyer, '2026-11-24', '12', 30);
      const before = await countRows(ctx.database, 'booking_intents');
      const responses = await Promise.all(Array.from({ length: 50 }, () => initiate(ctx, body, { token: key.token, idempotencyKey: 'one-for-all' })));
      const counts = tally(responses.map((r) => r.statusCode));
      assert.deepEqual(Object.keys(counts).filter((s) => s !== '201' && s !== '409'), [], JSON.stringify(counts));
      const created = responses.filter((r) => r.statusCode === 201);
      assert.ok(created.length >= 1);
      assert.equal(created.filter((r) => r.headers['idempotent-replayed'] === undefined).length, 1, 'exactly one original');
      assert.equal(new Set(created.map((r) => r.json().booking_intent_id)).size, 1);
      for (const r of created) assert.equal(r.body, created[0]!.body);
      for (const r of responses.filter((x) => x.statusCode === 409)) {
        assert.equal(r.json().code, 'idempotency_key_in_use');
        assert.ok(Number(r.headers['retry-after']) >= 1);
      }
      assert.equal(await countRows(ctx.database, 'booking_intents'), before + 1);
      const after = await initiate(ctx, body, { token: key.token, idempotencyKey: 'one-for-all' });
      assert.equal(after.statusCode, 201);
      assert.equal(after.headers['idempotent-replayed'], 'true');
      assert.equal(after.body, created[0]!.body);
    });

    it('one key firing 80 simultaneous requests for 80 free slots gets exactly its 50 pending intents', async () => {
      const key = await createKey(ctx);
      const bodies = ['2026-11-25', '2026-11-26', '2026-11-27', '2026-11-30'].flatMap((date) =>
        Array.from({ length: 20 }, (_, i) => slotBody(lawyer, date, `${9 + Math.floor(i / 2)}:${i % 2 ? '30' : '00'}`, 30)),
      );
      assert.equal(bodies.length, 80);
      const responses = await Promise.all(bodies.map((b) => initiate(ctx, b, { token: key.token })));
      assert.deepEqual(tally(responses.map((r) => r.statusCode)), { 201: 50, 429: 30 });
      const pending = await ctx.database.db.selectFrom('booking_intents').select('id').where('key_id', '=', key.id).where('status', '=', 'pending').execute();
      assert.equal(pending.length, 50);
    });

    if (target.name === 'postgres') {
      it('a request that outlives its Idempotency-Key lease cannot leave two different outcomes for one key', async () => {
        const key = await createKey(ctx);
        const body = slotBody(lawyer, '2026-11-24', '13', 30);
        const lockWaiters = async () => {
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(ctx.database.db);
          return rows[0]!.n;
        };
        // Hold the key's row lock so that the first request stalls inside its transaction…
        let release!: () => void;
        const released = new Promise<void>((r) => (release = r));
        let locked!: () => void;
        const isLocked = new Promise<void>((r) => (locked = r));
        const blocker = ctx.database.db.transaction().execute(async (trx) => {
          await trx.updateTable('api_keys').set((eb) => ({ id: eb.ref('id') })).where('id', '=', key.id).execute();
          locked();
          await released;
        });
        try {
          await isLocked;
          const first = initiate(ctx, body, { token: key.token, idempotencyKey: 'slow' });
          await waitFor('the first request to wait for the key lock', async () => (await lockWaiters()) >= 1, 5000, 20);
          // …for longer than the lease: a retry now takes the claim over, as if the first had crashed.
          ctx.clock.advance((ctx.config.idempotencyLeaseSeconds + 1) * 1000);
          let secondDone = false;
          const second = initiate(ctx, body, { token: key.token, idempotencyKey: 'slow' }).finally(() => (secondDone = true));
          await waitFor('the retry to finish or wait for the key lock', async () => secondDone || (await lockWaiters()) >= 2, 5000, 20);
          release();
          await blocker;
          const answers = await Promise.all([first, second]);
          const third = await initiate(ctx, body, { token: key.token, idempotencyKey: 'slow' });

          const settled = answers.filter((r) => r.statusCode !== 409);
          assert.ok(settled.length >= 1);
          const outcomes = new Set(settled.map((r) => `${r.statusCode} ${(r.json() as { booking_intent_id?: string; code?: string }).booking_intent_id ?? r.json().code}`));
          assert.equal(outcomes.size, 1, `one Idempotency-Key answered differently: ${[...outcomes].join(' then ')}`);
          assert.deepEqual(new Set(settled.map((r) => r.body)).size, 1);
          assert.equal(settled[0]!.statusCode, 201, 'the slot was free: the key\'s outcome is a 201');
          assert.equal(third.statusCode, 201, `the replay must be the 201 the client was given, got ${third.statusCode}`);
          assert.equal(third.body, settled[0]!.body);
          const intents = await ctx.database.db.selectFrom('booking_intents').select('id').where('key_id', '=', key.id).execute();
          assert.deepEqual(intents.map((r) => r.id), [settled[0]!.json().booking_intent_id]);
        } finally {
          release();
          await blocker.catch(() => {});
        }
      });
    }
  });
}
