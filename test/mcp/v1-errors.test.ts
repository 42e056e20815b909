/**
 * Every business refusal of the tools through the TypeScript SDK v1 client (issue 25, item 6).
 * v1's callTool checks a result's structuredContent against the tool's output schema, on errors
 * too, and throws -32602 when it does not match: an error result carrying `{"error": …}` as
 * structured content never reached the agent. Each refusal here must come back as a result the
 * client accepts (isError, no structuredContent) whose text block the agent reads: the code, the
 * message, and where it says so, what to call next.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, sdkClientV1, structured, toolError, type ToolError } from './support.ts';

const UNKNOWN = '00000000-0000-4000-8000-000000000000';
const ALL_LEVELS = 'directory:read slots:hold my-bookings:read';

for (const target of databaseTargets()) {
  describe(`business errors through the TypeScript SDK v1 client (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let client: ClientV1;
    const seen = new Set<string>();
    /** Calls through v1 (which throws if it rejects the result) and returns the refusal the agent reads. */
    const refused = async (name: string, args: Record<string, unknown>): Promise<ToolError> => {
      const result = await client.callTool({ name, arguments: args });
      const error = toolError(result);
      assert.ok(error.message.length > 10, `${name}: a message to read`);
      seen.add(`${name}:${error.code}`);
      return error;
    };
    const slot = (date: string, hour: number) => ({ lawyer_id: lawyer, date, start_time: `${String(hour).padStart(2, '0')}:00:00`, end_time: `${String(hour + 1).padStart(2, '0')}:00:00` });

    before(async () => {
      // Real limits (the hold limits and the per-app call limit), and a token outliving lapsed holds.
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1, oauthAccessTokenTtlSeconds: 7_200 } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
      ctx.clock.set(Date.parse('2026-11-23T09:00:00Z') + 30_000);
      client = await sdkClientV1(ctx, (await connectedAgent(ctx, 'v1@example.com', ALL_LEVELS, 'Desktop assistant v1')).accessToken);
    });
    after(async () => {
      await client?.close();
      await ctx?.close();
    });

    it('the directory tools: an unknown city, practice area or language, an unknown lawyer, a bad date range', async () => {
      const search = await refused('search_lawyers', { city: 'Atlantis', practice_area: 'dragons', language: 'Klingon' });
      assert.equal(search.code, 'invalid_request');
      assert.deepEqual(
        search.errors?.map((e) => e.argument),
        ['city', 'practice_area', 'language'],
      );
      assert.match(search.errors![0]!.message, /unknown city "Atlantis"; valid values: call list_cities/);
      assert.equal((await refused('find_earliest_slots', { city: 'Atlantis' })).code, 'invalid_request');
      for (const name of ['get_lawyer_profile', 'list_lawyer_reviews', 'get_lawyer_availability']) {
        const error = await refused(name, { lawyer_id: UNKNOWN });
        assert.equal(error.code, 'not_found', name);
      }
      const range = await refused('get_lawyer_availability', { lawyer_id: lawyer, start_date: '2026-11-25', end_date: '2026-11-24' });
      assert.deepEqual([range.code, range.errors], ['invalid_request', [{ argument: 'end_date', message: 'must not be before start_date (2026-11-25)' }]]);
    });

    it('the person’s tools: unknown holds and consultations, a link without the id it needs', async () => {
      assert.equal((await refused('get_booking_intent', { booking_intent_id: UNKNOWN })).code, 'not_found');
      assert.equal((await refused('get_my_booking', { booking_id: UNKNOWN })).code, 'not_found');
      assert.equal((await refused('get_site_link', { purpose: 'confirm_hold' })).code, 'invalid_request');
      assert.equal((await refused('get_site_link', { purpose: 'confirm_hold', booking_intent_id: UNKNOWN })).code, 'not_found');
      for (const purpose of ['consultation', 'cancel', 'move']) {
        assert.equal((await refused('get_site_link', { purpose })).code, 'invalid_request', purpose);
        assert.equal((await refused('get_site_link', { purpose, booking_id: UNKNOWN })).code, 'not_found', purpose);
      }
    });

    it('holds: a slot that cannot be held, an unknown lawyer, the limit on waiting holds, the hourly limit', async () => {
      // Refused holds count towards the hourly limit: the limits are met by this client, the
      // unavailable slots by another person's (its own limits).
      const other = await sdkClientV1(ctx, (await connectedAgent(ctx, 'v1-other@example.com', ALL_LEVELS, 'Desktop assistant v1')).accessToken);
      const main = client;
      try {
        client = other;
        const past = await refused('hold_consultation_slot', slot('2026-11-20', 9));
        assert.equal(past.code, 'slot_unavailable');
        assert.match(past.message, /Choose another one/);
        assert.equal((await refused('hold_consultation_slot', { ...slot('2026-11-25', 9), lawyer_id: UNKNOWN })).code, 'slot_unavailable');
      } finally {
        client = main;
        await other.close();
      }
      for (const hour of [9, 10, 11]) structured(await client.callTool({ name: 'hold_consultation_slot', arguments: slot('2026-11-25', hour) }));
      const waiting = await refused('hold_consultation_slot', slot('2026-11-25', 12));
      assert.equal(waiting.code, 'hold_limit_reached');
      assert.ok(waiting.retry_after_seconds! > 0, 'says when to retry');
      ctx.clock.advance(16 * 60_000); // the three lapse; the refused attempt counted
      structured(await client.callTool({ name: 'hold_consultation_slot', arguments: slot('2026-11-26', 9) }));
      const hourly = await refused('hold_consultation_slot', slot('2026-11-26', 10));
      assert.equal(hourly.code, 'rate_limited', 'the hourly limit on new holds');
      assert.ok(hourly.retry_after_seconds! > 0);
    });

    it('the per-app call limit: rate_limited with retry_after_seconds', async () => {
      ctx.clock.set(Math.ceil(ctx.clock.now().getTime() / 60_000) * 60_000 + 1_000);
      let error: ToolError | undefined;
      for (let i = 0; i < 200 && !error; i++) {
        const result = await client.callTool({ name: 'list_cities', arguments: {} });
        if (result.isError) error = toolError(result);
      }
      assert.equal(error?.code, 'rate_limited');
      assert.ok(error!.retry_after_seconds! >= 1);
      seen.add(`list_cities:${error!.code}`);
      ctx.clock.advance(60_000);
    });

    it('covered every business refusal the tools answer', () => {
      assert.deepEqual([...seen].sort(), [
        'find_earliest_slots:invalid_request',
        'get_booking_intent:not_found',
        'get_lawyer_availability:invalid_request',
        'get_lawyer_availability:not_found',
        'get_lawyer_profile:not_found',
        'get_my_booking:not_found',
        'get_site_link:invalid_request',
        'get_site_link:not_found',
        'hold_consultation_slot:hold_limit_reached',
        'hold_consultation_slot:rate_limited',
        'hold_consultation_slot:slot_unavailable',
        'list_cities:rate_limited',
        'list_lawyer_reviews:not_found',
        'search_lawyers:invalid_request',
      ]);
    });
  });
}
