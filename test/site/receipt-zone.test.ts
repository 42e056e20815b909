/**
 * The visitor's own time in the receipt email (issue 19 item 2), through the site on both
 * databases: the zone the site knows (the `consulta_tz` cookie) when the person pays goes to the
 * receipt as a second "In your time" line; without it, or with a bogus cookie, the receipt shows
 * the lawyer's time only.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const SITE = 'https://consulta.example';

for (const target of databaseTargets()) {
  describe(`the receipt in the visitor's own time (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let n = 0;

    before(async () => {
      ctx = await createTestContext(target, { config: { siteUrl: SITE, baseUrl: `${SITE}/api/v1`, trustProxy: ['127.0.0.1'] } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Nadia El Amrani' })])) as [string];
    });
    after(async () => ctx?.close());

    const receiptTo = async (email: string) =>
      (await ctx.database.db.selectFrom('mail_outbox').select(['text', 'kind']).where('recipient', '=', email).execute()).find((m) => m.kind === 'consultation_receipt')?.text ?? '';

    /** Holds Tuesday 24 November at `hour` Madrid, signs in `email` with `zone` in the cookie, pays with the demo card. */
    async function payWithZone(email: string, hour: string, zone: string | null): Promise<string> {
      const res = await initiate(ctx, slotBody(lawyer, '2026-11-24', hour), { remoteAddress: `192.0.2.${++n}` });
      assert.equal(res.statusCode, 201, res.body);
      const token = tokenOf(res.json().confirmation_url);
      const me = await signedIn(ctx, email);
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('email', '=', email).execute();
      if (zone) me.client.cookies.set('consulta_tz', encodeURIComponent(zone));
      await me.client.get(`/confirm/${token}/pay`);
      const paid = await me.client.post(`/confirm/${token}/pay`, { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: '' });
      assert.equal(paid.statusCode, 303);
      return receiptTo(email);
    }

    it('adds the visitor\'s time (from the site\'s zone cookie) beside the lawyer\'s', async () => {
      const text = await payWithZone(`bogota-${target.name}@example.com`, '11', 'America/Bogota');
      assert.match(text, /When:\s+Tuesday,? 24 November 2026, 11:00–12:00 \(mainland Spain time, UTC\+01:00\)/);
      assert.match(text, /In your time:\s+Tuesday,? 24 November 2026, 05:00–06:00 \([^)]*Colombia[^)]*, UTC-05:00\)/);
    });

    it('shows the lawyer\'s time only without a zone, or with one that is not a zone', async () => {
      for (const [email, hour, zone] of [[`none-${target.name}@example.com`, '12', null], [`bad-${target.name}@example.com`, '13', 'Mars/Olympus']] as const) {
        const text = await payWithZone(email, hour, zone);
        assert.match(text, /When:\s+Tuesday,? 24 November 2026/, email);
        assert.doesNotMatch(text, /In your time/, email);
      }
    });
  });
}
