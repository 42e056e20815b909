/** "My consultations": upcoming and past, each with its calendar file. */
import { isCancelled, type Consultation } from '../../domain/booking/consultations.service.ts';
import type { SiteContext } from '../context.ts';
import { BackLink, PostForm, euros } from '../ui/components.tsx';
import { colon, dayAndTime, formatTime } from '../../i18n/format.ts';
import { Layout } from '../ui/layout.tsx';
import { holdInstants, PriceBreakdown } from '../booking/confirm.page.tsx';
import { WhatNext } from '../booking/purchase.tsx';
import { BookingScript, BothTimes, ZoneChooser } from '../booking/zone.tsx';
import { ReviewInvitation } from '../reviews/review.page.tsx';
import { ChangeLinks } from '../consultation-change/links.tsx';

/** The consultation's time in the lawyer's zone, and in the visitor's when it differs. */
export function When({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  const { startMs, endMs } = holdInstants({ startsAtIso: c.startsAt, startTime: c.startTime, endTime: c.endTime });
  return <BothTimes ctx={ctx} lawyerZone={c.lawyer.timezone} startMs={startMs} endMs={endMs} lawyerText={`${dayAndTime(c.date, c.startTime, ctx.locale)}–${formatTime(c.endTime)}`} />;
}

/** "Cancelled by the lawyer · Refunded in full", "Took place"…; null while it is simply confirmed. */
export function stateText(ctx: SiteContext, c: Pick<Consultation, 'status' | 'refund'>): string | null {
  const s = ctx.t.account.state;
  const what =
    c.status === 'cancelled_by_lawyer' ? s.cancelledByLawyer : c.status === 'cancelled_by_person' ? s.cancelled : c.status === 'moved' ? s.moved : c.status === 'held' ? s.held : c.status === 'no_show' ? s.noShow : null;
  if (!what) return null;
  const money = c.refund === 'refunded' ? s.refunded : c.refund === 'refunding' ? s.refunding : c.refund === 'released' ? s.released : null;
  return money ? `${what} · ${money}` : what;
}

function Item({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  const { t } = ctx;
  const state = stateText(ctx, c);
  return (
    <li class="card">
      <h3>
        <a href={`/consultations/${c.id}`}>{c.lawyer.name}</a>
      </h3>
      <p>
        <When ctx={ctx} c={c} />
      </p>
      {state ? (
        <p class="status">
          <strong>{state}</strong>
        </p>
      ) : null}
      <p class="meta">
        {t.account.paid}{colon(ctx.locale)}{euros(c.quote.totalCents, ctx.locale)}
      </p>
      <ReviewInvitation ctx={ctx} c={c} />
      <ChangeLinks ctx={ctx} c={c} />
      {/* What happens next, the reference, Add to calendar; once cancelled only the reference and the file that removes it. */}
      <WhatNext ctx={ctx} c={c} compact />
    </li>
  );
}

/**
 * Upcoming, cancelled (their own list, issue 25 item 9: a cancelled future consultation is not
 * "past", and nothing happens next), and past.
 */
export function ConsultationsPage({ ctx, upcoming, past: ended }: { ctx: SiteContext; upcoming: Consultation[]; past: Consultation[] }) {
  const { t } = ctx;
  const cancelled = ended.filter(isCancelled);
  const past = ended.filter((c) => !isCancelled(c));
  return (
    <Layout ctx={ctx} title={t.account.title} section="consultations">
      <h1>{t.account.title}</h1>
      {upcoming.length + ended.length > 0 ? <ZoneChooser ctx={ctx} lawyerZone={(upcoming[0] ?? ended[0])!.lawyer.timezone} reload /> : null}
      {upcoming.length === 0 && ended.length === 0 ? (
        <p>
          {t.account.none} <a href="/">{t.account.findOne}</a>
        </p>
      ) : (
        <>
          <h2>{t.account.upcoming}</h2>
          {upcoming.length === 0 ? <p>{t.account.noneUpcoming}</p> : null}
          <ul class="cards">
            {upcoming.map((c) => (
              <Item ctx={ctx} c={c} />
            ))}
          </ul>
          {cancelled.length > 0 ? (
            <>
              <h2>{t.account.cancelledList}</h2>
              <ul class="cards cancelled-list">
                {cancelled.map((c) => (
                  <Item ctx={ctx} c={c} />
                ))}
              </ul>
            </>
          ) : null}
          {past.length > 0 ? (
            <>
              <h2>{t.account.past}</h2>
              <ul class="cards">
                {past.map((c) => (
                  <Item ctx={ctx} c={c} />
                ))}
              </ul>
            </>
          ) : null}
        </>
      )}
      <h2>{t.account.signOutEverywhere}</h2>
      <PostForm ctx={ctx} action="/sign-out/everywhere">
        <p class="meta">{t.account.signOutEverywhereHint}</p>
        <button type="submit" class="secondary">
          {t.account.signOutEverywhere}
        </button>
      </PostForm>
      <BookingScript ctx={ctx} />
    </Layout>
  );
}

export function ConsultationPage({ ctx, c }: { ctx: SiteContext; c: Consultation }) {
  const { t } = ctx;
  const state = stateText(ctx, c);
  return (
    <Layout ctx={ctx} title={t.account.detailTitle} section="consultations" narrow>
      <h1>{t.account.detailTitle}</h1>
      <dl class="facts">
        <dt>{t.confirm.lawyer(c.lawyer.formOfAddress)}</dt>
        <dd>
          <a href={`/lawyers/${c.lawyer.id}`}>{c.lawyer.name}</a>
        </dd>
        <dt>{t.confirm.when}</dt>
        <dd>
          <When ctx={ctx} c={c} />
        </dd>
        <dt>{t.account.paid}</dt>
        <dd>{euros(c.quote.totalCents, ctx.locale)}</dd>
        {state ? (
          <>
            <dt>{t.account.state.label}</dt>
            <dd>{state}</dd>
          </>
        ) : null}
      </dl>
      <ZoneChooser ctx={ctx} lawyerZone={c.lawyer.timezone} reload />
      <ChangeLinks ctx={ctx} c={c} />
      <PriceBreakdown ctx={ctx} quote={c.quote} paid />
      <WhatNext ctx={ctx} c={c} />
      <p>
        <BackLink ctx={ctx} href="/consultations">
          {t.account.title}
        </BackLink>
      </p>
      <BookingScript ctx={ctx} />
    </Layout>
  );
}
