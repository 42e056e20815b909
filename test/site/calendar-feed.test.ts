/**
 * /lawyer/calendar-feed (docs/lawyers.md#busy-times-from-her-own-calendar), on both databases,
 * with a real calendar server on loopback: signed out → sign-in that comes back here; not a
 * lawyer → says so; her page in both languages; adding, refreshing (once a minute) and removing
 * her address with post/redirect/get; a bad address answered with the form, what she typed and
 * an error summary (never a 500); the address never shown back in full; CSRF and cross-site posts
 * refused; and she can only ever set her own feed (a lawyer id in the form is ignored).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { listBusyIntervals } from '../../src/db/repositories/calendar-feed.repository.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText, SiteClient } from '../support/site.ts';

const NOW = '2027-03-15T08:00:00.000Z';
const GOOGLE = fs.readFileSync(new URL('../lawyers/fixtures/calendar-feed/google.ics', import.meta.url), 'utf8');
const PATH = '/lawyer/calendar-feed';

for (const target of databaseTargets()) {
  describe(`/lawyer/calendar-feed (${target.name})`, () => {
    let ctx: TestContext;
    let server: http.Server;
    let feedUrl: string;
    let hits = 0;
    let ana: string;
    let berta: string;

    const linkUser = async (lawyerId: string, email: string, lang: 'en' | 'es' = 'en') => {
      const s = await signedIn(ctx, email, { lang });
      await ctx.database.db.updateTable('lawyers').set({ user_id: s.userId }).where('id', '=', lawyerId).execute();
      return s;
    };
    const feedOf = (lawyerId: string) => ctx.database.db.selectFrom('lawyer_calendar_feeds').selectAll().where('lawyer_id', '=', lawyerId).executeTakeFirst();

    before(async () => {
      server = http.createServer((req, res) => {
        hits++;
        if (req.url?.startsWith('/cal/')) res.writeHead(200, { 'content-type': 'text/calendar' }).end(GOOGLE);
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      feedUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/cal/private-TOPSECRET-token/basic.ics`;
      ctx = await createTestContext(target, { now: NOW, config: { webhookAllowInsecureTargets: true } });
      [ana, berta] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Ana Pérez' }), lawyerRecord({ name: 'Berta Ruiz' })], new Date(NOW))) as [string, string];
    });
    after(async () => {
      await ctx.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('signed out: GET and POST go to sign-in, which comes back here; nothing is stored', async () => {
      const client = new SiteClient(ctx.app.fastify);
      const page = await client.get(PATH);
      assert.equal(page.statusCode, 303);
      assert.equal(page.headers.location, `/sign-in?return_to=${encodeURIComponent(PATH)}`);
      // A signed-out browser with a valid CSRF pair (from any page) still cannot post.
      await client.get('/sign-in');
      const posted = await client.post(PATH, { url: feedUrl });
      assert.equal(posted.statusCode, 303);
      assert.match(String(posted.headers.location), /^\/sign-in/);
      assert.equal(await feedOf(ana), undefined);
    });

    it('a signed-in person who is not a lawyer is told so, and cannot post', async () => {
      const { client } = await signedIn(ctx, 'not-a-lawyer@example.com');
      const page = await client.get(PATH);
      assert.equal(page.statusCode, 403);
      assert.match(pageText(page.body), /This area is for lawyers on Consulta/);
      const posted = await client.post(PATH, { url: feedUrl });
      assert.equal(posted.statusCode, 403);
    });

    it('her page explains where to find the address (Google, Outlook, Apple) with a labelled field and the CSRF token; in Spanish too', async () => {
      const { client } = await linkUser(ana, 'ana@example.com');
      const page = await client.get(PATH);
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      for (const s of ['Busy times from your calendar', 'Google Calendar', 'Secret address in iCal format', 'Outlook', 'Apple iCloud', 'Add your calendar']) assert.ok(text.includes(s), s);
      assert.match(page.body, /<label for="f-url">/);
      assert.match(page.body, /name="_csrf" value="[^"]+"/);
      // In the portal, with this page marked in its navigation.
      assert.match(page.body, /href="\/lawyer\/calendar-feed" aria-current="page"/);
      assert.match(page.body, /href="\/lawyer\/earnings"/);
      const es = await client.get(`${PATH}?lang=es`);
      assert.match(pageText(es.body), /Horas ocupadas de su calendario/);
      assert.match(pageText(es.body), /Dirección secreta en formato iCal/);
    });

    it('issue 25: an applicant not yet verified is told her calendar can be added once verified, gets no form, and a form posted anyway saves and fetches nothing (both languages)', async () => {
      const [applicant] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Carla Solicitante' })], new Date(NOW))) as [string];
      await ctx.database.db.updateTable('lawyers').set({ status: 'applied', verified: 0, listed: 0 }).where('id', '=', applicant).execute();
      const { client } = await linkUser(applicant, 'carla@example.com');
      const page = await client.get(`${PATH}?lang=en`);
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /You can add your own calendar once we have verified you as a lawyer/);
      assert.ok(!page.body.includes('id="f-url"'), 'no address field');
      const before = hits;
      const posted = await client.post(PATH, { url: feedUrl });
      assert.equal(posted.statusCode, 303);
      assert.equal(posted.headers.location, `${PATH}?done=notVerified`);
      assert.equal(hits, before, 'nothing fetched');
      assert.equal(await feedOf(applicant), undefined, 'nothing saved');
      assert.match(pageText((await client.get(String(posted.headers.location))).body), /Your calendar can be added once we have verified you as a lawyer/);
      assert.match(pageText((await client.get(`${PATH}?lang=es`)).body), /Podrá añadir su propio calendario cuando hayamos verificado su colegiación/);
    });

    it('adds her address (post/redirect/get), reads it at once, and shows the status without the secret', async () => {
      const { client } = await linkUser(ana, 'ana@example.com');
      await client.get(`${PATH}?lang=en`);
      const before = hits;
      const posted = await client.post(PATH, { url: feedUrl });
      assert.equal(posted.statusCode, 303);
      assert.equal(posted.headers.location, `${PATH}?done=saved`);
      assert.equal(hits, before + 1);
      assert.equal((await listBusyIntervals(ctx.database.db, ana)).length, 11);
      const page = await client.get(String(posted.headers.location));
      const text = pageText(page.body);
      assert.match(text, /Saved\. Your calendar was read\./);
      assert.match(text, /11 in the next 90 days/);
      assert.ok(text.includes(`127.0.0.1:${(server.address() as AddressInfo).port} … oken/basic.ics`), 'the host and the last characters');
      assert.ok(!page.body.includes('TOPSECRET'), 'the secret part of the address is never shown back');
      // "Refresh now" at once: too soon (a minute); later: read again.
      const tooSoon = await client.post(`${PATH}/refresh`, {});
      assert.equal(tooSoon.headers.location, `${PATH}?done=tooSoon`);
      ctx.clock.advance(61_000);
      await client.get(PATH);
      const again = await client.post(`${PATH}/refresh`, {});
      assert.equal(again.headers.location, `${PATH}?done=refreshed`);
      assert.equal(hits, before + 2);
    });

    it('a bad address comes back with what she typed and an error summary (422, never a 500)', async () => {
      const { client } = await linkUser(berta, 'berta@example.com', 'es');
      await client.get(PATH);
      for (const [url, message] of [
        ['', /Pegue la dirección secreta/],
        ['calendario de google', /no es una dirección web/],
        ['ftp://example.com/cal.ics', /https:\/\/ o webcal:\/\//],
        ['x'.repeat(3000), /demasiado larga/],
      ] as const) {
        const page = await client.post(PATH, { url });
        assert.equal(page.statusCode, 422, url.slice(0, 30));
        assert.match(page.body, /id="error-summary"/);
        assert.match(pageText(page.body), message);
        if (url !== '' && url.length < 100) assert.ok(page.body.includes(`value="${url}"`), 'what she typed');
      }
      assert.equal(await feedOf(berta), undefined);
    });

    it('refuses a post without a valid CSRF token, or from another site; nothing changes', async () => {
      const { client } = await linkUser(berta, 'berta@example.com');
      await client.get(PATH);
      const forged = await client.post(PATH, { url: feedUrl, _csrf: 'forged' });
      assert.equal(forged.statusCode, 403);
      const crossSite = await client.post(PATH, { url: feedUrl }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      assert.equal(crossSite.statusCode, 403);
      const removeForged = await client.post(`${PATH}/remove`, { _csrf: 'forged' });
      assert.equal(removeForged.statusCode, 403);
      assert.equal(await feedOf(berta), undefined);
      assert.ok(await feedOf(ana), 'Ana\'s feed untouched');
    });

    it('object level: she can only set, refresh or remove her own feed — another lawyer\'s id in the form is ignored', async () => {
      const { client } = await linkUser(berta, 'berta@example.com');
      const anaBefore = await feedOf(ana);
      assert.ok(anaBefore);
      await client.get(PATH);
      const attack = await client.post(PATH, { url: `${feedUrl.replace('private-TOPSECRET-token', 'berta-own')}`, lawyer_id: ana, lawyerId: ana });
      assert.equal(attack.statusCode, 303);
      // Berta got a feed of her own; Ana's is exactly as it was.
      assert.match((await feedOf(berta))!.url, /berta-own/);
      assert.deepEqual(await feedOf(ana), anaBefore);
      // Berta's page never shows Ana's address hint; removing removes Berta's only.
      const page = await client.get(PATH);
      assert.ok(!page.body.includes('TOPSECRET'));
      await client.post(`${PATH}/remove?lawyer_id=${ana}`, { lawyer_id: ana });
      assert.equal(await feedOf(berta), undefined);
      assert.deepEqual(await feedOf(ana), anaBefore);
      assert.equal((await listBusyIntervals(ctx.database.db, ana)).length, 11);
    });
  });
}
