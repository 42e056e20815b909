/**
 * Holding without getting locked out (issue 20 item 6; docs/booking-intents.md#holding-on-the-site),
 * over real HTTP on loopback, on both databases, with the real hourly limit (5 new holds an hour
 * per address): another time with a lawyer the browser (its holds cookie) or the signed-in person
 * already holds one with replaces that hold in one transaction and does not count; if the new
 * time is taken the old hold stays and the page says so; "Choose another time" lets the hold go
 * (POST with CSRF) and returns to the free times; the limit still stops hoarding across lawyers
 * and cycling one lawyer never keeps two holds; the limit page says what happened and lists the
 * holds. Attacks: another browser cannot let a hold go (404), nor without the form's token (403);
 * an API hold is never replaced nor let go from the site.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { messages } from '../../src/i18n/index.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { freePort } from '../support/browser.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { HttpBrowser, hiddenFields } from '../support/http-browser.ts';
import { pageText } from '../support/site.ts';

const DAY = '2026-11-25';
/** The token of a hold page's address (`/confirm/{token}?…`). */
const tok = (location: string) => location.split('?')[0]!.split('/').pop()!;
const LIMIT = 5;

for (const target of databaseTargets()) {
  describe(`holding without getting locked out, over real HTTP (${target.name})`, () => {
    let ctx: TestContext;
    let site: string;
    let lawyers: string[];
    let ip = 0;

    before(async () => {
      const port = await freePort();
      site = `http://127.0.0.1:${port}`;
      ctx = await createTestContext(target, { config: { siteUrl: site, baseUrl: `${site}/api/v1`, rateLimitMultiplier: 1, trustProxy: ['127.0.0.1'] } });
      lawyers = (await insertLawyers(
        ctx.database,
        Array.from({ length: 9 }, (_, i) => lawyerRecord({ name: `Abogada Número ${i + 1}`, weekly_hours: EVERY_DAY_9_TO_14 })),
      )) as string[];
      ctx.app.services.directoryCache.invalidate();
      await ctx.app.fastify.listen({ port, host: '127.0.0.1' });
    });
    after(async () => ctx?.close());

    /** A browser of its own client address (the hourly limit counts per address). */
    const browser = (lang = 'en') => new HttpBrowser(site, lang, { 'x-forwarded-for': `198.51.100.${++ip}` });

    async function freeTimes(b: HttpBrowser, lawyer: string, day = DAY) {
      const res = await b.get(`/lawyers/${lawyer}/book?week=${day}&day=${day}`);
      const html = await res.text();
      assert.equal(res.status, 200);
      const fields = hiddenFields(html, new RegExp(`^/lawyers/${lawyer}/book$`));
      const slots = [...html.matchAll(/name="slot" value="([^"]+)"/g)].map((m) => m[1]!);
      return { fields, slots, html };
    }

    /** Holds `lawyer` at `time` on DAY from the free-times page, as a person's tap does. */
    async function holdAt(b: HttpBrowser, lawyer: string, time: string) {
      const { fields, slots } = await freeTimes(b, lawyer);
      const slot = slots.find((s) => s.startsWith(`${DAY}|${time}`));
      assert.ok(slot, `${time} is offered`);
      const res = await b.post(`/lawyers/${lawyer}/book`, { _csrf: fields._csrf!, nonce: fields.nonce!, slot });
      return { res, body: await res.text(), location: res.headers.get('location') ?? '' };
    }

    const intent = (token: string) => ctx.database.db.selectFrom('booking_intents').selectAll().where('confirmation_token', '=', token).executeTakeFirstOrThrow();
    const holdRows = (id: string) => ctx.database.db.selectFrom('slot_holds').select('booking_intent_id').where('booking_intent_id', '=', id).execute();
    const pendingWith = async (lawyer: string, tokens: string[]) =>
      (await ctx.database.db.selectFrom('booking_intents').select('id').where('lawyer_id', '=', lawyer).where('status', '=', 'pending').where('confirmation_token', 'in', tokens).execute()).length;

    it('another time with the same lawyer replaces the hold (old one ended, its time freed) and never counts: cycling 8 times keeps one hold', async () => {
      const b = browser();
      const lawyer = lawyers[0]!;
      const first = await holdAt(b, lawyer, '09:00');
      assert.equal(first.res.status, 303);
      assert.match(first.location, /^\/confirm\/[A-Za-z0-9_-]+$/);
      assert.ok([...b.cookies.keys()].includes(siteCookies(site).holds), 'the holds cookie is set');
      const tokens = [tok(first.location)];
      const times = ['10:00', '11:00', '12:00', '13:00', '09:00', '10:00', '11:00', '12:00'];
      for (const time of times) {
        const next = await holdAt(b, lawyer, time);
        assert.equal(next.res.status, 303, `replacing with ${time}: ${pageText(next.body).slice(0, 200)}`);
        assert.match(next.location, /\?replaced=1$/);
        const previous = await intent(tokens.at(-1)!);
        assert.equal(previous.status, 'expired', 'the earlier hold ended');
        assert.deepEqual(await holdRows(previous.id), [], 'its time freed');
        tokens.push(tok(next.location));
        assert.equal(await pendingWith(lawyer, tokens), 1, 'never two holds with her');
      }
      const page = await b.get(`/confirm/${tokens.at(-1)}?replaced=1`);
      assert.match(pageText(await page.text()), new RegExp(messages('en').holdLimit.replaced.slice(0, 40)));
      // Eight replacements did not use the hourly limit: five new lawyers still go.
      for (const other of lawyers.slice(1, 1 + LIMIT - 1)) assert.equal((await holdAt(b, other, '09:00')).res.status, 303);
    });

    it('if the new time is taken meanwhile, the old hold stays and the page says so', async () => {
      const a = browser();
      const other = browser();
      const lawyer = lawyers[5]!;
      const mine = await holdAt(a, lawyer, '09:00');
      const stale = await freeTimes(a, lawyer);
      assert.equal((await holdAt(other, lawyer, '10:00')).res.status, 303, 'someone else takes 10:00');
      const res = await a.post(`/lawyers/${lawyer}/book`, { _csrf: stale.fields._csrf!, nonce: stale.fields.nonce!, slot: stale.slots.find((s) => s.startsWith(`${DAY}|10:00`))! });
      assert.equal(res.status, 303);
      const token = tok(mine.location);
      assert.equal(res.headers.get('location'), `/confirm/${token}?taken=1`);
      assert.equal((await intent(token)).status, 'pending', 'the old hold is kept');
      assert.equal((await holdRows((await intent(token)).id)).length, 1);
      const page = pageText(await (await a.get(`/confirm/${token}?taken=1`)).text());
      assert.match(page, /Someone else took the time you chose/);
    });

    it('the limit stops hoarding across lawyers; the limit page says what happened and lists the holds; letting one go there frees a replacement', async () => {
      const b = browser();
      const held: string[] = [];
      for (const lawyer of lawyers.slice(0, LIMIT)) {
        const r = await holdAt(b, lawyer, '13:00');
        assert.equal(r.res.status, 303, pageText(r.body).slice(0, 200));
        held.push(tok(r.location));
      }
      const refused = await holdAt(b, lawyers[LIMIT]!, '13:00');
      assert.equal(refused.res.status, 429);
      assert.ok(Number(refused.res.headers.get('retry-after')) > 0);
      const text = pageText(refused.body);
      assert.match(text, /No new holds for now/);
      assert.match(text, /From this connection, 5 new holds were made in the last hour/);
      assert.match(text, /You already hold a time with 5 lawyers\. Finish one of them/);
      for (const token of held) assert.ok(refused.body.includes(`href="/confirm/${token}"`), 'each hold is linked');
      for (const lawyer of lawyers.slice(0, LIMIT)) assert.ok(text.includes(`Abogada Número ${lawyers.indexOf(lawyer) + 1}`));
      assert.match(text, /Hold a time with another lawyer in \d+ minutes?\./);
      assert.equal(await ctx.database.db.selectFrom('booking_intents').select('id').where('lawyer_id', '=', lawyers[LIMIT]!).where('confirmation_token', 'not in', held).where('status', '=', 'pending').where('client_ip', '=', `198.51.100.${ip}`).execute().then((r) => r.length), 0, 'nothing held for the refused one');

      // Without its cookie the same address is still refused: the limit counts the address.
      const cookieless = new HttpBrowser(site, 'en', { 'x-forwarded-for': `198.51.100.${ip}` });
      assert.equal((await holdAt(cookieless, lawyers[LIMIT + 1]!, '13:00')).res.status, 429);

      // Another time with a lawyer already held: a replacement, not refused.
      const swap = await holdAt(b, lawyers[0]!, '10:00');
      assert.equal(swap.res.status, 303);
      held[0] = tok(swap.location);

      // Let one go from the limit page (its form), then choose another time with her: not counted.
      const page = await holdAt(b, lawyers[LIMIT]!, '13:00');
      const form = hiddenFields(page.body, new RegExp(`^/confirm/${held[1]}/release$`));
      const released = await b.post(form.__action!, { _csrf: form._csrf! });
      assert.equal(released.status, 303);
      assert.equal(released.headers.get('location'), `/lawyers/${lawyers[1]}/book?week=${DAY}&day=${DAY}`);
      assert.equal((await intent(held[1]!)).status, 'expired');
      assert.equal((await holdAt(b, lawyers[1]!, '11:00')).res.status, 303, 'a hold with a lawyer let go within the hour is not a new one');
      assert.equal((await holdAt(b, lawyers[LIMIT]!, '13:00')).res.status, 429, 'a new lawyer is still refused');
    });

    it('"Choose another time" lets the hold go (CSRF) and shows her free times with that time free again', async () => {
      const b = browser('es');
      const lawyer = lawyers[6]!;
      const r = await holdAt(b, lawyer, '11:00');
      const token = tok(r.location);
      const html = await (await b.get(`/confirm/${token}`)).text();
      assert.match(pageText(html), /Elegir otra hora/);
      assert.match(pageText(html), /Libera esta hora/);
      const before = await freeTimes(browser(), lawyer);
      assert.ok(!before.slots.some((s) => s.startsWith(`${DAY}|11:00`)), 'held: not offered');
      const form = hiddenFields(html, new RegExp(`^/confirm/${token}/release$`));
      const res = await b.post(form.__action!, { _csrf: form._csrf! });
      assert.equal(res.status, 303);
      const back = await b.get(res.headers.get('location')!);
      assert.equal(back.status, 200);
      assert.ok((await freeTimes(b, lawyer)).slots.some((s) => s.startsWith(`${DAY}|11:00`)), 'offered again');
      assert.equal((await intent(token)).status, 'expired');
      // Letting it go again changes nothing: back to its page.
      const again = await b.post(form.__action!, { _csrf: form._csrf! });
      assert.equal(again.status, 303);
      assert.equal(again.headers.get('location'), `/confirm/${token}`);
    });

    it('attacks: another browser cannot let a hold go (404, no form shown), nor a form without its token (403), nor a cross-site post (403)', async () => {
      const owner = browser();
      const lawyer = lawyers[7]!;
      const token = tok((await holdAt(owner, lawyer, '09:00')).location);
      const stranger = browser();
      const seen = await (await stranger.get(`/confirm/${token}`)).text();
      assert.ok(!seen.includes(`/confirm/${token}/release`), 'no "Choose another time" for someone else’s hold');
      // The stranger's own valid CSRF token, from a page of theirs.
      const csrf = (await freeTimes(stranger, lawyer)).fields._csrf!;
      const attempt = await stranger.post(`/confirm/${token}/release`, { _csrf: csrf });
      assert.equal(attempt.status, 404);
      assert.equal((await intent(token)).status, 'pending');
      // The owner, without the form's token, or from another site.
      assert.equal((await owner.post(`/confirm/${token}/release`, {})).status, 403);
      const ownForm = hiddenFields(await (await owner.get(`/confirm/${token}`)).text(), new RegExp(`^/confirm/${token}/release$`));
      const crossSite = await fetch(new URL(`/confirm/${token}/release`, site), {
        method: 'POST',
        redirect: 'manual',
        headers: { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', cookie: [...owner.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
        body: new URLSearchParams({ _csrf: ownForm._csrf! }).toString(),
      });
      assert.equal(crossSite.status, 403);
      assert.equal((await intent(token)).status, 'pending');
      // Malformed tokens: the 404 page, never a 500.
      for (const bad of ['x', 'a'.repeat(200), '%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00%00']) {
        const res = await owner.post(`/confirm/${bad}/release`, { _csrf: ownForm._csrf! });
        assert.ok(res.status === 404, `${bad.slice(0, 10)}: ${res.status}`);
      }
    });

    it('an API hold is never replaced by the site, nor let go from it, even with its token in the cookie', async () => {
      const lawyer = lawyers[8]!;
      const api = await initiate(ctx, slotBody(lawyer, DAY, '09:00'), { remoteAddress: '203.0.113.9' });
      assert.equal(api.statusCode, 201, api.body);
      const apiToken = tokenOf(api.json().confirmation_url);
      const b = browser();
      b.cookies.set(siteCookies(site).holds, apiToken);
      const r = await holdAt(b, lawyer, '10:00');
      assert.equal(r.res.status, 303);
      assert.doesNotMatch(r.location, /replaced/);
      assert.equal((await intent(apiToken)).status, 'pending', 'the API hold stands');
      const csrf = (await freeTimes(b, lawyer)).fields._csrf!;
      assert.equal((await b.post(`/confirm/${apiToken}/release`, { _csrf: csrf })).status, 404);
      assert.equal((await intent(apiToken)).status, 'pending');
    });

    it('signed in, the person’s hold is recognised from another browser: replaced there, and only they may let it go', async () => {
      const user = await ctx.app.services.accounts.ensureUser(`holder-${target.name}@example.com`);
      const signIn = async (b: HttpBrowser) => b.cookies.set(siteCookies(site).session, (await ctx.app.services.sessions.create(user.id, { ip: '127.0.0.1' })).token);
      const phone = browser();
      const laptop = browser();
      await signIn(phone);
      await signIn(laptop);
      const lawyer = lawyers[4]!;
      const first = tok((await holdAt(phone, lawyer, '11:00')).location);
      assert.equal((await intent(first)).held_for_user_id, user.id, 'signed in: the hold is theirs alone');
      const second = await holdAt(laptop, lawyer, '12:00');
      assert.match(second.location, /\?replaced=1$/, 'the other browser replaced it: same person');
      assert.equal((await intent(first)).status, 'expired');
      const token = tok(second.location);
      // The phone (signed in as them, without the token in its cookie) may let it go; a stranger may not.
      const stranger = browser();
      const strangerCsrf = (await freeTimes(stranger, lawyer)).fields._csrf!;
      assert.equal((await stranger.post(`/confirm/${token}/release`, { _csrf: strangerCsrf })).status, 404);
      const phoneCsrf = (await freeTimes(phone, lawyer)).fields._csrf!;
      assert.equal((await phone.post(`/confirm/${token}/release`, { _csrf: phoneCsrf })).status, 303);
      assert.equal((await intent(token)).status, 'expired');
    });
    it('two replacements at once from one browser: at most one hold with the lawyer remains', async () => {
      const b = browser();
      const lawyer = lawyers[6]!;
      const first = tok((await holdAt(b, lawyer, '09:00')).location);
      const page = await freeTimes(b, lawyer);
      const slot = (time: string) => page.slots.find((s) => s.startsWith(`${DAY}|${time}`))!;
      const [x, y] = await Promise.all([
        b.post(`/lawyers/${lawyer}/book`, { _csrf: page.fields._csrf!, nonce: page.fields.nonce!, slot: slot('10:00') }),
        b.post(`/lawyers/${lawyer}/book`, { _csrf: page.fields._csrf!, nonce: page.fields.nonce!, slot: slot('12:00') }),
      ]);
      const statuses = [x.status, y.status].sort();
      assert.ok(statuses.includes(303), `one of them holds: ${statuses.join(', ')}`);
      assert.ok(statuses.every((st) => st === 303 || st === 409), `never a 500: ${statuses.join(', ')}`);
      const pending = await ctx.database.db.selectFrom('booking_intents').select('id').where('lawyer_id', '=', lawyer).where('status', '=', 'pending').where('client_ip', '=', `198.51.100.${ip}`).execute();
      assert.equal(pending.length, 1, 'one hold with her, never two');
      assert.equal((await intent(first)).status, 'expired');
    });
  });
}
