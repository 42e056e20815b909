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
import { startSmtp, type SmtpListener } from '../access/support.ts';

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

for (const target of databaseTargets()) {
  describe(`sign-in email addresses, read one way (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { siteUrl: HTTPS_SITE, baseUrl: `${HTTPS_SITE}/api/v1`, rateLimitMultiplier: 1, smtpUrl: smtp.url } });
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });

    const client = (lang = 'en') => new SiteClient(ctx.app.fastify, HTTPS_SITE, { 'accept-language': lang });
    const codeIn = (mail: { text: string }) => /\b(\d{6})\b/.exec(mail.text)![1]!;

    it('13 sends to one mailbox through spelling variants: the 6th accepted one is refused within the hour, every envelope is the normal form, and one account results', async () => {
      // The variants of the issue: nodemailer reads every one of them as victim@example.com.
      const variants = [
        'victim@example.com',
        '(1)victim@example.com',
        'Victim@Example.com',
        '(2)victim@example.com',
        'VICTIM@EXAMPLE.COM',
        'victim@example.com(3)',
        ' victim@EXAMPLE.com ',
        '"victim"@example.com',
        'victim@Example.Com',
        'Victim <victim@example.com>',
        'vIctim@example.com',
        'victim@example.com,victim@example.com',
        'VICTIM@example.com',
      ];
      const clients: SiteClient[] = [];
      const statuses: number[] = [];
      for (const email of variants) {
        const c = client();
        await c.get('/sign-in');
        statuses.push((await c.post('/sign-in', { email })).statusCode);
        clients.push(c);
      }
      // Refused forms are a form error (400); the five well-formed sends go out; then 429.
      assert.deepEqual(statuses, [303, 400, 303, 400, 303, 400, 303, 400, 303, 400, 429, 400, 429]);
      await smtp.waitFor(5);
      assert.equal(smtp.messages.length, 5, 'five codes reached the mailbox, not thirteen');
      for (const m of smtp.messages) assert.deepEqual(m.to, ['victim@example.com'], 'the SMTP envelope recipient is the normal form');
      const queued = await ctx.database.db.selectFrom('mail_outbox').select(['recipient', 'status']).execute();
      assert.deepEqual(queued.map((r) => `${r.recipient} ${r.status}`), Array(5).fill('victim@example.com sent'));

      // Signing in from two of the spellings ends in the same account.
      for (const [i, mail] of [
        [0, smtp.messages[0]!],
        [2, smtp.messages[1]!],
      ] as const) {
        const res = await clients[i]!.post('/sign-in/code', { code: codeIn(mail) });
        assert.equal(res.statusCode, 303, `sign-in ${i}`);
      }
      const users = await ctx.database.db.selectFrom('users').select('email').execute();
      assert.deepEqual(users.map((u) => u.email), ['victim@example.com']);
    });

    it('a refused address gets the form back with a message that says what to fix, in both languages, and nothing is sent', async () => {
      const before = smtp.messages.length;
      for (const [lang, notBare, accents] of [
        ['en', /Enter only the address, like name@example.com/, /cannot have accents/],
        ['es', /Escribe solo la dirección, como nombre@ejemplo.com/, /no puede llevar tildes/],
      ] as const) {
        const c = client(lang);
        await c.get('/sign-in');
        const bare = await c.post('/sign-in', { email: 'Ana <ana@example.com>' });
        assert.equal(bare.statusCode, 400);
        assert.match(pageText(bare.body), notBare);
        assert.match(bare.body, /value="Ana &lt;ana@example.com>"/, 'what was typed is kept, escaped');
        assert.match(bare.body, /aria-invalid="true"/);
        const accented = await c.post('/sign-in', { email: 'josé@example.com' });
        assert.equal(accented.statusCode, 400);
        assert.match(pageText(accented.body), accents);
      }
      assert.equal(smtp.messages.length, before);
    });
  });
}
