/**
 * `consulta users delete EMAIL`: the operator deletes a person's account at their request (made
 * by another channel than the site), through the same AccountDeletionService as the Account page:
 * the same refusals, the same erasures, the same confirmation email (sent through SMTP_URL, or
 * kept in the local outbox without it), and an entry in the operator audit log. A running server
 * stops accepting the person's keys within KEY_CACHE_TTL_MS and their AI apps' tokens within 1 s.
 * Exit codes: 0 deleted, 1 refused or no such account, 2 usage error.
 */
import pino from 'pino';
import { systemClock } from '../clock.ts';
import { BookingService } from '../domain/booking/booking.service.ts';
import { ConsultationsService } from '../domain/booking/consultations.service.ts';
import { IdempotencyService } from '../domain/booking/idempotency.ts';
import { DirectoryCache } from '../domain/directory/reference.service.ts';
import type { Actor } from '../domain/access/types.ts';
import { AccountDeletionRefused, AccountDeletionService, type DeletionReport } from '../domain/identity/account-deletion.service.ts';
import { normalizeEmail } from '../domain/identity/email-address.ts';
import { MailOutbox } from '../domain/notify/mail-outbox.ts';
import { SmtpMailer } from '../domain/notify/mailer.ts';
import { AccessUsageError, print, runAccessCommand, type AccessCommandContext } from './keys.commands.ts';

const CLI: Actor = { type: 'operator', by: { kind: 'cli' } };
const USAGE = 'usage: consulta users delete EMAIL';

function reportJson(email: string, r: DeletionReport): Record<string, unknown> {
  return {
    user_id: r.userId,
    email,
    deleted_at: r.deletedAt,
    sessions_ended: r.sessions,
    apps_disconnected: r.apps,
    passkeys_deleted: r.passkeys,
    keys_revoked: r.keys,
    endpoints_disabled: r.endpoints,
    firms_left: r.firms,
    holds_released: r.holdsReleased,
    mail_dropped: r.mailDropped,
    mail_erased: r.mailErased,
    kept: r.kept,
    confirmation_mail_id: r.confirmationMailId,
  };
}

function reportText(email: string, r: DeletionReport): string {
  const n = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;
  return [
    `deleted the account of ${email} (user ${r.userId}); the address can sign up again as a new account`,
    `  ended:    ${n(r.sessions, 'session')}, ${n(r.apps, 'connected app')}, ${n(r.passkeys, 'passkey')}, ${n(r.holdsReleased, 'pending hold')}`,
    `  revoked:  ${n(r.keys, 'API key')}; disabled ${n(r.endpoints, 'webhook endpoint')}`,
    `  firms:    ${r.firms.length > 0 ? `left ${r.firms.join(', ')}` : 'none'}`,
    `  mail:     ${n(r.mailErased, 'mail')} to the address erased, ${n(r.mailDropped, 'queued mail')} dropped`,
    `  kept:     ${n(r.kept.consultations, 'consultation')}, ${n(r.kept.payments, 'payment record')} (without the address; docs/site.md#deleting-an-account)`,
    `  emailed:  the confirmation to ${email} (consulta mail show ${r.confirmationMailId})`,
  ].join('\n');
}

/** `consulta users delete EMAIL` */
export function runUsersCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  // Checked before runAccessCommand would look the --as user up.
  if (ctx.flags.as !== undefined) {
    process.stderr.write('consulta: --as does not apply: users commands act as the operator\n');
    return Promise.resolve(2);
  }
  return runAccessCommand(ctx, async ({ accounts }) => {
    if (sub !== 'delete' || rest.length !== 1 || !rest[0]) throw new AccessUsageError(USAGE);
    const { config, database } = ctx;
    const logger = pino({ level: config.logLevel === 'silent' ? 'silent' : 'info', base: undefined }, pino.destination(2));
    const mail = new MailOutbox({ database, clock: systemClock, mailer: config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null, logger });
    try {
      const booking = new BookingService({
        database,
        clock: systemClock,
        config,
        cache: new DirectoryCache(database, { clock: systemClock }),
        idempotency: new IdempotencyService({ database, clock: systemClock, leaseSeconds: config.idempotencyLeaseSeconds }),
      });
      const consultations = new ConsultationsService({ database, clock: systemClock, siteUrl: config.siteUrl });
      const deletion = new AccountDeletionService({ database, clock: systemClock, accounts, booking, consultations, mail, logger });
      const email = rest[0];
      try {
        const report = await deletion.deleteByOperator(CLI, email);
        const address = normalizeEmail(email);
        print(ctx.json, reportJson(address, report), reportText(address, report));
        return 0;
      } catch (err) {
        if (!(err instanceof AccountDeletionRefused)) throw err;
        // Each reason by name, so a script can tell them apart; nothing was changed.
        if (ctx.json) print(true, { error: { code: err.code, detail: err.detail, reasons: err.blockers.map((b) => b.kind) } }, '');
        process.stderr.write(`consulta: ${err.detail} (${err.code})\n`);
        return 1;
      }
    } finally {
      await mail.close();
    }
  });
}
