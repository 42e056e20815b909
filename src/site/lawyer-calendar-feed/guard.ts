/**
 * Who may use /lawyer/calendar-feed: a signed-in user linked to a lawyer record (lawyers.user_id).
 * A minimal guard of this area's own; the lawyers' portal (src/site/lawyer/) has the shared one
 * and this is meant to be replaced by it. The lawyer id never comes from the request.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../../db/database.ts';
import { findLawyerOfUser } from '../../db/repositories/calendar-feed.repository.ts';

export interface SignedInLawyer {
  id: string;
  name: string;
  timezone: string;
  horizonDays: number;
}

/**
 * The signed-in user's lawyer record; `null` after answering (signed out: a redirect to sign-in
 * that comes back here). `'not_lawyer'`: signed in, but not a lawyer (the caller shows why).
 */
export async function requireLawyer(request: FastifyRequest, reply: FastifyReply, database: Database): Promise<SignedInLawyer | 'not_lawyer' | null> {
  const user = request.site.user;
  if (!user) {
    void reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent('/lawyer/calendar-feed')}`);
    return null;
  }
  const lawyer = await findLawyerOfUser(database.db, user.id);
  if (!lawyer) return 'not_lawyer';
  return { id: lawyer.id, name: lawyer.name, timezone: lawyer.timezone, horizonDays: Number(lawyer.horizon_days) };
}
