/**
 * Migration 0017 fills the new usage aggregates from the log still held, on both databases: the
 * figures equal what the request log's writer adds for the same rows (same latency buckets at
 * every boundary, same '*' for unknown routes, test and anonymous traffic left out).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import * as m0017 from '../../src/db/migrations/0017-usage-breakdown.ts';
import { insertRequestLogBatch, latencyBucketUpperMs, usageIncrements } from '../../src/db/repositories/request-log.repository.ts';
import type { RequestLogTable } from '../../src/db/schema.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

function rows(): RequestLogTable[] {
  const out: RequestLogTable[] = [];
  // Durations on and around bucket boundaries, where a CASE and a logarithm could disagree.
  const durations = [0, 0.01, 0.0625, 0.07, 0.5, 1, 1.19, 1.2, 3, 10, 49.99, 50, 1000, 65_536, 100_000];
  for (let b = -16; b <= 64; b++) durations.push(latencyBucketUpperMs(b), latencyBucketUpperMs(b) * 1.0001);
  const routes: Array<[string, string, string, number, string | null]> = [
    ['GET', '/api/v1/lawyers/:lawyerId', '/api/v1/lawyers/x', 404, 'not_found'],
    ['GET', '/api/v1/nope', '/api/v1/nope', 404, 'not_found'],
    ['POST', '/api/v1/bookings/initiate', '/api/v1/bookings/initiate', 404, null],
    ['GET', '/api/v1/cities', '/api/v1/cities', 200, null],
    ['GET', '/api/v1/cities', '/api/v1/cities', 503, 'service_unavailable'],
    ['GET', '/api/v1/cities', '/api/v1/cities', 429, 'rate_limited'],
  ];
  durations.forEach((duration_ms, i) => {
    const [method, route, path, status, error_code] = routes[i % routes.length]!;
    const who = i % 5; // 0–2 live (two keys), 3 test, 4 anonymous
    out.push({
      request_id: `req_${i.toString(16).padStart(32, '0')}`,
      at: `2026-11-${20 + (i % 3)}T10:00:00.000Z`,
      key_id: who < 3 ? `key_${who % 2}` : who === 3 ? 'key_test' : null,
      owner_type: who < 4 ? 'user' : null,
      owner_id: who < 4 ? 'usr_1' : null,
      test: who === 3 ? 1 : 0,
      method,
      route,
      path,
      status,
      duration_ms,
      client_ip: '192.0.2.1',
      error_code,
    });
  });
  return out;
}

const sorted = <T>(xs: T[]) => xs.map((x) => JSON.stringify(x)).sort();

for (const target of databaseTargets()) {
  describe(`migration 0017 backfill (${target.name})`, () => {
    let t: TestDatabase;
    before(async () => {
      t = await target.create();
    });
    after(async () => t?.drop());

    it('fills the new aggregates from the log exactly as the writer would have', async () => {
      const db = t.database.db;
      const log = rows();
      // Back to before 0017, with a log and the old daily counters in place.
      await m0017.down(db);
      await insertRequestLogBatch(db, log);
      const inc = usageIncrements(log);
      await db.insertInto('usage_daily').values(inc.daily.map(({ server_errors: _, ...old }) => old) as never).execute();
      await m0017.up(db);

      const daily = await db.selectFrom('usage_daily').selectAll().execute();
      assert.deepEqual(sorted(daily), sorted(inc.daily));
      const errors = await db.selectFrom('usage_daily_errors').selectAll().execute();
      assert.deepEqual(sorted(errors.map((e) => ({ ...e, count: Number(e.count) }))), sorted(inc.errors));
      const routes = await db.selectFrom('usage_daily_routes').selectAll().execute();
      assert.deepEqual(sorted(routes.map((r) => ({ ...r, requests: Number(r.requests), errors: Number(r.errors) }))), sorted(inc.routes));
      assert.ok(routes.some((r) => r.route === '*') && routes.some((r) => r.route === '/api/v1/bookings/initiate'), 'unknown routes as one; initiate keeps its route');
      const latency = await db.selectFrom('usage_daily_latency').selectAll().execute();
      assert.deepEqual(sorted(latency.map((l) => ({ ...l, count: Number(l.count) }))), sorted(inc.latency));
      assert.ok(!daily.some((d) => d.key_id === 'key_test'), 'test traffic is left out');
    });
  });
}
