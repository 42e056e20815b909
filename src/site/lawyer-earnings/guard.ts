/**
 * The lawyer behind the signed-in account (lawyers.user_id), or null after answering: sign-in for
 * someone signed out, a "this page is for lawyers" page (404) for anyone else. No lawyer id is
 * ever read from the request: a lawyer can only ever reach her own record.
 *
 * A minimal guard for this area alone; the lawyers' portal (/lawyer) has its own, which replaces
 * it when the two are merged.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { EarningsLawyerRow } from '../../db/repositories/earnings.repository.ts';
import { requireUser } from '../guards.ts';
import { NotALawyerPage } from './earnings.page.tsx';

export async function requireLawyer(
  request: FastifyRequest,
  reply: FastifyReply,
  lawyers: { lawyerOf(userId: string): Promise<EarningsLawyerRow | undefined> },
): Promise<EarningsLawyerRow | null> {
  const user = requireUser(request, reply);
  if (!user) return null;
  const lawyer = await lawyers.lawyerOf(user.id);
  if (lawyer) return lawyer;
  void reply.page(h(NotALawyerPage, { ctx: request.site }), 404);
  return null;
}
