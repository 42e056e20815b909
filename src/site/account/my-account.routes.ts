/**
 * The people's Account page and account deletion. The rules — who may delete, when a session is
 * recent enough, what is refused, what goes and what stays — are AccountDeletionService's (the
 * CLI's `consulta users delete` goes through it too); these routes pick pages and move cookies.
 *
 * Existing addresses under /account keep working: /account/apps (connected apps) and
 * /account/passkeys are linked from here.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { Config } from '../../config.ts';
import { DomainError } from '../../domain/errors.ts';
import { AccountDeletionRefused, ReauthenticationRequired, type AccountDeletionService } from '../../domain/identity/account-deletion.service.ts';
import type { PasskeysService } from '../../domain/identity/passkeys.service.ts';
import type { SessionService } from '../../domain/identity/session.service.ts';
import type { ConnectedAppsService } from '../../domain/oauth/connected-apps.service.ts';
import type { PersonNameError, PersonNameService } from '../../domain/people/person-name.ts';
import { isLocale } from '../../i18n/index.ts';
import { requireUser } from '../guards.ts';
import type { SiteCookies } from '../plugin.ts';
import { sessionCookie } from './account.routes.ts';
import { AccountDeletedPage, AccountPage, DeleteAccountPage } from './my-account.page.tsx';

export interface MyAccountDeps {
  config: Config;
  cookies: SiteCookies;
  sessions: SessionService;
  passkeys: PasskeysService;
  connectedApps: ConnectedAppsService;
  deletion: AccountDeletionService;
  names: PersonNameService;
}

type Body = Record<string, unknown> | undefined;

/** The language cookie, as the switcher sets it (src/site/plugin.ts): a year, readable by scripts. */
const LANG_COOKIE_SECONDS = 365 * 86_400;

export function myAccountArea({ config, cookies, sessions, passkeys, connectedApps, deletion, names }: MyAccountDeps) {
  const session = sessionCookie(config, cookies);

  /** A POST from someone signed out: sign in, then back to the page the form was on. */
  const signedInOr = (request: FastifyRequest, reply: FastifyReply, page: string) => {
    const user = request.site.user;
    if (user && request.site.session) return { user, sessionId: request.site.session.id };
    void reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(page)}`);
    return null;
  };

  const accountPage = async (
    request: FastifyRequest,
    reply: FastifyReply,
    extra: { notice?: 'language' | 'name' | 'name_removed' | null; languageError?: string | null; nameForm?: { value: string; error: PersonNameError } | null },
    status = 200,
  ) => {
    const user = request.site.user!;
    const [preview, apps, keys] = await Promise.all([deletion.preview(user.id, null), connectedApps.list(user.id), passkeys.list(user.id)]);
    const stored = await sessions.accountLocale(user.id);
    return reply.page(
      h(AccountPage, { ctx: request.site, email: preview.email, createdAt: preview.createdAt, accountLocale: stored, name: user.name ?? null, apps, passkeys: keys.length, sessions: preview.owned.sessions, ...extra }),
      status,
    );
  };

  return async (site: FastifyInstance) => {
    site.get<{ Querystring: { saved?: string } }>('/account', { schema: { hide: true } }, async (request, reply) => {
      if (!requireUser(request, reply)) return reply;
      const saved = request.query.saved;
      return accountPage(request, reply, { notice: saved === 'language' || saved === 'name' || saved === 'name_removed' ? saved : null });
    });

    // The name lawyers see (asked once: here, or on the first hold page). Empty removes it.
    site.post<{ Body: Body }>('/account/name', { schema: { hide: true } }, async (request, reply) => {
      const me = signedInOr(request, reply, '/account');
      if (!me) return reply;
      const raw = (request.body ?? {}).name;
      const outcome = await names.set(me.user.id, raw);
      if (!outcome.ok) return accountPage(request, reply, { nameForm: { value: typeof raw === 'string' ? raw.slice(0, 1000) : '', error: outcome.error } }, 400);
      return reply.code(303).redirect(`/account?saved=${outcome.name === null ? 'name_removed' : 'name'}#account-name`);
    });

    site.post<{ Body: Body }>('/account/language', { schema: { hide: true } }, async (request, reply) => {
      const me = signedInOr(request, reply, '/account');
      if (!me) return reply;
      const locale = (request.body ?? {}).locale;
      if (!isLocale(locale)) return accountPage(request, reply, { languageError: request.site.t.myAccount.languageInvalid }, 400);
      // The account's language (emails) and this browser's (the cookie wins over the account's on pages).
      await sessions.setLocale(me.user.id, locale);
      reply.setCookie(cookies.lang, locale, { path: '/', sameSite: 'lax', secure: cookies.secure, httpOnly: false, maxAge: LANG_COOKIE_SECONDS });
      return reply.code(303).redirect('/account?saved=language');
    });

    site.get('/account/delete', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const preview = await deletion.preview(user.id, request.site.session!.id);
      return reply.page(h(DeleteAccountPage, { ctx: request.site, preview }));
    });

    site.post<{ Body: Body }>('/account/delete', { schema: { hide: true } }, async (request, reply) => {
      const me = signedInOr(request, reply, '/account/delete');
      if (!me) return reply;
      const typed = (request.body ?? {}).confirm_email;
      const confirmation = typeof typed === 'string' ? typed.trim().slice(0, 254) : '';
      try {
        await deletion.deleteOwnAccount({ userId: me.user.id, sessionId: me.sessionId, confirmation, locale: request.site.locale });
      } catch (err) {
        const problem =
          err instanceof ReauthenticationRequired ? ('stale' as const)
          : err instanceof AccountDeletionRefused ? ('refused' as const)
          : err instanceof DomainError && err.code === 'invalid_request' ? ('wrong_email' as const)
          : null;
        if (problem === null) throw err;
        const preview = await deletion.preview(me.user.id, me.sessionId);
        const status = problem === 'stale' ? 403 : problem === 'refused' ? 409 : 400;
        return reply.page(h(DeleteAccountPage, { ctx: request.site, preview, problem, typed: confirmation }), status);
      }
      // Every session is gone with the account; this browser forgets its cookie too.
      session.clear(reply);
      return reply.code(303).redirect('/account/deleted');
    });

    site.get('/account/deleted', { schema: { hide: true } }, async (request, reply) => reply.page(h(AccountDeletedPage, { ctx: request.site })));
  };
}
