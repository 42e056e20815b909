/**
 * Joining (issue 18 item 1; docs/lawyers.md#joining-and-verification), on both databases:
 * ApplicationService's rules, then /join over real HTTP on loopback — the explanation and
 * sign-in by emailed code coming back to /join, the form (CSRF, visible labels, both languages),
 * hostile inputs answered with the form again and clear messages (never a 500), the pending page,
 * one application per account, nobody reaching another's. An application is unlisted: unknown to
 * search, profile and the API; it shows in `consulta lawyers applications --json`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import type { ApplicationService} from '../../src/domain/lawyers/application.service.ts';
import { validateApplication, type ApplicationInput } from '../../src/domain/lawyers/application.service.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { testConfig } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { jsonLine, runConsulta } from '../support/cli.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { HttpBrowser, hiddenFields, mailedCode, signInMails } from '../support/http-browser.ts';
import { pageText } from '../support/site.ts';

const GOOD: ApplicationInput = {
  name: 'Amina Benali Ruiz',
  colegio: 'malaga',
  membershipNumber: '12.345',
  city: 'malaga',
  languages: ['es', 'ar', 'fr'],
  practiceAreas: ['residence', 'arraigo-social'],
  primaryArea: 'arraigo-social',
  fee: '65,50',
  consultationMinutes: '45',
  videoUrl: 'https://meet.example.com/amina',
  phone: 'on',
  officeAddress: 'Calle Larios 5, 29005 Málaga',
  bio: 'Abogada de extranjería.\r\nArraigo y nacionalidad.',
};

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));

/** The form's fields as a browser sends them (checkbox groups repeat their name). */
function formBody(input: Record<string, string | string[]>, csrf: string): string {
  const params = new URLSearchParams({ _csrf: csrf });
  for (const [k, v] of Object.entries(input)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
  return params.toString();
}

const GOOD_FORM: Record<string, string | string[]> = {
  name: 'Amina Benali Ruiz',
  colegio: 'malaga',
  membership_number: '12.345',
  city: 'malaga',
  languages: ['es', 'ar', 'fr'],
  practice_areas: ['residence', 'arraigo-social'],
  primary_area: 'arraigo-social',
  fee: '65,50',
  consultation_minutes: '45',
  video_url: 'https://meet.example.com/amina',
  phone: 'on',
  office_address: 'Calle Larios 5, 29005 Málaga',
  bio: 'Abogada de extranjería.\r\nArraigo y nacionalidad.',
};

describe('application rules (pure)', () => {
  it('accepts a good application and cleans it', () => {
    const r = validateApplication(GOOD);
    assert.ok(r.ok);
    assert.equal(r.value.feeCents, 6550);
    assert.equal(r.value.consultationMinutes, 45);
    assert.equal(r.value.bio, 'Abogada de extranjería. Arraigo y nacionalidad.');
    assert.deepEqual(r.value.practiceAreas, [{ slug: 'residence', isPrimary: false }, { slug: 'arraigo-social', isPrimary: true }]);
  });
  it('names every bad field', () => {
    const pointers = (input: ApplicationInput) => {
      const r = validateApplication(input);
      return r.ok ? [] : r.errors.map((e) => e.pointer);
    };
    assert.deepEqual(pointers({}).sort(), ['/city', '/colegio', '/consultation_minutes', '/fee', '/formats', '/languages', '/membership_number', '/name', '/practice_areas'].sort());
    assert.deepEqual(pointers({ ...GOOD, colegio: 'atlantida' }), ['/colegio']);
    assert.deepEqual(pointers({ ...GOOD, videoUrl: 'http://meet.example.com/x' }), ['/video_url']);
    assert.deepEqual(pointers({ ...GOOD, videoUrl: 'javascript:alert(1)' }), ['/video_url']);
    assert.deepEqual(pointers({ ...GOOD, name: 'Amina\u202eBenali' }), ['/name']);
    assert.deepEqual(pointers({ ...GOOD, name: 'x'.repeat(121) }), ['/name']);
    assert.deepEqual(pointers({ ...GOOD, bio: 'y'.repeat(1001) }), ['/bio']);
    assert.deepEqual(pointers({ ...GOOD, officeAddress: 'Calle\u0000Larios' }), ['/office_address']);
    assert.deepEqual(pointers({ ...GOOD, consultationMinutes: '20' }), ['/consultation_minutes']);
    assert.deepEqual(pointers({ ...GOOD, fee: '-5' }), ['/fee']);
    assert.deepEqual(pointers({ ...GOOD, fee: '1000,01' }), ['/fee']);
    assert.deepEqual(pointers({ ...GOOD, primaryArea: 'nationality' }), ['/primary_area']);
    assert.deepEqual(pointers({ ...GOOD, languages: ['xx'] }), ['/languages']);
    assert.deepEqual(pointers({ ...GOOD, city: 'gotham' }), ['/city']);
    assert.deepEqual(pointers({ ...GOOD, membershipNumber: '<script>' }), ['/membership_number']);
    assert.deepEqual(pointers({ ...GOOD, videoUrl: '', phone: undefined, officeAddress: '' }), ['/formats']);
  });
});

for (const target of databaseTargets()) {
  describe(`/join: a lawyer applies (${target.name}, real HTTP)`, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let site: string;
    let n = 0;
    const email = (who: string) => `${who}-${++n}@example.com`;
    const service = (): ApplicationService => server.app.services.applications;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const config = testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: db.url, rateLimitMultiplier: 1000 });
      server = await startServer(config, { clock: new ManualClock(Date.now()) });
      await ensureReferenceData(server.database.db, new Date().toISOString());
    });
    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    async function signedIn(who: string, language = 'en'): Promise<{ browser: HttpBrowser; userId: string; address: string }> {
      const address = email(who);
      const user = await server.app.services.accounts.ensureUser(address);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      const browser = new HttpBrowser(site, language);
      browser.cookies.set(siteCookies(site).session, session.token);
      return { browser, userId: user.id, address };
    }

    async function postJoin(browser: HttpBrowser, form: Record<string, string | string[]>, csrf?: string): Promise<Response> {
      const token = csrf ?? hiddenFields(await (await browser.get('/join')).text(), /^\/join$/)._csrf!;
      const res = await fetch(`${site}/join`, {
        method: 'POST',
        headers: { accept: 'text/html', 'accept-language': 'en', 'content-type': 'application/x-www-form-urlencoded', origin: site, 'sec-fetch-site': 'same-origin', cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        body: formBody(form, token),
        redirect: 'manual',
      });
      return res;
    }

    it('signed out: explains verification, and sign-in by emailed code comes back to the form', async () => {
      const browser = new HttpBrowser(site);
      const page = await browser.get('/join');
      assert.equal(page.status, 200);
      const html = await page.text();
      assert.match(pageText(html), /Censo General de Letrados/);
      assert.match(pageText(html), /not shown anywhere/);
      assert.match(html, /href="\/sign-in\?return_to=%2Fjoin"/);
      const signInPage = await (await browser.get('/sign-in?return_to=%2Fjoin')).text();
      const fields = hiddenFields(signInPage, /^\/sign-in$/);
      assert.equal(fields.return_to, '/join');
      const address = email('newcomer');
      const known = await signInMails(dbOf(), address);
      const sent = await browser.post('/sign-in', { _csrf: fields._csrf!, return_to: '/join', email: address });
      assert.equal(sent.status, 303);
      const codePage = await (await browser.get('/sign-in/code')).text();
      const codeFields = hiddenFields(codePage, /^\/sign-in\/code$/);
      const code = await mailedCode(dbOf(), address, known);
      const done = await browser.post('/sign-in/code', { ...codeFields, code });
      assert.equal(done.status, 303);
      assert.equal(done.headers.get('location'), '/join');
      const form = await (await browser.get('/join')).text();
      assert.match(form, /<form method="post" action="\/join"/);
      assert.match(form, /name="_csrf"/);
      assert.match(form, /<label for="f-name">Full name \(as in the census\) \(required\)<\/label>/);
      assert.match(pageText(form), new RegExp(`We write to you at ${address.replace('.', '\\.')}`));
    });

    function dbOf() {
      return server.database;
    }

    it('the form in Spanish', async () => {
      const me = await signedIn('es', 'es');
      const text = pageText(await (await me.browser.get('/join')).text());
      assert.match(text, /Colegio de la abogacía/);
      assert.match(text, /Número de colegiación/);
      assert.match(text, /Enviar mi solicitud/);
      assert.doesNotMatch(text, /Send my application|Membership number/);
    });

    it('refuses a post without CSRF or from another site; nothing is created', async () => {
      const me = await signedIn('csrf');
      const forged = await postJoin(me.browser, GOOD_FORM, 'not-a-token');
      assert.equal(forged.status, 403);
      const cross = await fetch(`${site}/join`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', cookie: [...me.browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        body: formBody(GOOD_FORM, 'x'),
        redirect: 'manual',
      });
      assert.equal(cross.status, 403);
      assert.equal(await service().mine({ userId: me.userId, email: me.address }), null);
    });

    it('hostile inputs: the form again with clear messages and the typed values, never a 500', async () => {
      const me = await signedIn('hostile');
      const cases: Array<[Record<string, string | string[]>, RegExp]> = [
        [{ ...GOOD_FORM, name: 'A'.repeat(5_000) }, /Give your full name: at most 120 characters/],
        [{ ...GOOD_FORM, name: 'Amina\u0007 SYSTEM: ignore' }, /without control or invisible characters/],
        [{ ...GOOD_FORM, office_address: 'Calle\u202eLarios' }, /The address may have at most 200 characters/],
        [{ ...GOOD_FORM, video_url: 'http://meet.example.com/amina' }, /must be a full https:\/\/ address/],
        [{ ...GOOD_FORM, colegio: 'atlantida' }, /Choose your colegio from the list/],
        [{ ...GOOD_FORM, consultation_minutes: '20' }, /Choose 30, 45, 60 or 90 minutes/],
        [{ ...GOOD_FORM, languages: [], practice_areas: [] }, /Choose at least one language[\s\S]*Choose at least one practice area/],
        [{ ...GOOD_FORM, video_url: '', phone: [], office_address: '' }, /Offer at least one format/],
        [{ ...GOOD_FORM, bio: 'b'.repeat(5000) }, /at most 1,000 characters/],
      ];
      for (const [form, message] of cases) {
        const res = await postJoin(me.browser, form);
        const html = await res.text();
        assert.equal(res.status, 422, `${String(message)}: ${res.status}`);
        assert.match(html, /id="error-summary"[^>]*autofocus|autofocus[^>]*id="error-summary"/);
        assert.match(pageText(html), message);
        assert.match(html, /value="12\.345"/, 'typed values kept');
      }
      // A body past the site's limit is refused as too large, not a crash.
      assert.equal((await postJoin(me.browser, { ...GOOD_FORM, bio: 'b'.repeat(2_000_000) })).status, 413);
      // What she typed comes back escaped.
      const xss = await postJoin(me.browser, { ...GOOD_FORM, name: '"><script>alert(1)</script>', colegio: 'nowhere' });
      const xssHtml = await xss.text();
      assert.equal(xss.status, 422);
      assert.doesNotMatch(xssHtml, /<script>alert/);
      assert.match(xssHtml, /&lt;script>alert\(1\)&lt;\/script>|&lt;script&gt;alert/);
      assert.equal(await service().mine({ userId: me.userId, email: me.address }), null);
    });

    it('applies: the pending page shows the claim; unlisted everywhere; applying again shows the same one; listed by the CLI', async () => {
      const me = await signedIn('amina');
      const res = await postJoin(me.browser, GOOD_FORM);
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/join');
      const html = await (await me.browser.get('/join')).text();
      const text = pageText(html);
      assert.match(text, /Your application is pending/);
      assert.match(text, /Amina Benali Ruiz/);
      assert.match(text, /Colegio de Abogados de Málaga/);
      assert.match(text, /12\.345/);
      assert.match(text, /https:\/\/meet\.example\.com\/amina/);
      assert.match(text, /45 minutes/);
      assert.match(text, /Pending verification/);
      const mine = (await service().mine({ userId: me.userId, email: me.address }))!;
      assert.equal(mine.status, 'applied');
      assert.equal(mine.contactEmail, me.address);
      assert.deepEqual(mine.formats, ['video', 'phone', 'in_person']);
      assert.equal(mine.feeCents, 6550);
      const row = await dbOf().db.selectFrom('lawyers').select(['status', 'verified', 'listed', 'user_id', 'created_at']).where('id', '=', mine.id).executeTakeFirstOrThrow();
      assert.deepEqual({ ...row, created_at: typeof row.created_at }, { status: 'applied', verified: 0, listed: 0, user_id: me.userId, created_at: 'string' });

      // Unknown to the directory: profile, availability, API search, the site's profile.
      for (const path of ['', '/availability', '/reviews']) assert.equal((await fetch(`${site}/api/v1/lawyers/${mine.id}${path}`)).status, 404, path);
      const search = (await (await fetch(`${site}/api/v1/lawyers/search?city=malaga&limit=50`)).json()) as { lawyers?: Array<{ id: string }> };
      assert.equal((search.lawyers ?? []).some((l) => l.id === mine.id), false);
      assert.equal((await fetch(`${site}/lawyers/${mine.id}`, { headers: { accept: 'text/html' } })).status, 404);

      // Again: the same application, nothing new.
      const token = /name="_csrf" value="([^"]+)"/.exec(await (await me.browser.get('/account')).text())![1]!;
      const again = await postJoin(me.browser, { ...GOOD_FORM, name: 'Otra Persona' }, token);
      const againText = pageText(await again.text());
      assert.match(againText, /already applied/);
      assert.match(againText, /Amina Benali Ruiz/);
      assert.equal((await dbOf().db.selectFrom('lawyers').select('id').where('user_id', '=', me.userId).execute()).length, 1);
      assert.match(pageText(await (await me.browser.get('/join')).text()), /Your application is pending/);

      // Someone else sees only her own form: no other application is reachable.
      const other = await signedIn('other');
      const otherPage = await (await other.browser.get('/join')).text();
      assert.doesNotMatch(otherPage, /Amina/);
      assert.match(otherPage, /<form method="post" action="\/join"/);

      // The operator's queue shows it (the real command).
      const out = jsonLine(await runConsulta(['lawyers', 'applications', '--json'], { ...BASE_ENV, DATABASE_URL: db.url, LOG_LEVEL: 'silent' }));
      const listed = (out.applications as Array<{ id: string; name: string; memberships: unknown[] }>).find((a) => a.id === mine.id);
      assert.ok(listed, 'in the applications queue');
      assert.equal(listed.name, 'Amina Benali Ruiz');
      assert.deepEqual(listed.memberships, [{ bar_name: 'Ilustre Colegio de Abogados de Málaga', colegio: 'malaga', membership_number: '12.345', verified: false }]);
    });

    it('two submissions at once make one application', async () => {
      const me = await signedIn('twice');
      const results = await Promise.all([0, 1, 2].map(() => service().apply({ userId: me.userId, email: me.address }, GOOD)));
      assert.equal(results.filter((r) => r.created).length, 1);
      assert.equal(new Set(results.map((r) => r.application.id)).size, 1);
    });
  });
}
