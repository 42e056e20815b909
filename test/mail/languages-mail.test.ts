/**
 * The emails a person gets are in the person's language, for a people-only language too
 * (docs/site.md, "Languages"): through the real app with SMTP_URL at a real listener, on both
 * databases, a French person's sign-in code, receipt and its `.ics` invitation are French —
 * dates, money and the zone as French writes them — while the lawyer's notice is in the lawyer's
 * own language: her account's when the lawyer's side is written in it (Spanish, English), else
 * Spanish, whatever the person's (consultation-mail.ts lawyerSideLocale, as her evening digest).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { en } from '../../src/i18n/en.ts';
import { fr } from '../../src/i18n/fr.ts';
import { PEOPLE_SECTIONS, type Messages } from '../../src/i18n/index.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { bookingReference } from '../../src/domain/booking/purchase.ts';
import { englishOnly, leftovers } from '../support/catalogues.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const DATE = '2026-11-24'; // a Tuesday: the Canaries are on UTC+0
const people = (m: Messages) => Object.fromEntries(PEOPLE_SECTIONS.map((s) => [s, m[s]])) as unknown as Messages;
const ENGLISH = englishOnly(people(en), people(fr as unknown as Messages));

for (const target of databaseTargets()) {
  describe(`a French person's emails are French (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let canary: string;
    let english: string;
    let arabic: string;

    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>' } });
      [canary] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Nadia Benali Ortega', city: 'las-palmas-de-gran-canaria', contact_email: 'nadia@despacho.example', consultation_fee_cents: 5500, platform_commission_percent: 15 }),
      ])) as [string];
      // Two lawyers with accounts: one reads the site in English, one in Arabic (the lawyer's side is not written in Arabic).
      [english, arabic] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Sarah Collins Vega', city: 'madrid', languages: ['es', 'en', 'ar'], contact_email: 'sarah@despacho.example', formats: { video_url: 'https://meet.example.com/sarah' } } as never),
        lawyerRecord({ name: 'Yasmina Haddad', city: 'sevilla', languages: ['es', 'ar'], contact_email: 'yasmina@despacho.example', formats: { video_url: 'https://meet.example.com/yasmina' } } as never),
      ])) as [string, string];
      for (const [id, email, locale] of [[english, 'sarah@cuenta.example', 'en'], [arabic, 'yasmina@cuenta.example', 'ar']] as const) {
        const account = await createUser(ctx, email);
        await ctx.database.db.updateTable('users').set({ locale }).where('id', '=', account).execute();
        await ctx.database.db.updateTable('lawyers').set({ user_id: account }).where('id', '=', id).execute();
      }
    });
    after(async () => {
      await ctx.close();
      await smtp.close();
    });

    async function mailTo(to: string): Promise<ParsedMail[]> {
      await ctx.app.services.mail.settled();
      return Promise.all(smtp.messages.filter((m) => m.to.includes(to)).map((m) => simpleParser(m.raw)));
    }

    it('the receipt and its calendar invitation, in French; the notice to the lawyer, in Spanish', async () => {
      const user = await createUser(ctx, 'camille@example.com');
      await ctx.database.db.updateTable('users').set({ locale: 'fr' }).where('id', '=', user).execute();
      const res = await initiate(ctx, slotBody(canary, DATE, '10'), { remoteAddress: '198.51.100.7' });
      assert.equal(res.statusCode, 201, res.body);
      const token = tokenOf((res.json() as { confirmation_url: string }).confirmation_url);
      assert.equal((await ctx.app.services.booking.confirm(token, user)).outcome, 'confirmed');

      const [receipt, ...more] = await mailTo('camille@example.com');
      assert.equal(more.length, 0);
      assert.equal(receipt!.subject, 'Réservée\u00a0: votre consultation avec Nadia Benali Ortega, mardi 24 novembre 2026, 10:00');
      const text = receipt!.text ?? '';
      assert.ok(text.startsWith('Votre consultation est confirmée et payée.'), text);
      assert.match(text, /mardi 24 novembre 2026, 10:00–11:00 \(heure des Canaries, UTC\+00:00\)/);
      assert.match(text, /Vous avez payé:\s+55,00\s€/);
      assert.match(text, /Pour le cabinet:\s+46,75\s€/);
      assert.match(text, /Part de Consulta \(15\s%\):\s+8,25\s€/);
      assert.ok(text.includes('Une invitation d’agenda est jointe\u00a0: ouvrez consultation.ics'));
      assert.deepEqual(leftovers(`${receipt!.subject}\n${text}`, ENGLISH), [], 'no English in the receipt');

      const attachment = receipt!.attachments.find((a) => a.contentType === 'text/calendar');
      assert.ok(attachment);
      assert.equal(attachment.filename, 'consultation.ics');
      const event = new ICAL.Event(new ICAL.Component(ICAL.parse(attachment.content.toString('utf8'))).getFirstSubcomponent('vevent')!);
      assert.equal(event.summary, 'Consultation avec Nadia Benali Ortega');
      assert.match(event.description, /^Consultation en droit des étrangers avec Nadia Benali Ortega, réservée sur Consulta\.\nVotre réservation\u00a0: http/);
      assert.equal(event.startDate.toJSDate().toISOString(), '2026-11-24T10:00:00.000Z');

      // A lawyer without an account (no language of her own): Spanish, whatever the person's.
      const [notice] = await mailTo('nadia@despacho.example');
      assert.match(notice!.subject ?? '', /^Nueva consulta reservada: martes, 24 de noviembre de 2026, 10:00$/);
      assert.match(notice!.text ?? '', /Correo de contacto:\s+camille@example\.com/);
    });

    it("the lawyer's notice is in her account's language — English, who comes included — and Spanish when the lawyer's side is not written in hers", async () => {
      const person = await createUser(ctx, 'amina@example.com');
      await ctx.database.db.updateTable('users').set({ locale: 'ar' }).where('id', '=', person).execute();
      const note = 'أحتاج إلى مساعدة في ملف التجذر الاجتماعي، أعيش في مدريد منذ ثلاث سنوات.';
      const book = async (lawyerId: string, hour: string, n: number) => {
        const res = await initiate(ctx, slotBody(lawyerId, DATE, hour), { remoteAddress: `198.51.100.${n}` });
        assert.equal(res.statusCode, 201, res.body);
        const body = res.json() as { booking_intent_id: string; confirmation_url: string };
        // The hold page's choices, as the site keeps them.
        await ctx.database.db
          .updateTable('booking_intents')
          .set({ format: 'video', note, note_language: 'ar', person_name: 'Amina Haddad', person_languages: '["ar","fr"]' })
          .where('id', '=', body.booking_intent_id)
          .execute();
        assert.equal((await ctx.app.services.booking.confirm(tokenOf(body.confirmation_url), person)).outcome, 'confirmed');
        return ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', body.booking_intent_id).executeTakeFirstOrThrow();
      };
      const toSarah = await book(english, '10', 21);
      const toYasmina = await book(arabic, '11', 22);

      const [inEnglish, ...moreEnglish] = await mailTo('sarah@despacho.example');
      assert.equal(moreEnglish.length, 0);
      assert.equal(inEnglish!.subject, 'New consultation booked: Tuesday, 24 November 2026, 10:00');
      const text = inEnglish!.text ?? '';
      assert.ok(text.startsWith('A consultation with you has been booked and paid through Consulta.'), text);
      assert.match(text, /Tuesday, 24 November 2026, 10:00–11:00 \(mainland Spain time, UTC\+01:00\)/);
      assert.match(text, /Contact email:\s+amina@example\.com/);
      assert.match(text, /^Person: Amina Haddad$/m);
      assert.match(text, /^Reads Arabic and French$/m);
      assert.match(text, /^Note in Arabic$/m);
      assert.match(text, /^Meeting link: https:\/\/meet\.example\.com\/sarah$/m);
      assert.match(text, new RegExp(`^Reference: ${bookingReference(toSarah.id)}$`, 'm'));
      assert.ok(text.includes(note), 'her note, as written');
      assert.doesNotMatch(text, /Persona|Lee árabe|Correo de contacto|Nueva consulta/, 'no Spanish in her English notice');

      // Arabic is not a language the lawyer's side is written in: Spanish, as her evening digest.
      const [inSpanish] = await mailTo('yasmina@despacho.example');
      assert.equal(inSpanish!.subject, 'Nueva consulta reservada: martes, 24 de noviembre de 2026, 11:00');
      const spanish = inSpanish!.text ?? '';
      assert.match(spanish, /^Persona: Amina Haddad$/m);
      assert.match(spanish, /^Lee árabe y francés$/m);
      assert.match(spanish, /^Nota en árabe$/m);
      assert.match(spanish, new RegExp(`^Referencia: ${bookingReference(toYasmina.id)}$`, 'm'));
      assert.doesNotMatch(spanish, /Reads|Person:|Contact email/, 'no English fallback mixed in');
    });

    it('the sign-in code asked for on a French page', async () => {
      await ctx.app.services.signIn.start({ email: 'lea@example.com', ip: '198.51.100.8', locale: 'fr', returnTo: null });
      const [mail] = await mailTo('lea@example.com');
      assert.equal(mail!.subject, 'Votre code de connexion Consulta');
      assert.match(mail!.text ?? '', /^Votre code de connexion est\u00a0:\n\n {4}\d{6}\n\nIl est valable 10 minutes\./);
      assert.deepEqual(leftovers(mail!.text ?? '', ENGLISH), []);
    });
  });
}
