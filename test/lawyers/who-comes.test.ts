/**
 * What the lawyer knows of who comes (issue 26 item 4), through the real app on both databases:
 * a person who gave their name and reads Arabic books a video consultation with a note in Arabic,
 * and a phone one. Her notice email, her portal list and page, and her bookings feed carry the
 * name (never the email as a name), "reads Arabic", "note in Arabic", the format, her meeting link
 * and the 8-character reference the person's own page shows; the feed carries phone numbers,
 * emails and notes only after she turns that on (portal form with its CSRF token).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { simpleParser } from 'mailparser';
import { bookingReference } from '../../src/domain/booking/purchase.ts';
import { PurchaseService } from '../../src/domain/booking/purchase.service.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { pageText } from '../support/site.ts';

const DATE = '2026-11-24';
const NOTE = 'أحتاج إلى مساعدة في تجديد تصريح الإقامة الخاص بي بعد انتهاء عقد العمل';
const MEET = 'https://meet.example.com/lucia-consultas';

for (const target of databaseTargets()) {
  describe(`who comes, as the lawyer sees it (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let lucia: SignedIn;
    let person: SignedIn;
    let luciaId: string;
    let video: { consultationId: string; intentId: string };
    let phone: { consultationId: string; intentId: string };

    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>' } });
      [luciaId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', contact_email: 'lucia@despacho.example' })])) as [string];
      await ctx.database.db.updateTable('lawyers').set({ video_url: MEET, offers_phone: 1 }).where('id', '=', luciaId).execute();
      lucia = await signedIn(ctx, `lucia-${target.name}@example.com`);
      person = await signedIn(ctx, `amira-${target.name}@example.com`);
      await ctx.database.db.updateTable('lawyers').set({ user_id: lucia.userId }).where('id', '=', luciaId).execute();
      video = await booked('10', { format: 'video', note: NOTE });
      phone = await booked('12', { format: 'phone', phone: '612 34 56 78', note: 'Hola' });
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });

    /** A hold whose person gave their name and languages (the person's side fills these), with the hold page's choices, paid. */
    async function booked(hour: string, choices: { format: string; note?: string; phone?: string }) {
      const h = await hold(ctx, luciaId, DATE, hour);
      const chosen = await new PurchaseService({ database: ctx.database, clock: ctx.clock }).choose(h.token, { userId: person.userId, name: null, languages: [] }, choices);
      assert.equal(chosen.kind, 'saved');
      // What the person side's hold page stores (test/http/language-search.test.ts covers the page itself).
      await ctx.database.db.updateTable('booking_intents').set({ person_name: 'Amira Haddad', person_languages: JSON.stringify(['ar', 'fr']), language_ack: 'interpreter' }).where('id', '=', h.id).execute();
      assert.equal((await ctx.app.services.payments.payWithCard(h.token, person.userId, GOOD_CARD)).kind, 'confirmed');
      const c = await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { consultationId: c.id, intentId: h.id };
    }

    it('the note\'s language is told when the note is stored, and the four facts are copied to the consultation', async () => {
      const row = await ctx.database.db.selectFrom('consultations').select(['person_name', 'person_languages', 'language_ack', 'note_language']).where('id', '=', video.consultationId).executeTakeFirstOrThrow();
      assert.deepEqual(row, { person_name: 'Amira Haddad', person_languages: '["ar","fr"]', language_ack: 'interpreter', note_language: 'ar' });
      const short = await ctx.database.db.selectFrom('consultations').select('note_language').where('id', '=', phone.consultationId).executeTakeFirstOrThrow();
      assert.equal(short.note_language, null, '"Hola" is too short to tell');
    });

    it('her notice email: name, reads Arabic, note in Arabic, format, link, the reference', async () => {
      await ctx.app.services.mail.settled();
      const mails = await Promise.all(smtp.messages.filter((m) => m.to.includes('lucia@despacho.example')).map((m) => simpleParser(m.raw)));
      assert.equal(mails.length, 2);
      const notice = mails.find((m) => (m.text ?? '').includes(bookingReference(video.consultationId)));
      assert.ok(notice, 'the notice names the short reference');
      const text = notice.text ?? '';
      assert.match(text, /Persona: Amira Haddad/);
      assert.match(text, /Lee árabe y francés/);
      assert.match(text, /Nota en árabe/);
      assert.match(text, /Formato: Videollamada/i);
      assert.ok(text.includes(`Enlace de la reunión: ${MEET}`));
      assert.ok(text.includes(NOTE));
      assert.ok(!text.includes(video.intentId), 'one reference: the short one');
      const phoned = mails.find((m) => m !== notice)!.text ?? '';
      assert.match(phoned, /\+34 612 34 56 78/);
    });

    it('her portal list and page, in her language; the person\'s page shows the same reference', async () => {
      const ref = bookingReference(video.consultationId);
      const list = pageText((await lucia.client.get('/lawyer/consultations')).body);
      assert.match(list, /Amira Haddad/);
      assert.match(list, /Reads Arabic and French/);
      assert.match(list, /Note in Arabic/);
      assert.ok(list.includes(ref));
      const page = await lucia.client.get(`/lawyer/consultations/${video.consultationId}`);
      const text = pageText(page.body);
      for (const expected of ['Amira Haddad', 'Reads Arabic and French', 'Note in Arabic', 'Video call', MEET, ref, NOTE]) assert.ok(text.includes(expected), `${expected} in ${text}`);
      assert.match(page.body, /<blockquote class="note" dir="auto" lang="ar">/);
      assert.ok(!text.includes(video.intentId));
      const es = pageText((await lucia.client.get(`/lawyer/consultations/${phone.consultationId}?lang=es`)).body);
      assert.match(es, /Lee árabe y francés/);
      assert.match(es, /\+34 612 34 56 78/);
      assert.ok(!/Nota en/.test(es), 'no label for a note too short to tell');
      const mine = await person.client.get(`/consultations/${video.consultationId}`);
      assert.equal(mine.statusCode, 200);
      assert.ok(pageText(mine.body).includes(ref), 'the person was given the same 8 characters');
    });

    it('her feed: name, languages, link and reference; phone, email and note only once she turns that on', async () => {
      await lucia.client.get('/lawyer/consultations');
      const made = await lucia.client.post('/lawyer/consultations/feed', {});
      assert.match(made.body, /name="private_details"/);
      assert.ok(!/name="private_details"[^>]*checked/.test(made.body), 'off by default');
      const url = /value="http:\/\/consulta\.test(\/lawyer\/consultations\/feed\/[A-Za-z0-9_-]{43}\.ics)"/.exec(made.body)?.[1];
      assert.ok(url);
      const read = async () => {
        const res = await ctx.app.fastify.inject({ method: 'GET', url });
        assert.equal(res.statusCode, 200);
        const events = new ICAL.Component(ICAL.parse(res.body)).getAllSubcomponents('vevent');
        const of = (intentId: string) => events.find((e) => String(e.getFirstPropertyValue('uid')).startsWith(intentId))!;
        return { video: of(video.intentId), phone: of(phone.intentId) };
      };
      const off = await read();
      const desc = (e: ICAL.Component) => String(e.getFirstPropertyValue('description'));
      assert.equal(off.video.getFirstPropertyValue('summary'), 'Consulta: Amira Haddad');
      for (const expected of ['Persona: Amira Haddad', 'Lee árabe y francés', 'Nota en árabe', 'Formato: Videollamada', MEET, bookingReference(video.consultationId)]) assert.ok(desc(off.video).includes(expected), `${expected} in ${desc(off.video)}`);
      assert.equal(off.video.getFirstPropertyValue('location'), MEET);
      assert.ok(!desc(off.video).includes(NOTE), 'no note by default');
      assert.ok(!desc(off.phone).includes('612'), 'no phone number by default');
      assert.ok(!desc(off.phone).includes(person.email), 'no email by default');

      // No CSRF token: refused, still off.
      assert.equal((await lucia.client.post('/lawyer/consultations/feed/private', { private_details: 'on', _csrf: 'forged' })).statusCode, 403);
      assert.ok(!desc((await read()).phone).includes('612'));
      // Another signed-in user who is no lawyer cannot switch anything.
      await person.client.get('/account');
      assert.equal((await person.client.post('/lawyer/consultations/feed/private', { private_details: 'on' })).statusCode, 403);

      await lucia.client.get('/lawyer/consultations');
      const on = await lucia.client.post('/lawyer/consultations/feed/private', { private_details: 'on' });
      assert.equal(on.statusCode, 303);
      const page = await lucia.client.get(on.headers.location as string);
      assert.match(pageText(page.body), /Ahora su calendario incluye teléfonos, correos y notas\./, "(the portal kept the Spanish chosen above)");
      assert.match(page.body, /name="private_details" value="on" checked/);
      const withDetails = await read();
      assert.ok(desc(withDetails.video).includes(NOTE), 'the note');
      assert.ok(desc(withDetails.phone).includes('+34 612 34 56 78'), 'the phone number');
      assert.ok(desc(withDetails.phone).includes(person.email), 'the email');

      // Turned off again: the unchecked box sends nothing.
      await lucia.client.get('/lawyer/consultations');
      assert.equal((await lucia.client.post('/lawyer/consultations/feed/private', {})).statusCode, 303);
      assert.ok(!desc((await read()).phone).includes('612'));

      // Her account in English: the feed speaks English too, as her notice and digest do.
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('id', '=', lucia.userId).execute();
      const english = desc((await read()).video);
      assert.match(english, /Reads Arabic and French/);
      assert.ok(!english.includes('Lee árabe'), english);
      await ctx.database.db.updateTable('users').set({ locale: 'es' }).where('id', '=', lucia.userId).execute();
    });

    it('she cancels with a Spanish reason: the person\'s Arabic email quotes it, labelled as hers and in Spanish (item 5)', async () => {
      await ctx.database.db.updateTable('users').set({ locale: 'ar' }).where('id', '=', person.userId).execute();
      const reason = 'Tengo un juicio urgente esa mañana y no podré atenderle a esa hora.';
      await ctx.app.services.lawyerCancellation.cancel(luciaId, phone.consultationId, reason);
      await ctx.app.services.mail.settled();
      const mails = await Promise.all(smtp.messages.filter((m) => m.to.includes(person.email)).map((m) => simpleParser(m.raw)));
      const mail = mails.find((m) => (m.text ?? '').includes(reason));
      assert.ok(mail, 'the reason reaches the person verbatim');
      const text = mail.text ?? '';
      assert.ok(text.includes(`من مكتب المحاماة، باللغة الإسبانية، كما كتبه\n-----\n${reason}\n-----`), text);
      assert.ok(text.includes(bookingReference(phone.consultationId)), 'the same short reference');
    });
  });
}
