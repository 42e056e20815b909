/**
 * `/developer`: the developer dashboard's entry (it used to redirect to the keys). The
 * checklist's rules are GettingStartedService's; the firms are AccountsService's.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import { OverviewPage } from './overview.page.tsx';

export function overviewArea({ gettingStarted, accounts, config }: DashboardDeps) {
  return async (site: FastifyInstance) => {
    site.get('/developer', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const [progress, firms] = await Promise.all([gettingStarted.progress(user.id), accounts.listMyFirms({ type: 'user', userId: user.id })]);
      return reply.page(h(OverviewPage, { ctx: request.site, progress, firms, apiBase: config.baseUrl }));
    });
  };
}
