/**
 * The mail outbox on both databases, against a real SMTP listener on loopback; messages are
 * read back with mailparser. Local mode (no SMTP), delivery, erasure of sensitive bodies, retries
 * with the injected clock, giving up, header injection, and several senders sharing one queue.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { simpleParser } from 'mailparser';
import { ManualClock } from '../../src/clock.ts';
import { SmtpMailer } from '../../src/domain/notify/mailer.ts';
import { MailOutbox } from '../../src/domain/notify/mail-outbox.ts';
import type { OutgoingMail } from '../../src/domain/notify/outbox.ts';
import { memoryLogger, NOW, startSmtp, type SmtpListener } from '../access/support.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';

const MIN = 60_000;
const ICS = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n';

function mail(to: string, extra: Partial<OutgoingMail> = {}): OutgoingMail {
  return { kind: 'test', to, subject: `Hello ${to}`, text: `Body for ${to}\nSecond line, ñ €.`, ...extra };
}

for (const target of databaseTargets()) {
  describe(`mail outbox (${target.name})`, () => {
    let db: TestDatabase;
    let smtp: SmtpListener;
    const refused: string[] = [];

    before(async () => {
      db = await target.create();
      smtp = await startSmtp({ reject: refused });
    });
    after(async () => {
      await smtp.close();
      await db.drop();
    });

    function outbox(withSmtp: boolean, clock = new ManualClock(NOW)) {
      const logger = memoryLogger();
      const mailer = withSmtp ? new SmtpMailer(smtp.url, 'Consulta <no-reply@consulta.test>') : null;
      return { clock, logger, outbox: new MailOutbox({ database: db.database, clock, mailer, logger }) };
    }

    const enqueue = (o: MailOutbox, mails: OutgoingMail[]) => db.database.db.transaction().execute((tx) => o.enqueue(tx, mails));
    const row = (id: string) => db.database.db.selectFrom('mail_outbox').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    const received = (to: string) => smtp.messages.filter((m) => m.to.includes(to));

    it('without SMTP keeps mail in the local outbox and logs it', async () => {
      const { outbox: o, logger } = outbox(false);
      const ids = await enqueue(o, [mail('Local@Example.com', { attachments: [{ filename: 'a.ics', contentType: 'text/calendar', content: ICS }], sensitive: true })]);
      assert.equal((await row(ids[0]!)).status, 'queued');
      await o.deliver(ids);
      const stored = await row(ids[0]!);
      assert.equal(stored.status, 'local');
      assert.equal(stored.recipient, 'local@example.com');
      assert.equal(stored.next_attempt_at, null);
      // Sensitive or not, the local outbox keeps the body: the console is the mailbox.
      assert.match(stored.text, /Body for Local@Example\.com/);
      assert.equal(stored.erased_at, null);
      const line = logger.entries.find((e) => e.level === 'info');
      assert.ok(line, 'logged');
      const logged = (line.obj as { mail: { to: string; subject: string; text: string; attachments: string[] } }).mail;
      assert.deepEqual([logged.to, logged.subject, logged.attachments], ['local@example.com', 'Hello Local@Example.com', ['a.ics']]);
      assert.match(logged.text, /Second line/);
      const last = await o.last('LOCAL@example.com');
      assert.equal(last?.id, ids[0]);
      assert.deepEqual(last?.attachments, [{ filename: 'a.ics', contentType: 'text/calendar', content: ICS }]);
      assert.equal(received('local@example.com').length, 0, 'nothing reached SMTP');
    });

    it('stores nothing when the transaction that enqueued rolls back', async () => {
      const { outbox: o } = outbox(false);
      await assert.rejects(
        db.database.db.transaction().execute(async (tx) => {
          await o.enqueue(tx, [mail('rolled-back@example.com')]);
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      assert.equal((await o.list({ to: 'rolled-back@example.com' })).length, 0);
    });

    it('with SMTP delivers subject, text, html and the attachment, and marks the mail sent', async () => {
      const { outbox: o } = outbox(true);
      const ids = await enqueue(o, [
        mail('smtp@example.com', { subject: 'Reserva: consulta con Lucía', html: '<p>Hola</p>', attachments: [{ filename: 'consulta.ics', contentType: 'text/calendar; charset=utf-8; method=PUBLISH', content: ICS }] }),
      ]);
      await o.deliver(ids);
      const [message] = received('smtp@example.com');
      assert.ok(message);
      const parsed = await simpleParser(message.raw);
      assert.equal(parsed.subject, 'Reserva: consulta con Lucía');
      assert.equal(parsed.text?.trim(), 'Body for smtp@example.com\nSecond line, ñ €.');
      assert.match(String(parsed.html), /<p>Hola<\/p>/);
      assert.equal(parsed.attachments.length, 1);
      assert.equal(parsed.attachments[0]!.filename, 'consulta.ics');
      assert.equal(parsed.attachments[0]!.contentType, 'text/calendar');
      assert.equal(parsed.attachments[0]!.content.toString('utf8'), ICS);
      const stored = await row(ids[0]!);
      assert.deepEqual([stored.status, stored.attempts, stored.sent_at, stored.last_error], ['sent', 1, NOW, null]);
      assert.ok(stored.text.length > 0, 'an ordinary mail keeps its body');
    });

    it('erases a sensitive body once the SMTP server accepted it', async () => {
      const { outbox: o, clock } = outbox(true);
      const ids = await enqueue(o, [mail('code@example.com', { kind: 'sign_in', subject: 'Your sign-in code', text: 'Your code is 493021', html: '<b>493021</b>', sensitive: true })]);
      clock.advance(1500);
      await o.deliver(ids);
      assert.match(received('code@example.com')[0]!.raw, /493021/, 'the person got the code');
      const stored = await row(ids[0]!);
      assert.equal(stored.status, 'sent');
      assert.deepEqual([stored.text, stored.html, stored.attachments], ['', null, '[]']);
      assert.equal(stored.erased_at, '2026-11-23T08:00:01.500Z');
      const raw = JSON.stringify(await db.database.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', 'code@example.com').execute());
      assert.doesNotMatch(raw, /493021/, 'the code is nowhere in the table');
    });

    it('retries a refused send after a minute, then delivers it once', async () => {
      const { outbox: o, clock } = outbox(true);
      refused.push('retry@example.com');
      const ids = await enqueue(o, [mail('retry@example.com')]);
      await o.deliver(ids);
      let stored = await row(ids[0]!);
      assert.deepEqual([stored.status, stored.attempts, stored.next_attempt_at], ['queued', 1, new Date(Date.parse(NOW) + MIN).toISOString()]);
      assert.match(stored.last_error ?? '', /550|mailbox unavailable/);
      // Not due yet: nothing happens.
      clock.advance(MIN - 1);
      assert.deepEqual(await o.deliverDue(), { sent: 0, retrying: 0, failed: 0, local: 0 });
      refused.splice(refused.indexOf('retry@example.com'), 1);
      clock.advance(1);
      assert.deepEqual(await o.deliverDue(), { sent: 1, retrying: 0, failed: 0, local: 0 });
      stored = await row(ids[0]!);
      assert.deepEqual([stored.status, stored.attempts, stored.last_error, stored.next_attempt_at], ['sent', 2, null, null]);
      assert.equal(received('retry@example.com').length, 1);
      assert.deepEqual(await o.deliverDue(), { sent: 0, retrying: 0, failed: 0, local: 0 }, 'sent once');
    });

    it('gives up after 1, 5 and 30 minutes of retries and erases a sensitive body', async () => {
      const { outbox: o, clock } = outbox(true);
      refused.push('never@example.com');
      const ids = await enqueue(o, [mail('never@example.com', { sensitive: true, text: 'code 111222' })]);
      await o.deliver(ids);
      for (const [minutes, status] of [[1, 'queued'], [5, 'queued'], [30, 'failed']] as const) {
        clock.advance(minutes * MIN);
        await o.deliverDue();
        assert.equal((await row(ids[0]!)).status, status, `after ${minutes} more minutes`);
      }
      const stored = await row(ids[0]!);
      assert.deepEqual([stored.attempts, stored.next_attempt_at, stored.text], [4, null, '']);
      assert.ok(stored.erased_at);
      clock.advance(24 * 60 * MIN);
      assert.deepEqual(await o.deliverDue(), { sent: 0, retrying: 0, failed: 0, local: 0 }, 'never tried again');
      assert.equal(received('never@example.com').length, 0);
    });

    it('keeps user text in the subject and filename from adding headers', async () => {
      const { outbox: o } = outbox(true);
      const ids = await enqueue(o, [
        mail('inject@example.com', {
          subject: 'Hola\r\nBcc: victim@example.com\r\nX-Evil: 1',
          attachments: [{ filename: 'a.ics\r\nX-Evil: 2', contentType: 'text/calendar\r\nX-Evil: 3', content: ICS }],
        }),
      ]);
      await o.deliver(ids);
      const [message] = received('inject@example.com');
      assert.ok(message);
      assert.deepEqual(message.to, ['inject@example.com'], 'no extra recipient');
      const parsed = await simpleParser(message.raw);
      assert.equal(parsed.headers.has('x-evil'), false);
      assert.equal(parsed.headers.has('bcc'), false);
      assert.equal(parsed.subject, 'Hola Bcc: victim@example.com X-Evil: 1');
      assert.doesNotMatch(message.raw, /^X-Evil/m);
    });

    it('sends each queued mail once when several processes sweep at the same time', async () => {
      const clock = new ManualClock(NOW);
      const senders = [outbox(true, clock).outbox, outbox(true, clock).outbox, outbox(true, clock).outbox];
      const recipients = Array.from({ length: 24 }, (_, i) => `many-${i}@example.com`);
      // Enqueued and never delivered by their process (it stopped): the sweeps find them.
      await enqueue(senders[0]!, recipients.map((to) => mail(to)));
      const reports = await Promise.all(senders.map((s) => s.deliverDue(5)));
      assert.equal(reports.reduce((n, r) => n + r.sent, 0), recipients.length);
      for (const to of recipients) assert.equal(received(to).length, 1, to);
      await Promise.all(senders.map((s) => s.close()));
    });

    it('lists newest first and purges old mail that is no longer queued', async () => {
      const clock = new ManualClock('2026-09-01T00:00:00.000Z');
      const { outbox: o } = outbox(false, clock);
      const [old] = await enqueue(o, [mail('purge@example.com', { subject: 'old' })]);
      await o.deliver([old!]);
      const [waiting] = await enqueue(o, [mail('purge@example.com', { subject: 'still queued' })]);
      clock.set(NOW);
      const [fresh] = await enqueue(o, [mail('purge@example.com', { subject: 'new' })]);
      await o.deliver([fresh!]);
      assert.deepEqual((await o.list({ to: 'purge@example.com' })).map((m) => m.subject), ['new', 'still queued', 'old']);
      assert.equal(await o.purge(30), 1);
      assert.deepEqual((await o.list({ to: 'purge@example.com' })).map((m) => m.id), [fresh, waiting]);
    });
  });
}
