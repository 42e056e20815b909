/**
 * The request log pages over the real app and database (both): only the person's own keys'
 * requests, test traffic flagged, filters, keyset pages, the X-Request-Id search, one request,
 * the 30-day window, filtered pages bounded to 10,000 requests each, and a firm's log for
 * members who may read usage.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../src/domain/access/types.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { pageText } from '../support/site.ts';
import { rawRequest } from '../fuzz/support.ts';

const OPERATOR: Actor = { type: 'operator' };
const ROW = /<tr(?: class="test")?>\s*<td>/g;
const rowCount = (html: string) => (html.match(ROW) ?? []).length;
const ids = (html: string) => [...html.matchAll(/>(req_[0-9a-f]{32})</g)].map((m) => m[1]!);

for (const target of databaseTargets()) {
  describe(`request log pages (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0 } });
    });
    after(async () => ctx?.close());

    async function keyFor(userId: string, email: string, mode: 'live' | 'test' = 'live') {
      return (await ctx.app.services.keys.create({ type: 'user', userId }, { ownerEmail: email }, { mode })).token;
    }
    const call = async (token: string | null, url = '/api/v1/practice-areas') => {
      const res = await ctx.app.fastify.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
      return res.headers['x-request-id'] as string;
    };

    it("lists only the person's own keys' requests, newest first, test traffic flagged", async () => {
      const me = await signedIn(ctx, 'log@example.com');
      const other = await signedIn(ctx, 'other-log@example.com');
      const live = await keyFor(me.userId, me.email);
      const test = await keyFor(me.userId, me.email, 'test');
      const mine = [await call(live), await call(test), await call(live, '/api/v1/lawyers/00000000-0000-4000-8000-000000000000')];
      const theirs = await call(await keyFor(other.userId, other.email));
      const anonymous = await call(null);
      await ctx.app.services.requestLog.flush();
      const page = await me.client.get('/developer/requests');
      assert.equal(page.statusCode, 200);
      assert.deepEqual(ids(page.body), [...mine].reverse(), 'mine, newest first');
      assert.ok(!page.body.includes(theirs) && !page.body.includes(anonymous));
      assert.equal((page.body.match(/class="badge test"/g) ?? []).length, 1, 'the test request is flagged');
      assert.match(pageText(page.body), /404/);
    });

    it('colours each status by its class (the code is the text) and gives times to the second', async () => {
      const me = await signedIn(ctx, 'badges@example.com');
      const live = await ctx.app.services.keys.create({ type: 'user', userId: me.userId }, { ownerEmail: me.email }, { mode: 'live' });
      // The test clock stands at 09:00:00 Madrid; each request a few seconds later.
      const statuses = [200, 304, 400, 404, 429, 500, 503];
      statuses.forEach((status, i) =>
        ctx.app.services.requestLog.record({
          request_id: `req_${'b'.repeat(31)}${i}`, at: new Date(ctx.clock.now().getTime() + (i + 1) * 7_000).toISOString(), key_id: live.key.id, owner_type: 'user', owner_id: me.userId, test: 0,
          method: 'GET', route: '/api/v1/cities', path: '/api/v1/cities', status, duration_ms: 3, client_ip: '192.0.2.1', error_code: status >= 400 ? 'invalid_request' : null,
        }),
      );
      await ctx.app.services.requestLog.flush();
      const page = await me.client.get('/developer/requests');
      const badges = [...page.body.matchAll(/<span class="badge (status-[0-9x]+)">(\d{3})<\/span>/g)].map((m) => `${m[2]} ${m[1]}`);
      assert.deepEqual(badges, ['503 status-5xx', '500 status-5xx', '429 status-429', '404 status-4xx', '400 status-4xx', '304 status-2xx', '200 status-2xx']);
      const times = [...page.body.matchAll(/<td class="when">([^<]+)<\/td>/g)].map((m) => m[1]!);
      assert.deepEqual(times.slice(-2), ['23 Nov 2026, 09:00:14 CET', '23 Nov 2026, 09:00:07 CET'], 'seconds apart, and shown so');
      const detail = await me.client.get(`/developer/requests/req_${'b'.repeat(31)}4`);
      assert.match(pageText(detail.body), /23 Nov 2026, 09:00:35 CET/);
      assert.match(detail.body, /<span class="badge status-429">429<\/span>/);
      const es = await me.client.get('/developer/requests?lang=es');
      assert.match(pageText(es.body), /23 nov 2026, 9:00:07 CET|23 nov 2026, 09:00:07 CET/);
      await me.client.get('/developer/requests?lang=en');
    });

    it('filters by mode, status class, path and key; a key that is not theirs is 404', async () => {
      const me = await signedIn(ctx, 'filters@example.com');
      const live = await keyFor(me.userId, me.email);
      const test = await keyFor(me.userId, me.email, 'test');
      const ok = await call(live);
      const notFound = await call(live, '/api/v1/lawyers/00000000-0000-4000-8000-000000000000');
      const testCall = await call(test, '/api/v1/cities');
      await ctx.app.services.requestLog.flush();
      assert.deepEqual(ids((await me.client.get('/developer/requests?mode=test')).body), [testCall]);
      assert.deepEqual(ids((await me.client.get('/developer/requests?mode=live')).body), [notFound, ok]);
      assert.deepEqual(ids((await me.client.get('/developer/requests?status=4xx')).body), [notFound]);
      assert.deepEqual(ids((await me.client.get('/developer/requests?status=2xx')).body), [testCall, ok]);
      assert.deepEqual(ids((await me.client.get(`/developer/requests?path=${encodeURIComponent('/api/v1/lawyers')}`)).body), [notFound]);
      const liveKey = (await ctx.app.services.keys.findByToken(live))!;
      assert.deepEqual(ids((await me.client.get(`/developer/requests?key=${liveKey.id}`)).body), [notFound, ok]);
      // Wildcards are text, not patterns.
      assert.deepEqual(ids((await me.client.get(`/developer/requests?path=${encodeURIComponent('/api/v1/%')}`)).body), []);
      const other = await signedIn(ctx, 'filters-other@example.com');
      const foreignKey = (await ctx.app.services.keys.findByToken(await keyFor(other.userId, other.email)))!;
      assert.equal((await me.client.get(`/developer/requests?key=${foreignKey.id}`)).statusCode, 404);
      // Unknown filter values are ignored, not errors.
      assert.equal((await me.client.get('/developer/requests?status=7xx&mode=both')).statusCode, 200);
    });

    it('pages with stable links: 50 per page, then the older ones, nothing twice', async () => {
      const me = await signedIn(ctx, 'pages@example.com');
      const live = await keyFor(me.userId, me.email);
      const made: string[] = [];
      for (let i = 0; i < 55; i++) {
        made.push(await call(live));
        ctx.clock.advance(1000);
      }
      await ctx.app.services.requestLog.flush();
      const first = await me.client.get('/developer/requests');
      assert.equal(rowCount(first.body), 50);
      const older = /href="(\/developer\/requests\?cursor=[^"]+)"/.exec(first.body)?.[1];
      assert.ok(older, 'a link to older requests');
      const second = await me.client.get(older.replaceAll('&amp;', '&'));
      assert.equal(rowCount(second.body), 5);
      assert.deepEqual([...ids(first.body), ...ids(second.body)], [...made].reverse());
      assert.equal((await me.client.get('/developer/requests?cursor=garbage')).statusCode, 400);
    });

    it('a filter that matches little looks at 10,000 requests per page, says how far back, and links on', async () => {
      const me = await signedIn(ctx, 'scan@example.com');
      const live = await keyFor(me.userId, me.email);
      const key = (await ctx.app.services.keys.findByToken(live))!;
      // 10,020 requests, one a second, newest now; the only 5xx is the oldest.
      const now = ctx.clock.now().getTime();
      const made: string[] = [];
      for (let i = 0; i < 10_020; i++) {
        const at = now - i * 1000;
        const request_id = `req_${at.toString(16).padStart(12, '0')}${i.toString(16).padStart(20, '0')}`;
        made.push(request_id);
        ctx.app.services.requestLog.record({
          request_id, at: new Date(at).toISOString(), key_id: key.id, owner_type: 'user', owner_id: me.userId, test: 0, method: 'GET',
          route: '/api/v1/cities', path: '/api/v1/cities', status: i === 10_019 ? 503 : 200, duration_ms: 1, client_ip: '192.0.2.1', error_code: i === 10_019 ? 'service_unavailable' : null,
        });
      }
      await ctx.app.services.requestLog.flush();
      const first = await me.client.get('/developer/requests?status=5xx');
      assert.equal(first.statusCode, 200);
      assert.equal(rowCount(first.body), 0);
      const text = pageText(first.body);
      assert.match(text, /No more matches among your requests back to .*Older requests may still match/);
      assert.doesNotMatch(text, /No requests match/);
      const more = /href="(\/developer\/requests\?status=5xx&amp;cursor=[^"]+)"[^>]*>Search older requests</.exec(first.body)?.[1];
      assert.ok(more, 'a link that keeps the filter and searches on');
      const second = await me.client.get(more.replaceAll('&amp;', '&'));
      assert.deepEqual(ids(second.body), [made.at(-1)]);
      assert.doesNotMatch(pageText(second.body), /Older requests may still match/, 'the end of the 30 days');
      // Unfiltered pages are never cut short: 50 rows.
      assert.equal(rowCount((await me.client.get('/developer/requests')).body), 50);
    });

    it('shows one request; the X-Request-Id search opens it; anyone else gets 404', async () => {
      const me = await signedIn(ctx, 'detail@example.com');
      const live = await keyFor(me.userId, me.email);
      const id = await call(live, '/api/v1/lawyers/00000000-0000-4000-8000-000000000000');
      await ctx.app.services.requestLog.flush();
      const page = await me.client.get(`/developer/requests/${id}`);
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      assert.match(text, /\/api\/v1\/lawyers\/:lawyerId/);
      assert.match(text, /Key svc_[A-Za-z0-9_]+…/, 'the key, named by its prefix (it has no name)');
      assert.match(text, /Mode Live/);
      assert.match(page.body, /href="\/docs\/errors\/lawyer_not_found"|href="\/docs\/errors\/not_found"/);
      const found = await me.client.get(`/developer/requests/find?request_id=${id.toUpperCase()}`);
      assert.equal(found.statusCode, 303);
      assert.equal(found.headers.location, `/developer/requests/${id}`);
      const bad = await me.client.get('/developer/requests/find?request_id=nonsense');
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /That is not a request id/);
      const other = await signedIn(ctx, 'detail-other@example.com');
      assert.equal((await other.client.get(`/developer/requests/${id}`)).statusCode, 404);
      assert.equal((await me.client.get('/developer/requests/req_nothere')).statusCode, 404);
    });

    it('shows each request\'s query string, escaped, bounded, with anything shaped like a key blanked; the key by its name first', async () => {
      const me = await signedIn(ctx, 'query@example.com');
      const { token } = await ctx.app.services.keys.create({ type: 'user', userId: me.userId }, { ownerEmail: me.email }, { mode: 'live', name: 'crm sync' });
      // No spaces: it goes into the request line as it stands.
      const xss = `"'><svg/onload=alert(1)><script>alert(1)</script>`;
      const plain = await call(token, '/api/v1/lawyers/search?city=madrid&language=ar');
      // As a raw client sends it (unencoded: inject() would encode it, so over a real socket)
      // and as a well-behaved one does (percent-encoded).
      await ctx.app.fastify.listen({ port: 0, host: '127.0.0.1' });
      const port = (ctx.app.fastify.server.address() as AddressInfo).port;
      const sent = await rawRequest(port, { method: 'GET', target: `/api/v1/lawyers/search?city=${xss}`, headers: [['authorization', `Bearer ${token}`]] });
      assert.equal(sent.status, 400, 'an unknown city');
      const raw = sent.headers['x-request-id']!;
      const encoded = await call(token, `/api/v1/lawyers/search?city=${encodeURIComponent(xss)}`);
      // A key pasted into the URL by mistake (it authenticates nothing there), as typed and encoded.
      const leaked = await call(token, `/api/v1/cities?api_key=${token}&page=1`);
      const leakedEncoded = await call(token, `/api/v1/cities?key=${token.replace('_', '%5F')}`);
      const long = await call(token, `/api/v1/cities?q=${'a'.repeat(2000)}`);
      const none = await call(token, '/api/v1/cities');
      await ctx.app.services.requestLog.flush();

      const list = await me.client.get('/developer/requests');
      assert.equal(list.statusCode, 200);
      for (const body of [list.body, (await me.client.get(`/developer/requests/${raw}`)).body, (await me.client.get(`/developer/requests/${encoded}`)).body]) {
        assert.ok(!/<svg\/onload|<script>alert/.test(body), 'the payload is never markup');
        assert.ok(!body.includes(token), 'the key never appears');
      }
      // Preact escapes <, & and " in text: the markup characters are entities, the rest as sent.
      assert.ok(list.body.includes(`?city=&quot;'>&lt;svg/onload=alert(1)>&lt;script>alert(1)&lt;/script>`), 'the unencoded payload is shown, as text');
      assert.match(list.body, /\?city=%22%27%3E%3Csvg/, 'the encoded one as sent');
      const text = pageText(list.body);
      assert.match(text, /GET \/api\/v1\/lawyers\/search ?\?city=madrid&language=ar/);
      assert.match(text, /crm sync · svc_[A-Za-z0-9]+…/, 'rows name the key by its name, then its prefix');

      const detail = pageText((await me.client.get(`/developer/requests/${plain}`)).body);
      assert.match(detail, /Path \/api\/v1\/lawyers\/search Query string \?city=madrid&language=ar/);
      assert.match(detail, /Key crm sync · svc_[A-Za-z0-9]+…/);
      assert.match(pageText((await me.client.get(`/developer/requests/${none}`)).body), /Query string None/);
      assert.match(pageText((await me.client.get(`/developer/requests/${leaked}`)).body), /Query string \?api_key=svc_…&page=1/);
      assert.match(pageText((await me.client.get(`/developer/requests/${leakedEncoded}`)).body), /Query string \?key=svc_…(?:\s|$)/);
      // What is stored, not only what is shown.
      const stored = async (id: string) => (await ctx.database.db.selectFrom('request_log').select('query').where('request_id', '=', id).executeTakeFirstOrThrow()).query;
      assert.equal(await stored(plain), 'city=madrid&language=ar');
      assert.equal(await stored(none), null);
      assert.equal(await stored(leaked), 'api_key=svc_…&page=1');
      assert.equal(await stored(long), `q=${'a'.repeat(510)}…`, 'bounded to 512 characters');
    });

    it('keeps to the last 30 days', async () => {
      const me = await signedIn(ctx, 'window@example.com');
      const id = await call(await keyFor(me.userId, me.email));
      await ctx.app.services.requestLog.flush();
      assert.deepEqual(ids((await me.client.get('/developer/requests')).body), [id]);
      ctx.clock.advance(31 * 86_400_000);
      // A month later (a fresh session: the old one has expired).
      const later = await signedIn(ctx, 'window@example.com');
      const page = await later.client.get('/developer/requests');
      assert.equal(page.statusCode, 200);
      assert.deepEqual(ids(page.body), []);
      assert.equal((await later.client.get(`/developer/requests/${id}`)).statusCode, 404);
      ctx.clock.advance(-31 * 86_400_000);
    });

    it("a firm's log: members who may read usage see it, others get 403, outsiders 404", async () => {
      const slug = `log-firm-${target.name}`;
      await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Log firm', ownerEmail: 'owner@logfirm.example' });
      const owner = await signedIn(ctx, 'owner@logfirm.example');
      const reader = await signedIn(ctx, 'reader@logfirm.example');
      const member = await signedIn(ctx, 'member@logfirm.example');
      const outsider = await signedIn(ctx, 'outsider@logfirm.example');
      await ctx.app.services.accounts.addMember(OPERATOR, slug, reader.email, 'member', ['usage:read']);
      await ctx.app.services.accounts.addMember(OPERATOR, slug, member.email, 'member');
      const { token } = await ctx.app.services.keys.create({ type: 'user', userId: owner.userId }, { firmSlug: slug }, { mode: 'live' });
      const id = await call(token);
      await ctx.app.services.requestLog.flush();
      assert.deepEqual(ids((await owner.client.get(`/firms/${slug}/requests`)).body), [id]);
      assert.deepEqual(ids((await reader.client.get(`/firms/${slug}/requests`)).body), [id]);
      assert.equal((await reader.client.get(`/firms/${slug}/requests/${id}`)).statusCode, 200);
      assert.equal((await member.client.get(`/firms/${slug}/requests`)).statusCode, 403);
      assert.equal((await outsider.client.get(`/firms/${slug}/requests`)).statusCode, 404);
      assert.equal((await outsider.client.get(`/firms/${slug}/requests/${id}`)).statusCode, 404);
      assert.equal((await owner.client.get(`/developer/requests/${id}`)).statusCode, 404, "a firm's request is not in a person's own log");
    });
  });
}
