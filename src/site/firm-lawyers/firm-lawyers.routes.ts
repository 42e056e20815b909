/**
 * /firms/:slug/lawyers (docs/keys-and-firms.md#lawyers-of-a-firm): a firm's owners invite
 * lawyers and see those who accepted. Who may do what is FirmLawyersService's rule: a person
 * outside the firm gets 404, a member who is not an owner 403, a lawyer who has not accepted is
 * never shown. The lawyer named in a remove URL must be one of this firm's (else 404).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { h } from 'preact';
import type { FirmLawyersService } from '../../domain/access/firm-lawyers.service.ts';
import type { Actor } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { requireUser } from '../guards.ts';
import { FirmLawyersPage } from './firm-lawyers.page.tsx';

const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');

export function firmLawyersArea({ firmLawyers }: { firmLawyers: FirmLawyersService }) {
  const slugOf = (request: FastifyRequest) => (request.params as { slug: string }).slug;

  const page = async (request: FastifyRequest, actor: Actor, form: { lawyer: string; error: string | null }, flash: string | null) => {
    const slug = slugOf(request);
    const overview = await firmLawyers.overview(actor, slug);
    const [{ bookings }, earnings] = await Promise.all([firmLawyers.bookings(actor, slug), firmLawyers.earnings(actor, slug)]);
    return h(FirmLawyersPage, { ctx: request.site, overview, bookings, earnings, form, flash });
  };

  return async (site: FastifyInstance) => {
    site.get('/firms/:slug/lawyers', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const q = (request.query ?? {}) as Record<string, unknown>;
      const t = request.site.t.firmLawyers;
      // Fixed sentences only: nothing typed into the address is shown back.
      const flash = q.done === 'invited' ? t.invited : q.done === 'removed' ? t.removed : null;
      return reply.header('cache-control', 'private, no-store').page(await page(request, { type: 'user', userId: user.id }, { lawyer: '', error: null }, flash));
    });

    site.post('/firms/:slug/lawyers', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const actor = { type: 'user' as const, userId: user.id };
      const lawyer = text((request.body as Record<string, unknown> | undefined)?.lawyer, 500);
      try {
        await firmLawyers.invite(actor, slugOf(request), lawyer);
      } catch (err) {
        if (!(err instanceof DomainError) || (err.code !== 'invalid_request' && err.code !== 'conflict')) throw err;
        const t = request.site.t.firmLawyers;
        const reason = (err.errors?.[0]?.detail ?? 'unknown') as keyof typeof t.inviteErrors;
        return reply.page(await page(request, actor, { lawyer, error: t.inviteErrors[reason] ?? t.inviteErrors.unknown }, null), err.code === 'conflict' ? 409 : 422);
      }
      return reply.code(303).redirect(`/firms/${encodeURIComponent(slugOf(request))}/lawyers?done=invited`);
    });

    site.post('/firms/:slug/lawyers/:lawyerId/remove', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      await firmLawyers.remove({ type: 'user', userId: user.id }, slugOf(request), (request.params as { lawyerId: string }).lawyerId);
      return reply.code(303).redirect(`/firms/${encodeURIComponent(slugOf(request))}/lawyers?done=removed`);
    });
  };
}
