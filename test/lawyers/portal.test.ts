/**
 * The lawyer's portal's rules (issue 18 item 3; docs/lawyers.md#the-portal), on both databases:
 * PortalService (profile, bios per language, offer, photo) and CalendarService (weekly hours,
 * overrides, booking rules). Each write is checked for its validation (nothing written on bad
 * input), its transaction's effects (listing rule, lawyer change feed, directory version) and
 * what the public API then shows: the new bio fenced, her availability inside the hours she saved.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { LawyerTable } from '../../src/db/schema.ts';
import { BUFFER_MINUTES, CONSULTATION_LENGTHS, HORIZON_DAYS, isQuarterHour, NOTICE_MINUTES, TIME_ZONES } from '../../src/domain/lawyers/calendar-rules.ts';
import { checkRanges } from '../../src/domain/lawyers/calendar.service.ts';
import { sniffImage, validateOffer, validateProfile, type ProfileInput } from '../../src/domain/lawyers/portal.service.ts';
import { DomainError, type FieldError } from '../../src/domain/errors.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';

const GOOD_PROFILE: ProfileInput = {
  name: 'Amina Benali Ruiz',
  bios: { es: 'Abogada de extranjería.\nArraigo y nacionalidad.', en: 'Immigration lawyer. Residence and nationality.' },
  languages: ['es', 'ar', 'fr'],
  practiceAreas: ['residence', 'arraigo-social'],
  primaryArea: 'arraigo-social',
  fee: '65,50',
};

/** A 1×1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

async function refusal(p: Promise<unknown>): Promise<string[]> {
  try {
    await p;
  } catch (err) {
    if (err instanceof DomainError && err.code === 'invalid_request') return (err.errors ?? []).map((e) => e.pointer);
    throw err;
  }
  assert.fail('expected invalid_request');
}

describe('portal rules (pure)', () => {
  it('calendar-rules: the allowed values and quarter hours', () => {
    assert.deepEqual([...CONSULTATION_LENGTHS], [30, 45, 60, 90]);
    assert.deepEqual([...BUFFER_MINUTES], [0, 15, 30, 45, 60]);
    assert.deepEqual([...NOTICE_MINUTES], [60, 120, 240, 720, 1440, 2880]);
    assert.deepEqual([...HORIZON_DAYS], [14, 30, 60, 90]);
    assert.deepEqual([...TIME_ZONES], ['Europe/Madrid', 'Atlantic/Canary']);
    // 24:00 ends a day (a range until midnight); it is never a start (the calendar service checks order).
    for (const ok of ['00:00', '09:15', '23:45', '12:30:00', '24:00']) assert.equal(isQuarterHour(ok), true, ok);
    for (const bad of ['09:10', '24:15', '25:00', '9:00', '12:30:15', '', 'noon', '09:15:00Z']) assert.equal(isQuarterHour(bad), false, bad);
  });

  it('profile: a good one is cleaned; every bad field is named', () => {
    const r = validateProfile(GOOD_PROFILE);
    assert.ok(r.ok);
    assert.equal(r.value.feeCents, 6550);
    assert.equal(r.value.bios.es, 'Abogada de extranjería. Arraigo y nacionalidad.');
    const bad = (input: ProfileInput) => {
      const v = validateProfile(input);
      return v.ok ? [] : v.errors.map((e) => e.pointer);
    };
    assert.deepEqual(bad({}).sort(), ['/fee', '/languages', '/name', '/practice_areas']);
    assert.deepEqual(bad({ ...GOOD_PROFILE, bios: { es: 'x'.repeat(1001) } }), ['/bio_es']);
    assert.deepEqual(bad({ ...GOOD_PROFILE, bios: { en: 'Hi\u202eevil' } }), ['/bio_en']);
    assert.deepEqual(bad({ ...GOOD_PROFILE, name: 'Amina\u0007' }), ['/name']);
    assert.deepEqual(bad({ ...GOOD_PROFILE, primaryArea: 'nationality' }), ['/primary_area']);
    assert.deepEqual(bad({ ...GOOD_PROFILE, fee: '1000,01' }), ['/fee']);
    assert.deepEqual(bad({ ...GOOD_PROFILE, languages: ['xx'] }), ['/languages']);
  });

  it('offer: a length and at least one format; video https only', () => {
    assert.ok(validateOffer({ consultationMinutes: '45', phone: 'on' }).ok);
    const bad = (input: Parameters<typeof validateOffer>[0]) => {
      const v = validateOffer(input);
      return v.ok ? [] : v.errors.map((e) => e.pointer);
    };
    assert.deepEqual(bad({ consultationMinutes: '20', phone: 'on' }), ['/consultation_minutes']);
    assert.deepEqual(bad({ consultationMinutes: '60' }), ['/formats']);
    assert.deepEqual(bad({ consultationMinutes: '60', videoUrl: 'http://meet.example.com/x' }), ['/video_url']);
    assert.deepEqual(bad({ consultationMinutes: '60', videoUrl: 'javascript:alert(1)' }), ['/video_url']);
    assert.deepEqual(bad({ consultationMinutes: '60', videoUrl: 'https://user:pw@meet.example.com/x' }), ['/video_url']);
    assert.deepEqual(bad({ consultationMinutes: '60', officeAddress: 'Calle\u0000Larios' }), ['/office_address']);
  });

  it('ranges: quarter hours, in order, not overlapping, one consultation long at least', () => {
    const check = (raw: Array<{ start: string; end: string }>, minutes = 60) => {
      const errors: FieldError[] = [];
      const ranges = checkRanges(raw, '/week/1', minutes, errors);
      return { ranges, details: errors.map((e) => e.detail) };
    };
    assert.deepEqual(check([{ start: '09:00', end: '13:00' }, { start: '', end: '' }, { start: '16:00', end: '19:30' }]).ranges, [{ start: '09:00', end: '13:00' }, { start: '16:00', end: '19:30' }]);
    assert.match(check([{ start: '09:10', end: '13:00' }]).details.join(), /quarter hour/);
    assert.match(check([{ start: '13:00', end: '09:00' }]).details.join(), /after the start/);
    assert.match(check([{ start: '09:00', end: '09:30' }]).details.join(), /at least as long as one consultation/);
    assert.match(check([{ start: '09:00', end: '13:00' }, { start: '12:00', end: '15:00' }]).details.join(), /not overlap/);
    assert.match(check([{ start: '16:00', end: '18:00' }, { start: '09:00', end: '13:00' }]).details.join(), /in order/);
    assert.match(check([{ start: '09:00', end: '' }]).details.join(), /both a start and an end/);
  });

  it('photos are known by their first bytes', () => {
    assert.equal(sniffImage(PNG), 'image/png');
    assert.equal(sniffImage(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0])), 'image/jpeg');
    assert.equal(sniffImage(Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 ')])), 'image/webp');
    assert.equal(sniffImage(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')), null);
    assert.equal(sniffImage(Buffer.from('GIF89a')), null);
  });
});

for (const target of databaseTargets()) {
  describe(`the lawyer's portal services (${target.name})`, () => {
    let ctx: TestContext;
    let n = 0;
    before(async () => {
      ctx = await createTestContext(target); // Monday 2026-11-23 09:00 Madrid
    });
    after(async () => ctx?.close());

    const portal = () => ctx.app.services.lawyerPortal;
    const calendar = () => ctx.app.services.lawyerCalendar;
    const db = () => ctx.database.db;

    /** A lawyer linked to a fresh account; verified and listed unless told otherwise. */
    async function lawyerWithAccount(overrides: Parameters<typeof lawyerRecord>[0] = {}): Promise<LawyerTable> {
      const user = await ctx.app.services.accounts.ensureUser(`lawyer-${++n}@example.com`);
      const [id] = await insertLawyers(ctx.database, [lawyerRecord(overrides)]);
      await db().updateTable('lawyers').set({ user_id: user.id }).where('id', '=', id!).execute();
      return (await portal().forUser(user.id))!;
    }
    const changes = async (lawyerId: string) => (await db().selectFrom('lawyer_changes').select('id').where('lawyer_id', '=', lawyerId).execute()).length;
    const version = async () => Number((await db().selectFrom('directory_state').selectAll().executeTakeFirstOrThrow() as { version: number }).version);

    it('forUser: only the record linked to that account', async () => {
      const user = await ctx.app.services.accounts.ensureUser(`nobody-${++n}@example.com`);
      assert.equal(await portal().forUser(user.id), null);
      const lawyer = await lawyerWithAccount();
      assert.equal(lawyer.status, 'verified');
    });

    it('saves her profile in one transaction: bios per language, the default bio, areas, languages, fee; the API shows it fenced', async () => {
      const lawyer = await lawyerWithAccount();
      const [c0, v0] = [await changes(lawyer.id), await version()];
      await portal().saveProfile(lawyer, GOOD_PROFILE);
      const row = await db().selectFrom('lawyers').selectAll().where('id', '=', lawyer.id).executeTakeFirstOrThrow();
      assert.equal(row.name, 'Amina Benali Ruiz');
      assert.equal(row.bio, 'Abogada de extranjería. Arraigo y nacionalidad.');
      assert.equal(row.consultation_fee_cents, 6550);
      assert.deepEqual(JSON.parse(row.languages_json), ['es', 'ar', 'fr']);
      assert.equal(JSON.parse(row.practice_areas_json)[0].slug, 'arraigo-social');
      const bios = await db().selectFrom('lawyer_bios').select(['language', 'bio']).where('lawyer_id', '=', lawyer.id).orderBy('language').execute();
      assert.deepEqual(bios, [{ language: 'en', bio: 'Immigration lawyer. Residence and nationality.' }, { language: 'es', bio: 'Abogada de extranjería. Arraigo y nacionalidad.' }]);
      const areas = await db().selectFrom('lawyer_practice_areas').select(['area_slug', 'is_primary']).where('lawyer_id', '=', lawyer.id).orderBy('area_slug').execute();
      assert.deepEqual(areas, [{ area_slug: 'arraigo-social', is_primary: 1 }, { area_slug: 'residence', is_primary: 0 }]);
      assert.ok((await changes(lawyer.id)) > c0, 'a lawyer change recorded');
      assert.ok((await version()) > v0, 'the directory version moved');

      // The API (and MCP, which shows the same profile) has it at once, the bio fenced.
      const profile = (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer.id}` })).json();
      assert.equal(profile.name, 'Amina Benali Ruiz');
      assert.equal(profile.consultation_fee_cents, 6550);
      assert.match(profile.bio, /^\[BEGIN UNTRUSTED TEXT [^\]]*\]\nAbogada de extranjería\. Arraigo y nacionalidad\.\n\[END UNTRUSTED TEXT/);
      // get_lawyer_profile (MCP) answers with directory.getProfile, fenced by default: the same text.
      const forAgents = await ctx.app.services.directory.getProfile(lawyer.id);
      assert.match(forAgents.bio ?? '', /^\[BEGIN UNTRUSTED TEXT [^\]]*source=lawyer_bio[^\]]*\]\nAbogada de extranjería/);

      // Only an English bio: that one becomes the default.
      await portal().saveProfile(lawyer, { ...GOOD_PROFILE, bios: { es: '', en: 'Only English.' } });
      assert.equal((await db().selectFrom('lawyers').select('bio').where('id', '=', lawyer.id).executeTakeFirstOrThrow()).bio, 'Only English.');
      assert.deepEqual((await portal().profile(lawyer)).bios, { es: '', en: 'Only English.' });
    });

    it('a bad profile writes nothing', async () => {
      const lawyer = await lawyerWithAccount();
      const c0 = await changes(lawyer.id);
      assert.deepEqual((await refusal(portal().saveProfile(lawyer, { ...GOOD_PROFILE, name: '', fee: 'free' }))).sort(), ['/fee', '/name']);
      const row = await db().selectFrom('lawyers').select(['name', 'consultation_fee_cents']).where('id', '=', lawyer.id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { name: 'Lucía Fernández Ruiz', consultation_fee_cents: 6000 });
      assert.equal(await changes(lawyer.id), c0);
    });

    it('saves her offer; the hours follow its length; no format unlists nothing because it is refused', async () => {
      const lawyer = await lawyerWithAccount();
      await portal().saveOffer(lawyer, { consultationMinutes: '45', videoUrl: 'https://meet.example.com/amina', phone: 'on', officeAddress: 'Calle Larios 5, Málaga' });
      const row = await db().selectFrom('lawyers').select(['consultation_minutes', 'video_url', 'offers_phone', 'office_address', 'listed']).where('id', '=', lawyer.id).executeTakeFirstOrThrow();
      assert.deepEqual(row, { consultation_minutes: 45, video_url: 'https://meet.example.com/amina', offers_phone: 1, office_address: 'Calle Larios 5, Málaga', listed: 1 });
      const slots = await db().selectFrom('lawyer_weekly_hours').select('slot_minutes').where('lawyer_id', '=', lawyer.id).execute();
      assert.ok(slots.length > 0 && slots.every((s) => s.slot_minutes === 45));
      assert.deepEqual((await portal().offer(lawyer)).formats, ['video', 'phone', 'in_person']);
      assert.deepEqual(await refusal(portal().saveOffer(lawyer, { consultationMinutes: '60' })), ['/formats']);
      assert.equal((await portal().offer(lawyer)).consultationMinutes, 45);
    });

    it('overview: status, listing and exactly what is missing; filling the last gap lists her', async () => {
      const lawyer = await lawyerWithAccount({ weekly_hours: [] });
      const before = await portal().overview(lawyer);
      assert.equal(before.status, 'verified');
      assert.equal(before.listed, false);
      assert.deepEqual(before.gaps, ['weekly_hours']);
      assert.match(before.verifiedUntil ?? '', /^2027-/);
      assert.equal((await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer.id}` })).statusCode, 404);

      await calendar().saveWeek(lawyer, { week: { 1: [{ start: '09:00', end: '13:00' }] }, noticeMinutes: '120', bufferMinutes: '0', horizonDays: '30', timezone: 'Europe/Madrid' });
      const afterSave = await portal().overview(lawyer);
      assert.equal(afterSave.listed, true);
      assert.deepEqual(afterSave.gaps, []);
      assert.equal((await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer.id}` })).statusCode, 200);

      // An application (status applied) with nothing but an offer: verification is missing.
      const user = await ctx.app.services.accounts.ensureUser(`applicant-${++n}@example.com`);
      await ctx.app.services.applications.apply({ userId: user.id, email: user.email }, { name: 'Nueva Abogada', colegio: 'madrid', membershipNumber: '1', city: 'madrid', languages: ['es'], practiceAreas: ['residence'], fee: '50', consultationMinutes: '60', phone: 'on' });
      const applicant = (await portal().forUser(user.id))!;
      const o = await portal().overview(applicant);
      assert.equal(o.status, 'applied');
      assert.deepEqual(o.gaps, ['verification', 'weekly_hours']);
    });

    it('calendar: saves week and rules in one go; bad input writes nothing', async () => {
      const lawyer = await lawyerWithAccount();
      const c0 = await changes(lawyer.id);
      await calendar().saveWeek(lawyer, {
        week: { 1: [{ start: '09:00', end: '13:00' }, { start: '16:00', end: '19:30' }], 3: [{ start: '10:00', end: '14:00' }] },
        noticeMinutes: '1440',
        bufferMinutes: '15',
        horizonDays: '60',
        timezone: 'Atlantic/Canary',
      });
      const view = await calendar().calendar(lawyer);
      assert.deepEqual(view.week[1], [{ start: '09:00', end: '13:00' }, { start: '16:00', end: '19:30' }]);
      assert.deepEqual(view.week[2], []);
      assert.deepEqual(view.week[3], [{ start: '10:00', end: '14:00' }]);
      assert.deepEqual([view.noticeMinutes, view.bufferMinutes, view.horizonDays, view.timezone], [1440, 15, 60, 'Atlantic/Canary']);
      const stored = await db().selectFrom('lawyer_weekly_hours').select(['weekday', 'start_time', 'end_time', 'slot_minutes']).where('lawyer_id', '=', lawyer.id).orderBy('weekday').orderBy('start_time').execute();
      assert.deepEqual(stored[0], { weekday: 1, start_time: '09:00:00', end_time: '13:00:00', slot_minutes: 60 });
      assert.ok((await changes(lawyer.id)) > c0);

      const bad = await refusal(
        calendar().saveWeek(lawyer, { week: { 2: [{ start: '09:00', end: '12:00' }, { start: '11:00', end: '14:00' }], 4: [{ start: '09:05', end: '10:00' }] }, noticeMinutes: '5', bufferMinutes: '20', horizonDays: '365', timezone: 'Europe/London' }),
      );
      assert.deepEqual(bad.sort(), ['/buffer_minutes', '/horizon_days', '/notice_minutes', '/timezone', '/week/2', '/week/4/0']);
      assert.deepEqual((await calendar().calendar(lawyer)).week[1], [{ start: '09:00', end: '13:00' }, { start: '16:00', end: '19:30' }], 'unchanged');
      assert.equal((await calendar().calendar(lawyer)).timezone, 'Atlantic/Canary');
    });

    it('date overrides: closed or other hours, from today to her horizon; removed again; another date of hers only', async () => {
      const lawyer = await lawyerWithAccount();
      await calendar().saveWeek(lawyer, { week: { 1: [{ start: '09:00', end: '14:00' }] }, noticeMinutes: '60', bufferMinutes: '0', horizonDays: '30', timezone: 'Europe/Madrid' });
      await calendar().setOverride(lawyer, { date: '2026-11-30', closed: true });
      await calendar().setOverride(lawyer, { date: '2026-12-02', closed: false, ranges: [{ start: '16:00', end: '18:00' }] });
      const view = await calendar().calendar(lawyer);
      assert.deepEqual(view.overrides, [
        { date: '2026-11-30', closed: true, ranges: [] },
        { date: '2026-12-02', closed: false, ranges: [{ start: '16:00', end: '18:00' }] },
      ]);
      assert.deepEqual(await refusal(calendar().setOverride(lawyer, { date: '2026-11-20', closed: true })), ['/date']);
      assert.deepEqual(await refusal(calendar().setOverride(lawyer, { date: '2027-02-01', closed: true })), ['/date']);
      assert.deepEqual(await refusal(calendar().setOverride(lawyer, { date: '2026-02-30', closed: true })), ['/date']);
      assert.deepEqual(await refusal(calendar().setOverride(lawyer, { date: '2026-12-03', closed: false, ranges: [] })), ['/ranges']);
      assert.deepEqual(await refusal(calendar().setOverride(lawyer, { date: '2026-12-03', closed: false, ranges: [{ start: '18:00', end: '16:00' }] })), ['/ranges/0']);

      // The API: closed on the 30th, the other hours on the 2nd.
      const slots = (await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer.id}/availability?start_date=2026-11-30&end_date=2026-12-02` })).json().slots as Array<{ date: string; start_time: string }>;
      assert.equal(slots.filter((s) => s.date === '2026-11-30').length, 0);
      assert.ok(slots.filter((s) => s.date === '2026-12-02').every((s) => s.start_time >= '16:00:00' && s.start_time < '18:00:00'));

      await calendar().removeOverride(lawyer, '2026-11-30');
      assert.deepEqual((await calendar().calendar(lawyer)).overrides.map((o) => o.date), ['2026-12-02']);
      await assert.rejects(calendar().removeOverride(lawyer, '2026-11-30'), (e: unknown) => e instanceof DomainError && e.code === 'not_found');

      // Another lawyer's override is out of her reach: removing "that date" touches only her own.
      const other = await lawyerWithAccount();
      await calendar().setOverride(other, { date: '2026-12-02', closed: true });
      await calendar().removeOverride(lawyer, '2026-12-02');
      assert.deepEqual((await calendar().calendar(other)).overrides, [{ date: '2026-12-02', closed: true, ranges: [] }]);
    });

    it('after saving weekly hours, the API offers times inside those ranges and none outside', async () => {
      const lawyer = await lawyerWithAccount();
      await calendar().saveWeek(lawyer, {
        week: { 2: [{ start: '10:00', end: '12:00' }, { start: '16:30', end: '18:30' }], 4: [{ start: '08:15', end: '09:15' }] },
        noticeMinutes: '60',
        bufferMinutes: '0',
        horizonDays: '30',
        timezone: 'Europe/Madrid',
      });
      const res = await ctx.app.fastify.inject({ url: `/api/v1/lawyers/${lawyer.id}/availability?start_date=2026-11-24&end_date=2026-11-30` });
      assert.equal(res.statusCode, 200);
      const slots = res.json().slots as Array<{ date: string; start_time: string; end_time: string }>;
      assert.ok(slots.length > 0, 'some times offered');
      const ranges: Record<number, Array<[string, string]>> = { 2: [['10:00:00', '12:00:00'], ['16:30:00', '18:30:00']], 4: [['08:15:00', '09:15:00']] };
      for (const s of slots) {
        const weekday = ((new Date(`${s.date}T12:00:00Z`).getUTCDay() + 6) % 7) + 1;
        const inside = (ranges[weekday] ?? []).some(([a, b]) => s.start_time >= a && s.end_time <= b);
        assert.ok(inside, `${s.date} ${s.start_time}–${s.end_time} is inside her hours`);
      }
      assert.ok(slots.some((s) => s.date === '2026-11-24' && s.start_time === '16:30:00'), 'the afternoon range is offered');
    });

    it('photo: PNG stored and served by hash; SVG, other files and > 2 MB refused', async () => {
      const lawyer = await lawyerWithAccount();
      const url = await portal().savePhoto(lawyer, PNG);
      assert.match(url, new RegExp(`^/lawyer-photos/${lawyer.id}/[0-9a-f]{32}$`));
      assert.equal(await portal().photoUrl(lawyer.id), url);
      const hash = url.split('/').pop()!;
      const photo = (await portal().photo(lawyer.id, hash))!;
      // Every accepted photo is re-encoded: a 512×512 JPEG without metadata (issue 25 item 3).
      assert.equal(photo.contentType, 'image/jpeg');
      assert.ok(!photo.bytes.equals(PNG));
      assert.equal(await portal().photo(lawyer.id, '0'.repeat(32)), null);
      assert.deepEqual(await refusal(portal().savePhoto(lawyer, Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))), ['/photo']);
      assert.deepEqual(await refusal(portal().savePhoto(lawyer, Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024)]))), ['/photo']);
      assert.equal(await portal().photoUrl(lawyer.id), url, 'the refused files changed nothing');
      await portal().removePhoto(lawyer);
      assert.equal(await portal().photoUrl(lawyer.id), null);
    });
  });
}

