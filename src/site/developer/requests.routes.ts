/**
 * The request log, for a person (`/developer/requests`) and a firm (`/firms/:slug/requests`,
 * for members who may read usage): filters in the query string (links can be shared and kept),
 * keyset pages, the X-Request-Id search and one request. The rules are RequestHistoryService's.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { h } from 'preact';
import { STATUS_CLASSES, type LogOwnerRef, type RequestFilters, type StatusClass } from '../../domain/access/request-history.service.ts';
import type { Actor } from '../../domain/access/types.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import { RequestDetailPage, RequestLogPage, type LogOwner } from './requests.page.tsx';
import { UsagePage } from './usage.page.tsx';
import { DomainError } from '../../domain/errors.ts';

const REQUEST_ID = /^req_[0-9a-f]{32}$/;
const str = (v: unknown, max: number): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : undefined);

function filtersOf(query: Record<string, unknown>): RequestFilters {
  const mode = str(query.mode, 10);
  const status = str(query.status, 10);
  const source = str(query.source, 10);
  return {
    keyId: str(query.key, 64),
    mode: mode === 'live' || mode === 'test' ? mode : undefined,
    source: source === 'widget' || source === 'server' ? source : undefined,
    status: (STATUS_CLASSES as readonly string[]).includes(status ?? '') ? (status as StatusClass) : undefined,
    path: str(query.path, 300),
    cursor: str(query.cursor, 200),
  };
}

export function requestsArea({ requestHistory, accounts, usage, gettingStarted }: DashboardDeps) {
  /** Whose log this URL is about (a firm the person is not in is not found). */
  const ownerOf = async (request: FastifyRequest, actor: Actor): Promise<{ owner: LogOwner; ref: LogOwnerRef }> => {
    const slug = (request.params as { slug?: string }).slug;
    if (slug === undefined) return { owner: { kind: 'user', base: '/developer' }, ref: { type: 'user' } };
    const firm = await accounts.getFirm(actor, slug);
    return { owner: { kind: 'firm', base: `/firms/${encodeURIComponent(firm.slug)}`, slug: firm.slug, name: firm.name }, ref: { type: 'firm', slug: firm.slug } };
  };

  return async (site: FastifyInstance) => {
    for (const base of ['/developer', '/firms/:slug']) {
      site.get(`${base}/requests`, { schema: { hide: true } }, async (request, reply) => {
        const user = requireUser(request, reply);
        if (!user) return reply;
        const actor: Actor = { type: 'user', userId: user.id };
        const { owner, ref } = await ownerOf(request, actor);
        const filters = filtersOf(request.query as Record<string, unknown>);
        const page = await requestHistory.page(actor, ref, filters);
        // The checklist's "see it in the log": this page showed them their requests.
        await gettingStarted.sawRequests(user.id, page.rows.map((r) => r.key_id));
        return reply.page(h(RequestLogPage, { ctx: request.site, owner, rows: page.rows, keys: page.keys, filters, next: page.next, searchedTo: page.searchedTo }));
      });

      // Usage of one live key (the newest by default): the figures of GET /usage for that key.
      site.get(`${base}/usage`, { schema: { hide: true } }, async (request, reply) => {
        const user = requireUser(request, reply);
        if (!user) return reply;
        const actor: Actor = { type: 'user', userId: user.id };
        const { owner, ref } = await ownerOf(request, actor);
        const keys = await requestHistory.ownerKeys(actor, ref);
        const live = keys.filter((k) => k.mode === 'live');
        const wanted = str((request.query as Record<string, unknown>).key, 64);
        const selected = wanted ? live.find((k) => k.id === wanted) : live[0];
        if (wanted && !selected) throw new DomainError('not_found', `no key ${wanted}`);
        const figures = selected ? await usage.usage(selected) : null;
        return reply.page(h(UsagePage, { ctx: request.site, owner, keys, selected: selected ?? null, usage: figures }));
      });

      // The X-Request-Id search box: a well-formed id goes to its page (404 there if it is not theirs).
      site.get(`${base}/requests/find`, { schema: { hide: true } }, async (request, reply) => {
        const user = requireUser(request, reply);
        if (!user) return reply;
        const actor: Actor = { type: 'user', userId: user.id };
        const { owner, ref } = await ownerOf(request, actor);
        const id = str((request.query as Record<string, unknown>).request_id, 64)?.toLowerCase();
        if (id && REQUEST_ID.test(id)) return reply.code(303).redirect(`${owner.base}/requests/${id}`);
        const page = await requestHistory.page(actor, ref, {});
        return reply.page(h(RequestLogPage, { ctx: request.site, owner, rows: page.rows, keys: page.keys, filters: {}, next: page.next, idError: request.site.t.requests.badId }), 400);
      });

      site.get<{ Params: { requestId: string } }>(`${base}/requests/:requestId`, { schema: { hide: true } }, async (request, reply) => {
        const user = requireUser(request, reply);
        if (!user) return reply;
        const actor: Actor = { type: 'user', userId: user.id };
        const { owner, ref } = await ownerOf(request, actor);
        const { row, key } = await requestHistory.get(actor, ref, request.params.requestId);
        await gettingStarted.sawRequests(user.id, [row.key_id]);
        return reply.page(h(RequestDetailPage, { ctx: request.site, owner, row, apiKey: key }));
      });
    }
  };
}
