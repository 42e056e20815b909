/**
 * /join: a lawyer applies (docs/lawyers.md#joining-and-verification). The rules are
 * ApplicationService's; these routes read the form, call it and pick the page. Everything is
 * about the signed-in person's own application: no id is ever taken from the request, so nobody
 * can see or change someone else's.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { ApplicationService } from '../../domain/lawyers/application.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { emptyJoinForm, JoinFormPage, JoinPendingPage, JoinSignedOutPage, type JoinErrors, type JoinForm } from './join.page.tsx';

type Body = Record<string, unknown>;
/** Form values are capped before anything else reads them (a hostile post may be megabytes). */
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []).slice(0, 60).map((x) => x.slice(0, 80));

function readForm(body: Body): JoinForm {
  return {
    name: text(body.name, 400),
    colegio: text(body.colegio, 80),
    membership_number: text(body.membership_number, 100),
    city: text(body.city, 80),
    languages: list(body.languages),
    practice_areas: list(body.practice_areas),
    primary_area: text(body.primary_area, 80),
    fee: text(body.fee, 20),
    consultation_minutes: text(body.consultation_minutes, 4),
    video_url: text(body.video_url, 1200),
    phone: body.phone === 'on',
    office_address: text(body.office_address, 600),
    bio: text(body.bio, 3000),
    form_of_address: text(body.form_of_address, 20),
  };
}

export function joinArea({ applications }: { applications: ApplicationService }) {
  return async (site: FastifyInstance) => {
    site.get('/join', { schema: { hide: true } }, async (request, reply) => {
      const user = request.site.user;
      if (!user) return reply.page(h(JoinSignedOutPage, { ctx: request.site }));
      const mine = await applications.mine({ userId: user.id, email: user.email });
      if (mine) return reply.page(h(JoinPendingPage, { ctx: request.site, application: mine, already: false }));
      return reply.page(h(JoinFormPage, { ctx: request.site, form: emptyJoinForm(), errors: {} }));
    });

    site.post('/join', { schema: { hide: true } }, async (request, reply) => {
      const user = request.site.user;
      if (!user) return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent('/join')}`);
      const form = readForm((request.body ?? {}) as Body);
      try {
        const { application, created } = await applications.apply(
          { userId: user.id, email: user.email },
          {
            name: form.name,
            colegio: form.colegio,
            membershipNumber: form.membership_number,
            city: form.city,
            languages: form.languages,
            practiceAreas: form.practice_areas,
            primaryArea: form.primary_area,
            fee: form.fee,
            consultationMinutes: form.consultation_minutes,
            videoUrl: form.video_url,
            phone: form.phone,
            officeAddress: form.office_address,
            bio: form.bio,
            formOfAddress: form.form_of_address,
          },
        );
        // Post/redirect/get: reloading the pending page never posts again.
        if (created) return reply.code(303).redirect('/join');
        return reply.page(h(JoinPendingPage, { ctx: request.site, application, already: true }));
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
        const t = request.site.t.join.invalid;
        const errors: JoinErrors = {};
        for (const e of err.errors ?? []) {
          const field = e.pointer.replace(/^\//, '');
          errors[field] = t[field] ?? e.detail;
        }
        return reply.page(h(JoinFormPage, { ctx: request.site, form, errors }), 422);
      }
    });
  };
}
