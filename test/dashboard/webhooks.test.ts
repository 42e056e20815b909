/**
 * The webhook endpoint pages over the real app and database (both): a person adds an endpoint
 * (the signing secret shown once and never again), a refused address is explained next to the
 * field, the secret is rotated (both secrets sign for 24 hours, verified with `standardwebhooks`),
 * the endpoint is disabled after a confirmation and enabled again, a test event is sent and its
 * attempt listed (the receiver's answer escaped), a dead message is sent again, deliveries are
 * paged; a firm's endpoints and who may manage them; CSRF; Spanish.
 *
 * The app's address policy is the real one (no insecure targets), so endpoints added through the
 * form point at a public address literal. Deliveries go to a receiver on loopback, so those
 * endpoints are registered through a service with WEBHOOK_ALLOW_INSECURE_TARGETS on, and a
 * dispatcher with that setting sends what the pages queue (the app itself runs no dispatcher).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/access/types.ts';
import type { Config } from '../../src/config.ts';
import { formatInstant } from '../../src/i18n/format.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { pageText } from '../support/site.ts';
import { startReceiver, verifies, verifyAt, webhookKit, type Receiver, type WebhookKit } from '../webhooks/support.ts';

const OPERATOR: Actor = { type: 'operator' };
const SECRET = /id="secret-value" type="text" readonly value="(whsec_[A-Za-z0-9+/=]+)"/;
const ENDPOINT_LINK = /href="(\/(?:developer|firms\/[a-z0-9-]+)\/webhooks\/(ep_[0-9a-f]{32}))"/;
// A public address literal: passes the real address policy without asking DNS.
const PUBLIC_URL = 'https://93.184.216.34/hooks/consulta';
/** An instant as the English pages show it (Madrid time). */
const madrid = (at: Date) => formatInstant(at.toISOString(), 'Europe/Madrid', 'en');

for (const target of databaseTargets()) {
  describe(`webhook endpoint pages (${target.name})`, () => {
    let ctx: TestContext;
    let receiver: Receiver;
    const kits: WebhookKit[] = [];
    let n = 0;

    before(async () => {
      ctx = await createTestContext(target);
      receiver = await startReceiver();
    });
    after(async () => {
      for (const kit of kits) await kit.close();
      await receiver?.close();
      await ctx?.close();
    });

    const person = (lang: 'en' | 'es' = 'en') => signedIn(ctx, `hooks-${++n}-${target.name}@example.com`, { lang });
    const actorOf = (me: SignedIn): Actor => ({ type: 'user', userId: me.userId });

    /** A dispatcher (and a service allowing loopback targets) over the app's database and clock. */
    function kit(config: Partial<Config> = {}): WebhookKit {
      const k = webhookKit(ctx.database, { clock: ctx.clock, config });
      kits.push(k);
      return k;
    }

    /** Posts a form with repeated fields (checkboxes) as a browser sends it, with the last page's CSRF token. */
    function postPairs(me: SignedIn, url: string, pairs: Array<[string, string]>, csrf: string | null = me.client.csrf(), lang: 'en' | 'es' = 'en') {
      const payload = new URLSearchParams([...(csrf === null ? [] : [['_csrf', csrf] as [string, string]]), ...pairs]).toString();
      return ctx.app.fastify.inject({
        method: 'POST',
        url,
        payload,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'http://consulta.test',
          'sec-fetch-site': 'same-origin',
          'accept-language': lang,
          cookie: [...me.client.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        },
      });
    }

    async function addThroughForm(me: SignedIn, base: string, url: string, events: string[] = ['booking_intent.confirmed', 'booking_intent.expired']) {
      await me.client.get(`${base}/webhooks/new`);
      return postPairs(me, `${base}/webhooks`, [['url', url], ...events.map((e): [string, string] => ['events', e])]);
    }

    /** An endpoint at the loopback receiver, registered as with WEBHOOK_ALLOW_INSECURE_TARGETS on. */
    async function localEndpoint(k: WebhookKit, me: SignedIn, path: string) {
      return k.service.create(actorOf(me), null, { url: `${receiver.url}${path}` });
    }

    const received = (path: string) => receiver.requests.filter((r) => r.path === path);

    it('adds an endpoint: the signing secret is shown once (201, no-store) and never again', async () => {
      const me = await person();
      const res = await addThroughForm(me, '/developer', PUBLIC_URL);
      assert.equal(res.statusCode, 201, pageText(res.body).slice(0, 400));
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal(res.headers.location, undefined, 'no redirect carries it');
      const secret = SECRET.exec(res.body)?.[1];
      assert.ok(secret, 'a whsec_ secret on the page');
      assert.equal(Buffer.from(secret.slice('whsec_'.length), 'base64').length, 32);
      assert.match(pageText(res.body), /shown only this once/);
      const [, path, id] = ENDPOINT_LINK.exec(res.body)!;

      const [endpoint] = await ctx.app.services.webhooks.list(actorOf(me));
      assert.equal(endpoint?.id, id);
      assert.equal(endpoint?.url, PUBLIC_URL);
      assert.equal(endpoint?.eventTypes, null, 'both ticked: every event type');

      const listPage = await me.client.get('/developer/webhooks');
      assert.equal(listPage.statusCode, 200);
      assert.match(pageText(listPage.body), /93\.184\.216\.34\/hooks\/consulta Enabled/);
      assert.match(pageText(listPage.body), /Events All events/);
      assert.match(pageText(listPage.body), /Signing secret One secret/);
      const detail = await me.client.get(path!);
      assert.equal(detail.statusCode, 200);
      for (const page of [listPage, detail]) {
        assert.ok(!page.body.includes(secret), 'the secret never appears again');
        assert.ok(!page.body.includes(secret.slice(6, 20)), 'not even a part of it');
      }
      assert.match(pageText(detail.body), /No deliveries yet/);

      ctx.clock.advance(1000); // listed oldest first
      const narrow = await addThroughForm(me, '/developer', `${PUBLIC_URL}/confirmed`, ['booking_intent.confirmed']);
      assert.equal(narrow.statusCode, 201);
      const endpoints = await ctx.app.services.webhooks.list(actorOf(me));
      assert.deepEqual(endpoints.map((e) => e.eventTypes), [null, ['booking_intent.confirmed']]);
      assert.match(pageText((await me.client.get('/developer/webhooks')).body), /Events booking_intent\.confirmed/);
    });

    it('refuses an address with a clear message next to the field, keeps what was typed, and adds nothing', async () => {
      const me = await person();
      const cases: Array<[string, RegExp]> = [
        ['http://93.184.216.34/hook', /must start with https:\/\/ \(plain http is not allowed\)/],
        ['https://127.0.0.1/hook', /not on the public internet .* Details: 127\.0\.0\.1 is loopback/],
        ['https://10.1.2.3/hook', /not on the public internet .* Details: 10\.1\.2\.3 is private \(RFC 1918\)/],
        ['https://169.254.169.254/latest/meta-data', /not on the public internet .* cloud metadata/],
        ['https://localhost:8443/hook', /not on the public internet .* localhost names this machine/],
        ['https://hooks.nonexistent.invalid/hook', /could not find the host "hooks\.nonexistent\.invalid" in DNS/],
        ['not a url', /Enter a complete address that starts with https:\/\//],
        ['https://user:pass@93.184.216.34/hook', /Remove the user name and password/],
      ];
      for (const [url, message] of cases) {
        const res = await addThroughForm(me, '/developer', url);
        assert.equal(res.statusCode, 400, url);
        const text = pageText(res.body);
        assert.match(text, /Please correct the highlighted fields/, url);
        assert.match(text, message, url);
        assert.match(res.body, /id="f-url"[^>]*aria-invalid="true"/, `${url}: the field is marked`);
        assert.ok(res.body.includes(`value="${url.replaceAll('&', '&amp;')}"`), `${url}: the form keeps what was typed`);
        assert.doesNotMatch(res.body, /whsec_/);
      }
      const noEvents = await addThroughForm(me, '/developer', PUBLIC_URL, []);
      assert.equal(noEvents.statusCode, 400);
      assert.match(pageText(noEvents.body), /Choose at least one event/);
      const unknownEvent = await addThroughForm(me, '/developer', PUBLIC_URL, ['booking_intent.cancelled']);
      assert.equal(unknownEvent.statusCode, 400);
      assert.match(pageText(unknownEvent.body), /Choose at least one event/);
      // Both problems at once are both named.
      const both = await addThroughForm(me, '/developer', 'http://93.184.216.34/', []);
      assert.match(pageText(both.body), /plain http is not allowed.*Choose at least one event/);
      assert.deepEqual(await ctx.app.services.webhooks.list(actorOf(me)), [], 'nothing was added');
    });

    it('rotates the secret: the new one is shown once, and for 24 hours messages carry both signatures', async () => {
      const me = await person();
      const k = kit();
      const { endpoint, secret: first } = await localEndpoint(k, me, '/rotate');
      const url = `/developer/webhooks/${endpoint.id}`;
      const detail = await me.client.get(url);
      assert.match(pageText(detail.body), /Rotate secret/);
      const rotated = await me.client.post(`${url}/rotate`, {});
      assert.equal(rotated.statusCode, 201);
      assert.equal(rotated.headers['cache-control'], 'no-store');
      const second = SECRET.exec(rotated.body)?.[1];
      assert.ok(second && second !== first, 'a new secret');
      const until = madrid(new Date(ctx.clock.now().getTime() + 24 * 3_600_000));
      assert.ok(pageText(rotated.body).includes(`The previous secret keeps signing until ${until}`));
      const after = await me.client.get(url);
      assert.ok(!after.body.includes(second), 'shown once');
      assert.ok(pageText(after.body).includes(`Rotated: the previous secret also signs until ${until}`));

      await me.client.post(`${url}/test`, {});
      await k.dispatcher.runUntilIdle();
      const [message] = received('/rotate');
      assert.ok(message, 'the test message arrived');
      const at = ctx.clock.now().getTime();
      assert.ok(verifies(first, message, at) && verifies(second!, message, at), 'both secrets verify during the overlap');

      ctx.clock.advance(24 * 3_600_000 + 1000);
      assert.match(pageText((await me.client.get(url)).body), /Signing secret One secret/);
      await me.client.post(`${url}/test`, {});
      await k.dispatcher.runUntilIdle();
      const [, later] = received('/rotate');
      assert.ok(later);
      const laterAt = ctx.clock.now().getTime();
      assert.ok(verifies(second!, later, laterAt) && !verifies(first, later, laterAt), 'after 24 hours only the new secret signs');
    });

    it('disables after a confirmation with a reason, refuses a test while disabled, and enables again', async () => {
      const me = await person();
      const created = await addThroughForm(me, '/developer', PUBLIC_URL);
      const [, url, id] = ENDPOINT_LINK.exec(created.body)!;
      const confirmPage = await me.client.get(`${url}/disable`);
      assert.equal(confirmPage.statusCode, 200);
      assert.match(pageText(confirmPage.body), /Disable this endpoint\?/);

      const unticked = await me.client.post(`${url}/disable`, { reason: 'maintenance' });
      assert.equal(unticked.statusCode, 400);
      assert.match(pageText(unticked.body), /Tick the box to confirm/);
      assert.match(unticked.body, /value="maintenance"/, 'the reason is kept');
      const noReason = await me.client.post(`${url}/disable`, { reason: '  ', confirm: 'yes' });
      assert.equal(noReason.statusCode, 400);
      assert.match(pageText(noReason.body), /Give a reason/);
      assert.equal((await ctx.app.services.webhooks.get(OPERATOR, id!)).enabled, true, 'still enabled');

      const done = await me.client.post(`${url}/disable`, { reason: 'receiver <b>under</b> maintenance', confirm: 'yes' });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, `${url}?done=disabled`);
      const disabled = await me.client.get(done.headers.location as string);
      const text = pageText(disabled.body);
      assert.match(text, /The endpoint is disabled\./);
      assert.match(text, /Disabled by hand on .*\. Reason: receiver <b>under<\/b> maintenance/);
      assert.ok(disabled.body.includes('receiver &lt;b') && !disabled.body.includes('<b>under'), 'the reason is escaped');
      assert.doesNotMatch(disabled.body, new RegExp(`action="${url}/test"`), 'no test button while disabled');
      assert.match(pageText((await me.client.get('/developer/webhooks')).body), /Disabled Disabled by hand on/);

      const test = await me.client.post(`${url}/test`, {});
      assert.equal(test.statusCode, 409);
      assert.match(pageText(test.body), /enable it before sending a test event/);
      assert.equal((await me.client.get(`${url}/disable`)).statusCode, 303, 'nothing to confirm when already disabled');
      const again = await me.client.post(`${url}/disable`, { reason: 'twice', confirm: 'yes' });
      assert.equal(again.statusCode, 409);
      assert.match(pageText(again.body), /already disabled/);

      const enabled = await me.client.post(`${url}/enable`, {});
      assert.equal(enabled.statusCode, 303);
      assert.equal(enabled.headers.location, `${url}?done=enabled`);
      assert.match(pageText((await me.client.get(enabled.headers.location as string)).body), /The endpoint is enabled/);
      assert.equal((await ctx.app.services.webhooks.get(OPERATOR, id!)).enabled, true);
    });

    it("sends a test event: the receiver verifies it, and the attempt is listed with the receiver's answer escaped", async () => {
      const me = await person();
      const k = kit();
      const { endpoint, secret } = await localEndpoint(k, me, '/test-event');
      receiver.answer((req) => (req.path === '/test-event' ? { status: 202, body: '<script>alert("x")</script> thanks' } : { status: 200 }));
      try {
        const url = `/developer/webhooks/${endpoint.id}`;
        await me.client.get(url);
        const sent = await me.client.post(`${url}/test`, {});
        assert.equal(sent.statusCode, 303);
        assert.equal(sent.headers.location, `${url}?done=test#deliveries`);
        assert.match(pageText((await me.client.get(`${url}?done=test`)).body), /The test event is on its way/);
        await k.dispatcher.runUntilIdle();
        const [req] = received('/test-event');
        assert.ok(req, 'delivered');
        const payload = verifyAt(secret, req, ctx.clock.now().getTime()) as { type: string; data: { endpoint_id: string } };
        assert.equal(payload.type, 'webhook.test');
        assert.equal(payload.data.endpoint_id, endpoint.id);

        const page = await me.client.get(url);
        const text = pageText(page.body);
        assert.match(text, /Test event Delivered/);
        assert.ok(text.includes(req.headers['webhook-id']!), 'the message id (webhook-id) is listed');
        assert.match(text, new RegExp(`202 Attempt 1 · ${madrid(ctx.clock.now())} · \\d+ ms`));
        assert.ok(page.body.includes('&lt;script'), 'the response excerpt, escaped');
        assert.ok(!page.body.includes('<script>alert'), 'never as markup');
        const messagePage = await me.client.get(`${url}/messages/${req.headers['webhook-id']}`);
        assert.equal(messagePage.statusCode, 200);
        assert.match(pageText(messagePage.body), /Attempts made 1/);
        assert.doesNotMatch(messagePage.body, /action="[^"]*\/retry"/, 'a delivered message has no retry button');
      } finally {
        receiver.answer(() => ({ status: 200, body: 'ok' }));
      }
    });

    it('the endpoint page keeps its deliveries current: a fragment route its script polls, and a Refresh link without JavaScript', async () => {
      const me = await person();
      const k = kit();
      const { endpoint } = await localEndpoint(k, me, '/live');
      receiver.answer((req) => (req.path === '/live' ? { status: 200, body: '<img src=x onerror=alert(1)> ok' } : { status: 200 }));
      try {
        const url = `/developer/webhooks/${endpoint.id}`;
        const page = await me.client.get(url);
        assert.match(page.body, new RegExp(`data-live-url="${url}/deliveries"`), 'the page names the fragment its script polls');
        assert.match(page.body, /<script src="\/assets\/live-deliveries\.[0-9a-f]{10}\.js" defer><\/script>/, 'the script is a file');
        // Not only a #fragment away from the page's own address (that would scroll, not reload).
        assert.match(page.body, new RegExp(`<a href="${url}\\?r=[0-9a-f]{8}#deliveries">Refresh</a>`), 'the Refresh link reloads the page at the list');

        const empty = await me.client.get(`${url}/deliveries`);
        assert.equal(empty.statusCode, 200);
        assert.match(empty.headers['content-type'] as string, /^text\/html/);
        assert.equal(empty.headers['cache-control'], 'no-store');
        assert.doesNotMatch(empty.body, /<html|<head|<nav/, 'a fragment: the list alone');
        assert.match(empty.body, /^<div class="deliveries-list" data-live-version="0-[0-9a-z]+">/);
        assert.match(pageText(empty.body), /No deliveries yet/);
        const versionOf = (html: string) => /data-live-version="([^"]+)"/.exec(html)?.[1];
        assert.equal(versionOf(empty.body), versionOf(page.body), 'the same list as the page shows');

        await ctx.app.services.webhooks.sendTest(actorOf(me), endpoint.id);
        await k.dispatcher.runUntilIdle();
        const fresh = await me.client.get(`${url}/deliveries`);
        assert.notEqual(versionOf(fresh.body), versionOf(empty.body), 'a new attempt changes the version');
        assert.match(pageText(fresh.body), /Test event Delivered/);
        assert.match(pageText(fresh.body), /200 Attempt 1/);
        assert.match(fresh.body, /<dl class="facts" data-live-facts="true">/, "the endpoint's facts come with the list, for the script to update");
        assert.match(pageText(fresh.body), /Messages waiting 0/);
        assert.ok(fresh.body.includes('&lt;img src=x'), "the receiver's answer, escaped");
        assert.ok(!fresh.body.includes('<img src=x'), 'never as markup');
        assert.equal(versionOf((await me.client.get(`${url}/deliveries`)).body), versionOf(fresh.body), 'unchanged while nothing happens');
        assert.equal(versionOf((await me.client.get(url)).body), versionOf(fresh.body));

        // An older page is not polled (its list does not grow at the top).
        for (let i = 0; i < 21; i++) await ctx.app.services.webhooks.sendTest(actorOf(me), endpoint.id);
        await k.dispatcher.runUntilIdle();
        const older = /href="([^"]+\?before=[^"#]+)#deliveries">Older/.exec((await me.client.get(url)).body)?.[1];
        assert.ok(older);
        const second = await me.client.get(older.replaceAll('&amp;', '&'));
        assert.equal(second.statusCode, 200);
        assert.doesNotMatch(second.body, /data-live-url|live-deliveries/);

        // Signed out, the fragment is no list: the script refuses the redirect and stops.
        const out = await ctx.app.fastify.inject({ method: 'GET', url: `${url}/deliveries` });
        assert.equal(out.statusCode, 303);
        assert.equal(out.headers.location, `/sign-in?return_to=${encodeURIComponent(url)}`, 'back to the page after sign-in, not to the fragment');
        // Another person (the full table: test/dashboard/authz/webhooks.ts), as the script asks.
        const other = await person();
        const theirs = await other.client.get(`${url}/deliveries`, { accept: 'text/html' });
        assert.equal(theirs.statusCode, 404);
        assert.doesNotMatch(theirs.body, /data-live-version|Test event/);
      } finally {
        receiver.answer(() => ({ status: 200, body: 'ok' }));
      }
    });

    it('a dead message is sent again from its page, with the same webhook-id, as the next attempt', async () => {
      const me = await person();
      // One retry after a minute, then dead.
      const k = kit({ webhookRetryScheduleSeconds: [60] });
      const { endpoint } = await localEndpoint(k, me, '/dead');
      let up = false;
      receiver.answer((req) => (req.path === '/dead' && !up ? { status: 500, body: 'down for maintenance' } : { status: 200, body: 'ok' }));
      try {
        const url = `/developer/webhooks/${endpoint.id}`;
        await me.client.get(url);
        await me.client.post(`${url}/test`, {});
        await k.dispatcher.runUntilIdle();
        const pending = pageText((await me.client.get(url)).body);
        assert.match(pending, /Test event Pending/);
        assert.match(pending, new RegExp(`Next attempt: ${madrid(new Date(ctx.clock.now().getTime() + 60_000))}`));
        assert.match(pending, /500 Attempt 1/);
        ctx.clock.advance(60_000);
        await k.dispatcher.runUntilIdle();
        const deadPage = await me.client.get(url);
        assert.match(pageText(deadPage.body), /Test event Dead/);
        const messageId = /\/messages\/(msg_[0-9a-f]{32})\/retry/.exec(deadPage.body)?.[1];
        assert.ok(messageId, 'a retry button for the dead message');
        const messageUrl = `${url}/messages/${messageId}`;
        const before = pageText((await me.client.get(messageUrl)).body);
        assert.match(before, /Attempts made 2/);
        assert.match(before, /down for maintenance/);

        up = true;
        const retried = await me.client.post(`${messageUrl}/retry`, {});
        assert.equal(retried.statusCode, 303);
        assert.equal(retried.headers.location, `${messageUrl}?done=retried`);
        assert.match(pageText((await me.client.get(retried.headers.location as string)).body), /The message is queued again/);
        await k.dispatcher.runUntilIdle();
        const after = pageText((await me.client.get(messageUrl)).body);
        assert.match(after, /Delivered/);
        assert.match(after, /Attempts made 3/);
        assert.match(after, /200 Attempt 3/);
        const requests = received('/dead');
        assert.equal(requests.length, 3);
        assert.deepEqual(new Set(requests.map((r) => r.headers['webhook-id'])), new Set([messageId]), 'one webhook-id across all attempts');
        assert.equal(requests[2]!.headers['webhook-attempt'], '3');

        // A delivered message is not sent again.
        const refused = await me.client.post(`${messageUrl}/retry`, {});
        assert.equal(refused.statusCode, 409);
        assert.match(pageText(refused.body), /Only a dead message of an enabled endpoint can be sent again/);
        assert.equal(received('/dead').length, 3);
        assert.equal((await me.client.get(`${url}/messages/msg_00000000000000000000000000000000`)).statusCode, 404);
      } finally {
        receiver.answer(() => ({ status: 200, body: 'ok' }));
      }
    });

    it('pages the deliveries, newest first; a broken page link gets a helpful page', async () => {
      const me = await person();
      const k = kit();
      const { endpoint } = await localEndpoint(k, me, '/paged');
      for (let i = 0; i < 23; i++) {
        await ctx.app.services.webhooks.sendTest(actorOf(me), endpoint.id);
        ctx.clock.advance(1000);
      }
      await k.dispatcher.runUntilIdle();
      const url = `/developer/webhooks/${endpoint.id}`;
      const first = await me.client.get(url);
      assert.equal((first.body.match(/class="attempt"/g) ?? []).length, 20);
      const older = /href="([^"]+\?before=[^"#]+)#deliveries"/.exec(first.body)?.[1];
      assert.ok(older, 'a link to older deliveries');
      const second = await me.client.get(older.replaceAll('&amp;', '&'));
      assert.equal(second.statusCode, 200);
      assert.equal((second.body.match(/class="attempt"/g) ?? []).length, 3);
      assert.match(pageText(second.body), /Newest deliveries/);
      assert.doesNotMatch(pageText(second.body), /Older deliveries/);
      const firstIds = new Set([...first.body.matchAll(/\/messages\/(msg_[0-9a-f]{32})"/g)].map((m) => m[1]));
      const secondIds = [...second.body.matchAll(/\/messages\/(msg_[0-9a-f]{32})"/g)].map((m) => m[1]);
      assert.ok(secondIds.every((m) => !firstIds.has(m)), 'no message on both pages');
      const broken = await me.client.get(`${url}?before=not-a-cursor!`);
      assert.equal(broken.statusCode, 400);
      assert.match(pageText(broken.body), /Something in the request was not right/);
      assert.doesNotMatch(broken.body, /at [A-Za-z]+ \(/, 'no stack trace');
    });

    it('unknown or malformed endpoint ids are the ordinary 404 page; signed out goes to sign-in', async () => {
      const me = await person();
      for (const path of ['/developer/webhooks/ep_00000000000000000000000000000000', '/developer/webhooks/nonsense', '/developer/webhooks/ep_x/messages/msg_y']) {
        const res = await me.client.get(path);
        assert.equal(res.statusCode, 404, path);
        assert.match(pageText(res.body), /Page not found/);
      }
      const out = await ctx.app.fastify.inject({ method: 'GET', url: '/developer/webhooks' });
      assert.equal(out.statusCode, 303);
      assert.equal(out.headers.location, `/sign-in?return_to=${encodeURIComponent('/developer/webhooks')}`);
    });

    it('refuses a form without a valid CSRF token, and adds nothing', async () => {
      const me = await person();
      await me.client.get('/developer/webhooks/new');
      const missing = await postPairs(me, '/developer/webhooks', [['url', PUBLIC_URL], ['events', 'booking_intent.confirmed']], null);
      assert.equal(missing.statusCode, 403);
      assert.match(pageText(missing.body), /This form has expired/);
      const forged = await postPairs(me, '/developer/webhooks', [['url', PUBLIC_URL], ['events', 'booking_intent.confirmed']], 'forged-token');
      assert.equal(forged.statusCode, 403);
      const crossSite = await me.client.post('/developer/webhooks', { url: PUBLIC_URL, events: 'booking_intent.confirmed' }, { 'sec-fetch-site': 'cross-site' });
      assert.equal(crossSite.statusCode, 403);
      assert.deepEqual(await ctx.app.services.webhooks.list(actorOf(me)), []);
      // Nor does a rotation happen without one.
      const { endpoint } = await ctx.app.services.webhooks.create(actorOf(me), null, { url: PUBLIC_URL });
      const before = await ctx.app.services.webhooks.get(OPERATOR, endpoint.id);
      assert.equal((await postPairs(me, `/developer/webhooks/${endpoint.id}/rotate`, [], null)).statusCode, 403);
      assert.deepEqual(await ctx.app.services.webhooks.get(OPERATOR, endpoint.id), before);
    });

    it('speaks Spanish, refusals included', async () => {
      const me = await person('es');
      const form = pageText((await me.client.get('/developer/webhooks/new')).body);
      assert.match(form, /Añadir un endpoint de webhook/);
      assert.match(form, /Se confirma \(y se paga\) una reserva provisional/);
      const res = await postPairs(me, '/developer/webhooks', [['url', 'https://192.168.1.10/hook'], ['events', 'booking_intent.expired']], me.client.csrf(), 'es');
      assert.equal(res.statusCode, 400);
      assert.match(pageText(res.body), /Esta dirección no está en internet/);
      assert.match(pageText(res.body), /Corrige los campos señalados/);
      await me.client.get('/developer/webhooks/new');
      const created = await postPairs(me, '/developer/webhooks', [['url', PUBLIC_URL], ['events', 'booking_intent.expired']], me.client.csrf(), 'es');
      assert.equal(created.statusCode, 201);
      assert.match(pageText(created.body), /Solo se muestra esta vez/);
      const list = pageText((await me.client.get('/developer/webhooks')).body);
      assert.match(list, /Endpoints de webhook/);
      assert.match(list, /Activado/);
    });

    describe('firm endpoints', () => {
      const firmSlug = `bufete-hooks-${target.name}`;
      let admin: SignedIn;
      let member: SignedIn;
      let outsider: SignedIn;
      before(async () => {
        admin = await signedIn(ctx, `admin-${target.name}@hooks-firm.example`);
        member = await signedIn(ctx, `member-${target.name}@hooks-firm.example`);
        outsider = await signedIn(ctx, `outsider-${target.name}@hooks-firm.example`);
        await ctx.app.services.accounts.createFirm(OPERATOR, { slug: firmSlug, name: 'Bufete Ganchos', ownerEmail: `owner-${target.name}@hooks-firm.example` });
        await ctx.app.services.accounts.addMember(OPERATOR, firmSlug, admin.email, 'admin');
        await ctx.app.services.accounts.addMember(OPERATOR, firmSlug, member.email, 'member');
      });

      it("an admin adds the firm's endpoint; it is listed under the firm and not under anyone's personal pages", async () => {
        const res = await addThroughForm(admin, `/firms/${firmSlug}`, PUBLIC_URL);
        assert.equal(res.statusCode, 201, pageText(res.body).slice(0, 300));
        assert.ok(SECRET.test(res.body));
        const [, path, id] = ENDPOINT_LINK.exec(res.body)!;
        assert.equal(path, `/firms/${firmSlug}/webhooks/${id}`);
        const [endpoint] = await ctx.app.services.webhooks.list(OPERATOR, { firmSlug });
        assert.deepEqual(endpoint?.owner, { type: 'firm', id: endpoint!.owner.id, slug: firmSlug });
        const list = await admin.client.get(`/firms/${firmSlug}/webhooks`);
        assert.match(pageText(list.body), /Webhook endpoints of Bufete Ganchos/);
        assert.ok(list.body.includes(id!));
        assert.ok(!(await admin.client.get('/developer/webhooks')).body.includes(id!), 'not a personal endpoint');
        assert.equal((await admin.client.get(`/developer/webhooks/${id}`)).statusCode, 404, 'not reachable under /developer');
        assert.equal((await admin.client.get(path!)).statusCode, 200);
      });

      it('a member without webhooks:manage gets the 403 page on every firm webhook URL; an outsider gets 404', async () => {
        const { endpoint } = await ctx.app.services.webhooks.create(OPERATOR, { firmSlug }, { url: PUBLIC_URL });
        const base = `/firms/${firmSlug}/webhooks`;
        for (const path of [base, `${base}/new`, `${base}/${endpoint.id}`, `${base}/${endpoint.id}/disable`, `${base}/ep_00000000000000000000000000000000`]) {
          const res = await member.client.get(path);
          assert.equal(res.statusCode, 403, path);
          assert.match(pageText(res.body), /You do not have permission/);
          assert.equal((await outsider.client.get(path)).statusCode, 404, path);
        }
        await member.client.get('/developer/webhooks/new');
        const before = await ctx.app.services.webhooks.get(OPERATOR, endpoint.id);
        const count = (await ctx.app.services.webhooks.list(OPERATOR, { firmSlug })).length;
        assert.equal((await member.client.post(`${base}/${endpoint.id}/disable`, { reason: 'nope', confirm: 'yes' })).statusCode, 403);
        assert.equal((await member.client.post(`${base}/${endpoint.id}/rotate`, {})).statusCode, 403);
        assert.equal((await postPairs(member, base, [['url', PUBLIC_URL], ['events', 'booking_intent.confirmed']])).statusCode, 403);
        await outsider.client.get('/developer/webhooks/new');
        assert.equal((await outsider.client.post(`${base}/${endpoint.id}/rotate`, {})).statusCode, 404);
        assert.deepEqual(await ctx.app.services.webhooks.get(OPERATOR, endpoint.id), before, 'nothing changed');
        assert.equal((await ctx.app.services.webhooks.list(OPERATOR, { firmSlug })).length, count, 'nothing was added');

        // Granted the permission, the member manages them.
        await ctx.app.services.accounts.setPermissions(OPERATOR, firmSlug, member.email, ['webhooks:manage']);
        try {
          assert.equal((await member.client.get(base)).statusCode, 200);
          assert.equal((await member.client.get(`${base}/${endpoint.id}`)).statusCode, 200);
        } finally {
          await ctx.app.services.accounts.setPermissions(OPERATOR, firmSlug, member.email, []);
        }
      });
    });
  });
}
