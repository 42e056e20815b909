/**
 * The booking widget over HTTP (issue 27; docs/widget.md), on both databases: publishable keys
 * (format, scopes, origins), the API from a page (CORS to the key's origins only; servers and
 * other sites refused), the frame (frame-ancestors exactly the key's origins, no cookies at all,
 * holds attributed to the key's owner with source widget), the messages for a secret key (never
 * echoed) and a revoked key (in the visitor's language), test keys, the status the frame polls,
 * the request log, and the weight budget.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { OPERATOR } from '../support/keys.ts';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, intentRow } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { messages } from '../../src/i18n/index.ts';
import { normaliseOrigin, originAllowed, validateOrigins } from '../../src/domain/access/web-origins.ts';
import { accessibleAccent, contrastWithWhite } from '../../src/site/widget/theme.ts';
import { signedIn } from '../support/dashboard.ts';
import { findLoggedRequest } from '../../src/domain/access/request-log.ts';
import { hiddenFields } from '../support/http-browser.ts';

const HOST = 'https://ngo.example';
const DAY = '2026-11-25';

describe('web origins of a publishable key', () => {
  it('accepts exact https origins, loopback over http and the https://*.example.org form; refuses the rest with a reason', () => {
    assert.deepEqual(normaliseOrigin('https://NGO.example:443/'), { origin: 'https://ngo.example' });
    assert.deepEqual(normaliseOrigin('http://127.0.0.1:8080'), { origin: 'http://127.0.0.1:8080' });
    assert.deepEqual(normaliseOrigin('https://*.example.org'), { origin: 'https://*.example.org' });
    for (const bad of ['http://ngo.example', 'https://ngo.example/path', 'https://*', 'https://*.org', 'https://a.*.example.org', 'ngo.example', '*', 'https://user@ngo.example', 'http://*.localhost']) {
      assert.ok('error' in normaliseOrigin(bad), bad);
    }
    assert.equal(validateOrigins([]).errors.length, 1);
  });

  it('matches a browser Origin exactly, or as a subdomain of a wildcard entry (same port), never null', () => {
    const list = ['https://ngo.example', 'https://*.example.org'];
    assert.ok(originAllowed(list, 'https://ngo.example'));
    assert.ok(originAllowed(list, 'https://a.example.org'));
    assert.ok(originAllowed(list, 'https://a.b.example.org'));
    assert.ok(!originAllowed(list, 'https://example.org'));
    assert.ok(!originAllowed(list, 'https://evilexample.org'));
    assert.ok(!originAllowed(list, 'https://a.example.org:8443'));
    assert.ok(!originAllowed(list, 'http://ngo.example'));
    assert.ok(!originAllowed(list, 'https://ngo.example.evil.test'));
    assert.ok(!originAllowed(list, 'null'));
    assert.ok(!originAllowed(list, undefined));
  });

  it('a theme colour below AA against white is darkened until it reaches 4.5:1', () => {
    assert.ok(contrastWithWhite('ffff00') < 4.5);
    assert.ok(contrastWithWhite(accessibleAccent('ffff00')) >= 4.5);
    assert.equal(accessibleAccent('1d4ed8'), '1d4ed8');
  });
});

describe('weight of the widget', () => {
  const dir = path.join(import.meta.dirname, '..', '..', 'src', 'site', 'assets');
  it('embed.js is under 5 KB compressed', () => {
    const size = gzipSync(fs.readFileSync(path.join(dir, 'embed.js')), { level: 9 }).length;
    assert.ok(size < 5 * 1024, `embed.js is ${size} bytes gzipped`);
  });
});

for (const target of databaseTargets()) {
  describe(`booking widget over HTTP (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    let pk: string;
    let pkId: string;
    let pkTest: string;
    let svc: string;

    before(async () => {
      ctx = await createTestContext(target);
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Nadia El Amrani', weekly_hours: EVERY_DAY_9_TO_14 })])) as [string];
      ctx.app.services.directoryCache.invalidate();
      const keys = ctx.app.services.keys;
      const live = await keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live', publishable: true, origins: [HOST, 'https://*.example.org'] });
      pk = live.token;
      pkId = live.key.id;
      pkTest = (await keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'test', publishable: true, origins: [HOST] })).token;
      svc = (await keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live' })).token;
    });
    after(async () => ctx?.close());

    const inject = (opts: { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string | object }) => ctx.app.fastify.inject(opts);

    it('a publishable key is pk_live_/pk_test_, holds only the read and hold scopes, and keeps its origins', async () => {
      assert.match(pk, /^pk_live_[0-9A-Za-z]{38}$/);
      assert.match(pkTest, /^pk_test_[0-9A-Za-z]{38}$/);
      const key = await ctx.app.services.keys.get(OPERATOR, pkId);
      assert.equal(key.kind, 'publishable');
      assert.deepEqual(key.scopes, ['lawyers:read', 'availability:read', 'reviews:read', 'reference:read', 'bookings:initiate']);
      assert.deepEqual(key.allowedOrigins, [HOST, 'https://*.example.org']);
      assert.equal(key.publicToken, pk);
      await assert.rejects(
        ctx.app.services.keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live', publishable: true, origins: ['http://ngo.example'] }),
        (err: { code: string }) => err.code === 'invalid_request',
      );
      await assert.rejects(
        ctx.app.services.keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live', publishable: true, origins: [HOST], scopes: ['bookings:read'] }),
        (err: { code: string }) => err.code === 'invalid_request',
      );
    });

    it('the API answers a listed origin (CORS to it alone), and refuses another site and a server with 403 origin_not_allowed and no CORS', async () => {
      const ok = await inject({ method: 'GET', url: '/api/v1/lawyers/search', headers: { authorization: `Bearer ${pk}`, origin: 'https://team.example.org' } });
      assert.equal(ok.statusCode, 200);
      assert.equal(ok.headers['access-control-allow-origin'], 'https://team.example.org');
      const other = await inject({ method: 'GET', url: '/api/v1/lawyers/search', headers: { authorization: `Bearer ${pk}`, origin: 'https://evil.test' } });
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().code, 'origin_not_allowed');
      assert.equal(other.headers['access-control-allow-origin'], undefined);
      const server = await inject({ method: 'GET', url: '/api/v1/lawyers/search', headers: { authorization: `Bearer ${pk}` } });
      assert.equal(server.statusCode, 403);
      assert.equal(server.json().code, 'origin_not_allowed');
      // It reads no intents, whatever origin.
      const read = await inject({ method: 'GET', url: '/api/v1/booking-intents/00000000-0000-4000-8000-000000000000', headers: { authorization: `Bearer ${pk}`, origin: HOST } });
      assert.equal(read.statusCode, 403);
      assert.equal(read.json().code, 'insufficient_scope');
    });

    it('a hold over the API with a publishable key is the widget\'s, whatever source the page sent, and belongs to the key\'s owner', async () => {
      const res = await inject({
        method: 'POST',
        url: '/api/v1/bookings/initiate',
        headers: { authorization: `Bearer ${pk}`, origin: HOST, 'content-type': 'application/json' },
        payload: { lawyer_id: lawyerId, date: DAY, start_time: '09:00:00', end_time: '10:00:00', source: 'api' },
      });
      assert.equal(res.statusCode, 201, res.body);
      const row = await intentRow(ctx.database, res.json().booking_intent_id);
      assert.equal(row?.source, 'widget');
      assert.equal(row?.key_id, pkId);
      assert.equal(row?.owner_type, 'user');
    });

    it('the frame names exactly the key\'s origins in frame-ancestors, sends no X-Frame-Options and sets no cookie', async () => {
      const res = await inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${pk}&lang=ar&week=${DAY}&day=${DAY}`, headers: { cookie: 'x=1' } });
      assert.equal(res.statusCode, 200, res.body);
      const csp = String(res.headers['content-security-policy']);
      assert.match(csp, /frame-ancestors https:\/\/ngo\.example https:\/\/\*\.example\.org;/);
      assert.match(csp, /script-src 'self';/);
      assert.doesNotMatch(csp, /unsafe-inline/);
      assert.equal(res.headers['x-frame-options'], undefined);
      assert.equal(res.headers['set-cookie'], undefined);
      assert.match(res.body, /<html lang="ar" dir="rtl">/);
      assert.match(res.body, /name="slot" value="2026-11-25\|10:00:00\|11:00:00"/);
      // The rest of the site keeps its own framing policy.
      const home = await inject({ method: 'GET', url: '/' });
      assert.match(String(home.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.equal(home.headers['x-frame-options'], 'DENY');
    });

    it('the frame\'s cached pages never cross keys or languages: each key gets its own frame-ancestors, colours and links, each language its own page, each response a fresh nonce', async () => {
      const keys = ctx.app.services.keys;
      const [a, b] = [
        { token: (await keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live', publishable: true, origins: ['https://red.example'] })).token, host: 'https://red.example', c: 'b91c1c', r: '0' },
        { token: (await keys.create(OPERATOR, { ownerEmail: 'firm@example.com' }, { mode: 'live', publishable: true, origins: ['https://teal.example'] })).token, host: 'https://teal.example', c: '0f766e', r: '16' },
      ];
      const frame = (k: typeof a, lang: string, headers: Record<string, string> = {}) =>
        inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${k.token}&${lang ? `lang=${lang}&` : ''}host=${encodeURIComponent(k.host)}&wid=w&c=${k.c}&r=${k.r}&week=${DAY}&day=${DAY}`, headers });
      const nonces = new Set<string>();
      // Twice each, interleaved: the second of each is served from the cache the other key's filled.
      for (let round = 0; round < 2; round++) {
        for (const [k, other] of [[a, b], [b, a]] as const) {
          const res = await frame(k, 'en');
          assert.equal(res.statusCode, 200, res.body);
          assert.match(String(res.headers['content-security-policy']), new RegExp(`frame-ancestors ${k.host.replaceAll('.', '\\.')};`));
          assert.ok(!String(res.headers['content-security-policy']).includes(other.host));
          assert.match(res.body, new RegExp(`/embed/theme\\.css\\?c=${k.c}&amp;r=${k.r}"`));
          assert.match(res.body, new RegExp(`data-host="${k.host.replaceAll('.', '\\.')}"`));
          assert.ok(res.body.includes(`k=${k.token}`));
          for (const leak of [other.token, other.host, `c=${other.c}`]) assert.ok(!res.body.includes(leak), `${leak} in another key's frame`);
          assert.match(res.body, /<html lang="en" dir="ltr">/);
          const nonce = /name="nonce" value="([^"]+)"/.exec(res.body)![1]!;
          assert.match(nonce, /^[A-Za-z0-9_-]{8,64}$/);
          nonces.add(nonce);
        }
      }
      assert.equal(nonces.size, 4, 'a fresh nonce in every response');
      // The theme stylesheet each page names gives each key its own accent.
      assert.match((await inject({ method: 'GET', url: `/embed/theme.css?c=${a.c}&r=${a.r}` })).body, /--w-accent:#b91c1c;--w-radius:0px/);
      assert.match((await inject({ method: 'GET', url: `/embed/theme.css?c=${b.c}&r=${b.r}` })).body, /--w-accent:#0f766e;--w-radius:16px/);
      // The same URL in another language (asked, or from Accept-Language) is that language's page.
      assert.match((await frame(a, 'ar')).body, /<html lang="ar" dir="rtl">/);
      assert.match((await frame(a, '', { 'accept-language': 'fr' })).body, /<html lang="fr" dir="ltr">/);
      assert.match((await frame(a, '', { 'accept-language': 'uk' })).body, /<html lang="uk" dir="ltr">/);
      assert.match((await frame(a, 'en')).body, /<html lang="en" dir="ltr">/);
      // A host the key does not list is never named as where events go, even on a page cached for a listed one.
      const elsewhere = await inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${a.token}&lang=en&host=${encodeURIComponent(b.host)}&wid=w&c=${a.c}&r=${a.r}&week=${DAY}&day=${DAY}` });
      assert.match(elsewhere.body, /<body data-host data-wid="w">/);
      assert.ok(!elsewhere.body.includes(`data-host="${b.host}"`));
    });

    it('the frame\'s first view weighs under 40 KB compressed (HTML, stylesheet and script)', async () => {
      const res = await inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${pk}&lang=en` });
      const assets = [...res.body.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((m) => m[1]!);
      assert.equal(assets.length, 2);
      let total = gzipSync(res.rawPayload).length;
      for (const a of assets) total += gzipSync((await inject({ method: 'GET', url: a })).rawPayload).length;
      assert.ok(total < 40 * 1024, `first view is ${total} bytes gzipped`);
      assert.doesNotMatch(res.body, /woff|@font-face/);
    });

    it('holding in the frame: 303 to the waiting page; the intent is the widget\'s, the key owner\'s; the frame polls its status', async () => {
      const res = await inject({
        method: 'POST',
        url: `/embed/lawyers/${lawyerId}/hold?k=${pk}&lang=fr&host=${encodeURIComponent(HOST)}&wid=a1`,
        headers: { origin: SITE, 'sec-fetch-site': 'same-origin', 'content-type': 'application/x-www-form-urlencoded' },
        payload: `slot=${DAY}|11:00:00|12:00:00&nonce=abcdefgh1234`,
      });
      assert.equal(res.statusCode, 303, res.body);
      const location = String(res.headers.location);
      assert.match(location, /^\/embed\/held\/[A-Za-z0-9_-]+\?/);
      assert.equal(res.headers['set-cookie'], undefined);
      const token = location.split('?')[0]!.split('/').pop()!;
      const held = await inject({ method: 'GET', url: location });
      assert.equal(held.statusCode, 200);
      assert.match(held.body, new RegExp(messages('fr').widget.heldTitle));
      assert.match(held.body, new RegExp(`href="${SITE}/confirm/${token}\\?lang=fr" target="_blank"`));
      assert.match(held.body, /data-host="https:\/\/ngo\.example"/);
      const status = await inject({ method: 'GET', url: `/embed/status/${token}` });
      assert.deepEqual(Object.keys(status.json()), ['status', 'expires_at']);
      assert.equal(status.json().status, 'pending');
      const intent = await ctx.database.db.selectFrom('booking_intents').selectAll().where('confirmation_token', '=', token).executeTakeFirstOrThrow();
      assert.deepEqual([intent.source, intent.key_id, intent.owner_type], ['widget', pkId, 'user']);
      // A page on another site cannot post the frame's form.
      const forged = await inject({
        method: 'POST',
        url: `/embed/lawyers/${lawyerId}/hold?k=${pk}`,
        headers: { origin: 'https://evil.test', 'content-type': 'application/x-www-form-urlencoded' },
        payload: `slot=${DAY}|12:00:00|13:00:00`,
      });
      assert.equal(forged.statusCode, 403);
      // The request log has the frame's calls under the key, flagged by their /embed/ path.
      await ctx.app.services.requestLog.flush();
      const logged = await ctx.database.db.selectFrom('request_log').select(['path', 'status', 'query']).where('key_id', '=', pkId).execute();
      assert.ok(logged.some((r) => r.path === `/embed/lawyers/${lawyerId}/hold` && r.status === 303));
      assert.ok(logged.every((r) => !(r.query ?? '').includes(pk)));
    });

    it('the request log flags the widget\'s requests (pk_ API calls and frame pages) "widget", a secret key\'s not; the filter and `requests show` agree', async () => {
      const me = await signedIn(ctx, 'flagged@example.com');
      const keys = ctx.app.services.keys;
      const mine = await keys.create(OPERATOR, { ownerEmail: me.email }, { mode: 'live', publishable: true, origins: [HOST], name: 'ngo site' });
      const secret = await keys.create(OPERATOR, { ownerEmail: me.email }, { mode: 'live', name: 'backend' });
      const api = await inject({ method: 'GET', url: '/api/v1/practice-areas', headers: { authorization: `Bearer ${mine.token}`, origin: HOST } });
      assert.equal(api.statusCode, 200);
      const frame = await inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${mine.token}&lang=en` });
      assert.equal(frame.statusCode, 200);
      const server = await inject({ method: 'GET', url: '/api/v1/cities', headers: { authorization: `Bearer ${secret.token}` } });
      assert.equal(server.statusCode, 200);
      await ctx.app.services.requestLog.flush();
      const ids = { api: String(api.headers['x-request-id']), frame: String(frame.headers['x-request-id']), server: String(server.headers['x-request-id']) };
      // The list: each row's badges are in the cell that holds its request id.
      const cellOf = (html: string, id: string) => {
        const at = html.indexOf(`>${id}</a>`);
        assert.ok(at > 0, `${id} is listed`);
        return html.slice(at, html.indexOf('</td>', at));
      };
      const list = (await me.client.get('/developer/requests')).body;
      assert.match(cellOf(list, ids.api), /<span class="badge widget">widget<\/span>/);
      assert.match(cellOf(list, ids.frame), /<span class="badge widget">widget<\/span>/);
      assert.doesNotMatch(cellOf(list, ids.server), /badge widget/);
      // The filter, both ways.
      const widgetOnly = (await me.client.get('/developer/requests?source=widget')).body;
      assert.ok(widgetOnly.includes(ids.api) && widgetOnly.includes(ids.frame) && !widgetOnly.includes(ids.server));
      const serversOnly = (await me.client.get('/developer/requests?source=server')).body;
      assert.ok(!serversOnly.includes(ids.api) && !serversOnly.includes(ids.frame) && serversOnly.includes(ids.server));
      // One request's page says who made it.
      const detail = (await me.client.get(`/developer/requests/${ids.api}`)).body;
      assert.match(detail, /<span class="badge widget">Booking widget \(publishable key\)<\/span>/);
      const serverDetail = (await me.client.get(`/developer/requests/${ids.server}`)).body;
      assert.match(serverDetail, /A server \(secret key\)/);
      assert.doesNotMatch(serverDetail, /badge widget/);
      // `consulta requests show` (its JSON is this entry) carries the flag as it carries test.
      assert.equal((await findLoggedRequest(ctx.database, ids.frame))?.widget, 1);
      assert.equal((await findLoggedRequest(ctx.database, ids.server))?.widget, 0);
    });

    it('a test key\'s frame runs the checks and holds nothing (the test-mode view)', async () => {
      const res = await inject({
        method: 'POST',
        url: `/embed/lawyers/${lawyerId}/hold?k=${pkTest}&lang=en`,
        headers: { origin: SITE, 'content-type': 'application/x-www-form-urlencoded' },
        payload: `slot=${DAY}|12:00:00|13:00:00`,
      });
      assert.equal(res.statusCode, 303);
      assert.match(String(res.headers.location), /^\/embed\/test-hold\?/);
      const page = await inject({ method: 'GET', url: String(res.headers.location) });
      assert.match(page.body, new RegExp(messages('en').widget.testTitle));
      const held = await ctx.database.db.selectFrom('booking_intents').select('id').where('slot_date', '=', DAY).where('start_time', '=', '12:00:00').execute();
      assert.equal(held.length, 0);
    });

    it('a secret key given to the widget is refused with a clear message and never echoed', async () => {
      const res = await inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${svc}&lang=es` });
      assert.equal(res.statusCode, 400);
      assert.match(res.body, new RegExp(messages('es').widget.setupTitle));
      assert.ok(!res.body.includes(svc));
      assert.ok(!res.body.includes(svc.slice(4, 20)));
      await ctx.app.services.requestLog.flush();
    });

    it('a revoked key\'s widget says "not active" in the visitor\'s language', async () => {
      const doomed = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: 'ngo@example.com' }, { mode: 'live', publishable: true, origins: [HOST] });
      await ctx.app.services.keys.revoke(OPERATOR, doomed.key.id);
      ctx.app.services.access.invalidate();
      for (const lang of ['fr', 'ar', 'uk'] as const) {
        const res = await inject({ method: 'GET', url: `/embed/lawyers/${lawyerId}?k=${doomed.token}&lang=${lang}` });
        assert.equal(res.statusCode, 403);
        assert.match(res.body, new RegExp(messages(lang).widget.inactiveTitle));
      }
      const api = await inject({ method: 'GET', url: '/api/v1/lawyers/search', headers: { authorization: `Bearer ${doomed.token}`, origin: HOST } });
      assert.equal(api.statusCode, 401);
    });

    it('the dashboard creates a publishable key and writes its snippet, with a live preview of the frame', async () => {
      const me = await signedIn(ctx, 'builder@example.com');
      const page = await me.client.get('/developer/widget');
      assert.equal(page.statusCode, 200);
      const fields = hiddenFields(page.body, /^\/developer\/widget\/keys$/);
      const made = await me.client.post('/developer/widget/keys', { ...fields, origins: 'https://builder.example', mode: 'live', owner: '', name: 'site' });
      assert.equal(made.statusCode, 303);
      const keys = (await ctx.app.services.keys.list({ type: 'user', userId: me.userId })).filter((k) => k.kind === 'publishable');
      assert.equal(keys.length, 1);
      const token = keys[0]!.publicToken!;
      const gen = await me.client.get(`/developer/widget?key=${token}&show=lawyer&lawyer=${lawyerId}&mode=popup&lang=fr&color=0f766e`);
      const shown = /<textarea id="w-snippet"[^>]*>([^<]*)/.exec(gen.body)![1]!.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&quot;', '"').replaceAll('&amp;', '&');
      assert.equal(shown, `<script src="${SITE}/embed.js" data-key="${token}" data-lawyer="${lawyerId}" data-mode="popup" data-lang="fr" data-color="0f766e" async></script>`);
      const preview = /<iframe class="widget-preview" src="([^"]+)"/.exec(gen.body)![1]!.replaceAll('&amp;', '&');
      const framed = await inject({ method: 'GET', url: preview });
      assert.equal(framed.statusCode, 200);
      assert.match(String(framed.headers['content-security-policy']), /frame-ancestors https:\/\/builder\.example 'self';/);
      const bad = await me.client.post('/developer/widget/keys', { ...hiddenFields((await me.client.get('/developer/widget')).body, /^\/developer\/widget\/keys$/), origins: 'http://builder.example/path', mode: 'live', owner: '' });
      assert.equal(bad.headers.location, '/developer/widget?error=origins');
    });

    it('a search preset with "video from anywhere in Spain" lists video lawyers from other cities; without it, the city only', async () => {
      await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Salma Video Sevilla', city: 'sevilla', languages: ['es', 'ar'], formats: { video_url: 'https://meet.example.com/salma' }, weekly_hours: EVERY_DAY_9_TO_14 } as never),
      ]);
      ctx.app.services.directoryCache.invalidate();
      const cityOnly = await inject({ method: 'GET', url: `/embed/search?k=${pk}&city=madrid&lang=es` });
      assert.equal(cityOnly.statusCode, 200, cityOnly.body);
      assert.doesNotMatch(cityOnly.body, /Salma Video Sevilla/);
      const remote = await inject({ method: 'GET', url: `/embed/search?k=${pk}&city=madrid&remote=1&lang=es` });
      assert.equal(remote.statusCode, 200, remote.body);
      assert.match(remote.body, /Salma Video Sevilla/);
    });

    it('embed.js is served at a fixed address for any site', async () => {
      const res = await inject({ method: 'GET', url: '/embed.js' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /javascript/);
      assert.match(res.body, /consulta:/);
    });
  });
}
