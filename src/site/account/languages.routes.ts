/** Account → Your languages (GET/POST /account/languages): thin over PersonLanguagesService. */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { PersonLanguagesService } from '../../domain/people/person-languages.service.ts';
import { requireUser } from '../guards.ts';
import { LanguagesPage } from './languages.page.tsx';

export function personLanguagesArea({ people }: { people: PersonLanguagesService }) {
  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { saved?: string } }>('/account/languages', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const stored = await people.stored(user.id);
      const languages = stored.length > 0 ? stored : [request.site.locale];
      return reply.page(h(LanguagesPage, { ctx: request.site, languages, fromSite: stored.length === 0, saved: request.query.saved === '1', error: null }));
    });

    site.post<{ Body: Record<string, unknown> | undefined }>('/account/languages', { schema: { hide: true } }, async (request, reply) => {
      const user = request.site.user;
      if (!user) return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent('/account/languages')}`);
      const raw = (request.body ?? {}).language;
      const codes = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === 'string').slice(0, 20);
      const outcome = await people.replace(user.id, codes);
      if (!outcome.ok) return reply.page(h(LanguagesPage, { ctx: request.site, languages: codes, fromSite: false, saved: false, error: outcome.error }), 400);
      return reply.code(303).redirect('/account/languages?saved=1');
    });
  };
}
