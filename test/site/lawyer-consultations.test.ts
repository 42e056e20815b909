/**
 * /lawyer/consultations over the real app and database (both): her list and one consultation
 * (names escaped), cancelling with a reason (form back with an error summary when it is
 * missing), held / no-show once it started; object-level attacks — another lawyer's consultation
 * on every URL and form, a person's session, signed out, no CSRF token — change nothing; her
 * bookings feed: made and shown once, read without a session (iCalendar with the person's
 * name and email, the cancelled one STATUS:CANCELLED with a higher SEQUENCE and the invitation's
 * UID), private cache headers, and a wrong or rotated token is a 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { SiteClient, pageText } from '../support/site.ts';

const DATE = '2026-11-24';

for (const target of databaseTargets()) {
  describe(`her consultations as a lawyer (${target.name})`, () => {
    let ctx: TestContext;
    let lucia: SignedIn;
    let other: SignedIn;
    let person: SignedIn;
    let luciaId: string;
    let otherId: string;
    let mine: { consultationId: string; intentId: string };
    let theirs: { consultationId: string };

    before(async () => {
      ctx = await createTestContext(target);
      [luciaId, otherId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz' }), lawyerRecord({ name: 'Otro Abogado' })])) as [string, string];
      lucia = await signedIn(ctx, `lucia-${target.name}@example.com`);
      other = await signedIn(ctx, `otro-${target.name}@example.com`);
      person = await signedIn(ctx, `maria-${target.name}@example.com`);
      await ctx.database.db.updateTable('lawyers').set({ user_id: lucia.userId }).where('id', '=', luciaId).execute();
      await ctx.database.db.updateTable('lawyers').set({ user_id: other.userId }).where('id', '=', otherId).execute();
      // A person whose name would be markup if it were not escaped.
      await ctx.database.db.updateTable('users').set({ name: '<img src=x onerror=alert(1)> María' }).where('id', '=', person.userId).execute();
      mine = await booked(luciaId, '10');
      theirs = await booked(otherId, '10');
    });
    after(async () => ctx?.close());

    async function booked(lawyerId: string, hour: string, date = DATE) {
      const h = await hold(ctx, lawyerId, date, hour);
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, person.userId, GOOD_CARD)).kind, 'confirmed');
      const c = await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { consultationId: c.id, intentId: h.id };
    }
    const status = async (id: string) => (await ctx.database.db.selectFrom('consultations').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status;
    const refundCount = async () => (await ctx.database.db.selectFrom('consultation_refunds').select('id').execute()).length;

    it('lists her consultations with the person escaped, and shows one', async () => {
      const res = await lucia.client.get('/lawyer/consultations');
      assert.equal(res.statusCode, 200);
      assert.match(res.headers['cache-control'] as string, /no-store/);
      assert.ok(!res.body.includes('<img src=x'), 'the name is escaped');
      assert.match(pageText(res.body), /Tuesday, 24 November 2026, 10:00–11:00/);
      assert.ok(res.body.includes(`/lawyer/consultations/${mine.consultationId}`));
      assert.ok(!res.body.includes(theirs.consultationId), 'not another lawyer\'s');
      const one = await lucia.client.get(`/lawyer/consultations/${mine.consultationId}`);
      assert.equal(one.statusCode, 200);
      assert.ok(one.body.includes('&lt;img src=x onerror=alert(1)'), one.body.match(/.{0,40}onerror.{0,40}/)?.[0]);
      assert.ok(one.body.includes(person.email));
      assert.ok(one.body.includes('action="/lawyer/consultations/' + mine.consultationId + '/cancel"'));
      // Both pages sit in the portal, with her consultations marked as the current page.
      for (const html of [res.body, one.body]) {
        assert.match(html, /<nav class="dash-nav"/);
        assert.match(html, /href="\/lawyer\/consultations" aria-current="page"/);
        assert.match(html, /href="\/lawyer\/profile"/);
      }
    });

    it('attacks: another lawyer\'s consultation, a person, signed out, no CSRF token — nothing changes', async () => {
      const victim = theirs.consultationId;
      await lucia.client.get('/lawyer/consultations');
      assert.equal((await lucia.client.get(`/lawyer/consultations/${victim}`)).statusCode, 404);
      assert.equal((await lucia.client.post(`/lawyer/consultations/${victim}/cancel`, { reason: 'mine now' })).statusCode, 404);
      assert.equal((await lucia.client.post(`/lawyer/consultations/${victim}/outcome`, { outcome: 'no_show' })).statusCode, 404);
      assert.equal((await lucia.client.get('/lawyer/consultations/not-a-uuid')).statusCode, 404);
      // A person (no lawyer record): the "for lawyers only" page.
      const p = await person.client.get('/lawyer/consultations');
      assert.equal(p.statusCode, 403);
      assert.match(pageText(p.body), /This area is for lawyers on Consulta/);
      await person.client.get('/account');
      assert.equal((await person.client.post(`/lawyer/consultations/${victim}/cancel`, { reason: 'x' })).statusCode, 403);
      assert.equal((await person.client.post('/lawyer/consultations/feed', {})).statusCode, 403);
      // Signed out: to sign-in, nothing done.
      const anon = new SiteClient(ctx.app.fastify);
      const out = await anon.get(`/lawyer/consultations/${victim}`);
      assert.equal(out.statusCode, 303);
      assert.match(out.headers.location as string, /^\/sign-in\?return_to=/);
      // No CSRF token: refused by the site.
      assert.equal((await lucia.client.post(`/lawyer/consultations/${mine.consultationId}/cancel`, { reason: 'x', _csrf: 'forged' })).statusCode, 403);
      assert.equal(await status(victim), 'confirmed');
      assert.equal(await status(mine.consultationId), 'confirmed');
      assert.equal(await refundCount(), 0);
    });

    it('cancelling without a reason: the form comes back with an error summary', async () => {
      await lucia.client.get(`/lawyer/consultations/${mine.consultationId}`);
      const res = await lucia.client.post(`/lawyer/consultations/${mine.consultationId}/cancel`, { reason: '  ' });
      assert.equal(res.statusCode, 422);
      assert.match(res.body, /error-summary/);
      assert.match(pageText(res.body), /Give a reason: it is sent to the person\./);
      assert.equal(await status(mine.consultationId), 'confirmed');
    });

    it('her bookings feed: made, read without a session, cancelled shown as such; rotated → the old address is a 404', async () => {
      await lucia.client.get('/lawyer/consultations');
      const made = await lucia.client.post('/lawyer/consultations/feed', {});
      assert.equal(made.statusCode, 200);
      const url = /value="(http:\/\/consulta\.test\/lawyer\/consultations\/feed\/[A-Za-z0-9_-]{43}\.ics)"/.exec(made.body)?.[1];
      assert.ok(url, 'the address is shown');
      assert.ok(made.body.includes(url.replace('http:', 'webcal:')), 'and as webcal://');
      const stored = await ctx.database.db.selectFrom('lawyer_booking_feeds').selectAll().where('lawyer_id', '=', luciaId).executeTakeFirstOrThrow();
      assert.ok(!stored.token_hash.includes(url.split('/').pop()!.replace('.ics', '')), 'only a hash is stored');
      assert.equal((await lucia.client.get('/lawyer/consultations')).body.includes(url), false, 'shown once');

      // Cancel the consultation, then read the feed as a calendar app: no cookies.
      await lucia.client.get(`/lawyer/consultations/${mine.consultationId}`);
      const cancelled = await lucia.client.post(`/lawyer/consultations/${mine.consultationId}/cancel`, { reason: 'En un juicio' });
      assert.equal(cancelled.statusCode, 303);
      assert.equal(await status(mine.consultationId), 'cancelled_by_lawyer');
      const kept = await booked(luciaId, '12');
      const path = new URL(url).pathname;
      const feed = await ctx.app.fastify.inject({ method: 'GET', url: path });
      assert.equal(feed.statusCode, 200, feed.body);
      assert.match(feed.headers['content-type'] as string, /^text\/calendar/);
      assert.match(feed.headers['cache-control'] as string, /private/);
      assert.match(feed.headers['cache-control'] as string, /no-store/);
      const cal = new ICAL.Component(ICAL.parse(feed.body));
      const events = cal.getAllSubcomponents('vevent');
      const byUid = new Map(events.map((e) => [String(e.getFirstPropertyValue('uid')), e]));
      const gone = byUid.get(`${mine.intentId}@consulta.test`);
      assert.ok(gone, 'the cancelled one, with the invitation\'s UID');
      assert.equal(gone.getFirstPropertyValue('status'), 'CANCELLED');
      assert.equal(Number(gone.getFirstPropertyValue('sequence')), 1);
      const live = byUid.get(`${kept.intentId}@consulta.test`)!;
      assert.equal(live.getFirstPropertyValue('status'), 'CONFIRMED');
      assert.equal(new ICAL.Event(live).startDate.toJSDate().toISOString(), '2026-11-24T11:00:00.000Z');
      assert.match(String(live.getFirstPropertyValue('description')), /Persona: /);
      assert.ok(!String(live.getFirstPropertyValue('description')).includes(person.email), 'no email unless she turns that on');
      assert.ok(!events.some((e) => String(e.getFirstPropertyValue('uid')).startsWith(theirs.consultationId)), 'only hers');
      assert.equal(events.length, 2);

      // Wrong token, and the old one after a rotation: 404.
      assert.equal((await ctx.app.fastify.inject({ method: 'GET', url: path.replace(/[A-Za-z0-9_-]{4}\.ics$/, 'AAAA.ics') })).statusCode, 404);
      assert.equal((await ctx.app.fastify.inject({ method: 'GET', url: '/lawyer/consultations/feed/short.ics' })).statusCode, 404);
      await lucia.client.get('/lawyer/consultations');
      const rotated = await lucia.client.post('/lawyer/consultations/feed', {});
      const next = /value="(http:\/\/consulta\.test\/lawyer\/consultations\/feed\/[A-Za-z0-9_-]{43}\.ics)"/.exec(rotated.body)?.[1];
      assert.ok(next && next !== url);
      assert.equal((await ctx.app.fastify.inject({ method: 'GET', url: path })).statusCode, 404, 'the old address is dead');
      assert.equal((await ctx.app.fastify.inject({ method: 'GET', url: new URL(next).pathname })).statusCode, 200);
    });

    it('her feed is rate-limited per feed: a scraped address gets 429 with Retry-After', async () => {
      await lucia.client.get('/lawyer/consultations');
      const made = await lucia.client.post('/lawyer/consultations/feed', {});
      const url = /value="http:\/\/consulta\.test(\/lawyer\/consultations\/feed\/[A-Za-z0-9_-]{43}\.ics)"/.exec(made.body)?.[1];
      assert.ok(url);
      let limited: { statusCode: number; headers: Record<string, unknown> } | null = null;
      let reads = 0;
      for (; reads < 40 && !limited; reads++) {
        const res: { statusCode: number; headers: Record<string, unknown> } = await ctx.app.fastify.inject({ method: 'GET', url });
        if (res.statusCode === 429) limited = res;
        else assert.equal(res.statusCode, 200);
      }
      assert.ok(limited, 'limited within 40 reads');
      assert.ok(reads <= 31, `limited after ${reads} reads`);
      assert.ok(Number(limited.headers['retry-after']) > 0);
    });

    it('a past consultation: held or no-show (and corrected); an upcoming one cannot be marked', async () => {
      const past = await booked(luciaId, '09', '2026-11-25');
      await lucia.client.get(`/lawyer/consultations/${past.consultationId}`);
      assert.equal((await lucia.client.post(`/lawyer/consultations/${past.consultationId}/outcome`, { outcome: 'held' })).statusCode, 409, 'not started yet');
      assert.equal(await status(past.consultationId), 'confirmed');
      const saved = ctx.clock.now().getTime();
      ctx.clock.set(new Date('2026-11-25T10:30:00Z'));
      try {
        const page = await lucia.client.get(`/lawyer/consultations/${past.consultationId}`);
        assert.ok(page.body.includes('/outcome"'));
        assert.ok(!page.body.includes('/cancel"'), 'no cancelling once started');
        const held = await lucia.client.post(`/lawyer/consultations/${past.consultationId}/outcome`, { outcome: 'held' });
        assert.equal(held.statusCode, 303);
        assert.equal(await status(past.consultationId), 'held');
        await lucia.client.get(`/lawyer/consultations/${past.consultationId}`);
        assert.equal((await lucia.client.post(`/lawyer/consultations/${past.consultationId}/outcome`, { outcome: 'no_show' })).statusCode, 303);
        assert.equal(await status(past.consultationId), 'no_show');
        await lucia.client.get(`/lawyer/consultations/${past.consultationId}`);
        assert.equal((await lucia.client.post(`/lawyer/consultations/${past.consultationId}/outcome`, { outcome: 'cancelled_by_lawyer' })).statusCode, 400);
        assert.equal(await status(past.consultationId), 'no_show');
        const list = await lucia.client.get('/lawyer/consultations?lang=es');
        assert.match(pageText(list.body), /Pasadas/);
        assert.match(pageText(list.body), /No se presentó/);
      } finally {
        ctx.clock.set(new Date(saved));
      }

    });
  });
}
