/**
 * Key routes that name an object: a person's key by id, a firm by slug, a firm's key by id. The
 * victim owns the key (or the firm); the attacker is signed in but no member: 404, unchanged.
 */
import type { Actor } from '../../../src/domain/access/types.ts';
import type { TestContext } from '../../support/app.ts';
import type { ForeignObjectCase, SignedIn } from '../../support/dashboard.ts';

const OPERATOR: Actor = { type: 'operator' };
let firms = 0;

async function personalKey(ctx: TestContext, victim: SignedIn) {
  const { key } = await ctx.app.services.keys.create({ type: 'user', userId: victim.userId }, { ownerEmail: victim.email }, { mode: 'live', name: 'victim' });
  return { id: key.id, snapshot: () => ctx.app.services.keys.get(OPERATOR, key.id) };
}

async function firmKey(ctx: TestContext, victim: SignedIn) {
  const slug = `victim-firm-${++firms}`;
  await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Victim firm', ownerEmail: victim.email });
  const { key } = await ctx.app.services.keys.create({ type: 'user', userId: victim.userId }, { firmSlug: slug }, { mode: 'live', name: 'firm', allowedIps: ['198.51.100.0/24'] });
  return {
    slug,
    id: key.id,
    snapshot: async () => ({ key: await ctx.app.services.keys.get(OPERATOR, key.id), all: (await ctx.app.services.keys.list(OPERATOR, { firmSlug: slug })).map((k) => k.id) }),
  };
}

const personal = (route: string, method: 'GET' | 'POST', form?: Record<string, string>): ForeignObjectCase => ({
  route: `/developer/keys/:id${route}`,
  method,
  async setup(ctx, victim) {
    const { id, snapshot } = await personalKey(ctx, victim);
    return { url: `/developer/keys/${id}${route}`, form, snapshot };
  },
});

const firmRoute = (route: string, method: 'GET' | 'POST', form?: Record<string, string>): ForeignObjectCase => ({
  route: `/firms/:slug/keys${route}`,
  method,
  async setup(ctx, victim) {
    const { slug, id, snapshot } = await firmKey(ctx, victim);
    return { url: `/firms/${slug}/keys${route.replace(':id', id)}`, form, snapshot };
  },
});

export const cases: ForeignObjectCase[] = [
  personal('', 'GET'),
  personal('/revoke', 'GET'),
  personal('/revoke', 'POST', { confirm: 'yes' }),
  firmRoute('', 'GET'),
  firmRoute('/new', 'GET'),
  firmRoute('', 'POST', { mode: 'live', name: 'planted', scopes: 'lawyers:read' }),
  firmRoute('/:id', 'GET'),
  firmRoute('/:id/revoke', 'GET'),
  firmRoute('/:id/revoke', 'POST', { confirm: 'yes' }),
  firmRoute('/:id/allow-list', 'POST', { allow_list: '0.0.0.0/0' }),
  firmRoute('/:id/suspend', 'POST', { reason: 'hijack' }),
  firmRoute('/:id/unsuspend', 'POST'),
];
