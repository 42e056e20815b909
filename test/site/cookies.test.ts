/**
 * The cookie statement stays true (docs/site.md#cookies): every cookie any response sets, along a
 * person's whole path — search, help, contact, sign-in by code, account, language, developer
 * pages, connecting an AI app through the authorization server, sign-out — is listed on
 * /legal/cookies, and each listed one is strictly necessary. A new cookie fails this test until
 * the statement (src/site/help/legal-texts.ts) lists it.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { pageText, SiteClient } from '../support/site.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { connect, registerClient } from '../oauth/support.ts';
import { cookieList } from '../../src/site/help/legal-texts.ts';
import { siteCookies } from '../../src/site/plugin.ts';

const ASSETS = path.join(import.meta.dirname, '../../src/site/assets');

/**
 * The cookies the site's own scripts write (`document.cookie = NAME + '=' …` or `= 'name=…'`),
 * by name: a response's Set-Cookie is seen by the walk below; a script's is found here.
 */
function scriptCookies(): Array<{ file: string; name: string }> {
  const found: Array<{ file: string; name: string }> = [];
  for (const file of readdirSync(ASSETS).filter((f) => f.endsWith('.js'))) {
    const source = readFileSync(path.join(ASSETS, file), 'utf8');
    for (const m of source.matchAll(/document\.cookie\s*=\s*(?:(['"])([^'"=]+)=|([A-Za-z_$][\w$]*))/g)) {
      if (m[2]) found.push({ file, name: m[2] });
      else {
        const value = new RegExp(`\\b(?:var|let|const)\\s+${m[3]}\\s*=\\s*['"]([^'"]+)['"]`).exec(source)?.[1];
        found.push({ file, name: value ?? `${m[3]} (a name this test cannot read: write it as a string constant)` });
      }
    }
  }
  return found;
}

describe('cookies the site\'s scripts write', () => {
  it('are listed in the cookie statement, with a purpose and a lifetime in every language', () => {
    const written = scriptCookies();
    assert.ok(written.some((c) => c.name === 'consulta_tz'), `the time-zone script's cookie is found: ${JSON.stringify(written)}`);
    const entries = cookieList(siteCookies('https://consulta.test'), 30);
    const listed = new Set(entries.flatMap((e) => e.names));
    assert.deepEqual(written.filter((c) => !listed.has(c.name)), [], 'cookies written by a script but not in the cookie statement');
    for (const e of entries) {
      for (const text of [...Object.values(e.purpose), ...Object.values(e.lifetime)]) assert.ok(text.trim().length > 0, e.names[0]);
      assert.deepEqual(Object.keys(e.purpose).sort(), ['ar', 'en', 'es', 'fr', 'ro', 'uk'], e.names[0]);
    }
  });
});

const HTTPS_SITE = 'https://consulta.test';

for (const target of databaseTargets()) {
  describe(`cookies (${target.name})`, () => {
    let ctx: TestContext;
    let lawyerId: string;
    before(async () => {
      ctx = await createTestContext(target, { config: { siteUrl: HTTPS_SITE, baseUrl: `${HTTPS_SITE}/api/v1`, mcpUrl: `${HTTPS_SITE}/mcp` } });
      [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Cookie', city: 'madrid' })], ctx.clock.now())) as [string];
      ctx.app.services.directoryCache.invalidate();
    });
    after(async () => ctx?.close());

    it('every cookie set along a person\'s path is listed in the cookie statement', async () => {
      const set = new Map<string, string>();
      const note = (where: string, res: LightMyRequestResponse) => {
        for (const c of res.cookies as Array<{ name: string }>) if (!set.has(c.name)) set.set(c.name, where);
        return res;
      };
      const browser = new SiteClient(ctx.app.fastify, HTTPS_SITE, { 'accept-language': 'es' });
      const get = async (url: string) => note(`GET ${url}`, await browser.get(url));
      const post = async (url: string, form: Record<string, string>) => note(`POST ${url}`, await browser.post(url, form));

      for (const url of ['/', '/?city=madrid', '/?lang=en', `/lawyers/${lawyerId}`, `/lawyers/${lawyerId}/book`, '/help', '/legal/privacy', '/docs/errors', '/no/such/page']) await get(url);
      // The time-zone chooser (the form a visitor without JavaScript uses) remembers the zone.
      assert.equal((await post('/time-zone', { zone: 'America/Bogota', return_to: `/lawyers/${lawyerId}/book` })).statusCode, 303);
      await get('/contact');
      assert.equal((await post('/contact', { name: 'Ana', email: 'ana-cookies@example.com', topic: 'other', message: 'Just checking the cookies.' })).statusCode, 303);
      await get('/sign-in?return_to=%2Faccount');
      assert.equal((await post('/sign-in', { email: 'ana-cookies@example.com', return_to: '/account' })).statusCode, 303);
      await get('/sign-in/code');
      const mail = await ctx.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', 'ana-cookies@example.com').where('kind', '=', 'sign_in').executeTakeFirstOrThrow();
      const code = /\b(\d{6})\b/.exec(mail.text)![1]!;
      assert.equal((await post('/sign-in/code', { code })).statusCode, 303);
      for (const url of ['/account', '/consultations', '/developer', '/developer/keys', '/account/passkeys']) assert.equal((await get(url)).statusCode, 200, url);
      await get('/account');
      assert.equal((await post('/account/language', { locale: 'en' })).statusCode, 303);
      // Connecting an AI app: the authorization server's own cookies.
      const clientId = await registerClient(ctx);
      const tracking = new Proxy(browser, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver);
          if (prop === 'get' || prop === 'post') {
            return async (...args: unknown[]) => note(`${String(prop).toUpperCase()} ${String(args[0]).split('?')[0]}`, await (value as (...a: unknown[]) => Promise<LightMyRequestResponse>).apply(target, args));
          }
          return typeof value === 'function' ? value.bind(target) : value;
        },
      });
      await connect(ctx, tracking, { clientId, scope: 'directory:read' });
      await get('/account');
      assert.equal((await post('/sign-out', {})).statusCode, 303);

      assert.ok(set.size >= 4, `the path set the site's own cookies: ${[...set.keys()].join(', ')}`);
      assert.ok([...set.keys()].some((n) => n.startsWith('_interaction')), 'the authorization server set its cookies too');
      const statement = await new SiteClient(ctx.app.fastify, HTTPS_SITE).get('/legal/cookies?lang=en');
      const list = /<ul class="cards cookie-list"[\s\S]*?<\/ul>/.exec(statement.body)![0];
      const listed = new Set([...list.matchAll(/<code[^>]*>([^<]+)<\/code>/g)].map((m) => m[1]!));
      const unlisted = [...set].filter(([name]) => !listed.has(name)).map(([name, where]) => `${name} (first set by ${where})`);
      assert.deepEqual(unlisted, [], 'cookies set but not in the cookie statement');
      assert.match(pageText(statement.body), /no analytics, advertising or third-party cookies/);
      // Every row says it is strictly necessary: that is why there is no banner.
      assert.equal((list.match(/Strictly necessary, first-party/g) ?? []).length, (list.match(/<li class="card">/g) ?? []).length);
      assert.ok(listed.has('__Host-consulta_session') && listed.has('consulta_lang'), `the statement lists: ${[...listed].join(', ')}`);
    });
  });
}
