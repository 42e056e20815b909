/**
 * Firms' lawyers routes that name an object: a firm by slug, a lawyer of it by id. The victim
 * owns the firm and a lawyer accepted its invitation; the attacker is signed in but no member of
 * it: 404 and nothing changed (no invitation planted, no lawyer removed, nothing shown).
 */
import { randomUUID } from 'node:crypto';
import type { ForeignObjectCase } from '../../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../../support/factories.ts';

let n = 0;

const route = (path: string, method: 'GET' | 'POST', form?: Record<string, string>): ForeignObjectCase => ({
  route: `/firms/:slug/lawyers${path}`,
  method,
  async setup(ctx, victim) {
    const slug = `authz-lawyers-${++n}`;
    await ctx.app.services.accounts.createFirm({ type: 'user', userId: victim.userId }, { slug, name: 'Victim firm' });
    const [lawyerId] = (await insertLawyers(ctx.database, [lawyerRecord({ id: randomUUID() })])) as [string];
    const lawyerUser = await ctx.app.services.accounts.ensureUser(`lawyer-${n}@victim.example`);
    await ctx.database.db.updateTable('lawyers').set({ user_id: lawyerUser.id }).where('id', '=', lawyerId).execute();
    await ctx.app.services.firmLawyers.invite({ type: 'user', userId: victim.userId }, slug, lawyerId);
    await ctx.app.services.firmLawyers.answer(lawyerId, slug, 'accept');
    const snapshot = async () => ctx.database.db.selectFrom('firm_lawyers').selectAll().orderBy('lawyer_id').execute();
    return { url: `/firms/${slug}/lawyers${path.replace(':lawyerId', lawyerId)}`, form: form?.lawyer === 'SELF' ? { lawyer: lawyerId } : form, snapshot };
  },
});

export const cases: ForeignObjectCase[] = [route('', 'GET'), route('', 'POST', { lawyer: 'SELF' }), route('/:lawyerId/remove', 'POST')];
