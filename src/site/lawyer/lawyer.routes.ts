/**
 * The lawyer's portal at /lawyer (docs/lawyers.md#the-portal): overview, profile (with photo),
 * consultation and calendar. The rules are PortalService's and CalendarService's; these routes
 * read the forms, call them and pick the page. Every route starts with requireLawyer: the record
 * is the one linked to her account, never an id from the request, so a form naming another
 * lawyer changes nothing but her own record.
 *
 * Her photo is served publicly at /lawyer-photos/<lawyer id>/<hash>: the hash names the bytes, so
 * the answer is cached for a year, with its own media type and `nosniff`.
 */
import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { CalendarService, WeekInput } from '../../domain/lawyers/calendar.service.ts';
import { RANGES_PER_DAY } from '../../domain/lawyers/calendar.service.ts';
import { PHOTO_MAX_BYTES, type PortalService } from '../../domain/lawyers/portal.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { formatDay } from '../../i18n/format.ts';
import type { LawyerTable } from '../../db/schema.ts';
import { CalendarPage, emptyOverrideForm, weekForm, WEEKDAYS, type OverrideForm, type RangeForm, type WeekForm } from './calendar.page.tsx';
import { ConsultationPage, offerForm, type OfferForm } from './consultation.page.tsx';
import { requireLawyer } from './guard.ts';
import { OverviewPage, type PortalErrors } from './portal.pages.tsx';
import { ProfilePage, profileForm, type ProfileForm } from './profile.page.tsx';

type Body = Record<string, unknown>;
/** Form values are capped before anything else reads them (a hostile post may be megabytes). */
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []).slice(0, 60).map((x) => x.slice(0, 80));

/** A photo part as the multipart parser left it (see onFile below). */
interface PhotoPart {
  bytes: Buffer;
  truncated: boolean;
}

function readProfile(body: Body): ProfileForm {
  return {
    name: text(body.name, 400),
    bio_es: text(body.bio_es, 3000),
    bio_en: text(body.bio_en, 3000),
    languages: list(body.languages),
    practice_areas: list(body.practice_areas),
    primary_area: text(body.primary_area, 80),
    fee: text(body.fee, 20),
    form_of_address: text(body.form_of_address, 20),
  };
}

function readOffer(body: Body): OfferForm {
  return { consultation_minutes: text(body.consultation_minutes, 4), video_url: text(body.video_url, 1200), phone: body.phone === 'on', office_address: text(body.office_address, 600) };
}

const readRanges = (body: Body, prefix: string): RangeForm[] => Array.from({ length: RANGES_PER_DAY }, (_, i) => ({ start: text(body[`${prefix}_${i}_start`], 8), end: text(body[`${prefix}_${i}_end`], 8) }));

function readWeek(body: Body): WeekForm {
  const week: Record<number, RangeForm[]> = {};
  for (const d of WEEKDAYS) week[d] = readRanges(body, `w${d}`);
  // "Copy Monday to Tuesday–Friday": the same form, its second button.
  if (body.copy_monday === '1') for (const d of [2, 3, 4, 5]) week[d] = week[1]!.map((r) => ({ ...r }));
  return { week, notice_minutes: text(body.notice_minutes, 8), buffer_minutes: text(body.buffer_minutes, 8), horizon_days: text(body.horizon_days, 8), timezone: text(body.timezone, 40) };
}

function readOverride(body: Body): OverrideForm {
  return { date: text(body.date, 20), kind: body.kind === 'hours' ? 'hours' : 'closed', ranges: readRanges(body, 'o') };
}

/** The service's field errors as the form's localised messages (field = the pointer's first part). */
function formErrors(err: unknown, messages: Record<string, string>, fill: (field: string, pointer: string, message: string) => [string, string] = (f, _p, m) => [f, m]): PortalErrors {
  if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
  const errors: PortalErrors = {};
  for (const e of err.errors ?? []) {
    const field = e.pointer.split('/')[1] ?? '';
    const [key, message] = fill(field, e.pointer, messages[field] ?? e.detail);
    errors[key] ??= message;
  }
  return errors;
}

const SAVED = ['1', 'photo', 'photo-removed', 'date', 'date-removed', 'holiday'] as const;

export function lawyerPortalArea({ portal, calendar }: { portal: PortalService; calendar: CalendarService }) {
  return async (site: FastifyInstance) => {
    const savedMessage = (request: FastifyRequest): string | null => {
      const saved = (request.query as Record<string, unknown>).saved;
      const p = request.site.t.portal;
      if (!SAVED.includes(saved as (typeof SAVED)[number])) return null;
      return saved === 'photo' ? p.photoSaved : saved === 'photo-removed' ? p.photoRemoved : saved === 'date' ? p.overrideSaved : saved === 'date-removed' ? p.overrideRemoved : saved === 'holiday' ? p.holidaySaved : p.saved;
    };

    site.get('/lawyer', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      return reply.page(h(OverviewPage, { ctx: request.site, overview: await portal.overview(lawyer) }));
    });

    // -- profile
    const profilePage = async (request: FastifyRequest, reply: FastifyReply, lawyer: LawyerTable, opts: { form?: ProfileForm; errors?: PortalErrors; photoError?: string; status?: number } = {}) => {
      const profile = await portal.profile(lawyer);
      return reply.page(
        h(ProfilePage, { ctx: request.site, form: opts.form ?? profileForm(profile, request.site.locale), errors: opts.errors ?? {}, photoUrl: profile.photoUrl, saved: opts.status ? null : savedMessage(request), photoError: opts.photoError }),
        opts.status ?? 200,
      );
    };

    site.get('/lawyer/profile', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      return profilePage(request, reply, lawyer);
    });

    site.post('/lawyer/profile', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const form = readProfile((request.body ?? {}) as Body);
      try {
        await portal.saveProfile(lawyer, { name: form.name, bios: { es: form.bio_es, en: form.bio_en }, languages: form.languages, practiceAreas: form.practice_areas, primaryArea: form.primary_area, fee: form.fee, formOfAddress: form.form_of_address });
        return reply.code(303).redirect('/lawyer/profile?saved=1');
      } catch (err) {
        return profilePage(request, reply, lawyer, { form, errors: formErrors(err, request.site.t.portal.invalid), status: 422 });
      }
    });

    site.post('/lawyer/profile/photo/remove', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      await portal.removePhoto(lawyer);
      return reply.code(303).redirect('/lawyer/profile?saved=photo-removed');
    });

    // The photo upload: multipart, in a context of its own (the rest of the site takes no files).
    // The file is read into memory up to 2 MB + 1 byte (a longer one is marked truncated, never
    // kept whole); the fields, the CSRF token included, land on the body like a form's.
    await site.register(async (upload) => {
      await upload.register(multipart, {
        attachFieldsToBody: 'keyValues',
        limits: { fileSize: PHOTO_MAX_BYTES + 1, files: 1, fields: 4, fieldSize: 1024, parts: 5 },
        throwFileSizeLimit: false,
        async onFile(part) {
          const chunks: Buffer[] = [];
          for await (const chunk of part.file) chunks.push(chunk as Buffer);
          const value: PhotoPart = { bytes: Buffer.concat(chunks), truncated: part.file.truncated };
          (part as unknown as { value: PhotoPart }).value = value;
        },
      });
      upload.post('/lawyer/profile/photo', { schema: { hide: true }, bodyLimit: PHOTO_MAX_BYTES + 64 * 1024 }, async (request, reply) => {
        const lawyer = await requireLawyer(request, reply, portal);
        if (!lawyer) return reply;
        const part = (request.body as Body | undefined)?.photo as PhotoPart | undefined;
        const message = request.site.t.portal.invalid.photo!;
        if (!part || typeof part !== 'object' || !Buffer.isBuffer(part.bytes) || part.truncated || part.bytes.length > PHOTO_MAX_BYTES) {
          return profilePage(request, reply, lawyer, { photoError: message, status: 422 });
        }
        try {
          await portal.savePhoto(lawyer, part.bytes);
        } catch (err) {
          const errors = formErrors(err, {}, (field, pointer, m) => [pointer === '/photo/pixels' ? 'pixels' : field, m]);
          return profilePage(request, reply, lawyer, { photoError: errors.pixels ? request.site.t.portal.invalid.photoPixels! : message, status: 422 });
        }
        return reply.code(303).redirect('/lawyer/profile?saved=photo');
      });
    });

    site.get<{ Params: { lawyerId: string; hash: string } }>('/lawyer-photos/:lawyerId/:hash', { schema: { hide: true } }, async (request, reply) => {
      const photo = await portal.photo(request.params.lawyerId, request.params.hash);
      if (!photo) throw new DomainError('not_found', 'no such photo');
      return reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .header('cross-origin-resource-policy', 'same-site')
        .type(photo.contentType)
        .send(photo.bytes);
    });

    // -- consultation
    site.get('/lawyer/consultation', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      return reply.page(h(ConsultationPage, { ctx: request.site, form: offerForm(await portal.offer(lawyer)), errors: {}, saved: savedMessage(request) }));
    });

    site.post('/lawyer/consultation', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const form = readOffer((request.body ?? {}) as Body);
      try {
        await portal.saveOffer(lawyer, { consultationMinutes: form.consultation_minutes, videoUrl: form.video_url, phone: form.phone, officeAddress: form.office_address });
        return reply.code(303).redirect('/lawyer/consultation?saved=1');
      } catch (err) {
        return reply.page(h(ConsultationPage, { ctx: request.site, form, errors: formErrors(err, request.site.t.portal.invalid), saved: null }), 422);
      }
    });

    // -- calendar
    const calendarPage = async (request: FastifyRequest, reply: FastifyReply, lawyer: LawyerTable, opts: { form?: WeekForm; override?: OverrideForm; errors?: PortalErrors; overrideErrors?: PortalErrors; status?: number } = {}) => {
      const view = await calendar.calendar(lawyer);
      return reply.page(
        h(CalendarPage, { ctx: request.site, view, form: opts.form ?? weekForm(view), override: opts.override ?? emptyOverrideForm(), errors: opts.errors ?? {}, overrideErrors: opts.overrideErrors ?? {}, saved: opts.status ? null : savedMessage(request) }),
        opts.status ?? 200,
      );
    };

    site.get('/lawyer/calendar', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      return calendarPage(request, reply, lawyer);
    });

    site.post('/lawyer/calendar', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const form = readWeek((request.body ?? {}) as Body);
      const input: WeekInput = { week: form.week, noticeMinutes: form.notice_minutes, bufferMinutes: form.buffer_minutes, horizonDays: form.horizon_days, timezone: form.timezone };
      try {
        await calendar.saveWeek(lawyer, input);
        return reply.code(303).redirect('/lawyer/calendar?saved=1');
      } catch (err) {
        const p = request.site.t.portal;
        const errors = formErrors(err, p.invalid, (field, pointer, message) => {
          if (field !== 'week') return [field, message];
          const day = Number(pointer.split('/')[2]);
          return [`week_${day}`, p.invalid.week!.replace('{day}', p.weekdays[day] ?? String(day))];
        });
        return calendarPage(request, reply, lawyer, { form, errors, status: 422 });
      }
    });

    site.post('/lawyer/calendar/overrides', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const override = readOverride((request.body ?? {}) as Body);
      try {
        await calendar.setOverride(lawyer, { date: override.date, closed: override.kind === 'closed', ranges: override.ranges });
        return reply.code(303).redirect('/lawyer/calendar?saved=date#overrides');
      } catch (err) {
        const view = await calendar.calendar(lawyer);
        const last = formatDay(view.lastDate, request.site.locale);
        const overrideErrors = formErrors(err, request.site.t.portal.invalid, (field, _pointer, message) => [field, message.replace('{last}', last)]);
        return calendarPage(request, reply, lawyer, { override, overrideErrors, status: 422 });
      }
    });

    // One click on a holiday (open it, close it again, or a local one added or removed); bad input is the 400 page.
    site.post('/lawyer/calendar/holidays', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      const body = (request.body ?? {}) as Body;
      await calendar.holidayChoice(lawyer, text(body.date, 20), text(body.action, 10));
      return reply.code(303).redirect('/lawyer/calendar?saved=holiday#holidays');
    });

    site.post('/lawyer/calendar/overrides/remove', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await requireLawyer(request, reply, portal);
      if (!lawyer) return reply;
      // Her own override of that date; a date she has none for is the ordinary 404 page.
      await calendar.removeOverride(lawyer, text(((request.body ?? {}) as Body).date, 20));
      return reply.code(303).redirect('/lawyer/calendar?saved=date-removed#overrides');
    });
  };
}
