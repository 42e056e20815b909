/**
 * `consulta mail list|show` end to end: the real command spawned on a SQLite file whose outbox
 * was filled by MailOutbox without SMTP (as `consulta start` does). Output (human and --json),
 * newest first, --to, --last, attachments, an erased body, and exit codes (0, 1 none, 2 usage).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/clock.ts';
import { openDatabase } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { MailOutbox } from '../../src/domain/notify/mail-outbox.ts';
import type { OutgoingMail } from '../../src/domain/notify/outbox.ts';
import { memoryLogger } from '../access/support.ts';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));
const ICS = 'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nEND:VCALENDAR\r\n';

let dir: string;
let dbFile: string;
const ids: Record<string, string> = {};

function cli(...args: string[]): Promise<RunResult> {
  return runConsulta(args, { ...BASE_ENV, DATABASE_URL: `sqlite:${dbFile}`, LOG_LEVEL: 'silent' });
}

describe('consulta mail (CLI, SQLite)', () => {
  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-mail-cli-'));
    dbFile = path.join(dir, 'cli.db');
    const database = openDatabase(`sqlite:${dbFile}`);
    try {
      await migrateToLatest(database);
      const clock = new ManualClock('2026-11-23T08:00:00.000Z');
      const outbox = new MailOutbox({ database, clock, mailer: null, logger: memoryLogger() });
      const send = async (name: string, mail: OutgoingMail) => {
        const [id] = await database.db.transaction().execute((tx) => outbox.enqueue(tx, [mail]));
        await outbox.deliver([id!]);
        ids[name] = id!;
        clock.advance(60_000);
      };
      await send('code', { kind: 'sign_in', to: 'ana@example.com', subject: 'Tu código: 123456', text: 'Código 123456', sensitive: true });
      await send('receipt', {
        kind: 'consultation_receipt',
        to: 'ana@example.com',
        subject: 'Reservada: tu consulta con Lucía',
        text: 'Tu consulta está confirmada.\nReferencia: abc',
        attachments: [{ filename: 'consulta.ics', contentType: 'text/calendar; charset=utf-8; method=PUBLISH', content: ICS }],
      });
      await send('notice', { kind: 'consultation_lawyer_notice', to: 'lucia@despacho.example', subject: 'Nueva consulta reservada', text: 'Cliente: ana@example.com' });
      // A mail that was delivered through SMTP and erased, as another process would leave it.
      await send('erased', { kind: 'sign_in', to: 'bob@example.com', subject: 'Your code', text: 'Code 999999', sensitive: true });
      await database.db.updateTable('mail_outbox').set({ status: 'sent', text: '', erased_at: '2026-11-23T08:03:01.000Z', sent_at: '2026-11-23T08:03:01.000Z' }).where('id', '=', ids.erased!).execute();
    } finally {
      await database.close();
    }
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('mail list --json: newest first, with time, recipient, kind, subject and status', async () => {
    const body = jsonLine(await cli('mail', 'list', '--json'));
    assert.deepEqual(body.mails.map((m: { id: string }) => m.id), [ids.erased, ids.notice, ids.receipt, ids.code]);
    assert.deepEqual(body.mails[1], {
      id: ids.notice,
      created_at: '2026-11-23T08:02:00.000Z',
      to: 'lucia@despacho.example',
      kind: 'consultation_lawyer_notice',
      subject: 'Nueva consulta reservada',
      status: 'local',
    });
  });

  it('mail list --to and --limit', async () => {
    const body = jsonLine(await cli('mail', 'list', '--to', 'ANA@example.com', '--limit', '1', '--json'));
    assert.deepEqual(body.mails.map((m: { id: string }) => m.id), [ids.receipt]);
    const human = await cli('mail', 'list', '--to', 'nobody@example.com');
    assert.equal(human.code, 0);
    assert.equal(human.stdout.trim(), 'no mail');
  });

  it('mail list (human): one line per mail', async () => {
    const r = await cli('mail', 'list');
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trim().split('\n');
    assert.equal(lines.length, 4);
    assert.match(lines[2]!, new RegExp(`^2026-11-23T08:01:00\\.000Z  ${ids.receipt}  ana@example\\.com  consultation_receipt  local   Reservada: tu consulta con Lucía$`));
  });

  it('mail show --last --to prints the whole message: headers, text and attachment names', async () => {
    const r = await cli('mail', 'show', '--last', '--to', 'ana@example.com');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^Id: +[0-9a-f-]{36}$/m);
    assert.match(r.stdout, /^To: +ana@example\.com$/m);
    assert.match(r.stdout, /^Subject: +Reservada: tu consulta con Lucía$/m);
    assert.match(r.stdout, /^Status: +local$/m);
    assert.match(r.stdout, /^Attachments: +consulta\.ics \(text\/calendar, 45 bytes\)$/m);
    assert.ok(r.stdout.endsWith('\n\nTu consulta está confirmada.\nReferencia: abc\n'), r.stdout);
  });

  it('mail show ID --json includes the attachments\' contents; a local sign-in code is kept for the console', async () => {
    const receipt = jsonLine(await cli('mail', 'show', ids.receipt!, '--json'));
    assert.deepEqual(receipt.attachments, [{ filename: 'consulta.ics', content_type: 'text/calendar; charset=utf-8; method=PUBLISH', size: 45, content: ICS }]);
    const code = jsonLine(await cli('mail', 'show', ids.code!, '--json'));
    assert.deepEqual([code.kind, code.text, code.sensitive, code.erased_at], ['sign_in', 'Código 123456', true, null]);
  });

  it('mail show --last (anyone) shows an erased body as erased', async () => {
    const r = await cli('mail', 'show', '--last');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^To: +bob@example\.com$/m);
    assert.match(r.stdout, /body erased at 2026-11-23T08:03:01\.000Z/);
    assert.doesNotMatch(r.stdout, /999999/);
  });

  it('exit 1 when there is no such mail, 2 on usage errors', async () => {
    const none = await cli('mail', 'show', '--last', '--to', 'nobody@example.com', '--json');
    assert.equal(jsonLine(none, 1).error.code, 'not_found');
    assert.match(none.stderr, /no mail to nobody@example\.com/);
    assert.equal((await cli('mail', 'show', '00000000-0000-7000-8000-000000000000')).code, 1);
    for (const args of [['mail'], ['mail', 'show'], ['mail', 'show', ids.code!, '--last'], ['mail', 'send'], ['mail', 'list', '--limit', '0'], ['mail', 'show', ids.code!, '--to', 'a@b.c']]) {
      const r = await cli(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /usage: consulta mail/);
    }
  });
});
