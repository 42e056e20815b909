/**
 * The emails of a confirmed consultation, on both databases, through the real app with SMTP_URL
 * pointing at a real listener: the receipt (the person's language, the lawyer's time with its
 * zone, quote()'s breakdown, the confirmation link, an .ics that ical.js reads with the right
 * UTC instants for a Madrid and a Canary lawyer) and the lawyer's notice. Exactly one of each,
 * however often `confirm` is called; holds and expiries email nobody.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import { createKey, createUser, initiate, slotBody, T0, tokenOf, TTL_MS } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { bookingReference } from '../../src/domain/booking/purchase.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const DATE = '2026-11-24'; // a Tuesday: Madrid and the Canaries are on winter time (UTC+1 / UTC+0)

for (const target of databaseTargets()) {
  describe(`consultation emails (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let madrid: string;
    let canary: string;
    let silent: string;
    let address = 0;

    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>' } });
      [madrid, canary, silent] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Lucía Fernández Ruiz', city: 'madrid', contact_email: 'lucia@despacho.example' }),
        lawyerRecord({ name: 'Nadia Benali Ortega', city: 'las-palmas-de-gran-canaria', contact_email: 'nadia@despacho.example', consultation_fee_cents: 5500, platform_commission_percent: 15 }),
        lawyerRecord({ name: 'Sin Correo', city: 'sevilla' }),
      ])) as [string, string, string];
    });
    after(async () => {
      await ctx.close();
      await smtp.close();
    });

    /** An anonymous hold (a fresh client address each time). */
    async function hold(lawyerId: string, hour: string, token?: string): Promise<{ id: string; token: string }> {
      const n = ++address;
      const res = await initiate(ctx, slotBody(lawyerId, DATE, hour), { remoteAddress: `198.51.100.${n}`, ...(token ? { token } : {}) });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as { booking_intent_id: string; confirmation_url: string };
      return { id: body.booking_intent_id, token: tokenOf(body.confirmation_url) };
    }

    async function mailTo(to: string): Promise<ParsedMail[]> {
      await ctx.app.services.mail.settled();
      return Promise.all(smtp.messages.filter((m) => m.to.includes(to)).map((m) => simpleParser(m.raw)));
    }

    const rowsTo = (to: string) => ctx.database.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', to).execute();

    function invitation(mail: ParsedMail) {
      const attachment = mail.attachments.find((a) => a.contentType === 'text/calendar');
      assert.ok(attachment, 'an .ics attachment');
      assert.match(attachment.filename ?? '', /\.ics$/);
      const vevent = new ICAL.Component(ICAL.parse(attachment.content.toString('utf8'))).getFirstSubcomponent('vevent');
      assert.ok(vevent);
      return new ICAL.Event(vevent);
    }

    it('holding a slot emails nobody', async () => {
      await hold(madrid, '12');
      await ctx.app.services.mail.settled();
      assert.equal(smtp.messages.length, 0);
      assert.equal((await ctx.database.db.selectFrom('mail_outbox').select('id').execute()).length, 0);
    });

    it('an anonymous hold confirmed (twice) sends one receipt to the confirming user and one notice to the lawyer', async () => {
      const user = await createUser(ctx, 'maria@example.com');
      const intent = await hold(madrid, '10');
      assert.equal((await ctx.app.services.booking.confirm(intent.token, user)).outcome, 'confirmed');
      assert.equal((await ctx.app.services.booking.confirm(intent.token, user)).outcome, 'already_confirmed');

      const receipts = await mailTo('maria@example.com');
      assert.equal(receipts.length, 1, 'one receipt');
      const receipt = receipts[0]!;
      // No language chosen yet: Spanish.
      assert.equal(receipt.subject, 'Reservada: tu consulta con Lucía Fernández Ruiz, martes, 24 de noviembre de 2026, 10:00');
      const text = receipt.text ?? '';
      assert.match(text, /Lucía Fernández Ruiz \(Madrid\)/);
      assert.match(text, /martes, 24 de noviembre de 2026, 10:00–11:00 \(hora peninsular, UTC\+01:00\)/);
      assert.match(text, /Has pagado:\s+60,00\s€/);
      assert.match(text, /Para el despacho:\s+52,80\s€/);
      assert.match(text, /Parte de Consulta \(12 %\):\s+7,20\s€/);
      assert.ok(text.includes(`${SITE}/confirm/${intent.token}`), 'the confirmation page link');
      assert.ok(text.includes(intent.id), 'the reference');
      const event = invitation(receipt);
      assert.equal(event.startDate.toJSDate().toISOString(), '2026-11-24T09:00:00.000Z');
      assert.equal(event.endDate.toJSDate().toISOString(), '2026-11-24T10:00:00.000Z');
      assert.equal(event.uid, `${intent.id}@consulta.test`);
      assert.equal(event.summary, 'Consulta con Lucía Fernández Ruiz');

      const notices = await mailTo('lucia@despacho.example');
      assert.equal(notices.length, 1, 'one notice');
      const notice = notices[0]!;
      assert.equal(notice.subject, 'Nueva consulta reservada: martes, 24 de noviembre de 2026, 10:00');
      assert.match(notice.text ?? '', /Correo de contacto:\s+maria@example\.com/);
      assert.match(notice.text ?? '', /10:00–11:00 \(hora peninsular, UTC\+01:00\)/);
      assert.match(notice.text ?? '', /Recibes:\s+52,80\s€/);
      assert.doesNotMatch(notice.text ?? '', /4242|card|tarjeta/i, 'no card data');

      // The outbox agrees: one of each, both sent.
      assert.deepEqual((await rowsTo('maria@example.com')).map((r) => [r.kind, r.status]), [['consultation_receipt', 'sent']]);
      assert.deepEqual((await rowsTo('lucia@despacho.example')).map((r) => [r.kind, r.status]), [['consultation_lawyer_notice', 'sent']]);
    });

    it('writes the receipt in the person\'s language, with the Canary Islands\' time and instants', async () => {
      const user = await createUser(ctx, 'john@example.com');
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('id', '=', user).execute();
      const intent = await hold(canary, '10');
      assert.equal((await ctx.app.services.booking.confirm(intent.token, user)).outcome, 'confirmed');

      const [receipt, ...more] = await mailTo('john@example.com');
      assert.equal(more.length, 0);
      // (ICU versions differ on the comma after the weekday.)
      assert.match(receipt!.subject ?? '', /^Booked: your consultation with Nadia Benali Ortega, Tuesday,? 24 November 2026, 10:00$/);
      const text = receipt!.text ?? '';
      assert.match(text, /Tuesday,? 24 November 2026, 10:00–11:00 \(Canary Islands time, UTC\+00:00\)/);
      assert.match(text, /You paid:\s+€55\.00/);
      assert.match(text, /For the lawyer:\s+€46\.75/);
      assert.match(text, /Consulta's share \(15 %\):\s+€8\.25/);
      const event = invitation(receipt!);
      assert.equal(event.startDate.toJSDate().toISOString(), '2026-11-24T10:00:00.000Z');
      assert.equal(event.endDate.toJSDate().toISOString(), '2026-11-24T11:00:00.000Z');
      // Her only format is a phone call: the person stays where they are, so no place in the calendar
      // (it said her city, as if they had to go to Las Palmas; test/unit/receipt-place-and-comma.test.ts).
      assert.equal(event.location, null);
      // The lawyer's notice is in Spanish whatever the person's language.
      const [notice] = await mailTo('nadia@despacho.example');
      assert.match(notice!.text ?? '', /Correo de contacto:\s+john@example\.com/);
      // Zones are named as people say them, in the reader's language.
      assert.match(notice!.text ?? '', /10:00–11:00 \(hora de Canarias, UTC\+00:00\)/);
      assert.doesNotMatch(text, /Atlantic\/Canary/);
    });

    it('adds the person\'s own time when their zone (from the site) differs from the lawyer\'s; not for a zone of the same time, a bogus one, or in the lawyer\'s notice', async () => {
      const user = await createUser(ctx, 'ana@example.com');
      await ctx.database.db.updateTable('users').set({ locale: 'es' }).where('id', '=', user).execute();
      const intent = await hold(canary, '11');
      assert.equal((await ctx.app.services.booking.confirm(intent.token, user, { personZone: 'America/Bogota' })).outcome, 'confirmed');
      const [receipt] = await mailTo('ana@example.com');
      const text = receipt!.text ?? '';
      // 11:00 in the Canaries (UTC+0) is 06:00 in Bogotá (UTC−5), the same day.
      assert.match(text, /Cuándo:\s+martes,? 24 de noviembre de 2026, 11:00–12:00 \(hora de Canarias, UTC\+00:00\)/);
      assert.match(text, /En tu hora:\s+martes,? 24 de noviembre de 2026, 06:00–07:00 \([^)]*Colombia[^)]*, UTC-05:00\)/);
      // The notice names the consultation by the short reference the person was given.
      const c = await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', intent.id).executeTakeFirstOrThrow();
      const [notice] = await mailTo('nadia@despacho.example').then((all) => all.filter((m) => (m.text ?? '').includes(bookingReference(c.id))));
      assert.doesNotMatch(notice!.text ?? '', /06:00/);

      // A zone of the same wall-clock time as the lawyer's (Lisbon = the Canaries in winter), or one that is not a zone: no second line.
      for (const [email, zone, hour] of [['lisboa@example.com', 'Europe/Lisbon', '12'], ['bogus@example.com', 'Mars/Olympus', '13']] as const) {
        const other = await createUser(ctx, email);
        const h = await hold(canary, hour);
        assert.equal((await ctx.app.services.booking.confirm(h.token, other, { personZone: zone })).outcome, 'confirmed');
        const [mail] = await mailTo(email);
        assert.doesNotMatch(mail!.text ?? '', /your time|tu hora/i, zone);
      }
    });

    it('a lawyer without a contact email gets no notice; the person still gets the receipt', async () => {
      const user = await createUser(ctx, 'eva@example.com');
      const before = smtp.messages.length;
      const intent = await hold(silent, '10');
      assert.equal((await ctx.app.services.booking.confirm(intent.token, user)).outcome, 'confirmed');
      assert.equal((await mailTo('eva@example.com')).length, 1);
      assert.equal(smtp.messages.length, before + 1, 'only the receipt');
    });

    it('an intent created with a key sends the receipt to the user who confirmed it, not the key owner', async () => {
      const key = await createKey(ctx, { ownerEmail: 'integrator@example.com' });
      const user = await createUser(ctx, 'client@example.com');
      const intent = await hold(madrid, '11', key.token);
      assert.equal((await ctx.app.services.booking.confirm(intent.token, user)).outcome, 'confirmed');
      assert.equal((await mailTo('client@example.com')).length, 1);
      assert.equal((await mailTo('integrator@example.com')).length, 0);
    });

    it('an expired hold confirms nothing and emails nobody', async () => {
      const user = await createUser(ctx, 'late@example.com');
      const intent = await hold(madrid, '13');
      ctx.clock.set(T0 + TTL_MS + 1);
      try {
        assert.equal((await ctx.app.services.booking.confirm(intent.token, user)).outcome, 'expired');
      } finally {
        ctx.clock.set(T0);
      }
      assert.equal((await mailTo('late@example.com')).length, 0);
      assert.equal((await rowsTo('late@example.com')).length, 0);
    });
  });
}
