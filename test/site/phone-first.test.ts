/**
 * Phone first (docs/site.md, "Phone first"), over real HTTP on loopback: the home page's "what do
 * you need help with" field suggests practice areas with the MCP tool's function, in Spanish and
 * in English, and links to the filtered search; hostile text is escaped, bounded and never a 500.
 * After a search the filters fold into a one-line summary, and each card holds its first three
 * free times directly (the free-times page's POST, with CSRF), from the availability cache.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { practiceAreaName } from '../../src/i18n/reference.ts';
import { NEED_MAX_CHARS } from '../../src/site/home/home.page.tsx';
import { createTestContext, type TestContext } from '../support/app.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets } from '../support/databases.ts';
import { EVERY_DAY_9_TO_14 } from '../support/booking.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { HttpBrowser, hiddenFields } from '../support/http-browser.ts';
import { pageText } from '../support/site.ts';

for (const target of databaseTargets()) {
  describe(`phone first over real HTTP (${target.name})`, () => {
    let ctx: TestContext;
    let site: string;
    let pablo: string;
    const get = async (path: string, language = 'es') => {
      const res = await fetch(new URL(path, site), { headers: { accept: 'text/html', 'accept-language': language }, redirect: 'manual' });
      return { status: res.status, body: await res.text() };
    };

    before(async () => {
      const port = await freePort();
      site = `http://127.0.0.1:${port}`;
      ctx = await createTestContext(target, { config: { siteUrl: site, baseUrl: `${site}/api/v1` } });
      [, pablo] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Nadia Benali Ortega', city: 'madrid', practice_areas: [{ slug: 'family-reunification', is_primary: true }], weekly_hours: EVERY_DAY_9_TO_14 }),
        lawyerRecord({ name: 'Pablo Ruiz Gómez', city: 'madrid', practice_areas: [{ slug: 'residence-renewals', is_primary: true }], weekly_hours: EVERY_DAY_9_TO_14 }),
      ])) as [string, string];
      ctx.app.services.directoryCache.invalidate();
      await ctx.app.fastify.listen({ port, host: '127.0.0.1' });
    });
    after(async () => ctx?.close());

    it('suggests areas from Spanish text, named in Spanish, each a link to the filtered search', async () => {
      const page = await get(`/?${new URLSearchParams({ q: 'Mi tarjeta de residencia caduca el mes que viene' })}`);
      assert.equal(page.status, 200);
      assert.match(page.body, /<html lang="es"/);
      assert.match(page.body, /<label for="f-q">Cuéntanos tu situación<\/label>/, 'a visible label');
      assert.match(page.body, /<form method="get" action="\/" class="need-form">/, 'a GET form: no JavaScript needed');
      const renewals = practiceAreaName('es', 'residence-renewals', '');
      assert.ok(renewals && renewals !== 'residence-renewals');
      assert.match(page.body, new RegExp(`<a class="button secondary" href="/\\?practice_area=residence-renewals">${renewals}</a>`));
      // The link is the search filtered by that area: the lawyer who does renewals, not the other.
      const results = pageText((await get('/?practice_area=residence-renewals')).body);
      assert.match(results, /Pablo Ruiz Gómez/);
      assert.doesNotMatch(results, /Nadia Benali Ortega/);
    });

    it('suggests areas from English text on the English page', async () => {
      const page = await get(`/?${new URLSearchParams({ q: 'I want to bring my wife and children to Spain (family reunification)', lang: 'en' })}`, 'en');
      assert.equal(page.status, 200);
      assert.match(page.body, /<html lang="en"/);
      assert.match(page.body, /href="\/\?practice_area=family-reunification">Family reunification<\/a>/);
      const text = pageText(page.body);
      assert.match(text, /Areas that match “I want to bring my wife/);
      const none = pageText((await get('/?q=zzzz+qqqq&lang=en', 'en')).body);
      assert.match(none, /could not tell the area/, 'no match says so and points to the list');
    });

    it('escapes and bounds hostile text, and never answers 500', async () => {
      const attack = `"><script>alert(1)</script><img src=x onerror=alert(2)>${'renovar '.repeat(800)}`;
      const page = await get(`/?${new URLSearchParams({ q: attack })}`);
      assert.equal(page.status, 200);
      assert.ok(!/<script>alert|<img src=x/.test(page.body), 'never as markup');
      assert.ok(/&lt;script>alert\(1\)&lt;\/script>|&lt;script&gt;alert\(1\)&lt;\/script&gt;/.test(page.body), 'shown as text');
      const value = /id="f-q" name="q" type="text" value="([^"]*)"/.exec(page.body)?.[1];
      assert.ok(value !== undefined, 'the text is shown back in the field');
      assert.ok(value.replace(/&[a-z]+;|&#\d+;/g, '_').length <= NEED_MAX_CHARS, 'bounded to the length read');
      assert.ok(pageText(page.body).includes(`primeros ${NEED_MAX_CHARS} caracteres`), 'says the text was cut');
      for (const odd of ['/?q=a&q=b', '/?q=%00%01', '/?q=%ED%A0%80', '/?q=%F0%9F%98%80%E2%80%AE', `/?q=${'%D8%A7'.repeat(3000)}`, '/?q[a]=1', '/?q=+++']) {
        const res = await get(odd);
        assert.ok(res.status < 500, `${odd}: ${res.status}`);
      }
    });

    it('folds the filters into a one-line summary after a search, results first; before a search and on errors the form is open', async () => {
      const area = practiceAreaName('es', 'residence-renewals', '');
      const searched = await get('/?city=madrid&practice_area=residence-renewals');
      assert.equal(searched.status, 200);
      const details = /<details class="search-filters">\s*<summary>([^<]*)<\/summary>/.exec(searched.body);
      assert.ok(details, 'the filters are folded (closed: no open attribute)');
      assert.equal(details[1], `Cambiar la búsqueda: Madrid · ${area}`);
      assert.ok(searched.body.indexOf('class="search-filters"') < searched.body.indexOf('id="results-heading"'), 'one line, then the results');
      assert.doesNotMatch(searched.body, /class="need-form"/, 'the free-text box gives way to the results');
      const home = await get('/');
      assert.doesNotMatch(home.body, /<details class="search-filters"/);
      assert.match(home.body, /class="need-form"/);
      const bad = await get('/?max_fee_eur=abc');
      assert.equal(bad.status, 400);
      assert.doesNotMatch(bad.body, /<details class="search-filters"/, 'a field to fix is never hidden');
      const english = await get('/?city=madrid&lang=en', 'en');
      assert.match(english.body, /<summary>Change search: Madrid<\/summary>/);
    });

    it('shows each card its next three free times, which hold directly with CSRF; a double tap holds once, another time is a new hold', async () => {
      const browser = new HttpBrowser(site, 'es');
      const page = await browser.get('/?practice_area=residence-renewals');
      const html = await page.text();
      const directory = ctx.app.services.directory;
      const expected = await directory.getAvailability(pablo, {});
      const first = expected.slots.filter((x) => x.available).slice(0, 3);
      assert.equal(first.length, 3);
      const action = new RegExp(`^/lawyers/${pablo}/book$`);
      const form = hiddenFields(html, action);
      assert.ok(form._csrf && form.nonce, 'the card form carries a CSRF token and the nonce');
      const values = [...html.matchAll(new RegExp(`name="slot" value="([^"]+)"`, 'g'))].map((m) => m[1]);
      assert.deepEqual(values, first.map((x) => `${x.date}|${x.start_time}|${x.end_time}`), 'the first three free times, in order');
      assert.match(html, /aria-label="[a-zé]+\.? \d{1,2} \d\d:\d\d: Elegir el [^"]+ a las \d\d:\d\d"/, 'each button says what it holds, after its visible text (weekday, day, time)');
      const english = await (await fetch(new URL('/?practice_area=residence-renewals&lang=en', site), { headers: { accept: 'text/html' } })).text();
      assert.match(english, />\s*(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2} \d\d:\d\d\s*</, 'weekday first in English too');
      // The cards read the directory's availability cache: the same answer object while fresh.
      const next = first[0]!.date;
      assert.equal(await directory.firstFreeSlots(pablo, next), await directory.firstFreeSlots(pablo, next));

      // The attack first: without the token, or from another site, nothing is held.
      const { __action: _a, _csrf, ...rest } = form;
      const noToken = await browser.post(`/lawyers/${pablo}/book`, { ...rest, slot: values[0]! });
      assert.equal(noToken.status, 403);
      const crossSite = await fetch(new URL(`/lawyers/${pablo}/book`, site), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', cookie: [...browser.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        body: new URLSearchParams({ ...rest, _csrf: _csrf!, slot: values[0]! }).toString(),
        redirect: 'manual',
      });
      assert.equal(crossSite.status, 403);
      const holds = async () => (await ctx.database.db.selectFrom('booking_intents').select('id').where('lawyer_id', '=', pablo).execute()).length;
      assert.equal(await holds(), 0);

      const held = await browser.post(`/lawyers/${pablo}/book`, { ...rest, _csrf: _csrf!, slot: values[0]! });
      assert.equal(held.status, 303);
      const again = await browser.post(`/lawyers/${pablo}/book`, { ...rest, _csrf: _csrf!, slot: values[0]! });
      assert.equal(again.headers.get('location'), held.headers.get('location'), 'a double tap holds once');
      const other = await browser.post(`/lawyers/${pablo}/book`, { ...rest, _csrf: _csrf!, slot: values[1]! });
      assert.equal(other.status, 303, 'going back and choosing another time is a new hold, not a reused key');
      assert.notEqual(other.headers.get('location'), held.headers.get('location'));
      assert.equal(await holds(), 2);
    });
  });
}
