/**
 * Verification is a conversation, under two real `consulta serve` processes on one PostgreSQL
 * database (issue 26, "Done when": the verification emails are sent once each under two
 * processes; the reminder jobs race). Both processes run the verification sweep every 50 ms
 * (SWEEP_INTERVAL_MS) on the same lawyers: verifications expiring in 29 days and in 6 days, and
 * ones that lapsed an hour ago, for a lawyer reading each of the six languages. The operator's
 * acts (verify, refuse, suspend) are the `consulta lawyers` command: each run twice at once, as
 * two operators at two terminals would, while the sweeps go on. Each email is in the outbox
 * exactly once per lawyer, in her account's language (Spanish when she has no account).
 *
 * Real processes keep real time: the expiries are set relative to now. Skipped only where
 * PostgreSQL is not configured, and in CI it always is (test/support/databases.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { systemClock } from '../../src/clock.ts';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import { VERIFICATION_NOTICE_KINDS } from '../../src/domain/lawyers/verification-notices.ts';
import { formatDay } from '../../src/i18n/format.ts';
import { messages, type Locale } from '../../src/i18n/index.ts';
import { runConsulta, type RunResult } from '../support/cli.ts';
import { databaseTargets, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { startServerProcess, type ServerProcess } from '../support/process.ts';

const postgres = databaseTargets().find((t) => t.name === 'postgres');
const skip = !postgres ? 'needs PostgreSQL (TEST_DATABASE_URL)' : false;
const DAY = 86_400_000;
const LOCALES: Locale[] = ['es', 'en', 'fr', 'ar', 'uk', 'ro'];
const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS', 'SWEEP_INTERVAL_MS', 'REDIS_URL'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));

type SweepKind = 'expires_30' | 'expires_7' | 'expired';

describe('verification emails under two server processes on one PostgreSQL', { skip, timeout: 600_000 }, () => {
  let db: TestDatabase;
  let servers: ServerProcess[] = [];
  const accounts = () => new AccountsService({ database: db.database, clock: systemClock });

  before(async () => {
    db = await postgres!.create();
    const env = { DATABASE_URL: db.url, SWEEP_INTERVAL_MS: '50', LOG_LEVEL: 'info' };
    servers = await Promise.all([0, 1].map(() => startServerProcess(env, 180_000)));
  });
  after(async () => {
    await Promise.all(servers.map((s) => s.stop('SIGKILL')));
    await db?.drop();
  });

  const cli = (...args: string[]): Promise<RunResult> => runConsulta(args, { ...BASE_ENV, DATABASE_URL: db.url, LOG_LEVEL: 'silent' });
  const outbox = () => db.database.db.selectFrom('mail_outbox').select(['recipient', 'kind', 'subject', 'text']).where('kind', 'like', 'lawyer_%').orderBy('id').execute();

  /** A lawyer with an account reading `locale` (none for `null`: her contact address, Spanish). */
  async function lawyer(name: string, locale: Locale | null, options: { applied?: boolean; expiresAt?: Date } = {}): Promise<{ id: string; to: string; locale: Locale }> {
    const contact = `${name.toLowerCase().replaceAll(' ', '.')}@despacho.example`;
    const [id] = (await insertLawyers(db.database, [lawyerRecord({ name, verified: !options.applied, contact_email: contact })], new Date())) as [string];
    if (options.applied) await db.database.db.updateTable('lawyers').set({ status: 'applied' }).where('id', '=', id).execute();
    let to = contact;
    if (locale !== null) {
      const user = await accounts().ensureUser(`${id}@people.example`);
      await db.database.db.updateTable('users').set({ locale }).where('id', '=', user.id).execute();
      await db.database.db.updateTable('lawyers').set({ user_id: user.id }).where('id', '=', id).execute();
      to = user.email;
    }
    // Last, in one transaction: the sweeps see her due only once she is complete.
    if (options.expiresAt) {
      const at = options.expiresAt.toISOString();
      await db.database.db.transaction().execute(async (tx) => {
        await tx.updateTable('lawyer_verifications').set({ expires_at: at }).where('lawyer_id', '=', id).execute();
        await tx.updateTable('lawyers').set({ verified_until: at }).where('id', '=', id).execute();
      });
    }
    return { id, to, locale: locale ?? 'es' };
  }

  /** Polls the outbox until `done` holds (the processes' sweeps are real time); fails after two minutes. */
  async function until(done: (mails: Awaited<ReturnType<typeof outbox>>) => boolean): Promise<void> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (done(await outbox())) return;
      if (Date.now() > deadline) assert.fail(`the outbox never got there: ${JSON.stringify((await outbox()).map((m) => [m.recipient, m.kind]))}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('verified, refused, 30 and 7 days before, expired, suspended: each once per lawyer, in her language', async () => {
    const operator = await accounts().ensureUser('guardia@consulta.example');
    await db.database.db.insertInto('operators').values({ user_id: operator.id, added_at: new Date().toISOString() }).execute();
    // The sweeps' cases, in each of the six languages, written while both processes sweep.
    const now = Date.now();
    const due: Array<{ kind: SweepKind; to: string; locale: Locale; expiresAt: Date }> = [];
    for (const locale of LOCALES) {
      for (const [kind, expiresAt] of [['expires_30', new Date(now + 29 * DAY)], ['expires_7', new Date(now + 6 * DAY)], ['expired', new Date(now - 3_600_000)]] as const) {
        const l = await lawyer(`Letrada ${kind} ${locale}`, locale, { expiresAt });
        due.push({ kind, to: l.to, locale: l.locale, expiresAt });
      }
    }
    // The operator's acts, each run twice at once while the sweeps go on.
    const granted = await lawyer('Nueva Colegiada', 'fr', { applied: true });
    const refused = await lawyer('Sin Censo', 'uk', { applied: true });
    const suspended = await lawyer('Ana Suspendida', null);
    const runs = await Promise.all([
      cli('lawyers', 'verify', granted.id, '--note', 'Censo: ejerciente', '--checked', 'census'),
      cli('lawyers', 'refuse', refused.id, '--reason', 'No figura en el censo con ese número.'),
      cli('lawyers', 'refuse', refused.id, '--reason', 'No figura en el censo con ese número.'),
      cli('lawyers', 'suspend', suspended.id, '--reason', 'Quejas reiteradas pendientes de revisión.'),
      cli('lawyers', 'suspend', suspended.id, '--reason', 'Quejas reiteradas pendientes de revisión.'),
    ]);
    assert.equal(runs[0]!.code, 0, runs[0]!.stderr);
    // One refusal decides; the other finds her refused already and says so (exit 1, not a second email).
    assert.deepEqual([runs[1]!.code, runs[2]!.code].sort(), [0, 1], `${runs[1]!.stdout}${runs[1]!.stderr}\n${runs[2]!.stdout}${runs[2]!.stderr}`);
    assert.equal(runs[3]!.code, 0, runs[3]!.stderr);
    assert.equal(runs[4]!.code, 0, runs[4]!.stderr);
    assert.equal([runs[3]!.stdout, runs[4]!.stdout].filter((o) => o.startsWith('Suspended')).length, 1, 'one suspension, one "unchanged"');

    const expected = due.length + 3;
    await until((mails) => mails.length >= expected + LOCALES.length * 2);
    // Let both processes sweep many more times over the same rows: nothing more may be queued.
    const settled = (await outbox()).length;
    await new Promise((r) => setTimeout(r, 3_000));
    const mails = await outbox();
    assert.equal(mails.length, settled, 'no email after the sweeps went round again');

    const hers = (to: string) => mails.filter((m) => m.recipient === to);
    for (const d of due) {
      const t = messages(d.locale).lawyerMail;
      const mine = hers(d.to);
      assert.deepEqual(mine.map((m) => m.kind), [VERIFICATION_NOTICE_KINDS[d.kind]], `${d.kind} in ${d.locale}`);
      const subject = d.kind === 'expired' ? t.expired.subject : t.expires.subject(formatDay(d.expiresAt.toISOString().slice(0, 10), d.locale));
      assert.equal(mine[0]!.subject, subject, `${d.kind} in ${d.locale}`);
      assert.ok(mine[0]!.text.includes(d.kind === 'expired' ? t.expired.todo : t.expires.todo), `what to do, ${d.kind} in ${d.locale}`);
    }
    const one = (to: string) => {
      const mine = hers(to);
      assert.equal(mine.length, 1, JSON.stringify(mine.map((m) => m.kind)));
      return mine[0]!;
    };
    assert.equal(one(granted.to).subject, messages('fr').lawyerMail.verified.subject(null), 'no form of address given: the neutral wording');
    assert.equal(one(granted.to).kind, 'lawyer_verified');
    const refusal = one(refused.to);
    assert.equal(refusal.kind, 'lawyer_application_refused');
    assert.equal(refusal.subject, messages('uk').lawyerMail.refused.subject);
    assert.match(refusal.text, /-----\nNo figura en el censo con ese número\.\n-----/);
    const suspension = one(suspended.to);
    assert.equal(suspension.kind, 'lawyer_suspended');
    assert.equal(suspension.subject, messages('es').lawyerMail.suspended.subject);

    // The operator's own reminder (30 days before) is also once per verification: the 12 that expire within 30 days.
    const reminders = mails.filter((m) => m.kind === 'lawyer_verification_reminder_operator');
    assert.equal(reminders.length, LOCALES.length * 2);
    assert.ok(reminders.every((m) => m.recipient === operator.email));
    assert.equal(new Set(reminders.map((m) => m.subject)).size, reminders.length, 'one per lawyer');
    const notices = await db.database.db.selectFrom('lawyer_verification_notices').select(['lawyer_id', 'kind']).execute();
    // expires_7 also claims that cycle's expires_30 without a mail (one reminder, the nearer): the 6 silent rows.
    assert.equal(notices.length, due.length + 3 + LOCALES.length);
  });
});
