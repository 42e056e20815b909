import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertSlotHold } from '../../src/db/repositories/schedule.repository.ts';
import { databaseTargets } from '../support/databases.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

interface Slot {
  date: string;
  start_time: string;
  end_time: string;
  available: boolean;
  timezone: string;
  starts_at: string;
  ends_at: string;
}

const SPLIT_WEEK = [1, 2, 3, 4, 5].flatMap((weekday) => [
  { weekday, start_time: '09:00:00', end_time: '14:00:00', slot_minutes: 60 as const },
  { weekday, start_time: '16:00:00', end_time: '19:00:00', slot_minutes: 30 as const },
]);

for (const target of databaseTargets()) {
  describe(`lawyer profile, availability and reviews (${target.name})`, () => {
    let ctx: TestContext;
    let madrid: string;
    let canary: string;
    let unverified: string;
    let unlisted: string;
    let closedAll: string;
    let vacation: string;
    let closedHorizon: string;
    const get = (url: string) => ctx.app.fastify.inject({ url: `/api/v1${url}` });

    before(async () => {
      ctx = await createTestContext(target); // Monday 2026-11-23 09:00 Madrid (08:00 UTC)
      [madrid, canary, unverified, unlisted, closedAll, vacation, closedHorizon] = await insertLawyers(ctx.database, [
        lawyerRecord({
          name: 'Ana Martín',
          weekly_hours: SPLIT_WEEK,
          bar_memberships: [
            { bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: true },
            { bar_name: 'Ilustre Colegio de Abogados de Alcalá de Henares', verified: false },
          ],
          date_exceptions: [
            { date: '2026-11-25' },
            { date: '2026-11-28', start_time: '10:00:00', end_time: '12:00:00', slot_minutes: 30 },
          ],
          reviews: [
            { rating: 5, comment: 'Clear and quick.', date: '2026-11-01T10:00:00Z' },
            { rating: 3, comment: null, date: '2026-10-01T10:00:00Z' },
            { rating: 4, comment: 'Old review without a date', date: null },
            { rating: 1, comment: 'Not a verified client', date: '2026-11-10T10:00:00Z', verified_client: false },
            { rating: 2, comment: 'Most recent', date: '2026-11-20T10:00:00Z' },
          ],
        }),
        lawyerRecord({ name: 'Carmen Hernández', city: 'las-palmas-de-gran-canaria', bar_memberships: [{ bar_name: 'Ilustre Colegio de la Abogacía de Las Palmas', verified: true }] }),
        lawyerRecord({ name: 'Not Verified', verified: false }),
        lawyerRecord({ name: 'Not Listed', listed: false }),
        lawyerRecord({ name: 'No Hours', weekly_hours: [] }),
        lawyerRecord({
          name: 'On Vacation',
          date_exceptions: ['2026-11-23', '2026-11-24', '2026-11-25', '2026-11-26', '2026-11-27'].map((date) => ({ date })),
        }),
        lawyerRecord({
          name: 'Closed Horizon',
          // Closed every day of the 90-day horizon (and a little more).
          date_exceptions: Array.from({ length: 93 }, (_, i) => ({ date: new Date(Date.UTC(2026, 10, 23 + i)).toISOString().slice(0, 10) })),
        }),
      ]) as [string, string, string, string, string, string, string];
    });
    after(() => ctx.close());

    describe('GET /lawyers/{id}', () => {
      it('returns the profile: summary fields, fenced bio, bar memberships, time zone', async () => {
        const res = await get(`/lawyers/${madrid}`);
        assert.equal(res.statusCode, 200);
        const p = res.json();
        assert.equal(p.id, madrid);
        assert.equal(p.name, 'Ana Martín');
        assert.equal(p.city, 'Madrid');
        assert.equal(p.timezone, 'Europe/Madrid');
        assert.equal(p.currency, 'EUR');
        assert.equal(p.average_rating, 3.5); // verified-client reviews only: 5, 3, 4, 2
        assert.match(p.bio, /^\[BEGIN UNTRUSTED TEXT id=[0-9a-f]{16} source=lawyer_bio; /);
        assert.match(p.bio, /\nImmigration lawyer in Madrid with ten years of experience\.\n\[END UNTRUSTED TEXT id=[0-9a-f]{16}\]$/);
        assert.deepEqual(p.bar_memberships, [
          { bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: true },
          { bar_name: 'Ilustre Colegio de Abogados de Alcalá de Henares', verified: false },
        ]);
      });

      // Without weekly hours a profile is incomplete: the listing rule (docs/lawyers.md) keeps her out.
      for (const [label, id] of [['unverified', () => unverified], ['unlisted', () => unlisted], ['hour-less', () => closedAll], ['unknown', () => randomUUID()]] as const) {
        it(`answers 404 not_found for an ${label} lawyer`, async () => {
          for (const path of ['', '/availability', '/reviews']) {
            const res = await get(`/lawyers/${id()}${path}`);
            assert.equal(res.statusCode, 404, path);
            assert.equal(res.json().code, 'not_found');
            assert.match(String(res.headers['content-type']), /^application\/problem\+json/);
          }
        });
      }

      it('answers 400 for a malformed id, on every lawyer route', async () => {
        for (const path of ['', '/availability', '/reviews']) {
          const res = await get(`/lawyers/123${path}`);
          assert.equal(res.statusCode, 400);
          assert.deepEqual(res.json().errors, [{ pointer: '/params/lawyerId', detail: 'must be a UUID' }]);
        }
      });

      it('gives next_available; null when closed for the whole horizon; after a closed week for a vacation', async () => {
        assert.equal((await get(`/lawyers/${madrid}`)).json().next_available, '2026-11-23');
        assert.equal((await get(`/lawyers/${closedHorizon}`)).json().next_available, null);
        assert.equal((await get(`/lawyers/${vacation}`)).json().next_available, '2026-11-30');
      });
    });

    describe('GET /lawyers/{id}/availability', () => {
      it('defaults to 14 days from today in the lawyer\'s zone, with all fields', async () => {
        const res = await get(`/lawyers/${madrid}/availability`);
        assert.equal(res.statusCode, 200);
        const a = res.json();
        assert.equal(a.lawyer_id, madrid);
        assert.equal(a.lawyer_name, 'Ana Martín');
        assert.equal(a.consultation_fee_cents, 6000);
        assert.equal(a.currency, 'EUR');
        assert.equal(a.platform_commission_percent, 12);
        assert.equal(a.start_date, '2026-11-23');
        assert.equal(a.end_date, '2026-12-06');
        assert.equal(a.booking_url, `http://consulta.test/lawyers/${madrid}/book`);
        assert.equal(a.profile_url, `http://consulta.test/lawyers/${madrid}`);
        const dates = new Set((a.slots as Slot[]).map((s) => s.date));
        assert.ok([...dates].every((d) => d >= '2026-11-23' && d <= '2026-12-06'));
      });

      it('generates split-schedule slots of her length (not the rows\' slot_minutes), sorted, with zone and offsets', async () => {
        const a = (await get(`/lawyers/${madrid}/availability?start_date=2026-11-24&end_date=2026-11-24`)).json();
        assert.equal(a.consultation_minutes, 60);
        const slots = a.slots as Slot[];
        assert.deepEqual(slots.map((s) => s.start_time), ['09:00:00', '10:00:00', '11:00:00', '12:00:00', '13:00:00', '16:00:00', '17:00:00', '18:00:00']);
        assert.equal(slots[0]!.end_time, '10:00:00');
        assert.equal(slots[5]!.end_time, '17:00:00');
        assert.equal(slots[0]!.timezone, 'Europe/Madrid');
        assert.equal(slots[0]!.starts_at, '2026-11-24T09:00:00+01:00');
        assert.equal(slots[0]!.ends_at, '2026-11-24T10:00:00+01:00');
        assert.ok(slots.every((s) => s.available));
      });

      it('marks slots within the two-hour lead time as unavailable', async () => {
        const slots = (await get(`/lawyers/${madrid}/availability?end_date=2026-11-23`)).json().slots as Slot[];
        const byTime = Object.fromEntries(slots.map((s) => [s.start_time, s.available]));
        assert.equal(byTime['09:00:00'], false);
        assert.equal(byTime['10:00:00'], false);
        assert.equal(byTime['11:00:00'], true); // exactly now + 2 h
        assert.equal(byTime['16:00:00'], true);
      });

      it('honours closed days and custom-hours days', async () => {
        const slots = (await get(`/lawyers/${madrid}/availability?start_date=2026-11-25&end_date=2026-11-28`)).json().slots as Slot[];
        assert.equal(slots.filter((s) => s.date === '2026-11-25').length, 0);
        assert.deepEqual(slots.filter((s) => s.date === '2026-11-28').map((s) => s.start_time), ['10:00:00', '11:00:00']);
        assert.ok(slots.some((s) => s.date === '2026-11-26'));
      });

      it('uses Atlantic/Canary time for Canary Islands lawyers', async () => {
        const a = (await get(`/lawyers/${canary}/availability?start_date=2026-11-24&end_date=2026-11-24`)).json();
        assert.equal(a.timezone, 'Atlantic/Canary');
        assert.equal(a.slots[0].starts_at, '2026-11-24T09:00:00+00:00');
      });

      it('subtracts held and booked slots, ignores expired holds, and moves next_available', async () => {
        const now = ctx.clock.now().getTime();
        const base = { lawyer_id: madrid, booking_intent_id: null, created_at: new Date(now).toISOString() };
        await insertSlotHold(ctx.database.db, { ...base, slot_date: '2026-11-26', start_time: '09:00:00', end_time: '10:00:00', status: 'held', expires_at: new Date(now + 900_000).toISOString() });
        await insertSlotHold(ctx.database.db, { ...base, slot_date: '2026-11-26', start_time: '10:00:00', end_time: '11:00:00', status: 'booked', expires_at: null });
        await insertSlotHold(ctx.database.db, { ...base, slot_date: '2026-11-26', start_time: '11:00:00', end_time: '12:00:00', status: 'held', expires_at: new Date(now - 1000).toISOString() });
        const slots = (await get(`/lawyers/${madrid}/availability?start_date=2026-11-26&end_date=2026-11-26`)).json().slots as Slot[];
        const byTime = Object.fromEntries(slots.map((s) => [s.start_time, s.available]));
        assert.equal(byTime['09:00:00'], false, 'held by a pending intent');
        assert.equal(byTime['10:00:00'], false, 'booked');
        assert.equal(byTime['11:00:00'], true, 'expired hold releases the slot');

        // Fill every remaining bookable slot of today: next_available moves to tomorrow.
        const today = (await get(`/lawyers/${madrid}/availability?end_date=2026-11-23`)).json().slots as Slot[];
        for (const s of today.filter((x) => x.available)) {
          await insertSlotHold(ctx.database.db, { ...base, slot_date: s.date, start_time: s.start_time, end_time: s.end_time, status: 'booked', expires_at: null });
        }
        assert.equal((await get(`/lawyers/${madrid}`)).json().next_available, '2026-11-24');
        const search = (await get('/lawyers/search?city=madrid&limit=25')).json();
        assert.equal(search.lawyers.find((l: { id: string }) => l.id === madrid).next_available, '2026-11-24');
      });

      it('moves with the clock: tomorrow becomes today', async () => {
        ctx.clock.set('2026-11-24T18:10:00Z'); // 19:10 in Madrid, after the last slot
        try {
          const a = (await get(`/lawyers/${madrid}/availability`)).json();
          assert.equal(a.start_date, '2026-11-24');
          assert.ok((a.slots as Slot[]).filter((s) => s.date === '2026-11-24').every((s) => !s.available));
          assert.equal((await get(`/lawyers/${madrid}`)).json().next_available, '2026-11-26');
        } finally {
          ctx.clock.set('2026-11-23T08:00:00Z');
        }
      });

      const bad: Array<[string, string, RegExp]> = [
        ['?start_date=2026-11-30&end_date=2026-11-29', '/query/end_date', /before start_date/],
        ['?start_date=2026-11-23&end_date=2026-12-07', '/query/end_date', /at most 14 days.*2026-12-06/],
        ['?start_date=2026-11-22', '/query/start_date', /past.*2026-11-23.*Europe\/Madrid/],
        ['?start_date=2026-02-30', '/query/start_date', /YYYY-MM-DD/],
        ['?start_date=23-11-2026', '/query/start_date', /YYYY-MM-DD/],
        ['?end_date=tomorrow', '/query/end_date', /YYYY-MM-DD/],
        ['?days=3', '/query/days', /not a known parameter/],
      ];
      for (const [qs, pointer, detail] of bad) {
        it(`rejects ${qs}`, async () => {
          const res = await get(`/lawyers/${madrid}/availability${qs}`);
          assert.equal(res.statusCode, 400);
          const e = (res.json().errors as Array<{ pointer: string; detail: string }>).find((x) => x.pointer === pointer);
          assert.ok(e, JSON.stringify(res.json()));
          assert.match(e.detail, detail);
        });
      }

      it('accepts exactly 14 days', async () => {
        const res = await get(`/lawyers/${madrid}/availability?start_date=2026-11-23&end_date=2026-12-06`);
        assert.equal(res.statusCode, 200);
      });
    });

    describe('GET /lawyers/{id}/reviews', () => {
      it('returns verified-client reviews, most recent first, undated last, comments fenced', async () => {
        const res = await get(`/lawyers/${madrid}/reviews`);
        assert.equal(res.statusCode, 200);
        const r = res.json();
        assert.equal(r.lawyer_id, madrid);
        assert.equal(r.lawyer_name, 'Ana Martín');
        assert.equal(r.average_rating, 3.5);
        assert.equal(r.total_bookings, 4, 'computed: her four imported verified-client reviews, no consultation here yet');
        assert.equal(r.total_reviews, 4);
        assert.deepEqual(r.reviews.map((x: { rating: number }) => x.rating), [2, 5, 3, 4]);
        assert.equal(r.reviews[0].date, '2026-11-20T10:00:00.000Z');
        assert.equal(r.reviews[2].comment, null);
        assert.equal(r.reviews[3].date, null);
        assert.match(r.reviews[0].comment, /^\[BEGIN UNTRUSTED TEXT id=[0-9a-f]{16} source=review_comment; [^\n]*\]\nMost recent\n\[END UNTRUSTED TEXT id=[0-9a-f]{16}\]$/);
        assert.ok(!JSON.stringify(r).includes('Not a verified client'));
      });

      it('honours limit and rejects a bad one', async () => {
        assert.equal((await get(`/lawyers/${madrid}/reviews?limit=2`)).json().reviews.length, 2);
        for (const limit of ['0', '26', 'x']) {
          const res = await get(`/lawyers/${madrid}/reviews?limit=${limit}`);
          assert.equal(res.statusCode, 400);
          assert.equal(res.json().errors[0].pointer, '/query/limit');
        }
      });

      it('returns an empty list and a null rating for a lawyer without reviews', async () => {
        const r = (await get(`/lawyers/${canary}/reviews`)).json();
        assert.deepEqual(r.reviews, []);
        assert.equal(r.average_rating, null);
      });
    });
  });
}
