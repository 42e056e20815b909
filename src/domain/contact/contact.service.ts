/**
 * The contact form (docs/site.md#contact): a person writes to the operator. The message is stored
 * and the email to the operator (CONTACT_EMAIL) queued in one transaction, then sent after commit
 * like every other mail; with no SMTP server it waits in the local outbox.
 *
 * What a person types is third-party text: the name must be one clean line and the message may
 * hold line breaks but no other control, bidirectional or invisible characters
 * (src/domain/third-party-text.ts), so the operator reads exactly what is shown. The operator's
 * email is plain text only, never HTML built from the message.
 *
 * Limits (the shared limiter): per client address 5 an hour and 20 a day; per sender address 3 an
 * hour and 10 a day. Nothing tells whether an address has an account.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Database } from '../../db/database.ts';
import { insertContactMessage, setContactMessageMail } from '../../db/repositories/contact.repository.ts';
import { DEFAULT_LOCALE, messages, type Locale } from '../../i18n/index.ts';
import { admitOrThrow, type RateLimitStore, type WindowRule } from '../access/rate-limit.ts';
import { invalidRequest, type FieldError } from '../errors.ts';
import { normalizeEmail } from '../identity/email-address.ts';
import type { MailQueue } from '../notify/outbox.ts';
import { checkShortText, findForbiddenCharacter } from '../third-party-text.ts';

export const CONTACT_TOPICS = ['booking', 'payment', 'account', 'lawyer', 'privacy', 'other'] as const;
export type ContactTopic = (typeof CONTACT_TOPICS)[number];

export const CONTACT_LIMITS = {
  nameMax: 100,
  messageMin: 10,
  messageMax: 4000,
  perAddress: [
    { id: 'hour', limit: 5, windowMs: 3_600_000 },
    { id: 'day', limit: 20, windowMs: 86_400_000 },
  ] as readonly WindowRule[],
  perSender: [
    { id: 'hour', limit: 3, windowMs: 3_600_000 },
    { id: 'day', limit: 10, windowMs: 86_400_000 },
  ] as readonly WindowRule[],
};

export const CONTACT_MAIL_KIND = 'contact_message';

export interface ContactInput {
  name: string;
  email: string;
  topic: string;
  message: string;
  locale: Locale;
  /** The signed-in sender, if any. */
  userId: string | null;
  /** The client address, for the limits only (not stored). */
  ip: string;
}

export interface ContactDeps {
  database: Database;
  clock: Clock;
  limiter: RateLimitStore;
  mail: MailQueue;
  /** The operator's address (CONTACT_EMAIL). */
  to: string;
  onLimiterError?: (err: unknown) => void;
}

const isTopic = (v: string): v is ContactTopic => (CONTACT_TOPICS as readonly string[]).includes(v);

/** The checked form, or field errors with JSON pointers (`/name`, `/email`, `/topic`, `/message`). */
export function checkContact(input: Pick<ContactInput, 'name' | 'email' | 'topic' | 'message'>): { ok: true; value: { name: string; email: string; topic: ContactTopic; message: string } } | { ok: false; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const name = String(input.name ?? '').trim();
  if (name === '') errors.push({ pointer: '/name', detail: 'required' });
  else if ([...name].length > CONTACT_LIMITS.nameMax) errors.push({ pointer: '/name', detail: `at most ${CONTACT_LIMITS.nameMax} characters` });
  else {
    const bad = checkShortText(name, '/name');
    if (bad) errors.push(bad);
  }
  let email = '';
  try {
    email = normalizeEmail(String(input.email ?? ''), '/email');
  } catch {
    errors.push({ pointer: '/email', detail: 'not an email address' });
  }
  const topic = String(input.topic ?? '');
  if (!isTopic(topic)) errors.push({ pointer: '/topic', detail: `one of ${CONTACT_TOPICS.join(', ')}` });
  // Line breaks are the message's own; tabs become spaces; every other invisible character is refused.
  const message = String(input.message ?? '').replace(/\r\n?/g, '\n').replace(/\t/g, ' ').trim();
  const length = [...message].length;
  if (length < CONTACT_LIMITS.messageMin) errors.push({ pointer: '/message', detail: `at least ${CONTACT_LIMITS.messageMin} characters` });
  else if (length > CONTACT_LIMITS.messageMax) errors.push({ pointer: '/message', detail: `at most ${CONTACT_LIMITS.messageMax} characters` });
  else if (message.split('\n').some((line) => findForbiddenCharacter(line) !== null)) errors.push({ pointer: '/message', detail: 'contains an invisible or control character' });
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { name, email, topic: topic as ContactTopic, message } };
}

export class ContactService {
  constructor(private readonly deps: ContactDeps) {}

  /** Stores the message and emails it to the operator. invalid_request (field errors) or rate_limited. */
  async submit(input: ContactInput): Promise<{ id: string; mailId: string }> {
    const checked = checkContact(input);
    if (!checked.ok) throw invalidRequest('The contact form has errors.', checked.errors);
    const { name, email, topic, message } = checked.value;
    const now = this.deps.clock.now();
    const limit = (bucket: string, rules: readonly WindowRule[]) =>
      admitOrThrow(this.deps.limiter, bucket, rules, now.getTime(), 'Too many messages; try again later.', this.deps.onLimiterError);
    await limit(`contact:ip:${input.ip}`, CONTACT_LIMITS.perAddress);
    // Limiter keys hold a hash, never the address itself.
    await limit(`contact:email:${createHash('sha256').update(email).digest('hex')}`, CONTACT_LIMITS.perSender);
    const id = randomUUID();
    // The operator reads Spanish (the service's language); the sender's language is stated.
    const t = messages(DEFAULT_LOCALE).face.contact.operatorMail;
    const mailId = await this.deps.database.db.transaction().execute(async (tx) => {
      await insertContactMessage(tx, { id, user_id: input.userId, name, email, topic, message, locale: input.locale, mail_id: null, created_at: now.toISOString() });
      const [queued] = await this.deps.mail.enqueue(tx, [
        {
          kind: CONTACT_MAIL_KIND,
          to: this.deps.to,
          subject: t.subject(messages(DEFAULT_LOCALE).face.contact.topics[topic], id.slice(0, 8)),
          text: t.body({ name, email, topic: messages(DEFAULT_LOCALE).face.contact.topics[topic], language: messages(input.locale).lang.name, signedIn: input.userId !== null, message, reference: id }),
          // Personal text: erased from the outbox once an SMTP server accepted it (the table keeps it).
          sensitive: true,
        },
      ]);
      await setContactMessageMail(tx, id, queued!);
      return queued!;
    });
    await this.deps.mail.deliver([mailId]);
    return { id, mailId };
  }
}
