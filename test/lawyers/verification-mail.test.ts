/**
 * Verification is a conversation (issue 26 item 6), on both databases: the lawyer is emailed when
 * she is verified, refused (with the operator's reason), 30 and 7 days before her verification
 * expires (with what to do), when it expired and when she is suspended — in her account's
 * language (Arabic here; Spanish without an account) — each once, even with two sweeps of two
 * processes racing on one PostgreSQL database (a second connection pool and outbox).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase, type Database } from '../../src/db/database.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { VerificationService } from '../../src/domain/lawyers/verification.service.ts';
import { MailOutbox } from '../../src/domain/notify/mail-outbox.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const OPERATOR: Actor = { type: 'operator', by: { kind: 'cli' } };
const SILENT = { error() {}, warn() {}, info() {} };
const DAY = 86_400_000;

for (const target of databaseTargets()) {
  describe(`verification emails (${target.name})`, () => {
    let ctx: TestContext;
    const closers: Array<() => Promise<void>> = [];
    const svc = () => ctx.app.services.verification;
    const mailsTo = (to: string) => ctx.database.db.selectFrom('mail_outbox').select(['kind', 'subject', 'text']).where('recipient', '=', to).orderBy('id').execute();

    before(async () => {
      ctx = await createTestContext(target);
    });
    after(async () => {
      for (const close of closers) await close();
      await ctx?.close();
    });

    /** A second process's verification service on the same database: its own pool (PostgreSQL) and outbox. */
    function otherProcess(): VerificationService {
      const database: Database = target.name === 'postgres' ? openDatabase(ctx.url, { poolSize: 4 }) : ctx.database;
      const mail = new MailOutbox({ database, clock: ctx.clock, mailer: null, logger: SILENT });
      closers.push(async () => {
        await mail.close();
        if (database !== ctx.database) await database.close();
      });
      return new VerificationService({ database, clock: ctx.clock, mail });
    }

    it('verified, 30 and 7 days before, expired: in her language, each once under racing sweeps', async () => {
      const [id] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Layla Benali', verified: false, contact_email: 'despacho@example.com' })], ctx.clock.now())) as [string];
      const user = await ctx.app.services.accounts.ensureUser(`layla-${target.name}@example.com`);
      await ctx.database.db.updateTable('users').set({ locale: 'ar' }).where('id', '=', user.id).execute();
      await ctx.database.db.updateTable('lawyers').set({ user_id: user.id }).where('id', '=', id).execute();
      const to = user.email;

      await svc().verify(OPERATOR, id, { note: 'Censo: ejerciente', checked: ['census'] });
      let mails = await mailsTo(to);
      assert.deepEqual(mails.map((m) => m.kind), ['lawyer_verified']);
      assert.equal(mails[0]!.subject, 'تم التحقق منك على Consulta');
      assert.match(mails[0]!.text, /مرحبًا Layla Benali،/);
      assert.match(mails[0]!.text, /2027/, 'until when');

      const other = otherProcess();
      const race = async () => Promise.all([svc().sweep(), other.sweep(), svc().sweep(), other.sweep()]);
      await race();
      assert.equal((await mailsTo(to)).length, 1, 'nothing due a year ahead');

      ctx.clock.advance(337 * DAY); // 28 days before it expires
      await race();
      await race();
      mails = await mailsTo(to);
      assert.deepEqual(mails.map((m) => m.kind), ['lawyer_verified', 'lawyer_verification_expires_30']);
      assert.match(mails[1]!.text, /ما العمل/, 'what to do');

      ctx.clock.advance(22 * DAY); // 6 days before
      await race();
      await race();
      mails = await mailsTo(to);
      assert.deepEqual(mails.map((m) => m.kind), ['lawyer_verified', 'lawyer_verification_expires_30', 'lawyer_verification_expires_7']);

      ctx.clock.advance(7 * DAY); // expired
      await race();
      await race();
      mails = await mailsTo(to);
      assert.deepEqual(mails.map((m) => m.kind), ['lawyer_verified', 'lawyer_verification_expires_30', 'lawyer_verification_expires_7', 'lawyer_verification_expired']);
      assert.equal(mails[3]!.subject, 'انتهى التحقق منك على Consulta');
      assert.equal((await mailsTo('despacho@example.com')).length, 0, 'her account\'s address, not her office\'s');
      const notices = await ctx.database.db.selectFrom('lawyer_verification_notices').select(['kind', 'mail_id']).where('lawyer_id', '=', id).execute();
      assert.equal(notices.length, 4);
      assert.ok(notices.every((n) => n.mail_id !== null));
    });

    it('refused and suspended: the operator\'s reason, in Spanish when she has no account; once', async () => {
      const [applicant, listed] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Sin Colegiar', verified: false, contact_email: 'sin@example.com' }),
        lawyerRecord({ name: 'Ana Suspendida', contact_email: 'ana@example.com' }),
      ], ctx.clock.now())) as [string, string];
      await ctx.database.db.updateTable('lawyers').set({ status: 'applied' }).where('id', '=', applicant).execute();
      await svc().refuse(OPERATOR, applicant, 'No figura en el censo con ese número.');
      const refused = await mailsTo('sin@example.com');
      assert.deepEqual(refused.map((m) => m.kind), ['lawyer_application_refused']);
      assert.equal(refused[0]!.subject, 'Tu solicitud en Consulta');
      assert.match(refused[0]!.text, /Hola, Sin Colegiar:[\s\S]*-----\nNo figura en el censo con ese número\.\n-----[\s\S]*responde a este correo/);

      await svc().suspend(OPERATOR, listed, 'Quejas reiteradas pendientes de revisión.');
      await svc().suspend(OPERATOR, listed, 'otra vez');
      const suspended = await mailsTo('ana@example.com');
      assert.deepEqual(suspended.map((m) => m.kind), ['lawyer_suspended']);
      assert.match(suspended[0]!.text, /Quejas reiteradas pendientes de revisión\./);
    });

    it('the verified subject follows how she asked to be addressed (Spanish, French, Romanian are gendered)', async () => {
      const records = [['female', 'Ya estás verificada en Consulta'], ['male', 'Ya estás verificado en Consulta'], [null, 'Tu verificación en Consulta está hecha']] as const;
      const ids = (await insertLawyers(ctx.database, records.map((_, i) => lawyerRecord({ name: `Forma ${i}`, verified: false, contact_email: `forma${i}@example.com` })), ctx.clock.now())) as string[];
      for (const [i, [form, subject]] of records.entries()) {
        await ctx.database.db.updateTable('lawyers').set({ form_of_address: form }).where('id', '=', ids[i]!).execute();
        await svc().verify(OPERATOR, ids[i]!, { note: 'Censo: ejerciente', checked: ['census'] });
        assert.deepEqual((await mailsTo(`forma${i}@example.com`)).map((m) => m.subject), [subject]);
      }
    });

    it('verifying her twice at once (two processes) writes one "verified" email; a renewal once due writes the next', async () => {
      const [id] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Dos Veces', verified: false, contact_email: 'dosveces@example.com' })], ctx.clock.now())) as [string];
      const other = otherProcess();
      const input = { note: 'Censo: ejerciente', checked: ['census' as const] };
      const both = await Promise.all([svc().verify(OPERATOR, id, input), other.verify(OPERATOR, id, input)]);
      assert.equal(both.filter((r) => r.lawyer.status === 'verified').length, 2, 'both decisions stand (the second is a correction of the first)');
      assert.deepEqual((await mailsTo('dosveces@example.com')).map((m) => m.kind), ['lawyer_verified']);
      // A correction a week later (her number fixed) is not news either.
      ctx.clock.advance(7 * DAY);
      await svc().verify(OPERATOR, id, input);
      assert.equal((await mailsTo('dosveces@example.com')).length, 1);
      // Renewed 20 days before it expires, after the 30-day reminder: she hears of the new year.
      ctx.clock.advance(338 * DAY);
      await svc().verify(OPERATOR, id, { note: 'Renovada: censo comprobado', checked: ['census'] });
      const kinds = (await mailsTo('dosveces@example.com')).map((m) => m.kind);
      assert.deepEqual(kinds.filter((k) => k === 'lawyer_verified').length, 2, kinds.join());
    });

    it('two operators deciding at once (two processes): one refusal, one suspension, one email each', async () => {
      const [applicant, listed] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Dos Negativas', verified: false, contact_email: 'dos@example.com' }),
        lawyerRecord({ name: 'Dos Suspensiones', contact_email: 'doble@example.com' }),
      ], ctx.clock.now())) as [string, string];
      await ctx.database.db.updateTable('lawyers').set({ status: 'applied' }).where('id', '=', applicant).execute();
      const other = otherProcess();
      const services = [svc(), other, svc(), other];
      // Her row is read FOR UPDATE in each decision: the later ones see what the first decided.
      const refusals = await Promise.allSettled(services.map((s) => s.refuse(OPERATOR, applicant, 'No figura en el censo.')));
      assert.equal(refusals.filter((r) => r.status === 'fulfilled').length, 1, JSON.stringify(refusals.map((r) => r.status)));
      assert.deepEqual((await mailsTo('dos@example.com')).map((m) => m.kind), ['lawyer_application_refused']);
      const suspensions = await Promise.all(services.map((s) => s.suspend(OPERATOR, listed, 'Quejas.')));
      assert.equal(suspensions.filter((r) => r.changed).length, 1);
      assert.deepEqual((await mailsTo('doble@example.com')).map((m) => m.kind), ['lawyer_suspended']);
      const audit = await ctx.database.db.selectFrom('operator_audit').select('action').where('target_id', 'in', [applicant, listed]).execute();
      assert.deepEqual(audit.map((a) => a.action).sort(), ['lawyer.refuse', 'lawyer.suspend']);
    });
  });
}
