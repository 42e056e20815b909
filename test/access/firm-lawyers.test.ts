/**
 * Firms' lawyers (issue 18 item 8; docs/keys-and-firms.md#lawyers-of-a-firm), on every database,
 * over the app: an owner invites a lawyer by her public id (or profile address); she accepts,
 * declines or leaves from her earnings page; only then do the firm's owners see her bookings
 * (date, time, lawyer, status — never who booked, never her calendar) and her earnings.
 * Attacks: a member who is not an owner, another firm's owner, a lawyer who did not accept, a
 * lawyer answering an invitation that is not hers, ids planted in forms.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DECLINED_PAUSE_DAYS } from '../../src/domain/access/firm-lawyers.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/firms.ts';
import { pageText } from '../support/site.ts';
import { ledger, linkLawyer } from '../payments/earnings-support.ts';

for (const target of databaseTargets()) {
  describe(`firms' lawyers: consent first, owners only, minimal data (${target.name})`, () => {
    let ctx: TestContext;
    let lucia: string;
    let pablo: string;
    let noAccount: string;
    let owner: SignedIn;
    let admin: SignedIn;
    let member: SignedIn;
    let otherOwner: SignedIn;
    let her: SignedIn;
    let him: SignedIn;
    let client: SignedIn;
    const rows = () => ctx.database.db.selectFrom('firm_lawyers').select(['firm_id', 'lawyer_id', 'status']).orderBy('firm_id').orderBy('lawyer_id').execute();
    const invite = async (who: SignedIn, slug: string, lawyer: string) => {
      await who.client.get(`/firms/${slug}/lawyers`);
      return who.client.post(`/firms/${slug}/lawyers`, { lawyer });
    };

    before(async () => {
      ctx = await createTestContext(target);
      [lucia, pablo, noAccount] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Lucía Fernández Ruiz', consultation_fee_cents: 6000, platform_commission_percent: 10 }),
        lawyerRecord({ name: 'Pablo Gómez Sanz', consultation_fee_cents: 9000, platform_commission_percent: 10 }),
        lawyerRecord({ name: 'Sin Cuenta', consultation_fee_cents: 5000 }),
      ])) as [string, string, string];
      owner = await signedIn(ctx, 'owner@firm.example');
      admin = await signedIn(ctx, 'admin@firm.example');
      member = await signedIn(ctx, 'member@firm.example');
      otherOwner = await signedIn(ctx, 'owner@other.example');
      her = await signedIn(ctx, 'lucia@example.com');
      him = await signedIn(ctx, 'pablo@example.com');
      client = await signedIn(ctx, 'maria.client@example.com');
      await linkLawyer(ctx.database, lucia, her.userId);
      await linkLawyer(ctx.database, pablo, him.userId);
      const { accounts } = ctx.app.services;
      await accounts.createFirm({ type: 'user', userId: owner.userId }, { slug: 'bufete', name: 'Bufete Norte' });
      await accounts.addMember(OPERATOR, 'bufete', admin.email, 'admin');
      await accounts.addMember(OPERATOR, 'bufete', member.email, 'member', ['usage:read', 'keys:manage']);
      await accounts.createFirm({ type: 'user', userId: otherOwner.userId }, { slug: 'otro', name: 'Otro Despacho' });
      ctx.clock.set('2026-11-23T08:00:00Z');
      await ledger(ctx.database, { lawyerId: lucia, userId: client.userId, date: '2026-11-27', hour: '11', paid: 6000, fee: 600 });
      await ledger(ctx.database, { lawyerId: lucia, userId: client.userId, date: '2026-10-02', paid: 6000, fee: 600, refund: { amount: 6000, status: 'succeeded' }, status: 'cancelled_by_person' });
      await ledger(ctx.database, { lawyerId: pablo, userId: client.userId, date: '2026-11-28', hour: '12', paid: 9000, fee: 900 });
      // Her calendar's private busy times: never shown to the firm.
      await ctx.database.db.insertInto('lawyer_busy_intervals').values({ lawyer_id: lucia, source: 'ical', starts_at: '2026-11-26T09:00:00.000Z', ends_at: '2026-11-26T10:00:00.000Z' }).execute();
    });
    after(async () => ctx?.close());

    it('an owner invites by public id or profile address; mistakes come back as the form with a message', async () => {
      const sent = await invite(owner, 'bufete', `http://consulta.test/lawyers/${lucia}`);
      assert.equal(sent.statusCode, 303);
      assert.equal(sent.headers.location, '/firms/bufete/lawyers?done=invited');
      const page = pageText((await owner.client.get(String(sent.headers.location))).body);
      assert.match(page, /Invitation sent/);
      assert.match(page, /Lucía Fernández Ruiz Invited, waiting for her answer/);

      const twice = await invite(owner, 'bufete', lucia);
      assert.equal(twice.statusCode, 409);
      assert.match(pageText(twice.body), /already invited/);
      const unknown = await invite(owner, 'bufete', '<script>alert(1)</script>');
      assert.equal(unknown.statusCode, 422);
      assert.match(pageText(unknown.body), /There is a problem No lawyer has that id/);
      assert.doesNotMatch(unknown.body, /<script>alert/);
      assert.match(unknown.body, /value="&lt;script>alert\(1\)&lt;\/script>"/);
      const nobody = await invite(owner, 'bufete', noAccount);
      assert.equal(nobody.statusCode, 422);
      assert.match(pageText(nobody.body), /has no account on Consulta yet/);
    });

    it('before she accepts, the firm sees none of her bookings or earnings', async () => {
      const page = pageText((await owner.client.get('/firms/bufete/lawyers')).body);
      assert.match(page, /Bookings .* No bookings\./);
      assert.doesNotMatch(page, /€60\.00|27 November/);
      const service = await ctx.app.services.firmLawyers.bookings({ type: 'user', userId: owner.userId }, 'bufete');
      assert.deepEqual(service.bookings, []);
    });

    it('she sees the invitation on her earnings page and accepts; then the owner sees date, time, lawyer, status and earnings — never who booked, nor her calendar', async () => {
      const mine = pageText((await her.client.get('/lawyer/earnings')).body);
      assert.match(mine, /Bufete Norte invites you to join it/);
      const accepted = await her.client.post('/lawyer/earnings/firms/bufete/accept', {});
      assert.equal(accepted.statusCode, 303);
      assert.match(pageText((await her.client.get(String(accepted.headers.location))).body), /You joined the firm\. .*You are one of Bufete Norte’s lawyers/);

      const res = await owner.client.get('/firms/bufete/lawyers');
      assert.equal(res.statusCode, 200);
      const page = pageText(res.body);
      assert.match(page, /Friday, 27 November 2026, 11:00–11:59 Lucía Fernández Ruiz · Booked/);
      assert.doesNotMatch(page, /2 October 2026 10:00/, 'bookings list from 30 days back');
      assert.match(page, /All the firm’s lawyers Consultations 2 People paid €120\.00 Refunded €60\.00 Platform’s share €6\.00 Yours €54\.00/);
      assert.doesNotMatch(page, /Pablo Gómez Sanz|€90\.00/, 'a lawyer not invited is not shown');
      assert.ok(!res.body.includes('maria.client@example.com'), 'never who booked');
      assert.doesNotMatch(page, /26 November/, 'never her calendar’s busy times');
      assert.equal(res.headers['cache-control'], 'private, no-store');
      const es = pageText((await owner.client.get('/firms/bufete/lawyers?lang=es')).body);
      assert.match(es, /viernes, 27 de noviembre de 2026, 11:00–11:59 Lucía Fernández Ruiz · Reservada/);
      await owner.client.get('/firms/bufete/lawyers?lang=en');
    });

    it('attacks: a member or admin who is not an owner, and another firm’s owner, see nothing and change nothing', async () => {
      const before = await rows();
      for (const who of [admin, member]) {
        const res = await who.client.get('/firms/bufete/lawyers');
        assert.equal(res.statusCode, 403);
        assert.doesNotMatch(pageText(res.body), /Lucía|27 November/);
        await who.client.get('/firms/bufete');
        assert.equal((await who.client.post('/firms/bufete/lawyers', { lawyer: pablo })).statusCode, 403);
        assert.equal((await who.client.post(`/firms/bufete/lawyers/${lucia}/remove`, {})).statusCode, 403);
      }
      const outsider = await otherOwner.client.get('/firms/bufete/lawyers');
      assert.equal(outsider.statusCode, 404);
      await otherOwner.client.get('/firms/otro/lawyers');
      assert.equal((await otherOwner.client.post(`/firms/bufete/lawyers/${lucia}/remove`, {})).statusCode, 404);
      // Her id in another firm's remove URL: not that firm's lawyer.
      assert.equal((await otherOwner.client.post(`/firms/otro/lawyers/${lucia}/remove`, {})).statusCode, 404);
      // Another firm cannot claim her: its invitation waits for her answer and shows nothing.
      assert.equal((await otherOwner.client.post('/firms/otro/lawyers', { lawyer: lucia })).statusCode, 303);
      assert.doesNotMatch(pageText((await otherOwner.client.get('/firms/otro/lawyers')).body), /27 November|€120/);
      assert.deepEqual((await rows()).filter((r) => r.status === 'accepted').length, before.filter((r) => r.status === 'accepted').length);
      // Without a CSRF token nothing is sent.
      assert.equal((await owner.client.post('/firms/bufete/lawyers', { lawyer: pablo, _csrf: 'forged' })).statusCode, 403);
    });

    it('a lawyer can only answer her own invitations; another lawyer cannot accept for her', async () => {
      // Pablo was never invited by Bufete Norte, and cannot accept Lucía's invitation from "otro".
      await him.client.get('/lawyer/earnings');
      assert.equal((await him.client.post('/lawyer/earnings/firms/bufete/accept', {})).statusCode, 404);
      assert.equal((await him.client.post('/lawyer/earnings/firms/otro/accept', {})).statusCode, 404);
      assert.equal((await him.client.post('/lawyer/earnings/firms/otro/steal', {})).statusCode, 404);
      // A person who is not a lawyer has no invitations to answer: the portal's "for lawyers" page.
      await client.client.get('/account');
      assert.equal((await client.client.post('/lawyer/earnings/firms/otro/accept', {})).statusCode, 403);
      const otro = (await rows()).find((r) => r.lawyer_id === lucia && r.status === 'invited');
      assert.ok(otro, 'still waiting for her answer');
      // She declines it; the firm cannot send it again for DECLINED_PAUSE_DAYS.
      await her.client.get('/lawyer/earnings');
      assert.equal((await her.client.post('/lawyer/earnings/firms/otro/decline', {})).statusCode, 303);
      const again = await invite(otherOwner, 'otro', lucia);
      assert.equal(again.statusCode, 409);
      assert.match(pageText(again.body), /declined/);
      ctx.clock.advance((DECLINED_PAUSE_DAYS + 1) * 86_400_000);
      assert.equal((await invite(otherOwner, 'otro', lucia)).statusCode, 303);
      ctx.clock.set('2026-11-23T08:00:00Z');
    });

    it('she may leave; the owner may remove or withdraw: the firm then sees nothing of her', async () => {
      await her.client.get('/lawyer/earnings');
      assert.equal((await her.client.post('/lawyer/earnings/firms/bufete/leave', {})).statusCode, 303);
      const page = pageText((await owner.client.get('/firms/bufete/lawyers')).body);
      assert.doesNotMatch(page, /27 November|€120/);
      // Re-invited after she left, she accepts again; then the owner ends it.
      assert.equal((await invite(owner, 'bufete', lucia)).statusCode, 303);
      await her.client.get('/lawyer/earnings');
      assert.equal((await her.client.post('/lawyer/earnings/firms/bufete/accept', {})).statusCode, 303);
      await owner.client.get('/firms/bufete/lawyers');
      assert.match(pageText(owner.client.last!.body), /27 November/);
      const removed = await owner.client.post(`/firms/bufete/lawyers/${lucia}/remove`, {});
      assert.equal(removed.statusCode, 303);
      assert.doesNotMatch(pageText((await owner.client.get('/firms/bufete/lawyers')).body), /27 November/);
      assert.equal((await owner.client.post(`/firms/bufete/lawyers/${lucia}/remove`, {})).statusCode, 404);
    });
  });
}
