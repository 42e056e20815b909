/**
 * Firms: my firms and creating one, a firm's overview (with the "key creator left" notifications
 * for owners and admins), members, roles and permissions, removing and leaving, invitations by
 * email and the page their link opens. Who may do what is AccountsService's and
 * FirmInvitationsService's rule (the same as the CLI's); these routes read forms, call them and
 * pick pages. mayManageMember is asked only to decide which controls to show.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import { mayManageMember, type Firm, type FirmStanding } from '../../domain/access/accounts.service.ts';
import { FIRM_ROLES, type Actor, type FirmMember, type FirmRole } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import {
  FirmOverviewPage,
  FirmsListPage,
  InvitationPage,
  LeaveFirmPage,
  MembersPage,
  RemoveMemberPage,
  emptyCreateFirmForm,
  emptyInviteForm,
  type CreateFirmForm,
  type InvitationPageView,
  type InviteForm,
  type MemberRow,
} from './firms.page.tsx';

type Body = Record<string, unknown>;
type Flash = { kind: 'ok' | 'bad'; text: string } | null;
const text = (v: unknown, max = 1000): string => (typeof v === 'string' ? v.slice(0, max) : '');
const list = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []).slice(0, 20);
const base = (firm: Firm) => `/firms/${encodeURIComponent(firm.slug)}`;

/** The HTTP status of each invitation view (the page explains it either way). */
const VIEW_STATUS: Record<InvitationPageView['kind'], number> = { open: 200, already_member: 200, wrong_account: 403, closed: 410, sender_cannot: 409 };

export function firmsArea({ accounts, firmInvitations }: DashboardDeps) {
  const signedIn = (request: FastifyRequest, reply: FastifyReply) => {
    const user = requireUser(request, reply);
    return user ? { user, actor: { type: 'user', userId: user.id } as Actor & { type: 'user' } } : null;
  };
  const slugOf = (request: FastifyRequest) => (request.params as { slug: string }).slug;

  /** The members page's content, with what this person may do to each member. */
  const membersPage = async (request: FastifyRequest, actor: Actor, userId: string, extra: { flash?: Flash; form?: InviteForm } = {}) => {
    const { firm, standing } = await accounts.firmStanding(actor, slugOf(request));
    const members = await accounts.listMembers(actor, firm.slug);
    const rows: MemberRow[] = members.map((member) => ({
      member,
      self: member.userId === userId,
      roles: FIRM_ROLES.some((r) => r !== member.role && mayManageMember(standing, 'set-role', member.role, r)) ? FIRM_ROLES.filter((r) => r === member.role || mayManageMember(standing, 'set-role', member.role, r)) : [],
      canSetPermissions: member.role === 'member' && mayManageMember(standing, 'set-permissions', 'member'),
      canRemove: mayManageMember(standing, 'remove', member.role),
    }));
    const inviteRoles = inviteRolesOf(standing);
    const invitations = inviteRoles.length > 0 ? { pending: await firmInvitations.listPending(actor, firm.slug), roles: inviteRoles, form: extra.form ?? emptyInviteForm() } : null;
    return h(MembersPage, { ctx: request.site, firm, rows, invitations, flash: extra.flash });
  };

  const inviteRolesOf = (standing: FirmStanding): FirmRole[] => FIRM_ROLES.filter((r) => mayManageMember(standing, 'add', r)).reverse();

  /** The member named in the URL, among the firm's members; anyone else is not found. */
  const memberOf = async (request: FastifyRequest, actor: Actor): Promise<{ firm: Firm; member: FirmMember; standing: FirmStanding }> => {
    const { firm, standing } = await accounts.firmStanding(actor, slugOf(request));
    const id = (request.params as { userId: string }).userId;
    const member = (await accounts.listMembers(actor, firm.slug)).find((m) => m.userId === id);
    if (!member) throw new DomainError('not_found', `no member ${id}`);
    return { firm, member, standing };
  };

  return async (site: FastifyInstance) => {
    // ── my firms, and creating one ──
    const firmsList = async (request: FastifyRequest, actor: Actor, form: CreateFirmForm, flash: Flash = null) =>
      h(FirmsListPage, { ctx: request.site, firms: await accounts.listMyFirms(actor), form, flash });

    site.get('/firms', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const done = (request.query as { done?: string }).done;
      const flash: Flash = done === 'left' ? { kind: 'ok', text: request.site.t.firms.left } : null;
      return reply.page(await firmsList(request, me.actor, emptyCreateFirmForm(), flash));
    });

    site.post<{ Body: Body }>('/firms', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const t = request.site.t.firms;
      const form: CreateFirmForm = { name: text(request.body?.name, 300), slug: text(request.body?.slug, 100).trim(), errors: {} };
      try {
        const { firm } = await accounts.createFirm(me.actor, { slug: form.slug, name: form.name });
        return reply.code(303).redirect(`${base(firm)}?done=created`);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        if (err.code === 'conflict') form.errors.slug = t.errSlugTaken;
        else if (err.code === 'invalid_request') {
          for (const e of err.errors ?? []) {
            if (e.pointer === '/name') form.errors.name = t.errName;
            else if (e.pointer === '/slug') form.errors.slug = /reserved/.test(e.detail) ? t.errSlugReserved : t.errSlug;
          }
          if (Object.keys(form.errors).length === 0) form.errors.name = t.errName;
        } else throw err;
        return reply.page(await firmsList(request, me.actor, form), 400);
      }
    });

    // ── an invitation link (static segment: matched before /firms/:slug) ──
    site.get<{ Params: { token: string } }>('/firms/invitations/:token', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const token = request.params.token.slice(0, 128);
      const view = await firmInvitations.open(me.actor, token);
      return reply.page(h(InvitationPage, { ctx: request.site, token, view }), VIEW_STATUS[view.kind]);
    });

    site.post<{ Params: { token: string } }>('/firms/invitations/:token/accept', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const token = request.params.token.slice(0, 128);
      const result = await firmInvitations.accept(me.actor, token);
      if (result.ok) return reply.code(303).redirect(`${base(result.firm)}?done=joined`);
      const status = result.view.kind === 'already_member' ? 409 : VIEW_STATUS[result.view.kind];
      return reply.page(h(InvitationPage, { ctx: request.site, token, view: result.view }), status);
    });

    // ── one firm ──
    site.get('/firms/:slug', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm, standing } = await accounts.firmStanding(me.actor, slugOf(request));
      const seesNotices = standing.kind === 'operator' || standing.role !== 'member';
      const notices = seesNotices ? await accounts.keyCreatorNotices(me.actor, firm.slug) : null;
      const t = request.site.t.firms;
      const done = (request.query as { done?: string }).done;
      const message = done === 'created' ? t.created(firm.name) : done === 'joined' ? t.joined(firm.name) : null;
      return reply.page(h(FirmOverviewPage, { ctx: request.site, firm, standing, notices, flash: message ? { kind: 'ok', text: message } : null }));
    });

    site.get('/firms/:slug/members', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const t = request.site.t.firms;
      const q = request.query as { done?: string; keys?: string };
      const keys = Number(q.keys);
      const review = Number.isInteger(keys) && keys > 0 && keys < 10_000 ? ` ${t.keysToReview(keys)}` : '';
      const messages: Record<string, string> = {
        role: t.roleChanged + review,
        permissions: t.permissionsSaved,
        removed: t.removed + review,
        invited: t.invitationSent,
        reinvited: t.invitationReplaced,
        revoked: t.invitationRevoked,
      };
      const message = messages[q.done ?? ''];
      return reply.page(await membersPage(request, me.actor, me.user.id, { flash: message ? { kind: 'ok', text: message } : null }));
    });

    site.post<{ Body: Body }>('/firms/:slug/members/:userId/role', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm, member } = await memberOf(request, me.actor);
      try {
        const change = await accounts.setRole(me.actor, firm.slug, member.email, text(request.body?.role, 20));
        return reply.code(303).redirect(`${base(firm)}/members?done=role${change.keysToReview.length ? `&keys=${change.keysToReview.length}` : ''}`);
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'conflict') throw err;
        return reply.page(await membersPage(request, me.actor, me.user.id, { flash: { kind: 'bad', text: request.site.t.firms.lastOwner } }), 409);
      }
    });

    site.post<{ Body: Body }>('/firms/:slug/members/:userId/permissions', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm, member } = await memberOf(request, me.actor);
      await accounts.setPermissions(me.actor, firm.slug, member.email, list(request.body?.permissions));
      return reply.code(303).redirect(`${base(firm)}/members?done=permissions`);
    });

    site.get('/firms/:slug/members/:userId/remove', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm, member, standing } = await memberOf(request, me.actor);
      // Removing oneself is leaving, which has its own page.
      if (member.userId === me.user.id) return reply.code(303).redirect(`${base(firm)}/leave`);
      if (!mayManageMember(standing, 'remove', member.role)) throw new DomainError('forbidden', `may not remove ${member.role}s`);
      return reply.page(h(RemoveMemberPage, { ctx: request.site, firm, member }));
    });

    site.post('/firms/:slug/members/:userId/remove', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm, member } = await memberOf(request, me.actor);
      try {
        const change = await accounts.removeMember(me.actor, firm.slug, member.email);
        if (member.userId === me.user.id) return reply.code(303).redirect('/firms?done=left');
        return reply.code(303).redirect(`${base(firm)}/members?done=removed${change.keysToReview.length ? `&keys=${change.keysToReview.length}` : ''}`);
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'conflict') throw err;
        return reply.page(h(RemoveMemberPage, { ctx: request.site, firm, member, error: request.site.t.firms.lastOwner }), 409);
      }
    });

    site.get('/firms/:slug/leave', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm } = await accounts.firmStanding(me.actor, slugOf(request));
      return reply.page(h(LeaveFirmPage, { ctx: request.site, firm }));
    });

    site.post('/firms/:slug/leave', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm } = await accounts.firmStanding(me.actor, slugOf(request));
      try {
        await accounts.removeMember(me.actor, firm.slug, me.user.email);
      } catch (err) {
        if (!(err instanceof DomainError) || err.code !== 'conflict') throw err;
        return reply.page(h(LeaveFirmPage, { ctx: request.site, firm, error: request.site.t.firms.lastOwner }), 409);
      }
      return reply.code(303).redirect('/firms?done=left');
    });

    // ── invitations ──
    site.post<{ Body: Body }>('/firms/:slug/invitations', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const t = request.site.t.firms;
      const body = request.body ?? {};
      const form: InviteForm = { email: text(body.email, 300).trim(), role: text(body.role, 20), permissions: list(body.permissions), errors: {} };
      // Permissions apply to members only: ticked boxes left over from a member invitation are
      // dropped rather than refused when another role is chosen.
      const permissions = form.role === 'member' ? form.permissions : [];
      try {
        const { replaced } = await firmInvitations.invite(me.actor, slugOf(request), { email: form.email, role: form.role, permissions }, request.site.locale);
        return reply.code(303).redirect(`/firms/${encodeURIComponent(slugOf(request))}/members?done=${replaced > 0 ? 'reinvited' : 'invited'}`);
      } catch (err) {
        if (!(err instanceof DomainError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
        for (const e of err.errors ?? []) {
          if (e.pointer === '/email') form.errors.email = err.code === 'conflict' ? t.errAlreadyMember : t.errEmail;
          else if (e.pointer === '/role') form.errors.role = t.errRole;
          else if (e.pointer.startsWith('/permissions')) form.errors.permissions = t.errPermissions;
        }
        if (Object.keys(form.errors).length === 0) form.errors.email = err.code === 'conflict' ? t.errAlreadyMember : t.errEmail;
        return reply.page(await membersPage(request, me.actor, me.user.id, { form }), 400);
      }
    });

    site.post<{ Params: { slug: string; id: string } }>('/firms/:slug/invitations/:id/revoke', { schema: { hide: true } }, async (request, reply) => {
      const me = signedIn(request, reply);
      if (!me) return reply;
      const { firm } = await accounts.firmStanding(me.actor, request.params.slug);
      await firmInvitations.revoke(me.actor, firm.slug, request.params.id);
      return reply.code(303).redirect(`${base(firm)}/members?done=revoked`);
    });
  };
}
