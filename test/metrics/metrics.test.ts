/**
 * GET /metrics after real traffic, on both databases: request counts and latency by route
 * pattern (a 201 initiation, a 404 of a known route, an unmatched URL), holds created, confirmed
 * and expired by source (the expiry through the injected clock and the sweep), demo payment
 * outcomes, webhook attempts to a real loopback receiver with the queue depth and job lag read
 * at scrape time, and MCP tool calls through the official SDK client.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { Notifier } from '../../src/domain/notify/notifier.ts';
import { WebhookDispatcher } from '../../src/domain/webhooks/dispatcher.ts';
import { BACKLOG_CACHE_MS } from '../../src/metrics/metrics.ts';
import { memoryLogger } from '../access/support.ts';
import { connectedAgent, errorCode, sdkClient, structured } from '../mcp/support.ts';
import { DECLINED_CARD, GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, EVERY_DAY_9_TO_14, initiate, MIN, slotBody } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { emitEvent, OPERATOR, startReceiver, uniqueEmail, type Receiver } from '../webhooks/support.ts';
import { METRICS_TOKEN, scrape, valueOf, type Exposition } from './support.ts';

const DAY = '2026-11-24';
const INITIATE_ROUTE = '/api/v1/bookings/initiate';
const ALL_LEVELS = 'directory:read slots:hold my-bookings:read';

/** A counter's value, 0 when the series does not exist yet. */
const count = (e: Exposition, name: string, labels: Record<string, string>) => valueOf(e, name, labels) ?? 0;

for (const target of databaseTargets()) {
  describe(`metrics after traffic (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let address = 0;
    /** A client address of its own, so per-address limits never interfere between tests. */
    const fresh = () => `203.0.113.${++address}`;
    /** Moves the injected clock past the backlog cache, so the next scrape reads the database again. */
    const pastCache = () => ctx.clock.advance(BACKLOG_CACHE_MS + 1);

    before(async () => {
      ctx = await createTestContext(target, { config: { metricsToken: METRICS_TOKEN, webhookAllowInsecureTargets: true } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
    });
    after(async () => {
      await ctx?.close();
    });

    it('counts requests and their latency by route pattern, method and status', async () => {
      const before = await scrape(ctx);
      const created = await initiate(ctx, slotBody(lawyer, DAY, '09:00', 60, { source: 'api' }), { remoteAddress: fresh() });
      assert.equal(created.statusCode, 201, created.body);
      const missing = await ctx.app.fastify.inject({ method: 'GET', url: `/api/v1/lawyers/${randomUUID()}`, remoteAddress: fresh() });
      assert.equal(missing.statusCode, 404);
      const unknown = await ctx.app.fastify.inject({ method: 'GET', url: '/no/such/page?x=1' });
      assert.equal(unknown.statusCode, 404);

      const now = await scrape(ctx);
      const delta = (labels: Record<string, string>) => count(now, 'consulta_http_requests_total', labels) - count(before, 'consulta_http_requests_total', labels);
      assert.equal(delta({ route: INITIATE_ROUTE, method: 'POST', status: '201' }), 1);
      assert.equal(delta({ route: '/api/v1/lawyers/:lawyerId', method: 'GET', status: '404' }), 1);
      assert.equal(delta({ route: 'unmatched', method: 'GET', status: '404' }), 1);

      const histogram = { route: INITIATE_ROUTE, method: 'POST' };
      const total = valueOf(now, 'consulta_http_request_duration_seconds_count', histogram);
      assert.ok(total !== undefined && total >= 1, 'the initiation was timed');
      assert.equal(valueOf(now, 'consulta_http_request_duration_seconds_bucket', { ...histogram, le: '+Inf' }), total);
      assert.ok(valueOf(now, 'consulta_http_request_duration_seconds_sum', histogram)! > 0);
      const buckets = now.samples.filter((s) => s.name === 'consulta_http_request_duration_seconds_bucket' && s.labels.route === INITIATE_ROUTE && s.labels.method === 'POST');
      assert.deepEqual(buckets.map((b) => b.labels.le), ['0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '+Inf']);
      for (let i = 1; i < buckets.length; i++) assert.ok(buckets[i]!.value >= buckets[i - 1]!.value, 'buckets are cumulative');

      assert.equal(count(now, 'consulta_holds_created_total', { source: 'api' }) - count(before, 'consulta_holds_created_total', { source: 'api' }), 1);
    });

    it('counts a confirmed and an expired hold, the demo payment outcomes, and the expiry lag before the sweep', async () => {
      const before = await scrape(ctx);
      const maria = await createUser(ctx, uniqueEmail('maria'));
      const paid = await hold(ctx, lawyer, DAY, '10');
      const declined = await hold(ctx, lawyer, DAY, '11');
      const lapsing = await initiate(ctx, slotBody(lawyer, DAY, '12:00', 60, { source: 'widget' }), { remoteAddress: fresh() });
      assert.equal(lapsing.statusCode, 201, lapsing.body);

      assert.equal((await ctx.app.services.payments.payWithCard(declined.token, maria, DECLINED_CARD)).kind, 'declined');
      assert.equal((await ctx.app.services.payments.payWithCard(paid.token, maria, GOOD_CARD)).kind, 'confirmed');

      // The holds lapse; until the sweep runs, the oldest one has been due for a minute.
      ctx.clock.advance(16 * MIN);
      const due = await scrape(ctx);
      assert.ok(valueOf(due, 'consulta_job_lag_seconds', { task: 'expiry_sweep' })! >= 60, 'expiry lag before the sweep');
      await ctx.app.services.booking.expireDue();
      pastCache();
      const now = await scrape(ctx);
      assert.equal(valueOf(now, 'consulta_job_lag_seconds', { task: 'expiry_sweep' }), 0, 'no lag once swept');

      const delta = (name: string, labels: Record<string, string>) => count(now, name, labels) - count(before, name, labels);
      assert.equal(delta('consulta_holds_created_total', { source: 'unspecified' }), 2);
      assert.equal(delta('consulta_holds_created_total', { source: 'widget' }), 1);
      assert.equal(delta('consulta_holds_confirmed_total', { source: 'unspecified' }), 1);
      assert.equal(delta('consulta_holds_expired_total', { source: 'widget' }), 1);
      assert.equal(delta('consulta_holds_expired_total', { source: 'unspecified' }), 1, 'the declined hold lapsed too');
      assert.equal(delta('consulta_payment_outcomes_total', { provider: 'demo', outcome: 'declined' }), 1);
      assert.equal(delta('consulta_payment_outcomes_total', { provider: 'demo', outcome: 'authorized' }), 1);
      assert.equal(delta('consulta_payment_outcomes_total', { provider: 'demo', outcome: 'captured' }), 1);
      assert.equal(delta('consulta_payment_outcomes_total', { provider: 'demo', outcome: 'voided' }), 0);
    });

    it('counts webhook attempts by outcome and reads the queue depth and lags at scrape time', async () => {
      let receiver: Receiver | undefined;
      const dispatcher = new WebhookDispatcher({
        database: ctx.database,
        clock: ctx.clock,
        // One retry, then dead: the whole schedule in two attempts.
        config: { ...ctx.config, webhookRetryScheduleSeconds: [60] },
        notifier: new Notifier({ database: ctx.database, clock: ctx.clock, mailer: { send: async () => {}, close: async () => {} }, logger: memoryLogger() }),
        logger: memoryLogger(),
        metrics: ctx.app.metrics!,
      });
      try {
        receiver = await startReceiver();
        receiver.answer((req) => (req.path === '/fail' ? { status: 500, body: 'no' } : { status: 204 }));
        const ownerEmail = uniqueEmail('hooks');
        const ownerId = await createUser(ctx, ownerEmail);
        await ctx.app.services.webhooks.create(OPERATOR, { ownerEmail }, { url: `${receiver.url}/ok` });
        await ctx.app.services.webhooks.create(OPERATOR, { ownerEmail }, { url: `${receiver.url}/fail` });
        const before = await scrape(ctx);
        await emitEvent(ctx.database, { type: 'user', id: ownerId }, { createdAt: ctx.clock.now().toISOString() });

        ctx.clock.advance(10_000);
        const waiting = await scrape(ctx);
        assert.ok(valueOf(waiting, 'consulta_outbox_unpublished_events')! >= 1);
        assert.ok(valueOf(waiting, 'consulta_job_lag_seconds', { task: 'outbox_fanout' })! >= 10, 'the event has waited 10 s for the fan-out');

        await dispatcher.runUntilIdle();
        assert.equal(receiver.requests.length, 2);
        pastCache();
        const sent = await scrape(ctx);
        const delta = (outcome: string) => count(sent, 'consulta_webhook_attempts_total', { outcome }) - count(before, 'consulta_webhook_attempts_total', { outcome });
        assert.equal(delta('delivered'), 1);
        assert.equal(delta('failed'), 1);
        assert.equal(delta('dead'), 0);
        assert.equal(valueOf(sent, 'consulta_outbox_unpublished_events'), 0);
        assert.equal(valueOf(sent, 'consulta_job_lag_seconds', { task: 'outbox_fanout' }), 0);
        assert.equal(valueOf(sent, 'consulta_webhook_queue_depth', { state: 'scheduled' }), 1, 'the failed message waits for its retry');
        assert.equal(valueOf(sent, 'consulta_webhook_queue_depth', { state: 'due' }), 0);
        assert.equal(valueOf(sent, 'consulta_job_lag_seconds', { task: 'webhook_delivery' }), 0);

        // The retry falls due (first delay: 60 s) and nobody delivers it: the backlog shows.
        ctx.clock.advance(90_000);
        const late = await scrape(ctx);
        assert.equal(valueOf(late, 'consulta_webhook_queue_depth', { state: 'due' }), 1);
        assert.ok(valueOf(late, 'consulta_job_lag_seconds', { task: 'webhook_delivery' })! >= 20, 'the retry is overdue');

        // The retry fails too: the message is dead, and nothing is pending any more.
        await dispatcher.runUntilIdle();
        assert.equal(receiver.requests.length, 3);
        pastCache();
        const dead = await scrape(ctx);
        assert.equal(count(dead, 'consulta_webhook_attempts_total', { outcome: 'dead' }) - count(before, 'consulta_webhook_attempts_total', { outcome: 'dead' }), 1);
        assert.equal(valueOf(dead, 'consulta_webhook_queue_depth', { state: 'due' }), 0);
        assert.equal(valueOf(dead, 'consulta_webhook_queue_depth', { state: 'scheduled' }), 0);
        assert.equal(valueOf(dead, 'consulta_job_lag_seconds', { task: 'webhook_delivery' }), 0);
      } finally {
        await dispatcher.stop();
        await receiver?.close();
      }
    });

    it('counts MCP tool calls by tool and outcome, and an AI app\'s hold by its source', async () => {
      const agent = await connectedAgent(ctx, uniqueEmail('person'), ALL_LEVELS);
      let client: Client | undefined;
      try {
        client = await sdkClient(ctx, agent.accessToken);
        const before = await scrape(ctx);
        structured(await client.callTool({ name: 'list_cities', arguments: {} }));
        assert.equal(errorCode(await client.callTool({ name: 'get_booking_intent', arguments: { booking_intent_id: randomUUID() } })), 'not_found');
        const holdAt = (hour: number) =>
          client!.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: lawyer, date: '2026-11-25', start_time: `${String(hour).padStart(2, '0')}:00:00`, end_time: `${String(hour + 1).padStart(2, '0')}:00:00` } });
        for (const hour of [9, 10, 11]) structured(await holdAt(hour));
        // A fourth pending hold for one person is refused (at most 3 wait for confirmation).
        assert.equal(errorCode(await holdAt(12)), 'hold_limit_reached');
        const now = await scrape(ctx);
        const delta = (name: string, labels: Record<string, string>) => count(now, name, labels) - count(before, name, labels);
        assert.equal(delta('consulta_mcp_tool_calls_total', { tool: 'list_cities', outcome: 'ok' }), 1);
        assert.equal(delta('consulta_mcp_tool_calls_total', { tool: 'get_booking_intent', outcome: 'not_found' }), 1);
        assert.equal(delta('consulta_mcp_tool_calls_total', { tool: 'hold_consultation_slot', outcome: 'ok' }), 3);
        assert.equal(delta('consulta_mcp_tool_calls_total', { tool: 'hold_consultation_slot', outcome: 'hold_limit_reached' }), 1);
        assert.equal(delta('consulta_holds_created_total', { source: 'ai_agent' }), 3);
        assert.equal(delta('consulta_rate_limit_refusals_total', { limit: 'pending_holds_per_person' }), 1);
      } finally {
        await client?.close();
      }
    });
  });
}
