/**
 * The API key pages over the real app and database (both): a person creates live and test keys
 * (the secret shown once and never again), sees them listed with their last use, revokes one (the
 * next API call is 401); a firm's keys with an IP allow-list and suspensions, and who may do what.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SCOPES, type Actor } from '../../src/domain/access/types.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { pageText } from '../support/site.ts';

const OPERATOR: Actor = { type: 'operator' };
const SECRET = /value="(svc_[A-Za-z0-9_]+)"/;

for (const target of databaseTargets()) {
  describe(`API key pages (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      // Keys are read fresh on every request (no cache), and X-Forwarded-For is believed from loopback.
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0, trustProxy: ['127.0.0.1'] } });
    });
    after(async () => ctx?.close());

    const api = (token: string, path = '/api/v1/key', ip = '127.0.0.1') =>
      ctx.app.fastify.inject({ method: 'GET', url: path, headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip } });

    async function createKey(client: Awaited<ReturnType<typeof signedIn>>['client'], base: string, form: Record<string, string | string[]>) {
      await client.get(`${base}/keys/new`);
      // As a browser sends the form: every scope box is ticked by default.
      form = { scopes: [...SCOPES], ...form };
      const body: Record<string, string> = {};
      const extra: string[] = [];
      for (const [k, v] of Object.entries(form)) {
        if (Array.isArray(v)) v.forEach((x) => extra.push(`${encodeURIComponent(k)}=${encodeURIComponent(x)}`));
        else body[k] = v;
      }
      if (extra.length === 0) return client.post(`${base}/keys`, body);
      // Repeated fields (checkboxes) as a browser sends them.
      const payload = `${new URLSearchParams({ _csrf: client.csrf(), ...body }).toString()}&${extra.join('&')}`;
      return ctx.app.fastify.inject({
        method: 'POST',
        url: `${base}/keys`,
        payload,
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://consulta.test', 'sec-fetch-site': 'same-origin', cookie: [...client.cookies].map(([k, v]) => `${k}=${v}`).join('; '), 'accept-language': 'en' },
      });
    }

    it('creates a live key: the secret is shown once, works against the API, and never appears again', async () => {
      const { client } = await signedIn(ctx, 'dev@example.com');
      const res = await createKey(client, '/developer', { mode: 'live', name: 'production server' });
      assert.equal(res.statusCode, 201);
      const token = SECRET.exec(res.body)?.[1];
      assert.ok(token && token.startsWith('svc_') && !token.startsWith('svc_test_'), 'a live secret on the page');
      assert.match(pageText(res.body), /shown only this once/);
      assert.equal(res.headers['cache-control'], 'no-store');
      assert.equal((await api(token)).statusCode, 200);
      // "Try it" carries the whole key (it had the truncated prefix, so pasting it failed) and works as it stands.
      const tryIt = /<pre[^>]*id="try-it"[^>]*>([^<]+)<\/pre>/.exec(res.body)?.[1]?.replaceAll('&quot;', '"');
      const command = /^curl -H "Authorization: Bearer (svc_[A-Za-z0-9_]+)" http:\/\/consulta\.test(\/api\/v1\/key)$/.exec(tryIt ?? '');
      assert.ok(command, `a runnable command: ${tryIt}`);
      assert.equal(command[1], token, 'the whole key, not its prefix');
      assert.equal((await api(command[1]!, command[2])).statusCode, 200);
      const listPage = await client.get('/developer/keys');
      assert.equal(listPage.statusCode, 200);
      assert.ok(!listPage.body.includes(token), 'the list never shows the secret');
      assert.match(pageText(listPage.body), /production server/);
      assert.match(pageText(listPage.body), /Last used/);
      const id = /href="\/developer\/keys\/([0-9a-f-]{36})"/.exec(listPage.body)![1]!;
      const detail = await client.get(`/developer/keys/${id}`);
      assert.equal(detail.statusCode, 200);
      assert.ok(!detail.body.includes(token), 'nor the detail');
      assert.doesNotMatch(pageText(detail.body), /Never\b.*Last used/);
    });

    it('shows when a key was last used, from the request log', async () => {
      const { client } = await signedIn(ctx, 'lastused@example.com');
      const token = SECRET.exec((await createKey(client, '/developer', { mode: 'live' })).body)![1]!;
      const before = pageText((await client.get('/developer/keys')).body);
      assert.match(before, /Last used Never/);
      assert.equal((await api(token)).statusCode, 200);
      await ctx.app.services.requestLog.flush();
      const after = pageText((await client.get('/developer/keys')).body);
      assert.doesNotMatch(after, /Last used Never/);
    });

    it('creates a test key, flagged as test', async () => {
      const { client } = await signedIn(ctx, 'tester@example.com');
      const res = await createKey(client, '/developer', { mode: 'test', name: 'staging' });
      assert.equal(res.statusCode, 201);
      assert.match(SECRET.exec(res.body)![1]!, /^svc_test_/);
      assert.match((await client.get('/developer/keys')).body, /class="badge test"/);
    });

    it('the form preselects a test key; ?mode=live (the overview\'s "go live") preselects live', async () => {
      const { client } = await signedIn(ctx, 'default-mode@example.com');
      const checked = (html: string) => [...html.matchAll(/<input type="radio" name="mode" value="(live|test)"( checked)?/g)].filter((m) => m[2]).map((m) => m[1]);
      assert.deepEqual(checked((await client.get('/developer/keys/new')).body), ['test']);
      assert.deepEqual(checked((await client.get('/developer/keys/new?mode=live')).body), ['live']);
      assert.deepEqual(checked((await client.get('/developer/keys/new?mode=nonsense')).body), ['test']);
      // The form as a browser sends it untouched: a test key.
      const res = await createKey(client, '/developer', { mode: 'test', name: 'first try' });
      assert.match(SECRET.exec(res.body)![1]!, /^svc_test_/);
      // A refused form keeps the mode that was chosen.
      const refused = await createKey(client, '/developer', { mode: 'live', scopes: [] });
      assert.equal(refused.statusCode, 400);
      assert.deepEqual(checked(refused.body), ['live']);
    });

    it('titles keys by their name, the prefix second, in the list and on the key page', async () => {
      const { client, userId, email } = await signedIn(ctx, 'titles@example.com');
      const named = await ctx.app.services.keys.create({ type: 'user', userId }, { ownerEmail: email }, { mode: 'live', name: 'production <server>' });
      ctx.clock.advance(1000); // newest first: a stable order
      const unnamed = await ctx.app.services.keys.create({ type: 'user', userId }, { ownerEmail: email }, { mode: 'test' });
      const list = await client.get('/developer/keys');
      const titles = [...list.body.matchAll(/<h2 class="key-title"><a href="\/developer\/keys\/([0-9a-f-]{36})">([^<]*)<\/a>[\s\S]*?<\/h2><p class="key-prefix mono">([^<]+)<\/p>/g)].map((m) => [m[1], m[2], m[3]]);
      assert.deepEqual(titles, [
        [unnamed.key.id, 'Key without a name', `${unnamed.key.prefix}…`],
        [named.key.id, 'production &lt;server>', `${named.key.prefix}…`],
      ]);
      const page = await client.get(`/developer/keys/${named.key.id}`);
      assert.match(page.body, new RegExp(`<title>production &lt;server> \\(${named.key.prefix}…\\) · Consulta</title>`));
      assert.match(page.body, new RegExp(`<h1>production &lt;server></h1><p class="key-prefix mono">${named.key.prefix}…</p>`));
      assert.ok(!page.body.includes('<server>'), 'the name is text, never markup');
      const es = await client.get(`/developer/keys/${unnamed.key.id}?lang=es`);
      assert.match(es.body, new RegExp(`<h1>Clave sin nombre</h1><p class="key-prefix mono">${unnamed.key.prefix}…</p>`));
      await client.get('/developer/keys?lang=en');
    });

    it('narrows scopes when asked, and refuses a key with none or an expiry in the past (the form again, 400)', async () => {
      const { client } = await signedIn(ctx, 'scopes@example.com');
      const narrow = await createKey(client, '/developer', { mode: 'live', scopes: ['lawyers:read', 'reference:read'] });
      assert.equal(narrow.statusCode, 201);
      const token = SECRET.exec(narrow.body)![1]!;
      const described = (await api(token)).json() as { scopes: string[] };
      assert.deepEqual(described.scopes, ['lawyers:read', 'reference:read']);

      await client.get('/developer/keys/new');
      const none = await client.post('/developer/keys', { mode: 'live', name: 'x' });
      assert.equal(none.statusCode, 400);
      assert.match(pageText(none.body), /Choose at least one scope/);
      assert.match(none.body, /value="x"/, 'the form keeps what was typed');

      const past = await createKey(client, '/developer', { mode: 'live', expires: '2020-01-01', scopes: ['lawyers:read'] });
      assert.equal(past.statusCode, 400);
      assert.match(pageText(past.body), /Choose a day in the future/);
      const garbage = await createKey(client, '/developer', { mode: 'live', expires: 'soon', scopes: ['lawyers:read'] });
      assert.equal(garbage.statusCode, 400);
      const keys = await ctx.app.services.keys.list({ type: 'user', userId: (await ctx.app.services.accounts.findUserByEmail('scopes@example.com'))!.id });
      assert.equal(keys.length, 1, 'only the valid key was created');
    });

    it('revokes after an explicit confirmation; the next API call is 401', async () => {
      const { client } = await signedIn(ctx, 'revoker@example.com');
      const token = SECRET.exec((await createKey(client, '/developer', { mode: 'live' })).body)![1]!;
      const id = /href="\/developer\/keys\/([0-9a-f-]{36})"/.exec((await client.get('/developer/keys')).body)![1]!;
      const confirmPage = await client.get(`/developer/keys/${id}/revoke`);
      assert.equal(confirmPage.statusCode, 200);
      const unconfirmed = await client.post(`/developer/keys/${id}/revoke`, {});
      assert.equal(unconfirmed.statusCode, 400);
      assert.equal((await api(token)).statusCode, 200, 'still works without the confirmation');
      const done = await client.post(`/developer/keys/${id}/revoke`, { confirm: 'yes' });
      assert.equal(done.statusCode, 303);
      assert.equal(done.headers.location, `/developer/keys/${id}?done=revoked`);
      assert.match(pageText((await client.get(done.headers.location as string)).body), /The key is revoked/);
      const refused = await api(token);
      assert.equal(refused.statusCode, 401);
    });

    it("another person's key: every key URL and form answers 404 and nothing changes", async () => {
      const owner = await signedIn(ctx, 'owner-k@example.com');
      const token = SECRET.exec((await createKey(owner.client, '/developer', { mode: 'live' })).body)![1]!;
      const id = /href="\/developer\/keys\/([0-9a-f-]{36})"/.exec((await owner.client.get('/developer/keys')).body)![1]!;
      const other = await signedIn(ctx, 'other-k@example.com');
      await other.client.get('/developer/keys/new');
      assert.equal((await other.client.get(`/developer/keys/${id}`)).statusCode, 404);
      assert.equal((await other.client.get(`/developer/keys/${id}/revoke`)).statusCode, 404);
      assert.equal((await other.client.post(`/developer/keys/${id}/revoke`, { confirm: 'yes' })).statusCode, 404);
      assert.equal((await other.client.get('/developer/keys/not-a-uuid')).statusCode, 404);
      assert.equal((await api(token)).statusCode, 200, 'the key still works');
      assert.ok(!(await other.client.get('/developer/keys')).body.includes(id), 'not in their list');
    });

    it('signed out: the pages send the person to sign in and come back', async () => {
      const res = await ctx.app.fastify.inject({ method: 'GET', url: '/developer/keys' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/sign-in?return_to=${encodeURIComponent('/developer/keys')}`);
    });

    it('speaks Spanish', async () => {
      const { client } = await signedIn(ctx, 'es@example.com', { lang: 'es' });
      const page = pageText((await client.get('/developer/keys/new')).body);
      assert.match(page, /Crear una clave de API/);
      assert.match(page, /Permisos/);
    });

    describe('firm keys', () => {
      const firmSlug = `despacho-${target.name}`;
      let admin: Awaited<ReturnType<typeof signedIn>>;
      let member: Awaited<ReturnType<typeof signedIn>>;
      let outsider: Awaited<ReturnType<typeof signedIn>>;
      before(async () => {
        admin = await signedIn(ctx, 'admin@firm.example');
        member = await signedIn(ctx, 'member@firm.example');
        outsider = await signedIn(ctx, 'outsider@firm.example');
        await ctx.app.services.accounts.createFirm(OPERATOR, { slug: firmSlug, name: 'Despacho Uno', ownerEmail: 'owner@firm.example' });
        await ctx.app.services.accounts.addMember(OPERATOR, firmSlug, 'admin@firm.example', 'admin');
        await ctx.app.services.accounts.addMember(OPERATOR, firmSlug, 'member@firm.example', 'member');
      });

      async function firmKey(allowList = '') {
        const res = await createKey(admin.client, `/firms/${firmSlug}`, { mode: 'live', name: 'office', allow_list: allowList });
        assert.equal(res.statusCode, 201, pageText(res.body).slice(0, 300));
        const token = SECRET.exec(res.body)![1]!;
        const key = await ctx.app.services.keys.findByToken(token);
        return { token, id: key!.id };
      }

      it('an admin creates a key with an allow-list; a request from outside it is refused with ip_not_allowed', async () => {
        const { token, id } = await firmKey('198.51.100.0/24\n2001:db8::/32');
        assert.equal((await api(token, '/api/v1/key', '198.51.100.7')).statusCode, 200);
        const refused = await api(token, '/api/v1/key', '203.0.113.9');
        assert.equal(refused.statusCode, 403);
        assert.equal((refused.json() as { code: string }).code, 'ip_not_allowed');
        const detail = pageText((await admin.client.get(`/firms/${firmSlug}/keys/${id}`)).body);
        assert.match(detail, /198\.51\.100\.0\/24/);
        assert.match(detail, /admin@firm\.example/, 'who created it');
      });

      it('explains a wrong allow-list entry next to the field and creates nothing', async () => {
        const before = (await ctx.app.services.keys.list(OPERATOR, { firmSlug })).length;
        const res = await createKey(admin.client, `/firms/${firmSlug}`, { mode: 'live', allow_list: '198.51.100.0/24, 10.0.0.300/8' });
        assert.equal(res.statusCode, 400);
        assert.match(pageText(res.body), /"10\.0\.0\.300\/8" is not an IP address or CIDR range/);
        assert.equal((await ctx.app.services.keys.list(OPERATOR, { firmSlug })).length, before);
      });

      it('edits the allow-list of a key', async () => {
        const { token, id } = await firmKey();
        assert.equal((await api(token, '/api/v1/key', '203.0.113.50')).statusCode, 200);
        await admin.client.get(`/firms/${firmSlug}/keys/${id}`);
        const saved = await admin.client.post(`/firms/${firmSlug}/keys/${id}/allow-list`, { allow_list: '198.51.100.1' });
        assert.equal(saved.statusCode, 303);
        assert.equal((await api(token, '/api/v1/key', '203.0.113.50')).statusCode, 403);
        const bad = await admin.client.post(`/firms/${firmSlug}/keys/${id}/allow-list`, { allow_list: 'not-an-ip' });
        assert.equal(bad.statusCode, 400);
        assert.deepEqual((await ctx.app.services.keys.get(OPERATOR, id)).allowedIps, ['198.51.100.1'], 'unchanged by the refused edit');
      });

      it('a member without keys:manage gets the 403 page; someone outside the firm gets 404', async () => {
        const { id } = await firmKey();
        const list = await member.client.get(`/firms/${firmSlug}/keys`);
        assert.equal(list.statusCode, 403);
        assert.match(pageText(list.body), /You do not have permission/);
        assert.equal((await member.client.get(`/firms/${firmSlug}/keys/new`)).statusCode, 403);
        assert.equal((await member.client.get(`/firms/${firmSlug}/keys/${id}`)).statusCode, 404, 'a key they may not manage is not shown');
        assert.equal((await outsider.client.get(`/firms/${firmSlug}/keys`)).statusCode, 404);
        assert.equal((await outsider.client.get(`/firms/${firmSlug}/keys/${id}`)).statusCode, 404);
        // The domain refuses too, not just the page.
        await assert.rejects(ctx.app.services.keys.list({ type: 'user', userId: member.userId }, { firmSlug }), { code: 'forbidden' });
        // Once granted the permission, the member sees them.
        await ctx.app.services.accounts.setPermissions(OPERATOR, firmSlug, 'member@firm.example', ['keys:manage']);
        assert.equal((await member.client.get(`/firms/${firmSlug}/keys`)).statusCode, 200);
        await ctx.app.services.accounts.setPermissions(OPERATOR, firmSlug, 'member@firm.example', []);
      });

      it("the firm suspends and lifts its own suspension; an operator's suspension it cannot lift", async () => {
        const { token, id } = await firmKey();
        await admin.client.get(`/firms/${firmSlug}/keys/${id}`);
        const noReason = await admin.client.post(`/firms/${firmSlug}/keys/${id}/suspend`, { reason: '' });
        assert.equal(noReason.statusCode, 400);
        assert.equal((await admin.client.post(`/firms/${firmSlug}/keys/${id}/suspend`, { reason: 'rotating credentials' })).statusCode, 303);
        // GET /key still describes a suspended key (so its owner can see why); other calls are refused.
        const search = '/api/v1/lawyers/search?limit=1';
        const suspended = await api(token, search);
        assert.equal(suspended.statusCode, 403);
        assert.equal((suspended.json() as { code: string }).code, 'api_key_suspended');
        assert.match(pageText((await admin.client.get(`/firms/${firmSlug}/keys/${id}`)).body), /Suspended by the firm: rotating credentials/);
        assert.equal((await admin.client.post(`/firms/${firmSlug}/keys/${id}/unsuspend`, {})).statusCode, 303);
        assert.equal((await api(token, search)).statusCode, 200);

        await ctx.app.services.keys.suspend(OPERATOR, id, 'abuse report');
        const page = pageText((await admin.client.get(`/firms/${firmSlug}/keys/${id}`)).body);
        assert.match(page, /Suspended by the operator: abuse report/);
        assert.match(page, /only the operator can lift it/);
        const lift = await admin.client.post(`/firms/${firmSlug}/keys/${id}/unsuspend`, {});
        assert.equal(lift.statusCode, 403);
        assert.equal((await ctx.app.services.keys.get(OPERATOR, id)).suspension?.by, 'operator', 'still suspended by the operator');
        assert.equal((await api(token, search)).statusCode, 403);
        await ctx.app.services.keys.unsuspend(OPERATOR, id);
        assert.equal((await api(token, search)).statusCode, 200);
      });

      it("a firm key is not reachable under /developer, nor another firm's key under this firm", async () => {
        const { id } = await firmKey();
        assert.equal((await admin.client.get(`/developer/keys/${id}`)).statusCode, 404);
        const own = await signedIn(ctx, 'admin2@firm.example');
        const otherSlug = `otro-${target.name}`;
        await ctx.app.services.accounts.createFirm(OPERATOR, { slug: otherSlug, name: 'Otro', ownerEmail: 'admin2@firm.example' });
        assert.equal((await own.client.get(`/firms/${otherSlug}/keys/${id}`)).statusCode, 404);
      });
    });
  });
}
