/**
 * Helpers for the access tests: a real SMTP listener on loopback that captures messages, and
 * service wiring over a test database with a manual clock and a real SMTP mailer.
 */
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '../../src/clock.ts';
import type { Database } from '../../src/db/database.ts';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import { KeysService } from '../../src/domain/access/keys.service.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { DomainError } from '../../src/domain/errors.ts';
import { SmtpMailer, type Logger, type Mailer } from '../../src/domain/notify/mailer.ts';
import { Notifier } from '../../src/domain/notify/notifier.ts';

export const OPERATOR: Actor = { type: 'operator' };
export const NOW = '2026-11-23T08:00:00.000Z';

export interface CapturedMail {
  from: string;
  to: string[];
  subject: string;
  text: string;
  raw: string;
}

export interface SmtpListener {
  url: string;
  messages: CapturedMail[];
  /** Resolves when at least `n` messages arrived (rejects after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<CapturedMail[]>;
  close(): Promise<void>;
}

function decodeBody(body: string, encoding: string): string {
  if (encoding === 'quoted-printable') {
    const soft = body.replace(/=\r?\n/g, '');
    const bytes: number[] = [];
    for (let i = 0; i < soft.length; i++) {
      if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
        bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
        i += 2;
      } else bytes.push(...Buffer.from(soft[i]!, 'utf8'));
    }
    return Buffer.from(bytes).toString('utf8');
  }
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  return body;
}

function decodeHeader(value: string): string {
  // RFC 2047 encoded words, as nodemailer writes non-ASCII subjects.
  return value.replace(/=\?utf-8\?([QB])\?([^?]*)\?=\s*/gi, (_m, kind: string, text: string) =>
    kind.toUpperCase() === 'B' ? Buffer.from(text, 'base64').toString('utf8') : decodeBody(text.replace(/_/g, ' '), 'quoted-printable'),
  );
}

/** Parses the single-part text messages nodemailer sends. */
function parseMessage(raw: string, to: string[], from: string): CapturedMail {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const body = raw.slice(split + 4);
  const headers = new Map<string, string>();
  for (const line of head.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
  }
  const text = decodeBody(body, (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase()).replace(/\r\n/g, '\n').replace(/\n$/, '');
  return { from, to, subject: decodeHeader(headers.get('subject') ?? ''), text, raw };
}

/**
 * A real SMTP server on 127.0.0.1 (random port, no auth, no TLS). Recipients in `reject` are
 * refused at RCPT TO, to simulate a failing delivery.
 */
export async function startSmtp(options: { reject?: string[] } = {}): Promise<SmtpListener> {
  const messages: CapturedMail[] = [];
  const waiters: Array<() => void> = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (options.reject?.includes(address.address)) callback(new Error('550 mailbox unavailable'));
      else callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
        messages.push(parseMessage(Buffer.concat(chunks).toString('utf8'), to, from));
        for (const w of waiters.splice(0)) w();
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A logger that remembers what it was told. */
export function memoryLogger(): Logger & { entries: Array<{ level: string; obj: object; msg?: string }> } {
  const entries: Array<{ level: string; obj: object; msg?: string }> = [];
  return {
    entries,
    info: (obj, msg) => entries.push({ level: 'info', obj, msg }),
    warn: (obj, msg) => entries.push({ level: 'warn', obj, msg }),
    error: (obj, msg) => entries.push({ level: 'error', obj, msg }),
  };
}

export interface AccessKit {
  clock: ManualClock;
  mailer: Mailer;
  logger: ReturnType<typeof memoryLogger>;
  notifier: Notifier;
  accounts: AccountsService;
  keys: KeysService;
}

/** Services over `database`; emails go to `smtpUrl` when given (else nowhere). */
export function accessKit(database: Database, smtpUrl?: string): AccessKit {
  const clock = new ManualClock(NOW);
  const logger = memoryLogger();
  const mailer: Mailer = smtpUrl ? new SmtpMailer(smtpUrl, 'Consulta <no-reply@consulta.test>') : { send: async () => {}, close: async () => {} };
  const notifier = new Notifier({ database, mailer, clock, logger });
  const accounts = new AccountsService({ database, clock, notifier });
  const keys = new KeysService({ database, clock, accounts });
  return { clock, mailer, logger, notifier, accounts, keys };
}

/** The DomainError code a promise rejects with, or 'ok' when it resolves. */
export async function outcome(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (err) {
    if (err instanceof DomainError) return err.code;
    throw err;
  }
}

/** Asserts that the promise rejects with a DomainError of `code`; returns the error. */
export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<DomainError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof DomainError && err.code === code) return err;
    throw new Error(`expected DomainError ${code}, got ${err instanceof DomainError ? `${err.code}: ${err.detail}` : String(err)}`);
  }
  throw new Error(`expected DomainError ${code}, but it succeeded`);
}

let counter = 0;
/** A slug no other test in this process uses. */
export function uniqueSlug(base = 'firm'): string {
  return `${base}-${process.pid}-${++counter}`;
}
