/**
 * Webhook endpoints (add, secret shown once, rotate, enable/disable, test, deliveries, retry), for
 * a person (`/developer/webhooks`) and for a firm (`/firms/:slug/webhooks`). Every rule — who may
 * manage which endpoint, the address policy, rotation, which message may be sent again — is
 * WebhookEndpointsService's, the same the CLI uses; these routes read forms, call it and pick pages.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Actor } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { WEBHOOK_EVENT_TYPES, type WebhookEndpoint } from '../../domain/webhooks/types.ts';
import type { Messages } from '../../i18n/index.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import {
  DeliveriesList,
  EndpointFacts,
  DisableEndpointPage,
  EndpointDetailPage,
  NewEndpointPage,
  SecretShownPage,
  WebhookMessagePage,
  WebhooksListPage,
  emptyEndpointForm,
  type EndpointForm,
  type PageNotice,
  type WebhooksOwner,
} from './webhooks.page.tsx';

type Body = Record<string, unknown>;
type WebhooksText = Messages['webhooks'];
type Params = { slug?: string; id: string; messageId: string };
const text = (v: unknown, max = 1000): string => (typeof v === 'string' ? v.slice(0, max) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);
/** Deliveries per page of an endpoint. */
const PAGE_SIZE = 20;

/**
 * A refused URL in the page's language. The domain explains in English and for operators (the
 * CLI prints it); the page names the kind of problem and keeps the policy's own words — the host,
 * the address, the range — as a detail.
 */
export function urlErrorText(detail: string, t: WebhooksText): { text: string; detail?: string } {
  const refused = /^target address refused: (.*)$/s.exec(detail);
  if (refused) return { text: t.errUrlPrivate, detail: refused[1] };
  const unresolved = /^could not resolve (\S+): (.*)$/s.exec(detail);
  if (unresolved) return { text: t.errUrlUnresolvable(unresolved[1]!), detail: unresolved[2] };
  if (detail === 'must use https') return { text: t.errUrlHttps };
  if (detail.startsWith('must not contain credentials')) return { text: t.errUrlCredentials };
  if (detail === 'must not contain a fragment') return { text: t.errUrlFragment };
  if (detail.startsWith('must be at most')) return { text: t.errUrlLength };
  if (detail === 'must be an absolute https URL') return { text: t.errUrlInvalid };
  return { text: t.errUrlOther, detail };
}

/** The field errors of a refused endpoint, by form field. */
function formErrors(err: DomainError, t: WebhooksText, form: EndpointForm): void {
  for (const e of err.errors ?? []) {
    if (e.pointer === '/url') {
      const { text: message, detail } = urlErrorText(e.detail, t);
      form.errors.url = message;
      form.urlDetail = detail;
    } else if (e.pointer.startsWith('/event_types')) form.errors.events = t.errEvents;
  }
  if (Object.keys(form.errors).length === 0) form.errors.form = t.errUrlOther;
}

export function webhooksArea({ webhooks, accounts, clock }: DashboardDeps) {
  /**
   * The endpoint as of now: the service reports the previous secret while its row is kept, and
   * its overlap may already be over (it no longer signs), so the pages say "one secret" then.
   */
  const asOfNow = (endpoint: WebhookEndpoint): WebhookEndpoint =>
    endpoint.previousSecretExpiresAt !== null && Date.parse(endpoint.previousSecretExpiresAt) <= clock.now().getTime() ? { ...endpoint, previousSecretExpiresAt: null } : endpoint;

  const signedIn = (request: FastifyRequest, reply: FastifyReply) => {
    const user = requireUser(request, reply);
    return user ? { user, actor: { type: 'user', userId: user.id } as Actor } : null;
  };

  /**
   * Whose endpoints this URL is about. A firm the person is not in is not found (404); a member
   * who may not manage the firm's webhooks is refused (403) by the service's own rule, on every
   * firm webhook URL alike, so the answer never depends on whether an endpoint id exists.
   */
  const ownerOf = async (request: FastifyRequest, actor: Actor): Promise<{ owner: WebhooksOwner; firmEndpoints?: WebhookEndpoint[] }> => {
    const slug = (request.params as Partial<Params>).slug;
    if (slug === undefined) return { owner: { kind: 'user', base: '/developer' } };
    const firm = await accounts.getFirm(actor, slug);
    const firmEndpoints = (await webhooks.list(actor, { firmSlug: firm.slug })).map(asOfNow);
    return { owner: { kind: 'firm', base: `/firms/${encodeURIComponent(firm.slug)}`, slug: firm.slug, name: firm.name }, firmEndpoints };
  };

  /** The endpoint named in the URL, if it is this owner's and the person may manage it; 404 otherwise. */
  const endpointOf = async (request: FastifyRequest, actor: Actor, owner: WebhooksOwner, userId: string): Promise<WebhookEndpoint> => {
    const { id } = request.params as Params;
    const endpoint = await webhooks.get(actor, id);
    const belongs = owner.kind === 'user' ? endpoint.owner.type === 'user' && endpoint.owner.id === userId : endpoint.owner.type === 'firm' && endpoint.owner.slug === owner.slug;
    // Someone's firm endpoint under their personal URL (or another firm's) is not found here.
    if (!belongs) throw new DomainError('not_found', `no webhook endpoint ${id}`);
    return asOfNow(endpoint);
  };

  /** Resolves the person, the owner and the endpoint of an endpoint URL; null when already answered. */
  const load = async (request: FastifyRequest, reply: FastifyReply) => {
    const me = signedIn(request, reply);
    if (!me) return null;
    const { owner } = await ownerOf(request, me.actor);
    const endpoint = await endpointOf(request, me.actor, owner, me.user.id);
    return { ...me, owner, endpoint };
  };

  const detail = async (
    request: FastifyRequest,
    reply: FastifyReply,
    page: { actor: Actor; owner: WebhooksOwner; endpoint: WebhookEndpoint },
    notice?: PageNotice,
    status = 200,
  ) => {
    const before = text((request.query as { before?: unknown }).before, 400) || null;
    const { attempts, next } = await webhooks.deliveryPage(page.actor, page.endpoint.id, { limit: PAGE_SIZE, before });
    return reply.page(h(EndpointDetailPage, { ctx: request.site, owner: page.owner, endpoint: page.endpoint, attempts, next, paged: before, notice }), status);
  };

  /** The secret is in this response only: never in a URL, a redirect or a later page. */
  const secretPage = (request: FastifyRequest, reply: FastifyReply, owner: WebhooksOwner, endpoint: WebhookEndpoint, secret: string, rotated: boolean) => {
    void reply.header('cache-control', 'no-store');
    return reply.page(h(SecretShownPage, { ctx: request.site, owner, endpoint: asOfNow(endpoint), secret, rotated }), 201);
  };

  /** The page's endpoint as it stands now (after a refusal that says it changed meanwhile). */
  const fresh = async <P extends { actor: Actor; endpoint: WebhookEndpoint }>(page: P): Promise<P> => ({ ...page, endpoint: asOfNow(await webhooks.get(page.actor, page.endpoint.id)) });

  const isConflict = (err: unknown) => err instanceof DomainError && err.code === 'conflict';

  return async (site: FastifyInstance) => {
    for (const base of ['/developer', '/firms/:slug']) {
      const root = `${base}/webhooks`;

      site.get(root, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const { owner, firmEndpoints } = await ownerOf(request, me.actor);
        const endpoints = firmEndpoints ?? (await webhooks.list(me.actor)).map(asOfNow);
        return reply.page(h(WebhooksListPage, { ctx: request.site, owner, endpoints }));
      });

      site.get(`${root}/new`, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const { owner } = await ownerOf(request, me.actor);
        return reply.page(h(NewEndpointPage, { ctx: request.site, owner, form: emptyEndpointForm() }));
      });

      site.post<{ Body: Body }>(root, { schema: { hide: true } }, async (request, reply) => {
        const me = signedIn(request, reply);
        if (!me) return reply;
        const { owner } = await ownerOf(request, me.actor);
        const t = request.site.t.webhooks;
        const body = request.body ?? {};
        const form: EndpointForm = { url: text(body.url, 4096), events: list(body.events).slice(0, 20), errors: {} };
        if (form.events.length === 0) form.errors.events = t.errEvents;
        // Every current type ticked means "all events": future types included (the domain's null).
        const all = WEBHOOK_EVENT_TYPES.every((type) => form.events.includes(type));
        try {
          if (form.errors.events) await webhooks.validateUrl(form.url);
          else {
            const created = await webhooks.create(me.actor, owner.kind === 'firm' ? { firmSlug: owner.slug } : null, { url: form.url, eventTypes: all ? null : form.events });
            return secretPage(request, reply, owner, created.endpoint, created.secret, false);
          }
        } catch (err) {
          if (isConflict(err)) {
            form.errors.form = t.errLimit;
            return reply.page(h(NewEndpointPage, { ctx: request.site, owner, form }), 409);
          }
          if (!(err instanceof DomainError) || err.code !== 'invalid_request') throw err;
          formErrors(err, t, form);
        }
        return reply.page(h(NewEndpointPage, { ctx: request.site, owner, form }), 400);
      });

      site.get(`${root}/:id`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        const t = request.site.t.webhooks;
        const done = text((request.query as { done?: unknown }).done, 20);
        const message = { test: t.testQueued, disabled: t.disabledDone, enabled: t.enabledDone }[done];
        return detail(request, reply, page, message ? { kind: 'ok', text: message } : undefined);
      });

      // The newest deliveries alone, as an HTML fragment: what the endpoint page's script
      // (live-deliveries.js) polls so that attempts appear without a reload. The same `load` as
      // the page, so another person's endpoint is a 404 here too. Signed out, it sends to sign in
      // and back to the endpoint's page, not to this bare fragment (the script itself refuses to
      // follow redirects, and stops).
      site.get(`${root}/:id/deliveries`, { schema: { hide: true } }, async (request, reply) => {
        if (!request.site.user) {
          const pagePath = request.site.path.replace(/\/deliveries(?:\?.*)?$/, '');
          return reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(pagePath)}`);
        }
        const page = await load(request, reply);
        if (!page) return reply;
        const { attempts, next } = await webhooks.deliveryPage(page.actor, page.endpoint.id, { limit: PAGE_SIZE, before: null });
        // The list, then the endpoint's facts as they are now (the script moves them to their place).
        const html =
          renderToString(h(DeliveriesList, { ctx: request.site, owner: page.owner, endpoint: page.endpoint, attempts, next, paged: false })) +
          renderToString(h(EndpointFacts, { ctx: request.site, endpoint: page.endpoint }));
        return reply.type('text/html; charset=utf-8').header('vary', 'Accept-Language, Cookie').send(html);
      });

      site.post(`${root}/:id/test`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        try {
          await webhooks.sendTest(page.actor, page.endpoint.id);
        } catch (err) {
          // Disabled meanwhile: say so on the endpoint's page.
          if (isConflict(err)) return detail(request, reply, await fresh(page), { kind: 'bad', text: request.site.t.webhooks.disabledNoTest }, 409);
          throw err;
        }
        return reply.code(303).redirect(`${page.owner.base}/webhooks/${page.endpoint.id}?done=test#deliveries`);
      });

      site.post(`${root}/:id/rotate`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        const rotated = await webhooks.rotateSecret(page.actor, page.endpoint.id);
        return secretPage(request, reply, page.owner, rotated.endpoint, rotated.secret, true);
      });

      site.get(`${root}/:id/disable`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        if (!page.endpoint.enabled) return reply.code(303).redirect(`${page.owner.base}/webhooks/${page.endpoint.id}`);
        return reply.page(h(DisableEndpointPage, { ctx: request.site, owner: page.owner, endpoint: page.endpoint }));
      });

      site.post<{ Body: Body }>(`${root}/:id/disable`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        const t = request.site.t.webhooks;
        const reason = text(request.body?.reason, 600);
        const refuse = (errors: { reason?: string; confirm?: string }) =>
          reply.page(h(DisableEndpointPage, { ctx: request.site, owner: page.owner, endpoint: page.endpoint, reason, errors }), 400);
        if (request.body?.confirm !== 'yes') return refuse({ confirm: t.confirmMissing, reason: reason.trim() === '' ? t.errReason : undefined });
        try {
          await webhooks.disable(page.actor, page.endpoint.id, reason);
        } catch (err) {
          if (isConflict(err)) return detail(request, reply, await fresh(page), { kind: 'bad', text: t.alreadyDisabled }, 409);
          if (err instanceof DomainError && err.code === 'invalid_request') return refuse({ reason: t.errReason });
          throw err;
        }
        return reply.code(303).redirect(`${page.owner.base}/webhooks/${page.endpoint.id}?done=disabled`);
      });

      site.post(`${root}/:id/enable`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        await webhooks.enable(page.actor, page.endpoint.id);
        return reply.code(303).redirect(`${page.owner.base}/webhooks/${page.endpoint.id}?done=enabled`);
      });

      site.get(`${root}/:id/messages/:messageId`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        const message = await webhooks.message(page.actor, page.endpoint.id, (request.params as Params).messageId);
        const done = text((request.query as { done?: unknown }).done, 20);
        const notice: PageNotice | undefined = done === 'retried' ? { kind: 'ok', text: request.site.t.webhooks.retried } : undefined;
        return reply.page(h(WebhookMessagePage, { ctx: request.site, owner: page.owner, endpoint: page.endpoint, message, notice }));
      });

      site.post(`${root}/:id/messages/:messageId/retry`, { schema: { hide: true } }, async (request, reply) => {
        const page = await load(request, reply);
        if (!page) return reply;
        const { messageId } = request.params as Params;
        try {
          await webhooks.retryMessage(page.actor, page.endpoint.id, messageId);
        } catch (err) {
          if (!isConflict(err)) throw err;
          // Not dead (any more), or the endpoint is disabled: the message as it stands, and why.
          const now = await fresh(page);
          const message = await webhooks.message(page.actor, page.endpoint.id, messageId);
          return reply.page(
            h(WebhookMessagePage, { ctx: request.site, owner: page.owner, endpoint: now.endpoint, message, notice: { kind: 'bad', text: request.site.t.webhooks.retryRefused } }),
            409,
          );
        }
        return reply.code(303).redirect(`${page.owner.base}/webhooks/${page.endpoint.id}/messages/${messageId}?done=retried`);
      });
    }
  };
}
