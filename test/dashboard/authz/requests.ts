/**
 * Request-log routes that name an object: a person's request by id, a firm's log and its
 * requests. Reading changes nothing; the point is that the attacker learns nothing (404).
 */
import type { Actor } from '../../../src/domain/access/types.ts';
import type { TestContext } from '../../support/app.ts';
import type { ForeignObjectCase, SignedIn } from '../../support/dashboard.ts';

const OPERATOR: Actor = { type: 'operator' };
let firms = 0;

async function victimRequest(ctx: TestContext, victim: SignedIn, firmSlug?: string) {
  const actor: Actor = { type: 'user', userId: victim.userId };
  const { token } = await ctx.app.services.keys.create(actor, firmSlug ? { firmSlug } : { ownerEmail: victim.email }, { mode: 'live' });
  const res = await ctx.app.fastify.inject({ method: 'GET', url: '/api/v1/cities', headers: { authorization: `Bearer ${token}` } });
  await ctx.app.services.requestLog.flush();
  const id = res.headers['x-request-id'] as string;
  return { id, snapshot: async () => (await ctx.database.db.selectFrom('request_log').select('request_id').where('request_id', '=', id).execute()).length };
}

async function victimFirm(ctx: TestContext, victim: SignedIn) {
  const slug = `log-victim-${++firms}`;
  await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Victim firm', ownerEmail: victim.email });
  return { slug, ...(await victimRequest(ctx, victim, slug)) };
}

export const cases: ForeignObjectCase[] = [
  {
    route: '/developer/requests/:requestId',
    method: 'GET',
    async setup(ctx, victim) {
      const { id, snapshot } = await victimRequest(ctx, victim);
      return { url: `/developer/requests/${id}`, snapshot };
    },
  },
  {
    route: '/firms/:slug/usage',
    method: 'GET',
    async setup(ctx, victim) {
      const { slug, snapshot } = await victimFirm(ctx, victim);
      return { url: `/firms/${slug}/usage`, snapshot };
    },
  },
  ...['', '/find', '/:requestId'].map(
    (suffix): ForeignObjectCase => ({
      route: `/firms/:slug/requests${suffix}`,
      method: 'GET',
      async setup(ctx, victim) {
        const { slug, id, snapshot } = await victimFirm(ctx, victim);
        const url = suffix === '/find' ? `/firms/${slug}/requests/find?request_id=${id}` : `/firms/${slug}/requests${suffix.replace(':requestId', id)}`;
        return { url, snapshot };
      },
    }),
  ),
];
