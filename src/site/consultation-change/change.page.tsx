/**
 * The person's cancel and move pages (docs/booking-intents.md#cancel-or-move). The cancel page
 * says exactly what a cancellation does now — the refund, or that there is none — before the
 * person confirms; the move page offers the lawyer's free times in the booking page's week strip,
 * and a time chosen there is a GET to the same page asking "move it from X to Y?" — the POST that
 * moves carries X and the move count it was shown with, so a second tap or another tab finds it
 * already moved (issue 25 item 2).
 */
import type { Consultation } from '../../domain/booking/consultations.service.ts';
import { MAX_MOVES } from '../../domain/booking/policy.ts';
import type { NewSlot } from '../../domain/booking/person-change.service.ts';
import type { AvailabilityResponse } from '../../contract/directory.ts';
import { dayAndTime, formatDay, formatTime } from '../../i18n/format.ts';
import { stateText, When } from '../account/consultations.page.tsx';
import { BookingScript } from '../booking/zone.tsx';
import type { SiteContext } from '../context.ts';
import type { WeekStrip } from '../lawyers/week-strip.ts';
import { WeekStripNav } from '../lawyers/week-strip-nav.tsx';
import { BackLink, Notice, PostForm, euros } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';
import { policyNow } from './links.tsx';

/** The consultation as it stands: lawyer, time (both zones), paid, and its state when not simply confirmed. */
function Facts({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  const t = ctx.t;
  const state = stateText(ctx, c);
  return (
    <dl class="facts">
      <dt>{t.confirm.lawyer(c.lawyer.formOfAddress)}</dt>
      <dd>{c.lawyer.name}</dd>
      <dt>{t.changeBooking.current}</dt>
      <dd>
        <When ctx={ctx} c={c} />
      </dd>
      <dt>{t.changeBooking.paid}</dt>
      <dd>{euros(c.quote.totalCents, ctx.locale)}</dd>
      {state ? (
        <>
          <dt>{t.account.state.label}</dt>
          <dd>{state}</dd>
        </>
      ) : null}
    </dl>
  );
}

function Back({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  return (
    <p>
      <BackLink ctx={ctx} href={`/consultations/${c.id}`}>
        {ctx.t.account.detailTitle}
      </BackLink>
    </p>
  );
}

export interface CancelPageProps {
  ctx: SiteContext;
  c: Consultation;
  /** `changed`: the terms changed between reading and confirming; `done`: it was cancelled just now. */
  notice?: 'changed' | 'done' | null;
}

export function CancelPage({ ctx, c, notice }: CancelPageProps) {
  const t = ctx.t.changeBooking;
  const p = c.policy;
  const open = p.canCancelWithRefund || p.canCancelWithoutRefund;
  const amount = euros(c.quote.totalCents, ctx.locale);
  const free = c.quote.totalCents === 0;
  return (
    <Layout ctx={ctx} title={t.cancelTitle} section="consultations" narrow>
      <h1>{t.cancelTitle}</h1>
      {notice === 'done' ? (
        <Notice kind="ok" role="status">
          <p>{t.cancelled}</p>
        </Notice>
      ) : null}
      {notice === 'changed' ? (
        <Notice kind="warn" role="alert">
          <p>{t.changed}</p>
        </Notice>
      ) : null}
      <Facts ctx={ctx} c={c} />
      {notice === 'done' ? null : !open ? (
        <Notice kind="warn">
          <p>{t.cannotChange}</p>
        </Notice>
      ) : (
        <section aria-labelledby="what-happens">
          <h2 id="what-happens">{t.whatHappens}</h2>
          <Notice kind={p.canCancelWithRefund ? 'ok' : 'bad'}>
            <p>
              <strong>{free ? t.nothingPaid : p.canCancelWithRefund ? t.refundInFull(amount) : t.noRefund(amount)}</strong>
            </p>
            <p>{policyNow(ctx, c)}</p>
          </Notice>
          <p>{t.timeFreed}</p>
          <p class="meta">{ctx.t.policy.summary}</p>
          <PostForm ctx={ctx} action={`/consultations/${c.id}/cancel`} once>
            {/* What this page promised: if the terms change before the form arrives, nothing is done and the page says so. */}
            <input type="hidden" name="refund" value={p.canCancelWithRefund ? '1' : '0'} />
            <div class="actions">
              <button type="submit" class="danger">
                {p.canCancelWithRefund || free ? t.confirmCancel : t.confirmCancelNoRefund}
              </button>
              <a class="button secondary" href={`/consultations/${c.id}`}>
                {t.keep}
              </a>
            </div>
          </PostForm>
        </section>
      )}
      <Back ctx={ctx} c={c} />
      <BookingScript ctx={ctx} />
    </Layout>
  );
}

export interface MovePageProps {
  ctx: SiteContext;
  c: Consultation;
  /** The lawyer's free times (null when it cannot be moved now, or she is no longer listed). */
  times: { availability: AvailabilityResponse; strip: WeekStrip; dayLink: (date: string) => string; prev: string | null; next: string | null } | null;
  /** A free time chosen in the strip: the page asks to confirm the move there (GET; the form POSTs). */
  confirm?: { to: NewSlot; back: string } | null;
  /** `taken`: the chosen time is not free (any more); `done`: moved just now; `already`: moved meanwhile, nothing done. */
  notice?: 'taken' | 'done' | 'already' | null;
}

/** "Move it from X to Y?", and the form that does it: what the page showed travels with it (`from`, `moves`). */
function ConfirmMove({ ctx, c, to, back }: { ctx: SiteContext; c: Consultation; to: NewSlot; back: string }) {
  const t = ctx.t.changeBooking;
  return (
    <section aria-labelledby="confirm-move">
      <h2 id="confirm-move">{t.confirmMoveHeading}</h2>
      <p>
        <strong>{t.moveFromTo(dayAndTime(c.date, c.startTime, ctx.locale), dayAndTime(to.date, to.start_time, ctx.locale))}</strong>
      </p>
      {c.moveCount === MAX_MOVES - 1 ? <p>{t.lastMove}</p> : null}
      <PostForm ctx={ctx} action={`/consultations/${c.id}/move`} once>
        <input type="hidden" name="slot" value={`${to.date}|${to.start_time}|${to.end_time}`} />
        <input type="hidden" name="from" value={`${c.date}|${c.startTime}`} />
        <input type="hidden" name="moves" value={String(c.moveCount)} />
        <div class="actions">
          <button type="submit">{t.confirmMove}</button>
          <a class="button secondary" href={back}>
            {t.otherTime}
          </a>
        </div>
      </PostForm>
    </section>
  );
}

export function MovePage({ ctx, c, times, confirm, notice }: MovePageProps) {
  const t = ctx.t.changeBooking;
  const p = c.policy;
  const sel = times ? (times.strip.days.find((d) => d.date === times.strip.selected) ?? null) : null;
  // In time, but moved MAX_MOVES times already: cancel and book again.
  const limit = !p.canMove && p.canCancelWithRefund && c.moveCount >= MAX_MOVES;
  return (
    <Layout ctx={ctx} title={t.moveTitle} section="consultations">
      <h1>{t.moveTitle}</h1>
      {notice === 'done' ? (
        <Notice kind="ok" role="status">
          <p>{t.moved}</p>
        </Notice>
      ) : null}
      {notice === 'taken' ? (
        <Notice kind="warn" role="alert">
          <p>{t.taken}</p>
        </Notice>
      ) : null}
      {notice === 'already' ? (
        <Notice kind="warn" role="alert">
          <p>{t.alreadyMoved}</p>
        </Notice>
      ) : null}
      <Facts ctx={ctx} c={c} />
      {notice === 'done' || notice === 'already' ? null : limit ? (
        <Notice kind="warn">
          <p>{t.limitReached}</p>
          <p>
            <a href={`/consultations/${c.id}/cancel`}>{t.cancelTitle}</a>
          </p>
        </Notice>
      ) : !p.canMove ? (
        <Notice kind="warn">
          <p>{p.canCancelWithoutRefund ? t.cannotMove : t.cannotChange}</p>
        </Notice>
      ) : confirm ? (
        <ConfirmMove ctx={ctx} c={c} to={confirm.to} back={confirm.back} />
      ) : times ? (
        <>
          <p>{t.moveIntro}</p>
          <p class="meta">{c.moveCount === MAX_MOVES - 1 ? t.lastMove : ctx.t.policy.move}</p>
          <WeekStripNav ctx={ctx} strip={times.strip} dayLink={times.dayLink} prev={times.prev} next={times.next} />
          {times.strip.days.every((d) => d.slots.length === 0) ? <p class="no-times">{t.noTimes}</p> : null}
          {sel ? (
            // A GET: choosing a time only asks to confirm it; nothing moves until the confirmation's POST.
            <form method="get" action={`/consultations/${c.id}/move`}>
              <section class="day" aria-labelledby="day-times">
                <h2 id="day-times">{formatDay(sel.date, ctx.locale)}</h2>
                <ul class="times">
                  {sel.slots.map((s) => (
                    <li>
                      <button type="submit" name="to" value={`${s.date}|${s.start_time}|${s.end_time}`} class="secondary" aria-label={t.moveTo(`${formatDay(s.date, ctx.locale)}`, formatTime(s.start_time))}>
                        {formatTime(s.start_time)}
                      </button>
                    </li>
                  ))}
                </ul>
              </section>
            </form>
          ) : null}
        </>
      ) : (
        <Notice kind="warn">
          <p>{t.cannotChange}</p>
        </Notice>
      )}
      <Back ctx={ctx} c={c} />
      <BookingScript ctx={ctx} />
    </Layout>
  );
}
