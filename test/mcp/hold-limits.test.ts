/**
 * hold_consultation_slot's two limits, at their real values (RATE_LIMIT_MULTIPLIER 1), through the
 * official SDK client on both databases (issue 17, item 12): asking again for a hold the person
 * already has answers that hold before any limit runs, even once the hourly limit is reached; the
 * limit on holds waiting for confirmation (3) and the hourly limit on new holds (5) are told apart
 * by their codes (hold_limit_reached, rate_limited) and messages, each with retry_after_seconds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, sdkClient, structured, toolError } from './support.ts';

interface Refusal {
  code: string;
  message: string;
  retry_after_seconds?: number;
}

const refusal = (result: unknown): Refusal => toolError(result);

for (const target of databaseTargets()) {
  describe(`MCP hold limits (${target.name}, real limits)`, () => {
    let ctx: TestContext;
    let lawyer: string;

    before(async () => {
      // The token outlives the holds' 15 minutes (the tests let them lapse).
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1, oauthAccessTokenTtlSeconds: 7_200 } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
    });
    after(() => ctx?.close());

    /** A person's client, from the start of an hour window (the hourly limit's windows are aligned). */
    async function person(email: string, hourStart: string): Promise<{ client: Client; hold(date: string, hour: number): Promise<unknown>; intentId(date: string, hour: number): Promise<string> }> {
      ctx.clock.set(Date.parse(hourStart) + 30_000);
      const client = await sdkClient(ctx, (await connectedAgent(ctx, email, 'directory:read slots:hold')).accessToken);
      const hold = (date: string, hour: number) =>
        client.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: lawyer, date, start_time: `${String(hour).padStart(2, '0')}:00:00`, end_time: `${String(hour + 1).padStart(2, '0')}:00:00` } });
      return { client, hold, intentId: async (date, hour) => structured<{ booking_intent_id: string }>(await hold(date, hour)).booking_intent_id };
    }

    it('asking again for a hold the person has answers it before any limit, even once the hourly limit is reached', async () => {
      const { client, hold, intentId } = await person('again@example.com', '2026-11-23T09:00:00Z');
      try {
        // Five new holds in the hour (three lapse on the way), asked for again and again in between.
        const held: string[] = [];
        for (const hour of [9, 10, 11]) {
          held.push(await intentId('2026-11-25', hour));
          assert.equal(await intentId('2026-11-25', hour), held.at(-1), 'asked again at once');
        }
        ctx.clock.advance(16 * 60_000);
        const fourth = await intentId('2026-11-25', 12);
        const fifth = await intentId('2026-11-25', 13);
        assert.equal(refusal(await hold('2026-11-26', 9)).code, 'rate_limited', 'a 6th new hold within the hour');
        // Past the hourly limit, asking again answers the holds the person has, every time.
        for (let i = 0; i < 6; i++) {
          assert.equal(await intentId('2026-11-25', 12), fourth, `ask ${i + 1}`);
          assert.equal(await intentId('2026-11-25', 13), fifth, `ask ${i + 1}`);
        }
        // A new hold is still refused: the replays neither counted nor let anything else through.
        assert.equal(refusal(await hold('2026-11-26', 10)).code, 'rate_limited');
        const rows = await ctx.database.db.selectFrom('booking_intents').select('id').where('held_for_user_id', 'is not', null).where('slot_date', 'in', ['2026-11-25', '2026-11-26']).execute();
        assert.equal(rows.length, 5);
      } finally {
        await client.close();
      }
    });

    it('the limit on holds waiting for confirmation and the hourly limit have their own codes and messages, each with retry_after_seconds', async () => {
      const { client, hold, intentId } = await person('limits@example.com', '2026-11-23T10:00:00Z');
      try {
        for (const hour of [9, 10, 11]) await intentId('2026-11-27', hour);
        const waiting = refusal(await hold('2026-11-27', 12));
        assert.equal(waiting.code, 'hold_limit_reached', 'the 4th waiting hold');
        assert.match(waiting.message, /already has 3 holds waiting for confirmation, the most allowed at once \(3\)/);
        assert.ok(waiting.retry_after_seconds! > 0 && waiting.retry_after_seconds! <= 15 * 60, String(waiting.retry_after_seconds));

        ctx.clock.advance(16 * 60_000); // they lapse; the refused attempt counted: one new hold is left this hour
        await intentId('2026-11-27', 12);
        const hourly = refusal(await hold('2026-11-27', 13));
        assert.equal(hourly.code, 'rate_limited', 'the 6th new hold within the hour');
        assert.match(hourly.message, /made 5 new holds this hour, the most allowed an hour/);
        assert.ok(hourly.retry_after_seconds! > 0 && hourly.retry_after_seconds! <= 3600, String(hourly.retry_after_seconds));

        // The request log records both as the API would answer them (429), with their codes.
        await ctx.app.services.requestLog.flush();
        const logged = await ctx.database.db.selectFrom('request_log').select(['status', 'error_code']).where('route', '=', 'tools/call hold_consultation_slot').where('error_code', 'is not', null).execute();
        assert.ok(logged.some((r) => r.status === 429 && r.error_code === 'hold_limit_reached'), JSON.stringify(logged));
        assert.ok(logged.some((r) => r.status === 429 && r.error_code === 'rate_limited'), JSON.stringify(logged));
      } finally {
        await client.close();
      }
    });
  });
}
