/**
 * `consulta mail list|show`: reads the mail outbox (without SMTP_URL, the only place mail goes).
 * Thin: parse, read through MailOutbox, print. Exit codes: 0 ok, 1 no such mail, 2 usage error.
 */
import pino from 'pino';
import { systemClock } from '../clock.ts';
import { emailRefusalDetail, parseEmailAddress } from '../domain/identity/email-address.ts';
import { MailOutbox, type OutboxMail } from '../domain/notify/mail-outbox.ts';
import { print, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const USAGE = 'usage: consulta mail list [--to EMAIL] [--limit N] | consulta mail show (ID | --last [--to EMAIL])';

/** A mail as `mail list --json` prints it (no body). */
function summaryJson(m: OutboxMail): Record<string, unknown> {
  return { id: m.id, created_at: m.createdAt, to: m.to, kind: m.kind, subject: m.subject, status: m.status };
}

/** A mail as `mail show --json` prints it: everything, attachments' contents included. */
function mailJson(m: OutboxMail): Record<string, unknown> {
  return {
    ...summaryJson(m),
    text: m.text,
    html: m.html,
    attachments: m.attachments.map((a) => ({ filename: a.filename, content_type: a.contentType, size: Buffer.byteLength(a.content, 'utf8'), content: a.content })),
    sensitive: m.sensitive,
    attempts: m.attempts,
    next_attempt_at: m.nextAttemptAt,
    last_error: m.lastError,
    sent_at: m.sentAt,
    erased_at: m.erasedAt,
  };
}

function mailText(m: OutboxMail): string {
  const rows: Array<[string, string]> = [
    ['Id', m.id],
    ['Date', m.createdAt],
    ['To', m.to],
    ['Subject', m.subject],
    ['Kind', m.kind],
    ['Status', m.status],
  ];
  if (m.sentAt) rows.push(['Sent', m.sentAt]);
  if (m.attempts > 0) rows.push(['Attempts', String(m.attempts)]);
  if (m.nextAttemptAt && m.status === 'queued') rows.push(['Next try', m.nextAttemptAt]);
  if (m.lastError) rows.push(['Last error', m.lastError]);
  if (m.attachments.length > 0) {
    rows.push(['Attachments', m.attachments.map((a) => `${a.filename} (${a.contentType.split(';')[0]}, ${Buffer.byteLength(a.content, 'utf8')} bytes)`).join(', ')]);
  }
  const head = rows.map(([k, v]) => `${`${k}:`.padEnd(13)}${v}`).join('\n');
  const body = m.erasedAt ? `(body erased at ${m.erasedAt}: it held a secret and was delivered or given up)` : m.text;
  return `${head}\n\n${body}`;
}

function usage(message: string): number {
  process.stderr.write(`consulta: ${message}\n${USAGE}\n`);
  return 2;
}

/** `consulta mail <list|show> …` */
export async function runMailCommand(ctx: AccessCommandContext): Promise<number> {
  const { database, args, flags, json } = ctx;
  const [sub, id, ...extra] = args;
  const outbox = new MailOutbox({ database, clock: systemClock, mailer: null, logger: pino({ level: 'silent' }) });
  const rawTo = stringFlag(flags, 'to');
  const parsedTo = rawTo === undefined ? undefined : parseEmailAddress(rawTo);
  if (parsedTo && !parsedTo.ok) return usage(`--to ${emailRefusalDetail(parsedTo.reason)}`);
  const to = parsedTo?.address;
  switch (sub) {
    case 'list': {
      if (id !== undefined) return usage('mail list takes no ID');
      const rawLimit = stringFlag(flags, 'limit');
      if (rawLimit !== undefined && (!/^\d+$/.test(rawLimit) || Number(rawLimit) < 1 || Number(rawLimit) > 1000)) return usage('--limit expects a whole number from 1 to 1000');
      const mails = await outbox.list({ to, limit: rawLimit === undefined ? 20 : Number(rawLimit) });
      const lines = mails.map((m) => [m.createdAt, m.id, m.to, m.kind, m.status.padEnd(6), m.subject].join('  '));
      print(json, { mails: mails.map(summaryJson) }, mails.length ? lines.join('\n') : 'no mail');
      return 0;
    }
    case 'show': {
      const last = flags.last === true;
      if (extra.length > 0 || (last && id !== undefined) || (!last && id === undefined)) return usage('mail show needs an ID or --last');
      if (!last && to !== undefined) return usage('--to goes with --last');
      const mail = last ? await outbox.last(to) : await outbox.find(id!);
      if (!mail) {
        const detail = last ? `no mail${to === undefined ? '' : ` to ${to}`} in the outbox` : `no mail ${id} in the outbox`;
        if (json) print(true, { error: { code: 'not_found', detail } }, '');
        process.stderr.write(`consulta: ${detail}\n`);
        return 1;
      }
      print(json, mailJson(mail), mailText(mail));
      return 0;
    }
    default:
      return usage(sub === undefined ? 'mail needs a subcommand' : `unknown mail command "${sub}"`);
  }
}
