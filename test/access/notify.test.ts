/**
 * Mailers and the notifier: a real SMTP listener on loopback receives what SmtpMailer sends; the
 * LogMailer logs; the Notifier stores first and marks only what the server accepted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { listNotificationsForUser } from '../../src/db/repositories/notification.repository.ts';
import { loadConfig } from '../../src/config.ts';
import { ManualClock } from '../../src/clock.ts';
import { createMailer, LogMailer, SmtpMailer } from '../../src/domain/notify/mailer.ts';
import { MailOutbox } from '../../src/domain/notify/mail-outbox.ts';
import { Notifier } from '../../src/domain/notify/notifier.ts';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { memoryLogger, NOW, startSmtp, type SmtpListener } from './support.ts';

describe('mailers', () => {
  let smtp: SmtpListener;
  before(async () => {
    smtp = await startSmtp({ reject: ['nobody@example.com'] });
  });
  after(async () => {
    await smtp.close();
  });

  it('SmtpMailer delivers to the SMTP server: envelope, From, Subject and UTF-8 body', async () => {
    const mailer = new SmtpMailer(smtp.url, 'Consulta <no-reply@consulta.test>');
    try {
      await mailer.send({ to: 'ana@example.com', subject: 'Claves de API — revisión', text: 'Hola Ana,\n\nlínea dos — ñ\n' });
    } finally {
      await mailer.close();
    }
    const [m] = await smtp.waitFor(1);
    assert.deepEqual(m!.to, ['ana@example.com']);
    assert.equal(m!.from, 'no-reply@consulta.test');
    assert.equal(m!.subject, 'Claves de API — revisión');
    assert.equal(m!.text, 'Hola Ana,\n\nlínea dos — ñ');
    assert.match(m!.raw, /^From: Consulta <no-reply@consulta\.test>\r$/m);
  });

  it('subjects cannot smuggle headers', async () => {
    const before = smtp.messages.length;
    const mailer = new SmtpMailer(smtp.url, 'no-reply@consulta.test');
    try {
      await mailer.send({ to: 'ana@example.com', subject: 'Hi\r\nBcc: victim@example.com\r\nX-Evil: 1', text: 'x' });
    } finally {
      await mailer.close();
    }
    const m = (await smtp.waitFor(before + 1))[before]!;
    assert.deepEqual(m.to, ['ana@example.com']);
    assert.doesNotMatch(m.raw, /^(Bcc|X-Evil):/im);
  });

  it('SmtpMailer rejects when the server refuses the recipient', async () => {
    const mailer = new SmtpMailer(smtp.url, 'no-reply@consulta.test');
    try {
      await assert.rejects(mailer.send({ to: 'nobody@example.com', subject: 's', text: 't' }));
    } finally {
      await mailer.close();
    }
  });

  it('LogMailer logs instead of sending; createMailer picks by SMTP_URL', async () => {
    const logger = memoryLogger();
    await new LogMailer(logger).send({ to: 'a@example.com', subject: 'S', text: 'T' });
    assert.deepEqual(logger.entries[0]!.obj, { mail: { to: 'a@example.com', subject: 'S', text: 'T' } });
    assert.ok(createMailer(loadConfig({}), logger) instanceof LogMailer);
    const smtpMailer = createMailer(loadConfig({ SMTP_URL: smtp.url }), logger);
    assert.ok(smtpMailer instanceof SmtpMailer);
    await smtpMailer.close();
  });
});

for (const target of databaseTargets()) {
  describe(`Notifier (${target.name})`, () => {
    let testDb: TestDatabase;
    let smtp: SmtpListener;
    before(async () => {
      testDb = await target.create();
      smtp = await startSmtp({ reject: ['bounce@example.com'] });
    });
    after(async () => {
      await smtp.close();
      await testDb.drop();
    });

    it('stores every notification, emails each, and marks only those the server accepted', async () => {
      const clock = new ManualClock(NOW);
      const logger = memoryLogger();
      const mailer = new SmtpMailer(smtp.url, 'no-reply@consulta.test');
      const notifier = new Notifier({ database: testDb.database, mailer, clock, logger });
      const accounts = new AccountsService({ database: testDb.database, clock, notifier });
      const ok = await accounts.ensureUser('ok@example.com');
      const bounce = await accounts.ensureUser('bounce@example.com');
      try {
        const report = await notifier.notify([
          { userId: ok.id, kind: 'test', subject: 'Hello', body: 'Body for ok', data: { n: 1 } },
          { userId: bounce.id, kind: 'test', subject: 'Hello', body: 'Body for bounce' },
        ]);
        assert.deepEqual(report, { sent: 1, failed: 1 });
      } finally {
        await mailer.close();
      }
      const [delivered] = await listNotificationsForUser(testDb.database.db, ok.id);
      const [failed] = await listNotificationsForUser(testDb.database.db, bounce.id);
      assert.deepEqual({ ...delivered!, id: '' }, {
        id: '', user_id: ok.id, firm_id: null, kind: 'test', subject: 'Hello', body: 'Body for ok', data: '{"n":1}', created_at: NOW, emailed_at: NOW,
      });
      assert.equal(failed!.emailed_at, null);
      assert.equal(logger.entries.filter((e) => e.level === 'warn').length, 1);
      const messages = await smtp.waitFor(1);
      assert.deepEqual(messages.map((m) => [m.to, m.text]), [[['ok@example.com'], 'Body for ok']]);
    });

    it('a mail server that is down loses no notification', async () => {
      const clock = new ManualClock(NOW);
      const logger = memoryLogger();
      // Port 9 on loopback: nothing listens there, the connection is refused at once.
      const mailer = new SmtpMailer('smtp://127.0.0.1:9', 'no-reply@consulta.test');
      const notifier = new Notifier({ database: testDb.database, mailer, clock, logger });
      const user = await new AccountsService({ database: testDb.database, clock, notifier }).ensureUser('down@example.com');
      assert.deepEqual(await notifier.notify([{ userId: user.id, kind: 'test', subject: 'S', body: 'B' }]), { sent: 0, failed: 1 });
      const [stored] = await listNotificationsForUser(testDb.database.db, user.id);
      assert.equal(stored!.emailed_at, null);
      await mailer.close();
    });

    it('with the mail outbox: the email is queued in the notice’s transaction, sent after commit, and retried when the server was down', async () => {
      const clock = new ManualClock(NOW);
      const logger = memoryLogger();
      const down = new MailOutbox({ database: testDb.database, clock, mailer: new SmtpMailer('smtp://127.0.0.1:9', 'no-reply@consulta.test'), logger, retryScheduleSeconds: [60] });
      const notifier = new Notifier({ database: testDb.database, clock, logger, queue: down });
      const user = await new AccountsService({ database: testDb.database, clock, notifier }).ensureUser('queued@example.com');

      // Rolled back: neither the notice nor its email exists.
      await assert.rejects(
        testDb.database.db.transaction().execute(async (tx) => {
          await notifier.store(tx, [{ userId: user.id, kind: 'test_rollback', subject: 'Never', body: 'Never' }]);
          throw new Error('the change failed');
        }),
        /the change failed/,
      );
      assert.deepEqual(await listNotificationsForUser(testDb.database.db, user.id), []);
      assert.deepEqual(await down.list({ to: 'queued@example.com' }), []);

      // Committed while the mail server is down: stored, queued, the failed send scheduled again.
      await notifier.notify([{ userId: user.id, kind: 'firm_notice', subject: 'Key creator left', body: 'A key of your firm…' }]);
      await down.settled();
      const [queued] = await down.list({ to: 'queued@example.com' });
      assert.deepEqual([queued?.kind, queued?.subject, queued?.status, queued?.attempts], ['firm_notice', 'Key creator left', 'queued', 1]);
      assert.equal(queued?.nextAttemptAt, new Date(Date.parse(NOW) + 60_000).toISOString());

      // The server is back: the retry sends it.
      const up = new MailOutbox({ database: testDb.database, clock, mailer: new SmtpMailer(smtp.url, 'no-reply@consulta.test'), logger });
      clock.advance(60_000);
      const before = smtp.messages.length;
      await up.deliverDue();
      const sent = (await smtp.waitFor(before + 1))[before]!;
      assert.deepEqual([sent.to, sent.subject, sent.text], [['queued@example.com'], 'Key creator left', 'A key of your firm…']);
      assert.equal((await up.find(queued!.id))?.status, 'sent');
      await down.close();
      await up.close();
    });
  });
}
