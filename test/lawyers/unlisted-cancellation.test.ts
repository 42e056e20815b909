/**
 * Suspension and expiry cancel her upcoming consultations (issue 18 item 2 → item 6;
 * docs/lawyers.md#suspension-and-expiry), on both databases, through the real app (demo
 * provider) with a real SMTP listener: suspending her (the operator's service, as the console
 * and CLI call it) cancels each upcoming confirmed consultation with a full refund, a reason in
 * the person's language and a METHOD:CANCEL email; two concurrent expiry sweeps cancel each
 * consultation once (one refund row, one email); a later sweep does nothing more. A suspension or
 * an expiry committed by a process that died before cancelling (the decision without its
 * cancellations) is finished by the verification sweep: two sweeps at once cancel, refund and
 * email each consultation once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { Actor } from '../../src/domain/access/types.ts';
import { VerificationService } from '../../src/domain/lawyers/verification.service.ts';
import { messages } from '../../src/i18n/index.ts';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { GOOD_CARD, hold } from '../payments/support.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { createUser } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const DATE = '2026-11-24'; // Tuesday
const OPERATOR: Actor = { type: 'operator', by: { kind: 'cli' } };

for (const target of databaseTargets()) {
  describe(`suspension and expiry cancel her upcoming consultations (${target.name})`, () => {
    let ctx: TestContext;
    let smtp: SmtpListener;
    let n = 0;

    before(async () => {
      smtp = await startSmtp();
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>' } });
    });
    after(async () => {
      await ctx?.close();
      await smtp?.close();
    });

    async function booked(lawyerId: string, hour: string, locale: 'en' | 'es' | 'fr') {
      const email = `unlisted-${++n}-${target.name}@example.com`;
      const userId = await createUser(ctx, email);
      await ctx.database.db.updateTable('users').set({ locale }).where('id', '=', userId).execute();
      const h = await hold(ctx, lawyerId, DATE, hour);
      const outcome = await ctx.app.services.payments.payWithCard(h.token, userId, GOOD_CARD);
      assert.equal(outcome.kind, 'confirmed', JSON.stringify(outcome));
      const c = await ctx.database.db.selectFrom('consultations').selectAll().where('booking_intent_id', '=', h.id).executeTakeFirstOrThrow();
      return { email, consultationId: c.id, intentId: h.id };
    }

    const consultation = (id: string) => ctx.database.db.selectFrom('consultations').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const refunds = (id: string) => ctx.database.db.selectFrom('consultation_refunds').selectAll().where('consultation_id', '=', id).execute();
    const holdsOf = (intentId: string) => ctx.database.db.selectFrom('slot_holds').select('booking_intent_id').where('booking_intent_id', '=', intentId).execute();

    async function mailTo(to: string): Promise<ParsedMail[]> {
      await ctx.app.services.mail.settled();
      return Promise.all(smtp.messages.filter((m) => m.to.includes(to)).map((m) => simpleParser(m.raw)));
    }
    const cancellations = async (to: string) => (await mailTo(to)).filter((m) => m.attachments.some((a) => a.content.toString('utf8').includes('METHOD:CANCEL')));

    it('suspending her cancels each upcoming consultation: full refund, reason in the person’s language, METHOD:CANCEL email, time freed', async () => {
      const [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Suspendida Pronto' })], new Date(ctx.clock.now()))) as [string];
      const en = await booked(lawyerId, '09', 'en');
      const es = await booked(lawyerId, '10', 'es');
      const fr = await booked(lawyerId, '11', 'fr');
      assert.ok((await holdsOf(en.intentId)).length > 0, 'booked: its time is held');

      const { changed } = await ctx.app.services.verification.suspend(OPERATOR, lawyerId, 'Queja grave en investigación');
      assert.equal(changed, true);

      for (const [b, locale] of [[en, 'en'], [es, 'es'], [fr, 'fr']] as const) {
        const c = await consultation(b.consultationId);
        assert.equal(c.status, 'cancelled_by_lawyer', locale);
        assert.equal(c.status_reason, messages(locale).mail.lawyerCancellation.unlistedReason(null), `reason in ${locale}`);
        assert.notEqual(c.status_reason, 'Queja grave en investigación', 'the operator’s internal reason is never sent to the person');
        const rows = await refunds(b.consultationId);
        assert.equal(rows.length, 1);
        assert.equal(rows[0]!.status, 'succeeded');
        assert.equal(rows[0]!.amount_cents, 6000);
        assert.deepEqual(await holdsOf(b.intentId), [], 'time freed');
        const mails = await cancellations(b.email);
        assert.equal(mails.length, 1, `one cancellation email (${locale})`);
        assert.ok(mails[0]!.text!.includes(messages(locale).mail.lawyerCancellation.unlistedReason(null)), `the email gives the reason in ${locale}`);
      }
      // Suspending again changes nothing and sends nothing.
      assert.equal((await ctx.app.services.verification.suspend(OPERATOR, lawyerId, 'again')).changed, false);
      assert.equal((await cancellations(en.email)).length, 1);
    });

    it('expiry: two concurrent sweeps cancel each consultation once (one refund, one email); a later sweep does nothing', async () => {
      const [lawyerId, other] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Caduca Hoy' }), lawyerRecord({ name: 'Sigue Verificada' })], new Date(ctx.clock.now()))) as [string, string];
      const a = await booked(lawyerId, '12', 'es');
      const b = await booked(lawyerId, '13', 'en');
      const kept = await booked(other, '12', 'en');
      // Her verification ended a minute ago; the other lawyer's did not.
      const ended = new Date(ctx.clock.now().getTime() - 60_000).toISOString();
      await ctx.database.db.updateTable('lawyer_verifications').set({ expires_at: ended }).where('lawyer_id', '=', lawyerId).execute();
      await ctx.database.db.updateTable('lawyers').set({ verified_until: ended }).where('id', '=', lawyerId).execute();

      const swept = await Promise.all([ctx.app.services.verification.sweep(), ctx.app.services.verification.sweep()]);
      assert.ok(swept.some((s) => s.expired >= 1));
      for (const x of [a, b]) {
        assert.equal((await consultation(x.consultationId)).status, 'cancelled_by_lawyer');
        assert.equal((await refunds(x.consultationId)).length, 1, 'one refund row');
        assert.equal((await cancellations(x.email)).length, 1, 'one email');
      }
      assert.equal((await consultation(a.consultationId)).status_reason, messages('es').mail.lawyerCancellation.unlistedReason(null));
      assert.equal((await consultation(kept.consultationId)).status, 'confirmed', 'another lawyer’s consultation stands');
      assert.equal((await refunds(kept.consultationId)).length, 0);

      await ctx.app.services.verification.sweep();
      assert.equal((await cancellations(a.email)).length, 1, 'nothing more');
      assert.equal((await refunds(a.consultationId)).length, 1);
    });
    it('a suspension committed without its cancellations (the process died): two concurrent sweeps finish them, each once', async () => {
      const [lawyerId, other] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Suspendida Sin Cancelar' }), lawyerRecord({ name: 'Sigue Activa' })], new Date(ctx.clock.now()))) as [string, string];
      const a = await booked(lawyerId, '09', 'es');
      const b = await booked(lawyerId, '10', 'fr');
      const kept = await booked(other, '09', 'en');
      // The suspension's transaction, and nothing after it: what a crash right after the commit leaves.
      const crashing = new VerificationService({ database: ctx.database, clock: ctx.clock, mail: ctx.app.services.mail });
      assert.equal((await crashing.suspend(OPERATOR, lawyerId, 'Queja grave')).changed, true);
      assert.equal((await consultation(a.consultationId)).status, 'confirmed', 'left standing by the crash');
      assert.equal((await refunds(a.consultationId)).length, 0);

      const swept = await Promise.all([ctx.app.services.verification.sweep(), ctx.app.services.verification.sweep()]);
      assert.equal(swept[0].finished + swept[1].finished, 2, 'two consultations finished, between both sweeps');
      for (const [x, locale] of [[a, 'es'], [b, 'fr']] as const) {
        const c = await consultation(x.consultationId);
        assert.equal(c.status, 'cancelled_by_lawyer');
        assert.equal(c.status_reason, messages(locale).mail.lawyerCancellation.unlistedReason(null));
        const rows = await refunds(x.consultationId);
        assert.equal(rows.length, 1, 'one refund row');
        assert.equal(rows[0]!.status, 'succeeded', 'refunded');
        assert.deepEqual(await holdsOf(x.intentId), [], 'time freed');
        assert.equal((await cancellations(x.email)).length, 1, 'one email');
      }
      assert.equal((await consultation(kept.consultationId)).status, 'confirmed', 'a listed lawyer’s consultation stands');

      const again = await ctx.app.services.verification.sweep();
      assert.equal(again.finished, 0, 'nothing left to finish');
      assert.equal((await cancellations(a.email)).length, 1);
    });

    it('an expiry committed without its cancellations (unlisted, then the process died): the sweep finishes them', async () => {
      const [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Caducada Sin Cancelar' })], new Date(ctx.clock.now()))) as [string];
      const a = await booked(lawyerId, '11', 'en');
      const ended = new Date(ctx.clock.now().getTime() - 60_000).toISOString();
      await ctx.database.db.updateTable('lawyer_verifications').set({ expires_at: ended }).where('lawyer_id', '=', lawyerId).execute();
      // What the expiry pass commits (the flags recomputed) before it would cancel.
      await ctx.database.db.updateTable('lawyers').set({ verified: 0, listed: 0, verified_until: null }).where('id', '=', lawyerId).execute();
      assert.equal((await consultation(a.consultationId)).status, 'confirmed');

      const swept = await Promise.all([ctx.app.services.verification.sweep(), ctx.app.services.verification.sweep()]);
      assert.equal(swept[0].expired + swept[1].expired, 0, 'no longer seen by the expiry pass');
      assert.equal(swept[0].finished + swept[1].finished, 1);
      assert.equal((await consultation(a.consultationId)).status, 'cancelled_by_lawyer');
      assert.equal((await refunds(a.consultationId)).length, 1);
      assert.equal((await cancellations(a.email)).length, 1);
    });
  });
}
