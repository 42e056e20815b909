/**
 * The booking path without JavaScript (issue 19 items 2, 5, 6), over app.inject on both databases:
 * the time-zone chooser and its cookie (bad zones ignored, never a 500), the visitor's time beside
 * the lawyer's and the time left worded as time left; the sign-in code page that keeps the held
 * booking in view with a resend button and its limit; and the checkout that keeps what was typed
 * after a refused card, except the CVC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { addDays } from '../../src/zoned-time.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText, SiteClient } from '../support/site.ts';

const SITE = 'https://consulta.example';
const LAWYER_NAME = 'Nadia El Amrani';

for (const target of databaseTargets()) {
  describe(`the booking path without JavaScript (${target.name})`, () => {
    let ctx: TestContext;
    let lawyer: string;
    let day = 0;
    let ip = 0;

    before(async () => {
      ctx = await createTestContext(target, { config: { siteUrl: SITE, baseUrl: `${SITE}/api/v1`, rateLimitMultiplier: 1, trustProxy: ['127.0.0.1'] } });
      [lawyer] = (await insertLawyers(ctx.database, [lawyerRecord({ name: LAWYER_NAME, weekly_hours: EVERY_DAY_9_TO_14, consultation_fee_cents: 7300 })])) as [string];
    });
    after(async () => ctx?.close());

    /** A browser of its own client address (the sign-in limits count per address too). */
    const browser = (lang: 'en' | 'es' = 'en') => new SiteClient(ctx.app.fastify, SITE, { 'accept-language': lang, 'x-forwarded-for': `198.51.100.${++ip}` });

    /** A REST hold at 11:00 Madrid on a day of its own; its token. */
    async function hold(): Promise<string> {
      const res = await initiate(ctx, slotBody(lawyer, addDays('2026-11-25', day++), '11:00'), { remoteAddress: `192.0.2.${day}` });
      assert.equal(res.statusCode, 201, res.body);
      return tokenOf(res.json().confirmation_url);
    }

    describe('time zones', () => {
      it('the chooser remembers a valid zone in a cookie and goes back; the free times then show the visitor\'s time under the lawyer\'s', async () => {
        const c = browser();
        const before = await c.get(`/lawyers/${lawyer}/book`);
        assert.equal(before.statusCode, 200);
        assert.match(pageText(before.body), /Times are shown in the lawyer's time \(mainland Spain time\)/);
        assert.match(before.body, /<form method="post" action="\/time-zone"/);
        const res = await c.post('/time-zone', { zone: 'Atlantic/Canary', return_to: `/lawyers/${lawyer}/book` });
        assert.equal(res.statusCode, 303);
        assert.equal(res.headers.location, `/lawyers/${lawyer}/book`);
        const set = ([] as string[]).concat(res.headers['set-cookie'] ?? []).find((h) => h.startsWith('consulta_tz='));
        assert.ok(set, 'the zone cookie');
        assert.match(set, /^consulta_tz=Atlantic(%2F|\/)Canary;/);
        assert.match(set, /SameSite=Lax/);
        assert.match(set, /Secure/);
        assert.match(set, /Max-Age=31536000/);
        const after = await c.get(`/lawyers/${lawyer}/book`);
        const text = pageText(after.body);
        assert.match(text, /Your time zone: Canary Islands time/);
        assert.match(text, /Each time is the lawyer's \(mainland Spain time\); below it, the same moment in your time \(Canary Islands time\)/);
        // 11:00 in Madrid is 10:00 in the Canaries: the button says both, and so does its label.
        assert.match(after.body, /<span class="visually-hidden">Hold [^<]+ at <\/span>11:00 <span class="slot-yours">10:00 yours<\/span>/);
        assert.match(text, /11:00 10:00 yours/);
      });

      it('in Spanish the zones are said as people say them', async () => {
        const c = browser('es');
        c.cookies.set('consulta_tz', 'Atlantic%2FCanary');
        const text = pageText((await c.get(`/lawyers/${lawyer}/book`)).body);
        assert.match(text, /Cada hora es la del despacho \(hora peninsular\); debajo, el mismo momento en tu zona \(hora de Canarias\)/);
        assert.match(text, /11:00 10:00 en tu zona/);
        // Auckland is 12 hours ahead in November: 11:00 in Madrid is 23:00 there, 12:00 is midnight, the next day.
        c.cookies.set('consulta_tz', 'Pacific%2FAuckland');
        const far = pageText((await c.get(`/lawyers/${lawyer}/book`)).body);
        assert.match(far, /a las 11:00 23:00 en tu zona Apartar el [^:]+ a las 12:00 00:00 \(\+1 día\) en tu zona/);
      });

      it('a zone with the same time as the lawyer\'s adds nothing; an unknown or malformed zone is ignored, never an error', async () => {
        const paris = browser();
        paris.cookies.set('consulta_tz', 'Europe%2FParis');
        const same = await paris.get(`/lawyers/${lawyer}/book`);
        assert.equal(same.statusCode, 200);
        assert.doesNotMatch(pageText(same.body), /yours|your time\)/);
        for (const bad of ['Mars/Olympus_Mons', '../../etc/passwd', '<script>alert(1)</script>', 'x'.repeat(300), 'Europe/Madrid;Path=/', '']) {
          const c = browser();
          await c.get(`/lawyers/${lawyer}/book`);
          const res = await c.post('/time-zone', { zone: bad, return_to: `/lawyers/${lawyer}/book` });
          assert.equal(res.statusCode, 303, bad);
          assert.ok(!([] as string[]).concat(res.headers['set-cookie'] ?? []).some((h) => h.startsWith('consulta_tz=')), `no cookie for ${bad}`);
          // The same value planted in the cookie: the page as if no zone were known.
          c.cookies.set('consulta_tz', encodeURIComponent(bad));
          const page = await c.get(`/lawyers/${lawyer}/book`);
          assert.equal(page.statusCode, 200, bad);
          assert.match(pageText(page.body), /Choose your time zone/);
          assert.ok(!page.body.includes('<script>alert(1)'), 'escaped');
        }
      });

      it('the chooser refuses a cross-site form, and never sends the visitor to another site', async () => {
        const c = browser();
        await c.get(`/lawyers/${lawyer}/book`);
        assert.equal((await c.post('/time-zone', { zone: 'Atlantic/Canary' }, { origin: 'https://evil.example' })).statusCode, 403);
        assert.equal((await c.post('/time-zone', { zone: 'Atlantic/Canary', _csrf: 'forged' })).statusCode, 403);
        const res = await c.post('/time-zone', { zone: 'Atlantic/Canary', return_to: 'https://evil.example/' });
        assert.equal(res.headers.location, '/');
      });

      it('the hold shows the visitor\'s time, the deadline in the visitor\'s time, and the time left as time left', async () => {
        const token = await hold();
        const c = browser();
        c.cookies.set('consulta_tz', 'America%2FBogota');
        const text = pageText((await c.get(`/confirm/${token}`)).body);
        // 11:00 Madrid (UTC+1) is 05:00 in Bogotá (UTC−5); the hold ends 15 minutes after 09:00 Madrid: 03:15 Bogotá.
        assert.match(text, /11:00–12:00 \(lawyer's time: mainland Spain time\) 05:00–06:00 \(your time: Colombia Standard Time\)/);
        assert.match(text, /Time left to confirm 15 minutes left We keep this time for you until 03:15 \(Colombia Standard Time\)/);
        assert.doesNotMatch(text, /Held for you/);
        const es = browser('es');
        es.cookies.set('consulta_tz', 'Atlantic%2FCanary');
        const esText = pageText((await es.get(`/confirm/${token}`)).body);
        assert.match(esText, /11:00–12:00 \(hora del despacho: hora peninsular\) 10:00–11:00 \(en tu zona: hora de Canarias\)/);
        assert.match(esText, /Tiempo para confirmar quedan 15 minutos Te guardamos esta hora hasta las 08:15 \(hora de Canarias\)/);
        assert.doesNotMatch(esText, /Reservada para ti/);
        // No zone known: the lawyer's time only, and the deadline in it.
        const plain = pageText((await browser().get(`/confirm/${token}`)).body);
        assert.match(plain, /until 09:15 \(mainland Spain time\)/);
        assert.doesNotMatch(plain, /your time:/);
      });

      it('My consultations shows the visitor\'s time beside the lawyer\'s', async () => {
        const token = await hold();
        const me = await signedIn(ctx, `tz-${target.name}@example.com`);
        await me.client.get(`/confirm/${token}/pay`);
        const paid = await me.client.post(`/confirm/${token}/pay`, { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123', name: '' });
        assert.equal(paid.statusCode, 303);
        me.client.cookies.set('consulta_tz', 'Europe%2FLondon');
        const list = pageText((await me.client.get('/consultations')).body);
        assert.match(list, /11:00–12:00 \(lawyer's time: mainland Spain time\) 10:00–11:00 \(your time: United Kingdom Time\)/);
        const id = /href="\/consultations\/([0-9a-f-]{36})"/.exec((await me.client.get('/consultations')).body)![1]!;
        const detail = pageText((await me.client.get(`/consultations/${id}`)).body);
        assert.match(detail, /10:00–11:00 \(your time: United Kingdom Time\)/);
      });
    });

    describe('the sign-in code page during a booking', () => {
      async function startFor(c: SiteClient, email: string, returnTo: string) {
        await c.get(`/sign-in?return_to=${encodeURIComponent(returnTo)}`);
        const res = await c.post('/sign-in', { email, return_to: returnTo });
        assert.equal(res.statusCode, 303);
        return c.get('/sign-in/code');
      }
      const mailsTo = (email: string) => ctx.database.db.selectFrom('mail_outbox').select(['text', 'created_at', 'id']).where('recipient', '=', email).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
      const codeOf = (text: string | null) => /\b(\d{6})\b/.exec(text ?? '')![1]!;

      it('shows the held lawyer, time, price and time left, where the code went, and a resend button with its limit', async () => {
        const token = await hold();
        const c = browser();
        const page = await startFor(c, `held-${target.name}@example.com`, `/confirm/${token}/pay`);
        assert.equal(page.statusCode, 200);
        const text = pageText(page.body);
        assert.match(text, new RegExp(`We sent a 6-digit code to held-${target.name}@example\\.com`));
        assert.match(text, /Your booking, waiting for you Lawyer Nadia El Amrani/);
        assert.match(text, /11:00–12:00/);
        assert.match(text, /You pay €73\.00/);
        assert.match(text, /Time left to confirm 15 minutes left/);
        assert.match(page.body, /<form method="post" action="\/sign-in\/resend"/);
        assert.match(text, /Send a new code You can ask for 4 more codes this hour \(at most 5 an hour\)/);
      });

      it('a resend sends a new code that signs in and goes on to the booking; over the limit it answers 429 with a clear message', async () => {
        const token = await hold();
        const email = `resend-${target.name}@example.com`;
        const c = browser();
        await startFor(c, email, `/confirm/${token}/pay`);
        const first = codeOf((await mailsTo(email))[0]!.text);
        for (let sent = 2; sent <= 5; sent++) {
          const res = await c.post('/sign-in/resend', {});
          assert.equal(res.statusCode, 303);
          assert.equal(res.headers.location, '/sign-in/code?resent=1');
          const page = pageText((await c.get('/sign-in/code?resent=1')).body);
          assert.match(page, new RegExp(`A new code is on its way to ${email.replace('.', '\\.')}`));
          assert.equal((await mailsTo(email)).length, sent);
          if (sent < 5) assert.match(page, new RegExp(`You can ask for ${5 - sent} more code`));
          else assert.match(page, /You have asked for 5 codes this hour, the most we send/);
        }
        // No button left; a resend posted anyway is refused, and says when to try again.
        const none = await c.get('/sign-in/code');
        assert.doesNotMatch(none.body, /action="\/sign-in\/resend"/);
        const over = await c.post('/sign-in/resend', {});
        assert.equal(over.statusCode, 429);
        assert.ok(over.headers['retry-after']);
        assert.match(pageText(over.body), /Too many codes asked for: you can ask for a new one in \d+ minutes?\. The code already sent still works/);
        assert.match(pageText(over.body), /Nadia El Amrani/);
        assert.equal((await mailsTo(email)).length, 5);
        // The newest code signs in (the first one belonged to a replaced request) and goes on to pay.
        const newest = codeOf((await mailsTo(email))[0]!.text);
        if (newest !== first) {
          const wrong = await c.post('/sign-in/code', { code: first });
          assert.equal(wrong.statusCode, 422);
          assert.match(pageText(wrong.body), /Nadia El Amrani/);
        }
        const ok = await c.post('/sign-in/code', { code: newest });
        assert.equal(ok.statusCode, 303);
        assert.equal(ok.headers.location, `/confirm/${token}/pay`);
      });

      it('shows nothing of the booking to a browser that does not hold the sign-in\'s secret, nor for a path that is not a hold', async () => {
        const token = await hold();
        const asking = browser();
        await startFor(asking, `secret-${target.name}@example.com`, `/confirm/${token}`);
        const cookieName = '__Host-consulta_signin';
        const [challengeId] = asking.cookies.get(cookieName)!.split('.');
        const thief = browser();
        thief.cookies.set(cookieName, `${challengeId}.${'A'.repeat(43)}`);
        const page = await thief.get('/sign-in/code');
        const text = pageText(page.body);
        assert.ok(!text.includes(LAWYER_NAME) && !text.includes(`secret-${target.name}`), text);
        assert.doesNotMatch(page.body, /\/sign-in\/resend/);
        assert.equal((await thief.post('/sign-in/resend', {})).statusCode, 303);
        assert.equal((await mailsTo(`secret-${target.name}@example.com`)).length, 1, 'no code sent for another browser');
        // A sign-in for another page: the address and the resend, no booking.
        const plain = browser();
        const other = pageText((await startFor(plain, `plain-${target.name}@example.com`, '/consultations')).body);
        assert.match(other, /We sent a 6-digit code to plain-/);
        assert.doesNotMatch(other, /Your booking, waiting for you/);
      });
    });

    describe('checkout', () => {
      it('after a refused card the form keeps the number, expiry and name — never the CVC — with an error summary to focus and the legal links', async () => {
        const token = await hold();
        const me = await signedIn(ctx, `card-${target.name}@example.com`);
        const form = await me.client.get(`/confirm/${token}/pay`);
        for (const href of ['/legal/terms', '/legal/privacy', '/legal/aviso-legal']) assert.match(form.body, new RegExp(`href="${href}"`));
        assert.match(pageText(form.body), /Order summary Nadia El Amrani · [^·]+ · €73\.00 Details Consultation with Nadia El Amrani/);
        const res = await me.client.post(`/confirm/${token}/pay`, { number: '4000000000000002', expiry: '11/31', cvc: '987', name: 'Ana <b>Pérez</b>' });
        assert.equal(res.statusCode, 422);
        assert.match(res.body, /id="f-number"[^>]*value="4000 0000 0000 0002"|value="4000 0000 0000 0002"[^>]*id="f-number"/);
        assert.match(res.body, /value="11\/31"/);
        assert.match(res.body, /value="Ana &lt;b>Pérez&lt;\/b>"/);
        // The CVC field comes back empty, and the digits appear nowhere as a number of their own
        // (random tokens on the page — CSRF, nonces — may hold "987" inside them by chance).
        assert.match(res.body, /<input[^>]*name="cvc"[^>]*>/);
        assert.doesNotMatch(res.body.match(/<input[^>]*name="cvc"[^>]*>/)![0], /value=/, 'the CVC field is never filled back');
        assert.doesNotMatch(res.body, /(?<![A-Za-z0-9_\-+/])987(?![A-Za-z0-9_\-+/=])/, 'the CVC is never sent back');
        assert.match(res.body, /<div class="notice bad error-summary" id="card-errors" role="alert" tabindex="-1" data-error-summary="true" data-focus autofocus>/);
        assert.match(pageText(res.body), /Check the card details The card was declined\. Nothing was charged/);
        assert.match(res.body, /<a href="#f-number">The card was declined\.<\/a>/);
        assert.match(pageText(res.body), /Card type: Visa/);
        // A bad CVC is the CVC field's error.
        const cvc = await me.client.post(`/confirm/${token}/pay`, { number: '4242424242424242', expiry: '11/31', cvc: '1', name: '' });
        assert.equal(cvc.statusCode, 422);
        assert.match(cvc.body, /id="f-cvc-error">Enter the 3- or 4-digit security code\./);
        assert.match(cvc.body, /<a href="#f-cvc">/);
      });

      it('the first visit shows no error summary and no kept values', async () => {
        const token = await hold();
        const me = await signedIn(ctx, `fresh-${target.name}@example.com`, { lang: 'es' });
        const page = await me.client.get(`/confirm/${token}/pay`);
        assert.equal(page.statusCode, 200);
        assert.match(page.body, /id="card-errors"[^>]*\shidden[\s>]/);
        assert.doesNotMatch(page.body, /data-focus/);
        assert.match(pageText(page.body), /Resumen del pedido Nadia El Amrani · [^·]+ · 73,00\s€ Detalles Consulta con Nadia El Amrani/);
        assert.match(pageText(page.body), /Condiciones de reserva · Privacidad · Aviso legal/);
      });
    });
  });
}
