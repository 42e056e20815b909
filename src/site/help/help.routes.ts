/**
 * The people's help area: GET /help, the contact form (GET and POST /contact, GET /contact/sent)
 * and the legal pages (GET /legal/aviso-legal|privacy|terms|cookies). Thin: the contact rules
 * live in ContactService, the legal texts in legal-texts.ts.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { Config } from '../../config.ts';
import { checkContact, CONTACT_LIMITS, type ContactService } from '../../domain/contact/contact.service.ts';
import { DomainError } from '../../domain/errors.ts';
import { siteCookies } from '../plugin.ts';
import { ContactPage, ContactSentPage, HelpPage, LegalPageView, type ContactErrors, type ContactValues } from './help.pages.tsx';
import { cookieList, LEGAL_PAGES, LEGAL_UPDATED, legalDocument, type LegalPage } from './legal-texts.ts';

type Body = Record<string, unknown>;

const str = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');

export interface HelpAreaDeps {
  config: Pick<Config, 'siteUrl' | 'legal' | 'mailRetentionDays' | 'requestLogRetentionDays' | 'sessionMaxDays'>;
  contact: ContactService;
}

export function helpArea({ config, contact }: HelpAreaDeps) {
  const cookies = cookieList(siteCookies(config.siteUrl), config.sessionMaxDays);
  return async (site: FastifyInstance) => {
    site.get('/help', { schema: { hide: true } }, async (request, reply) => reply.page(h(HelpPage, { ctx: request.site })));

    site.get('/contact', { schema: { hide: true } }, async (request, reply) => {
      const ctx = request.site;
      const values: ContactValues = { name: ctx.user?.name ?? '', email: ctx.user?.email ?? '', topic: 'booking', message: '' };
      return reply.page(h(ContactPage, { ctx, values, errors: {} }));
    });

    site.post<{ Body: Body }>('/contact', { schema: { hide: true } }, async (request, reply) => {
      const ctx = request.site;
      const body = request.body ?? {};
      // Bounded before anything else: what is re-shown on an error is at most a little over the limits.
      const values: ContactValues = {
        name: str(body.name, CONTACT_LIMITS.nameMax * 2),
        email: str(body.email, 320),
        topic: str(body.topic, 20),
        message: str(body.message, CONTACT_LIMITS.messageMax + 200),
      };
      const t = ctx.t.face.contact.errors;
      const toErrors = (pointers: string[]): ContactErrors => {
        const errors: ContactErrors = {};
        for (const p of pointers) {
          if (p === '/name') errors.name = t.name(CONTACT_LIMITS.nameMax);
          else if (p === '/email') errors.email = t.email;
          else if (p === '/topic') errors.topic = t.topic;
          else if (p === '/message') errors.message = t.message(CONTACT_LIMITS.messageMin, CONTACT_LIMITS.messageMax);
        }
        return errors;
      };
      // The same check the service makes, first, so a mistyped form costs no rate-limit allowance.
      const checked = checkContact(values);
      if (!checked.ok) return reply.page(h(ContactPage, { ctx, values, errors: toErrors(checked.errors.map((e) => e.pointer)) }), 400);
      try {
        const sent = await contact.submit({ ...values, locale: ctx.locale, userId: ctx.user?.id ?? null, ip: request.ip });
        return reply.code(303).redirect(`/contact/sent?ref=${sent.id.slice(0, 8)}`);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invalid_request') {
          return reply.page(h(ContactPage, { ctx, values, errors: toErrors((err.errors ?? []).map((e) => e.pointer)) }), 400);
        }
        throw err;
      }
    });

    site.get<{ Querystring: { ref?: string } }>('/contact/sent', { schema: { hide: true } }, async (request, reply) => {
      const ref = typeof request.query.ref === 'string' && /^[0-9a-f]{8}$/.test(request.query.ref) ? request.query.ref : null;
      return reply.page(h(ContactSentPage, { ctx: request.site, reference: ref }));
    });

    site.get<{ Params: { page: string } }>('/legal/:page', { schema: { hide: true } }, async (request, reply) => {
      const page = request.params.page as LegalPage;
      if (!LEGAL_PAGES.includes(page)) throw new DomainError('not_found', 'no such legal page');
      const ctx = request.site;
      const doc = legalDocument(page, ctx.locale, {
        legal: config.legal,
        siteUrl: config.siteUrl,
        contactPath: '/contact',
        mailRetentionDays: config.mailRetentionDays,
        requestLogRetentionDays: config.requestLogRetentionDays,
      });
      return reply.page(h(LegalPageView, { ctx, page, doc, legal: config.legal, updated: LEGAL_UPDATED, cookies: page === 'cookies' ? cookies : undefined }));
    });
    // The customary Spanish address of the legal notice.
    site.get('/aviso-legal', { schema: { hide: true } }, async (_request, reply) => reply.code(301).redirect('/legal/aviso-legal'));
  };
}
