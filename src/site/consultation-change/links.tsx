/**
 * "Move" and "Cancel" on My consultations and the consultation page (one line there each), with
 * the policy as it stands for this consultation: free cancellation until when, or that a
 * cancellation now is not refunded. Shown only while personPolicy allows something.
 */
import type { Consultation } from '../../domain/booking/consultations.service.ts';
import { comma, formatDay, formatInstant, formatTime } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';

/** The moment the free period ends, in the lawyer's zone: "23 Nov 2026, 09:00 CET". */
export function freeUntilText(ctx: SiteContext, c: Pick<Consultation, 'policy' | 'lawyer'>): string {
  return formatInstant(c.policy.freeUntil, c.lawyer.timezone, ctx.locale);
}

export function ChangeLinks({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  const p = c.policy;
  if (!p.canCancelWithRefund && !p.canCancelWithoutRefund) return null;
  const t = ctx.t.changeBooking;
  const when = `${formatDay(c.date, ctx.locale)}${comma(ctx.locale)}${formatTime(c.startTime)}`;
  return (
    <div class="change-links">
      <p class="meta">{p.canCancelWithRefund ? ctx.t.policy.freeUntil(freeUntilText(ctx, c)) : ctx.t.policy.late}</p>
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
