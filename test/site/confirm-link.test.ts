/**
 * The confirmation link after payment (issue 17): it sits in the receipt and in the .ics, which
 * travel (forwarded mail, shared calendars), so once the booking is paid its page shows the
 * booking to the signed-in person who paid and to nobody else — signed out: the sign-in page;
 * another account: a page that says so. Before payment the link stays a capability
 * (DESIGN.md §7). Over app.inject, on both databases.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText, SiteClient } from '../support/site.ts';

const LAWYER_NAME = 'Nadia El Amrani';
const CARD = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: 'Ana' };

for (const target of databaseTargets()) {
  describe(`the confirmation link after payment (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let owner: SignedIn;
    let other: SignedIn;
    let dayUsed = 0;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ name: LAWYER_NAME, weekly_hours: EVERY_DAY_9_TO_14, consultation_fee_cents: 7300 })])) as [string];
      owner = await signedIn(ctx, 'ana@example.com');
      other = await signedIn(ctx, 'bob@example.com');
    });
    after(async () => ctx?.close());

    /** A REST (anonymous) hold on a day of its own; its token. */
    async function hold(): Promise<string> {
      const res = await initiate(ctx, slotBody(lawyer, `2026-11-${25 + dayUsed++}`, '11:00'));
      assert.equal(res.statusCode, 201, res.body);
      return tokenOf(res.json().confirmation_url);
    }

    /** Pays a hold as `who` through the site's demo checkout. */
    async function pay(who: SignedIn, token: string): Promise<void> {
      await who.client.get(`/confirm/${token}/pay`);
      const res = await who.client.post(`/confirm/${token}/pay`, CARD);
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/confirm/${token}`);
    }

    /** Nothing of the booking: no lawyer, no day or time, no price, no link to it. */
    function assertNoDetails(html: string, where: string) {
      const text = pageText(html);
      for (const secret of [LAWYER_NAME, lawyer, '€73', '73,00', '11:00', '12:00', 'November', 'noviembre', '/consultations/']) {
        assert.ok(!text.includes(secret) && !html.includes(secret), `${where}: shows ${secret}`);
      }
    }

    it('the person who paid sees the booking, with the link to it in My consultations', async () => {
      const token = await hold();
      await pay(owner, token);
      const page = await owner.client.get(`/confirm/${token}`);
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      assert.match(text, /Your consultation is booked/);
      assert.ok(text.includes(LAWYER_NAME) && text.includes('€73.00'), text);
      assert.match(page.body, /href="\/consultations\/[0-9a-f-]{36}"/);
    });

    it('signed out: the sign-in page, saying why, coming back to the link; nothing of the booking in the HTML', async () => {
      const token = await hold();
      await pay(owner, token);
      for (const [lang, why] of [
        ['en', /This booking has been paid\. Its details are shown only to the account that booked it/],
        ['es', /Esta reserva ya está pagada\. Sus detalles solo los ve la cuenta con la que se reservó/],
      ] as const) {
        const visitor = new SiteClient(ctx.app.fastify, undefined, { 'accept-language': lang });
        const page = await visitor.get(`/confirm/${token}`);
        assert.equal(page.statusCode, 200);
        assert.match(pageText(page.body), why);
        assert.match(page.body, /<form method="post" action="\/sign-in"/);
        assert.ok(page.body.includes(`name="return_to" value="/confirm/${token}"`), 'sign-in comes back to the link');
        assert.equal(page.headers['x-robots-tag'], 'noindex');
        assertNoDetails(page.body, `signed out (${lang})`);
        // The payment step says nothing either.
        const pay = await visitor.get(`/confirm/${token}/pay`);
        assert.equal(pay.statusCode, 303);
      }
      // Signing in as the owner from there shows it.
      const back = await owner.client.get(`/confirm/${token}`);
      assert.ok(pageText(back.body).includes(LAWYER_NAME));
    });

    it('another account: a page saying the booking is another account\'s, offering to sign in as it; nothing of the booking', async () => {
      const token = await hold();
      await pay(owner, token);
      const page = await other.client.get(`/confirm/${token}`);
      assert.equal(page.statusCode, 403);
      assert.match(pageText(page.body), /This booking belongs to another account/);
      assert.match(pageText(page.body), /You are signed in as bob@example\.com/);
      assert.ok(!page.body.includes('ana@example.com'), 'the owner is not named');
      assertNoDetails(page.body, 'another account');
      // The pay step sends it back to the same page, and paying again changes nothing.
      const payPage = await other.client.get(`/confirm/${token}/pay`);
      assert.deepEqual([payPage.statusCode, payPage.headers.location], [303, `/confirm/${token}`]);
      const retry = await other.client.post(`/confirm/${token}/pay`, CARD);
      assert.equal(retry.statusCode, 303);
      assertNoDetails((await other.client.get(`/confirm/${token}`)).body, 'another account, after a pay attempt');
      // "Sign in with another account": signs out, then the sign-in page that comes back here.
      const switched = await other.client.post('/sign-out', { return_to: `/sign-in?return_to=${encodeURIComponent(`/confirm/${token}`)}` });
      assert.equal(switched.statusCode, 303);
      assert.equal(switched.headers.location, `/sign-in?return_to=${encodeURIComponent(`/confirm/${token}`)}`);
      assert.equal(await ctx.app.services.sessions.authenticate(other.token), null, 'signed out for real');
      other = await signedIn(ctx, 'bob@example.com');
    });

    it('sign-out only continues to a path of ours', async () => {
      const c = (await signedIn(ctx, 'carla@example.com')).client;
      await c.get('/consultations');
      const res = await c.post('/sign-out', { return_to: 'https://evil.example/' });
      assert.equal(res.headers.location, '/');
    });

    it('before payment the link stays a capability: signed out or another account, the hold is shown', async () => {
      const token = await hold();
      const signedOut = await new SiteClient(ctx.app.fastify).get(`/confirm/${token}`);
      assert.equal(signedOut.statusCode, 200);
      assert.ok(pageText(signedOut.body).includes(LAWYER_NAME));
      const asOther = await other.client.get(`/confirm/${token}`);
      assert.equal(asOther.statusCode, 200);
      assert.ok(pageText(asOther.body).includes(LAWYER_NAME));
      // Signed in, the way to payment is the hold page's choices (issue 20), which lead to /pay.
      assert.match(asOther.body, new RegExp(`action="/confirm/${token}/choices"`));
    });
  });
}
