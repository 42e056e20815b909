/**
 * The unknown-URL page is a page like every other: the reader's language (the switch and its
 * cookie, then the account's, then Accept-Language) and, when signed in, the signed-in header
 * with a working sign-out form (its CSRF token is valid).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { pageText, SiteClient } from '../support/site.ts';

for (const target of databaseTargets()) {
  describe(`the 404 page (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target);
    });
    after(async () => ctx?.close());

    const nav = (html: string) => pageText(/<nav class="site-nav"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '');

    it('answers in the language chosen with the switch (its cookie beats Accept-Language)', async () => {
      const client = new SiteClient(ctx.app.fastify);
      await client.get('/?lang=en');
      assert.equal(client.cookies.get('consulta_lang'), 'en');
      const page = await client.get('/no/such/page', { 'accept-language': 'es' });
      assert.equal(page.statusCode, 404);
      assert.match(page.body, /<html lang="en" dir="ltr">/);
      assert.match(pageText(page.body), /Page not found/);
      // The switch works from the 404 page itself, and is remembered.
      const switched = await client.get('/no/such/page?lang=es', { 'accept-language': 'en' });
      assert.equal(switched.statusCode, 404);
      assert.match(pageText(switched.body), /Página no encontrada/);
      assert.equal(client.cookies.get('consulta_lang'), 'es');
      const english = await ctx.app.fastify.inject({ url: '/nowhere', headers: { accept: 'text/html', 'accept-language': 'en-GB,en;q=0.9' } });
      assert.match(pageText(english.body), /Page not found/, 'Accept-Language when nothing was chosen');
    });

    it('a signed-in Spanish reader gets a Spanish page with the signed-in header, and its sign-out works', async () => {
      // Spanish on the account, an English browser, no language cookie: the account's choice wins.
      const ana = await signedIn(ctx, 'ana-404@example.com', { lang: 'en' });
      await ctx.app.services.sessions.setLocale(ana.userId, 'es');
      const page = await ana.client.get('/developer/nothing-here');
      assert.equal(page.statusCode, 404);
      assert.match(page.body, /<html lang="es" dir="ltr">/);
      assert.match(pageText(page.body), /Página no encontrada/);
      const header = nav(page.body);
      assert.match(header, /Mis consultas/);
      assert.match(header, /Salir/);
      assert.doesNotMatch(header, /Entrar|Sign in/, 'no sign-in offer to someone signed in');
      assert.match(pageText(page.body), /ana-404@example\.com/, 'the footer names who is signed in');
      assert.equal(page.headers['cache-control'], 'no-store');
      // The page's sign-out form carries a real CSRF token.
      const out = await ana.client.post('/sign-out', {});
      assert.equal(out.statusCode, 303);
      assert.equal(await ctx.app.services.sessions.authenticate(ana.token), null, 'signed out from the 404 page');
    });

    it('a signed-in English reader gets the English signed-in header', async () => {
      const ben = await signedIn(ctx, 'ben-404@example.com', { lang: 'en' });
      const page = await ben.client.get('/lawyers/not-a-lawyer/nothing');
      assert.equal(page.statusCode, 404);
      assert.match(page.body, /<html lang="en" dir="ltr">/);
      const header = nav(page.body);
      assert.match(header, /My consultations/);
      assert.match(header, /Sign out/);
      assert.doesNotMatch(header, /Sign in/);
    });
  });
}
