/**
 * The consent page selects the least level the app needs (issue 25, item 7): the MCP Inspector
 * ignores the challenge's scope and asks for every level, and the page used to preselect the
 * highest one asked, so one click granted an app everything. Now the level the MCP server's last
 * insufficient_scope challenge named for this person and app is selected (directory:read when
 * there was none: a first connection's 401 names it), or what the app may already do if more; the
 * page says the app asks for more, and marks each extra level with what it would let the app do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';
import { sdkClient } from '../mcp/support.ts';
import { authorize, connect, registerClient } from './support.ts';
import { signedIn } from '../support/dashboard.ts';

const EVERY_LEVEL = 'directory:read slots:hold my-bookings:read offline_access';
const checked = (html: string) => /name="level" value="([^"]+)" checked/.exec(html)?.[1];

for (const target of databaseTargets()) {
  describe(`the consent page selects what the app needs, not what it asks (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
    });
    after(() => ctx?.close());

    it('a first connection asking for every level: directory:read selected, the two extra levels marked, the page says it asks for more', async () => {
      const clientId = await registerClient(ctx, { client_name: 'Greedy Inspector' });
      const me = await signedIn(ctx, 'first@example.com');
      const { consentPage } = await authorize(ctx, me.client, { clientId, scope: EVERY_LEVEL, answer: 'preselected' });
      assert.ok(consentPage);
      assert.equal(checked(consentPage.body), 'directory:read');
      const text = pageText(consentPage.body);
      assert.match(text, /Greedy Inspector asks for more than it needs for what it has tried to do\. “Browse the directory” is selected\./);
      assert.equal((text.match(/Asked for, but not needed yet\./g) ?? []).length, 2, 'slots:hold and my-bookings:read');
      // Allowing as selected grants directory:read only.
      assert.deepEqual((await ctx.app.services.connectedApps.list(me.userId))[0]?.levels, ['directory:read']);
    });

    it('after a 403 for hold_consultation_slot, an app asking for every level gets slots:hold selected; my-bookings:read stays an explicit choice', async () => {
      const clientId = await registerClient(ctx, { client_name: 'Greedy Inspector' });
      const me = await signedIn(ctx, 'stepup@example.com');
      const tokens = await connect(ctx, me.client, { clientId, scope: 'directory:read' });
      const client = await sdkClient(ctx, tokens.access_token);
      try {
        await assert.rejects(client.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: lawyer, date: '2026-11-25', start_time: '09:00:00', end_time: '10:00:00' } }));
      } finally {
        await client.close();
      }
      const { consentPage } = await authorize(ctx, me.client, { clientId, scope: EVERY_LEVEL, answer: 'preselected' });
      assert.ok(consentPage);
      assert.equal(checked(consentPage.body), 'slots:hold', 'what the refused tool needs');
      const text = pageText(consentPage.body);
      assert.match(text, /“Hold times in my name” is selected/);
      assert.match(text, /See my consultations my-bookings:read \(the app asks for this\) Read the consultations I have booked and the holds it made\. Asked for, but not needed yet\./);
      assert.deepEqual((await ctx.app.services.connectedApps.list(me.userId))[0]?.levels, ['directory:read', 'slots:hold']);
      // Another app of the same person was never challenged: its own first connection selects directory:read.
      const other = await registerClient(ctx, { client_name: 'Other app' });
      assert.equal(checked((await authorize(ctx, me.client, { clientId: other, scope: EVERY_LEVEL, answer: 'deny' })).consentPage!.body), 'directory:read');
    });

    it('an app asking exactly what the challenge named sees no warning', async () => {
      const clientId = await registerClient(ctx);
      const me = await signedIn(ctx, 'exact@example.com');
      const { consentPage } = await authorize(ctx, me.client, { clientId, scope: 'directory:read', answer: 'preselected' });
      assert.ok(consentPage);
      assert.equal(checked(consentPage.body), 'directory:read');
      assert.doesNotMatch(pageText(consentPage.body), /asks for more than it needs|not needed yet/);
    });
  });
}
