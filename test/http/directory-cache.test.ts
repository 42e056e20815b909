/**
 * The directory's read cache (DirectoryCache + DirectoryService), with the refresh interval on:
 * answers are reused, yet never outlive the time at which they change (lead time, lapsed holds),
 * a change made by this process shows at once, and one made by another process shows on the next
 * refresh, including feed ids that commit out of order. On every database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp, type App } from '../../src/app.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { sweepLawyerChanges } from '../../src/domain/directory/reference.service.ts';
import { createUser, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const REFRESH_MS = 60_000;
const TTL_S = 90;
// Monday 2026-11-23 09:00 in Madrid. Slots 09:00–14:00 (60 min); lead time 2 h: 11:00 is the
// first bookable slot, and stays so through 08:00:00.000 UTC (its start minus the lead time).
const T0 = Date.parse('2026-11-23T08:00:00.000Z');
const TODAY = '2026-11-23';

interface Slot {
  start_time: string;
  available: boolean;
}

for (const target of databaseTargets()) {
  describe(`directory read cache (${target.name})`, () => {
    let ctx: TestContext;
    let other: { app: App; database: Database };
    let lawyer: string;
    let second: string;

    const get = (url: string, app: App = ctx.app) => app.fastify.inject({ url: `/api/v1${url}` });
    const slots = async (app: App = ctx.app) => {
      const res = await get(`/lawyers/${lawyer}/availability?start_date=${TODAY}&end_date=${TODAY}`, app);
      assert.equal(res.statusCode, 200, res.body);
      return Object.fromEntries((res.json().slots as Slot[]).map((s) => [s.start_time.slice(0, 5), s.available]));
    };
    const nextAvailable = async () => (await get(`/lawyers/${lawyer}`)).json().next_available as string | null;
    const inSearch = async () => {
      const body = (await get('/lawyers/search?city=madrid&limit=25')).json() as { lawyers: Array<{ id: string; next_available: string | null; total_bookings: number }> };
      return body.lawyers.find((l) => l.id === lawyer)!;
    };

    before(async () => {
      ctx = await createTestContext(target, { config: { directoryRefreshMs: REFRESH_MS, bookingIntentTtlSeconds: TTL_S }, now: new Date(T0).toISOString() });
      [lawyer, second] = (await insertLawyers(ctx.database, [lawyerRecord(), lawyerRecord({ name: 'Second Lawyer' })])) as [string, string];
      // "Another process": its own connection and its own cache, on the same database and clock.
      const database = openDatabase(ctx.url);
      other = { database, app: await buildApp({ config: ctx.config, database, clock: ctx.clock }) };
      await other.app.fastify.ready();
    });
    after(async () => {
      await other.app.fastify.close();
      await other.database.close();
      await ctx.close();
    });

    it('reuses answers, yet each changes exactly when a slot enters the lead time', async () => {
      assert.deepEqual(await slots(), { '09:00': false, '10:00': false, '11:00': true, '12:00': true, '13:00': true });
      assert.equal(await nextAvailable(), TODAY);
      ctx.clock.set(T0 + 1); // 11:00 is now less than 2 h away
      assert.deepEqual(await slots(), { '09:00': false, '10:00': false, '11:00': false, '12:00': true, '13:00': true });
      // The last slot of the day (13:00 = 12:00 UTC) is bookable through 10:00:00.000 UTC.
      ctx.clock.set(Date.parse('2026-11-23T10:00:00.000Z'));
      assert.equal(await nextAvailable(), TODAY);
      assert.equal((await inSearch()).next_available, TODAY);
      ctx.clock.set(Date.parse('2026-11-23T10:00:00.001Z'));
      assert.equal(await nextAvailable(), '2026-11-24');
      assert.equal((await inSearch()).next_available, '2026-11-24');
      ctx.clock.set(T0);
      assert.equal(await nextAvailable(), TODAY, 'a clock set back is not served answers computed for later');
    });

    it('shows a hold made by this process at once, and frees it when the hold lapses', async () => {
      ctx.clock.set(T0);
      assert.equal((await slots())['12:00'], true);
      const res = await initiate(ctx, slotBody(lawyer, TODAY, '12'), { remoteAddress: '198.51.100.20' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((await slots())['12:00'], false, 'no refresh is due: the cache was dropped by the hold itself');
      ctx.clock.set(T0 + REFRESH_MS + 1); // a refresh, so that none is due when the hold lapses
      assert.equal((await slots())['12:00'], false);
      ctx.clock.set(T0 + TTL_S * 1000 - 1);
      assert.equal((await slots())['12:00'], false);
      ctx.clock.set(T0 + TTL_S * 1000); // the hold lapses: free again, with no write anywhere
      assert.equal((await slots())['12:00'], true);
    });

    it('shows a hold made by another process on the next refresh', async () => {
      ctx.clock.set(T0 + 200_000);
      assert.equal((await slots())['13:00'], true);
      assert.equal((await slots(other.app))['13:00'], true);
      const res = await initiate({ ...ctx, app: other.app }, slotBody(lawyer, TODAY, '13'), { remoteAddress: '198.51.100.21' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((await slots(other.app))['13:00'], false, 'the process that held it knows at once');
      assert.equal((await slots())['13:00'], true, 'this process has not refreshed yet (DIRECTORY_REFRESH_MS)');
      ctx.clock.advance(REFRESH_MS);
      assert.equal((await slots())['13:00'], false, 'read from the lawyer change feed');
    });

    it('counts a confirmed booking at once in this process and on refresh in the other', async () => {
      ctx.clock.set(T0 + 400_000);
      const user = await createUser(ctx, 'cache@example.com');
      assert.equal((await get(`/lawyers/${lawyer}`, other.app)).json().total_bookings, 0);
      assert.equal((await inSearch()).total_bookings, 0);
      const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', '10'), { remoteAddress: '198.51.100.22' });
      assert.equal(res.statusCode, 201, res.body);
      const outcome = await ctx.app.services.booking.confirm(tokenOf(res.json().confirmation_url), user);
      assert.equal(outcome.outcome, 'confirmed');
      assert.equal((await get(`/lawyers/${lawyer}`)).json().total_bookings, 1);
      assert.equal((await inSearch()).total_bookings, 1);
      assert.equal((await get(`/lawyers/${lawyer}/reviews`)).json().total_bookings, 1);
      ctx.clock.advance(REFRESH_MS);
      assert.equal((await get(`/lawyers/${lawyer}`, other.app)).json().total_bookings, 1);
    });

    it('hands out a search answer again only while nothing in it can have changed', async () => {
      const search = async (app: App = ctx.app) => {
        const res = await get('/lawyers/search?city=madrid&limit=25', app);
        assert.equal(res.statusCode, 200, res.body);
        return res;
      };
      const find = async (app: App = ctx.app) => ((await search(app)).json() as { lawyers: Array<{ id: string; next_available: string | null; total_bookings: number }> }).lawyers.find((l) => l.id === lawyer)!;
      // The last slot of the day (13:00 = 12:00 UTC) is bookable through 10:00:00.000 UTC.
      ctx.clock.set(Date.parse('2026-11-23T10:00:00.001Z'));
      const first = await search();
      assert.equal((first.json().lawyers as Array<{ id: string; next_available: string }>).find((l) => l.id === lawyer)!.next_available, '2026-11-24');
      assert.equal((await search()).body, first.body, 'nothing changed: the same bytes');
      ctx.clock.set(Date.parse('2026-11-23T10:00:00.000Z'));
      assert.equal((await find()).next_available, TODAY, 'a clock set back is not served the answer computed for later');
      ctx.clock.set(Date.parse('2026-11-23T10:00:00.001Z'));
      assert.equal((await find()).next_available, '2026-11-24');

      // A booking confirmed by another process: this one shows it on its next refresh.
      const bookings = (await find()).total_bookings;
      assert.equal((await find(other.app)).total_bookings, bookings);
      const user = await createUser(ctx, 'search-cache@example.com');
      const res = await initiate({ ...ctx, app: other.app }, slotBody(lawyer, '2026-11-24', '11'), { remoteAddress: '198.51.100.23' });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((await other.app.services.booking.confirm(tokenOf(res.json().confirmation_url), user)).outcome, 'confirmed');
      assert.equal((await find(other.app)).total_bookings, bookings + 1, 'the process that booked shows it at once');
      assert.equal((await find()).total_bookings, bookings, 'this process has not refreshed yet (DIRECTORY_REFRESH_MS)');
      ctx.clock.advance(REFRESH_MS);
      assert.equal((await find()).total_bookings, bookings + 1, 'read from the lawyer change feed');
    });

    it('reads feed ids that become visible after higher ones (late commits)', async () => {
      ctx.clock.set(T0 + 600_000);
      const total = async () => (await get(`/lawyers/${second}`)).json().total_bookings as number;
      assert.equal(await total(), 0);
      const change = (id: number, lawyerId: string, bookings: number) =>
        ctx.database.db.transaction().execute(async (trx) => {
          await trx.updateTable('lawyers').set({ total_bookings: bookings }).where('id', '=', lawyerId).execute();
          await trx.insertInto('lawyer_changes').values({ id, lawyer_id: lawyerId, changed_at: ctx.clock.now().toISOString() }).execute();
        });
      // Id n + 2 commits first; n + 1 (taken earlier by a slower transaction) commits later.
      const { n } = (await ctx.database.db.selectFrom('lawyer_changes').select((eb) => eb.fn.max('id').as('n')).executeTakeFirstOrThrow()) as { n: number | string };
      const last = Number(n);
      await change(last + 2, lawyer, 12);
      ctx.clock.advance(REFRESH_MS);
      assert.equal((await get(`/lawyers/${lawyer}`)).json().total_bookings, 12);
      assert.equal(await total(), 0);
      await change(last + 1, second, 4);
      ctx.clock.advance(REFRESH_MS);
      assert.equal(await total(), 4, 'the skipped id was looked for again');
    });
  });

  describe(`lawyer change feed retention (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target, { now: new Date(T0).toISOString() });
    });
    after(() => ctx.close());

    it('sweeps feed entries older than an hour and keeps the rest', async () => {
      const at = (ms: number) => new Date(ms).toISOString();
      await ctx.database.db
        .insertInto('lawyer_changes')
        .values([
          { lawyer_id: 'old', changed_at: at(T0 - 3_600_001) },
          { lawyer_id: 'edge', changed_at: at(T0 - 3_600_000) },
          { lawyer_id: 'new', changed_at: at(T0 - 1) },
        ])
        .execute();
      assert.equal(await sweepLawyerChanges(ctx.database, ctx.clock), 1);
      const left = await ctx.database.db.selectFrom('lawyer_changes').select('lawyer_id').orderBy('lawyer_id').execute();
      assert.deepEqual(left.map((r) => r.lawyer_id), ['edge', 'new']);
    });
  });

  describe(`directory read cache memory budget (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target, { config: { directoryRefreshMs: REFRESH_MS, directoryCacheMb: 1 }, now: new Date(T0).toISOString() });
    });
    after(() => ctx.close());

    it('stays within DIRECTORY_CACHE_MB, dropping the oldest lawyers first', async () => {
      const ids = await insertLawyers(ctx.database, Array.from({ length: 40 }, (_, i) => lawyerRecord({ name: `Budget Lawyer ${i}` })));
      const cache = ctx.app.services.directoryCache;
      for (const id of ids) {
        const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${id}/availability` });
        assert.equal(res.statusCode, 200);
        assert.ok(cache.cachedBytes <= 1024 * 1024, `${cache.cachedBytes} bytes cached`);
      }
      assert.ok(cache.cachedBytes > 512 * 1024, 'the budget is used, not just respected');
      const bytes = cache.cachedBytes;
      await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${ids[39]}/availability` });
      assert.equal(cache.cachedBytes, bytes, 'the newest lawyer is still cached: a hit adds nothing');
    });
  });
}
