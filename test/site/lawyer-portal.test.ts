/**
 * The lawyer's portal over real HTTP on loopback (issue 18 item 3; docs/lawyers.md#the-portal),
 * on both databases: signed out → sign-in coming back; signed in without a lawyer record → the
 * page pointing to /join; every page in English and Spanish with its navigation; no-JS forms with
 * post/redirect/get, the error summary and the typed values back (escaped); CSRF and cross-site
 * posts refused; the photo upload (multipart, magic bytes, 2 MB, never SVG) and its cacheable
 * URL; the object-level attack: a form naming another lawyer's id changes only her own record.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import sharp from 'sharp';
import { ManualClock } from '../../src/clock.ts';
import type { LawyerTable } from '../../src/db/schema.ts';
import { PHOTO_SIDE } from '../../src/domain/lawyers/photo.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { TEST_NOW, testConfig } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { HttpBrowser } from '../support/http-browser.ts';
import { pngDeclaring } from '../support/images.ts';
import { pageText } from '../support/site.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

type Form = Record<string, string | string[]>;

const PROFILE: Form = {
  name: 'Amina Benali Ruiz',
  bio_es: 'Abogada de extranjería.',
  bio_en: 'Immigration lawyer.',
  languages: ['es', 'ar'],
  practice_areas: ['residence', 'arraigo-social'],
  primary_area: 'arraigo-social',
  fee: '65,50',
};

for (const target of databaseTargets()) {
  describe(`/lawyer: the lawyer's portal (${target.name}, real HTTP)`, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let site: string;
    let n = 0;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const config = testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: db.url, rateLimitMultiplier: 1000 });
      server = await startServer(config, { clock: new ManualClock(TEST_NOW) });
    });
    after(async () => {
      await server?.stop();
      await db?.drop();
    });

    const dbx = () => server.database.db;

    async function signedIn(language = 'en'): Promise<{ browser: HttpBrowser; userId: string }> {
      const user = await server.app.services.accounts.ensureUser(`person-${++n}@example.com`);
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      const browser = new HttpBrowser(site, language);
      browser.cookies.set(siteCookies(site).session, session.token);
      return { browser, userId: user.id };
    }

    async function lawyer(language = 'en', overrides: Parameters<typeof lawyerRecord>[0] = {}): Promise<{ browser: HttpBrowser; userId: string; lawyer: LawyerTable }> {
      const me = await signedIn(language);
      const [id] = await insertLawyers(server.database, [lawyerRecord(overrides)], new Date(TEST_NOW));
      await dbx().updateTable('lawyers').set({ user_id: me.userId }).where('id', '=', id!).execute();
      return { ...me, lawyer: (await server.app.services.lawyerPortal.forUser(me.userId))! };
    }

    const csrfOf = (html: string): string => /name="_csrf" value="([^"]+)"/.exec(html)![1]!;

    async function post(browser: HttpBrowser, path: string, form: Form, token?: string, headers: Record<string, string> = {}): Promise<Response> {
      const csrf = token ?? csrfOf(await (await browser.get('/lawyer')).text());
      const params = new URLSearchParams({ _csrf: csrf });
      for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) params.append(k, one);
      return fetch(`${site}${path}`, {
        method: 'POST',
        headers: { accept: 'text/html', 'accept-language': 'en', 'content-type': 'application/x-www-form-urlencoded', origin: site, 'sec-fetch-site': 'same-origin', cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...headers },
        body: params.toString(),
        redirect: 'manual',
      });
    }

    async function upload(browser: HttpBrowser, file: Buffer, name: string, type: string): Promise<Response> {
      const csrf = csrfOf(await (await browser.get('/lawyer/profile')).text());
      const body = new FormData();
      body.append('_csrf', csrf);
      body.append('photo', new Blob([new Uint8Array(file)], { type }), name);
      return fetch(`${site}/lawyer/profile/photo`, {
        method: 'POST',
        headers: { accept: 'text/html', 'accept-language': 'en', origin: site, 'sec-fetch-site': 'same-origin', cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        body,
        redirect: 'manual',
      });
    }

    it('signed out: every portal page sends to sign-in and comes back', async () => {
      const browser = new HttpBrowser(site);
      for (const path of ['/lawyer', '/lawyer/profile', '/lawyer/consultation', '/lawyer/calendar', '/lawyer/consultations', '/lawyer/earnings', '/lawyer/calendar-feed']) {
        const res = await browser.get(path);
        assert.equal(res.status, 303, path);
        assert.equal(res.headers.get('location'), `/sign-in?return_to=${encodeURIComponent(path)}`);
      }
    });

    it('signed in without a lawyer record: a page pointing to /join, and posts change nothing', async () => {
      const me = await signedIn();
      // One answer on every /lawyer page, the separately built areas included.
      for (const path of ['/lawyer', '/lawyer/profile', '/lawyer/calendar', '/lawyer/consultations', '/lawyer/earnings', '/lawyer/calendar-feed']) {
        const res = await me.browser.get(path);
        assert.equal(res.status, 403, path);
        const html = await res.text();
        assert.match(pageText(html), /This area is for lawyers on Consulta/);
        assert.match(html, /href="\/join"/);
      }
      const token = csrfOf(await (await me.browser.get('/account')).text());
      const res = await post(me.browser, '/lawyer/profile', PROFILE, token);
      assert.equal(res.status, 403);
      assert.equal(await server.app.services.lawyerPortal.forUser(me.userId), null);
    });

    it('the site header offers the portal to an account linked to a lawyer record, and to nobody else', async () => {
      const person = await signedIn();
      const theirs = await (await person.browser.get('/account')).text();
      assert.doesNotMatch(theirs, /Lawyer portal<\/a>/);
      assert.doesNotMatch(theirs, /<header[\s\S]*href="\/lawyer"[\s\S]*<\/header>/);
      const anon = await (await new HttpBrowser(site).get('/')).text();
      assert.doesNotMatch(anon, /href="\/lawyer"/);
      const me = await lawyer('en');
      const mine = await (await me.browser.get('/account')).text();
      assert.match(mine, /<a href="\/lawyer">Lawyer portal<\/a>/);
      const es = await lawyer('es');
      assert.match(await (await es.browser.get('/account')).text(), /<a href="\/lawyer">Portal del despacho<\/a>/);
      // Inside the portal the entry is marked as the current area.
      assert.match(await (await me.browser.get('/lawyer/earnings')).text(), /<a href="\/lawyer" aria-current="page">Lawyer portal<\/a>/);
    });

    it('every page in English and Spanish, with the portal navigation', async () => {
      for (const [language, words] of [
        ['en', { overview: /Your practice on Consulta/, profile: /Introduction in Spanish/, consultation: /Length of a consultation/, calendar: /Weekly hours[\s\S]*Minimum notice/ }],
        ['es', { overview: /Su despacho en Consulta/, profile: /Presentación en español/, consultation: /Duración de la consulta|duración/i, calendar: /Horario semanal[\s\S]*Antelación mínima/ }],
      ] as const) {
        const me = await lawyer(language);
        for (const [page, word] of Object.entries(words)) {
          const path = page === 'overview' ? '/lawyer' : `/lawyer/${page}`;
          const res = await me.browser.get(path);
          assert.equal(res.status, 200, `${language} ${path}`);
          const html = await res.text();
          assert.match(pageText(html), word, `${language} ${path}`);
          for (const href of ['/lawyer', '/lawyer/profile', '/lawyer/consultation', '/lawyer/calendar', '/lawyer/consultations', '/lawyer/earnings', '/lawyer/calendar-feed']) {
            assert.match(html, new RegExp(`href="${href}"`), `${language} ${path} links ${href}`);
          }
          assert.match(html, new RegExp(`href="${path}" aria-current="page"`));
        }
      }
    });

    it('overview: verified until, listed; an applicant sees what is missing with links to fix it', async () => {
      const me = await lawyer('en');
      const text = pageText(await (await me.browser.get('/lawyer')).text());
      assert.match(text, /Verified until \d+ [A-Z][a-z]+ 2027/);
      assert.match(text, /Listed: people find you/);

      const unlisted = await lawyer('en', { weekly_hours: [] });
      const html = await (await unlisted.browser.get('/lawyer')).text();
      assert.match(pageText(html), /Not listed[\s\S]*What is missing before you are listed[\s\S]*Your weekly hours\. Set your hours/);
      assert.match(html, /href="\/lawyer\/calendar#week"/);

      // Suspended with a reason: both shown.
      await dbx().updateTable('lawyers').set({ status: 'suspended', status_reason: 'Colegiación dada de baja' }).where('id', '=', unlisted.lawyer.id).execute();
      const suspended = pageText(await (await unlisted.browser.get('/lawyer')).text());
      assert.match(suspended, /Suspended[\s\S]*Reason Colegiación dada de baja/);
      assert.doesNotMatch(suspended, /Verification by the operator/, 'no promise of a verification to come');

      // An applicant: verification is what she waits for, and /join leads here.
      const applicant = await signedIn('en');
      await server.app.services.applications.apply({ userId: applicant.userId, email: `x-${n}@example.com` }, { name: 'Nueva Abogada', colegio: 'madrid', membershipNumber: '1', city: 'madrid', languages: ['es'], practiceAreas: ['residence'], fee: '50', consultationMinutes: '60', phone: 'on' });
      assert.match(await (await applicant.browser.get('/join')).text(), /href="\/lawyer"/);
      const waiting = pageText(await (await applicant.browser.get('/lawyer')).text());
      assert.match(waiting, /Application received: waiting for verification[\s\S]*Verification by the operator[\s\S]*Your weekly hours\. Set your hours/);
    });

    it('profile: post/redirect/get; errors come back with the summary and what she typed, escaped', async () => {
      const me = await lawyer('en');
      const ok = await post(me.browser, '/lawyer/profile', PROFILE);
      assert.equal(ok.status, 303);
      assert.equal(ok.headers.get('location'), '/lawyer/profile?saved=1');
      const page = await (await me.browser.get('/lawyer/profile?saved=1')).text();
      assert.match(pageText(page), /Saved\./);
      assert.match(page, /value="Amina Benali Ruiz"/);
      assert.match(page, /value="65,50"|value="65.50"/);
      assert.equal((await dbx().selectFrom('lawyers').select('consultation_fee_cents').where('id', '=', me.lawyer.id).executeTakeFirstOrThrow()).consultation_fee_cents, 6550);

      const bad = await post(me.browser, '/lawyer/profile', { ...PROFILE, name: '"><script>alert(1)</script>\u0007', fee: 'free', practice_areas: [] });
      assert.equal(bad.status, 422);
      const html = await bad.text();
      assert.match(html, /id="error-summary"[^>]*autofocus|autofocus[^>]*id="error-summary"/);
      assert.match(pageText(html), /Give your full name[\s\S]*Choose at least one practice area[\s\S]*Give a fee in euros/);
      assert.doesNotMatch(html, /<script>alert/);
      assert.match(html, /value="free"/);
      assert.equal((await dbx().selectFrom('lawyers').select('name').where('id', '=', me.lawyer.id).executeTakeFirstOrThrow()).name, 'Amina Benali Ruiz');
    });

    it('refuses a post without the CSRF token or from another site; nothing changes', async () => {
      const me = await lawyer('en');
      const forged = await post(me.browser, '/lawyer/profile', { ...PROFILE, name: 'Forged' }, 'not-a-token');
      assert.equal(forged.status, 403);
      const cross = await post(me.browser, '/lawyer/consultation', { consultation_minutes: '30', phone: 'on' }, undefined, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
      assert.equal(cross.status, 403);
      const row = await dbx().selectFrom('lawyers').select(['name', 'consultation_minutes']).where('id', '=', me.lawyer.id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { name: 'Lucía Fernández Ruiz', consultation_minutes: 60 });
    });

    it('attack: forms naming another lawyer change only her own record', async () => {
      const me = await lawyer('en');
      const victim = await lawyer('en');
      await server.app.services.lawyerCalendar.setOverride(victim.lawyer, { date: '2026-12-01', closed: true });
      const victimBefore = await dbx().selectFrom('lawyers').selectAll().where('id', '=', victim.lawyer.id).executeTakeFirstOrThrow();
      for (const field of ['id', 'lawyer_id', 'lawyerId']) {
        assert.equal((await post(me.browser, '/lawyer/profile', { ...PROFILE, name: `Hacked via ${field}`, [field]: victim.lawyer.id })).status, 303);
        assert.equal((await post(me.browser, '/lawyer/consultation', { consultation_minutes: '30', phone: 'on', [field]: victim.lawyer.id })).status, 303);
      }
      // Query strings are not read either.
      assert.equal((await post(me.browser, `/lawyer/profile?lawyer_id=${victim.lawyer.id}`, { ...PROFILE, name: 'Hacked via query' })).status, 303);
      // Removing "that date": her own override (she has none), never the victim's.
      assert.equal((await post(me.browser, '/lawyer/calendar/overrides/remove', { date: '2026-12-01', lawyer_id: victim.lawyer.id })).status, 404);
      const victimAfter = await dbx().selectFrom('lawyers').selectAll().where('id', '=', victim.lawyer.id).executeTakeFirstOrThrow();
      assert.deepEqual(victimAfter, victimBefore);
      assert.equal((await dbx().selectFrom('lawyer_date_exceptions').select('date').where('lawyer_id', '=', victim.lawyer.id).execute()).length, 1);
      const mine = await dbx().selectFrom('lawyers').select(['name', 'consultation_minutes']).where('id', '=', me.lawyer.id).executeTakeFirstOrThrow();
      assert.deepEqual(mine, { name: 'Hacked via query', consultation_minutes: 30 });
    });

    it('issue 25: a PNG declaring 60,000 × 60,000 pixels is refused before it is decoded, in words she can read; a photo with EXIF is served without it', async () => {
      const me = await lawyer('en');
      const bomb = pngDeclaring(60_000, 60_000);
      assert.ok(bomb.length < 2 * 1024 * 1024);
      const refused = await upload(me.browser, bomb, 'me.png', 'image/png');
      assert.equal(refused.status, 422);
      assert.match(pageText(await refused.text()), /This photo has too many pixels \(at most 40 megapixels\)/);
      assert.equal(await server.app.services.lawyerPortal.photoUrl(me.lawyer.id), null, 'nothing stored');

      // A camera photo: 1600 × 1200, with its GPS-bearing EXIF block and a comment.
      const camera = await sharp({ create: { width: 1600, height: 1200, channels: 3, background: '#3366aa' } })
        .jpeg()
        .withExif({ IFD0: { Copyright: 'Home: Calle Falsa 123', ImageDescription: 'secret-location' } })
        .toBuffer();
      assert.ok(camera.includes('secret-location'));
      const saved = await upload(me.browser, camera, 'me.jpg', 'image/jpeg');
      assert.equal(saved.status, 303);
      const src = /<img class="portal-photo" src="([^"]+)"/.exec(await (await me.browser.get('/lawyer')).text())?.[1];
      const bytes = Buffer.from(await (await fetch(`${site}${src}`)).arrayBuffer());
      assert.ok(!bytes.includes('secret-location') && !bytes.includes('Calle Falsa'), 'no metadata served');
      const meta = await sharp(bytes).metadata();
      assert.deepEqual([meta.format, meta.width, meta.height, meta.exif], ['jpeg', PHOTO_SIDE, PHOTO_SIDE, undefined]);
    });

    it('photo: a PNG is stored re-encoded (a fixed square JPEG) and served cacheable with its type and nosniff; SVG, text and > 2 MB are refused', async () => {
      const me = await lawyer('en');
      const res = await upload(me.browser, PNG, 'me.png', 'image/png');
      assert.equal(res.status, 303);
      assert.equal(res.headers.get('location'), '/lawyer/profile?saved=photo');
      const overview = await (await me.browser.get('/lawyer')).text();
      const src = /<img class="portal-photo" src="([^"]+)"/.exec(overview)?.[1];
      assert.ok(src, 'the overview shows her photo');
      const photo = await fetch(`${site}${src}`);
      assert.equal(photo.status, 200);
      assert.equal(photo.headers.get('content-type'), 'image/jpeg');
      assert.equal(photo.headers.get('x-content-type-options'), 'nosniff');
      assert.match(photo.headers.get('cache-control') ?? '', /public, max-age=31536000, immutable/);
      const served = await sharp(Buffer.from(await photo.arrayBuffer())).metadata();
      assert.deepEqual([served.format, served.width, served.height], ['jpeg', PHOTO_SIDE, PHOTO_SIDE]);
      assert.equal((await fetch(`${site}/lawyer-photos/${me.lawyer.id}/${'0'.repeat(32)}`, { headers: { accept: 'text/html' } })).status, 404);

      const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
      for (const [file, name, type] of [
        [svg, 'me.svg', 'image/svg+xml'],
        [svg, 'me.png', 'image/png'],
        [Buffer.from('hello'), 'me.jpg', 'image/jpeg'],
        [Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]), 'big.png', 'image/png'],
      ] as const) {
        const refused = await upload(me.browser, file, name, type);
        assert.equal(refused.status, 422, name);
        assert.match(pageText(await refused.text()), /Choose a JPEG, PNG or WebP photo of at most 2 MB/);
      }
      assert.equal(await server.app.services.lawyerPortal.photoUrl(me.lawyer.id), src, 'unchanged by the refused files');

      const removed = await post(me.browser, '/lawyer/profile/photo/remove', {});
      assert.equal(removed.status, 303);
      assert.equal(await server.app.services.lawyerPortal.photoUrl(me.lawyer.id), null);
    });

    it('consultation: saved without JavaScript; no format is refused with the summary', async () => {
      const me = await lawyer('en');
      assert.equal((await post(me.browser, '/lawyer/consultation', { consultation_minutes: '90', video_url: 'https://meet.example.com/x', office_address: 'Gran Vía 1, Madrid' })).status, 303);
      const offer = await server.app.services.lawyerPortal.offer(me.lawyer);
      assert.deepEqual([offer.consultationMinutes, offer.formats], [90, ['video', 'in_person']]);
      const bad = await post(me.browser, '/lawyer/consultation', { consultation_minutes: '90', video_url: 'http://meet.example.com/x' });
      assert.equal(bad.status, 422);
      assert.match(pageText(await bad.text()), /must be a full https:\/\/ address/);
    });

    it('calendar: the week with several ranges, copy Monday to weekdays, errors per day, overrides added and removed', async () => {
      const me = await lawyer('en');
      const week: Form = { notice_minutes: '240', buffer_minutes: '15', horizon_days: '30', timezone: 'Europe/Madrid', w1_0_start: '09:00', w1_0_end: '13:00', w1_1_start: '15:00', w1_1_end: '18:00', w6_0_start: '10:00', w6_0_end: '12:00' };
      assert.equal((await post(me.browser, '/lawyer/calendar', { ...week, copy_monday: '1' })).status, 303);
      const view = await server.app.services.lawyerCalendar.calendar(me.lawyer);
      for (const d of [1, 2, 3, 4, 5]) assert.deepEqual(view.week[d], [{ start: '09:00', end: '13:00' }, { start: '15:00', end: '18:00' }], `weekday ${d}`);
      assert.deepEqual(view.week[6], [{ start: '10:00', end: '12:00' }]);
      assert.deepEqual(view.week[7], []);
      assert.equal(view.bufferMinutes, 15);
      const page = await (await me.browser.get('/lawyer/calendar?saved=1')).text();
      // Time fields stepping by quarter hours, with their labels: no select of 96 options per field.
      assert.match(page, /<input id="f-w3_1_start" name="w3_1_start" type="time" step="900" value="15:00"/);
      assert.match(page, /<label for="f-w3_1_start">From<\/label>/);
      assert.doesNotMatch(page, /<option[^>]*>\d\d:\d\d<\/option>/);
      assert.ok(Buffer.byteLength(page) < 40_000, `the calendar page is ${Buffer.byteLength(page)} bytes`);

      const bad = await post(me.browser, '/lawyer/calendar', { ...week, w2_0_start: '09:00', w2_0_end: '12:00', w2_1_start: '11:00', w2_1_end: '14:00' });
      assert.equal(bad.status, 422);
      const html = await bad.text();
      assert.match(pageText(html), /Check the hours of Tuesday/);
      assert.match(html, /href="#day-2"/);
      assert.match(html, /<input id="f-w2_1_start" name="w2_1_start" type="time" step="900" value="11:00"/, 'typed values kept');
      // The step only guides the browser: the server still refuses a time off the quarter hour, and keeps what was typed.
      const offQuarter = await post(me.browser, '/lawyer/calendar', { ...week, w4_0_start: '09:10', w4_0_end: '13:00' });
      assert.equal(offQuarter.status, 422);
      const offHtml = await offQuarter.text();
      assert.match(pageText(offHtml), /Check the hours of Thursday/);
      assert.match(offHtml, /<input id="f-w4_0_start" name="w4_0_start" type="time" step="900" value="09:10" aria-invalid="true"/);
      assert.deepEqual((await server.app.services.lawyerCalendar.calendar(me.lawyer)).week[4], [{ start: '09:00', end: '13:00' }, { start: '15:00', end: '18:00' }], 'nothing saved');

      assert.equal((await post(me.browser, '/lawyer/calendar/overrides', { date: '2026-12-01', kind: 'closed' })).status, 303);
      assert.equal((await post(me.browser, '/lawyer/calendar/overrides', { date: '2026-12-02', kind: 'hours', o_0_start: '16:00', o_0_end: '18:00' })).status, 303);
      const past = await post(me.browser, '/lawyer/calendar/overrides', { date: '2026-11-01', kind: 'closed' });
      assert.equal(past.status, 422);
      assert.match(pageText(await past.text()), /Choose a date from today up to/);
      const listed = pageText(await (await me.browser.get('/lawyer/calendar')).text()).split('Days off and changed hours')[1] ?? '';
      assert.match(listed, /1 December 2026 ?: Closed Remove[\s\S]*2 December 2026 ?: 16:00–18:00/, listed.slice(0, 300));
      assert.equal((await post(me.browser, '/lawyer/calendar/overrides/remove', { date: '2026-12-01' })).status, 303);
      assert.deepEqual((await server.app.services.lawyerCalendar.calendar(me.lawyer)).overrides.map((o) => o.date), ['2026-12-02']);
    });
  });
}
