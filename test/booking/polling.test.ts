/**
 * GET /booking-intents/{id}, exact expiry on read, the sweeper and confirmation, on every database.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { DomainError } from '../../src/domain/errors.ts';
import { createTestContext, SITE, TEST_NOW, type TestContext } from '../support/app.ts';
import {
  countRows,
  createKey,
  createUser,
  holdsOf,
  initiate,
  intentRow,
  isAvailable,
  outboxOf,
  poll,
  slotBody,
  tokenOf,
  type CreatedTestKey,
  MIN,
  PROBLEM,
  T0,
  TTL_MS,
} from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';


/** A problem body without its per-request `instance`. */
function withoutInstance(body: string): Record<string, unknown> {
  const { instance, ...rest } = JSON.parse(body) as Record<string, unknown>;
  assert.match(String(instance), /^req_[0-9a-f]{32}$/);
  return rest;
}

for (const target of databaseTargets()) {
  describe(`booking intents: polling, expiry, sweeper, confirmation (${target.name})`, () => {
    // ---------------------------------------------------------------------------------------
    describe('GET /booking-intents/{id}', () => {
      let ctx: TestContext;
      let lawyer: string;
      let owner: CreatedTestKey;
      let sameOwner: CreatedTestKey;
      let stranger: CreatedTestKey;
      let noRead: CreatedTestKey;
      let created: { booking_intent_id: string; confirmation_url: string; expires_at: string };

      before(async () => {
        ctx = await createTestContext(target);
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
        owner = await createKey(ctx, { ownerEmail: 'agent-dev@example.com' });
        sameOwner = await createKey(ctx, { ownerEmail: 'agent-dev@example.com' });
        stranger = await createKey(ctx);
        noRead = await createKey(ctx, { ownerEmail: 'agent-dev@example.com', scopes: ['bookings:initiate', 'availability:read'] });
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10'), { token: owner.token });
        assert.equal(res.statusCode, 201, res.body);
        created = res.json();
      });
      after(() => ctx.close());

      it('returns every BookingIntent field to the creating key', async () => {
        const res = await poll(ctx, created.booking_intent_id, owner.token);
        assert.equal(res.statusCode, 200, res.body);
        assert.match(String(res.headers['content-type']), /^application\/json/);
        const intent = res.json();
        for (const field of ['booking_intent_id', 'status', 'slot', 'expires_at', 'confirmed_at', 'created_at', 'confirmation_url']) {
          assert.ok(field in intent, `missing ${field}`);
        }
        assert.equal(intent.booking_intent_id, created.booking_intent_id);
        assert.equal(intent.status, 'pending');
        assert.equal(intent.confirmed_at, null);
        assert.equal(intent.created_at, TEST_NOW);
        assert.equal(intent.expires_at, new Date(T0 + TTL_MS).toISOString());
        assert.equal(intent.expires_at, created.expires_at);
        assert.equal(intent.confirmation_url, created.confirmation_url);
        assert.ok(intent.confirmation_url.startsWith(`${SITE}/confirm/`));
        assert.equal(intent.slot.date, '2026-11-24');
        assert.equal(intent.slot.start_time, '10:00:00');
        assert.equal(intent.slot.end_time, '11:00:00');
        assert.equal(intent.slot.starts_at, '2026-11-24T10:00:00+01:00');
        // The Location of the 201 is this resource.
        const again = await initiate(ctx, slotBody(lawyer, '2026-11-24', '11'), { token: owner.token });
        const location = new URL(String(again.headers.location));
        const viaLocation = await ctx.app.fastify.inject({ url: location.pathname, headers: { authorization: `Bearer ${owner.token}` } });
        assert.equal(viaLocation.statusCode, 200);
        assert.equal(viaLocation.json().booking_intent_id, again.json().booking_intent_id);
      });

      it('needs a key: 401 authentication_required without one', async () => {
        const res = await poll(ctx, created.booking_intent_id);
        assert.equal(res.statusCode, 401);
        assert.equal(res.headers['content-type'], PROBLEM);
        assert.equal(res.json().code, 'authentication_required');
        assert.match(String(res.headers['www-authenticate']), /^Bearer/);
      });

      it('answers another key (same owner or not) exactly as for an unknown id', async () => {
        const unknown = await poll(ctx, randomUUID(), owner.token);
        assert.equal(unknown.statusCode, 404);
        assert.equal(unknown.headers['content-type'], PROBLEM);
        assert.equal(unknown.json().code, 'not_found');
        for (const key of [sameOwner, stranger]) {
          const res = await poll(ctx, created.booking_intent_id, key.token);
          assert.equal(res.statusCode, 404);
          assert.equal(res.headers['content-type'], unknown.headers['content-type']);
          assert.deepEqual(withoutInstance(res.body), withoutInstance(unknown.body));
        }
      });

      it('never shows anonymous intents', async () => {
        const anon = await initiate(ctx, slotBody(lawyer, '2026-11-24', '12'), { remoteAddress: '198.51.100.3' });
        assert.equal(anon.statusCode, 201);
        const unknown = await poll(ctx, randomUUID(), owner.token);
        for (const key of [owner, sameOwner, stranger]) {
          const res = await poll(ctx, anon.json().booking_intent_id, key.token);
          assert.equal(res.statusCode, 404);
          assert.deepEqual(withoutInstance(res.body), withoutInstance(unknown.body));
        }
      });

      it('refuses a key without bookings:read (403) and a malformed id (400)', async () => {
        const forbidden = await poll(ctx, created.booking_intent_id, noRead.token);
        assert.equal(forbidden.statusCode, 403);
        assert.equal(forbidden.json().code, 'insufficient_scope');
        assert.match(forbidden.json().detail, /bookings:read/);

        const bad = await poll(ctx, 'not-a-uuid', owner.token);
        assert.equal(bad.statusCode, 400);
        assert.equal(bad.json().code, 'invalid_request');
        assert.ok((bad.json().errors as Array<{ pointer: string }>).some((e) => e.pointer === '/params/intentId'), bad.body);
      });

      it('reads expired exactly at expires_at, before any sweep', async () => {
        const expiresAt = Date.parse(created.expires_at);
        ctx.clock.set(expiresAt - 1);
        assert.equal((await poll(ctx, created.booking_intent_id, owner.token)).json().status, 'pending');
        ctx.clock.set(expiresAt);
        const res = await poll(ctx, created.booking_intent_id, owner.token);
        assert.equal(res.statusCode, 200);
        assert.equal(res.json().status, 'expired');
        assert.equal(res.json().confirmed_at, null);
        // Nothing was swept: the row is still pending, with no event.
        assert.equal((await intentRow(ctx.database, created.booking_intent_id))?.status, 'pending');
        assert.equal((await outboxOf(ctx.database, created.booking_intent_id)).length, 0);
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('the sweeper', () => {
      let ctx: TestContext;
      let lawyer: string;
      let key: CreatedTestKey;

      before(async () => {
        ctx = await createTestContext(target);
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
        key = await createKey(ctx);
      });
      after(() => ctx.close());

      it('expires due intents, releases their holds and records booking_intent.expired once (live keys only)', async () => {
        const make = async (start: string, options: { token?: string; remoteAddress?: string }) => {
          const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', start), options);
          assert.equal(res.statusCode, 201, res.body);
          return res.json().booking_intent_id as string;
        };
        const k1 = await make('09', { token: key.token });
        const k2 = await make('10', { token: key.token });
        const anon = await make('11', { remoteAddress: '198.51.100.8' });
        ctx.clock.set(T0 + 5 * MIN);
        const later = await make('12', { token: key.token });

        ctx.clock.set(T0 + TTL_MS - 1);
        assert.equal(await ctx.app.services.booking.expireDue(), 0, 'nothing due 1 ms early');

        ctx.clock.set(T0 + TTL_MS);
        assert.equal(await ctx.app.services.booking.expireDue(), 3);
        for (const id of [k1, k2, anon]) {
          const row = await intentRow(ctx.database, id);
          assert.equal(row?.status, 'expired');
          assert.equal(row?.expired_at, new Date(T0 + TTL_MS).toISOString());
        }
        assert.equal((await intentRow(ctx.database, later))?.status, 'pending');
        for (const start of ['09:00:00', '10:00:00', '11:00:00']) assert.deepEqual(await holdsOf(ctx.database, lawyer, '2026-11-24', start), []);
        assert.equal((await holdsOf(ctx.database, lawyer, '2026-11-24', '12:00:00')).length, 1);

        for (const [id, start] of [[k1, '09:00:00'], [k2, '10:00:00']] as const) {
          const events = await outboxOf(ctx.database, id);
          assert.equal(events.length, 1, `${id}: ${JSON.stringify(events)}`);
          const event = events[0]!;
          assert.equal(event.type, 'booking_intent.expired');
          assert.match(event.id, /^evt_[0-9a-f]{32}$/);
          assert.equal(event.created_at, new Date(T0 + TTL_MS).toISOString());
          assert.deepEqual(JSON.parse(event.data), {
            booking_intent_id: id,
            status: 'expired',
            lawyer_id: lawyer,
            slot: { date: '2026-11-24', start_time: start, end_time: `${String(Number(start.slice(0, 2)) + 1).padStart(2, '0')}:00:00` },
          });
        }
        assert.deepEqual(await outboxOf(ctx.database, anon), [], 'anonymous intents notify nobody');
        assert.equal(await countRows(ctx.database, 'outbox_events'), 2);

        // A second run changes nothing and writes no second event.
        assert.equal(await ctx.app.services.booking.expireDue(), 0);
        assert.equal(await countRows(ctx.database, 'outbox_events'), 2);
        assert.equal((await poll(ctx, k1, key.token)).json().status, 'expired');

        ctx.clock.set(T0 + 5 * MIN + TTL_MS);
        assert.equal(await ctx.app.services.booking.expireDue(), 1);
        assert.equal((await outboxOf(ctx.database, later)).length, 1);
        assert.equal(await ctx.app.services.booking.expireDue(), 0);
        assert.equal(await countRows(ctx.database, 'outbox_events'), 3);
        assert.equal(await countRows(ctx.database, 'slot_holds'), 0);
      });

      it('works through more due intents than one batch', async () => {
        const start = ctx.clock.now().getTime();
        const ids: string[] = [];
        for (const date of ['2026-11-25', '2026-11-26', '2026-11-27']) {
          for (const hour of ['09', '10', '11', '12', '13']) {
            const res = await initiate(ctx, slotBody(lawyer, date, hour), { token: key.token });
            assert.equal(res.statusCode, 201, res.body);
            ids.push(res.json().booking_intent_id);
          }
        }
        ctx.clock.set(start + TTL_MS);
        assert.equal(await ctx.app.services.booking.expireDue(4), 15);
        const rows = await ctx.database.db.selectFrom('booking_intents').select('status').where('id', 'in', ids).execute();
        assert.deepEqual([...new Set(rows.map((r) => r.status))], ['expired']);
        const events = await ctx.database.db.selectFrom('outbox_events').select('booking_intent_id').where('booking_intent_id', 'in', ids).execute();
        assert.equal(events.length, 15);
      });
    });

    // ---------------------------------------------------------------------------------------
    describe('confirmation', () => {
      let ctx: TestContext;
      let lawyer: string;
      let key: CreatedTestKey;
      let user: string;
      const totalBookings = async () =>
        (await ctx.database.db.selectFrom('lawyers').select('total_bookings').where('id', '=', lawyer).executeTakeFirstOrThrow()).total_bookings;

      before(async () => {
        ctx = await createTestContext(target);
        // total_bookings is the count of her consultation records (docs/reviews.md#aggregates): none yet.
        [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord()])) as [string];
        assert.equal(await totalBookings(), 0);
        key = await createKey(ctx);
        user = await createUser(ctx, 'maria@example.com');
      });
      after(() => ctx.close());

      it('confirms before expiry: booked for good, consultation recorded, total_bookings 0 → 1, one confirmed event', async () => {
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10'), { token: key.token });
        assert.equal(res.statusCode, 201);
        const { booking_intent_id: id, confirmation_url: url } = res.json() as { booking_intent_id: string; confirmation_url: string };
        const at = T0 + TTL_MS - 1;
        ctx.clock.set(at);

        const outcome = await ctx.app.services.booking.confirm(tokenOf(url), user);
        assert.equal(outcome.outcome, 'confirmed');
        assert.equal(outcome.intent.status, 'confirmed');
        assert.equal(outcome.intent.confirmed_at, new Date(at).toISOString());
        assert.equal(outcome.intent.confirmed_by_user_id, user);

        const holds = await holdsOf(ctx.database, lawyer, '2026-11-24', '10:00:00');
        assert.equal(holds.length, 1);
        assert.equal(holds[0]!.status, 'booked');
        assert.equal(holds[0]!.expires_at, null);
        assert.equal(holds[0]!.booking_intent_id, id);

        const consultations = await ctx.database.db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', id).execute();
        assert.equal(consultations.length, 1);
        assert.equal(consultations[0]!.user_id, user);
        assert.equal(consultations[0]!.lawyer_id, lawyer);
        assert.equal(consultations[0]!.slot_date, '2026-11-24');
        assert.equal(consultations[0]!.start_time, '10:00:00');
        assert.equal(await totalBookings(), 1);

        const events = await outboxOf(ctx.database, id);
        assert.equal(events.length, 1);
        assert.equal(events[0]!.type, 'booking_intent.confirmed');
        const data = JSON.parse(events[0]!.data) as Record<string, unknown>;
        assert.equal(data.booking_intent_id, id);
        assert.equal(data.status, 'confirmed');
        assert.equal(data.confirmed_at, new Date(at).toISOString());
        assert.equal(data.lawyer_id, lawyer);

        const polled = (await poll(ctx, id, key.token)).json();
        assert.equal(polled.status, 'confirmed');
        assert.equal(polled.confirmed_at, new Date(at).toISOString());

        // Again: already confirmed, nothing new.
        const again = await ctx.app.services.booking.confirm(tokenOf(url), user);
        assert.equal(again.outcome, 'already_confirmed');
        assert.equal((await outboxOf(ctx.database, id)).length, 1);
        assert.equal(await totalBookings(), 1);
        assert.equal(await countRows(ctx.database, 'consultations'), 1);

        // Past the TTL and after sweeps the slot stays booked and the intent confirmed.
        ctx.clock.set(T0 + 2 * TTL_MS);
        assert.equal(await ctx.app.services.booking.expireDue(), 0);
        assert.equal(await ctx.app.services.booking.expireDue(), 0);
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '10:00:00'), false);
        assert.equal((await holdsOf(ctx.database, lawyer, '2026-11-24', '10:00:00'))[0]?.status, 'booked');
        assert.equal((await poll(ctx, id, key.token)).json().status, 'confirmed');
        assert.deepEqual((await outboxOf(ctx.database, id)).map((e) => e.type), ['booking_intent.confirmed']);
        const retry = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10'), { token: key.token });
        assert.equal(retry.statusCode, 404);
      });

      it('refuses to confirm after expiry (even unswept): outcome expired, nothing booked, the slot free', async () => {
        const start = ctx.clock.now().getTime();
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '11'), { token: key.token });
        assert.equal(res.statusCode, 201);
        const { booking_intent_id: id, confirmation_url: url } = res.json() as { booking_intent_id: string; confirmation_url: string };
        const consultations = await countRows(ctx.database, 'consultations');
        ctx.clock.set(start + TTL_MS);

        const outcome = await ctx.app.services.booking.confirm(tokenOf(url), user);
        assert.equal(outcome.outcome, 'expired');
        assert.equal((await intentRow(ctx.database, id))?.status, 'expired');
        assert.equal((await intentRow(ctx.database, id))?.confirmed_at, null);
        assert.deepEqual(await holdsOf(ctx.database, lawyer, '2026-11-24', '11:00:00'), []);
        assert.equal(await countRows(ctx.database, 'consultations'), consultations);
        assert.equal(await totalBookings(), 1);
        assert.equal(await isAvailable(ctx, lawyer, '2026-11-24', '11:00:00'), true);
        assert.deepEqual((await outboxOf(ctx.database, id)).map((e) => e.type), ['booking_intent.expired']);
        // The sweeper does not record it again; a second confirmation is still refused.
        assert.equal(await ctx.app.services.booking.expireDue(), 0);
        assert.equal((await ctx.app.services.booking.confirm(tokenOf(url), user)).outcome, 'expired');
        assert.equal((await outboxOf(ctx.database, id)).length, 1);
        assert.equal((await poll(ctx, id, key.token)).json().status, 'expired');
      });

      it('confirms anonymous intents without an event', async () => {
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '12'), { remoteAddress: '198.51.100.12' });
        assert.equal(res.statusCode, 201);
        const outcome = await ctx.app.services.booking.confirm(tokenOf(res.json().confirmation_url), user);
        assert.equal(outcome.outcome, 'confirmed');
        assert.deepEqual(await outboxOf(ctx.database, res.json().booking_intent_id), []);
        assert.equal(await totalBookings(), 2);
      });

      it('shows the hold on the confirmation page, and shows it expired exactly when the API does (same clock)', async () => {
        const start = ctx.clock.now().getTime();
        const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '13'), { token: key.token });
        assert.equal(res.statusCode, 201);
        const { booking_intent_id: id, confirmation_url: url, expires_at: expiresAt } = res.json() as Record<string, string>;
        const page = async () => {
          const res = await ctx.app.fastify.inject({ url: new URL(url!).pathname, headers: { 'accept-language': 'en' } });
          return { statusCode: res.statusCode, headers: res.headers, body: res.body };
        };

        // Payable while more than 90 s are left: the countdown runs to the API's expires_at.
        ctx.clock.set(start + TTL_MS - 91_000);
        const held = await page();
        assert.equal(held.statusCode, 200);
        assert.equal(held.headers['x-robots-tag'], 'noindex');
        // The countdown starts from the seconds the server counts to expires_at (not the device's clock).
        assert.equal(Date.parse(expiresAt!) - ctx.clock.now().getTime(), 91_000);
        assert.match(held.body, /data-seconds="91"/);
        assert.match(held.body, /Sign in to confirm/);
        // Still held, but too little time is left to start a payment.
        ctx.clock.set(start + TTL_MS - 1);
        assert.match((await page()).body, /Less than 90 seconds of the hold are left/);
        assert.equal((await poll(ctx, id!, key.token)).json().status, 'pending');

        ctx.clock.set(start + TTL_MS);
        assert.equal((await poll(ctx, id!, key.token)).json().status, 'expired');
        const expired = await page();
        assert.equal(expired.statusCode, 200);
        assert.match(expired.body, /This hold has expired/, 'the API reads expired at expires_at; the page must agree');
      });

      it('rejects an unknown token with not_found', async () => {
        await assert.rejects(ctx.app.services.booking.confirm('A'.repeat(32), user), (err: unknown) => err instanceof DomainError && err.code === 'not_found');
      });
    });
  });
}
