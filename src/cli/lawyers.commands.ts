/**
 * `consulta lawyers …`: the operator's commands on lawyers (docs/lawyers.md). Thin: parse, call
 * VerificationService or OperatorService, print. The command line acts as the operator and is
 * named `cli` in the audit log. A running server sees a change within DIRECTORY_REFRESH_MS.
 * Exit codes: 0 ok, 1 refused or not found, 2 usage error.
 */
import pino from 'pino';
import { systemClock } from '../clock.ts';
import { LawyerCancellationService } from '../domain/booking/lawyer-cancellation.service.ts';
import type { Actor } from '../domain/access/types.ts';
import { explainListing, listingReasonText, type ListingReason } from '../domain/lawyers/listing.ts';
import { sentVerificationNotices, type SentVerificationNotice } from '../domain/lawyers/verification-notices.ts';
import type { Application, CheckedSource, VerificationRecord } from '../domain/lawyers/verification.service.ts';
import { VerificationService } from '../domain/lawyers/verification.service.ts';
import { MailOutbox } from '../domain/notify/mail-outbox.ts';
import { SmtpMailer } from '../domain/notify/mailer.ts';
import { OperatorService, type LawyerStatus } from '../domain/operator/operator.service.ts';
import { createPaymentProvider } from '../payments/index.ts';
import { auditJson } from './operator.commands.ts';
import { AccessUsageError, listValue, print, runAccessCommand, stringFlag, type AccessCommandContext } from './keys.commands.ts';

const CLI: Actor = { type: 'operator', by: { kind: 'cli' } };
export const LAWYERS_USAGE = [
  'usage: consulta lawyers applications',
  '       consulta lawyers show LAWYER_ID',
  '       consulta lawyers verify LAWYER_ID --note TEXT [--checked census,colegio] [--bar NAME|COLEGIO] [--number N]',
  '       consulta lawyers refuse LAWYER_ID --reason TEXT',
  '       consulta lawyers suspend LAWYER_ID --reason TEXT',
  '       consulta lawyers reinstate|unverify|list|unlist LAWYER_ID',
  '       consulta lawyers photos --normalise',
].join('\n');

function needOne(rest: string[]): string {
  if (rest.length !== 1 || !rest[0]) throw new AccessUsageError(LAWYERS_USAGE);
  return rest[0];
}

function needText(ctx: AccessCommandContext, name: string): string {
  const value = stringFlag(ctx.flags, name);
  if (value === undefined || value.trim() === '') throw new AccessUsageError(`--${name} TEXT is required\n${LAWYERS_USAGE}`);
  return value;
}

function lawyerJson(l: LawyerStatus): Record<string, unknown> {
  return { id: l.id, name: l.name, city: l.citySlug, status: l.status, status_reason: l.statusReason, form_of_address: l.formOfAddress, verified: l.verified, listed: l.listed, public: l.public, updated_at: l.updatedAt };
}

function lawyerText(l: LawyerStatus): string {
  const yes = (b: boolean) => (b ? 'yes' : 'no');
  return [
    ['id', l.id],
    ['name', l.name],
    ['city', l.cityName ?? l.citySlug],
    ['status', l.statusReason ? `${l.status} (${l.statusReason})` : l.status],
    // So whoever writes to her names her as she asked (docs/lawyers.md#how-she-is-named).
    ['address', l.formOfAddress === 'female' ? 'abogada' : l.formOfAddress === 'male' ? 'abogado' : l.formOfAddress === 'neutral' ? 'neutral wording' : 'not given (neutral wording)'],
    ['verified', yes(l.verified)],
    // The operator's switch alone: "listed yes" read as "in the directory" for an unverified applicant (issue 25 item 15).
    ['hidden', l.listed ? 'no' : 'yes (lawyers list ID shows her again)'],
    ['public', l.public ? 'yes (search, profile, availability, booking)' : 'no (the API answers 404)'],
  ]
    .map(([k, v]) => `${k!.padEnd(10)}${v}`)
    .join('\n');
}

/** A reason she is not listed, as fields: `code` and its details (snake_case, as the rest of --json). */
function reasonJson(r: ListingReason): Record<string, unknown> {
  switch (r.code) {
    case 'not_verified':
      return { code: r.code, status: r.status, reason: r.reason, text: listingReasonText(r) };
    case 'verification_expired':
      return { code: r.code, expired_on: r.expiredOn, text: listingReasonText(r) };
    case 'suspended':
      return { code: r.code, reason: r.reason, text: listingReasonText(r) };
    case 'hidden':
      return { code: r.code, text: listingReasonText(r) };
    case 'incomplete':
      return { code: r.code, missing: r.missing, text: listingReasonText(r) };
  }
}

function noticeJson(n: SentVerificationNotice): Record<string, unknown> {
  return { kind: n.kind, sent_at: n.at, cycle: n.cycle, delivery: n.delivery };
}

function applicationJson(a: Application): Record<string, unknown> {
  return {
    id: a.id,
    name: a.name,
    city: a.citySlug,
    status: a.status,
    applied_at: a.appliedAt,
    memberships: a.memberships.map((m) => ({ bar_name: m.barName, colegio: m.colegio?.id ?? null, membership_number: m.membershipNumber, verified: m.verified })),
    census_url: a.censusUrl,
  };
}

function verificationJson(v: VerificationRecord): Record<string, unknown> {
  return {
    id: v.id,
    bar_name: v.barName,
    colegio: v.colegioId,
    membership_number: v.membershipNumber,
    checked: v.checked,
    source: v.source,
    operator_user_id: v.operatorUserId,
    note: v.note,
    verified_at: v.verifiedAt,
    expires_at: v.expiresAt,
    reminder_sent_at: v.reminderSentAt,
  };
}

function checkedFlag(ctx: AccessCommandContext): CheckedSource[] {
  const raw = stringFlag(ctx.flags, 'checked');
  if (raw === undefined) return ['census'];
  const values = listValue(raw);
  if (values.length === 0 || values.some((v) => v !== 'census' && v !== 'colegio')) throw new AccessUsageError('--checked expects census, colegio or census,colegio');
  return values as CheckedSource[];
}

/** `consulta lawyers <applications|show|verify|refuse|suspend|reinstate|unverify|list|unlist> …` */
export function runLawyersCommand(ctx: AccessCommandContext): Promise<number> {
  const [sub, ...rest] = ctx.args;
  return runAccessCommand(ctx, async ({ accounts, keys }) => {
    if (ctx.flags.as !== undefined) throw new AccessUsageError('--as does not apply: lawyers commands act as the operator');
    const { config, database } = ctx;
    const logger = pino({ level: config.logLevel === 'silent' ? 'silent' : 'info', base: undefined }, pino.destination(2));
    const mail = new MailOutbox({ database, clock: systemClock, mailer: config.smtpUrl ? new SmtpMailer(config.smtpUrl, config.mailFrom) : null, logger });
    // Suspending (suspend, unverify) cancels her upcoming consultations: refund, email, time freed.
    const consultations = new LawyerCancellationService({ database, clock: systemClock, mail, provider: createPaymentProvider(config), siteUrl: config.siteUrl, logger });
    const operator = new OperatorService({ database, clock: systemClock, keys, accounts, consultations });
    const verification = new VerificationService({ database, clock: systemClock, mail, consultations });
    const show = async (id: string, changed?: boolean) => {
      const [{ lawyer, history }, detail] = await Promise.all([operator.lawyer(CLI, id), verification.application(CLI, id)]);
      // After the lookups above, which answer "not found" for an unknown or malformed id.
      const [listing, notices] = await Promise.all([explainListing(database.db, lawyer.id, systemClock.now().toISOString()), sentVerificationNotices(database.db, lawyer.id)]);
      const reasons = listing?.reasons ?? [];
      const data = {
        ...lawyerJson(lawyer),
        ...(changed === undefined ? {} : { changed }),
        listing: { listed: reasons.length === 0, reasons: reasons.map(reasonJson) },
        memberships: applicationJson(detail).memberships,
        verifications: detail.verifications.map(verificationJson),
        verification_emails: notices.map(noticeJson),
        census_url: detail.censusUrl,
        history: history.map(auditJson),
      };
      const lines = [lawyerText(lawyer), `${'listed'.padEnd(10)}${reasons.length === 0 ? 'yes' : 'no'}`, ...reasons.map((r) => `${'  because'.padEnd(10)}${listingReasonText(r)}`)];
      lines.push(...detail.memberships.map((m) => `member    ${m.barName}${m.membershipNumber ? ` no. ${m.membershipNumber}` : ''}${m.verified ? ' (verified)' : ''}`));
      const current = detail.verifications[0];
      if (current) lines.push(`verified  ${current.verifiedAt} until ${current.expiresAt} (${current.checked.join(', ') || current.source}): ${current.note}`);
      lines.push(notices.length === 0 ? `${'emails'.padEnd(10)}no verification email sent` : `${'emails'.padEnd(10)}verification emails sent:`);
      for (const n of notices) lines.push(`  ${n.at.slice(0, 10)}  ${n.kind}${n.delivery === 'sent' ? '' : ` (${n.delivery === 'no_address' ? 'no address: not written' : n.delivery})`}`);
      return { data, text: lines.join('\n') };
    };
    try {
      switch (sub) {
        case 'applications': {
          if (rest.length > 0) throw new AccessUsageError(LAWYERS_USAGE);
          const all = await verification.applications(CLI);
          const lines = all.map((a) => `${a.id}  ${a.appliedAt.slice(0, 10)}  ${a.name}  ${a.memberships.map((m) => `${m.barName}${m.membershipNumber ? ` no. ${m.membershipNumber}` : ''}`).join('; ') || 'no membership claimed'}`);
          print(ctx.json, { applications: all.map(applicationJson) }, lines.length ? lines.join('\n') : 'no applications waiting');
          return 0;
        }
        case 'show': {
          const { data, text } = await show(needOne(rest));
          print(ctx.json, data, text);
          return 0;
        }
        case 'verify': {
          const id = needOne(rest);
          const note = needText(ctx, 'note');
          const bar = stringFlag(ctx.flags, 'bar');
          const number = stringFlag(ctx.flags, 'number');
          const { verification: record } = await verification.verify(CLI, id, { note, checked: checkedFlag(ctx), ...(bar === undefined ? {} : { barName: bar }), ...(number === undefined ? {} : { membershipNumber: number }) });
          const { data, text } = await show(id, true);
          print(ctx.json, { ...data, verification: verificationJson(record) }, `Verified until ${record.expiresAt}:\n${text}`);
          return 0;
        }
        case 'refuse': {
          const id = needOne(rest);
          const { mailed } = await verification.refuse(CLI, id, needText(ctx, 'reason'));
          const { data, text } = await show(id, true);
          print(ctx.json, { ...data, mailed }, `Refused${mailed ? ' (the reason was emailed to the applicant)' : ' (no address to email the reason to)'}:\n${text}`);
          return 0;
        }
        case 'suspend': {
          const id = needOne(rest);
          const { changed } = await verification.suspend(CLI, id, needText(ctx, 'reason'));
          const { data, text } = await show(id, changed);
          print(ctx.json, data, `${changed ? 'Suspended' : 'Unchanged (already suspended)'}:\n${text}`);
          return 0;
        }
        case 'reinstate': {
          const id = needOne(rest);
          const { changed } = await verification.reinstate(CLI, id);
          const { data, text } = await show(id, changed);
          print(ctx.json, data, `${changed ? 'Reinstated' : 'Unchanged (not suspended)'}:\n${text}`);
          return 0;
        }
        case 'unverify':
        case 'list':
        case 'unlist': {
          const change = sub === 'unverify' ? { verified: false } : { listed: sub === 'list' };
          const { lawyer, changed } = await operator.setLawyerStatus(CLI, needOne(rest), change);
          print(ctx.json, { ...lawyerJson(lawyer), changed }, `${changed ? 'Changed' : 'Unchanged (it already was so)'}:\n${lawyerText(lawyer)}`);
          return 0;
        }
        case 'photos': {
          if (rest.length > 0 || ctx.flags.normalise !== true) throw new AccessUsageError(LAWYERS_USAGE);
          // Loaded here: sharp is needed by this command alone.
          const { PortalService } = await import('../domain/lawyers/portal.service.ts');
          const lines: string[] = [];
          const report = await new PortalService({ database, clock: systemClock }).normaliseStoredPhotos({
            onOutcome: (o) => {
              if (o.action === 'reencoded') lines.push(`re-encoded ${o.lawyerId}  ${o.from}, ${o.bytesBefore} bytes -> 512 x 512 JPEG, ${o.bytesAfter} bytes`);
              else if (o.action === 'removed') lines.push(`removed    ${o.lawyerId}  ${o.reason} (her profile shows her initials until she uploads another)`);
              else lines.push(`skipped    ${o.lawyerId}  changed meanwhile (a new upload, or another process)`);
            },
          });
          lines.push(`${report.checked} photos checked: ${report.reencoded} re-encoded, ${report.removed} removed, ${report.unchanged} already normalised${report.skipped ? `, ${report.skipped} changed meanwhile` : ''}`);
          const { outcomes, ...counts } = report;
          print(ctx.json, { ...counts, outcomes: outcomes.map((o) => ({ lawyer_id: o.lawyerId, action: o.action, ...(o.action === 'removed' ? { reason: o.reason } : {}), ...(o.action === 'reencoded' ? { from: o.from, bytes_before: o.bytesBefore, bytes_after: o.bytesAfter } : {}) })) }, lines.join('\n'));
          return 0;
        }
        default:
          throw new AccessUsageError(LAWYERS_USAGE);
      }
    } finally {
      await mail.close();
    }
  });
}
