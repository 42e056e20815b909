/**
 * Sign-in through the site's pages (app.inject, a cookie-keeping client), with the mail read from
 * the local outbox as a newcomer would with `consulta mail show --last`: the flow, the cookies'
 * flags, and the attacks — forged forms, open redirects, another browser's link, guessing codes,
 * flooding sends, session fixation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { pageText, SiteClient } from '../support/site.ts';

const HTTPS_SITE = 'https://consulta.example';

for (const target of databaseTargets()) {
  describe(`sign-in pages (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target, { config: { siteUrl: HTTPS_SITE, baseUrl: `${HTTPS_SITE}/api/v1`, rateLimitMultiplier: 1 } });
    });
    after(async () => ctx?.close());

    let n = 0;
    const client = () => new SiteClient(ctx.app.fastify, HTTPS_SITE, { 'x-forwarded-for': `203.0.113.${++n}`, 'accept-language': 'en' });
    const lastMailTo = async (email: string) => {
      const row = await ctx.database.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', email).orderBy('created_at', 'desc').orderBy('id', 'desc').executeTakeFirstOrThrow();
      return { code: /\b(\d{6})\b/.exec(row.text ?? '')![1]!, link: /(\/sign-in\/link\/[A-Za-z0-9_-]+)/.exec(row.text ?? '')![1]! };
    };

    async function startSignIn(c: SiteClient, email: string, returnTo?: string) {
      await c.get(`/sign-in${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`);
      const res = await c.post('/sign-in', { email, ...(returnTo ? { return_to: returnTo } : {}) });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/sign-in/code');
      return c.get('/sign-in/code');
    }

    it('signs in with the emailed code and sets a __Host- session cookie: Secure, HttpOnly, SameSite=Lax', async () => {
      const c = client();
      await startSignIn(c, 'ana@example.com', '/consultations');
      const res = await c.post('/sign-in/code', { code: (await lastMailTo('ana@example.com')).code });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, '/consultations');
      const setCookie = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((h) => h.startsWith('__Host-consulta_session='));
      assert.ok(setCookie, 'the session cookie');
      assert.match(setCookie, /; Path=\//);
      assert.match(setCookie, /; HttpOnly/);
      assert.match(setCookie, /; Secure/);
      assert.match(setCookie, /; SameSite=Lax/);
      assert.doesNotMatch(setCookie, /Domain=/);
      const page = await c.get('/consultations');
      assert.equal(page.statusCode, 200);
      assert.match(pageText(page.body), /Signed in as ana@example.com/);
    });

    it('refuses a sign-in form without its CSRF token, or posted from another site', async () => {
      const c = client();
      await c.get('/sign-in');
      assert.equal((await c.post('/sign-in', { email: 'x@example.com', _csrf: 'forged' })).statusCode, 403);
      assert.equal((await c.post('/sign-in', { email: 'x@example.com' }, { origin: 'https://evil.example' })).statusCode, 403);
      assert.equal((await c.post('/sign-in', { email: 'x@example.com' }, { 'sec-fetch-site': 'cross-site' })).statusCode, 403);
      const sent = await ctx.database.db.selectFrom('mail_outbox').select('id').where('recipient', '=', 'x@example.com').execute();
      assert.equal(sent.length, 0, 'no mail for a refused form');
    });

    it('ignores a return_to that leaves the site', async () => {
      const c = client();
      await startSignIn(c, 'redirect@example.com', 'https://evil.example/phish');
      const res = await c.post('/sign-in/code', { code: (await lastMailTo('redirect@example.com')).code });
      assert.equal(res.headers.location, '/consultations');
    });

    it('a link opened in another browser asks for the code; in the asking browser it signs in', async () => {
      const asking = client();
      await startSignIn(asking, 'link@example.com', '/consultations');
      const { link } = await lastMailTo('link@example.com');
      const other = client();
      const elsewhere = await other.get(link);
      assert.equal(elsewhere.statusCode, 200);
      assert.match(pageText(elsewhere.body), /only signs you in in the browser where you asked/);
      assert.match(elsewhere.body, /name="code"/);
      assert.equal(other.cookies.has('__Host-consulta_session'), false);
      const here = await asking.get(link);
      assert.equal(here.statusCode, 303);
      assert.ok(asking.cookies.has('__Host-consulta_session'));
    });

    it('five wrong codes lock the sign-in; the right code no longer works', async () => {
      const c = client();
      await startSignIn(c, 'guess@example.com');
      const { code } = await lastMailTo('guess@example.com');
      const wrong = code === '000000' ? '111111' : '000000';
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) statuses.push((await c.post('/sign-in/code', { code: wrong })).statusCode);
      assert.deepEqual(statuses, [422, 422, 422, 422, 400]);
      const late = await c.post('/sign-in/code', { code });
      assert.equal(late.statusCode, 400);
      assert.match(pageText(late.body), /Too many wrong codes/);
      assert.equal(c.cookies.has('__Host-consulta_session'), false);
    });

    it('limits sends per address: the sixth in an hour is a 429 page with Retry-After', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        const c = client();
        await c.get('/sign-in');
        statuses.push((await c.post('/sign-in', { email: 'flood@example.com' })).statusCode);
      }
      assert.deepEqual(statuses, [303, 303, 303, 303, 303, 429]);
    });

    it('a planted session cookie is not adopted, and sign-out ends the session on the server', async () => {
      const c = client();
      c.cookies.set('__Host-consulta_session', 'A'.repeat(43));
      await startSignIn(c, 'fixation@example.com');
      await c.post('/sign-in/code', { code: (await lastMailTo('fixation@example.com')).code });
      const token = c.cookies.get('__Host-consulta_session')!;
      assert.notEqual(token, 'A'.repeat(43), 'a new token is issued at sign-in');
      assert.ok(await ctx.app.services.sessions.authenticate(token));
      await c.get('/consultations');
      const out = await c.post('/sign-out', {});
      assert.equal(out.statusCode, 303);
      assert.equal(await ctx.app.services.sessions.authenticate(token), null);
      const after = await new SiteClient(ctx.app.fastify, HTTPS_SITE).get('/consultations', { cookie: `__Host-consulta_session=${token}` });
      assert.equal(after.statusCode, 303, 'the old cookie no longer signs anyone in');
    });

    it('never shows a sign-in code over HTTP', async () => {
      const c = client();
      const page = await startSignIn(c, 'mailbox@example.com');
      const { code } = await lastMailTo('mailbox@example.com');
      assert.ok(!page.body.includes(code));
      for (const url of ['/', '/sign-in', '/sign-in/code', '/api/v1/key', '/docs/errors']) {
        const res = await ctx.app.fastify.inject({ url });
        assert.ok(!res.body.includes(code), url);
      }
    });
  });
}
