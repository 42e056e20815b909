/**
 * A lawyer cancels (docs/lawyers.md#cancelling-by-the-lawyer), on both databases, through the
 * real app (demo provider) with a real SMTP listener: two concurrent cancellations → one
 * cancellation, one refund row and one provider refund; a crash between the commit and the
 * refund → the sweep refunds exactly once, and again is a no-op; the freed time is offered again
 * by the API's availability; the person's email arrives in their language with a METHOD:CANCEL
 * invitation of the same UID as the receipt's and SEQUENCE 1; an authorization never captured is
 * released (voided), not refunded; a free consultation has nothing to refund.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ICAL from 'ical.js';
import { simpleParser, type ParsedMail } from 'mailparser';
import { LawyerCancellationService } from '../../src/domain/booking/lawyer-cancellation.service.ts';
import type { RefundRequest, RefundResult } from '../../src/payments/provider.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { GOOD_CARD, ScriptedCardProvider, attemptsOf, hold } from '../payments/support.ts';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import { createUser, isAvailable } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const DATE = '2026-11-24'; // Tuesday; Madrid on winter time

/** A provider that dies on refunds (the process "crashes" after the commit). */
class CrashingRefunds extends ScriptedCardProvider {
  override async refund(request: RefundRequest): Promise<RefundResult> {
    this.calls.push({ op: 'refund', ref: request.paymentRef, key: request.idempotencyKey });
    throw new Error('process killed');
  }
}

for (const target of databaseTargets()) {
  describe(`lawyer cancels a consultation (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let lawyerId: string;
    let freeLawyerId: string;
    let n = 0;

    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>' } });
      [lawyerId, freeLawyerId] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Lucía Fernández Ruiz', contact_email: 'lucia@despacho.example' }),
        lawyerRecord({ name: 'Gratis Abogada', consultation_fee_cents: 0 }),
      ])) as [string, string];
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });

    /** A paid (captured) consultation of a fresh person with `locale`, at `hour`. */
    async function booked(hour: string, locale: 'en' | 'es' = 'en', lawyer = lawyerId, date = DATE) {
      const email = `person-${++n}-${target.name}@example.com`;
      const userId = await createUser(ctx, email);
      await ctx.database.db.updateTable('users').set({ locale }).where('id', '=', userId).execute();
      const h = await hold(ctx, lawyer, date, hour);
      const outcome = await ctx.app.services.payments.payWithCard(h.token, userId, GOOD_CARD);
      assert.equal(outcome.kind, 'confirmed', JSON.stringify(outcome));
      const c = await ctx.database.db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { email, userId, intentId: h.id, consultationId: c.id };
    }

    const service = (provider: ScriptedCardProvider) =>
      new LawyerCancellationService({ database: ctx.database, clock: ctx.clock, mail: ctx.app.services.mail, provider, siteUrl: ctx.config.siteUrl, cache: ctx.app.services.directoryCache });
    const refunds = (consultationId: string) => ctx.database.db.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', consultationId).execute();
    const consultation = (id: string) => ctx.database.db.selectFrom('consultations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

    async function mailTo(to: string): Promise<ParsedMail[]> {
      await ctx.app.services.mail.settled();
      return Promise.all(smtp.messages.filter((m) => m.to.includes(to)).map((m) => simpleParser(m.raw)));
    }

    function calendarOf(mail: ParsedMail) {
      const attachment = mail.attachments.find((a) => a.contentType === 'text/calendar');
      assert.ok(attachment, 'an .ics attachment');
      const cal = new ICAL.Component(ICAL.parse(attachment.content.toString('utf8')));
      const vevent = cal.getFirstSubcomponent('vevent')!;
      return { method: cal.getFirstPropertyValue('method'), event: new ICAL.Event(vevent), status: vevent.getFirstPropertyValue('status'), sequence: vevent.getFirstPropertyValue('sequence') };
    }

    it('two concurrent cancellations: one proceeds, one refund row, one refund at the provider', async () => {
      const b = await booked('09');
      assert.equal(await isAvailable(ctx, lawyerId, DATE, '09:00:00'), false, 'booked: not offered');
      const provider = new ScriptedCardProvider(ctx.clock);
      const svc = service(provider);
      const results = await Promise.all([svc.cancel(lawyerId, b.consultationId, 'Enfermedad'), svc.cancel(lawyerId, b.consultationId, 'Enfermedad')]);
      assert.deepEqual(results.map((r) => r.outcome).sort(), ['cancelled', 'not_confirmed']);
      const won = results.find((r) => r.outcome === 'cancelled')!;
      assert.equal(won.outcome === 'cancelled' && won.refund, 'refunded');
      assert.equal(provider.calls.filter((c) => c.op === 'refund').length, 1, 'one refund call');
      const rows = await refunds(b.consultationId);
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 'succeeded');
      assert.equal(rows[0]!.amount_cents, 6000);
      assert.equal(rows[0]!.initiated_by, 'lawyer');
      assert.equal(rows[0]!.provider_ref, `demo_refund_${rows[0]!.id}`);
      assert.equal(provider.calls.find((c) => c.op === 'refund')!.key, rows[0]!.id, 'keyed by the refund row');
      const c = await consultation(b.consultationId);
      assert.equal(c.status, 'cancelled_by_lawyer');
      assert.equal(c.status_reason, 'Enfermedad');
      assert.equal(c.ics_sequence, 1);
      // The freed time is offered again, by the public API.
      assert.equal(await isAvailable(ctx, lawyerId, DATE, '09:00:00'), true, 'freed');
      // A third try, later: nothing more.
      assert.equal((await svc.cancel(lawyerId, b.consultationId, 'again')).outcome, 'not_confirmed');
      assert.equal(provider.calls.filter((c) => c.op === 'refund').length, 1);
    });

    it('the person is emailed in their language: METHOD:CANCEL, same UID as the receipt, SEQUENCE 1', async () => {
      const b = await booked('10', 'en');
      const receipt = (await mailTo(b.email))[0]!;
      const original = calendarOf(receipt);
      assert.equal(original.method, 'PUBLISH');
      await service(new ScriptedCardProvider(ctx.clock)).cancel(lawyerId, b.consultationId, 'I am in court that morning; sorry');
      const mails = await mailTo(b.email);
      assert.equal(mails.length, 2, 'receipt and cancellation');
      const mail = mails.find((m) => m !== mails.find((x) => x.subject === receipt.subject))!;
      assert.equal(mail.subject, 'Cancelled by the lawyer: your consultation with Lucía Fernández Ruiz, Tuesday, 24 November 2026, 10:00');
      assert.match(mail.text ?? '', /I am in court that morning; sorry/);
      assert.match(mail.text ?? '', /a refund of €60\.00/);
      const cancel = calendarOf(mail);
      assert.equal(cancel.method, 'CANCEL');
      assert.equal(cancel.status, 'CANCELLED');
      assert.equal(cancel.event.uid, original.event.uid);
      assert.equal(cancel.event.uid, `${b.intentId}@consulta.test`);
      assert.ok(Number(cancel.sequence) >= 1 && Number(cancel.sequence) > Number(original.sequence), 'a higher SEQUENCE');
      assert.equal(cancel.event.startDate.toJSDate().toISOString(), '2026-11-24T09:00:00.000Z');
    });

    it('Spanish for a person whose language is Spanish', async () => {
      const b = await booked('11', 'es');
      await service(new ScriptedCardProvider(ctx.clock)).cancel(lawyerId, b.consultationId, 'Juicio');
      const mail = (await mailTo(b.email)).find((m) => m.subject?.startsWith('Cancelada'));
      assert.ok(mail, 'a Spanish cancellation');
      assert.match(mail.text ?? '', /reembolso de 60,00\s€/);
      assert.equal(mail.attachments[0]?.filename, 'cancelacion.ics');
    });

    it('a crash between the commit and the refund: the sweep refunds exactly once', async () => {
      const b = await booked('12');
      const crashing = new CrashingRefunds(ctx.clock);
      const result = await service(crashing).cancel(lawyerId, b.consultationId, 'Viaje');
      assert.equal(result.outcome === 'cancelled' && result.refund, 'pending');
      assert.equal((await refunds(b.consultationId))[0]!.status, 'pending');
      const healthy = new ScriptedCardProvider(ctx.clock);
      const sweeper = service(healthy);
      // Not yet a minute old: the sweep leaves it to its own process.
      assert.equal(await sweeper.finishPendingRefunds(), 0);
      assert.equal(healthy.calls.length, 0);
      ctx.clock.advance(61_000);
      assert.equal(await sweeper.finishPendingRefunds(), 1);
      assert.equal(await sweeper.finishPendingRefunds(), 0, 'a second sweep finds nothing');
      const [row] = await refunds(b.consultationId);
      assert.equal(row!.status, 'succeeded');
      const calls = healthy.calls.filter((c) => c.op === 'refund');
      assert.equal(calls.length, 1);
      assert.equal(calls[0]!.key, crashing.calls[0]!.key, 'the same idempotency key as the interrupted call');
      // The app's own sweep (jobs) finds nothing more either.
      assert.equal(await ctx.app.services.lawyerCancellation.finishPendingRefunds(), 0);
    });

    it('an authorization never captured is released (voided), not refunded', async () => {
      const b = await booked('13');
      const [attempt] = await attemptsOf(ctx.database, b.intentId);
      // As if the process had stopped between the confirmation and the capture.
      await ctx.database.db.updateTable('payment_attempts').set({ status: 'authorized', captured_at: null }).where('id', '=', attempt!.id).execute();
      const provider = new ScriptedCardProvider(ctx.clock);
      const result = await service(provider).cancel(lawyerId, b.consultationId, 'Vacaciones');
      assert.equal(result.outcome === 'cancelled' && result.refund, 'released');
      assert.deepEqual(provider.calls.map((c) => c.op), ['void']);
      assert.equal((await attemptsOf(ctx.database, b.intentId))[0]!.status, 'voided');
      // The payments sweep no longer captures it.
      await ctx.app.services.payments.sweep();
      assert.equal((await attemptsOf(ctx.database, b.intentId))[0]!.status, 'voided');
      assert.equal((await refunds(b.consultationId))[0]!.status, 'succeeded');
      const mail = (await mailTo(b.email)).find((m) => m.subject?.startsWith('Cancelled'));
      assert.match(mail?.text ?? '', /You were not charged/);
    });

    it('a free consultation: cancelled and freed, nothing to refund', async () => {
      const b = await booked('09', 'en', freeLawyerId);
      const provider = new ScriptedCardProvider(ctx.clock);
      const result = await service(provider).cancel(freeLawyerId, b.consultationId, 'Cambio de planes');
      assert.equal(result.outcome === 'cancelled' && result.refund, 'none');
      assert.equal(provider.calls.length, 0);
      assert.equal((await refunds(b.consultationId)).length, 0);
      assert.equal(await isAvailable(ctx, freeLawyerId, DATE, '09:00:00'), true);
    });

    it('refuses: another lawyer\'s consultation, no reason, a consultation that has started', async () => {
      const b = await booked('09', 'en', lawyerId, '2026-11-25');
      const svc = service(new ScriptedCardProvider(ctx.clock));
      await assert.rejects(svc.cancel(freeLawyerId, b.consultationId, 'x'), { code: 'not_found' });
      await assert.rejects(svc.cancel(lawyerId, b.consultationId, '   '), { code: 'invalid_request' });
      await assert.rejects(svc.cancel(lawyerId, 'not-a-uuid', 'x'), { code: 'not_found' });
      assert.equal((await consultation(b.consultationId)).status, 'confirmed');
      const saved = ctx.clock.now().getTime();
      ctx.clock.set(new Date(Date.parse('2026-11-25T08:05:00Z')));
      try {
        await assert.rejects(svc.cancel(lawyerId, b.consultationId, 'late'), { code: 'conflict' });
      } finally {
        ctx.clock.set(new Date(saved));
      }
      assert.equal((await consultation(b.consultationId)).status, 'confirmed');
      assert.equal(SITE, 'http://consulta.test');
    });
  });
}
