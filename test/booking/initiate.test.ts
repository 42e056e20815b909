/**
 * POST /bookings/initiate on every database: the 201, validation, the generic 404, holds,
 * test keys, scope and limits, the hoarding guard and Idempotency-Key semantics.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { SLOT_UNAVAILABLE_BODY } from '../../src/domain/booking/booking.service.ts';
import { fingerprint } from '../../src/domain/booking/idempotency.ts';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import {
  availabilityOn,
  countRows,
  createKey,
  createUser,
  holdsOf,
  initiate,
  intentRow,
  isAvailable,
  slotBody,
  tokenOf,
  UUID_RE,
  type CreatedTestKey,
  MIN,
  PROBLEM,
  T0,
  TTL_MS,
} from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';


interface Problem {
  code: string;
  detail: string;
  errors?: Array<{ pointer: string; detail: string }>;
}

for (const target of databaseTargets()) {
  describe(`POST /bookings/initiate (${target.name})`, () => {
    // ---------------------------------------------------------------------------------------
    describe('created intents, validation, the generic 404, test keys and scope', () => {
      let ctx: TestContext;
      let lawyer: string;
      let other: string;
      let unverified: string;
      let unlisted: string;
      let live: CreatedTestKey;
      let live2: CreatedTestKey;
      let testKey: CreatedTestKey;
      let noInitiate: CreatedTestKey;

      before(async () => {
        ctx = await createTestContext(target);
        [lawyer, other, unverified, unlisted] = (await insertLawyers(ctx.database, [
          lawyerRecord({
            name: 'Ana Martín',
            date_exceptions: [{ date: '2026-11-26' }, { date: '2026-11-25', start_time: '16:00:00', end_time: '18:00:00', slot_minutes: 30 }],
          }),
          lawyerRecord({ name: 'Berta Gil' }),
          lawyerRecord({ name: 'Not Verified', verified: false }),
          lawyerRecord({ name: 'Not Listed', listed: false }),
        ])) as [string, string, string, string];
        live = await createKey(ctx);
        live2 = await createKey(ctx);
        testKey = await createKey(ctx, { mode: 'test' });
        noInitiate = await createKey(ctx, { scopes: ['lawyers:read', 'availability:read', 'reviews:read', 'reference:read', 'bookings:read'] });
      });
      after(() => ctx.close());

      it('answers 201 with every field of the spec, expiry exactly 15 minutes ahead and a Location for live keys', async () => {
        const agent = 'a'.repeat(120);
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10', 60, { source: 'ai_agent', agent_name: agent }), { token: live.token });
        assert.equal(res.statusCode, 201, res.body);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const body = res.json();
        assert.deepEqual(Object.keys(body).sort(), ['booking_intent_id', 'confirmation_url', 'expires_at', 'lawyer', 'message', 'slot']);
        assert.match(body.booking_intent_id, UUID_RE);
        assert.equal('test' in body, false, 'test is absent for live keys');
        const url = new URL(body.confirmation_url);
        assert.equal(url.origin, SITE);
        const token = tokenOf(body.confirmation_url);
        assert.match(token, /^[A-Za-z0-9_-]{32,}$/, 'at least 192 bits, url-safe');
        assert.equal(body.confirmation_url.includes(body.booking_intent_id), false, 'the id is not the capability');
        assert.equal(body.expires_at, new Date(T0 + TTL_MS).toISOString());
        assert.deepEqual(body.slot, {
          date: '2026-11-24',
          start_time: '10:00:00',
          end_time: '11:00:00',
          timezone: 'Europe/Madrid',
          starts_at: '2026-11-24T10:00:00+01:00',
          ends_at: '2026-11-24T11:00:00+01:00',
        });
        assert.equal(body.lawyer.id, lawyer);
        assert.equal(body.lawyer.name, 'Ana Martín');
        assert.equal(body.lawyer.city, 'Madrid');
        assert.equal(body.lawyer.consultation_fee_cents, 6000);
        assert.equal(body.lawyer.currency, 'EUR');
        assert.equal(typeof body.message, 'string');
        assert.ok(body.message.length > 20);
        assert.equal(res.headers.location, `${SITE}/api/v1/booking-intents/${body.booking_intent_id}`);
        assert.ok(res.headers['x-request-id']);
        assert.ok(res.headers['x-ratelimit-limit'] && res.headers['x-ratelimit-remaining'], 'keyed responses carry rate-limit headers');

        const row = await intentRow(ctx.database, body.booking_intent_id);
        assert.equal(row?.status, 'pending');
        assert.equal(row?.key_id, live.id);
        assert.equal(row?.source, 'ai_agent');
        assert.equal(row?.agent_name, agent);
        assert.equal(row?.confirmation_token, token);

        // Another intent gets another, unrelated token.
        const second = await initiate(ctx, slotBody(lawyer, '2026-11-24', '13'), { token: live.token });
        assert.equal(second.statusCode, 201);
        assert.notEqual(tokenOf(second.json().confirmation_url), token);
      });

      it('accepts anonymous requests (no Location, no test flag)', async () => {
        const res = await initiate(ctx, slotBody(other, '2026-11-24', '09'), { remoteAddress: '198.51.100.20' });
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json();
        assert.match(body.booking_intent_id, UUID_RE);
        assert.equal(res.headers.location, undefined);
        assert.equal('test' in body, false);
        const row = await intentRow(ctx.database, body.booking_intent_id);
        assert.equal(row?.key_id, null);
        assert.equal(row?.client_ip, '198.51.100.20');
      });

      describe('validation: 400 invalid_request naming the field', () => {
        const valid = () => slotBody(other, '2026-11-25', '10');
        const cases: Array<[string, (b: Record<string, unknown>) => void, string, RegExp?]> = [
          ['missing lawyer_id', (b) => delete b.lawyer_id, '/body/lawyer_id', /required/],
          ['missing date', (b) => delete b.date, '/body/date', /required/],
          ['missing start_time', (b) => delete b.start_time, '/body/start_time', /required/],
          ['missing end_time', (b) => delete b.end_time, '/body/end_time', /required/],
          ['a lawyer_id that is not a uuid', (b) => (b.lawyer_id = 'lawyer-1'), '/body/lawyer_id', /UUID/],
          ['an impossible date (2026-02-30)', (b) => (b.date = '2026-02-30'), '/body/date', /YYYY-MM-DD/],
          ['a date in another format (24/11/2026)', (b) => (b.date = '24/11/2026'), '/body/date', /YYYY-MM-DD/],
          ['an hour out of range (25:00:00)', (b) => (b.start_time = '25:00:00'), '/body/start_time', /HH:MM:SS/],
          ['a time without seconds (10:00)', (b) => (b.start_time = '10:00'), '/body/start_time', /HH:MM:SS/],
          ['a bad end_time', (b) => (b.end_time = '25:00:00'), '/body/end_time', /HH:MM:SS/],
          ['a source outside the enum', (b) => (b.source = 'email'), '/body/source', /ai_agent, api, widget/],
          ['an agent_name of 121 characters', (b) => (b.agent_name = 'x'.repeat(121)), '/body/agent_name', /120/],
          ['an unknown field', (b) => (b.foo = 1), '/body/foo', /^is not a known field$/],
        ];
        for (const [name, mutate, pointer, detail] of cases) {
          it(`rejects ${name}`, async () => {
            const body: Record<string, unknown> = { ...valid() };
            mutate(body);
            const before = await countRows(ctx.database, 'booking_intents');
            const res = await initiate(ctx, body, { token: live.token });
            assert.equal(res.statusCode, 400, res.body);
            assert.equal(res.headers['content-type'], PROBLEM);
            const problem = res.json() as Problem;
            assert.equal(problem.code, 'invalid_request');
            const error = problem.errors?.find((e) => e.pointer === pointer);
            assert.ok(error, `expected ${pointer} in ${JSON.stringify(problem.errors)}`);
            if (detail) assert.match(error.detail, detail);
            assert.equal(await countRows(ctx.database, 'booking_intents'), before);
          });
        }

        const wrongTypes: Array<[string, Record<string, unknown>, string]> = [
          ['a number as agent_name', { agent_name: 12345 }, '/body/agent_name'],
          ['a boolean as agent_name', { agent_name: true }, '/body/agent_name'],
          ['an array as date', { date: ['2026-11-30'] }, '/body/date'],
          ['an array as lawyer_id', { lawyer_id: ['LAWYER'] }, '/body/lawyer_id'],
          ['an array as source', { source: ['api'] }, '/body/source'],
        ];
        for (const [n, [name, patch, pointer]] of wrongTypes.entries()) {
          it(`rejects ${name} instead of coercing it`, async () => {
            // A slot of its own: a wrongly accepted body must not disturb the other cases.
            const body: Record<string, unknown> = { ...slotBody(other, '2026-11-30', String(9 + n)), ...patch };
            if (Array.isArray(body.lawyer_id)) body.lawyer_id = [other];
            const res = await initiate(ctx, body, { token: live.token });
            assert.equal(res.statusCode, 400, `accepted ${JSON.stringify(patch)}: ${res.statusCode}`);
            assert.ok((res.json() as Problem).errors?.some((e) => e.pointer === pointer), res.body);
          });
        }

        it('rejects a body that is not JSON', async () => {
          const res = await initiate(ctx, '{"lawyer_id": "x",', { token: live.token });
          assert.equal(res.statusCode, 400);
          assert.equal(res.headers['content-type'], PROBLEM);
          const problem = res.json() as Problem;
          assert.equal(problem.code, 'invalid_request');
          assert.deepEqual(problem.errors?.map((e) => e.pointer), ['/body']);
        });

        for (const type of ['application/x-www-form-urlencoded', 'application/xml', 'text/plain', 'text/plain; charset=utf-8']) {
          it(`rejects a JSON body sent as ${type} with 415 unsupported_media_type`, async () => {
            const res = await initiate(ctx, JSON.stringify(valid()), { token: live.token, headers: { 'content-type': type } });
            assert.equal(res.statusCode, 415, res.body);
            assert.equal(res.headers['content-type'], PROBLEM);
            assert.equal((res.json() as Problem).code, 'unsupported_media_type');
          });
        }

        it('rejects an Idempotency-Key of 256 characters and an empty one; 255 is fine', async () => {
          for (const key of ['k'.repeat(256), '']) {
            const res = await initiate(ctx, valid(), { token: live.token, idempotencyKey: key });
            assert.equal(res.statusCode, 400, `key of ${key.length}: ${res.body}`);
            const problem = res.json() as Problem;
            assert.equal(problem.code, 'invalid_request');
            assert.ok(problem.errors?.some((e) => e.pointer === '/headers/idempotency-key'), JSON.stringify(problem.errors));
          }
          const ok = await initiate(ctx, valid(), { token: live.token, idempotencyKey: 'k'.repeat(255) });
          assert.equal(ok.statusCode, 201, ok.body);
        });
      });

      describe('the generic 404', () => {
        let booked: { date: string; start: string };
        const reasons: Array<[string, () => Record<string, unknown>]> = [];

        before(async () => {
          // Held: a pending intent of another key.
          const held = await initiate(ctx, slotBody(lawyer, '2026-11-27', '11'), { token: live2.token });
          assert.equal(held.statusCode, 201);
          // Booked: confirmed by a user.
          const toBook = await initiate(ctx, slotBody(lawyer, '2026-11-27', '12'), { token: live2.token });
          assert.equal(toBook.statusCode, 201);
          const user = await createUser(ctx, 'client-404@example.com');
          const confirmed = await ctx.app.services.booking.confirm(tokenOf(toBook.json().confirmation_url), user);
          assert.equal(confirmed.outcome, 'confirmed');
          booked = { date: '2026-11-27', start: '12' };
          reasons.push(
            ['slot held by a pending intent', () => slotBody(lawyer, '2026-11-27', '11')],
            ['slot booked', () => slotBody(lawyer, booked.date, booked.start)],
            ['slot in the past', () => slotBody(lawyer, '2026-11-20', '10')],
            ['slot starting now', () => slotBody(lawyer, '2026-11-23', '09')],
            ['slot within the 2 h lead time', () => slotBody(lawyer, '2026-11-23', '10')],
            ['a start that is not a slot start', () => slotBody(lawyer, '2026-11-24', '10:30')],
            ['a wrong length / end', () => slotBody(lawyer, '2026-11-24', '11', 30)],
            ['an end before the start', () => ({ ...slotBody(lawyer, '2026-11-24', '11'), end_time: '10:00:00' })],
            ['a closed exception day', () => slotBody(lawyer, '2026-11-26', '10')],
            ['a regular slot on a day with custom hours', () => slotBody(lawyer, '2026-11-25', '10')],
            // Her length (60 minutes) applies on a custom-hours day too, whatever the row's slot_minutes says.
            ['another length on a day with custom hours', () => slotBody(lawyer, '2026-11-25', '16:30', 30)],
            ['a weekend day', () => slotBody(lawyer, '2026-11-28', '10')],
            ['outside the opening hours', () => slotBody(lawyer, '2026-11-24', '15')],
            ['an unknown lawyer', () => slotBody(randomUUID(), '2026-11-24', '10')],
            ['an unverified lawyer', () => slotBody(unverified, '2026-11-24', '10')],
            ['an unlisted lawyer', () => slotBody(unlisted, '2026-11-24', '10')],
          );
        });

        it('is byte-for-byte the same JSON (not a problem document) whatever the reason, for live, anonymous and test keys', async () => {
          assert.ok(reasons.length >= 16);
          const seen: Array<{ reason: string; who: string; body: string; type: unknown }> = [];
          for (const [reason, body] of reasons) {
            for (const [who, token] of [['live', live.token], ['anonymous', undefined], ['test', testKey.token]] as const) {
              const res = await initiate(ctx, body(), { token, remoteAddress: '198.51.100.44' });
              assert.equal(res.statusCode, 404, `${reason} (${who}): ${res.statusCode} ${res.body}`);
              assert.equal(res.headers.location, undefined);
              seen.push({ reason, who, body: res.body, type: res.headers['content-type'] });
            }
          }
          for (const s of seen) {
            assert.equal(s.body, SLOT_UNAVAILABLE_BODY, `${s.reason} (${s.who})`);
            assert.equal(s.type, seen[0]!.type, `${s.reason} (${s.who})`);
          }
          assert.match(String(seen[0]!.type), /^application\/json(;|$)/);
          assert.deepEqual(Object.keys(JSON.parse(seen[0]!.body) as object).sort(), ['code', 'message']);
        });

        it('accepts a slot of a day with custom hours', async () => {
          const res = await initiate(ctx, slotBody(lawyer, '2026-11-25', '17'), { token: live.token });
          assert.equal(res.statusCode, 201, res.body);
          assert.equal(res.json().slot.end_time, '18:00:00');
        });

        it('does not hold or store anything on a 404', async () => {
          const before = [await countRows(ctx.database, 'booking_intents'), await countRows(ctx.database, 'slot_holds')];
          const res = await initiate(ctx, slotBody(lawyer, '2026-11-27', '11'), { token: live.token });
          assert.equal(res.statusCode, 404);
          assert.deepEqual([await countRows(ctx.database, 'booking_intents'), await countRows(ctx.database, 'slot_holds')], before);
        });
      });

      describe('test keys', () => {
        it('answer 201 with a null id, test: true and the test-mode page, store and hold nothing', async () => {
          const body = slotBody(other, '2026-11-25', '11');
          const before = [await countRows(ctx.database, 'booking_intents'), await countRows(ctx.database, 'slot_holds')];
          for (let i = 0; i < 2; i++) {
            const res = await initiate(ctx, body, { token: testKey.token });
            assert.equal(res.statusCode, 201, res.body);
            const out = res.json();
            assert.equal(out.booking_intent_id, null);
            assert.equal(out.test, true);
            assert.equal(out.confirmation_url, `${SITE}/booking/test-mode`);
            assert.equal(out.slot.start_time, '11:00:00');
            assert.equal(out.lawyer.id, other);
            assert.equal(res.headers.location, undefined);
          }
          assert.deepEqual([await countRows(ctx.database, 'booking_intents'), await countRows(ctx.database, 'slot_holds')], before);
          assert.equal(await isAvailable(ctx, other, '2026-11-25', '11:00:00'), true);

          const page = await ctx.app.fastify.inject({ url: '/booking/test-mode', headers: { 'accept-language': 'en' } });
          assert.equal(page.statusCode, 200);
          assert.match(String(page.headers['content-type']), /^text\/html/);
          assert.match(page.body, /test/i);
          assert.match(page.body, /Nothing was held or stored/);

          // Nothing held: a live key gets the same slot.
          const real = await initiate(ctx, body, { token: live.token });
          assert.equal(real.statusCode, 201, real.body);
          // …and now the test key is told it is unavailable, like everyone.
          const again = await initiate(ctx, body, { token: testKey.token });
          assert.equal(again.statusCode, 404);
          assert.equal(again.body, SLOT_UNAVAILABLE_BODY);
        });

        it('get 400 for a bad body', async () => {
          const res = await initiate(ctx, { ...slotBody(other, '2026-11-25', '12'), date: '2026-13-01' }, { token: testKey.token });
          assert.equal(res.statusCode, 400);
          assert.ok((res.json() as Problem).errors?.some((e) => e.pointer === '/body/date'));
        });
      });

      it('refuses a key without bookings:initiate with 403 insufficient_scope', async () => {
        const res = await initiate(ctx, slotBody(other, '2026-11-25', '13'), { token: noInitiate.token });
        assert.equal(res.statusCode, 403);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.equal((res.json() as Problem).code, 'insufficient_scope');
        assert.match((res.json() as Problem).detail, /bookings:initiate/);
        assert.equal(await isAvailable(ctx, other, '2026-11-25', '13:00:00'), true);
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('holds and availability', () => {
      let ctx: TestContext;
      let lawyer: string;
      let key: CreatedTestKey;
      const profile = async () => (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer}` })).json() as { next_available: string | null };

      before(async () => {
        ctx = await createTestContext(target);
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
        key = await createKey(ctx);
      });
      after(() => ctx.close());

      it('shows a held slot unavailable, and moves next_available once all of a day\'s slots are held', async () => {
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '10:00:00'), true);
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10'), { token: key.token });
        assert.equal(res.statusCode, 201, res.body);
        const slots = await availabilityOn(ctx, lawyer, '2026-11-24');
        assert.deepEqual(
          slots.map((s) => [s.start_time, s.available]),
          [['09:00:00', true], ['10:00:00', false], ['11:00:00', true], ['12:00:00', true], ['13:00:00', true]],
        );

        // Today (09:00) only 11:00 (exactly the 2 h lead), 12:00 and 13:00 are bookable.
        assert.equal((await profile()).next_available, '2026-11-23');
        for (const start of ['11', '12']) {
          assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-23', start), { remoteAddress: '203.0.113.9' })).statusCode, 201);
          assert.equal((await profile()).next_available, '2026-11-23');
        }
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-23', '13'), { token: key.token })).statusCode, 201);
        assert.equal((await profile()).next_available, '2026-11-24');
      });

      it('frees the slot at expiry even before the sweeper runs, and lets a new intent take it', async () => {
        ctx.clock.set(T0 + TTL_MS); // exactly expires_at of the intents above
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '10:00:00'), true);
        // Not swept: the hold row and the pending status are still there.
        assert.equal((await holdsOf(ctx.database, lawyer, '2026-11-24', '10:00:00')).length, 1);
        assert.equal(await countRows(ctx.database, 'booking_intents'), 4);

        const again = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10'), { remoteAddress: '203.0.113.10' });
        assert.equal(again.statusCode, 201, again.body);
        const holds = await holdsOf(ctx.database, lawyer, '2026-11-24', '10:00:00');
        assert.equal(holds.length, 1);
        assert.equal(holds[0]!.booking_intent_id, again.json().booking_intent_id);
        assert.equal(holds[0]!.expires_at, new Date(T0 + 2 * TTL_MS).toISOString());
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '10:00:00'), false);

        // Sweeping the old intent later releases only its own hold, not the new one.
        assert.equal(await ctx.app.services.booking.expireDue(), 4);
        assert.equal((await holdsOf(ctx.database, lawyer, '2026-11-24', '10:00:00'))[0]?.booking_intent_id, again.json().booking_intent_id);
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '10:00:00'), false);
      });

      it('applies the lead time in the lawyer\'s own time zone', async () => {
        const [canary] = (await insertLawyers(ctx.database, [
          lawyerRecord({ name: 'Carmen Hernández', city: 'las-palmas-de-gran-canaria' }),
        ])) as [string];
        ctx.clock.set(T0); // 08:00 in the Canaries, 09:00 in Madrid
        const tooSoon = await initiate(ctx, slotBody(canary, '2026-11-23', '09'), { token: key.token });
        assert.equal(tooSoon.statusCode, 404);
        const ok = await initiate(ctx, slotBody(canary, '2026-11-23', '10'), { token: key.token });
        assert.equal(ok.statusCode, 201, ok.body);
        assert.equal(ok.json().slot.timezone, 'Atlantic/Canary');
        assert.equal(ok.json().slot.starts_at, '2026-11-23T10:00:00+00:00');
        assert.equal(ok.json().expires_at, new Date(T0 + TTL_MS).toISOString());
        // The same wall time in Madrid is within the lead time.
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-23', '10'), { token: key.token })).statusCode, 404);
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('anonymous limit (real limits)', () => {
      let ctx: TestContext;
      let lawyer: string;

      before(async () => {
        ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1 } });
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
      });
      after(() => ctx.close());

      it('admits 5 initiations per hour per address, then 429 with Retry-After; a 429 is not stored for its Idempotency-Key', async () => {
        const address = '192.0.2.50';
        const statuses: number[] = [];
        for (let i = 0; i < 5; i++) {
          statuses.push((await initiate(ctx, slotBody(lawyer, '2026-11-24', String(9 + i)), { remoteAddress: address })).statusCode);
        }
        assert.deepEqual(statuses, [201, 201, 201, 201, 201]);
        const body = slotBody(lawyer, '2026-11-25', '10');
        const refused = await initiate(ctx, body, { remoteAddress: address, idempotencyKey: 'after-the-limit' });
        assert.equal(refused.statusCode, 429);
        assert.equal(refused.headers['content-type'], PROBLEM);
        assert.equal((refused.json() as Problem).code, 'rate_limited');
        const retryAfter = Number(refused.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 3600, String(refused.headers['retry-after']));

        // Another address is not affected.
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-25', '09'), { remoteAddress: '192.0.2.51' })).statusCode, 201);

        // After Retry-After the same key and body run afresh (the 429 was not stored).
        ctx.clock.advance(retryAfter * 1000);
        const retried = await initiate(ctx, body, { remoteAddress: address, idempotencyKey: 'after-the-limit' });
        assert.equal(retried.statusCode, 201, retried.body);
        assert.equal(retried.headers['idempotent-replayed'], undefined);
      });

      it('a replay comes before the limit: after the 5th initiation of the hour, each Idempotency-Key still answers its stored outcome; a new one is 429', async () => {
        const address = '192.0.2.60';
        const first: Array<{ key: string; body: ReturnType<typeof slotBody>; answer: string; status: number }> = [];
        // Four holds and one unavailable slot (404, stored too): five initiations, the hour's limit.
        for (let i = 0; i < 5; i++) {
          const body = i < 4 ? slotBody(lawyer, '2026-11-30', String(9 + i)) : slotBody(lawyer, '2026-11-30', '03');
          const res = await initiate(ctx, body, { remoteAddress: address, idempotencyKey: `replay-${i}` });
          first.push({ key: `replay-${i}`, body, answer: res.body, status: res.statusCode });
        }
        assert.deepEqual(first.map((f) => f.status), [201, 201, 201, 201, 404]);
        const fresh = await initiate(ctx, slotBody(lawyer, '2026-11-30', '14'), { remoteAddress: address, idempotencyKey: 'replay-new' });
        assert.equal(fresh.statusCode, 429, 'a new initiation is over the limit');
        for (let round = 0; round < 3; round++) {
          for (const f of first) {
            const again = await initiate(ctx, f.body, { remoteAddress: address, idempotencyKey: f.key });
            assert.equal(again.statusCode, f.status, `${f.key}: ${again.body}`);
            assert.equal(again.body, f.answer, 'the stored answer, byte for byte');
            assert.equal(again.headers['idempotent-replayed'], 'true');
          }
        }
        // The same key with another body is still the 422 (a replay check, not a new initiation).
        const reused = await initiate(ctx, slotBody(lawyer, '2026-11-30', '13'), { remoteAddress: address, idempotencyKey: 'replay-0' });
        assert.equal(reused.statusCode, 422, reused.body);
        // Without a key, or with a new one, still refused: replays did not open the window.
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-30', '13'), { remoteAddress: address })).statusCode, 429);
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-30', '13'), { remoteAddress: address, idempotencyKey: 'replay-new-2' })).statusCode, 429);
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('hoarding guard (maxPendingIntentsPerKey 3)', () => {
      let ctx: TestContext;
      let lawyer: string;
      let a: CreatedTestKey;
      let b: CreatedTestKey;
      let c: CreatedTestKey;
      let t: CreatedTestKey;

      before(async () => {
        ctx = await createTestContext(target, { config: { maxPendingIntentsPerKey: 3 } });
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
        a = await createKey(ctx);
        b = await createKey(ctx);
        c = await createKey(ctx);
        t = await createKey(ctx, { mode: 'test' });
      });
      after(() => ctx.close());

      it('refuses the 4th pending intent of a key with 429, Retry-After until the oldest expires, and says why', async () => {
        for (const [i, start] of ['09', '10', '11'].entries()) {
          ctx.clock.set(T0 + i * MIN);
          assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-24', start), { token: a.token, idempotencyKey: `a-${i}` })).statusCode, 201);
        }
        ctx.clock.set(T0 + 3 * MIN);
        const fourth = slotBody(lawyer, '2026-11-24', '12');
        const refused = await initiate(ctx, fourth, { token: a.token, idempotencyKey: 'fourth' });
        assert.equal(refused.statusCode, 429, refused.body);
        const problem = refused.json() as Problem;
        assert.equal(problem.code, 'rate_limited');
        assert.match(problem.detail, /pending booking intents/);
        assert.match(problem.detail, /\b3\b/);
        assert.equal(refused.headers['retry-after'], String((TTL_MS - 3 * MIN) / 1000)); // 720
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '12:00:00'), true, 'nothing held by the refusal');

        // Replaying an earlier request is not a new intent: it still replays at the cap.
        const replay = await initiate(ctx, slotBody(lawyer, '2026-11-24', '09'), { token: a.token, idempotencyKey: 'a-0' });
        assert.equal(replay.statusCode, 201);
        assert.equal(replay.headers['idempotent-replayed'], 'true');

        // Other keys, anonymous callers and test keys are unaffected.
        assert.equal((await initiate(ctx, fourth, { token: t.token })).statusCode, 201);
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-25', '09'), { token: b.token })).statusCode, 201);
        for (const start of ['10', '11', '12', '13']) {
          assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-26', start), { remoteAddress: '203.0.113.77' })).statusCode, 201);
        }

        // One second before the oldest expires: still refused, Retry-After 1.
        ctx.clock.set(T0 + TTL_MS - 1000);
        const still = await initiate(ctx, fourth, { token: a.token, idempotencyKey: 'fourth' });
        assert.equal(still.statusCode, 429);
        assert.equal(still.headers['retry-after'], '1');

        // Once it expired, a new one is allowed; the 429 was not stored for the Idempotency-Key.
        ctx.clock.set(T0 + TTL_MS);
        const allowed = await initiate(ctx, fourth, { token: a.token, idempotencyKey: 'fourth' });
        assert.equal(allowed.statusCode, 201, allowed.body);
        assert.equal(allowed.headers['idempotent-replayed'], undefined);
        const next = await initiate(ctx, slotBody(lawyer, '2026-11-24', '13'), { token: a.token });
        assert.equal(next.statusCode, 429, 'again 3 pending');
        assert.equal(next.headers['retry-after'], String(MIN / 1000));
      });

      it('does not count anonymous intents (or confirmed ones) against a key', async () => {
        // Many anonymous intents exist already; key c still gets its 3.
        assert.ok((await ctx.database.db.selectFrom('booking_intents').select('id').where('key_id', 'is', null).execute()).length >= 4);
        const created: string[] = [];
        for (const start of ['09', '10', '11']) {
          const res = await initiate(ctx, slotBody(lawyer, '2026-11-27', start), { token: c.token });
          assert.equal(res.statusCode, 201, res.body);
          created.push(res.json().confirmation_url);
        }
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-27', '12'), { token: c.token })).statusCode, 429);
        // A confirmed intent is no longer pending: room for one more.
        const user = await createUser(ctx, 'hoarding-client@example.com');
        assert.equal((await ctx.app.services.booking.confirm(tokenOf(created[0]!), user)).outcome, 'confirmed');
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-27', '12'), { token: c.token })).statusCode, 201);
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('Idempotency-Key', () => {
      let ctx: TestContext;
      let lawyer: string;
      let a: CreatedTestKey;
      let b: CreatedTestKey;
      let t: CreatedTestKey;

      before(async () => {
        ctx = await createTestContext(target);
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: [1, 2, 3, 4, 5].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '19:00:00', slot_minutes: 30 as const })) })])) as [string];
        a = await createKey(ctx);
        b = await createKey(ctx);
        t = await createKey(ctx, { mode: 'test' });
      });
      after(() => ctx.close());

      it('replays the same key and body byte for byte with Idempotent-Replayed: true, creating one intent', async () => {
        const body = slotBody(lawyer, '2026-11-24', '09', 30);
        const first = await initiate(ctx, body, { token: a.token, idempotencyKey: 'same-1' });
        assert.equal(first.statusCode, 201);
        assert.equal(first.headers['idempotent-replayed'], undefined);
        const intents = await countRows(ctx.database, 'booking_intents');
        for (let i = 0; i < 2; i++) {
          const replay = await initiate(ctx, body, { token: a.token, idempotencyKey: 'same-1' });
          assert.equal(replay.statusCode, 201);
          assert.equal(replay.headers['idempotent-replayed'], 'true');
          assert.equal(replay.body, first.body);
          assert.equal(replay.headers.location, first.headers.location);
          assert.equal(replay.headers['content-type'], first.headers['content-type']);
        }
        assert.equal(await countRows(ctx.database, 'booking_intents'), intents);
      });

      it('replays whatever the key order and whitespace of the JSON (canonical fingerprint)', async () => {
        const body = slotBody(lawyer, '2026-11-24', '09:30', 30, { source: 'api', agent_name: 'Claude' });
        const first = await initiate(ctx, body, { token: a.token, idempotencyKey: 'canonical' });
        assert.equal(first.statusCode, 201);
        const reordered = `{\n  "agent_name" : "Claude",\n\t"end_time":"10:00:00", "start_time": "09:30:00",\n  "source":"api","date":"2026-11-24",   "lawyer_id": "${lawyer}"\n}\n`;
        const replay = await initiate(ctx, reordered, { token: a.token, idempotencyKey: 'canonical' });
        assert.equal(replay.statusCode, 201, replay.body);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.body, first.body);
      });

      it('answers 422 idempotency_key_reused for the same key with another body', async () => {
        const first = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10', 30), { token: a.token, idempotencyKey: 'reused' });
        assert.equal(first.statusCode, 201);
        for (const other of [slotBody(lawyer, '2026-11-24', '10:30', 30), slotBody(lawyer, '2026-11-24', '10', 30, { source: 'widget' })]) {
          const res = await initiate(ctx, other, { token: a.token, idempotencyKey: 'reused' });
          assert.equal(res.statusCode, 422, res.body);
          assert.equal(res.headers['content-type'], PROBLEM);
          assert.equal((res.json() as Problem).code, 'idempotency_key_reused');
        }
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '10:30:00'), true);
      });

      it('scopes keys per caller: two API keys, or two addresses, use the same Idempotency-Key independently', async () => {
        const ra = await initiate(ctx, slotBody(lawyer, '2026-11-24', '11', 30), { token: a.token, idempotencyKey: 'shared' });
        const rb = await initiate(ctx, slotBody(lawyer, '2026-11-24', '11:30', 30), { token: b.token, idempotencyKey: 'shared' });
        assert.equal(ra.statusCode, 201);
        assert.equal(rb.statusCode, 201, rb.body);
        assert.equal(rb.headers['idempotent-replayed'], undefined);
        assert.notEqual(ra.json().booking_intent_id, rb.json().booking_intent_id);

        const x = await initiate(ctx, slotBody(lawyer, '2026-11-24', '12', 30), { remoteAddress: '192.0.2.1', idempotencyKey: 'shared' });
        const y = await initiate(ctx, slotBody(lawyer, '2026-11-24', '12:30', 30), { remoteAddress: '192.0.2.2', idempotencyKey: 'shared' });
        assert.equal(x.statusCode, 201, x.body);
        assert.equal(y.statusCode, 201, y.body);
        assert.equal(y.headers['idempotent-replayed'], undefined);
        const xAgain = await initiate(ctx, slotBody(lawyer, '2026-11-24', '12', 30), { remoteAddress: '192.0.2.1', idempotencyKey: 'shared' });
        assert.equal(xAgain.headers['idempotent-replayed'], 'true');
        assert.equal(xAgain.body, x.body);
        const yOther = await initiate(ctx, slotBody(lawyer, '2026-11-24', '13', 30), { remoteAddress: '192.0.2.2', idempotencyKey: 'shared' });
        assert.equal(yOther.statusCode, 422);
      });

      it('replays a stored slot 404 as a 404', async () => {
        const body = slotBody(lawyer, '2026-11-25', '09', 30);
        const holder = await initiate(ctx, body, { token: b.token });
        assert.equal(holder.statusCode, 201);
        const first = await initiate(ctx, body, { token: a.token, idempotencyKey: 'stored-404' });
        assert.equal(first.statusCode, 404);
        // The holder confirms nothing; the slot is still taken → replay.
        const replay = await initiate(ctx, body, { token: a.token, idempotencyKey: 'stored-404' });
        assert.equal(replay.statusCode, 404);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.body, first.body);
        assert.match(String(replay.headers['content-type']), /^application\/json/);

        const unknown = slotBody(randomUUID(), '2026-11-25', '09', 30);
        const u1 = await initiate(ctx, unknown, { token: a.token, idempotencyKey: 'stored-404-unknown' });
        const u2 = await initiate(ctx, unknown, { token: a.token, idempotencyKey: 'stored-404-unknown' });
        assert.deepEqual([u1.statusCode, u2.statusCode, u2.headers['idempotent-replayed']], [404, 404, 'true']);
      });

      it('does not store a 400: the corrected body with the same key succeeds', async () => {
        const good = slotBody(lawyer, '2026-11-25', '10', 30);
        const bad = await initiate(ctx, { ...good, start_time: '10:00' }, { token: a.token, idempotencyKey: 'fix-me' });
        assert.equal(bad.statusCode, 400);
        const fixed = await initiate(ctx, good, { token: a.token, idempotencyKey: 'fix-me' });
        assert.equal(fixed.statusCode, 201, fixed.body);
        assert.equal(fixed.headers['idempotent-replayed'], undefined);
      });

      it('gives test keys the same replay and reuse behaviour', async () => {
        const body = slotBody(lawyer, '2026-11-25', '11', 30);
        const intentsBefore = await countRows(ctx.database, 'booking_intents');
        const first = await initiate(ctx, body, { token: t.token, idempotencyKey: 'test-key' });
        assert.equal(first.statusCode, 201);
        assert.equal(first.json().test, true);
        const replay = await initiate(ctx, body, { token: t.token, idempotencyKey: 'test-key' });
        assert.equal(replay.statusCode, 201);
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.body, first.body);
        const reused = await initiate(ctx, slotBody(lawyer, '2026-11-25', '11:30', 30), { token: t.token, idempotencyKey: 'test-key' });
        assert.equal(reused.statusCode, 422);
        assert.equal(await countRows(ctx.database, 'booking_intents'), intentsBefore);
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-25', '11:00:00'), true);
      });

      it('answers 409 idempotency_key_in_use with Retry-After while a live claim exists, and takes over a lapsed one', async () => {
        const body = slotBody(lawyer, '2026-11-25', '12', 30);
        const now = ctx.clock.now().getTime();
        await ctx.database.db
          .insertInto('idempotency_keys')
          .values({
            scope: `key:${a.id}`,
            key: 'running',
            fingerprint: fingerprint('POST', '/bookings/initiate', body),
            state: 'in_progress',
            locked_until: new Date(now + 20_000).toISOString(),
            response_status: null,
            response_body: null,
            response_headers: null,
            created_at: new Date(now).toISOString(),
          })
          .execute();
        const busy = await initiate(ctx, body, { token: a.token, idempotencyKey: 'running' });
        assert.equal(busy.statusCode, 409, busy.body);
        assert.equal(busy.headers['content-type'], PROBLEM);
        assert.equal((busy.json() as Problem).code, 'idempotency_key_in_use');
        const retryAfter = Number(busy.headers['retry-after']);
        assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, String(busy.headers['retry-after']));
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-25', '12:00:00'), true);
        // Another body under the running key is still a 422.
        assert.equal((await initiate(ctx, slotBody(lawyer, '2026-11-25', '12:30', 30), { token: a.token, idempotencyKey: 'running' })).statusCode, 422);

        // A crashed process: the lease lapsed.
        await ctx.database.db
          .updateTable('idempotency_keys')
          .set({ locked_until: new Date(now - 1).toISOString() })
          .where('scope', '=', `key:${a.id}`)
          .where('key', '=', 'running')
          .execute();
        const taken = await initiate(ctx, body, { token: a.token, idempotencyKey: 'running' });
        assert.equal(taken.statusCode, 201, taken.body);
        assert.equal(taken.headers['idempotent-replayed'], undefined);
        const record = await ctx.database.db.selectFrom('idempotency_keys').selectAll().where('scope', '=', `key:${a.id}`).where('key', '=', 'running').executeTakeFirstOrThrow();
        assert.equal(record.state, 'completed');
        assert.equal(record.response_status, 201);
        const replay = await initiate(ctx, body, { token: a.token, idempotencyKey: 'running' });
        assert.equal(replay.headers['idempotent-replayed'], 'true');
        assert.equal(replay.body, taken.body);
      });

      it('frees a key after 24 h for another body, and purge() deletes records older than 24 h', async () => {
        const before = await countRows(ctx.database, 'idempotency_keys');
        assert.ok(before >= 8, String(before));
        // 24 h exactly: still bound.
        const bodyLater = slotBody(lawyer, '2026-11-26', '12', 30);
        ctx.clock.set(T0 + 24 * 3_600_000);
        assert.equal((await initiate(ctx, bodyLater, { token: a.token, idempotencyKey: 'same-1' })).statusCode, 422);
        assert.equal(await ctx.app.services.idempotency.purge(), 0, 'nothing is older than 24 h yet');

        ctx.clock.set(T0 + 24 * 3_600_000 + 1000);
        const reused = await initiate(ctx, bodyLater, { token: a.token, idempotencyKey: 'same-1' });
        assert.equal(reused.statusCode, 201, reused.body);
        assert.equal(reused.headers['idempotent-replayed'], undefined);

        const purged = await ctx.app.services.idempotency.purge();
        assert.equal(purged, before - 1, 'every record but the one just rewritten');
        const left = await ctx.database.db.selectFrom('idempotency_keys').select(['key', 'created_at']).execute();
        assert.deepEqual(left, [{ key: 'same-1', created_at: new Date(T0 + 24 * 3_600_000 + 1000).toISOString() }]);
        assert.equal(await ctx.app.services.idempotency.purge(), 0);
      });
    });
  });
}
