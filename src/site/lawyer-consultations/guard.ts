/**
 * The lawyer signed in: her account's lawyer record (lawyers.user_id). A stand-in kept small on
 * purpose — the lawyers' area (src/site/lawyer/) has its own `requireLawyer`, which replaces this
 * one when the two meet. Signed out: to sign-in, back here. Signed in without a lawyer record (a
 * person, an integrator): the "for lawyers only" page, 403, and nothing done.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { LawyerSelf } from '../../domain/booking/lawyer-consultations.service.ts';
import { requireUser } from '../guards.ts';
import { NotLawyerPage } from './lawyer-consultations.page.tsx';

export async function requireLawyer(request: FastifyRequest, reply: FastifyReply, lookup: { lawyerOfUser(userId: string): Promise<LawyerSelf | null> }): Promise<LawyerSelf | null> {
  const user = requireUser(request, reply);
  if (!user) return null;
  const lawyer = await lookup.lawyerOfUser(user.id);
  if (!lawyer) {
    void reply.page(h(NotLawyerPage, { ctx: request.site }), 403);
    return null;
  }
  return lawyer;
}
