/**
 * Cancel or move over MCP (docs/mcp.md#cancel-or-move), with the official SDK client on both
 * databases: `get_my_booking` carries `cancellation_policy` — the policy's words, until when it is
 * free, what can still be done now and the pages where the person does it — in time, late and
 * after a cancellation; `get_site_link` answers the purposes "cancel" and "move" with those pages
 * (someone else's booking is not found, a missing booking_id is named); the tool count stays 15 and
 * no tool cancels, moves or refunds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/client';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connectedAgent, errorCode, sdkClient, structured, TOOL_NAMES, type Agent } from './support.ts';

const ALL_LEVELS = 'directory:read slots:hold my-bookings:read';
const TUE = '2026-11-24'; // 09:00 Madrid = 08:00Z: exactly 24 hours after the test clock's start

interface Policy {
  summary: string;
  free_until: string;
  can_cancel_with_refund: boolean;
  can_cancel_without_refund: boolean;
  can_move: boolean;
  now: string;
  cancel_url: string | null;
  move_url: string | null;
}

for (const target of databaseTargets()) {
  describe(`MCP: cancellation policy and the cancel / move links (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let agent: Agent;
    let client: Client;

    before(async () => {
      // Access tokens for a day: the clock moves half an hour within a test.
      ctx = await createTestContext(target, { config: { oauthAccessTokenTtlSeconds: 86_400 } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz' })])) as [string];
      agent = await connectedAgent(ctx, `person-${target.name}@example.com`, ALL_LEVELS);
      client = await sdkClient(ctx, agent.accessToken, 'modern');
    });
    after(async () => {
      await client?.close();
      await ctx?.close();
    });

    async function booked(hour: string): Promise<string> {
      const h = await hold(ctx, lawyer, TUE, hour);
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, agent.person.userId, GOOD_CARD)).kind, 'confirmed');
      return (await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow()).id;
    }
    const policyOf = async (id: string) => structured<{ status: string; cancellation_policy: Policy }>(await client.callTool({ name: 'get_my_booking', arguments: { booking_id: id } }));

    it('get_my_booking: in time, late, and cancelled — what can still be done and until when', async () => {
      const id = await booked('09');
      const inTime = await policyOf(id);
      assert.deepEqual(inTime.cancellation_policy, {
        summary: 'Free cancellation up to 24 hours before the start, with a full refund. Later there is no refund, unless the lawyer decides to refund. You can move it to another free time with the same lawyer up to 24 hours before the start, twice at most; the payment is kept.',
        free_until: '2026-11-23T08:00:00.000Z',
        can_cancel_with_refund: true,
        can_cancel_without_refund: false,
        can_move: true,
        now: 'Until 2026-11-23T08:00:00.000Z the person can cancel it with a full refund, or move it to another free time of the same lawyer (the payment is kept). After that, cancelling is possible until the start but not refunded, and it can no longer be moved.',
        cancel_url: `http://consulta.test/consultations/${id}/cancel`,
        move_url: `http://consulta.test/consultations/${id}/move`,
      });
      const saved = ctx.clock.now().getTime();
      // Half an hour later: late.
      ctx.clock.set(new Date('2026-11-23T08:30:00.000Z'));
      try {
        const late = (await policyOf(id)).cancellation_policy;
        assert.deepEqual([late.can_cancel_with_refund, late.can_cancel_without_refund, late.can_move, late.move_url], [false, true, false, null]);
        assert.match(late.now, /can still cancel it until 2026-11-24T08:00:00\.000Z, without a refund/);
        const moveLink = structured<{ url: string; note: string }>(await client.callTool({ name: 'get_site_link', arguments: { purpose: 'move', booking_id: id } }));
        assert.match(moveLink.note, /can no longer be moved/);
        const cancelLink = structured<{ url: string; note: string }>(await client.callTool({ name: 'get_site_link', arguments: { purpose: 'cancel', booking_id: id } }));
        assert.match(cancelLink.note, /not refunded/);
      } finally {
        ctx.clock.set(new Date(saved));
      }
      // Cancelled on the site by the person: nothing more to do, and no links.
      assert.equal((await ctx.app.services.personChange.cancel(agent.person.userId, id)).outcome, 'cancelled');
      const after = await policyOf(id);
      assert.equal(after.status, 'cancelled_by_person');
      assert.deepEqual([after.cancellation_policy.can_cancel_with_refund, after.cancellation_policy.can_cancel_without_refund, after.cancellation_policy.cancel_url], [false, false, null]);
      assert.match(after.cancellation_policy.now, /Nothing can be changed any more/);
    });

    it('get_site_link "cancel" and "move": the person\'s own pages; someone else\'s booking is not found; booking_id is required', async () => {
      const id = await booked('12');
      const cancel = structured<{ url: string; purpose: string; note: string }>(await client.callTool({ name: 'get_site_link', arguments: { purpose: 'cancel', booking_id: id } }));
      assert.equal(cancel.url, `http://consulta.test/consultations/${id}/cancel`);
      assert.equal(cancel.purpose, 'cancel');
      assert.match(cancel.note, /refunds the payment in full/);
      const move = structured<{ url: string; note: string }>(await client.callTool({ name: 'get_site_link', arguments: { purpose: 'move', booking_id: id } }));
      assert.equal(move.url, `http://consulta.test/consultations/${id}/move`);
      assert.match(move.note, /chooses the new time there themselves/);
      // The page is the person's own: it answers them.
      assert.equal((await agent.person.client.get(new URL(move.url).pathname)).statusCode, 200);
      const stranger = await connectedAgent(ctx, `stranger-${target.name}@example.com`, ALL_LEVELS);
      const strangerClient = await sdkClient(ctx, stranger.accessToken, 'legacy');
      try {
        assert.equal(errorCode(await strangerClient.callTool({ name: 'get_site_link', arguments: { purpose: 'cancel', booking_id: id } })), 'not_found');
        assert.equal(errorCode(await strangerClient.callTool({ name: 'get_my_booking', arguments: { booking_id: id } })), 'not_found');
      } finally {
        await strangerClient.close();
      }
      const missing = await client.callTool({ name: 'get_site_link', arguments: { purpose: 'move' } });
      assert.equal(errorCode(missing), 'invalid_request');
      assert.match(JSON.stringify(missing.content), /booking_id/);
    });

    it('still the spec\'s 15 tools; none cancels, moves or refunds', async () => {
      const { tools } = await client.listTools();
      assert.equal(tools.length, 15);
      assert.deepEqual(tools.map((t) => t.name), TOOL_NAMES);
      assert.ok(!tools.some((t) => /cancel|move|refund/.test(t.name)));
      const schema = tools.find((t) => t.name === 'get_my_booking')!.outputSchema as { properties: Record<string, unknown> };
      assert.ok('cancellation_policy' in schema.properties, 'declared in the output schema');
    });
  });
}
