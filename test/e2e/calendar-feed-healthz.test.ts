/**
 * Issue 25, item 1, against a real `consulta serve` process (the bundle bin/consulta.js runs) on
 * both databases: while the jobs runner reads issue 25's hostile feed (40 events repeating every
 * second since 2000, about 4 KB) and a feed at the 5 MB size limit, both served from a calendar
 * server on loopback (WEBHOOK_ALLOW_INSECURE_TARGETS), /healthz keeps answering over real HTTP in
 * under 100 ms (or four times what idle probes see, on a loaded machine). Before the fix the
 * expansion ran on the serving thread and held every request for the whole read (35 s for the hostile feed on the reviewer's machine).
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { upsertFeed } from '../../src/db/repositories/calendar-feed.repository.ts';
import { FEED_MAX_BYTES } from '../../src/domain/calendar-feed/calendar-feed.service.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { startServerProcess } from '../support/process.ts';

const calendar = (events: string[][]) => ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', ...events.flatMap((e) => ['BEGIN:VEVENT', ...e, 'END:VEVENT']), 'END:VCALENDAR'].join('\r\n');
const HOSTILE = calendar(Array.from({ length: 40 }, (_, i) => [`UID:flood-${i}@example.com`, 'DTSTART:20000101T000000Z', 'RRULE:FREQ=SECONDLY']));

/** A feed just under the size limit, written as Google writes events: one an hour from tomorrow. */
function feedAtTheLimit(now: Date): string {
  const stamp = (ms: number) => new Date(ms).toISOString().replace(/[-:]/g, '').slice(0, 15) + 'Z';
  const first = Math.ceil(now.getTime() / 3_600_000) * 3_600_000 + 86_400_000;
  const events: string[][] = [];
  let size = 200;
  for (let i = 0; ; i++) {
    const start = first + (i % 1500) * 3_600_000;
    const event = [
      `UID:meeting-${i}-0a1b2c3d4e5f@google.com`,
      'DTSTAMP:20270301T000000Z',
      `DTSTART:${stamp(start)}`,
      `DTEND:${stamp(start + 1_800_000)}`,
      'CREATED:20260101T000000Z',
      'LAST-MODIFIED:20260101T000000Z',
      'SEQUENCE:0',
      'STATUS:CONFIRMED',
      `SUMMARY:Consulta ${i}: permiso de residencia y trabajo`,
      `DESCRIPTION:${'Documentos: pasaporte\\, empadronamiento\\, contrato. '.repeat(5)}`,
      'TRANSP:OPAQUE',
    ];
    const bytes = event.join('\r\n').length + 30;
    if (size + bytes > FEED_MAX_BYTES - 100) break;
    size += bytes;
    events.push(event);
  }
  return calendar(events);
}

for (const target of databaseTargets()) {
  describe(`/healthz while calendar feeds are read (${target.name})`, () => {
    it('the hostile feed and one at the 5 MB limit are read while /healthz answers in under 100 ms', async (context) => {
      const t = await target.create();
      const now = new Date();
      const big = feedAtTheLimit(now);
      assert.ok(big.length > FEED_MAX_BYTES - 20_000 && big.length <= FEED_MAX_BYTES, `${big.length} bytes`);
      assert.ok(HOSTILE.length < 4300);
      // The calendar server holds its answers until /healthz is being watched.
      let go!: () => void;
      const released = new Promise<void>((resolve) => (go = resolve));
      const served: string[] = [];
      const feeds = http.createServer((req, res) => {
        void released.then(() => {
          served.push(req.url ?? '');
          res.writeHead(200, { 'content-type': 'text/calendar; charset=utf-8' }).end(req.url === '/flood.ics' ? HOSTILE : big);
        });
      });
      await new Promise<void>((resolve) => feeds.listen(0, '127.0.0.1', resolve));
      const feedUrl = `http://127.0.0.1:${(feeds.address() as AddressInfo).port}`;
      const [flood, large] = (await insertLawyers(t.database, [lawyerRecord({ name: 'Flora Flood' }), lawyerRecord({ name: 'Gloria Grande' })], now)) as [string, string];
      // Both due now: the jobs runner reads them as it starts (the flood first: it was due first).
      await upsertFeed(t.database.db, { lawyer_id: flood, url: `${feedUrl}/flood.ics`, url_hint: 'flood', nowIso: new Date(now.getTime() - 1000).toISOString() });
      await upsertFeed(t.database.db, { lawyer_id: large, url: `${feedUrl}/big.ics`, url_hint: 'big', nowIso: now.toISOString() });
      const feedRows = () => t.database.db.selectFrom('lawyer_calendar_feeds').select(['lawyer_id', 'last_attempt_at', 'last_error_code', 'busy_count']).execute();

      const server = await startServerProcess({ DATABASE_URL: t.url, WEBHOOK_ALLOW_INSECURE_TARGETS: 'true', DEMO_LAWYERS: '0' }, 90_000);
      try {
        const probe = async (): Promise<number> => {
          const started = performance.now();
          try {
            const res = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(5_000) });
            assert.equal(res.status, 200);
            await res.text();
          } catch (err) {
            if ((err as Error).name !== 'TimeoutError') throw err;
          }
          return performance.now() - started;
        };
        // Paced, so that this process does not itself take the CPU the server needs.
        const paced = async () => {
          const ms = await probe();
          await new Promise((resolve) => setTimeout(resolve, 10));
          return ms;
        };
        // What this machine gives with nothing being read, to read the figures against (short:
        // the held feeds must be answered within the server's 10 s download deadline).
        const baseline: number[] = [];
        for (let i = 0; i < 30; i++) baseline.push(await paced());
        go();
        const latencies: number[] = [];
        const deadline = Date.now() + 120_000;
        let rows = await feedRows();
        while (Date.now() < deadline && !rows.every((r) => r.last_attempt_at !== null)) {
          for (let i = 0; i < 10; i++) latencies.push(await paced());
          rows = await feedRows();
        }
        assert.deepEqual(served.sort(), ['/big.ics', '/flood.ics'], 'both feeds were fetched');
        const byLawyer = new Map(rows.map((r) => [r.lawyer_id, r]));
        assert.equal(byLawyer.get(flood)?.last_error_code, 'too_complex', 'the hostile feed is refused in words she can read');
        assert.equal(byLawyer.get(large)?.last_error_code, null, 'the feed at the size limit is read');
        assert.equal(Number(byLawyer.get(large)?.busy_count), 1500);
        assert.ok(latencies.length >= 20, `${latencies.length} probes while the feeds were read`);
        const figures = (list: number[]) => {
          const sorted = [...list].sort((a, b) => a - b);
          const at = (q: number) => Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!);
          return { probes: list.length, median: at(0.5), p95: at(0.95), max: Math.round(sorted.at(-1)!) };
        };
        const during = figures(latencies);
        const idle = figures(baseline);
        const report = `/healthz while read: ${JSON.stringify(during)}; with nothing read: ${JSON.stringify(idle)}`;
        // The bound is on the 95th percentile: on a shared 2-core machine the scheduler alone
        // holds a process for 100-300 ms now and then, with or without a feed (the baseline shows
        // it). A feed read on the serving thread held every probe for the whole read (seconds).
        // On a machine loaded by other work the baseline itself grows; the bound grows with it
        // (four times what the idle probes saw), which still fails by far a serving thread held
        // for a whole read.
        context.diagnostic(report);
        assert.ok(during.p95 < Math.max(100, 4 * idle.p95), report);
        assert.ok(during.max < Math.max(1_000, 4 * idle.max), report);
      } finally {
        await server.stop();
        feeds.closeAllConnections();
        await new Promise((resolve) => feeds.close(resolve));
        await t.drop();
      }
    });
  });
}
