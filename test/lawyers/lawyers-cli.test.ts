/**
 * `consulta lawyers applications|verify|refuse|suspend|reinstate` end to end, on both databases:
 * the real command spawned against the database this test's app serves. Each decision is audited
 * as `cli`, the refusal's reason is emailed (local outbox), the serving app follows; exit codes
 * 0, 1 (refused, not found), 2 (usage: a verification without a note, a suspension without a reason).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { jsonLine, runConsulta, type RunResult } from '../support/cli.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const CONFIG_VARS = ['PORT', 'HOST', 'DATABASE_URL', 'SITE_URL', 'BASE_URL', 'MCP_URL', 'LOG_LEVEL', 'SMTP_URL', 'MAIL_FROM', 'NODE_ENV', 'DIRECTORY_REFRESH_MS'];
const BASE_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !CONFIG_VARS.includes(k)));

for (const target of databaseTargets()) {
  describe(`consulta lawyers: applications and decisions (CLI, ${target.name})`, () => {
    let ctx: TestContext;
    let applicant: string;
    let doubtful: string;

    before(async () => {
      ctx = await createTestContext(target);
      [applicant, doubtful] = (await insertLawyers(ctx.database, [
        lawyerRecord({ name: 'Elena Solicitud CLI', verified: false, bar_memberships: [{ bar_name: 'Ilustre Colegio de Abogados de Málaga', verified: false, membership_number: '9876' }] }),
        lawyerRecord({ name: 'Dudosa CLI', verified: false, contact_email: 'dudosa@example.com' }),
      ])) as [string, string];
    });
    after(async () => ctx?.close());

    const cli = (...args: string[]): Promise<RunResult> => runConsulta(args, { ...BASE_ENV, DATABASE_URL: ctx.url, LOG_LEVEL: 'silent' });
    const audit = (id: string) => ctx.database.db.selectFrom('operator_audit').select(['action', 'actor_type', 'details']).where('target_id', '=', id).orderBy('id').execute();
    const profile = async (id: string) => (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${id}` })).statusCode;

    it('applications lists what waits, with the claimed colegio and number', async () => {
      const out = jsonLine(await cli('lawyers', 'applications', '--json'));
      const mine = out.applications.find((a: { id: string }) => a.id === applicant);
      assert.deepEqual(mine.memberships, [{ bar_name: 'Ilustre Colegio de Abogados de Málaga', colegio: 'malaga', membership_number: '9876', verified: false }]);
      assert.match(mine.census_url, /^https:\/\//);
      const human = await cli('lawyers', 'applications');
      assert.match(human.stdout, /Elena Solicitud CLI .*no\. 9876/);
    });

    it('show, for an unverified applicant, never says she is listed (issue 25 item 15)', async () => {
      const human = await cli('lawyers', 'show', applicant);
      assert.equal(human.code, 0);
      assert.doesNotMatch(human.stdout, /listed\s+yes/);
      assert.match(human.stdout, /verified\s+no/);
      assert.match(human.stdout, /hidden\s+no/);
      assert.match(human.stdout, /public\s+no/);
    });

    it('verify needs a note; with one she is listed, the record saying what was checked; audited as cli', async () => {
      assert.equal((await cli('lawyers', 'verify', applicant)).code, 2);
      assert.equal((await cli('lawyers', 'verify', applicant, '--note', 'x', '--checked', 'gossip')).code, 2);
      assert.equal(await profile(applicant), 404);
      const out = jsonLine(await cli('lawyers', 'verify', applicant, '--note', 'Censo: ejerciente en Málaga', '--checked', 'census,colegio', '--json'));
      assert.equal(out.status, 'verified');
      assert.equal(out.public, true);
      assert.deepEqual(out.verification.checked, ['census', 'colegio']);
      assert.equal(out.verification.colegio, 'malaga');
      assert.equal(await profile(applicant), 200);
      const [entry] = await audit(applicant);
      assert.equal(entry!.action, 'lawyer.verify');
      assert.equal(entry!.actor_type, 'cli');
    });

    it('refuse needs a reason and emails it; a second refusal is refused (exit 1)', async () => {
      assert.equal((await cli('lawyers', 'refuse', doubtful)).code, 2);
      const out = jsonLine(await cli('lawyers', 'refuse', doubtful, '--reason', 'El número no coincide con el censo', '--json'));
      assert.equal(out.status, 'refused');
      assert.equal(out.mailed, true);
      const mail = await ctx.database.db.selectFrom('mail_outbox').select('text').where('recipient', '=', 'dudosa@example.com').executeTakeFirstOrThrow();
      assert.match(mail.text, /El número no coincide con el censo/);
      assert.equal(jsonLine(await cli('lawyers', 'refuse', doubtful, '--reason', 'again', '--json'), 1).error.code, 'conflict');
      assert.deepEqual((await audit(doubtful)).map((e) => e.action), ['lawyer.refuse']);
    });

    it('suspend with a reason unlists her; reinstate lists her again; unknown ids exit 1', async () => {
      assert.equal((await cli('lawyers', 'suspend', applicant)).code, 2);
      const out = jsonLine(await cli('lawyers', 'suspend', applicant, '--reason', 'Baja colegial comunicada', '--json'));
      assert.deepEqual([out.status, out.status_reason, out.public, out.changed], ['suspended', 'Baja colegial comunicada', false, true]);
      assert.equal(await profile(applicant), 404);
      assert.equal(jsonLine(await cli('lawyers', 'reinstate', applicant, '--json')).public, true);
      assert.equal(await profile(applicant), 200);
      assert.deepEqual((await audit(applicant)).map((e) => e.action), ['lawyer.verify', 'lawyer.suspend', 'lawyer.reinstate']);
      assert.equal(jsonLine(await cli('lawyers', 'suspend', '00000000-0000-4000-8000-000000000000', '--reason', 'x', '--json'), 1).error.code, 'not_found');
      assert.equal((await cli('lawyers', 'frobnicate', applicant)).code, 2);
    });

    it('show says whether she is listed and every reason she is not, and the verification emails sent (issue 26 item 6)', async () => {
      const refused = jsonLine(await cli('lawyers', 'show', doubtful, '--json'));
      assert.deepEqual(refused.listing, { listed: false, reasons: [{ code: 'not_verified', status: 'refused', reason: 'El número no coincide con el censo', text: 'not verified: refused (El número no coincide con el censo)' }] });
      assert.deepEqual(refused.verification_emails.map((e: { kind: string; delivery: string }) => [e.kind, e.delivery]), [['refused', 'local']]);
      const refusedText = (await cli('lawyers', 'show', doubtful)).stdout;
      assert.match(refusedText, /^listed {4}no$/m);
      assert.match(refusedText, /^ {2}\d{4}-\d{2}-\d{2} {2}refused \(local\)$/m);

      // Verified, suspended and reinstated above: listed. Then her record lapses, the operator hides her and her hours are gone.
      assert.deepEqual(jsonLine(await cli('lawyers', 'show', applicant, '--json')).listing, { listed: true, reasons: [] });
      await ctx.database.db.updateTable('lawyer_verifications').set({ expires_at: '2026-01-31T00:00:00.000Z' }).where('lawyer_id', '=', applicant).execute();
      await ctx.database.db.updateTable('lawyers').set({ hidden: 1 }).where('id', '=', applicant).execute();
      await ctx.database.db.deleteFrom('lawyer_weekly_hours').where('lawyer_id', '=', applicant).execute();
      const out = jsonLine(await cli('lawyers', 'show', applicant, '--json'));
      assert.equal(out.listing.listed, false);
      assert.deepEqual(out.listing.reasons.map((r: { text: string }) => r.text), ['verification expired on 2026-01-31', 'hidden by the operator', 'profile incomplete: missing hours']);
      assert.deepEqual(out.listing.reasons[2].missing, ['hours']);
      // She gave no address: each email is recorded as not written, so the operator knows she was not told.
      assert.deepEqual(out.verification_emails.map((e: { kind: string; delivery: string }) => [e.kind, e.delivery]), [['verified', 'no_address'], ['suspended', 'no_address']]);
      const text = (await cli('lawyers', 'show', applicant)).stdout;
      assert.match(text, /^listed {4}no\n {2}because verification expired on 2026-01-31\n {2}because hidden by the operator\n {2}because profile incomplete: missing hours$/m);
      assert.match(text, /^ {2}\d{4}-\d{2}-\d{2} {2}suspended \(no address: not written\)$/m);
    });
  });
}
