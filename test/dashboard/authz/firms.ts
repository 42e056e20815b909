/**
 * Firm routes that name an object: a firm by slug, a member by user id, an invitation by id, an
 * invitation link by token. The victim owns the firm (or is the invitee); the attacker is signed
 * in but no member: 404 and nothing changed — except the invitation link, which tells another
 * account the address it was sent to (403) and nothing else.
 */
import type { TestContext } from '../../support/app.ts';
import type { ForeignObjectCase, SignedIn } from '../../support/dashboard.ts';
import { invitationRows, invitationToken, invitationsOf, OPERATOR } from '../../support/firms.ts';

let firms = 0;

/** The victim's firm with a second member and a pending invitation; a snapshot of all of it. */
async function victimFirm(ctx: TestContext, victim: SignedIn) {
  const slug = `authz-firm-${++firms}`;
  const { accounts } = ctx.app.services;
  await accounts.createFirm({ type: 'user', userId: victim.userId }, { slug, name: 'Victim firm' });
  const member = await accounts.addMember(OPERATOR, slug, `staff-${firms}@victim.example`, 'member', ['usage:read']);
  const { invitation } = await invitationsOf(ctx.app, ctx.database, ctx.clock, ctx.config.siteUrl).invite(
    { type: 'user', userId: victim.userId },
    slug,
    { email: `invitee-${firms}@victim.example`, role: 'admin' },
    'en',
  );
  const snapshot = async () => ({ members: await accounts.listMembers(OPERATOR, slug), invitations: await invitationRows(ctx.database, slug) });
  return { slug, memberId: member.userId, invitationId: invitation.id, snapshot };
}

const firmRoute = (route: string, method: 'GET' | 'POST', form?: Record<string, string>): ForeignObjectCase => ({
  route: `/firms/:slug${route}`,
  method,
  async setup(ctx, victim) {
    const { slug, memberId, invitationId, snapshot } = await victimFirm(ctx, victim);
    return { url: `/firms/${slug}${route.replace(':userId', memberId).replace(':id', invitationId)}`, form, snapshot };
  },
});

/** An invitation addressed to the victim, by a firm they are not in yet. */
const invitationLink = (route: string, method: 'GET' | 'POST'): ForeignObjectCase => ({
  route: `/firms/invitations/:token${route}`,
  method,
  status: 403,
  async setup(ctx, victim) {
    const slug = `authz-inviting-${++firms}`;
    await ctx.app.services.accounts.createFirm(OPERATOR, { slug, name: 'Inviting firm', ownerEmail: `owner-${firms}@inviting.example` });
    await invitationsOf(ctx.app, ctx.database, ctx.clock, ctx.config.siteUrl).invite(OPERATOR, slug, { email: victim.email, role: 'member' }, 'en');
    const token = await invitationToken(ctx.app, victim.email);
    const snapshot = async () => ({ members: await ctx.app.services.accounts.listMembers(OPERATOR, slug), invitations: await invitationRows(ctx.database, slug) });
    return { url: `/firms/invitations/${token}${route}`, snapshot };
  },
});

export const cases: ForeignObjectCase[] = [
  firmRoute('', 'GET'),
  firmRoute('/members', 'GET'),
  firmRoute('/members/:userId/role', 'POST', { role: 'owner' }),
  firmRoute('/members/:userId/permissions', 'POST', { permissions: 'keys:manage' }),
  firmRoute('/members/:userId/remove', 'GET'),
  firmRoute('/members/:userId/remove', 'POST'),
  firmRoute('/leave', 'GET'),
  firmRoute('/leave', 'POST'),
  firmRoute('/invitations', 'POST', { email: 'planted@attacker.example', role: 'owner' }),
  firmRoute('/invitations/:id/revoke', 'POST'),
  invitationLink('', 'GET'),
  invitationLink('/accept', 'POST'),
];
