/**
 * The lawyers' side, foundation (docs/lawyers.md): the colegios as reference data, the one
 * listing rule and its materialised flags, verification by the operator (verify, refuse with an
 * emailed reason, suspend, reinstate), all audited; expiry after 12 months with one reminder 30
 * days before; an unlisted lawyer reads as unknown on search, profile, availability and booking.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { insertOperatorIfAbsent } from '../../src/db/repositories/operator.repository.ts';
import type { Actor } from '../../src/domain/access/types.ts';
import { BAR_ASSOCIATIONS, barAssociationId } from '../../src/domain/lawyers/bar-associations.ts';
import { isListed, listingGaps, offeredFormats, type ListingFacts } from '../../src/domain/lawyers/listing.ts';
import { verificationExpiry } from '../../src/domain/lawyers/verification-rules.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { initiate, slotBody } from '../support/booking.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const OPERATOR: Actor = { type: 'operator', by: { kind: 'cli' } };
const DAY = 86_400_000;

describe('listing rule (pure)', () => {
  const complete: ListingFacts = { status: 'verified', currentVerification: true, hidden: false, feeCents: 6000, consultationMinutes: 60, formats: ['phone'], practiceAreas: 1, weeklyHours: 5 };
  it('lists a verified, complete lawyer and names every gap otherwise', () => {
    assert.equal(isListed(complete), true);
    assert.deepEqual(listingGaps(complete), []);
    assert.deepEqual(listingGaps({ ...complete, status: 'applied' }), ['status applied']);
    assert.deepEqual(listingGaps({ ...complete, status: 'suspended' }), ['status suspended']);
    assert.deepEqual(listingGaps({ ...complete, currentVerification: false }), ['verification expired']);
    assert.deepEqual(listingGaps({ ...complete, hidden: true }), ['hidden by the operator']);
    assert.deepEqual(listingGaps({ ...complete, consultationMinutes: 20 }), ['no consultation length']);
    assert.deepEqual(listingGaps({ ...complete, formats: [], practiceAreas: 0, weeklyHours: 0 }), ['no consultation format', 'no practice area', 'no weekly hours']);
  });
  it('reads formats from the offer; a video link must be https', () => {
    assert.deepEqual(offeredFormats({ video_url: 'https://meet.example.com/x', offers_phone: 1, office_address: 'Calle Mayor 1' }), ['video', 'phone', 'in_person']);
    assert.deepEqual(offeredFormats({ video_url: 'http://meet.example.com/x', offers_phone: 0, office_address: '  ' }), []);
  });
  it('expires a verification 12 calendar months later, clamped to the month', () => {
    assert.equal(verificationExpiry('2026-11-23T08:00:00.000Z'), '2027-11-23T08:00:00.000Z');
    assert.equal(verificationExpiry('2028-02-29T10:00:00.000Z'), '2029-02-28T10:00:00.000Z');
  });
  it('knows the 83 colegios, with unique slug ids', () => {
    assert.equal(BAR_ASSOCIATIONS.length, 83);
    assert.equal(new Set(BAR_ASSOCIATIONS.map((b) => b.id)).size, 83);
    assert.equal(barAssociationId('Ilustre Colegio de Abogados de Jerez de la Frontera'), 'jerez-de-la-frontera');
    assert.equal(barAssociationId("Il·lustre Col·legi de l'Advocacia de Barcelona"), 'barcelona');
  });
});

for (const target of databaseTargets()) {
  describe(`lawyers: listing and verification (${target.name})`, () => {
    let ctx: TestContext;
    let applicant: string;
    let refused: string;
    let verified: string;
    let noHours: string;
    const db = () => ctx.database.db;
    const api = (url: string) => ctx.app.fastify.inject({ url: `/api/v1${url}` });
    const svc = () => ctx.app.services.verification;
    const inSearch = async (id: string) => ((await api('/lawyers/search?city=madrid&limit=25')).json().lawyers as Array<{ id: string }>).some((l) => l.id === id);
    const audit = (id: string) => db().selectFrom('operator_audit').select(['action', 'details', 'actor_type']).where('target_id', '=', id).orderBy('id').execute();

    before(async () => {
      ctx = await createTestContext(target);
      [applicant, refused, verified, noHours] = (await insertLawyers(ctx.database, [
        lawyerRecord({
          name: 'Nueva Solicitante',
          verified: false,
          contact_email: 'nueva@example.com',
          bar_memberships: [{ bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: false, membership_number: '123456' }],
        }),
        lawyerRecord({ name: 'Sin Colegiar', verified: false, contact_email: 'sin@example.com' }),
        lawyerRecord({ name: 'Ya Verificada' }),
        lawyerRecord({ name: 'Sin Horario', verified: false, weekly_hours: [] }),
      ], new Date(ctx.clock.now()))) as [string, string, string, string];
      const op = await ctx.app.services.accounts.ensureUser('operadora@example.com');
      await insertOperatorIfAbsent(db(), op.id, ctx.clock.now().toISOString());
    });
    after(() => ctx.close());

    it('has the 83 colegios as a table, and memberships point at theirs', async () => {
      const rows = await db().selectFrom('bar_associations').select(['id', 'name']).orderBy('id').execute();
      assert.deepEqual(rows, BAR_ASSOCIATIONS.map((b) => ({ id: b.id, name: b.name })).sort((a, b) => (a.id < b.id ? -1 : 1)));
      const m = await db().selectFrom('bar_memberships').select(['bar_association_id', 'membership_number']).where('lawyer_id', '=', applicant).executeTakeFirstOrThrow();
      assert.deepEqual(m, { bar_association_id: 'madrid', membership_number: '123456' });
    });

    it('an imported verified lawyer has a verification record valid 12 months', async () => {
      const [record] = await db().selectFrom('lawyer_verifications').selectAll().where('lawyer_id', '=', verified).execute();
      assert.equal(record!.source, 'import');
      assert.equal(record!.expires_at, '2027-11-23T08:00:00.000Z');
      const row = await db().selectFrom('lawyers').select(['status', 'verified', 'listed', 'verified_until']).where('id', '=', verified).executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'verified', verified: 1, listed: 1, verified_until: '2027-11-23T08:00:00.000Z' });
    });

    it('lists applications for the operator only; an applicant is unknown to the API', async () => {
      const apps = await svc().applications(OPERATOR);
      assert.deepEqual(apps.map((a) => a.name).sort(), ['Nueva Solicitante', 'Sin Colegiar', 'Sin Horario']);
      const mine = apps.find((a) => a.id === applicant)!;
      assert.deepEqual(mine.memberships, [{ barName: 'Ilustre Colegio de la Abogacía de Madrid', colegio: { id: 'madrid', name: 'Ilustre Colegio de la Abogacía de Madrid' }, membershipNumber: '123456', verified: false }]);
      assert.match(mine.censusUrl, /^https:\/\/www\.abogacia\.es\//);
      await assert.rejects(svc().applications({ type: 'anonymous' } as unknown as Actor), { code: 'forbidden' });
      for (const path of ['', '/availability', '/reviews']) assert.equal((await api(`/lawyers/${applicant}${path}`)).statusCode, 404);
      assert.equal(await inSearch(applicant), false);
    });

    it('verify: a record of what was checked, listed at once, the membership verified in the API; audited', async () => {
      await assert.rejects(svc().verify(OPERATOR, applicant, { note: '  ', checked: ['census'] }), { code: 'invalid_request' });
      await assert.rejects(svc().verify(OPERATOR, applicant, { note: 'ok\u202e', checked: ['census'] }), { code: 'invalid_request' });
      await assert.rejects(svc().verify(OPERATOR, applicant, { note: 'ok', checked: [] }), { code: 'invalid_request' });
      await assert.rejects(svc().verify(OPERATOR, randomUUID(), { note: 'ok', checked: ['census'] }), { code: 'not_found' });
      await assert.rejects(svc().verify({ type: 'user', userId: randomUUID() } as unknown as Actor, applicant, { note: 'ok', checked: ['census'] }), { code: 'forbidden' });
      assert.equal((await audit(applicant)).length, 0, 'refused attempts leave no entry');

      const { verification, listing } = await svc().verify(OPERATOR, applicant, { note: 'Censo: ejerciente, nº 123456', checked: ['census', 'colegio'] });
      assert.deepEqual(verification.checked, ['census', 'colegio']);
      assert.equal(verification.expiresAt, '2027-11-23T08:00:00.000Z');
      assert.deepEqual(listing.after, { verified: true, listed: true });
      const profile = await api(`/lawyers/${applicant}`);
      assert.equal(profile.statusCode, 200);
      assert.deepEqual(profile.json().bar_memberships, [{ bar_name: 'Ilustre Colegio de la Abogacía de Madrid', verified: true }]);
      assert.ok(await inSearch(applicant));
      const [entry] = await audit(applicant);
      assert.equal(entry!.action, 'lawyer.verify');
      assert.deepEqual(JSON.parse(entry!.details).checked, ['census', 'colegio']);
      assert.equal(JSON.parse(entry!.details).public_after, true);
    });

    it('an incomplete profile stays unlisted even when verified, and says why', async () => {
      const { listing } = await svc().verify(OPERATOR, noHours, { note: 'census ok', checked: ['census'] });
      assert.deepEqual(listing.after, { verified: true, listed: false });
      assert.deepEqual(listing.gaps, ['no weekly hours']);
      assert.equal((await api(`/lawyers/${noHours}`)).statusCode, 404);
    });

    it('refuse: the reason is emailed to the applicant; audited; only an application can be refused', async () => {
      const { mailed } = await svc().refuse(OPERATOR, refused, 'No figura en el censo con ese número.');
      assert.equal(mailed, true);
      const mail = await db().selectFrom('mail_outbox').select(['kind', 'text', 'subject']).where('recipient', '=', 'sin@example.com').executeTakeFirstOrThrow();
      assert.equal(mail.kind, 'lawyer_application_refused');
      assert.match(mail.text, /No figura en el censo con ese número\./);
      const row = await db().selectFrom('lawyers').select(['status', 'status_reason', 'listed']).where('id', '=', refused).executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'refused', status_reason: 'No figura en el censo con ese número.', listed: 0 });
      assert.deepEqual((await audit(refused)).map((e) => e.action), ['lawyer.refuse']);
      await assert.rejects(svc().refuse(OPERATOR, refused, 'again'), { code: 'conflict' });
      await assert.rejects(svc().refuse(OPERATOR, verified, 'no'), { code: 'conflict' });
      assert.equal((await svc().applications(OPERATOR)).some((a) => a.id === refused), false);
    });

    it('suspend: unlisted at once everywhere (search, profile, availability, hold); reinstate: back', async () => {
      assert.ok(await inSearch(verified), 'listed first (and cached)');
      const { changed } = await svc().suspend(OPERATOR, verified, 'Queja grave en investigación');
      assert.equal(changed, true);
      assert.equal(await inSearch(verified), false);
      for (const path of ['', '/availability', '/reviews']) assert.equal((await api(`/lawyers/${verified}${path}`)).statusCode, 404, path);
      const hold = await initiate(ctx, slotBody(verified, '2026-11-24', '10'));
      assert.equal(hold.statusCode, 404, 'no hold on a suspended lawyer');
      assert.equal((await svc().suspend(OPERATOR, verified, 'again')).changed, false);

      const back = await svc().reinstate(OPERATOR, verified);
      assert.equal(back.changed, true);
      assert.ok(await inSearch(verified));
      assert.deepEqual((await audit(verified)).map((e) => e.action), ['lawyer.suspend', 'lawyer.reinstate']);
      await assert.rejects(svc().reinstate(OPERATOR, refused), { code: 'conflict' });
    });

    it('expiry: one reminder 30 days before (lawyer and operator), then unlisted at expiry; a renewal lists her again', async () => {
      const [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ name: 'Caduca Pronto', contact_email: 'caduca@example.com' })], new Date(ctx.clock.now()))) as [string];
      const before = await svc().sweep();
      assert.equal(before.expired, 0);
      const remindersTo = async () => (await db().selectFrom('mail_outbox').select(['recipient', 'kind']).where('kind', 'like', 'lawyer_verification_%').orderBy('recipient').execute()).map((m) => m.recipient);
      const already = (await remindersTo()).length;

      ctx.clock.advance(337 * DAY); // 2027-10-26: 28 days before expiry
      const first = await svc().sweep();
      assert.ok(first.reminded >= 1);
      const mails = await remindersTo();
      assert.ok(mails.includes('caduca@example.com'));
      assert.ok(mails.includes('operadora@example.com'));
      assert.ok(mails.length > already);
      const count = mails.length;
      assert.equal((await svc().sweep()).reminded, 0, 'the reminder goes once');
      assert.equal((await remindersTo()).length, count);
      assert.ok(await inSearch(lawyerId), 'still listed until the day');

      ctx.clock.advance(29 * DAY); // past 2027-11-23
      const swept = await svc().sweep();
      assert.ok(swept.expired >= 1);
      assert.equal(await inSearch(lawyerId), false);
      assert.equal((await api(`/lawyers/${lawyerId}`)).statusCode, 404);
      const row = await db().selectFrom('lawyers').select(['status', 'verified', 'listed']).where('id', '=', lawyerId).executeTakeFirstOrThrow();
      assert.deepEqual(row, { status: 'verified', verified: 0, listed: 0 });
      await assert.rejects(svc().reinstate(OPERATOR, lawyerId), { code: 'conflict' });

      await svc().verify(OPERATOR, lawyerId, { note: 'renewed: census checked again', checked: ['census'] });
      assert.ok(await inSearch(lawyerId));
      assert.equal((await svc().sweep()).expired, 0);
    });
  });
}
