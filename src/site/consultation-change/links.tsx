/**
 * "Move" and "Cancel" on My consultations and the consultation page (one line there each), with
 * the policy as it stands for this consultation: free cancellation until when, or that a
 * cancellation now is not refunded. Shown only while personPolicy allows something.
 */
import type { Consultation } from '../../domain/booking/consultations.service.ts';
import { dayAndTime } from '../../i18n/format.ts';
import { policyLine } from '../booking/purchase.tsx';
import type { SiteContext } from '../context.ts';

/**
 * The sentence that applies now: free cancellation until when (in the lawyer's zone and, when it
 * differs, the visitor's), or that cancelling now is not refunded. The one wording of purchase.tsx.
 */
export function policyNow(ctx: SiteContext, c: Pick<Consultation, 'policy' | 'lawyer'>): string {
  return policyLine(ctx, c.policy, c.lawyer.timezone) ?? ctx.t.policy.late;
}

export function ChangeLinks({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  const p = c.policy;
  if (!p.canCancelWithRefund && !p.canCancelWithoutRefund) return null;
  const t = ctx.t.changeBooking;
  const when = dayAndTime(c.date, c.startTime, ctx.locale);
  return (
    <div class="change-links">
      <p class="meta">{policyNow(ctx, c)}</p>
      <p class="actions">
        {p.canMove ? (
          <a class="button secondary" href={`/consultations/${c.id}/move`}>
            {t.move}
            <span class="visually-hidden">{` (${t.moveLabel(when)})`}</span>
          </a>
        ) : null}{' '}
        <a class="button secondary danger-outline" href={`/consultations/${c.id}/cancel`}>
          {t.cancel}
          <span class="visually-hidden">{` (${t.cancelLabel(when)})`}</span>
        </a>
      </p>
    </div>
  );
}
