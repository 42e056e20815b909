/**
 * The site foundation through app.inject(): languages, strict CSP and hashed assets, the search
 * form over the directory service, CSRF and origin checks on every POST, HTML error pages, and
 * holding a time from the lawyer's booking page (a widget intent under the anonymous limits).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText, SiteClient } from '../support/site.ts';

for (const target of databaseTargets()) {
  describe(`site foundation (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    before(async () => {
      ctx = await createTestContext(target, { config: { rateLimitMultiplier: 1 } });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Nadia <b>El</b> Amrani', city: 'almeria', languages: ['es', 'ar'] })])) as [string];
      ctx.app.services.directoryCache.invalidate();
    });
    after(async () => ctx?.close());

    it('answers in Spanish by default, in English for Accept-Language: en, and remembers ?lang=', async () => {
      const es = await ctx.app.fastify.inject({ url: '/' });
      assert.equal(es.statusCode, 200);
      assert.match(es.body, /<html lang="es" dir="ltr">/);
      assert.match(es.body, /Encuentra a tu abogada o abogado/);
      const en = await ctx.app.fastify.inject({ url: '/', headers: { 'accept-language': 'de;q=1, en-GB;q=0.8, es;q=0.5' } });
      assert.match(en.body, /<html lang="en" dir="ltr">/);
      // French is a site language now (a people-only one): it wins when the browser puts it first.
      const fr = await ctx.app.fastify.inject({ url: '/', headers: { 'accept-language': 'fr;q=1, en-GB;q=0.8, es;q=0.5' } });
      assert.match(fr.body, /<html lang="fr" dir="ltr">/);
      const client = new SiteClient(ctx.app.fastify);
      const chosen = await client.get('/?lang=en');
      assert.match(chosen.body, /<html lang="en" dir="ltr">/);
      assert.equal(client.cookies.get('consulta_lang'), 'en');
      // The switcher keeps the page and its query.
      assert.match(chosen.body, /href="\/\?lang=es"/);
      const again = await client.get('/docs/errors', { 'accept-language': 'es' });
      assert.match(again.body, /<html lang="en" dir="ltr">/, 'the remembered choice beats Accept-Language');
    });

    it('sends a strict CSP (no inline script or style) and serves hashed assets for a year', async () => {
      const res = await ctx.app.fastify.inject({ url: '/' });
      const csp = String(res.headers['content-security-policy']);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /form-action 'self'/);
      assert.doesNotMatch(res.body, /<style|style="/, 'no inline style');
      assert.doesNotMatch(res.body, /<script>|<script [^>]*>[^<]+<\/script>/, 'no inline script');
      const css = /href="(\/assets\/site\.[0-9a-f]{10}\.css)"/.exec(res.body)?.[1];
      assert.ok(css, 'the stylesheet has a hashed name');
      const asset = await ctx.app.fastify.inject({ url: css });
      assert.equal(asset.statusCode, 200);
      assert.match(String(asset.headers['content-type']), /text\/css/);
      assert.match(String(asset.headers['cache-control']), /immutable/);
      assert.equal((await ctx.app.fastify.inject({ url: '/assets/site.0000000000.css' })).statusCode, 404);
    });

    it('searches the directory from the home form, and explains bad values instead of failing', async () => {
      const found = await ctx.app.fastify.inject({ url: '/?city=almeria&language=ar&max_fee_eur=100&lang=en' });
      assert.equal(found.statusCode, 200);
      const text = pageText(found.body);
      assert.match(text, /1 lawyer found/);
      assert.match(text, /Nadia <b>El<\/b> Amrani/, 'the name is shown as text');
      assert.doesNotMatch(found.body, /<b>El<\/b>/, 'and never as markup');
      const bad = await ctx.app.fastify.inject({ url: '/?max_fee_eur=abc&lang=en' });
      assert.equal(bad.statusCode, 400);
      assert.match(bad.body, /aria-invalid="true"/);
      // Each field says what it takes, not only "Check this value".
      assert.match(pageText(bad.body), /Enter an amount in euros, such as 80, or leave it empty\./);
      const unknownCity = await ctx.app.fastify.inject({ url: '/?city=atlantis&lang=en' });
      assert.equal(unknownCity.statusCode, 400);
      assert.match(pageText(unknownCity.body), /Choose one of the list\./);
      const arabic = await ctx.app.fastify.inject({ url: '/?max_fee_eur=-5&lang=ar' });
      assert.match(pageText(arabic.body), /اكتب مبلغًا باليورو، مثل 80، أو اترك الحقل فارغًا\./);
    });

    it('shows people an HTML 404 page and machines a problem document', async () => {
      const page = await ctx.app.fastify.inject({ url: '/no/such/page', headers: { accept: 'text/html' } });
      assert.equal(page.statusCode, 404);
      assert.match(String(page.headers['content-type']), /text\/html/);
      assert.match(page.body, /Página no encontrada/);
      const api = await ctx.app.fastify.inject({ url: '/api/v1/nope', headers: { accept: 'text/html' } });
      assert.match(String(api.headers['content-type']), /^application\/problem\+json/);
      const profile = await ctx.app.fastify.inject({ url: '/lawyers/00000000-0000-4000-8000-000000000000', headers: { accept: 'text/html' } });
      assert.equal(profile.statusCode, 404);
      assert.match(String(profile.headers['content-type']), /text\/html/);
    });

    it('refuses a POST without the form\'s CSRF token, or from another origin', async () => {
      const client = new SiteClient(ctx.app.fastify);
      await client.get(`/lawyers/${lawyerId}/book`);
      const form = { slot: '2026-11-24|10:00:00|11:00:00' };
      const noToken = await client.post(`/lawyers/${lawyerId}/book`, { ...form, _csrf: 'forged' });
      assert.equal(noToken.statusCode, 403);
      assert.match(noToken.body, /caducado|expired/);
      const crossSite = await client.post(`/lawyers/${lawyerId}/book`, form, { 'sec-fetch-site': 'cross-site' });
      assert.equal(crossSite.statusCode, 403);
      const otherOrigin = await client.post(`/lawyers/${lawyerId}/book`, form, { origin: 'https://evil.example' });
      assert.equal(otherOrigin.statusCode, 403);
      const fresh = new SiteClient(ctx.app.fastify);
      const noCookie = await fresh.post(`/lawyers/${lawyerId}/book`, { ...form, _csrf: client.csrf() });
      assert.equal(noCookie.statusCode, 403, 'a token without its secret cookie is refused');
      const held = await ctx.database.db.selectFrom('slot_holds').selectAll().execute();
      assert.equal(held.length, 0, 'nothing was held by a refused form');
    });

    it('gives each first visit its own 18-byte CSRF secret, once, and keeps it on the next page', async () => {
      const secrets = new Set<string>();
      for (let i = 0; i < 300; i++) {
        const res = await ctx.app.fastify.inject({ url: `/lawyers/${lawyerId}/book` });
        const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).filter((c) => c.startsWith('__Host-consulta_csrf=') || c.startsWith('consulta_csrf='));
        assert.equal(set.length, 1, 'one secret cookie per first visit');
        assert.match(set[0]!, /^(__Host-)?consulta_csrf=[A-Za-z0-9_-]{24};.*HttpOnly/i);
        secrets.add(set[0]!.split(';')[0]!.split('=')[1]!);
      }
      // 300 visits span more than one 4 KB pool of random bytes: no secret repeats across refills.
      assert.equal(secrets.size, 300);
      const client = new SiteClient(ctx.app.fastify);
      await client.get(`/lawyers/${lawyerId}/book`);
      const again = await client.get(`/lawyers/${lawyerId}/book`);
      assert.equal(([] as string[]).concat(again.headers['set-cookie'] ?? []).filter((c) => /consulta_csrf=/.test(c)).length, 0, 'a known browser keeps its secret');
    });

    it('holds a time from the booking page as a widget intent, once per form even when submitted twice', async () => {
      const client = new SiteClient(ctx.app.fastify);
      const page = await client.get(`/lawyers/${lawyerId}/book`);
      assert.equal(page.statusCode, 200);
      const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)?.[1];
      assert.ok(nonce);
      const form = { slot: '2026-11-24|10:00:00|11:00:00', nonce };
      const first = await client.post(`/lawyers/${lawyerId}/book`, form);
      assert.equal(first.statusCode, 303);
      assert.match(String(first.headers.location), /^\/confirm\/[A-Za-z0-9_-]{20,64}$/);
      const second = await client.post(`/lawyers/${lawyerId}/book`, form);
      assert.equal(second.headers.location, first.headers.location, 'a double tap replays the same hold');
      const intents = await ctx.database.db.selectFrom('booking_intents').selectAll().execute();
      assert.equal(intents.length, 1);
      assert.equal(intents[0]!.source, 'widget');
      assert.equal(intents[0]!.key_id, null, 'owned by nobody until confirmed');
      // Someone else choosing the same time gets the page again, saying it was taken.
      const other = new SiteClient(ctx.app.fastify);
      const otherPage = await other.get(`/lawyers/${lawyerId}/book`);
      const otherNonce = /name="nonce" value="([^"]+)"/.exec(otherPage.body)![1]!;
      const taken = await other.post(`/lawyers/${lawyerId}/book`, { ...form, nonce: otherNonce });
      assert.equal(taken.statusCode, 409);
      assert.match(pageText(taken.body), /se acaba de ocupar/);
    });

    it('applies the anonymous initiation limit (5 an hour per address) to new holds from the site; a replacement does not count', async () => {
      // Earlier tests in this file used 2 of this address's 5 an hour: the hold and the taken
      // attempt (a double tap replays the browser's own hold before any limit; forms refused for
      // CSRF did not count). Each browser below is new (no holds cookie) but for the replacement.
      const statuses: number[] = [];
      let last: SiteClient | undefined;
      const holdAt = async (client: SiteClient, hour: string) => {
        const page = await client.get(`/lawyers/${lawyerId}/book`);
        const nonce = /name="nonce" value="([^"]+)"/.exec(page.body)![1]!;
        const res = await client.post(`/lawyers/${lawyerId}/book`, { slot: `2026-11-25|${hour}:00:00|${String(Number(hour) + 1).padStart(2, '0')}:00:00`, nonce });
        statuses.push(res.statusCode);
        last = client;
      };
      const a = new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'x-test': 'limit' });
      await holdAt(a, '11');
      await holdAt(a, '12'); // the same browser, the same lawyer: replaces its 11:00, not counted
      await holdAt(new SiteClient(ctx.app.fastify, 'http://consulta.test'), '13');
      await holdAt(new SiteClient(ctx.app.fastify, 'http://consulta.test'), '11');
      await holdAt(new SiteClient(ctx.app.fastify, 'http://consulta.test'), '12');
      assert.deepEqual(statuses, [303, 303, 303, 303, 429]);
      assert.ok(Number(last!.last!.headers['retry-after']) > 0);
      assert.match(pageText(last!.last!.body), /Por ahora no puedes guardar más horas/);
    });
  });
}
