/**
 * The person's emails name the lawyer in her own form of address (issue 25 item 12;
 * docs/lawyers.md "How she is named"): the receipt, the reminders and the lawyer's cancellation
 * carry `lawyers.form_of_address` from her record when they are written, so an Arabic person
 * booking a woman reads «المحامية», not «المحامي»; a lawyer who gave no form is named neutrally.
 * Through the real app on both databases; the mails are read from the outbox (no SMTP: kept there).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const WED = '2026-11-25';
const THU = '2026-11-26';

for (const target of databaseTargets()) {
  describe(`the person's emails name her in her form (${target.name})`, () => {
    let ctx: TestContext;
    let ana: string;
    let pablo: string;
    let nadia: string;
    let address = 0;

    before(async () => {
      ctx = await createTestContext(target, { config: { minLeadTimeMinutes: 30 } });
      [ana, pablo, nadia] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Ana Beltrán Gil', city: 'madrid' }),
        lawyerRecord({ name: 'Pablo Ríos Vidal', city: 'madrid' }),
        lawyerRecord({ name: 'Nadia Benali Ortega', city: 'madrid' }),
      ])) as [string, string, string];
      await ctx.database.db.updateTable('lawyers').set({ form_of_address: 'female' }).where('id', '=', ana).execute();
      await ctx.database.db.updateTable('lawyers').set({ form_of_address: 'male' }).where('id', '=', pablo).execute();
    });
    after(async () => {
      await ctx.app.services.mail.settled();
      await ctx.close();
    });

    async function book(lawyerId: string, hour: string, email: string, locale: string, date = WED): Promise<string> {
      const user = await createUser(ctx, email);
      await ctx.database.db.updateTable('users').set({ locale }).where('id', '=', user).execute();
      const res = await initiate(ctx, slotBody(lawyerId, date, hour), { remoteAddress: `198.51.100.${++address}` });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as { booking_intent_id: string; confirmation_url: string };
      assert.equal((await ctx.app.services.booking.confirm(tokenOf(body.confirmation_url), user)).outcome, 'confirmed');
      return (await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', body.booking_intent_id).executeTakeFirstOrThrow()).id;
    }
    const mailOf = async (to: string, kind: string) => {
      await ctx.app.services.mail.settled();
      const row = await ctx.database.db.selectFrom('mail_outbox').select(['subject', 'text']).where('recipient', '=', to).where('kind', '=', kind).executeTakeFirstOrThrow();
      // A catalogue string that became a function and was used as text would print its source.
      assert.doesNotMatch(`${row.subject}\n${row.text}`, /=>|function|byForm/, `${kind} to ${to}: no function source`);
      return row;
    };

    it('the Arabic receipt says «المحامية» for her, «المحامي» for him, and the neutral wording without a form', async () => {
      await book(ana, '10', 'layla@example.com', 'ar');
      await book(pablo, '10', 'omar@example.com', 'ar');
      await book(nadia, '10', 'salma@example.com', 'ar');
      const hers = (await mailOf('layla@example.com', 'consultation_receipt')).text;
      assert.match(hers, /^المحامية: +Ana Beltrán Gil/m);
      assert.match(hers, /^ {2}للمحامية: /m);
      assert.ok(hers.includes('من أتعاب المحامية.'), hers);
      assert.doesNotMatch(hers, /^ *(?:المحامي|للمحامي):/m, 'no masculine label for a woman');
      const his = (await mailOf('omar@example.com', 'consultation_receipt')).text;
      assert.match(his, /^المحامي: +Pablo Ríos Vidal/m);
      assert.match(his, /^ {2}للمحامي: /m);
      const neutral = (await mailOf('salma@example.com', 'consultation_receipt')).text;
      assert.match(neutral, /^المحامي أو المحامية: +Nadia Benali Ortega/m);
      assert.match(neutral, /^ {2}لمكتب المحاماة: /m);
      assert.ok(neutral.includes('من أتعاب الاستشارة.'), neutral);
    });

    it('the Spanish, French, Ukrainian and Romanian receipts too', async () => {
      const cases = [
        ['es', 'Abogada:', 'Para la abogada:'],
        ['fr', 'Avocate:', 'Pour l’avocate:'],
        ['uk', 'Адвокатка:', 'Адвокатці:'],
        ['ro', 'Avocată:', 'Pentru avocată:'],
      ] as const;
      for (const [i, [locale, label, share]] of cases.entries()) {
        const email = `her-${locale}@example.com`;
        await book(ana, ['09', '11', '12', '13'][i]!, email, locale);
        const { text } = await mailOf(email, 'consultation_receipt');
        assert.ok(text.split('\n').some((l) => l.startsWith(label)), `${locale}: ${label}\n${text}`);
        assert.ok(text.split('\n').some((l) => l.startsWith(`  ${share}`)), `${locale}: ${share}\n${text}`);
      }
    });

    it('the reminder and her cancellation, in Arabic, name her as a woman; a neutral cancellation without a form', async () => {
      const id = await book(ana, '10', 'huda@example.com', 'ar', THU);
      const other = await book(nadia, '10', 'karim@example.com', 'ar', THU);
      ctx.clock.set(new Date('2026-11-25T09:00:00Z')); // 24 hours before 10:00 on Thursday in Madrid
      assert.ok((await ctx.app.services.reminders.sweep()).person24h >= 1);
      assert.match((await mailOf('huda@example.com', 'consultation_reminder_24h')).text, /^المحامية: +Ana Beltrán Gil/m);

      assert.equal((await ctx.app.services.lawyerCancellation.cancel(ana, id, 'مريضة')).outcome, 'cancelled');
      const cancelled = await mailOf('huda@example.com', 'consultation_cancelled_by_lawyer');
      assert.ok(cancelled.subject.startsWith('ألغتها المحامية: '), cancelled.subject);
      assert.ok(cancelled.text.startsWith('ألغت Ana Beltrán Gil استشارتك.'), cancelled.text);
      assert.match(cancelled.text, /^المحامية: +Ana Beltrán Gil/m);

      assert.equal((await ctx.app.services.lawyerCancellation.cancel(nadia, other, 'juicio')).outcome, 'cancelled');
      const neutral = await mailOf('karim@example.com', 'consultation_cancelled_by_lawyer');
      assert.ok(neutral.subject.startsWith('ألغاها مكتب المحاماة: '), neutral.subject);
      assert.ok(neutral.text.startsWith('أُلغيت استشارتك مع Nadia Benali Ortega.'), neutral.text);
    });
  });
}
