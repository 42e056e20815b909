/** Keys in every state the security suite needs, created through the real services. */
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import type { Actor, Scope } from '../../src/domain/access/types.ts';
import type { TestContext } from './app.ts';

export const OPERATOR: Actor = { type: 'operator' };

export interface KeyKit {
  live: string;
  test: string;
  revoked: string;
  expired: string;
  suspendedByFirm: string;
  suspendedByOperator: string;
  allowListed: string;
  /** A key with every scope except the one named. */
  without(scope: Scope): Promise<string>;
  /** A fresh live key (its own rate-limit windows). */
  fresh(tier?: 'free' | 'partner' | 'internal'): Promise<string>;
}

let firmCounter = 0;

export async function makeKeys(ctx: TestContext): Promise<KeyKit> {
  const keys = ctx.app.services.keys;
  const accounts = new AccountsService({ database: ctx.database, clock: ctx.clock });
  const slug = `firm-${process.pid}-${++firmCounter}`;
  await accounts.createFirm(OPERATOR, { slug, name: 'Bufete Test', ownerEmail: `owner-${slug}@example.com` });
  const owner = await accounts.ensureUser(`owner-${slug}@example.com`);
  const firmOwner: Actor = { type: 'user', userId: owner.id };
  const dev = 'dev@example.com';

  const create = async (options: Parameters<typeof keys.create>[2], owner: Parameters<typeof keys.create>[1] = { ownerEmail: dev }) =>
    keys.create(OPERATOR, owner, options);

  const live = await create({ mode: 'live' });
  const test = await create({ mode: 'test' });
  const revoked = await create({ mode: 'live' });
  await keys.revoke(OPERATOR, revoked.key.id);
  const expired = await create({ mode: 'live', expiresAt: new Date(ctx.clock.now().getTime() + 60_000).toISOString() });
  const byFirm = await create({ mode: 'live' }, { firmSlug: slug });
  await keys.suspend(firmOwner, byFirm.key.id, 'paused by the firm');
  const byOperator = await create({ mode: 'live' }, { firmSlug: slug });
  await keys.suspend(OPERATOR, byOperator.key.id, 'abuse report');
  const allowListed = await create({ mode: 'live', allowedIps: ['203.0.113.0/24', '2001:db8::/32'] }, { firmSlug: slug });
  ctx.app.services.access.invalidate();

  return {
    live: live.token,
    test: test.token,
    revoked: revoked.token,
    expired: expired.token,
    suspendedByFirm: byFirm.token,
    suspendedByOperator: byOperator.token,
    allowListed: allowListed.token,
    async without(scope) {
      const scopes = (['lawyers:read', 'availability:read', 'reviews:read', 'reference:read', 'bookings:initiate', 'bookings:read'] as Scope[]).filter((s) => s !== scope);
      return (await create({ mode: 'live', scopes })).token;
    },
    async fresh(tier = 'free') {
      const k = await create({ mode: 'live' });
      if (tier !== 'free') await keys.setTier(OPERATOR, k.key.id, tier);
      ctx.app.services.access.invalidate();
      return k.token;
    },
  };
}
