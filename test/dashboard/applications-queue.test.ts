/**
 * The console's applications queue over the real app and database (both): for a person, a
 * signed-out visitor or a lawyer every queue URL, GET or POST, is the ordinary 404 page and
 * changes nothing; the queue lists waiting applications oldest first; an application shows what
 * she claims (escaped), the census link with the values to type and her colegio's website; a
 * decision without a recent passkey goes to the step-up page and changes nothing; verify (note,
 * what was checked) and refuse (a reason, emailed to her) go through VerificationService —
 * audited — with the form back and an error summary on bad input; Spanish.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { CENSUS_URL } from '../../src/domain/lawyers/bar-associations.ts';
import type { ApplicationInput } from '../../src/domain/lawyers/application.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type SignedIn } from '../support/dashboard.ts';
import { operatorSignedIn } from '../support/operator.ts';
import { SiteClient, pageText } from '../support/site.ts';

const CLAIM: ApplicationInput = {
  name: 'Amina <b>Benali</b> Ruiz',
  colegio: 'madrid',
  membershipNumber: '12.345',
  city: 'madrid',
  languages: ['es', 'ar'],
  practiceAreas: ['residence', 'arraigo-social'],
  primaryArea: 'arraigo-social',
  fee: '65,50',
  consultationMinutes: '45',
  videoUrl: 'https://meet.example.com/amina',
  phone: 'on',
  officeAddress: 'Calle Mayor 5, 28013 Madrid',
  bio: 'Abogada de extranjería. <script>alert(1)</script>',
};

for (const target of databaseTargets()) {
  describe(`console: applications queue (${target.name})`, () => {
    let ctx: TestContext;
    let first: { id: string; email: string };
    let second: { id: string; email: string };
    let person: SignedIn;
    let n = 0;

    before(async () => {
      ctx = await createTestContext(target);
      await ensureReferenceData(ctx.database.db, ctx.clock.now().toISOString());
      const apply = async (email: string, name: string) => {
        const who = await signedIn(ctx, email);
        const { application } = await ctx.app.services.applications.apply({ userId: who.userId, email: who.email }, { ...CLAIM, name });
        ctx.clock.advance(60_000);
        return { id: application.id, email: who.email };
      };
      first = await apply(`amina-${target.name}@example.com`, String(CLAIM.name));
      second = await apply(`jon-${target.name}@example.com`, 'Jon Etxeberria');
      person = await signedIn(ctx, `person-${target.name}@example.com`);
    });
    after(async () => ctx?.close());

    const op = (options: { steppedUp?: boolean; lang?: 'en' | 'es' } = { steppedUp: true }) => operatorSignedIn(ctx, `op-${++n}-${target.name}@example.com`, options);
    const statusOf = async (id: string) => (await ctx.database.db.selectFrom('lawyers').select(['status', 'status_reason']).where('id', '=', id).executeTakeFirstOrThrow()).status;
    const audit = () => ctx.database.db.selectFrom('operator_audit').selectAll().orderBy('id').execute();

    it('is the ordinary 404 page for everyone but an operator, GET or POST, and changes nothing', async () => {
      const anon = new SiteClient(ctx.app.fastify);
      for (const client of [person.client, anon]) {
        for (const url of ['/operator/applications', `/operator/applications/${first.id}`]) assert.equal((await client.get(url)).statusCode, 404, url);
        for (const url of [`/operator/applications/${first.id}/verify`, `/operator/applications/${first.id}/refuse`]) {
          const res = await client.post(url, { _csrf: 'x', note: 'pwned', checked: 'census', reason: 'pwned' });
          assert.equal(res.statusCode, 404, url);
        }
      }
      assert.equal(await statusOf(first.id), 'applied');
      assert.equal((await audit()).length, 0);
    });

    it('lists the waiting applications oldest first and shows one, escaped, with where to check it', async () => {
      const o = await op();
      const list = await o.client.get('/operator/applications');
      assert.equal(list.statusCode, 200);
      const text = pageText(list.body);
      assert.ok(text.indexOf('Benali') < text.indexOf('Jon Etxeberria'), 'oldest first');
      assert.ok(!list.body.includes('<b>Benali</b>'), 'escaped');
      const page = await o.client.get(`/operator/applications/${first.id}`);
      assert.equal(page.statusCode, 200);
      assert.ok(page.body.includes('Amina &lt;b>Benali&lt;/b> Ruiz') || page.body.includes('Amina &lt;b&gt;Benali&lt;/b&gt; Ruiz'));
      assert.ok(!page.body.includes('<script>alert(1)'), 'the bio is escaped');
      assert.ok(page.body.includes(`href="${CENSUS_URL}"`), 'the census link');
      assert.ok(page.body.includes('href="https://web.icam.es/"'), 'her colegio\'s website');
      const body = pageText(page.body);
      assert.match(body, /12\.345/);
      assert.match(body, /€65\.50/);
      assert.match(body, /45 minutes/);
      assert.match(body, /Video, Phone, In person/);
      assert.match(body, /Arabic/);
      assert.ok(page.body.includes(`action="/operator/applications/${first.id}/verify"`));
      assert.ok(page.body.includes(`action="/operator/applications/${first.id}/refuse"`));
      assert.equal((await o.client.get('/operator/applications/00000000-0000-4000-8000-000000000000')).statusCode, 404);
    });

    it('a decision without a recent passkey goes to the step-up page and changes nothing', async () => {
      const o = await op({ steppedUp: false });
      await o.client.get(`/operator/applications/${first.id}`);
      const res = await o.client.post(`/operator/applications/${first.id}/verify`, { note: 'Censo OK', checked: 'census' });
      assert.equal(res.statusCode, 303);
      assert.equal(res.headers.location, `/account/passkeys/step-up?return_to=${encodeURIComponent(`/operator/applications/${first.id}`)}`);
      assert.equal(await statusOf(first.id), 'applied');
    });

    it('verify: the form comes back on bad input, then verifies with a note, audited', async () => {
      const o = await op();
      await o.client.get(`/operator/applications/${first.id}`);
      const bad = await o.client.post(`/operator/applications/${first.id}/verify`, { note: '' });
      assert.equal(bad.statusCode, 422);
      assert.match(bad.body, /error-summary/);
      assert.match(pageText(bad.body), /Write a note of what you checked\./);
      assert.match(pageText(bad.body), /Tick what you checked/);
      assert.equal(await statusOf(first.id), 'applied');
      const good = new URLSearchParams({ _csrf: o.client.csrf(), note: 'Found in the census, número 12.345 ICAM' });
      good.append('checked', 'census');
      good.append('checked', 'colegio');
      const res = await ctx.app.fastify.inject({
        method: 'POST',
        url: `/operator/applications/${first.id}/verify`,
        payload: good.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'http://consulta.test', 'sec-fetch-site': 'same-origin', accept: 'text/html', cookie: [...o.client.cookies].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      assert.equal(res.statusCode, 303, res.body);
      assert.equal(res.headers.location, '/operator/applications?done=verified');
      assert.equal(await statusOf(first.id), 'verified');
      const record = await ctx.database.db.selectFrom('lawyer_verifications').selectAll().where('lawyer_id', '=', first.id).executeTakeFirstOrThrow();
      assert.equal(record.checked_census, 1);
      assert.equal(record.checked_colegio, 1);
      assert.equal(record.operator_user_id, o.userId);
      const entry = (await audit()).find((a) => a.action === 'lawyer.verify');
      assert.ok(entry, 'audited');
      const after = await o.client.get('/operator/applications?done=verified');
      assert.ok(!pageText(after.body).includes('Benali'), 'no longer waiting');
      // Its page now says it is decided and offers no forms.
      const decided = await o.client.get(`/operator/applications/${first.id}`);
      assert.ok(!decided.body.includes('/refuse"'));
    });

    it('refuse: a reason is required, then emailed to her and audited; refusing again is a conflict', async () => {
      const o = await op({ steppedUp: true, lang: 'es' });
      const page = await o.client.get(`/operator/applications/${second.id}`);
      assert.match(pageText(page.body), /Lo que declara/);
      const bad = await o.client.post(`/operator/applications/${second.id}/refuse`, { reason: '   ' });
      assert.equal(bad.statusCode, 422);
      assert.match(pageText(bad.body), /Indica el motivo del rechazo/);
      const res = await o.client.post(`/operator/applications/${second.id}/refuse`, { reason: 'No figura en el censo con ese número' });
      assert.equal(res.statusCode, 303);
      assert.equal(await statusOf(second.id), 'refused');
      const mail = await ctx.database.db.selectFrom('mail_outbox').selectAll().where('recipient', '=', second.email).where('kind', '=', 'lawyer_application_refused').executeTakeFirstOrThrow();
      assert.match(mail.text, /No figura en el censo con ese número/);
      assert.ok((await audit()).some((a) => a.action === 'lawyer.refuse'));
      const again = await o.client.post(`/operator/applications/${second.id}/refuse`, { reason: 'otra vez' });
      assert.equal(again.statusCode, 409);
    });
  });
}
