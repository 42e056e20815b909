/**
 * Reminders of consultations (docs/mail.md#reminders), on both databases, through the real app
 * with SMTP_URL pointing at a real listener and a manual clock: the person's reminders 24 hours
 * and 1 hour before (once each, in their language, none for a booking made inside the window),
 * the lawyer's digest the evening before, the held transition with one review invitation (a
 * no-show marked by the lawyer wins; one she marked held herself is invited too), cancelled consultations left alone, a moved one reminded for
 * its new time, a restart that sends nothing again, and two sweepers racing on one database (on
 * PostgreSQL through a second connection pool, as another process would).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { simpleParser, type ParsedMail } from 'mailparser';
import { startSmtp, type SmtpListener } from '../access/support.ts';
import { createTestContext, SITE, type TestContext } from '../support/app.ts';
import { createUser, initiate, slotBody, tokenOf } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { MailOutbox } from '../../src/domain/notify/mail-outbox.ts';
import { SmtpMailer } from '../../src/domain/notify/mailer.ts';
import { RemindersService, type SweepReport } from '../../src/domain/reminders/reminders.service.ts';
import { listRemindersOf } from '../../src/db/repositories/reminders.repository.ts';

// TEST_NOW is Monday 23 November 2026, 08:00 UTC (09:00 in Madrid, winter time UTC+1).
const TUE = '2026-11-24';
const WED = '2026-11-25';
const THU = '2026-11-26';
const SILENT = { error() {}, warn() {}, info() {} };

for (const target of databaseTargets()) {
  describe(`consultation reminders (${target.name})`, () => {
    let smtp: SmtpListener;
    let ctx: TestContext;
    let lucia: string;
    let nadia: string;
    let address = 0;
    const extra: Array<{ close(): Promise<void> }> = [];

    before(async () => {
      smtp = await startSmtp();
    });
    after(async () => {
      await smtp.close();
    });
    beforeEach(async () => {
      smtp.messages.length = 0;
      ctx = await createTestContext(target, { config: { smtpUrl: smtp.url, mailFrom: 'Consulta <no-reply@consulta.test>', minLeadTimeMinutes: 30 } });
      [lucia, nadia] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Lucía Fernández Ruiz', city: 'madrid', contact_email: 'lucia@despacho.example' }),
        lawyerRecord({ name: 'Nadia Benali Ortega', city: 'las-palmas-de-gran-canaria' }),
      ])) as [string, string];
    });
    afterEach(async () => {
      await ctx.app.services.mail.settled();
      for (const e of extra.splice(0)) await e.close();
      await ctx.close();
    });

    const at = (iso: string) => ctx.clock.set(new Date(iso));
    const sweep = () => ctx.app.services.reminders.sweep();

    /** Books `hour` (Madrid or Canary wall-clock) on `date` for `email`; returns the consultation id. */
    async function book(lawyerId: string, date: string, hour: string, email: string): Promise<string> {
      const user = await createUser(ctx, email);
      const res = await initiate(ctx, slotBody(lawyerId, date, hour), { remoteAddress: `198.51.100.${++address % 250}` });
      assert.equal(res.statusCode, 201, res.body);
      const body = res.json() as { booking_intent_id: string; confirmation_url: string };
      assert.equal((await ctx.app.services.booking.confirm(tokenOf(body.confirmation_url), user)).outcome, 'confirmed');
      const row = await ctx.database.db.selectFrom('consultations').select('id').where('booking_intent_id', '=', body.booking_intent_id).executeTakeFirstOrThrow();
      return row.id;
    }

    async function mailTo(to: string): Promise<ParsedMail[]> {
      await ctx.app.services.mail.settled();
      return Promise.all(smtp.messages.filter((m) => m.to.includes(to)).map((m) => simpleParser(m.raw)));
    }

    /** Forgets the mail sent so far (receipts and notices), so the listener holds only what follows. */
    async function forgetMail(): Promise<void> {
      await ctx.app.services.mail.settled();
      smtp.messages.length = 0;
    }

    const kindsTo = async (to: string) => (await ctx.database.db.selectFrom('mail_outbox').select('kind').where('recipient', '=', to).orderBy('id').execute()).map((r) => r.kind);
    const total = (reports: SweepReport[], key: keyof SweepReport) => reports.reduce((n, r) => n + r[key], 0);

    /** A second sweeper on the same database, as another process: its own outbox and SMTP connection. */
    function otherProcess(): RemindersService {
      // PostgreSQL: its own connection pool. SQLite: the same connection (a second one in this
      // process would block the event loop in its busy wait; across processes SQLite serialises writers itself).
      const database: Database = target.name === 'postgres' ? openDatabase(ctx.url, { poolSize: 4 }) : ctx.database;
      const mail = new MailOutbox({ database, clock: ctx.clock, mailer: new SmtpMailer(smtp.url, 'Consulta <no-reply@consulta.test>'), logger: SILENT });
      extra.push({ close: async () => { await mail.close(); if (database !== ctx.database) await database.close(); } });
      return new RemindersService({ database, clock: ctx.clock, mail, siteUrl: SITE });
    }

    it('sends the 24-hour and the 1-hour reminder once each, at their time, in the person\'s language', async () => {
      const id = await book(lucia, WED, '10', 'john@example.com'); // 09:00 UTC on Wednesday
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('email', '=', 'john@example.com').execute();
      await ctx.database.db.updateTable('consultations').set({ format: 'video', person_timezone: 'Europe/London' }).where('id', '=', id).execute();
      await forgetMail();

      assert.equal((await sweep()).person24h, 0);
      at('2026-11-24T08:59:00Z');
      assert.equal((await sweep()).person24h, 0, 'not before 24 hours');
      at('2026-11-24T09:00:00Z');
      assert.equal((await sweep()).person24h, 1);
      assert.equal((await sweep()).person24h, 0, 'once');
      at('2026-11-24T15:00:00Z');
      // A restart: a new service instance finds the claim and sends nothing.
      const restarted = new RemindersService({ database: ctx.database, clock: ctx.clock, mail: ctx.app.services.mail, siteUrl: SITE });
      assert.deepEqual(await restarted.sweep(), { person24h: 0, person1h: 0, lawyerDigests: 0, held: 0, reviewInvitations: 0 });

      const [day] = await mailTo('john@example.com');
      assert.match(day!.subject ?? '', /^Reminder: your consultation with Lucía Fernández Ruiz, Wednesday,? 25 November 2026, 10:00$/);
      const text = day!.text ?? '';
      assert.match(text, /10:00–11:00 \(.*UTC\+01:00\)/, 'the lawyer\'s time and zone');
      assert.match(text, /09:00–10:00 \(.*UTC\+00:00\)/, 'the person\'s own time (London)');
      assert.ok(text.includes(`${SITE}/consultations/${id}`), 'the consultation page');
      assert.match(text, /By video: the link to join appears on your consultation page 15 minutes before the start\./);
      assert.match(text, /Free cancellation until Tuesday,? 24 November 2026, 10:00\./, 'the policy: free cancellation ends now');

      at('2026-11-25T07:59:00Z');
      assert.equal((await sweep()).person1h, 0, 'not before 1 hour');
      at('2026-11-25T08:00:00Z');
      const [a, b] = await Promise.all([sweep(), restarted.sweep()]);
      assert.equal(a.person1h + b.person1h, 1);
      const mails = await mailTo('john@example.com');
      assert.equal(mails.length, 2, 'the two reminders');
      assert.match(mails[1]!.subject ?? '', /^In one hour: your consultation with Lucía Fernández Ruiz/);
      assert.doesNotMatch(mails[1]!.text ?? '', /cancellation/i, 'the policy line is the 24-hour reminder\'s');
      at('2026-11-25T08:59:00Z');
      assert.equal((await sweep()).person1h, 0);
      assert.deepEqual(await kindsTo('john@example.com'), ['consultation_receipt', 'consultation_reminder_24h', 'consultation_reminder_1h']);
      const rows = await listRemindersOf(ctx.database.db, id);
      assert.deepEqual(rows.map((r) => [r.kind, r.starts_at]).sort(), [['person_1h', '2026-11-25T09:00:00.000Z'], ['person_24h', '2026-11-25T09:00:00.000Z']]);
      assert.ok(rows.every((r) => r.mail_id !== null), 'each row names its mail');
    });

    it('sends no 24-hour reminder for a booking made inside 24 hours, and none at all inside the hour; the booking\'s language serves when the account has none', async () => {
      const soon = await book(lucia, '2026-11-23', '13', 'marie@example.com'); // 12:00 UTC, 4 hours ahead
      await ctx.database.db.updateTable('consultations').set({ locale: 'fr' }).where('id', '=', soon).execute();
      at('2026-11-23T09:25:00Z');
      await book(lucia, '2026-11-23', '11', 'late@example.com'); // 10:00 UTC, 35 minutes ahead
      for (const t of ['2026-11-23T09:30:00Z', '2026-11-23T09:59:00Z', '2026-11-23T10:30:00Z', '2026-11-23T10:59:00Z']) {
        at(t);
        const r = await sweep();
        assert.equal(r.person24h + r.person1h, 0, t);
      }
      at('2026-11-23T11:00:00Z');
      assert.equal((await sweep()).person1h, 1);
      assert.deepEqual(await kindsTo('marie@example.com'), ['consultation_receipt', 'consultation_reminder_1h']);
      assert.deepEqual(await kindsTo('late@example.com'), ['consultation_receipt']);
      const reminders = (await mailTo('marie@example.com')).filter((m) => !m.subject?.startsWith('Reservada'));
      assert.equal(reminders.length, 1);
      assert.match(reminders[0]!.subject ?? '', /^Dans une heure\u00a0: votre consultation avec Lucía Fernández Ruiz, lundi 23 novembre 2026, 13:00$/);
    });

    it('skips a 24-hour reminder that is too late (the 1-hour one is due); a late 24-hour one says there is no refund; Spanish is the default', async () => {
      const id = await book(lucia, TUE, '12', 'ana@example.com'); // 11:00 UTC Tuesday
      const eva = await book(lucia, TUE, '13', 'eva@example.com'); // 12:00 UTC Tuesday
      await ctx.database.db.updateTable('consultations').set({ format: 'phone', phone_e164: '+34600111222' }).where('id', '=', id).execute();
      await ctx.database.db.updateTable('consultations').set({ format: 'in_person' }).where('id', '=', eva).execute();
      await ctx.database.db.updateTable('lawyers').set({ office_address: 'Calle de Serrano 1, 28001 Madrid' }).where('id', '=', lucia).execute();
      await forgetMail();
      // The processes were down from Monday until 30 minutes before the first start.
      at('2026-11-24T10:30:00Z');
      assert.deepEqual(await sweep(), { person24h: 1, person1h: 1, lawyerDigests: 0, held: 0, reviewInvitations: 0 });
      const [reminder, ...more] = await mailTo('ana@example.com');
      assert.equal(more.length, 0, 'only the 1-hour one');
      assert.match(reminder!.subject ?? '', /^En una hora: tu consulta con Lucía Fernández Ruiz, martes, 24 de noviembre de 2026, 12:00$/);
      assert.match(reminder!.text ?? '', /Por teléfono: el despacho te llama al \+34600111222\./);
      // Eva's 24-hour reminder is late but still before her last hour: it goes, and says the free cancellation is over.
      const [late] = await mailTo('eva@example.com');
      assert.match(late!.subject ?? '', /^Recordatorio: tu consulta con Lucía Fernández Ruiz, martes, 24 de noviembre de 2026, 13:00$/);
      assert.match(late!.text ?? '', /En persona, en el despacho: Calle de Serrano 1, 28001 Madrid\./);
      assert.match(late!.text ?? '', /Empieza en menos de 24 horas: si cancelas ahora, no se te devolverá el importe\./);
      assert.doesNotMatch(late!.text ?? '', /En tu hora|Your time/, 'no second time when the person\'s zone is unknown');
    });

    it('sends each lawyer one digest of tomorrow from 18:00 her time, in her language, without what was booked after', async () => {
      const ana = await book(lucia, TUE, '10', 'ana@example.com');
      const bea = await book(lucia, TUE, '12', 'bea@example.com');
      const gone = await book(lucia, TUE, '11', 'cancelled@example.com');
      await ctx.database.db.updateTable('consultations').set({ format: 'phone', phone_e164: '+34600111222' }).where('id', '=', ana).execute();
      await ctx.database.db.updateTable('consultations').set({ status: 'cancelled_by_person', status_changed_at: '2026-11-23T08:10:00.000Z' }).where('id', '=', gone).execute();
      // Nadia (Canary Islands, UTC+0) has an account in English and no contact address.
      const nadiaUser = await createUser(ctx, 'nadia@example.com');
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('id', '=', nadiaUser).execute();
      await ctx.database.db.updateTable('lawyers').set({ user_id: nadiaUser }).where('id', '=', nadia).execute();
      await book(nadia, TUE, '09', 'carl@example.com');

      at('2026-11-23T16:59:00Z'); // 17:59 in Madrid
      assert.equal((await sweep()).lawyerDigests, 0);
      at('2026-11-23T17:10:00Z');
      await book(lucia, TUE, '13', 'after@example.com'); // booked after 18:00 in Madrid: her notice serves
      at('2026-11-23T17:20:00Z');
      const [one, two] = await Promise.all([sweep(), otherProcess().sweep()]);
      assert.equal(one.lawyerDigests + two.lawyerDigests, 1, 'one digest, for Lucía (18:20 in Madrid, 17:20 in the Canaries)');
      const digests = (await mailTo('lucia@despacho.example')).filter((m) => m.subject?.startsWith('Mañana'));
      assert.equal(digests.length, 1);
      assert.equal(digests[0]!.subject, 'Mañana, martes, 24 de noviembre de 2026: 2 consultas');
      const text = digests[0]!.text ?? '';
      assert.match(text, /- 10:00–11:00 · ana@example\.com · teléfono · llamar al \+34600111222/);
      assert.match(text, /- 12:00–13:00 · bea@example\.com/);
      assert.ok(text.indexOf('10:00–11:00') < text.indexOf('12:00–13:00'), 'in order of time');
      assert.doesNotMatch(text, /cancelled@|after@|13:00–14:00/);
      assert.match(text, /Horas en hora peninsular, UTC\+01:00\./);
      assert.ok(text.includes(`${SITE}/lawyer/consultations`));

      at('2026-11-23T18:00:00Z'); // 18:00 in the Canaries
      assert.equal((await sweep()).lawyerDigests, 1);
      const [english] = (await mailTo('nadia@example.com')).filter((m) => m.subject?.startsWith('Tomorrow'));
      assert.match(english!.subject ?? '', /^Tomorrow, Tuesday,? 24 November 2026: 1 consultation$/);
      assert.match(english!.text ?? '', /- 09:00–10:00 · carl@example\.com/);
      at('2026-11-23T22:00:00Z');
      assert.equal((await sweep()).lawyerDigests, 0, 'once per lawyer and day');
      assert.deepEqual((await kindsTo('lucia@despacho.example')).filter((k) => k === 'consultation_lawyer_day_before').length, 1);
      const digestRows = await ctx.database.db.selectFrom('consultation_reminders').select(['consultation_id', 'mail_id']).where('kind', '=', 'lawyer_day_before').execute();
      assert.equal(digestRows.length, 3, 'one row per consultation listed (two for Lucía, one for Nadia)');
      const luciaMails = digestRows.filter((r) => r.consultation_id === ana || r.consultation_id === bea).map((r) => r.mail_id);
      assert.equal(luciaMails.length, 2);
      assert.ok(luciaMails[0] !== null && luciaMails[0] === luciaMails[1], 'Lucía\'s two rows name her one digest');
      assert.equal((await listRemindersOf(ctx.database.db, gone)).length, 0, 'nothing for the cancelled one');
    });

    it('two sweepers on one database send each reminder once', async () => {
      const people = ['p1@example.com', 'p2@example.com', 'p3@example.com'];
      const ids = [];
      for (const [i, email] of people.entries()) ids.push(await book(lucia, WED, String(10 + i), email));
      at('2026-11-24T11:00:00Z');
      const sweepers = [ctx.app.services.reminders, otherProcess(), otherProcess()];
      const reports = await Promise.all(sweepers.map((s) => s.sweep()));
      assert.equal(total(reports, 'person24h'), 3);
      for (const email of people) assert.equal((await mailTo(email)).filter((m) => m.subject?.startsWith('Recordatorio')).length, 1, email);
      at('2026-11-25T08:30:00Z');
      const again = await Promise.all(sweepers.map((s) => s.sweep()));
      assert.equal(total(again, 'person1h'), 1, 'the 10:00 one is within the hour');
      assert.equal(total(again, 'person24h'), 0);
      for (const email of people) assert.equal((await kindsTo(email)).filter((k) => k.startsWith('consultation_reminder')).length, email === 'p1@example.com' ? 2 : 1, email);
    });

    it('reminds a moved consultation for its new time', async () => {
      const id = await book(lucia, WED, '10', 'moved@example.com');
      await forgetMail();
      at('2026-11-24T09:00:00Z');
      assert.equal((await sweep()).person24h, 1);
      // Moved on Tuesday to Thursday at the same hour (as the move does: new slot, where it was, when).
      at('2026-11-24T09:30:00Z');
      await ctx.database.db
        .updateTable('consultations')
        .set({ slot_date: THU, moved_from_date: WED, moved_from_start_time: '10:00:00', status_changed_at: '2026-11-24T09:30:00.000Z' })
        .where('id', '=', id)
        .execute();
      at('2026-11-25T08:00:00Z');
      assert.equal((await sweep()).person1h, 0, 'nothing for the old time');
      at('2026-11-25T09:00:00Z');
      assert.equal((await sweep()).person24h, 1, 'the 24-hour reminder for the new time');
      at('2026-11-26T08:00:00Z');
      assert.equal((await sweep()).person1h, 1);
      const mails = await mailTo('moved@example.com');
      assert.equal(mails.length, 3);
      assert.match(mails[1]!.subject ?? '', /jueves, 26 de noviembre de 2026, 10:00$/);
      const rows = await listRemindersOf(ctx.database.db, id);
      assert.deepEqual(rows.map((r) => [r.kind, r.starts_at]).sort(), [
        ['person_1h', '2026-11-26T09:00:00.000Z'],
        ['person_24h', '2026-11-25T09:00:00.000Z'],
        ['person_24h', '2026-11-26T09:00:00.000Z'],
      ]);
    });

    it('marks a past consultation held and invites the person to review it once; a no-show and a cancellation are left alone', async () => {
      const held = await book(lucia, TUE, '10', 'held@example.com'); // 09:00–10:00 UTC
      const absent = await book(lucia, TUE, '11', 'absent@example.com'); // 10:00–11:00 UTC
      const cancelled = await book(lucia, TUE, '12', 'gone@example.com');
      const marked = await book(lucia, TUE, '09', 'marked@example.com'); // 08:00–09:00 UTC, marked held by the lawyer
      await ctx.database.db.updateTable('users').set({ locale: 'en' }).where('email', '=', 'held@example.com').execute();
      await ctx.database.db.updateTable('consultations').set({ status: 'cancelled_by_person', status_changed_at: '2026-11-23T08:05:00.000Z' }).where('id', '=', cancelled).execute();

      at('2026-11-24T10:30:00Z');
      await ctx.app.services.lawyerConsultations.markOutcome(lucia, absent, 'no_show');
      await ctx.app.services.lawyerConsultations.markOutcome(lucia, marked, 'held');
      at('2026-11-24T10:59:00Z');
      const early = await sweep();
      assert.equal(early.held, 0, 'an hour after the end, not before');
      assert.equal(early.reviewInvitations, 1, 'the one the lawyer marked held ended two hours ago: invited');
      at('2026-11-24T11:00:00Z');
      const reports = await Promise.all([sweep(), otherProcess().sweep()]);
      assert.equal(total(reports, 'held'), 1, 'the sweep marks one; the lawyer marked the other');
      assert.equal(total(reports, 'reviewInvitations'), 1);
      at('2026-11-24T13:00:00Z');
      assert.deepEqual(await sweep(), { person24h: 0, person1h: 0, lawyerDigests: 0, held: 0, reviewInvitations: 0 });

      const row = await ctx.database.db.selectFrom('consultations').select(['status', 'status_changed_at']).where('id', '=', held).executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'held', status_changed_at: '2026-11-24T11:00:00.000Z' });
      assert.equal((await ctx.database.db.selectFrom('consultations').select('status').where('id', '=', absent).executeTakeFirstOrThrow()).status, 'no_show');
      const invitations = (await mailTo('held@example.com')).filter((m) => m.subject?.startsWith('How was'));
      assert.equal(invitations.length, 1);
      assert.equal(invitations[0]!.subject, 'How was your consultation with Lucía Fernández Ruiz?');
      assert.ok((invitations[0]!.text ?? '').includes(`${SITE}/consultations/${held}/review`));
      assert.deepEqual((await kindsTo('marked@example.com')).filter((k) => k === 'consultation_review_invitation'), ['consultation_review_invitation']);
      assert.deepEqual((await kindsTo('absent@example.com')).filter((k) => k === 'consultation_review_invitation'), []);
      // The cancelled one had no reminder at all; the others had theirs.
      assert.deepEqual(await kindsTo('gone@example.com'), ['consultation_receipt']);
      assert.equal((await listRemindersOf(ctx.database.db, cancelled)).length, 0);
      assert.deepEqual((await listRemindersOf(ctx.database.db, held)).map((r) => r.kind), ['review_invitation'], 'no reminder once it has started');
    });
  });
}
