/**
 * Who may see a page: the checks every dashboard route starts with. They decide only who is
 * asking; what that person may do with a given key, endpoint or firm is the domain services'
 * rule (object-level authorization lives there, with the same answers as the CLI).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.ts';
import type { SiteUser } from './context.ts';

/** Where a person proves a passkey again (step-up); `return_to` brings them back. */
export const STEP_UP_PATH = '/account/passkeys/step-up';

/**
 * The signed-in person, or null after answering with a redirect to sign-in that returns here.
 * Usage: `const user = requireUser(request, reply); if (!user) return reply;`
 */
export function requireUser(request: FastifyRequest, reply: FastifyReply): SiteUser | null {
  if (request.site.user) return request.site.user;
  void reply.code(303).redirect(`/sign-in?return_to=${encodeURIComponent(request.method === 'GET' ? request.site.path : '/developer')}`);
  return null;
}

/**
 * The signed-in operator. Anyone else — signed out included — gets the ordinary 404 page: the
 * console's URLs do not admit that they exist.
 */
export function requireOperator(request: FastifyRequest): SiteUser {
  const user = request.site.user;
  if (user?.operator) return user;
  throw new DomainError('not_found', 'no such page');
}

/**
 * Whether this session proved a passkey recently enough for a sensitive action; if not, the
 * answer is a redirect to the step-up page, which brings the person back to `returnTo` (a page of
 * ours, GET-able: the form they were on) and the caller must stop.
 * Usage: `if (!requireStepUp(request, reply, sessions, '/operator/keys/…')) return reply;`
 */
export function requireStepUp(
  request: FastifyRequest,
  reply: FastifyReply,
  sessions: { steppedUpRecently(stepUpAt: string | null): boolean },
  returnTo: string = request.site.path,
): boolean {
  if (sessions.steppedUpRecently(request.site.session?.stepUpAt ?? null)) return true;
  void reply.code(303).redirect(`${STEP_UP_PATH}?return_to=${encodeURIComponent(returnTo)}`);
  return false;
}

/**
 * Operators must have a passkey: an operator without one is sent to the step-up page, which
 * offers to add one there and then asks for it (and brings them back to `returnTo`). Call on
 * every console page load, after requireOperator; the caller must stop on false.
 * Usage: `if (!(await requirePasskeyEnrolled(request, reply, deps.passkeys))) return reply;`
 */
export async function requirePasskeyEnrolled(
  request: FastifyRequest,
  reply: FastifyReply,
  passkeys: { hasPasskey(userId: string): Promise<boolean> },
  returnTo: string = request.site.path,
): Promise<boolean> {
  const user = request.site.user;
  if (!user) throw new DomainError('not_found', 'no such page');
  if (await passkeys.hasPasskey(user.id)) return true;
  void reply.code(303).redirect(`${STEP_UP_PATH}?return_to=${encodeURIComponent(returnTo)}`);
  return false;
}
