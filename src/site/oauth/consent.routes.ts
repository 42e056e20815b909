/**
 * The authorization server's interaction on the site: an authorization request lands on
 * `/oauth/interaction/{uid}`; a person who is not signed in goes through the site's own sign-in
 * (return_to brings them back); then the consent page; Allow or Deny answers the authorization
 * server, which redirects back to the app. Also connected apps (`/account/apps`) with revoke.
 *
 * oidc-provider keeps the interaction (a cookie bound to this browser and a stored record); this
 * file only reads it, asks the person, and hands the answer back.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { h } from 'preact';
import type { ConnectedAppsService } from '../../domain/oauth/connected-apps.service.ts';
import { highestLevel, isLevel, requestedLevel, scopesOfLevel } from '../../domain/oauth/levels.ts';
import type { ScopeChallenges } from '../../domain/oauth/scope-challenges.ts';
import { appDisplayName } from '../../domain/third-party-text.ts';
import { ERROR_PAGE_PATH } from '../../oauth/provider.ts';
import { requireUser } from '../guards.ts';
import { ErrorPage } from '../ui/pages.tsx';
import { ConnectedAppsPage } from './apps.page.tsx';
import { ConsentExpiredPage, ConsentPage } from './consent.page.tsx';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The authorization errors the error page explains, by OAuth error code; any other is `request`. */
const AUTHORIZATION_ERRORS: Record<string, 'redirect' | 'client' | 'expired' | 'server'> = {
  invalid_redirect_uri: 'redirect',
  invalid_client: 'client',
  invalid_client_metadata: 'client',
  unauthorized_client: 'client',
  session_not_found: 'expired',
  server_error: 'server',
  temporarily_unavailable: 'server',
};
const UID = /^[A-Za-z0-9_-]{10,64}$/;
const GRANT_ID = /^grant_[A-Za-z0-9_-]{10,64}$/;

/** Adds `origin` to the form-action directive of the page's Content-Security-Policy. */
function allowFormActionTo(reply: FastifyReply, origin: string): void {
  const csp = reply.getHeader('content-security-policy');
  if (typeof csp !== 'string' || !/^https?:\/\/[^\s;,']+$/.test(origin)) return;
  reply.header('content-security-policy', csp.replace(/form-action ([^;]*)/, (_m, sources: string) => `form-action ${sources} ${origin}`));
}

export interface ConsentAreaDeps {
  provider: Provider;
  connectedApps: ConnectedAppsService;
  /** The MCP server's resource identifier (MCP_URL). */
  resource: string;
  /** The level the MCP server last challenged this person's app for (the page preselects it). */
  scopeChallenges: Pick<ScopeChallenges, 'latest'>;
}

type Interaction = Awaited<ReturnType<Provider['interactionDetails']>>;

export function consentArea({ provider, connectedApps, resource, scopeChallenges }: ConsentAreaDeps) {
  /** The interaction of this browser named by the URL, or null (unknown, expired, other browser). */
  const interactionOf = async (request: FastifyRequest, reply: FastifyReply): Promise<Interaction | null> => {
    const uid = (request.params as { uid: string }).uid;
    if (!UID.test(uid)) return null;
    try {
      const details = await provider.interactionDetails(request.raw, reply.raw);
      return details.uid === uid ? details : null;
    } catch {
      return null;
    }
  };

  /** Hands the answer to the authorization server and follows it back to the app. */
  const answer = async (request: FastifyRequest, reply: FastifyReply, result: Record<string, unknown>, merge: boolean) => {
    const url = await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: merge });
    return reply.code(303).redirect(url);
  };

  const expired = (request: FastifyRequest, reply: FastifyReply) => reply.page(h(ConsentExpiredPage, { ctx: request.site }), 410);

  /**
   * The signed-in person must be the account the interaction is for. When it is not (a login
   * still pending, or the site session changed since), the answer is a login as this person;
   * the authorization server then asks for their consent.
   */
  const loginIfNeeded = async (request: FastifyRequest, reply: FastifyReply, details: Interaction, userId: string): Promise<boolean> => {
    if (details.prompt.name === 'login' || details.session?.accountId !== userId) {
      await answer(request, reply, { login: { accountId: userId } }, false);
      return true;
    }
    return false;
  };

  return async (site: FastifyInstance) => {
    site.get('/oauth/interaction/:uid', { schema: { hide: true } }, async (request, reply) => {
      const details = await interactionOf(request, reply);
      if (!details) return expired(request, reply);
      const user = requireUser(request, reply);
      if (!user) return reply;
      if (await loginIfNeeded(request, reply, details, user.id)) return reply;
      const client = await provider.Client.find(String(details.params.client_id));
      if (!client) return expired(request, reply);
      const redirect = URL.parse(String(details.params.redirect_uri ?? client.redirectUris?.[0] ?? ''));
      const redirectUris = client.redirectUris ?? [];
      const grant = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
      const current = grant ? highestLevel(grant.getResourceScope(resource).split(' ')) : null;
      // The answer is a form post whose redirects end at the app's redirect URI (checked by the
      // authorization server: one the client registered), so this page's form-action allows it.
      if (redirect) allowFormActionTo(reply, redirect.origin);
      return reply.page(
        h(ConsentPage, {
          ctx: request.site,
          view: {
            uid: details.uid,
            clientName: appDisplayName(client.clientName || client.clientId),
            unverified: true,
            redirectHost: redirect?.host ?? '',
            localhostOnly: redirectUris.length > 0 && redirectUris.every((u) => LOOPBACK_HOSTS.has(URL.parse(u)?.hostname ?? '')),
            requested: requestedLevel(String(details.params.scope ?? '')),
            current,
            challenged: await scopeChallenges.latest(user.id, client.clientId),
          },
        }),
      );
    });

    site.post<{ Params: { uid: string }; Body: Record<string, unknown> }>('/oauth/interaction/:uid/allow', { schema: { hide: true } }, async (request, reply) => {
      const details = await interactionOf(request, reply);
      if (!details) return expired(request, reply);
      const user = requireUser(request, reply);
      if (!user) return reply;
      if (await loginIfNeeded(request, reply, details, user.id)) return reply;
      const level = request.body?.level;
      if (!isLevel(level)) return reply.code(303).redirect(`/oauth/interaction/${encodeURIComponent(details.uid)}`);
      const clientId = String(details.params.client_id);
      const client = await provider.Client.find(clientId);
      if (!client) return expired(request, reply);
      const grant = (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ?? new provider.Grant({ accountId: user.id, clientId });
      // The chosen level replaces what was granted before: a person may lower it as well as raise it.
      grant.resources = { ...grant.resources, [resource]: scopesOfLevel(level).join(' ') };
      // offline_access (refresh tokens) is granted whenever asked: it changes how long, not what.
      const oidcScopes = (details.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
      if (oidcScopes.length > 0) grant.addOIDCScope(oidcScopes.join(' '));
      const grantId = await grant.save();
      await connectedApps.recordClient({
        clientId,
        clientName: client.clientName || clientId,
        kind: /^https:\/\//.test(clientId) ? 'metadata' : 'registered',
        redirectHost: URL.parse(String(details.params.redirect_uri ?? ''))?.host ?? '',
      });
      return answer(request, reply, { consent: { grantId } }, true);
    });

    site.post<{ Params: { uid: string } }>('/oauth/interaction/:uid/deny', { schema: { hide: true } }, async (request, reply) => {
      const details = await interactionOf(request, reply);
      if (!details) return expired(request, reply);
      const user = requireUser(request, reply);
      if (!user) return reply;
      return answer(request, reply, { error: 'access_denied', error_description: 'The person did not allow access.' }, false);
    });

    // Where the authorization server sends a person whose request cannot go back to the app
    // (src/oauth/provider.ts renderError). Only the error code is read, and only to pick one of
    // our explanations: nothing the app sent is shown.
    site.get<{ Querystring: { error?: string } }>(ERROR_PAGE_PATH, { schema: { hide: true } }, async (request, reply) => {
      const t = request.site.t.oauth.problems;
      const reason = AUTHORIZATION_ERRORS[String(request.query.error)] ?? 'request';
      return reply.page(h(ErrorPage, { ctx: request.site, title: t[reason].title, message: t[reason].message }), reason === 'server' ? 500 : 400);
    });

    site.get<{ Querystring: { revoked?: string } }>('/account/apps', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const apps = await connectedApps.list(user.id);
      return reply.page(h(ConnectedAppsPage, { ctx: request.site, apps, notice: request.query.revoked === '1' ? request.site.t.oauth.revoked : undefined }));
    });

    site.post<{ Params: { grantId: string } }>('/account/apps/:grantId/revoke', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const { grantId } = request.params;
      // Someone else's grant, or a malformed id, is the same 404 page as an unknown one.
      if (!GRANT_ID.test(grantId)) return reply.callNotFound();
      await connectedApps.revoke(user.id, grantId);
      return reply.code(303).redirect('/account/apps?revoked=1');
    });
  };
}
