/**
 * The operator console over the real app and database (both): every console URL is the ordinary
 * 404 page for everyone but an operator (enumerated from the registered routes, GET and POST);
 * an operator without a passkey is sent to add one; a change without a passkey step-up in the
 * last 10 minutes goes to the step-up page and changes nothing; with one, each change works, is
 * visible where it matters (the key's rate limits, api_key_suspended, the lawyer gone from search
 * and profile at once in this process) and is in the audit log with who, what and the request id.
 * Search, the user, firm and key pages, request lookup of anyone's request, CSRF, bad input,
 * paging of the audit log, and Spanish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TIER_LIMITS } from '../../src/domain/access/limits.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { STEP_UP_WINDOW_MS } from '../../src/domain/identity/session.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { operatorSignedIn } from '../support/operator.ts';
import { SiteClient, pageText } from '../support/site.ts';

const OPERATOR: Actor = { type: 'operator' };
const STEP_UP = '/account/passkeys/step-up?return_to=';

for (const target of databaseTargets()) {
  describe(`operator console (${target.name})`, () => {
    let ctx: TestContext;
    let n = 0;
    let lawyerId: string;
    let firmSlug: string;
    let owner: SignedIn;
    let firmKeyId: string;
    let firmKeyToken: string;
    let personalKeyId: string;
    let personalToken: string;
    let requestId: string;

    before(async () => {
      // Keys read fresh on every request; the directory refreshed from the database only once a
      // minute, so a lawyer change can show at once only through this process's own invalidation.
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0, directoryRefreshMs: 60_000 } });
      lawyerId = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Marta Operadora Gil' }), lawyerRecord({ name: 'Otro Abogado' })]))[0]!;
      ctx.app.services.directoryCache.invalidate();
      owner = await signedIn(ctx, `owner-${target.name}@example.com`);
      firmSlug = `bufete-${target.name}`;
      await ctx.app.services.accounts.createFirm(OPERATOR, { slug: firmSlug, name: 'Bufete Operado', ownerEmail: owner.email });
      const ownerActor: Actor = { type: 'user', userId: owner.userId };
      const firmKey = await ctx.app.services.keys.create(ownerActor, { firmSlug }, { mode: 'live', name: 'firm integration' });
      firmKeyId = firmKey.key.id;
      firmKeyToken = firmKey.token;
      const personal = await ctx.app.services.keys.create(ownerActor, { ownerEmail: owner.email }, { mode: 'live', name: 'personal' });
      personalKeyId = personal.key.id;
      personalToken = personal.token;
      const res = await api(personalToken, '/api/v1/lawyers/search?limit=1');
      requestId = res.headers['x-request-id'] as string;
      await ctx.app.services.requestLog.flush();
    });
    after(async () => ctx?.close());

    const api = (token: string | null, url: string) => ctx.app.fastify.inject({ method: 'GET', url, headers: token ? { authorization: `Bearer ${token}` } : {} });
    const auditRows = () => ctx.database.db.selectFrom('operator_audit').selectAll().orderBy('id').execute();
    const keyRow = (id: string) => ctx.app.services.keys.get(OPERATOR, id);
    const lawyerRow = () => ctx.database.db.selectFrom('lawyers').select(['verified', 'listed']).where('id', '=', lawyerId).executeTakeFirstOrThrow();
    const op = (options: { steppedUp?: boolean; lang?: 'en' | 'es' } = { steppedUp: true }) => operatorSignedIn(ctx, `op-${++n}-${target.name}@example.com`, options);
    const inSearch = async () => ((await api(null, '/api/v1/lawyers/search?city=madrid&limit=25')).json().lawyers as Array<{ id: string }>).some((l) => l.id === lawyerId);

    /** Every registered console route, with real objects in its parameters. */
    const consoleRoutes = () => {
      const values: Record<string, string> = { id: firmKeyId, slug: firmSlug, requestId };
      return ctx.app.routes
        .filter((r) => (r.method === 'GET' || r.method === 'POST') && /^\/operator(\/|$)/.test(r.url))
        .map((r) => {
          let url = r.url.replace(/:(\w+)/g, (_, name: string) => values[name] ?? 'x');
          if (r.url.startsWith('/operator/lawyers/:id')) url = url.replace(firmKeyId, lawyerId);
          if (r.url.startsWith('/operator/users/:id')) url = url.replace(firmKeyId, owner.userId);
          return { method: r.method as 'GET' | 'POST', route: r.url, url };
        });
    };
    const FORM = { tier: 'internal', reason: 'probe', verified: 'no', listed: 'no' };

    it('registers the console routes the docs list', () => {
      const routes = new Set(consoleRoutes().map((r) => `${r.method} ${r.route}`));
      for (const r of [
        'GET /operator',
        'GET /operator/users/:id',
        'GET /operator/firms/:slug',
        'GET /operator/keys/:id',
        'POST /operator/keys/:id/tier',
        'POST /operator/keys/:id/suspend',
        'POST /operator/keys/:id/unsuspend',
        'GET /operator/lawyers',
        'GET /operator/lawyers/:id',
        'POST /operator/lawyers/:id/verification',
        'POST /operator/lawyers/:id/listing',
        'GET /operator/requests',
        'GET /operator/requests/:requestId',
        'GET /operator/audit',
      ]) {
        assert.ok(routes.has(r), `${r} is registered`);
      }
    });

    it('a non-operator, signed in or not, gets the ordinary 404 page on every console route, GET and POST, and nothing changes', async () => {
      const person = await signedIn(ctx, `nobody-${target.name}@example.com`, { steppedUp: true });
      await person.client.get('/developer/keys/new'); // their own valid CSRF token
      const anonymous = new SiteClient(ctx.app.fastify, 'http://consulta.test', { 'accept-language': 'en' });
      const before = { key: await keyRow(firmKeyId), lawyer: await lawyerRow(), audit: await auditRows() };
      const routes = consoleRoutes();
      assert.ok(routes.length >= 14);
      for (const { method, url } of routes) {
        for (const [who, client] of [['signed-in', person.client], ['signed-out', anonymous]] as const) {
          const res = method === 'GET' ? await client.get(url) : await client.post(url, who === 'signed-in' ? FORM : { ...FORM, _csrf: 'none' });
          assert.equal(res.statusCode, 404, `${who} ${method} ${url} answered ${res.statusCode}`);
          assert.match(res.headers['content-type'] as string, /^text\/html/);
          const text = pageText(res.body);
          assert.match(text, /Page not found/);
          assert.doesNotMatch(text, /Operator console|Audit log/, 'nothing about the console');
        }
      }
      // The same page as any unknown address.
      assert.equal((await anonymous.get('/operator/nonexistent')).statusCode, 404);
      assert.deepEqual({ key: await keyRow(firmKeyId), lawyer: await lawyerRow(), audit: await auditRows() }, before);
    });

    it('an operator without a passkey is sent to add one, on pages and on changes; nothing changes', async () => {
      const bare = await signedIn(ctx, `new-op-${target.name}@example.com`, { operator: true, steppedUp: true });
      const page = await bare.client.get('/operator');
      assert.equal(page.statusCode, 303);
      assert.equal(page.headers.location, `${STEP_UP}${encodeURIComponent('/operator')}`);
      const enrol = await bare.client.get(page.headers.location as string);
      assert.match(pageText(enrol.body), /Operators must have a passkey/);
      const keyPage = await bare.client.get(`/operator/keys/${firmKeyId}`);
      assert.equal(keyPage.headers.location, `${STEP_UP}${encodeURIComponent(`/operator/keys/${firmKeyId}`)}`);
      await bare.client.get('/account/passkeys'); // a CSRF token
      const tier = await bare.client.post(`/operator/keys/${firmKeyId}/tier`, { tier: 'partner' });
      assert.equal(tier.statusCode, 303);
      assert.equal(tier.headers.location, `${STEP_UP}${encodeURIComponent(`/operator/keys/${firmKeyId}`)}`);
      assert.equal((await keyRow(firmKeyId)).tier, 'free');
    });

    it('without a recent step-up every change goes to the step-up page (back to its form) and changes nothing', async () => {
      const stale = await op({ steppedUp: false });
      const before = { key: await keyRow(firmKeyId), lawyer: await lawyerRow(), audit: await auditRows() };
      const keyForm = `/operator/keys/${firmKeyId}`;
      const lawyerForm = `/operator/lawyers/${lawyerId}`;
      assert.equal((await stale.client.get(keyForm)).statusCode, 200, 'reading needs no step-up');
      for (const [url, form, back] of [
        [`${keyForm}/tier`, { tier: 'partner' }, keyForm],
        [`${keyForm}/suspend`, { reason: 'abuse' }, keyForm],
        [`${keyForm}/unsuspend`, {}, keyForm],
        [`${lawyerForm}/verification`, { verified: 'no' }, lawyerForm],
        [`${lawyerForm}/listing`, { listed: 'no' }, lawyerForm],
      ] as const) {
        const res = await stale.client.post(url, form);
        assert.equal(res.statusCode, 303, url);
        assert.equal(res.headers.location, `${STEP_UP}${encodeURIComponent(back)}`, url);
      }
      assert.deepEqual({ key: await keyRow(firmKeyId), lawyer: await lawyerRow(), audit: await auditRows() }, before);
    });

    it('changing a tier changes the limits the key sees, and is in the audit log; the step-up lasts 10 minutes', async () => {
      const me = await op();
      // GET /key has its own diagnostic limits; a directory call shows the tier's.
      const limit = async () => Number((await api(personalToken, '/api/v1/lawyers/search?limit=1')).headers['x-ratelimit-limit']);
      const m = ctx.config.rateLimitMultiplier;
      assert.equal(await limit(), TIER_LIMITS.free.perMinute * m);
      await me.client.get(`/operator/keys/${personalKeyId}`);
      const res = await me.client.post(`/operator/keys/${personalKeyId}/tier`, { tier: 'partner' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/operator/keys/${personalKeyId}?done=tier`);
      assert.equal(await limit(), TIER_LIMITS.partner.perMinute * m);
      const page = await me.client.get(res.headers.location as string);
      assert.match(pageText(page.body), /Tier changed/);
      assert.match(pageText(page.body), /Changed a key’s tier/, 'the key page shows its history');

      const entry = (await auditRows()).at(-1)!;
      assert.equal(entry.action, 'key.set_tier');
      assert.equal(entry.actor_type, 'user');
      assert.equal(entry.actor_email, me.email);
      assert.equal(entry.actor_user_id, me.userId);
      assert.equal(entry.target_type, 'key');
      assert.equal(entry.target_id, personalKeyId);
      assert.deepEqual(JSON.parse(entry.details), { from: 'free', to: 'partner' });
      assert.match(entry.request_id ?? '', /^req_[0-9a-f]{32}$/);
      assert.equal(res.headers['x-request-id'], entry.request_id, 'the request id of the change');

      // Setting the tier it already has changes nothing and records nothing.
      const count = (await auditRows()).length;
      const same = await me.client.post(`/operator/keys/${personalKeyId}/tier`, { tier: 'partner' });
      assert.equal(same.headers.location, `/operator/keys/${personalKeyId}?done=unchanged`);
      assert.equal((await auditRows()).length, count);

      // Ten minutes later the same session is asked again.
      ctx.clock.advance(STEP_UP_WINDOW_MS);
      await me.client.get(`/operator/keys/${personalKeyId}`);
      const late = await me.client.post(`/operator/keys/${personalKeyId}/tier`, { tier: 'internal' });
      assert.equal(late.statusCode, 303);
      assert.equal(late.headers.location, `${STEP_UP}${encodeURIComponent(`/operator/keys/${personalKeyId}`)}`);
      assert.equal((await keyRow(personalKeyId)).tier, 'partner');
      assert.equal(await limit(), TIER_LIMITS.partner.perMinute * m);
    });

    it('an operator suspension: the API answers api_key_suspended, the firm cannot lift it, the operator can', async () => {
      const me = await op();
      assert.equal((await api(firmKeyToken, '/api/v1/lawyers/search?limit=1')).statusCode, 200);
      await me.client.get(`/operator/keys/${firmKeyId}`);
      const res = await me.client.post(`/operator/keys/${firmKeyId}/suspend`, { reason: 'Scraping the whole directory' });
      assert.equal(res.headers.location, `/operator/keys/${firmKeyId}?done=suspended`);
      const refused = await api(firmKeyToken, '/api/v1/lawyers/search?limit=1');
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().code, 'api_key_suspended');

      // The firm's owner sees why, and cannot lift it.
      const firmPage = await owner.client.get(`/firms/${firmSlug}/keys/${firmKeyId}`);
      assert.match(pageText(firmPage.body), /Scraping the whole directory/);
      const attempt = await owner.client.post(`/firms/${firmSlug}/keys/${firmKeyId}/unsuspend`, {});
      assert.equal(attempt.statusCode, 403);
      assert.equal((await keyRow(firmKeyId)).suspension?.by, 'operator');

      const page = await me.client.get(`/operator/keys/${firmKeyId}`);
      assert.match(pageText(page.body), /Suspended by the operator: Scraping the whole directory/);
      const lift = await me.client.post(`/operator/keys/${firmKeyId}/unsuspend`, {});
      assert.equal(lift.headers.location, `/operator/keys/${firmKeyId}?done=unsuspended`);
      assert.equal((await api(firmKeyToken, '/api/v1/lawyers/search?limit=1')).statusCode, 200);

      const [suspend, unsuspend] = (await auditRows()).slice(-2);
      assert.deepEqual([suspend!.action, unsuspend!.action], ['key.suspend', 'key.unsuspend']);
      assert.deepEqual(JSON.parse(suspend!.details), { reason: 'Scraping the whole directory', replaced: null });
      assert.equal(JSON.parse(unsuspend!.details).lifted.reason, 'Scraping the whole directory');
      assert.equal(unsuspend!.actor_email, me.email);
    });

    it('unverify and unlist a lawyer: gone from search and profile at once; verify and list: back; all audited', async () => {
      const me = await op();
      assert.ok(await inSearch(), 'public at first (and now cached)');
      assert.equal((await api(null, `/api/v1/lawyers/${lawyerId}`)).statusCode, 200);
      const form = `/operator/lawyers/${lawyerId}`;
      await me.client.get(form);

      const unverify = await me.client.post(`${form}/verification`, { verified: 'no' });
      assert.equal(unverify.headers.location, `${form}?done=unverified`);
      assert.equal(await inSearch(), false, 'out of search at once, though the refresh interval is a minute');
      assert.equal((await api(null, `/api/v1/lawyers/${lawyerId}`)).statusCode, 404);
      assert.equal((await api(null, `/api/v1/lawyers/${lawyerId}/availability`)).statusCode, 404);

      await me.client.get(form);
      assert.equal((await me.client.post(`${form}/verification`, { verified: 'yes' })).headers.location, `${form}?done=verified`);
      assert.ok(await inSearch());
      await me.client.get(form);
      assert.equal((await me.client.post(`${form}/listing`, { listed: 'no' })).headers.location, `${form}?done=unlisted`);
      assert.equal(await inSearch(), false);
      assert.equal((await api(null, `/api/v1/lawyers/${lawyerId}`)).statusCode, 404);
      await me.client.get(form);
      assert.equal((await me.client.post(`${form}/listing`, { listed: 'no' })).headers.location, `${form}?done=unchanged`);
      await me.client.get(form);
      assert.equal((await me.client.post(`${form}/listing`, { listed: 'yes' })).headers.location, `${form}?done=listed`);
      assert.ok(await inSearch());
      assert.equal((await api(null, `/api/v1/lawyers/${lawyerId}`)).statusCode, 200);

      const rows = (await auditRows()).filter((r) => r.target_id === lawyerId);
      assert.deepEqual(rows.map((r) => r.action), ['lawyer.unverify', 'lawyer.verify', 'lawyer.unlist', 'lawyer.list']);
      // Withdrawing the verification suspends her (docs/lawyers.md), with the reason recorded.
      assert.deepEqual(JSON.parse(rows[0]!.details), { status_before: 'verified', reason: 'verification withdrawn by the operator', public_before: true, public_after: false });
      assert.equal(rows[0]!.target_label, 'Marta Operadora Gil');

      // The lawyers page: hidden lawyers without a search, any lawyer by name.
      const list = await me.client.get('/operator/lawyers?q=operadora');
      assert.match(pageText(list.body), /Marta Operadora Gil/);
      assert.doesNotMatch(pageText(list.body), /Otro Abogado/);
      const detail = await me.client.get(form);
      assert.match(pageText(detail.body), /Verified a lawyer/);
    });

    it('request lookup finds anyone\'s request by its X-Request-Id', async () => {
      const me = await op({ steppedUp: false });
      const go = await me.client.get(`/operator/requests?request_id=${requestId.toUpperCase()}`);
      assert.equal(go.statusCode, 303);
      assert.equal(go.headers.location, `/operator/requests/${requestId}`);
      const page = await me.client.get(go.headers.location as string);
      assert.equal(page.statusCode, 200);
      const text = pageText(page.body);
      assert.match(text, /Path \/api\/v1\/lawyers\/search/);
      assert.ok(text.includes(owner.email), 'names the key owner');
      assert.ok(page.body.includes(`/operator/keys/${personalKeyId}`), 'links the key');

      const anonymousCall = await api(null, '/api/v1/cities');
      await ctx.app.services.requestLog.flush();
      const anon = await me.client.get(`/operator/requests/${anonymousCall.headers['x-request-id']}`);
      assert.equal(anon.statusCode, 200);
      assert.match(pageText(anon.body), /None recorded \(anonymous/);

      const bad = await me.client.get('/operator/requests?request_id=hello');
      assert.equal(bad.statusCode, 400);
      assert.match(pageText(bad.body), /That is not a request id/);
      assert.equal((await me.client.get(`/operator/requests/req_${'0'.repeat(32)}`)).statusCode, 404);
      assert.equal((await me.client.get('/operator/requests/nonsense')).statusCode, 404);
    });

    it('search finds people by email, keys by prefix or whole key, firms by slug or name; their pages', async () => {
      const me = await op({ steppedUp: false });
      const key = await keyRow(personalKeyId);
      const byEmail = pageText((await me.client.get(`/operator?q=${encodeURIComponent(`OWNER-${target.name}`)}`)).body);
      assert.ok(byEmail.includes(owner.email));
      const byPrefix = await me.client.get(`/operator?q=${encodeURIComponent(key.prefix.slice(0, 8))}`);
      assert.ok(byPrefix.body.includes(`/operator/keys/${personalKeyId}`));
      // A whole key pasted: found by its hash, and not shown back on a page.
      const byToken = await me.client.get(`/operator?q=${encodeURIComponent(personalToken)}`);
      assert.equal(byToken.statusCode, 303);
      assert.equal(byToken.headers.location, `/operator/keys/${personalKeyId}`);
      const byFirm = await me.client.get('/operator?q=operado');
      assert.ok(byFirm.body.includes(`/operator/firms/${firmSlug}`));
      const byId = await me.client.get(`/operator?q=${firmKeyId}`);
      assert.ok(byId.body.includes(`/operator/keys/${firmKeyId}`));
      assert.match(pageText((await me.client.get('/operator?q=zzz-no-such-thing')).body), /Nothing matches this search/);

      const user = pageText((await me.client.get(`/operator/users/${owner.userId}`)).body);
      assert.ok(user.includes('Bufete Operado') && user.includes(key.prefix), 'their firms and keys');
      const firm = await me.client.get(`/operator/firms/${firmSlug}`);
      assert.ok(pageText(firm.body).includes(owner.email));
      assert.ok(firm.body.includes(`/operator/keys/${firmKeyId}`));
      assert.equal((await me.client.get('/operator/firms/no-such-firm')).statusCode, 404);
      assert.equal((await me.client.get('/operator/users/not-a-uuid')).statusCode, 404);
      assert.equal((await me.client.get('/operator/keys/00000000-0000-4000-8000-000000000000')).statusCode, 404);
      assert.equal((await me.client.get('/operator/lawyers/00000000-0000-4000-8000-000000000000')).statusCode, 404);
    });

    it('bad input gets the form back with a message (400), a missing CSRF token is refused; nothing changes', async () => {
      const me = await op();
      const form = `/operator/keys/${firmKeyId}`;
      await me.client.get(form);
      const before = { key: await keyRow(firmKeyId), lawyer: await lawyerRow(), audit: await auditRows() };
      const tier = await me.client.post(`${form}/tier`, { tier: 'platinum' });
      assert.equal(tier.statusCode, 400);
      assert.match(pageText(tier.body), /Choose one of the tiers/);
      const reason = await me.client.post(`${form}/suspend`, { reason: '   ' });
      assert.equal(reason.statusCode, 400);
      assert.match(pageText(reason.body), /Give a reason/);
      const verified = await me.client.post(`/operator/lawyers/${lawyerId}/verification`, { verified: 'maybe' });
      assert.equal(verified.statusCode, 400);
      assert.equal((await me.client.get('/operator/audit?before=abc')).statusCode, 400);
      assert.equal((await me.client.post('/operator/keys/00000000-0000-4000-8000-000000000000/tier', { tier: 'partner' })).statusCode, 404);
      const noCsrf = await ctx.app.fastify.inject({
        method: 'POST',
        url: `${form}/tier`,
        payload: 'tier=internal',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://consulta.test', 'sec-fetch-site': 'same-origin', cookie: [...me.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      assert.equal(noCsrf.statusCode, 403);
      const crossSite = await me.client.post(`${form}/tier`, { tier: 'internal' }, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      assert.equal(crossSite.statusCode, 403);
      assert.deepEqual({ key: await keyRow(firmKeyId), lawyer: await lawyerRow(), audit: await auditRows() }, before);
    });

    it('a revoked key cannot change: 409 with the reason on the key page', async () => {
      const me = await op();
      const { key } = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: owner.email }, { mode: 'live' });
      await ctx.app.services.keys.revoke(OPERATOR, key.id);
      const page = await me.client.get(`/operator/keys/${key.id}`);
      assert.match(pageText(page.body), /This key is revoked/);
      assert.ok(!page.body.includes(`action="/operator/keys/${key.id}/tier"`), 'no forms');
      const res = await me.client.post(`/operator/keys/${key.id}/tier`, { tier: 'partner' });
      assert.equal(res.statusCode, 409);
      assert.equal((await keyRow(key.id)).tier, 'free');
    });

    it('the audit log: newest first, 50 a page, with who, what and on what; CLI entries named', async () => {
      const me = await op({ steppedUp: false });
      const { key } = await ctx.app.services.keys.create(OPERATOR, { ownerEmail: owner.email }, { mode: 'live', name: 'paged' });
      // 51 changes from the command line (an operator actor without a person).
      for (let i = 0; i < 51; i++) await ctx.app.services.keys.setTier(OPERATOR, key.id, i % 2 === 0 ? 'partner' : 'free');
      const first = await me.client.get('/operator/audit');
      assert.equal(first.statusCode, 200);
      const entries = first.body.match(/<li class="card">/g) ?? [];
      assert.equal(entries.length, 50);
      assert.match(pageText(first.body), /Command line/);
      const older = /href="\/operator\/audit\?before=(\d+)"/.exec(first.body);
      assert.ok(older, 'a link to older entries');
      const second = await me.client.get(`/operator/audit?before=${older[1]}`);
      assert.equal(second.statusCode, 200);
      assert.match(pageText(second.body), /Newest entries/);
      const all = await auditRows();
      // The newest entry heads the first page.
      const newest = all.at(-1)!;
      assert.ok(first.body.indexOf(newest.target_label!) > 0);
      assert.equal(newest.actor_type, 'cli');
    });

    it('Spanish: the console and its messages', async () => {
      const me = await op({ lang: 'es', steppedUp: true });
      const home = pageText((await me.client.get('/operator')).body);
      assert.match(home, /Consola del operador/);
      assert.match(home, /Registro de auditoría/);
      const form = `/operator/keys/${personalKeyId}`;
      const page = pageText((await me.client.get(form)).body);
      assert.match(page, /Nivel y límites de uso/);
      assert.match(page, /50\.000\/día/);
      const bad = await me.client.post(`${form}/tier`, { tier: 'oro' });
      assert.match(pageText(bad.body), /Elige uno de los niveles/);
      const lookup = await me.client.get('/operator/requests?request_id=hola');
      assert.match(pageText(lookup.body), /Eso no es un id de petición/);
      const audit = pageText((await me.client.get('/operator/audit')).body);
      assert.match(audit, /Cambió el nivel de una clave/);
    });
  });
}
