/**
 * Outgoing email. `SmtpMailer` sends through the server in SMTP_URL; without it, `LogMailer`
 * writes each message to the log, so development and tests need no mail server.
 */
import nodemailer, { type Transporter } from 'nodemailer';
import type { Config } from '../../config.ts';
import { parseEmailAddress } from '../identity/email-address.ts';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative to `text`. */
  html?: string;
  attachments?: ReadonlyArray<{ filename: string; contentType: string; content: string }>;
}

export interface Mailer {
  /** Resolves once the server accepted the message; rejects when it did not. */
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/** The part of a pino (or Fastify) logger the notification code uses. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Subjects are single header lines: whatever user text ends up in them cannot add headers. */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\r\n\t\u0000-\u001f\u007f]+/g, ' ').trim().slice(0, 200);
}

/** Sends mail through an SMTP server (`smtp://user:pass@host:port`, or `smtps://` for TLS). */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;

  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    // Short timeouts: a hanging mail server must not hold a management request for minutes
    // (nodemailer's defaults are 2 minutes per stage).
    this.transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 });
  }

  async send(message: MailMessage): Promise<void> {
    // nodemailer parses `to` as an address list (names, comments, several recipients): only an
    // address already in its normal form goes to it, so the envelope is the mailbox we counted.
    const parsed = parseEmailAddress(message.to);
    if (!parsed.ok || parsed.address !== message.to) throw new Error('refused: the recipient is not a normalised email address');
    await this.transport.sendMail({
      from: this.from,
      to: message.to,
      subject: oneLine(message.subject),
      text: message.text,
      ...(message.html !== undefined ? { html: message.html } : {}),
      ...(message.attachments?.length
        ? { attachments: message.attachments.map((a) => ({ filename: oneLine(a.filename), contentType: oneLine(a.contentType), content: a.content })) }
        : {}),
    });
  }

  async close(): Promise<void> {
    this.transport.close();
  }
}

/** Writes messages to the log instead of sending them (SMTP_URL unset). */
export class LogMailer implements Mailer {
  constructor(private readonly logger: Logger) {}

  async send(message: MailMessage): Promise<void> {
    const attachments = message.attachments?.map((a) => a.filename);
    this.logger.info({ mail: { to: message.to, subject: oneLine(message.subject), text: message.text, ...(attachments?.length ? { attachments } : {}) } }, 'email not sent (SMTP_URL is unset)');
  }

  async close(): Promise<void> {}
}

/** The mailer the configuration asks for. */
export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom'>, logger: Logger): Mailer {
  return config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : new LogMailer(logger);
}
