/**
 * A lawyer's own calendar feed (issue 18 item 4; docs/lawyers.md#busy-times-from-her-own-calendar),
 * on both databases, against a real HTTP server on loopback serving .ics files written the way
 * Google, Outlook and Apple write them: what is stored (intervals only, expanded over her
 * horizon, across a DST change, overrides, exclusions, transparent and cancelled events left out,
 * Windows zone names, floating and all-day events), failures that keep the last good intervals
 * and record why, conditional GET, two processes claiming the same due feed, "refresh now" once a
 * minute, and the SSRF attacks (private, loopback and metadata addresses, DNS rebinding, a
 * redirect to the metadata address) refused outside the test affordance.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, afterEach, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { listBusyIntervals } from '../../src/db/repositories/calendar-feed.repository.ts';
import { addressHint, CalendarFeedService, FeedAddressError, FeedNotAllowedError, type CalendarFeedDeps } from '../../src/domain/calendar-feed/calendar-feed.service.ts';
import { busyIntervalsFromIcs, IcsRefusedError } from '../../src/domain/calendar-feed/ics-busy.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const FIXTURES = new URL('./fixtures/calendar-feed/', import.meta.url);
const fixture = (name: string) => fs.readFileSync(new URL(name, FIXTURES), 'utf8');
const TLS_FIXTURES = new URL('../webhooks/fixtures/', import.meta.url);

/** Monday 15 March 2027, 09:00 in Madrid: two weeks before the change to summer time (28 March). */
const NOW = '2027-03-15T08:00:00.000Z';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface FeedServer {
  url: string;
  port: number;
  hits: Map<string, number>;
  requests: http.IncomingMessage[];
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** A real calendar server on 127.0.0.1 (HTTPS when given a key and certificate). */
async function startFeedServer(tls?: { key: string; cert: string }): Promise<FeedServer> {
  const routes = new Map<string, Handler>();
  const hits = new Map<string, number>();
  const requests: http.IncomingMessage[] = [];
  const handler: Handler = (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    requests.push(req);
    const h = routes.get(path);
    if (!h) {
      res.writeHead(404).end();
      return;
    }
    h(req, res);
  };
  const server = tls ? https.createServer({ key: tls.key, cert: tls.cert }, handler) : http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    port,
    hits,
    requests,
    route: (path, h) => routes.set(path, h),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const ics = (body: string, headers: Record<string, string> = {}): Handler => (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8', ...headers }).end(body);
};

const Z = (iso: string) => `${iso}.000Z`;

describe('iCalendar expansion (pure)', () => {
  const window = { fromMs: Date.parse(NOW), toMs: Date.parse(NOW) + 90 * 86_400_000, defaultZone: 'Europe/Madrid', cap: 5000 };
  it('reads Windows zone names and IANA names a feed does not define, and her own zone for a made-up one', () => {
    // 12:00 on 16 March 2027 (winter time): 11:00 UTC in Madrid, 16:00 UTC in her own (here New York, EDT).
    const at = (tzid: string) => {
      const text = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:z', `DTSTART;TZID=${tzid}:20270316T120000`, 'DURATION:PT1H', 'END:VEVENT', 'END:VCALENDAR'].join('\r\n');
      return new Date(busyIntervalsFromIcs(text, { ...window, defaultZone: 'America/New_York' }).intervals[0]!.start).toISOString();
    };
    assert.equal(at('Romance Standard Time'), Z('2027-03-16T11:00:00'));
    assert.equal(at('Europe/Madrid'), Z('2027-03-16T11:00:00'));
    assert.equal(at('/mozilla.org/20050126_1/Europe/Madrid'), Z('2027-03-16T11:00:00'));
    assert.equal(at('Mars Standard Time'), Z('2027-03-16T16:00:00'));
  });
  it('refuses what is not a calendar', () => {
    assert.throws(() => busyIntervalsFromIcs('<!doctype html><title>Sign in</title>', window), /VCALENDAR/);
    assert.throws(() => busyIntervalsFromIcs('BEGIN:VCALENDAR\nthis is not\n', window), /unreadable|VCALENDAR/);
  });
  it('caps the number of intervals (the earliest kept) and says so', () => {
    const many = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'BEGIN:VEVENT', 'UID:daily', 'DTSTART:20270315T100000Z', 'DTEND:20270315T101500Z', 'RRULE:FREQ=HOURLY', 'END:VEVENT', 'END:VCALENDAR'].join('\r\n');
    const r = busyIntervalsFromIcs(many, { ...window, cap: 50 });
    assert.equal(r.intervals.length, 50);
    assert.equal(r.truncated, true);
    assert.equal(new Date(r.intervals[0]!.start).toISOString(), '2027-03-15T10:00:00.000Z');
  });
  it('merges overlapping and touching events into one busy interval', () => {
    const text = [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      ...['a:20270316T090000Z:20270316T100000Z', 'b:20270316T093000Z:20270316T103000Z', 'c:20270316T103000Z:20270316T110000Z', 'd:20270316T120000Z:20270316T130000Z'].flatMap((x) => {
        const [uid, s, e] = x.split(':');
        return ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART:${s}`, `DTEND:${e}`, 'END:VEVENT'];
      }),
      'END:VCALENDAR',
    ].join('\r\n');
    const r = busyIntervalsFromIcs(text, window);
    assert.deepEqual(
      r.intervals.map((i) => [new Date(i.start).toISOString(), new Date(i.end).toISOString()]),
      [
        [Z('2027-03-16T09:00:00'), Z('2027-03-16T11:00:00')],
        [Z('2027-03-16T12:00:00'), Z('2027-03-16T13:00:00')],
      ],
    );
  });
});

/** A calendar of VEVENTs, each given as its property lines. */
const calendar = (events: string[][]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flatMap((e) => ['BEGIN:VEVENT', ...e, 'END:VEVENT']), 'END:VCALENDAR'].join('\r\n');
/** Issue 25's feed: 40 events repeating every second since 2000, about 4 KB. */
const HOSTILE = calendar(Array.from({ length: 40 }, (_, i) => [`UID:flood-${i}@example.com`, 'DTSTART:20000101T000000Z', 'RRULE:FREQ=SECONDLY']));

describe('iCalendar expansion is bounded (issue 25)', () => {
  const window = { fromMs: Date.parse(NOW), toMs: Date.parse(NOW) + 90 * 86_400_000, defaultZone: 'Europe/Madrid', cap: 5000 };
  const refusal = (text: string, options: Partial<Parameters<typeof busyIntervalsFromIcs>[1]> = {}) => {
    try {
      busyIntervalsFromIcs(text, { ...window, ...options });
    } catch (err) {
      if (err instanceof IcsRefusedError) return { code: err.code, message: err.message };
      throw err;
    }
    return null;
  };

  it('one budget for the whole feed counts every occurrence walked, kept or not: events repeating every second are refused as too complex', () => {
    assert.ok(HOSTILE.length < 4300, `${HOSTILE.length} bytes`);
    // Three such events and a budget of 2,000 steps: refused after 2,000 steps, not 3 × 20,000.
    const three = calendar(Array.from({ length: 3 }, (_, i) => [`UID:s${i}`, 'DTSTART:20000101T000000Z', 'RRULE:FREQ=SECONDLY']));
    assert.deepEqual(refusal(three, { budget: 2_000 }), { code: 'too_complex', message: 'it needs more than 2000 steps (events and their repetitions) to read the next 90 days' });
    // The events themselves count: 3 single events within a budget of 2 are refused too.
    const singles = calendar(Array.from({ length: 3 }, (_, i) => [`UID:one${i}`, 'DTSTART:20270316T090000Z', 'DTEND:20270316T100000Z']));
    assert.equal(refusal(singles, { budget: 2 })?.code, 'too_complex');
    assert.equal(refusal(singles, { budget: 3 }), null);
  });

  it('more events than the cap are refused before they are parsed', () => {
    const many = calendar(Array.from({ length: 11 }, (_, i) => [`UID:m${i}`, 'DTSTART:20270316T090000Z', 'DTEND:20270316T100000Z']));
    assert.deepEqual(refusal(many, { maxEvents: 10 }), { code: 'too_many_events', message: '11 events (at most 10 are read)' });
    assert.equal(refusal(many, { maxEvents: 11 }), null);
  });

  it('a rule begun long ago is walked from just before the window, not from its start, with the same occurrences', () => {
    const rules: Array<[string, string[]]> = [
      ['weekly since 2000', ['DTSTART:20000103T090000Z', 'DTEND:20000103T100000Z', 'RRULE:FREQ=WEEKLY']],
      ['every other week, Monday and Thursday, in Madrid (across the change to summer time)', ['DTSTART;TZID=Europe/Madrid:20000103T090000', 'DTEND;TZID=Europe/Madrid:20000103T093000', 'RRULE:FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH']],
      ['every third day, floating', ['DTSTART:20010207T170000', 'DURATION:PT45M', 'RRULE:FREQ=DAILY;INTERVAL=3']],
      ['every 7 hours since 2025', ['DTSTART:20250101T010000Z', 'DURATION:PT1H', 'RRULE:FREQ=HOURLY;INTERVAL=7']],
      ['every 95 minutes since 2026, in office hours', ['DTSTART:20260101T000000Z', 'DURATION:PT20M', 'RRULE:FREQ=MINUTELY;INTERVAL=95;BYHOUR=9,10,11,12']],
      ['the second Tuesday of the month since 2002', ['DTSTART;TZID=Europe/Madrid:20020108T160000', 'DURATION:PT2H', 'RRULE:FREQ=MONTHLY;BYDAY=2TU']],
      ['the 31st, every other month, since 2001', ['DTSTART:20010131T080000Z', 'DURATION:PT1H', 'RRULE:FREQ=MONTHLY;INTERVAL=2']],
      ['all day every 29 February since 2000', ['DTSTART;VALUE=DATE:20000229', 'RRULE:FREQ=YEARLY']],
      ['yearly on 20 March since 1990', ['DTSTART:19900320T120000Z', 'DURATION:PT3H', 'RRULE:FREQ=YEARLY']],
    ];
    for (const [name, lines] of rules) {
      const forward = busyIntervalsFromIcs(calendar([['UID:r', ...lines]]), { ...window, toMs: window.fromMs + 366 * 86_400_000 });
      // COUNT makes it walk from DTSTART (COUNT counts from there): the reference.
      const counted = lines.map((l) => (l.startsWith('RRULE:') ? `${l};COUNT=1000000` : l));
      const walked = busyIntervalsFromIcs(calendar([['UID:r', ...counted]]), { ...window, toMs: window.fromMs + 366 * 86_400_000, budget: 1_000_000 });
      assert.deepEqual(forward.intervals, walked.intervals, name);
      assert.ok(forward.intervals.length > 0, name);
      assert.ok(forward.work < walked.work, `${name}: ${forward.work} steps from the window, ${walked.work} from DTSTART`);
      assert.ok(forward.work <= forward.intervals.length + 60, `${name}: ${forward.work} steps for ${forward.intervals.length} intervals`);
    }
  });

  it('an override of an occurrence before where the walk starts, moved into the window, still counts; a cancelled one in the window frees it', () => {
    const text = calendar([
      ['UID:w', 'DTSTART:20100104T090000Z', 'DTEND:20100104T100000Z', 'RRULE:FREQ=WEEKLY'],
      ['UID:w', 'RECURRENCE-ID:20100111T090000Z', 'DTSTART:20270317T150000Z', 'DTEND:20270317T160000Z'],
      ['UID:w', 'RECURRENCE-ID:20270322T090000Z', 'DTSTART:20270322T090000Z', 'DTEND:20270322T100000Z', 'STATUS:CANCELLED'],
    ]);
    const r = busyIntervalsFromIcs(text, { ...window, toMs: Date.parse('2027-03-30T00:00:00Z') });
    assert.deepEqual(
      r.intervals.map((i) => new Date(i.start).toISOString()),
      [Z('2027-03-15T09:00:00'), Z('2027-03-17T15:00:00'), Z('2027-03-29T09:00:00')],
    );
  });
});

for (const target of databaseTargets()) {
  describe(`calendar feed (${target.name})`, () => {
    let t: TestDatabase;
    let server: FeedServer;
    let clock: ManualClock;
    const services: CalendarFeedService[] = [];
    const extraDatabases: Database[] = [];
    /** Two fresh lawyers per test: each test's feeds, limits and intervals are its own. */
    const twoLawyers = async (): Promise<[string, string]> => {
      const [a, b] = await insertLawyers(t.database, [lawyerRecord({ name: 'Ana Google' }), lawyerRecord({ name: 'Berta Outlook' })], new Date(NOW));
      return [a!, b!];
    };

    const service = (overrides: Partial<CalendarFeedDeps> = {}, database: Database = t.database) => {
      const s = new CalendarFeedService({ database, clock, allowInsecureTargets: true, timeoutMs: 1_000, ...overrides });
      services.push(s);
      return s;
    };
    const stored = async (lawyerId: string) => (await listBusyIntervals(t.database.db, lawyerId)).map((r) => [r.starts_at, r.ends_at] as const);
    const feedRow = (lawyerId: string) => t.database.db.selectFrom('lawyer_calendar_feeds').selectAll().where('lawyer_id', '=', lawyerId).executeTakeFirstOrThrow();
    /** Only this test's feeds are due: the jobs runner's pass is asserted exactly. */
    const forgetOtherFeeds = () => t.database.db.deleteFrom('lawyer_calendar_feeds').execute();
    const changes = async (lawyerId: string) => (await t.database.db.selectFrom('lawyer_changes').select('id').where('lawyer_id', '=', lawyerId).execute()).length;

    before(async () => {
      t = await target.create();
      server = await startFeedServer();
      server.route('/google.ics', ics(fixture('google.ics')));
      server.route('/outlook.ics', ics(fixture('outlook.ics')));
      server.route('/apple.ics', ics(fixture('apple.ics')));
    });
    afterEach(async () => {
      await Promise.all(services.splice(0).map((s) => s.close()));
    });
    after(async () => {
      await server.close();
      for (const d of extraDatabases) await d.close();
      await t.drop();
    });

    it('Google: a weekly meeting in Europe/Madrid, expanded across the change to summer time, with its EXDATE, a moved occurrence and a cancelled one; transparent and cancelled events are not busy; nothing but instants is stored', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA] = await twoLawyers();
      const feeds = service();
      const before = await changes(lawyerA);
      const { status, read } = await feeds.set(lawyerA, `${server.url}/google.ics?token=private-5ecret-a1b2`);
      assert.deepEqual(read, { outcome: 'stored', intervals: 11, truncated: false });
      const rows = await stored(lawyerA);
      assert.deepEqual(rows.slice(0, 5), [
        // 10:00 CET is 09:00 UTC …
        [Z('2027-03-15T09:00:00'), Z('2027-03-15T10:30:00')],
        // a one-off meeting in UTC
        [Z('2027-03-18T15:00:00'), Z('2027-03-18T16:30:00')],
        // … 22 March is excluded (EXDATE); after 28 March 10:00 CEST is 08:00 UTC
        [Z('2027-03-29T08:00:00'), Z('2027-03-29T09:30:00')],
        // 5 April moved to 16:00–17:00 CEST (RECURRENCE-ID override)
        [Z('2027-04-05T14:00:00'), Z('2027-04-05T15:00:00')],
        // 12 April cancelled (STATUS:CANCELLED override)
        [Z('2027-04-19T08:00:00'), Z('2027-04-19T09:30:00')],
      ]);
      assert.equal(rows.length, 11);
      assert.deepEqual(rows.at(-1), [Z('2027-05-31T08:00:00'), Z('2027-05-31T09:30:00')], 'UNTIL includes the last Monday');
      // Transparent (San José, 19 March) and cancelled (17 March) events are not busy.
      assert.ok(!rows.some(([s]) => s.startsWith('2027-03-17') || s.startsWith('2027-03-18T23') || s.startsWith('2027-03-19')));
      // Intervals only: no title, description, place or attendee anywhere in what was stored.
      const everything = JSON.stringify([await t.database.db.selectFrom('lawyer_busy_intervals').selectAll().execute(), await feedRow(lawyerA)]);
      for (const secret of ['Fatima', 'Juzgado', 'Gran V', 'fatima@example.com']) assert.ok(!everything.includes(secret), secret);
      // The source and the lawyer change, in the same transaction (availability follows within a second).
      assert.ok((await listBusyIntervals(t.database.db, lawyerA)).every((r) => r.source === 'ical'));
      assert.ok((await changes(lawyerA)) > before);
      // The status never shows the address: its host and last characters only.
      const row = await feedRow(lawyerA);
      assert.equal(row.busy_count, 11);
      assert.equal(row.last_success_at, NOW);
      assert.equal(row.last_error_code, null);
      assert.equal(status?.hint, `127.0.0.1:${server.port} … a1b2`);
      assert.ok(!JSON.stringify(status).includes('5ecret'));
    });

    it('Outlook: a Windows zone defined by the feed ("Romance Standard Time") and one it does not define, across the DST change; a free (transparent) event ignored', async () => {
      clock = new ManualClock(NOW);
      const [, lawyerB] = await twoLawyers();
      const { read } = await service().set(lawyerB, `${server.url}/outlook.ics`);
      assert.equal(read?.outcome, 'stored');
      assert.deepEqual(await stored(lawyerB), [
        [Z('2027-03-17T08:00:00'), Z('2027-03-17T10:00:00')],
        [Z('2027-03-24T08:00:00'), Z('2027-03-24T10:00:00')],
        // W. Europe Standard Time without a VTIMEZONE: read as Europe/Berlin (CET, UTC+1).
        [Z('2027-03-25T17:00:00'), Z('2027-03-25T19:00:00')],
        // From 31 March, 09:00 Madrid summer time is 07:00 UTC.
        [Z('2027-03-31T07:00:00'), Z('2027-03-31T09:00:00')],
        [Z('2027-04-07T07:00:00'), Z('2027-04-07T09:00:00')],
        [Z('2027-04-14T07:00:00'), Z('2027-04-14T09:00:00')],
        [Z('2027-04-21T07:00:00'), Z('2027-04-21T09:00:00')],
        [Z('2027-04-28T07:00:00'), Z('2027-04-28T09:00:00')],
      ]);
    });

    it('Apple: all-day events (with and without DTEND) and floating times are her own zone\'s days and hours; overlapping events merged; transparent ignored', async () => {
      clock = new ManualClock(NOW);
      const [, lawyerB] = await twoLawyers();
      const { read } = await service().set(lawyerB, `${server.url}/apple.ics`);
      assert.equal(read?.outcome, 'stored');
      assert.deepEqual(await stored(lawyerB), [
        // 12:00–13:00 floating (CEST) and 12:50 + 30 min: one interval.
        [Z('2027-04-01T10:00:00'), Z('2027-04-01T11:20:00')],
        // Good Friday, all day in Madrid.
        [Z('2027-04-01T22:00:00'), Z('2027-04-02T22:00:00')],
        [Z('2027-05-09T22:00:00'), Z('2027-05-10T22:00:00')],
      ]);
      assert.equal((await feedRow(lawyerB)).busy_count, 3);
    });

    it('expands only over her horizon (lawyers.horizon_days)', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA] = await twoLawyers();
      await t.database.db.updateTable('lawyers').set({ horizon_days: 14 }).where('id', '=', lawyerA).execute();
      try {
        await service().set(lawyerA, `${server.url}/google.ics?token=private-5ecret-a1b2`);
        assert.deepEqual(await stored(lawyerA), [
          [Z('2027-03-15T09:00:00'), Z('2027-03-15T10:30:00')],
          [Z('2027-03-18T15:00:00'), Z('2027-03-18T16:30:00')],
        ]);
      } finally {
        await t.database.db.updateTable('lawyers').set({ horizon_days: 90 }).where('id', '=', lawyerA).execute();
      }
    });

    it('a failing read (500, timeout, garbage, too large) keeps the last good intervals and records the error', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA] = await twoLawyers();
      await forgetOtherFeeds();
      type Mode = 'good' | '500' | 'slow' | 'garbage' | 'huge';
      let mode = 'good' as Mode;
      server.route('/flaky.ics', (_req, res) => {
        if (mode === 'good') return ics(fixture('google.ics'))(_req, res);
        if (mode === '500') return void res.writeHead(500).end('oops');
        if (mode === 'garbage') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Sign in to your calendar</title>');
        if (mode === 'huge') {
          res.writeHead(200, { 'content-type': 'text/calendar' });
          res.write(`BEGIN:VCALENDAR\r\n${'X-PAD:'.padEnd(1000, 'x')}\r\n`.repeat(30));
          return void res.end('END:VCALENDAR\r\n');
        }
        // slow: headers, then nothing
        res.writeHead(200, { 'content-type': 'text/calendar' });
        res.write('BEGIN:VCALENDAR\r\n');
      });
      const feeds = service({ timeoutMs: 400, maxBytes: 20_000 });
      await feeds.set(lawyerA, `${server.url}/flaky.ics`);
      const good = await stored(lawyerA);
      assert.equal(good.length, 11);
      const goodAt = (await feedRow(lawyerA)).last_success_at;
      const expectations: Array<[Mode, string, RegExp]> = [
        ['500', 'http_status', /HTTP 500/],
        ['slow', 'timeout', /400 ms/],
        ['garbage', 'not_calendar', /VCALENDAR/],
        ['huge', 'too_large', /20000/],
      ];
      for (const [m, code, detail] of expectations) {
        mode = m;
        clock.advance(15 * 60_000);
        const pass = await feeds.refreshDue();
        assert.deepEqual(pass, { read: 1, failed: 1 }, m);
        const row = await feedRow(lawyerA);
        assert.equal(row.last_error_code, code, m);
        assert.match(row.last_error_message ?? '', detail, m);
        assert.equal(row.last_attempt_at, clock.now().toISOString(), m);
        assert.equal(row.last_success_at, goodAt, m);
        assert.deepEqual(await stored(lawyerA), good, `${m}: the last good intervals stay`);
      }
      // Back to good: the error goes.
      mode = 'good';
      clock.advance(15 * 60_000);
      await feeds.refreshDue();
      assert.equal((await feedRow(lawyerA)).last_error_code, null);
    });

    it('sends If-None-Match once it has an ETag; a 304 keeps the intervals and counts as a good read', async () => {
      clock = new ManualClock(NOW);
      const [, lawyerB] = await twoLawyers();
      await forgetOtherFeeds();
      const seen: Array<string | undefined> = [];
      server.route('/etag.ics', (req, res) => {
        seen.push(req.headers['if-none-match']);
        if (req.headers['if-none-match'] === '"v1"') return void res.writeHead(304, { etag: '"v1"' }).end();
        ics(fixture('outlook.ics'), { etag: '"v1"' })(req, res);
      });
      const feeds = service();
      await feeds.set(lawyerB, `${server.url}/etag.ics`);
      const first = await stored(lawyerB);
      clock.advance(15 * 60_000);
      await feeds.refreshDue();
      assert.deepEqual(seen, [undefined, '"v1"']);
      assert.deepEqual(await stored(lawyerB), first);
      assert.equal((await feedRow(lawyerB)).last_success_at, clock.now().toISOString());
    });

    it('two processes refreshing at once: the due feed is claimed by one of them and fetched once', async () => {
      clock = new ManualClock(NOW);
      const [, lawyerB] = await twoLawyers();
      await forgetOtherFeeds();
      let fetched = 0;
      server.route('/slow-once.ics', (req, res) => {
        fetched++;
        setTimeout(() => ics(fixture('apple.ics'))(req, res), 150);
      });
      await service().set(lawyerB, `${server.url}/slow-once.ics`);
      assert.equal(fetched, 1);
      clock.advance(15 * 60_000);
      // A second process: its own connection pool to the same database.
      const other = openDatabase(t.url);
      extraDatabases.push(other);
      const [a, b] = await Promise.all([service({}, t.database).refreshDue(), service({}, other).refreshDue()]);
      assert.equal(fetched, 2, 'one more fetch, not two');
      assert.equal(a.read + b.read, 1);
      // And nothing is due any more until 15 minutes later.
      assert.deepEqual(await service().refreshDue(), { read: 0, failed: 0 });
    });

    it('"refresh now" reads at once, at most once a minute', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA, lawyerB] = await twoLawyers();
      const feeds = service();
      // set() counted as her first refresh.
      await feeds.set(lawyerB, `${server.url}/apple.ics`);
      const again = await feeds.refreshNow(lawyerB);
      assert.equal(again.outcome, 'too_soon');
      assert.ok(again.outcome === 'too_soon' && again.retryAfterSeconds > 0 && again.retryAfterSeconds <= 60);
      clock.advance(61_000);
      assert.equal((await feeds.refreshNow(lawyerB)).outcome, 'stored');
      assert.equal((await feeds.refreshNow(lawyerB)).outcome, 'too_soon');
      assert.equal((await feeds.set(lawyerA, `${server.url}/apple.ics`)).read?.outcome, 'stored', 'the limit is per lawyer');
    });

    it('removing her feed removes its busy times and records the lawyer change', async () => {
      clock = new ManualClock(NOW);
      const [, lawyerB] = await twoLawyers();
      const feeds = service();
      await feeds.set(lawyerB, `${server.url}/apple.ics`);
      assert.ok((await stored(lawyerB)).length > 0);
      const before = await changes(lawyerB);
      assert.equal(await feeds.remove(lawyerB), true);
      assert.deepEqual(await stored(lawyerB), []);
      assert.equal(await feeds.status(lawyerB), null);
      assert.ok((await changes(lawyerB)) > before);
      assert.equal(await feeds.remove(lawyerB), false);
    });

    it('a feed removed while it is being read records nothing and leaves no busy times behind', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA] = await twoLawyers();
      let release: () => void = () => {};
      const answered = new Promise<void>((resolve) => (release = resolve));
      let arrived: () => void = () => {};
      const requested = new Promise<void>((resolve) => (arrived = resolve));
      server.route('/held.ics', (req, res) => {
        arrived();
        void answered.then(() => ics(fixture('google.ics'))(req, res));
      });
      const feeds = service();
      const saving = feeds.set(lawyerA, `${server.url}/held.ics`);
      await requested;
      assert.equal(await feeds.remove(lawyerA), true);
      release();
      const { read } = await saving.catch(() => ({ read: null }));
      assert.ok(read === null || read.outcome === 'superseded', JSON.stringify(read));
      assert.deepEqual(await stored(lawyerA), []);
      assert.equal(await feeds.status(lawyerA), null);
    });

    it('issue 25: a 4 KB feed of events repeating every second is refused as too complex, read while the event loop keeps turning; the last good busy times stay', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA] = await twoLawyers();
      let body = fixture('google.ics');
      server.route('/flood.ics', (req, res) => ics(body)(req, res));
      const feeds = service({ workBudget: 20_000 });
      await feeds.set(lawyerA, `${server.url}/flood.ics`);
      const good = await stored(lawyerA);
      assert.equal(good.length, 11);
      body = HOSTILE;
      clock.advance(61_000);
      let turns = 0;
      const ticker = setInterval(() => turns++, 10);
      const outcome = await feeds.refreshNow(lawyerA);
      clearInterval(ticker);
      assert.deepEqual(outcome, { outcome: 'failed', code: 'too_complex', detail: 'it needs more than 20000 steps (events and their repetitions) to read the next 90 days' });
      // 20,000 steps of ical.js take far longer than 50 ms; on the serving thread no timer would fire.
      assert.ok(turns >= 5, `the event loop turned ${turns} times while the feed was read`);
      const row = await feedRow(lawyerA);
      assert.equal(row.last_error_code, 'too_complex');
      assert.deepEqual(await stored(lawyerA), good);
    });

    it('a feed not read within the wall-clock limit is refused: the worker is terminated', async () => {
      clock = new ManualClock(NOW);
      const [, lawyerB] = await twoLawyers();
      const { read } = await service({ parseTimeLimitMs: 1 }).set(lawyerB, `${server.url}/apple.ics`);
      assert.deepEqual(read, { outcome: 'failed', code: 'too_complex', detail: 'it was not read within 0.001 s' });
      assert.equal((await feedRow(lawyerB)).last_error_code, 'too_complex');
    });

    it('only a verified lawyer may have a feed: an applicant cannot save one, and once her verification lapses it is neither refreshed nor fetched', async () => {
      clock = new ManualClock(NOW);
      const [lawyerA, lawyerB] = await twoLawyers();
      await forgetOtherFeeds();
      await t.database.db.updateTable('lawyers').set({ status: 'applied', verified: 0, listed: 0 }).where('id', '=', lawyerA).execute();
      const feeds = service();
      const before = server.requests.length;
      await assert.rejects(feeds.set(lawyerA, `${server.url}/apple.ics`), FeedNotAllowedError);
      assert.equal(await feeds.status(lawyerA), null);
      assert.deepEqual(await feeds.refreshNow(lawyerA), { outcome: 'not_verified' });
      assert.equal(server.requests.length, before, 'nothing was fetched for the applicant');

      await feeds.set(lawyerB, `${server.url}/apple.ics`);
      const fetched = server.requests.length;
      assert.equal(fetched, before + 1);
      await t.database.db.updateTable('lawyers').set({ verified: 0, listed: 0 }).where('id', '=', lawyerB).execute();
      clock.advance(61_000);
      assert.deepEqual(await feeds.refreshNow(lawyerB), { outcome: 'not_verified' });
      clock.advance(15 * 60_000);
      assert.deepEqual(await feeds.refreshDue(), { read: 0, failed: 0 });
      assert.equal(server.requests.length, fetched, 'her feed is no longer fetched');
    });

    describe('SSRF: outside the test affordance only public https servers are read', () => {
      const refused = async (feeds: CalendarFeedService, lawyerId: string, url: string, problem: string) => {
        await assert.rejects(feeds.set(lawyerId, url), (err: unknown) => err instanceof FeedAddressError && err.problem === problem, url);
      };

      it('refuses loopback, private, metadata and local names, plain http and credentials when the address is saved; webcal:// is read as https', async () => {
        clock = new ManualClock(NOW);
        const [lawyerB] = await twoLawyers();
        const publicResolver = async (host: string) => (host === 'calendar.example.test' ? ['93.184.216.34'] : host === 'intranet.example.test' ? ['93.184.216.34', '10.0.0.5'] : []);
        const strict = service({ allowInsecureTargets: false, resolver: publicResolver });
        const hitsBefore = server.requests.length;
        await refused(strict, lawyerB, `https://127.0.0.1:${server.port}/google.ics`, 'refused');
        await refused(strict, lawyerB, 'https://169.254.169.254/latest/meta-data/', 'refused');
        await refused(strict, lawyerB, 'https://[::ffff:127.0.0.1]/x.ics', 'refused');
        await refused(strict, lawyerB, 'https://2130706433/x.ics', 'refused');
        await refused(strict, lawyerB, 'https://localhost/x.ics', 'refused');
        await refused(strict, lawyerB, 'https://intranet.example.test/x.ics', 'refused');
        await refused(strict, lawyerB, `${server.url}/google.ics`, 'scheme');
        await refused(strict, lawyerB, 'ftp://calendar.example.test/x.ics', 'scheme');
        await refused(strict, lawyerB, 'https://me:pw@calendar.example.test/x.ics', 'credentials');
        await refused(strict, lawyerB, 'not an address', 'not_url');
        await refused(strict, lawyerB, '   ', 'empty');
        assert.equal(await strict.normalizeAddress(' webcal://calendar.example.test/private/abc/basic.ics '), 'https://calendar.example.test/private/abc/basic.ics');
        assert.equal(server.requests.length, hitsBefore, 'nothing reached the loopback server');
        assert.equal(await strict.status(lawyerB), null, 'nothing was saved');
      });

      it('DNS rebinding: a name public when saved and loopback when read is refused at connect time; nothing reaches the server', async () => {
        clock = new ManualClock(NOW);
        const [lawyerB] = await twoLawyers();
        let calls = 0;
        const rebinding = async () => (++calls === 1 ? ['93.184.216.34'] : ['127.0.0.1']);
        const strict = service({ allowInsecureTargets: false, resolver: rebinding });
        const hitsBefore = server.requests.length;
        const { read } = await strict.set(lawyerB, `https://rebind.example.test:${server.port}/google.ics`);
        assert.equal(read?.outcome, 'failed');
        const row = await feedRow(lawyerB);
        assert.equal(row.last_error_code, 'refused');
        assert.match(row.last_error_message ?? '', /127\.0\.0\.1 is loopback/);
        assert.equal(server.requests.length, hitsBefore);
        assert.deepEqual(await stored(lawyerB), []);
      });

      it('a redirect to the metadata address or to plain http is not followed; a redirect to a public https server is', async () => {
        clock = new ManualClock(NOW);
        const [lawyerB] = await twoLawyers();
        const cert = fs.readFileSync(new URL('receiver.crt', TLS_FIXTURES), 'utf8');
        const key = fs.readFileSync(new URL('receiver.key', TLS_FIXTURES), 'utf8');
        const tlsServer = await startFeedServer({ key, cert });
        try {
          tlsServer.route('/to-metadata.ics', (_req, res) => void res.writeHead(302, { location: 'https://169.254.169.254/latest/meta-data/iam/' }).end());
          tlsServer.route('/to-http.ics', (_req, res) => void res.writeHead(301, { location: `http://hooks.example.test:${tlsServer.port}/google.ics` }).end());
          tlsServer.route('/to-good.ics', (_req, res) => void res.writeHead(307, { location: '/google.ics' }).end());
          tlsServer.route('/google.ics', ics(fixture('google.ics')));
          // hooks.example.test is known only to this resolver; the policy lets this test's server alone through.
          const resolver = async (host: string) => (host === 'hooks.example.test' ? ['127.0.0.1'] : []);
          const policy = (address: string) => (address === '127.0.0.1' ? null : `${address} is not the test server`);
          const strict = service({ allowInsecureTargets: false, resolver, policy, tls: { ca: cert } });
          const base = `https://hooks.example.test:${tlsServer.port}`;

          await strict.set(lawyerB, `${base}/to-metadata.ics`);
          let row = await feedRow(lawyerB);
          assert.equal(row.last_error_code, 'refused');
          assert.match(row.last_error_message ?? '', /169\.254\.169\.254/);

          clock.advance(61_000);
          await strict.set(lawyerB, `${base}/to-http.ics`);
          row = await feedRow(lawyerB);
          assert.equal(row.last_error_code, 'refused');
          assert.match(row.last_error_message ?? '', /only https/);
          assert.equal(tlsServer.hits.get('/google.ics') ?? 0, 0);

          clock.advance(61_000);
          const { read } = await strict.set(lawyerB, `${base}/to-good.ics`);
          assert.equal(read?.outcome, 'stored');
          assert.equal(tlsServer.hits.get('/google.ics'), 1);
        } finally {
          await tlsServer.close();
        }
      });
    });
  });
}

describe('the address hint (never the whole secret)', () => {
  it('shows the host and the last characters of the secret part, keeping a common .ics file name', () => {
    assert.equal(addressHint('https://calendar.google.com/calendar/ical/ana%40gmail.com/private-0a1b2c3d4e5f/basic.ics'), 'calendar.google.com … 4e5f/basic.ics');
    assert.equal(addressHint('https://outlook.office365.com/owa/calendar/0f1e@despacho.es/9a8b7c6d5e4f3a2b1c/calendar.ics'), 'outlook.office365.com … 2b1c/calendar.ics');
    assert.equal(addressHint('https://p42-caldav.icloud.com/published/2/MTIzNDU2Nzg5MTIzNDU2N3xyz'), 'p42-caldav.icloud.com … 3xyz');
    assert.equal(addressHint('https://cal.example.com/feed.ics?token=s3cr3t-9f3e'), 'cal.example.com … 9f3e');
  });
});
