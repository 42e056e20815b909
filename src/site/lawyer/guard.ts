/**
 * Who may open the lawyer's portal (docs/lawyers.md#the-portal): a signed-in person whose
 * account is linked to a lawyer record (lawyers.user_id), in any status. The portal never takes a
 * lawyer id from the request: the record is the one found here, from her session, so every page
 * and form is about her own record and nobody else's.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { PortalService } from '../../domain/lawyers/portal.service.ts';
import type { LawyerTable } from '../../db/schema.ts';
import { NotLawyerPage } from './portal.pages.tsx';

/**
 * Her lawyer record, or null after answering: signed out → sign-in that comes back here (the
 * portal's overview after a POST); signed in without a lawyer record → a page pointing to /join.
 * Usage: `const lawyer = await requireLawyer(request, reply, portal); if (!lawyer) return reply;`
 */
export async function requireLawyer(request: FastifyRequest, reply: FastifyReply, portal: Pick<PortalService, 'forUser'>): Promise<LawyerTable | null> {
  const user = request.site.user;
  if (!user) {
    void reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(request.method === 'GET' ? request.site.path : '/lawyer')}`);
    return null;
  }
  const lawyer = await portal.forUser(user.id);
  if (!lawyer) {
    void reply.page(h(NotLawyerPage, { ctx: request.site }), 403);
    return null;
  }
  return lawyer;
}
