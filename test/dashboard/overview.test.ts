/**
 * The developer overview (`/developer`) over the real app and database (both): the
 * getting-started checklist reads each step from the database and flips it exactly when its
 * condition happens — a test key made, a request by one of the person's keys logged, the log
 * opened on a request of theirs, an endpoint added, a live key answered with success — with the
 * next action's button; firm keys and endpoints count when the person created them in a firm
 * they still belong to; the old entry's links keep working; Spanish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/access/types.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { pageText } from '../support/site.ts';

const OPERATOR: Actor = { type: 'operator' };
// A public address literal: the real address policy accepts it without DNS.
const PUBLIC_URL = 'https://93.184.216.34/hooks/consulta';
const STEPS = ['test_key', 'first_request', 'log_seen', 'webhook', 'live', 'widget'] as const;

/** Each step's state as the page shows it: `data-step="…" data-done="yes|no"`. */
function stepsOf(html: string): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const m of html.matchAll(/data-step="([a-z_]+)" data-done="(yes|no)"/g)) out[m[1]!] = m[2] === 'yes';
  return out;
}
const done = (html: string) => STEPS.filter((s) => stepsOf(html)[s]);
/** The actions of the open steps, as [step, href, text, is the button]. */
function actionsOf(html: string): Array<[string, string, string, boolean]> {
  return [...html.matchAll(/<li class="checklist-step[^"]*" data-step="([a-z_]+)" data-done="no">[\s\S]*?<p class="checklist-action"><a(?: class="(button)")? href="([^"]+)">([^<]+)<\/a>/g)].map((m) => [
    m[1]!,
    m[3]!.replaceAll('&amp;', '&'),
    m[4]!,
    m[2] === 'button',
  ]);
}

for (const target of databaseTargets()) {
  describe(`developer overview (${target.name})`, () => {
    let ctx: TestContext;
    let n = 0;
    before(async () => {
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0 } });
    });
    after(async () => ctx?.close());

    const person = (lang: 'en' | 'es' = 'en') => signedIn(ctx, `overview-${++n}-${target.name}@example.com`, { lang });
    const actorOf = (me: SignedIn): Actor => ({ type: 'user', userId: me.userId });
    const overview = async (me: SignedIn) => {
      const res = await me.client.get('/developer');
      assert.equal(res.statusCode, 200);
      return res.body;
    };
    const api = async (token: string, url = '/api/v1/practice-areas') => {
      const res = await ctx.app.fastify.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } });
      await ctx.app.services.requestLog.flush();
      return res;
    };

    it('is the dashboard entry: signed out it asks to sign in and comes back; every developer page is linked', async () => {
      const out = await ctx.app.fastify.inject({ method: 'GET', url: '/developer', headers: { accept: 'text/html' } });
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, `/sign-in?return_to=${encodeURIComponent('/developer')}`);
      const me = await person();
      const html = await overview(me);
      assert.match(html, /<title>Developer overview · Consulta<\/title>/);
      assert.match(html, /<a href="\/developer" aria-current="page">Overview<\/a>/, 'the nav names it');
      for (const path of ['/developer/keys', '/developer/webhooks', '/developer/requests', '/developer/usage']) {
        assert.ok(html.includes(`href="${path}"`), path);
        assert.equal((await me.client.get(path)).statusCode, 200, path);
      }
    });

    it('flips each step exactly when its condition happens, with the next action as the button', async () => {
      const me = await person();
      let html = await overview(me);
      assert.deepEqual(done(html), []);
      assert.match(pageText(html), /0 of 6 steps done/);
      assert.deepEqual(actionsOf(html), [
        ['test_key', '/developer/keys/new?mode=test', 'Create a test key', true],
        ['first_request', '/docs/api', 'Open the API reference', false],
        ['log_seen', '/developer/requests', 'Open the request log', false],
        ['webhook', '/developer/webhooks/new', 'Add an endpoint', false],
        ['live', '/developer/keys/new?mode=live', 'Create a live key', false],
        ['widget', '/developer/widget', 'Set up the booking widget', false],
      ]);
      assert.match(pageText(html), /curl -H "Authorization: Bearer YOUR_KEY" http:\/\/consulta\.test\/api\/v1\/key/);

      // 1. A test key.
      const test = await ctx.app.services.keys.create(actorOf(me), { ownerEmail: me.email }, { mode: 'test', name: 'sandbox' });
      html = await overview(me);
      assert.deepEqual(done(html), ['test_key']);
      assert.equal(actionsOf(html)[0]![0], 'first_request');
      assert.equal(actionsOf(html)[0]![3], true, 'the next step has the primary button');

      // 3 before 2: opening the log with nothing of theirs in it does not count as seeing a request.
      await me.client.get('/developer/requests');
      // 2. A request by one of their keys, in the log (an error counts: it was a call).
      assert.equal((await api(test.token, '/api/v1/lawyers/00000000-0000-4000-8000-000000000000')).statusCode, 404);
      html = await overview(me);
      assert.deepEqual(done(html), ['test_key', 'first_request']);
      assert.doesNotMatch(pageText(html), /YOUR_KEY/, 'the example goes once the API was called');

      // 3. The log, opened on a request of theirs.
      await me.client.get('/developer/requests');
      html = await overview(me);
      assert.deepEqual(done(html), ['test_key', 'first_request', 'log_seen']);

      // 4. An endpoint.
      await ctx.app.services.webhooks.create(actorOf(me), null, { url: PUBLIC_URL });
      html = await overview(me);
      assert.deepEqual(done(html), ['test_key', 'first_request', 'log_seen', 'webhook']);

      // 5. A live key: made, refused, then answered with success.
      const live = await ctx.app.services.keys.create(actorOf(me), { ownerEmail: me.email }, { mode: 'live' });
      html = await overview(me);
      assert.deepEqual(actionsOf(html), [['live', '/developer/requests?mode=live', 'See your live requests', true], ['widget', '/developer/widget', 'Set up the booking widget', false]], 'a live key exists: see its requests');
      assert.equal((await api(live.token, '/api/v1/lawyers/search?city=atlantis')).statusCode, 400);
      assert.equal(stepsOf(await overview(me)).live, false, 'an error is not going live');
      assert.equal((await api(live.token)).statusCode, 200);
      html = await overview(me);
      assert.deepEqual(done(html), STEPS.filter((s) => s !== 'widget'));
      assert.deepEqual(actionsOf(html), [['widget', '/developer/widget', 'Set up the booking widget', true]]);

      // 6. A publishable key for the booking widget (docs/widget.md).
      await ctx.app.services.keys.create(actorOf(me), { ownerEmail: me.email }, { mode: 'live', publishable: true, origins: ['https://ngo.example'] });
      html = await overview(me);
      assert.deepEqual(done(html), [...STEPS]);
      assert.match(pageText(html), /6 of 6 steps done/);
      assert.match(pageText(html), /All steps are done/);
      assert.deepEqual(actionsOf(html), []);
    });

    it('records history: a revoked test key still counts; the log is seen once for good; another person is unaffected', async () => {
      const me = await person();
      const other = await person();
      const test = await ctx.app.services.keys.create(actorOf(me), { ownerEmail: me.email }, { mode: 'test' });
      await api(test.token);
      await me.client.get(`/developer/requests/${(await ctx.database.db.selectFrom('request_log').select('request_id').where('key_id', '=', test.key.id).executeTakeFirstOrThrow()).request_id}`);
      await ctx.app.services.keys.revoke(actorOf(me), test.key.id);
      assert.deepEqual(done(await overview(me)), ['test_key', 'first_request', 'log_seen'], "a request's own page counts as seeing it");
      const seen = await ctx.database.db.selectFrom('users').select('request_log_seen_at').where('id', '=', me.userId).executeTakeFirstOrThrow();
      ctx.clock.advance(60_000);
      await me.client.get('/developer/requests');
      assert.deepEqual(await ctx.database.db.selectFrom('users').select('request_log_seen_at').where('id', '=', me.userId).executeTakeFirstOrThrow(), seen, 'the first time stays');
      assert.deepEqual(done(await overview(other)), []);
    });

    it('reads the log window: test traffic older than 30 days no longer counts as a call, live traffic does (daily usage)', async () => {
      const tester = await person();
      const test = await ctx.app.services.keys.create(actorOf(tester), { ownerEmail: tester.email }, { mode: 'test' });
      await api(test.token);
      const liver = await person();
      const live = await ctx.app.services.keys.create(actorOf(liver), { ownerEmail: liver.email }, { mode: 'live' });
      await api(live.token);
      assert.equal(stepsOf(await overview(tester)).first_request, true);
      const started = ctx.clock.now();
      ctx.clock.advance(31 * 86_400_000);
      try {
        // Signed in again: a month-old session has expired.
        assert.equal(stepsOf(await overview(await signedIn(ctx, tester.email))).first_request, false);
        const html = await overview(await signedIn(ctx, liver.email));
        assert.equal(stepsOf(html).first_request, true);
        assert.equal(stepsOf(html).live, true);
      } finally {
        ctx.clock.set(started);
      }
    });

    it("counts firm keys and endpoints the person created in a firm they belong to, never other members' work, and says so", async () => {
      const owner = await person();
      const member = await person();
      const slug = `overview-firm-${target.name}`;
      await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Bufete Overview', ownerEmail: owner.email });
      await ctx.app.services.accounts.addMember(OPERATOR, slug, member.email, 'admin');
      // The owner sets the firm up.
      const ownerTest = await ctx.app.services.keys.create(actorOf(owner), { firmSlug: slug }, { mode: 'test' });
      await api(ownerTest.token);
      await ctx.app.services.webhooks.create(actorOf(owner), { firmSlug: slug }, { url: PUBLIC_URL });
      assert.deepEqual(done(await overview(owner)), ['test_key', 'first_request', 'webhook']);
      const memberPage = await overview(member);
      assert.deepEqual(done(memberPage), [], "the owner's work is not the admin's");
      assert.match(pageText(memberPage), /those you created for a firm you belong to/);
      assert.match(memberPage, new RegExp(`<a href="/firms/${slug}">Bufete Overview</a></h3><p class="meta">Administrator</p>`), 'the firm is linked');
      // Seeing the firm's log shows the owner's request, not one of the admin's keys: not seen.
      await member.client.get(`/firms/${slug}/requests`);
      const memberLive = await ctx.app.services.keys.create(actorOf(member), { firmSlug: slug }, { mode: 'live' });
      await api(memberLive.token);
      assert.deepEqual(done(await overview(member)), ['first_request', 'live']);
      await member.client.get(`/firms/${slug}/requests`);
      assert.deepEqual(done(await overview(member)), ['first_request', 'log_seen', 'live']);
      // Once they leave, the firm's keys are no longer theirs to count.
      await ctx.app.services.accounts.removeMember(actorOf(member), slug, member.email);
      assert.deepEqual(done(await overview(member)), []);
    });

    it('speaks Spanish', async () => {
      const me = await person('es');
      const text = pageText(await overview(me));
      assert.match(text, /Resumen de desarrollo/);
      assert.match(text, /Primeros pasos 0 de 6 pasos hechos/);
      assert.match(text, /Crea una clave de prueba Pendiente/);
      assert.match(text, /Crear una clave de prueba/);
      assert.match(text, /TU_CLAVE/);
      assert.doesNotMatch(text, /Getting started|Make a test key|To do/);
    });
  });
}
