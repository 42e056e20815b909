/**
 * The OWASP API Security Top 10 (2023) as attacks, across the REST API, the MCP server and the
 * site, on SQLite and PostgreSQL: the cases the per-area suites did not already cover (the table
 * in docs/security.md names those too). Each test is an attack that must fail:
 *
 * - stored XSS: one payload in every piece of user text (lawyer name, bio, review; person, firm,
 *   key and passkey names; suspension and disable reasons; a webhook URL and the receiver's answer;
 *   request paths in the request log; an OAuth client's name), then every page that shows it; and
 *   reflected XSS through the query strings and form fields pages echo back;
 * - API1: a person's holds and consultations over MCP, the site and REST;
 * - API2: where a key is accepted, and that no answer echoes it;
 * - API3: mass assignment through the REST body, MCP arguments and the dashboard forms;
 * - API4/API6: MCP tool-call limits, hold hoarding over MCP, body, page and range bounds;
 * - API5/API9: test keys, CLI-only functions, and an inventory of every registered route;
 * - API8: framing, CORS, caching and version headers on every page and endpoint;
 * - API10: fenced user text in REST and MCP;
 * - API7: a Client ID Metadata Document host that redirects is not followed.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { insertPasskey } from '../../src/db/repositories/passkey.repository.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { safeFetch } from '../../src/oauth/safe-fetch.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { invitationToken, invitationsOf } from '../support/firms.ts';
import { operatorSignedIn } from '../support/operator.ts';
import { connect, registerClient, authorize } from '../oauth/support.ts';
import { connectedAgent, errorCode, sdkClient, structured, toolError } from '../mcp/support.ts';
import { startReceiver, webhookKit, type Receiver, type WebhookKit } from '../webhooks/support.ts';

const OPERATOR: Actor = { type: 'operator' };

/** The stored-XSS payload: breaks out of an attribute, then tries an element and a script. */
const XSS = `"'><img src=x onerror=alert(1)><script>alert(1)</script>`;
/** What must never appear in a page: the payload's markup, unescaped. */
const RAW = [/<img src=x/i, /<script>alert/i];
/** What shows the payload was rendered as text (escaped in HTML, or percent-encoded in a URL). */
const SHOWN = /&lt;img src=x onerror=alert\(1\)|%3Cimg(%20| )src(=|%3D)x/i;

/** The page's HTML never carries the payload as markup; when `shown`, it carries it as text. */
function assertInert(res: LightMyRequestResponse, label: string, shown = true): void {
  assert.ok(res.statusCode < 500, `${label}: ${res.statusCode}`);
  for (const raw of RAW) assert.ok(!raw.test(res.body), `${label}: the payload is markup (${raw})`);
  if (shown) assert.ok(SHOWN.test(res.body), `${label}: the payload is not on the page at all (the test would prove nothing)`);
}

const FIXTURES = new URL('../webhooks/fixtures/', import.meta.url);

for (const target of databaseTargets()) {
  describe(`OWASP API Security Top 10 attacks (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    let n = 0;
    const email = (what: string) => `${what}-${++n}-${target.name}@example.com`;
    const actorOf = (me: SignedIn): Actor => ({ type: 'user', userId: me.userId });

    before(async () => {
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0 } });
      [lawyerId] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: `Ana ${XSS}`, bio: `Bio ${XSS}`, reviews: [{ rating: 5, comment: `Review ${XSS}`, date: '2026-11-01T09:00:00Z' }] }),
      ])) as [string];
    });
    after(async () => ctx?.close());

    describe('XSS through every piece of user text (site)', () => {
      it('lawyer name, bio and review comment: profile, booking page, search results, confirmation page and the operator console', async () => {
        const anon = await ctx.app.fastify.inject({ url: `/lawyers/${lawyerId}`, headers: { accept: 'text/html', 'accept-language': 'en' } });
        assertInert(anon, 'profile');
        assert.equal((anon.body.match(/&lt;img src=x/g) ?? []).length >= 3, true, 'name, bio and review all shown escaped');
        assertInert(await ctx.app.fastify.inject({ url: `/lawyers/${lawyerId}/book`, headers: { accept: 'text/html' } }), 'booking page');
        assertInert(await ctx.app.fastify.inject({ url: '/?city=madrid', headers: { accept: 'text/html' } }), 'search results');
        const held = await initiate(ctx, slotBody(lawyerId, '2026-11-25', '10'), { remoteAddress: '198.51.100.61' });
        assert.equal(held.statusCode, 201, held.body);
        const confirmUrl = new URL(held.json().confirmation_url as string);
        assertInert(await ctx.app.fastify.inject({ url: confirmUrl.pathname, headers: { accept: 'text/html' } }), 'confirmation page');
        const op = await operatorSignedIn(ctx, email('op-lawyer'), { steppedUp: true });
        assertInert(await op.client.get(`/operator/lawyers?q=Ana`), 'operator lawyer list');
        assertInert(await op.client.get(`/operator/lawyers/${lawyerId}`), 'operator lawyer page');
        assert.ok(tokenOf(held.json().confirmation_url).length > 20);
      });

      it('person, firm, key and passkey names and suspension reasons: dashboard, firm pages, invitation and operator console', async () => {
        const owner = await signedIn(ctx, email('xss-owner'));
        // A person's name is set by the CLI or an import (ensureUser); the member's shows on the firm's pages.
        const member = await ctx.app.services.accounts.ensureUser(email('xss-member'), `Pepe ${XSS}`);
        const slug = `xss-firm-${n}`;
        await ctx.app.services.accounts.createFirm(actorOf(owner), { slug, name: `Firm ${XSS}` });
        await ctx.app.services.accounts.addMember(actorOf(owner), slug, member.email, 'member');
        const personal = await ctx.app.services.keys.create(actorOf(owner), { ownerEmail: owner.email }, { mode: 'live', name: `Key ${XSS}` });
        const firmKey = await ctx.app.services.keys.create(actorOf(owner), { firmSlug: slug }, { mode: 'live', name: `Firm key ${XSS}` });
        await ctx.app.services.keys.suspend(actorOf(owner), firmKey.key.id, `Reason ${XSS}`);
        await insertPasskey(ctx.database.db, {
          id: randomUUID(),
          user_id: owner.userId,
          credential_id: randomBytes(32).toString('base64url'),
          public_key: randomBytes(77).toString('base64url'),
          counter: 0,
          transports: '["internal"]',
          name: `Phone ${XSS}`,
          device_type: 'multiDevice',
          backed_up: 1,
          created_at: ctx.clock.now().toISOString(),
          last_used_at: null,
        });
        const [passkey] = await ctx.database.db.selectFrom('passkeys').select('id').where('user_id', '=', owner.userId).execute();
        // A request with the key, so the request log and usage pages name it.
        await ctx.app.fastify.inject({ url: '/api/v1/cities', headers: { authorization: `Bearer ${personal.token}` } });
        await ctx.app.services.requestLog.flush();

        // Each page, and the labels of the texts it must show (escaped): `Pepe "` is the person's name, and so on.
        const pages: Array<[string, string[]]> = [
          ['/developer/keys', ['Key']],
          [`/developer/keys/${personal.key.id}`, ['Key']],
          [`/developer/keys/${personal.key.id}/revoke`, ['Key']],
          ['/developer/requests', ['Key']],
          ['/developer/usage', []],
          ['/firms', ['Firm']],
          [`/firms/${slug}`, ['Firm']],
          [`/firms/${slug}/members`, ['Firm', 'Pepe']],
          [`/firms/${slug}/keys`, ['Firm key']],
          [`/firms/${slug}/keys/${firmKey.key.id}`, ['Firm key', 'Reason']],
          [`/firms/${slug}/webhooks`, ['Firm']],
          [`/firms/${slug}/requests`, ['Firm']],
          ['/account/passkeys', ['Phone']],
          [`/account/passkeys/${passkey!.id}/remove`, ['Phone']],
        ];
        const names = (res: LightMyRequestResponse, url: string, labels: string[]) => {
          for (const label of labels) assert.ok(res.body.includes(`${label} &quot;'>&lt;img src=x`), `${url}: "${label} …" is not shown escaped`);
        };
        for (const [url, labels] of pages) {
          const res = await owner.client.get(url);
          assertInert(res, url, labels.length > 0);
          names(res, url, labels);
        }

        const op = await operatorSignedIn(ctx, email('op-names'), { steppedUp: true });
        for (const [url, labels] of [
          [`/operator?q=${slug}`, ['Firm']],
          [`/operator/users/${member.id}`, ['Pepe']],
          [`/operator/firms/${slug}`, ['Firm']],
          [`/operator/keys/${personal.key.id}`, ['Key']],
          [`/operator/keys/${firmKey.key.id}`, ['Firm key', 'Reason']],
        ] as const) {
          const res = await op.client.get(url);
          assertInert(res, url);
          names(res, url, [...labels]);
        }

        // The invitation page names the firm to the invitee.
        const invitations = invitationsOf(ctx.app, ctx.database, ctx.clock, ctx.config.siteUrl);
        const invitee = email('xss-invitee');
        await invitations.invite(actorOf(owner), slug, { email: invitee, role: 'member' }, 'en');
        const token = await invitationToken(ctx.app, invitee);
        const them = await signedIn(ctx, invitee);
        assertInert(await them.client.get(`/firms/invitations/${token}`), 'invitation page');
      });

      it("webhook URL, disable reason and the receiver's answer: endpoint list, endpoint, disable and message pages", async () => {
        const me = await signedIn(ctx, email('xss-hooks'));
        const receiver: Receiver = await startReceiver();
        const kit: WebhookKit = webhookKit(ctx.database, { clock: ctx.clock });
        try {
          receiver.answer(() => ({ status: 500, body: `Oops ${XSS}` }));
          // A loopback receiver (registered as with WEBHOOK_ALLOW_INSECURE_TARGETS on); the payload in its path and query.
          const { endpoint } = await kit.service.create(actorOf(me), null, { url: `${receiver.url}/h/${encodeURIComponent(XSS)}?q=${XSS}` });
          // The public-literal endpoint through the app's own (strict) service: a URL can carry the payload too.
          const strict = await ctx.app.services.webhooks.create(actorOf(me), null, { url: `https://93.184.216.34/hook?x=${XSS}` });
          await ctx.app.services.webhooks.disable(actorOf(me), strict.endpoint.id, `Reason ${XSS}`);
          await kit.service.sendTest(actorOf(me), endpoint.id);
          await kit.dispatcher.runUntilIdle();
          assert.ok(receiver.requests.length >= 1, 'the test event reached the receiver');
          const messageId = receiver.requests[0]!.headers['webhook-id']!;

          assertInert(await me.client.get('/developer/webhooks'), 'endpoint list');
          const page = await me.client.get(`/developer/webhooks/${endpoint.id}`);
          assertInert(page, 'endpoint page');
          assert.ok(page.body.includes(`Oops &quot;'>&lt;img src=x`), "the receiver's answer is shown, escaped");
          const disabledPage = await me.client.get(`/developer/webhooks/${strict.endpoint.id}`);
          assertInert(disabledPage, 'disabled endpoint page');
          assert.ok(disabledPage.body.includes(`Reason &quot;'>&lt;img src=x`), 'the disable reason is shown escaped');
          assertInert(await me.client.get(`/developer/webhooks/${endpoint.id}/disable`), 'disable page');
          assertInert(await me.client.get(`/developer/webhooks/${endpoint.id}/messages/${messageId}`), 'message page');
        } finally {
          await kit.close();
          await receiver.close();
        }
      });

      it("a request's path and query in the request log: the person's log and request page, the operator's request lookup", async () => {
        const me = await signedIn(ctx, email('xss-log'));
        const key = await ctx.app.services.keys.create(actorOf(me), { ownerEmail: me.email }, { mode: 'live', name: 'logged' });
        // As sent by a raw client (unencoded) and by a well-behaved one (percent-encoded).
        const sent: Array<{ id: string; shown: boolean }> = [];
        for (const [url, shown] of [
          // The query string is logged as sent and shown escaped (0023-request-log-query).
          [`/api/v1/lawyers/search?city=${XSS}`, true],
          // Unencoded, up to the first slash of the payload (a slash would end the path segment).
          [`/api/v1/lawyers/${XSS.slice(0, XSS.indexOf('<script>'))}/reviews`, true],
          [`/api/v1/lawyers/${encodeURIComponent(XSS)}/reviews`, true],
        ] as const) {
          const res = await ctx.app.fastify.inject({ url, headers: { authorization: `Bearer ${key.token}`, 'user-agent': XSS } });
          assert.equal(res.statusCode, 400, url);
          sent.push({ id: String(res.headers['x-request-id']), shown });
        }
        await ctx.app.services.requestLog.flush();
        const list = await me.client.get('/developer/requests');
        assertInert(list, 'request log');
        assert.ok(sent.every(({ id }) => list.body.includes(id)), 'every request is listed');
        const op = await operatorSignedIn(ctx, email('op-log'), { steppedUp: true });
        for (const { id, shown } of sent) {
          assertInert(await me.client.get(`/developer/requests/${id}`), `request page ${id}`, shown);
          const lookup = await op.client.get(`/operator/requests/${id}`);
          assert.equal(lookup.statusCode, 200);
          assertInert(lookup, `operator request lookup ${id}`, shown);
        }
      });

      it("an OAuth client's name: the consent page and connected apps", async () => {
        const person = await signedIn(ctx, email('xss-oauth'));
        const clientId = await registerClient(ctx, { client_name: `Agent ${XSS}` });
        const { consentPage } = await authorize(ctx, person.client, { clientId, scope: 'directory:read' });
        assertInert(consentPage!, 'consent page');
        await connect(ctx, person.client, { clientId, scope: 'directory:read', answer: 'directory:read' });
        assertInert(await person.client.get('/account/apps'), 'connected apps');
      });

      it('reflected: search filters, sign-in email and return_to, request-log filters, operator search, error and 404 pages', async () => {
        const html = { accept: 'text/html', 'accept-language': 'en' };
        const q = encodeURIComponent(XSS);
        for (const url of [`/?city=${q}`, `/?language=${q}&practice_area=${q}`, `/sign-in?return_to=${q}`, `/docs/errors/${q}`, `/nowhere/${q}`, `/lawyers/${q}`]) {
          assertInert(await ctx.app.fastify.inject({ url, headers: html }), url, false);
        }
        const visitor = await signedIn(ctx, email('xss-reflect'));
        await visitor.client.get('/sign-in');
        const signIn = await ctx.app.fastify.inject({ url: '/sign-in', headers: html });
        const csrf = /name="_csrf" value="([^"]+)"/.exec(signIn.body)?.[1];
        const cookie = signIn.cookies.map((c) => `${c.name}=${c.value}`).join('; ');
        const posted = await ctx.app.fastify.inject({
          method: 'POST',
          url: '/sign-in',
          payload: new URLSearchParams({ _csrf: csrf ?? '', email: XSS, return_to: XSS }).toString(),
          headers: { ...html, cookie, 'content-type': 'application/x-www-form-urlencoded', origin: 'http://consulta.test', 'sec-fetch-site': 'same-origin' },
        });
        assert.equal(posted.statusCode, 400, 'the form again, with a message');
        assertInert(posted, 'sign-in form with a bad email');
        assertInert(await visitor.client.get(`/developer/requests?path=${q}&key=${q}&status=${q}&mode=${q}`), 'request log filters', false);
        assertInert(await visitor.client.get(`/developer/requests/find?request_id=${q}`), 'request lookup', false);
        const op = await operatorSignedIn(ctx, email('op-reflect'), { steppedUp: true });
        assertInert(await op.client.get(`/operator?q=${q}`), 'operator search');
        assertInert(await op.client.get(`/operator/lawyers?q=${q}`), 'operator lawyer search', false);
        assertInert(await op.client.get(`/operator/requests?request_id=${q}`), 'operator request lookup', false);
      });
    });

    describe('API1 object-level authorization: a person\'s holds and consultations over MCP, the site and REST', () => {
      it("another person cannot read, link to or list someone's hold or consultation over MCP or the site; no API key reaches an MCP hold", async () => {
        const LEVELS = 'directory:read slots:hold my-bookings:read';
        const owner = await connectedAgent(ctx, email('bola-owner'), LEVELS);
        const stranger = await connectedAgent(ctx, email('bola-stranger'), LEVELS);
        const mine = await sdkClient(ctx, owner.accessToken);
        const theirs = await sdkClient(ctx, stranger.accessToken);
        try {
          const held = structured<{ booking_intent_id: string; confirmation_url: string }>(
            await mine.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: lawyerId, date: '2026-11-26', start_time: '11:00:00', end_time: '12:00:00' } }),
          );
          const token = tokenOf(held.confirmation_url);
          const paid = await ctx.app.services.payments.payWithCard(token, owner.person.userId, { number: '4242424242424242', expiry: '12/30', cvc: '123' });
          assert.equal(paid.kind, 'confirmed');
          const { upcoming } = structured<{ upcoming: Array<{ booking_intent_id: string; booking_id: string }> }>(await mine.callTool({ name: 'list_my_bookings', arguments: {} }));
          const booking = upcoming.find((b) => b.booking_intent_id === held.booking_intent_id);
          assert.ok(booking, 'the owner sees their consultation');

          // MCP: the stranger's tools answer not_found, exactly as for an id that does not exist.
          const unknown = randomUUID();
          for (const [name, args] of [
            ['get_booking_intent', { booking_intent_id: held.booking_intent_id }],
            ['get_my_booking', { booking_id: booking.booking_id }],
            ['get_site_link', { purpose: 'consultation', booking_id: booking.booking_id }],
          ] as const) {
            assert.equal(errorCode(await theirs.callTool({ name, arguments: args })), 'not_found', `${name} with the owner's id`);
          }
          assert.equal(errorCode(await theirs.callTool({ name: 'get_my_booking', arguments: { booking_id: unknown } })), 'not_found');
          const listed = structured<{ upcoming: unknown[] }>(await theirs.callTool({ name: 'list_my_bookings', arguments: {} }));
          assert.deepEqual(listed.upcoming, []);
          const intents = structured<{ booking_intents: Array<{ booking_intent_id: string }> }>(await theirs.callTool({ name: 'list_my_booking_intents', arguments: {} }));
          assert.ok(!intents.booking_intents.some((i) => i.booking_intent_id === held.booking_intent_id));

          // The site: the consultation page and its calendar file are the ordinary 404 for anyone else.
          const ownerPage = await owner.person.client.get(`/consultations/${booking.booking_id}`);
          assert.equal(ownerPage.statusCode, 200);
          // The lawyer's name carries the XSS payload: the owner's own pages show it as text.
          assertInert(ownerPage, 'consultation page');
          assertInert(await owner.person.client.get('/consultations'), 'my consultations');
          // The receipt and the lawyer's notice name the lawyer too: plain text, or escaped HTML.
          const mails = await ctx.database.db.selectFrom('mail_outbox').select(['kind', 'text', 'html']).where('kind', 'in', ['consultation_receipt', 'consultation_lawyer_notice']).execute();
          assert.ok(mails.length > 0, 'the confirmation was emailed');
          for (const mail of mails) if (mail.html !== null) for (const raw of RAW) assert.ok(!raw.test(mail.html), `${mail.kind}: the payload is markup`);
          for (const url of [`/consultations/${booking.booking_id}`, `/consultations/${booking.booking_id}.ics`]) {
            const res = await stranger.person.client.get(url);
            assert.equal(res.statusCode, 404, url);
            assert.ok(!res.body.includes('&lt;img src=x'), `${url}: nothing of the consultation (its lawyer's name) is shown`);
          }
          assert.ok(!(await stranger.person.client.get('/consultations')).body.includes(booking.booking_id));
          // An MCP hold's confirmation link is the person's own: another signed-in person cannot pay it.
          const otherPay = await stranger.person.client.get(`/confirm/${token}/pay`);
          assert.notEqual(otherPay.statusCode, 200, 'another person cannot reach the pay page of an MCP hold');

          // REST: no key owns an MCP hold, so polling it is the ordinary 404 for any key.
          const key = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: owner.person.email }, { mode: 'live' });
          const polled = await ctx.app.fastify.inject({ url: `/api/v1/booking-intents/${held.booking_intent_id}`, headers: { authorization: `Bearer ${key.token}` } });
          const polledUnknown = await ctx.app.fastify.inject({ url: `/api/v1/booking-intents/${unknown}`, headers: { authorization: `Bearer ${key.token}` } });
          assert.equal(polled.statusCode, 404);
          const body = (res: LightMyRequestResponse) => ({ ...(res.json() as Record<string, unknown>), instance: null });
          assert.deepEqual(body(polled), body(polledUnknown), 'the same answer as an unknown id');
        } finally {
          await mine.close();
          await theirs.close();
        }
      });
    });

    describe('API2 authentication', () => {
      it('a key counts only in the Authorization header (never in the query, a cookie or another header), and no answer echoes a key', async () => {
        const key = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: email('where-keys') }, { mode: 'live' });
        for (const [label, request] of [
          ['query api_key', { url: `/api/v1/usage?api_key=${key.token}` }],
          ['query access_token', { url: `/api/v1/usage?access_token=${key.token}` }],
          ['cookie', { url: '/api/v1/usage', headers: { cookie: `api_key=${key.token}; access_token=${key.token}` } }],
          ['X-API-Key', { url: '/api/v1/usage', headers: { 'x-api-key': key.token } }],
        ] as const) {
          const res = await ctx.app.fastify.inject(request);
          assert.ok(res.statusCode === 401 || res.statusCode === 400, `${label}: ${res.statusCode}`);
          if (res.statusCode === 401) assert.equal(res.json().code, 'authentication_required', label);
          assert.ok(!res.body.includes(key.token), `${label}: the key is echoed`);
        }
        const wrong = `${key.token.slice(0, -4)}AAAA`;
        const refused = await ctx.app.fastify.inject({ url: '/api/v1/usage', headers: { authorization: `Bearer ${wrong}` } });
        assert.equal(refused.statusCode, 401);
        assert.ok(!refused.body.includes(wrong) && !refused.body.includes(key.token.slice(8)), 'a refused key is not echoed');
        const ok = await ctx.app.fastify.inject({ url: '/api/v1/usage', headers: { authorization: `Bearer ${key.token}` } });
        assert.equal(ok.statusCode, 200, 'the header works');
      });
    });

    describe('API3 property-level authorization: mass assignment', () => {
      it('REST: fields the client may not set (status, price, owner, key, expiry, test) are refused with 400 naming the field; nothing is held', async () => {
        const key = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: email('mass-rest') }, { mode: 'live' });
        const planted: Record<string, unknown> = {
          status: 'confirmed',
          confirmed_at: '2026-11-23T08:00:00Z',
          expires_at: '2030-01-01T00:00:00Z',
          consultation_fee_cents: 1,
          price: 0,
          platform_commission_percent: 0,
          owner_id: randomUUID(),
          key_id: randomUUID(),
          user_id: randomUUID(),
          booking_intent_id: randomUUID(),
          test: true,
          tier: 'internal',
          scopes: ['bookings:read'],
        };
        for (const [field, value] of Object.entries(planted)) {
          const before = await ctx.database.db.selectFrom('booking_intents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
          const res = await initiate(ctx, { ...slotBody(lawyerId, '2026-11-27', '12'), [field]: value }, { token: key.token });
          assert.equal(res.statusCode, 400, `${field}: ${res.statusCode}`);
          assert.equal(res.json().code, 'invalid_request');
          assert.ok((res.json().errors as Array<{ pointer: string }>).some((e) => e.pointer === `/body/${field}`), `${field} named`);
          const after = await ctx.database.db.selectFrom('booking_intents').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
          assert.equal(Number(after.n), Number(before.n), `${field}: nothing stored`);
        }
      });

      it('MCP: a hold cannot name another person, source or app; extra arguments are refused and nothing is held', async () => {
        const agent = await connectedAgent(ctx, email('mass-mcp'), 'directory:read slots:hold', 'Honest App');
        const victim = await signedIn(ctx, email('mass-mcp-victim'));
        const client = await sdkClient(ctx, agent.accessToken);
        try {
          const slot = { lawyer_id: lawyerId, date: '2026-11-27', start_time: '09:00:00', end_time: '10:00:00' };
          for (const extra of [{ user_id: victim.userId }, { source: 'api' }, { agent_name: 'Someone Else' }, { status: 'confirmed' }]) {
            const res = (await client.callTool({ name: 'hold_consultation_slot', arguments: { ...slot, ...extra } })) as { isError?: boolean };
            assert.equal(res.isError, true, `${Object.keys(extra)[0]} accepted`);
          }
          const rows = await ctx.database.db.selectFrom('booking_intents').select(['held_for_user_id', 'source', 'agent_name']).where('lawyer_id', '=', lawyerId).where('slot_date', '=', '2026-11-27').execute();
          assert.deepEqual(rows, [], 'nothing held by the refused calls');
          const ok = structured<{ booking_intent_id: string }>(await client.callTool({ name: 'hold_consultation_slot', arguments: slot }));
          const row = await ctx.database.db.selectFrom('booking_intents').select(['held_for_user_id', 'source', 'agent_name']).where('id', '=', ok.booking_intent_id).executeTakeFirstOrThrow();
          assert.deepEqual(row, { held_for_user_id: agent.person.userId, source: 'ai_agent', agent_name: 'Honest App' });
        } finally {
          await client.close();
        }
      });

      it('dashboard forms: planted tier, owner, firm, status and secret fields are ignored; the object is the signed-in person\'s, on the free tier', async () => {
        const me = await signedIn(ctx, email('mass-form'));
        const other = await signedIn(ctx, email('mass-form-other'));
        const slug = `mass-firm-${n}`;
        await ctx.app.services.accounts.createFirm(actorOf(other), { slug, name: 'Other firm' });
        await me.client.get('/developer/keys/new');
        const created = await me.client.post('/developer/keys', {
          mode: 'live',
          name: 'planted',
          scopes: 'lawyers:read',
          tier: 'internal',
          owner: other.email,
          owner_email: other.email,
          owner_id: other.userId,
          user_id: other.userId,
          firm: slug,
          firm_slug: slug,
          allow_list: '0.0.0.0/0',
          status: 'suspended',
        });
        assert.equal(created.statusCode, 201, created.body.slice(0, 300));
        const mine = await ctx.app.services.keys.list(OPERATOR, { ownerEmail: me.email });
        assert.equal(mine.length, 1);
        const key = mine[0]!;
        assert.equal(key.tier, 'free');
        assert.deepEqual(key.scopes, ['lawyers:read']);
        assert.equal(key.suspension, null);
        assert.equal(key.allowedIps, null, 'a personal key takes no allow-list from the form');
        assert.deepEqual(key.owner, { type: 'user', userId: me.userId, email: me.email });
        assert.deepEqual(await ctx.app.services.keys.list(OPERATOR, { ownerEmail: other.email }), []);
        assert.deepEqual(await ctx.app.services.keys.list(OPERATOR, { firmSlug: slug }), []);

        await me.client.get('/developer/webhooks/new');
        const hook = await me.client.post('/developer/webhooks', { url: 'https://93.184.216.34/planted', events: 'booking_intent.confirmed', owner_id: other.userId, firm: slug, secret: 'whsec_cGxhbnRlZA==', disabled_at: '2026-01-01T00:00:00Z' });
        assert.equal(hook.statusCode, 201, hook.body.slice(0, 300));
        const endpoints = await ctx.app.services.webhooks.list(OPERATOR, { ownerEmail: me.email });
        assert.equal(endpoints.length, 1);
        assert.deepEqual([endpoints[0]!.enabled, endpoints[0]!.owner], [true, { type: 'user', id: me.userId, email: me.email }]);
        assert.ok(!hook.body.includes('whsec_cGxhbnRlZA=='), 'the planted secret is not the one issued');
        assert.deepEqual(await ctx.app.services.webhooks.list(OPERATOR, { ownerEmail: other.email }), []);

        await me.client.get('/firms');
        const firm = await me.client.post('/firms', { slug: `mass-own-${n}`, name: 'Mine', owner_email: other.email, role: 'member' });
        assert.equal(firm.statusCode, 303, firm.body.slice(0, 300));
        const members = await ctx.app.services.accounts.listMembers(OPERATOR, `mass-own-${n}`);
        assert.deepEqual(members.map((m) => [m.email, m.role]), [[me.email, 'owner']]);
      });
    });

    describe('API4/API6 resource consumption and business-flow abuse', () => {
      let strict: TestContext;
      let strictLawyer: string;
      before(async () => {
        // The real limits (the shared test context multiplies them by 1,000).
        // Access tokens outlive the hour the hoarding test spans (holds lapse after 15 minutes, as tokens would).
        strict = await createTestContext(target, { config: { rateLimitMultiplier: 1, oauthAccessTokenTtlSeconds: 7_200 } });
        [strictLawyer] = (await insertLawyers(strict.database, [lawyerRecord({ weekly_hours: [1, 2, 3, 4, 5, 6, 7].map((weekday) => ({ weekday, start_time: '09:00:00', end_time: '19:00:00', slot_minutes: 60 as const })) })])) as [string];
      });
      after(async () => strict?.close());

      it('MCP: an app makes at most 60 tool calls a minute for a person, then rate_limited with a retry time; another app is not affected', async () => {
        const agent = await connectedAgent(strict, email('flood'), 'directory:read');
        const client = await sdkClient(strict, agent.accessToken);
        const other = await connectedAgent(strict, email('flood-other'), 'directory:read');
        const otherClient = await sdkClient(strict, other.accessToken);
        try {
          strict.clock.set(Math.ceil(strict.clock.now().getTime() / 60_000) * 60_000 + 1_000);
          for (let i = 0; i < 60; i++) structured(await client.callTool({ name: 'list_cities', arguments: {} }));
          const refused = toolError(await client.callTool({ name: 'list_cities', arguments: {} }));
          assert.equal(refused.code, 'rate_limited');
          assert.ok((refused.retry_after_seconds ?? 0) >= 1, 'says when to retry');
          structured(await otherClient.callTool({ name: 'list_cities', arguments: {} }));
          strict.clock.advance(60_000);
          structured(await client.callTool({ name: 'list_cities', arguments: {} }));
        } finally {
          await client.close();
          await otherClient.close();
        }
      });

      it('hold hoarding over MCP: 3 pending holds per person, and 5 hold attempts an hour however quickly the holds lapse', async () => {
        strict.clock.set(Date.parse('2026-11-23T09:00:30Z')); // the start of an hour window (10:00 in Madrid)
        const agent = await connectedAgent(strict, email('hoard'), 'directory:read slots:hold');
        const client = await sdkClient(strict, agent.accessToken);
        const hold = (date: string, hour: number) =>
          client.callTool({ name: 'hold_consultation_slot', arguments: { lawyer_id: strictLawyer, date, start_time: `${String(hour).padStart(2, '0')}:00:00`, end_time: `${String(hour + 1).padStart(2, '0')}:00:00` } });
        try {
          for (const h of [13, 14, 15]) structured(await hold('2026-11-25', h));
          assert.equal(errorCode(await hold('2026-11-25', 16)), 'hold_limit_reached', 'the 4th pending hold');
          strict.clock.advance(16 * 60_000); // the three lapse
          structured(await hold('2026-11-25', 16)); // the 5th attempt (a refused one counts, as on the API)
          strict.clock.advance(16 * 60_000); // nothing pending any more
          const sixth = toolError(await hold('2026-11-25', 17));
          assert.equal(sixth.code, 'rate_limited', 'the 6th attempt within the hour');
          assert.ok((sixth.retry_after_seconds ?? 0) > 0);
          const held = await strict.database.db.selectFrom('booking_intents').select('id').where('lawyer_id', '=', strictLawyer).execute();
          assert.equal(held.length, 4);
          strict.clock.set(Date.parse('2026-11-23T10:00:30Z')); // the next hour
          structured(await hold('2026-11-25', 17));
        } finally {
          await client.close();
        }
      });

      it('REST and site: oversized bodies are 413, page numbers and sizes are bounded, a date range over 14 days is refused', async () => {
        const big = await strict.app.fastify.inject({ method: 'POST', url: '/api/v1/bookings/initiate', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ agent_name: 'x'.repeat(128 * 1024) }), remoteAddress: '198.51.100.201' });
        assert.equal(big.statusCode, 413);
        assert.equal(big.json().code, 'payload_too_large');
        const form = await strict.app.fastify.inject({ method: 'POST', url: '/sign-in', headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', origin: 'http://consulta.test', 'sec-fetch-site': 'same-origin' }, payload: `email=${'a'.repeat(64 * 1024)}`, remoteAddress: '198.51.100.202' });
        assert.equal(form.statusCode, 413, 'a site form over 16 KiB');
        const mcp = await strict.app.fastify.inject({ method: 'POST', url: '/mcp', headers: { host: 'consulta.test', 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(128 * 1024) } }), remoteAddress: '198.51.100.203' });
        assert.equal(mcp.statusCode, 413, 'an MCP message over the body limit');
        for (const [url, pointer] of [
          ['/api/v1/lawyers/search?limit=26', '/query/limit'],
          ['/api/v1/lawyers/search?limit=1000000', '/query/limit'],
          ['/api/v1/lawyers/search?page=0', '/query/page'],
          ['/api/v1/lawyers/search?page=100001', '/query/page'],
          [`/api/v1/lawyers/${strictLawyer}/reviews?limit=26`, '/query/limit'],
        ] as const) {
          const res = await strict.app.fastify.inject({ url, remoteAddress: '198.51.100.204' });
          assert.equal(res.statusCode, 400, url);
          assert.ok((res.json().errors as Array<{ pointer: string }>).some((e) => e.pointer === pointer), `${url} names ${pointer}`);
        }
        const range = await strict.app.fastify.inject({ url: `/api/v1/lawyers/${strictLawyer}/availability?start_date=2026-11-24&end_date=2026-12-08`, remoteAddress: '198.51.100.206' });
        assert.equal(range.statusCode, 400, '15 days');
      });
    });

    describe('API5/API9 function-level authorization and inventory', () => {
      /** Every area of the app; a route outside them (a debug page, an admin shortcut) fails the inventory. */
      const AREAS = [
        /^\/api\/v1\/(lawyers|practice-areas|cities|bookings|booking-intents|key|usage|openapi\.json|\*)/,
        /^\/mcp$/,
        // The booking widget (issue 27): its script and its frames.
        /^\/embed(\.js$|\/)/,
        /^\/oauth(\/|$)/,
        /^\/\.well-known\/(oauth-authorization-server|openid-configuration|oauth-protected-resource)(\/|$)/,
        /^\/$/,
        /^\/(assets|lawyers|confirm|consultations|developer|firms|operator|account)(\/|$)/,
        // Reporting a review (src/site/review-reports).
        /^\/reviews\/[^/]+\/report(\/sent)?$/,
        /^\/(sign-in|sign-out)(\/|$)/,
        /^\/booking\/test-mode$/,
        /^\/time-zone$/,
        /^\/(help|contact|legal|join)(\/|$)/,
        /^\/(lawyer|lawyer-photos)(\/|$)/,
        /^\/aviso-legal$/,
        /^\/lawyer\/calendar-feed(\/|$)/,
        /^\/docs\/(api|errors)(\/|$)/,
        /^\/(healthz|readyz|llms\.txt|metrics)$/,
      ];

      it('every registered route belongs to a known area; nothing named like a debug, admin, seed or import route exists', () => {
        const routes = [...new Set(ctx.app.routes.map((r) => r.url))];
        assert.ok(routes.length > 100, 'the inventory sees the routes');
        assert.deepEqual(routes.filter((url) => !AREAS.some((a) => a.test(url))), [], 'routes outside every known area');
        assert.deepEqual(routes.filter((url) => /debug|admin|internal|__|seed|import|migrate|phpinfo|graphql|\.env|console/i.test(url)), []);
      });

      it('CLI-only functions (keys, tiers, operators, lawyers, import, seed, mail, oauth grants) are not reachable over HTTP', async () => {
        const key = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: email('cli-only') }, { mode: 'live', tier: 'internal' });
        const probes: Array<[string, string]> = [
          ['POST', '/api/v1/keys'],
          ['GET', '/api/v1/keys'],
          ['POST', `/api/v1/keys/${key.key.id}/tier`],
          ['POST', '/api/v1/webhooks'],
          ['POST', '/api/v1/firms'],
          ['POST', '/api/v1/operators'],
          ['POST', `/api/v1/lawyers/${lawyerId}/verify`],
          ['POST', '/api/v1/import'],
          ['POST', '/api/v1/seed'],
          ['POST', '/api/v1/migrate'],
          ['GET', '/api/v1/mail'],
          ['GET', '/api/v1/requests/req_0'],
          ['GET', '/api/v1/oauth/grants'],
          ['GET', '/api/v2/lawyers/search'],
          ['GET', '/api/lawyers/search'],
          ['GET', '/admin'],
          ['GET', '/debug'],
          ['GET', '/.env'],
          ['GET', '/mail'],
          ['POST', '/operators'],
        ];
        for (const [method, url] of probes) {
          const res = await ctx.app.fastify.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${key.token}`, 'content-type': 'application/json' }, payload: method === 'POST' ? '{}' : undefined });
          assert.equal(res.statusCode, 404, `${method} ${url}: ${res.statusCode}`);
        }
        const trace = await ctx.app.fastify.inject({ method: 'TRACE' as 'GET', url: '/api/v1/cities', headers: { 'x-secret': 'echo-me' } });
        // A known path: 405 with the methods it does take (issue 17), and TRACE is not one of them.
        assert.equal(trace.statusCode, 405, 'TRACE is no method of ours');
        assert.equal(trace.headers.allow, 'GET, HEAD, OPTIONS');
        assert.ok(!trace.body.includes('echo-me'), 'TRACE does not echo the request');
      });

      it('a test key reaches no live data: it polls nothing, and its holds hold nothing', async () => {
        const live = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: email('modes') }, { mode: 'live' });
        const test = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: email('modes') }, { mode: 'test' });
        const held = await initiate(ctx, slotBody(lawyerId, '2026-11-27', '13'), { token: live.token });
        assert.equal(held.statusCode, 201);
        const polled = await ctx.app.fastify.inject({ url: `/api/v1/booking-intents/${held.json().booking_intent_id}`, headers: { authorization: `Bearer ${test.token}` } });
        assert.equal(polled.statusCode, 404, "the same owner's test key cannot read a live intent");
        const testHold = await initiate(ctx, slotBody(lawyerId, '2026-11-27', '10'), { token: test.token });
        assert.equal(testHold.statusCode, 201);
        assert.equal(testHold.json().booking_intent_id, null);
        const again = await initiate(ctx, slotBody(lawyerId, '2026-11-27', '10'), { token: live.token });
        assert.equal(again.statusCode, 201, 'the slot a test key "held" is still free');
      });
    });

    describe('API8 security misconfiguration', () => {
      it('every page refuses framing and credentialed cross-origin reads; signed-in pages are not cached; no version headers anywhere', async () => {
        const op = await operatorSignedIn(ctx, email('headers'), { steppedUp: true });
        // The widget's /embed frames are framed on purpose, by exactly their key's origins (test/widget/widget.test.ts).
        const pages = [...new Set(ctx.app.routes.filter((r) => r.method === 'GET' && !r.url.includes(':') && !r.url.includes('*') && !r.url.startsWith('/api/') && !r.url.startsWith('/oauth') && !r.url.startsWith('/.well-known') && !r.url.startsWith('/docs/api') && !r.url.startsWith('/embed') && r.url !== '/mcp').map((r) => r.url))];
        assert.ok(pages.length >= 15, `pages found: ${pages.length}`);
        for (const url of pages) {
          const res = await op.client.get(url, { origin: 'https://evil.example' });
          assert.ok(res.statusCode < 500, `${url}: ${res.statusCode}`);
          if (!/^text\/html/.test(String(res.headers['content-type']))) continue;
          assert.equal(res.headers['x-frame-options'], 'DENY', `${url}: X-Frame-Options`);
          assert.match(String(res.headers['content-security-policy']), /frame-ancestors 'none'/, `${url}: frame-ancestors`);
          assert.equal(res.headers['access-control-allow-origin'], undefined, `${url}: readable cross-origin`);
          assert.equal(res.headers['access-control-allow-credentials'], undefined, url);
          if (res.statusCode === 200 && url !== '/' && !url.startsWith('/docs')) assert.match(String(res.headers['cache-control']), /no-store|private/, `${url}: cacheable while signed in`);
        }
        for (const url of ['/api/v1/cities', '/api/v1/nowhere', '/mcp', '/oauth/.well-known/openid-configuration', '/healthz', '/', '/docs/errors']) {
          const res = await ctx.app.fastify.inject({ url });
          assert.equal(res.headers.server, undefined, `${url}: Server`);
          assert.equal(res.headers['x-powered-by'], undefined, `${url}: X-Powered-By`);
          assert.equal(res.headers['x-content-type-options'], 'nosniff', `${url}: nosniff`);
        }
      });

      it('the MCP endpoint and the API send no credentialed CORS; the API does not accept cookies as credentials', async () => {
        const owner = await signedIn(ctx, email('cookie-creds'));
        const api = await ctx.app.fastify.inject({ url: '/api/v1/usage', headers: { origin: 'https://evil.example', cookie: [...owner.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } });
        assert.equal(api.statusCode, 401, 'a site session is no API credential');
        assert.equal(api.headers['access-control-allow-credentials'], undefined);
        const mcpCall = (origin: string) =>
          ctx.app.fastify.inject({ method: 'POST', url: '/mcp', headers: { host: 'consulta.test', origin, 'content-type': 'application/json', accept: 'application/json, text/event-stream', cookie: [...owner.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } });
        const sameSite = await mcpCall('http://consulta.test');
        assert.equal(sameSite.statusCode, 401, 'a site session is no MCP credential');
        assert.match(String(sameSite.headers['www-authenticate']), /resource_metadata=/);
        const foreign = await mcpCall('https://evil.example');
        assert.equal(foreign.statusCode, 403, 'a foreign Origin is refused');
        assert.equal(foreign.headers['access-control-allow-credentials'], undefined);
        assert.equal(sameSite.headers['access-control-allow-origin'], undefined, 'no CORS on the MCP endpoint');
      });
    });

    describe('API10 unsafe consumption: user text reaches agents only fenced', () => {
      it('REST and MCP return the bio and review fenced, as JSON that browsers will not sniff as HTML', async () => {
        const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyerId}` });
        assert.match(String(res.headers['content-type']), /^application\/json/);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        const bio = res.json().bio as string;
        assert.match(bio, /^\[BEGIN UNTRUSTED TEXT id=[0-9a-f]{16} source=lawyer_bio;/);
        assert.ok(bio.includes(XSS), 'the text inside is the stored text');
        const reviews = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyerId}/reviews` });
        assert.match(reviews.json().reviews[0].comment as string, /^\[BEGIN UNTRUSTED TEXT id=[0-9a-f]{16} source=review_comment;/);
        const agent = await connectedAgent(ctx, email('fenced'), 'directory:read');
        const client = await sdkClient(ctx, agent.accessToken);
        try {
          const profile = structured<{ bio: string }>(await client.callTool({ name: 'get_lawyer_profile', arguments: { lawyer_id: lawyerId } }));
          assert.equal(profile.bio, bio, 'MCP fences exactly as REST');
        } finally {
          await client.close();
        }
      });
    });
  });
}

describe('API7 SSRF: the Client ID Metadata Document fetch follows no redirect', () => {
  it('a document host answering 302 to another address gets its 302 back; the target is never asked', async () => {
    const cert = fs.readFileSync(new URL('receiver.crt', FIXTURES), 'utf8');
    const key = fs.readFileSync(new URL('receiver.key', FIXTURES), 'utf8');
    const asked: string[] = [];
    const server = https.createServer({ key, cert }, (req, res) => {
      asked.push(req.url ?? '');
      if (req.url === '/client.json') res.writeHead(302, { location: '/internal-secret' }).end();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":true}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    try {
      // The test host's name resolves to loopback, let through by a narrowed policy (the override tests use);
      // a redirect target is a new request the fetch never makes.
      const fetchDoc = safeFetch({ resolver: async () => ['127.0.0.1'], tls: { ca: cert }, policy: (address) => (address === '127.0.0.1' ? null : 'not the test host') });
      const res = await fetchDoc(`https://hooks.example.test:${port}/client.json`);
      assert.equal(res.status, 302);
      assert.deepEqual(asked, ['/client.json']);
      // And with the production policy, loopback itself is refused before connecting.
      const strictFetch = safeFetch({ resolver: async () => ['127.0.0.1'], tls: { ca: cert } });
      await assert.rejects(strictFetch(`https://hooks.example.test:${port}/client.json`));
      assert.deepEqual(asked, ['/client.json'], 'nothing more was asked');
      await assert.rejects(strictFetch('http://hooks.example.test/client.json'), /only https/);
    } finally {
      server.close();
      await once(server, 'close');
    }
  });
});
