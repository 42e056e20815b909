/**
 * /lawyer/earnings (docs/lawyers.md#earnings-and-payouts): her months (cards, phone first), one
 * month's consultations, the CSV downloads, her payouts (Stripe Connect, or the demo's note) and
 * firms' invitations to answer. Renders what the routes hand it; it never queries.
 */
import type { EarningLine, Earnings, MonthTotals } from '../../domain/payments/earnings.service.ts';
import type { PayoutStatus } from '../../domain/payments/payouts.service.ts';
import type { LawyerFirmRow } from '../../db/repositories/firm-lawyers.repository.ts';
import { euros, formatDay } from '../../i18n/format.ts';
import { intlTag } from '../../i18n/locales.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { PortalLayout } from '../lawyer/portal.pages.tsx';

/** `2026-11` → "November 2026" / "noviembre de 2026". */
export function monthName(month: string, locale: string): string {
  return new Intl.DateTimeFormat(intlTag(locale), { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(new Date(`${month}-15T12:00:00Z`));
}

/** One month's (or all months') figures. */
export function Figures({ ctx, totals }: { ctx: SiteContext; totals: Omit<MonthTotals, 'month'> }) {
  const t = ctx.t.earnings;
  const money = (c: number) => euros(c, ctx.locale);
  return (
    <dl class="facts">
      <dt>{t.consultations}</dt>
      <dd>{totals.consultations}</dd>
      <dt>{t.paid}</dt>
      <dd>{money(totals.paidCents)}</dd>
      <dt>{t.refunded}</dt>
      <dd>{money(totals.refundedCents)}</dd>
      <dt>{t.platformShare}</dt>
      <dd>{money(totals.platformShareCents)}</dd>
      <dt>{t.net}</dt>
      <dd class="price">{money(totals.netCents)}</dd>
    </dl>
  );
}

/** The months as cards, newest first; `monthHref` links each to its detail when given. */
export function MonthCards({ ctx, earnings, monthHref }: { ctx: SiteContext; earnings: Earnings; monthHref?: (month: string) => string }) {
  const t = ctx.t.earnings;
  return (
    <ul class="cards columns">
      {earnings.months.map((m) => (
        <li class="card" key={m.month}>
          <h3>{monthName(m.month, ctx.locale)}</h3>
          <Figures ctx={ctx} totals={m} />
          {monthHref ? (
            <p>
              <a href={monthHref(m.month)}>{t.monthLink(monthName(m.month, ctx.locale))}</a>
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

function Payouts({ ctx, payout, connectNotice }: { ctx: SiteContext; payout: PayoutStatus; connectNotice: 'returned' | 'expired' | 'unavailable' | null }) {
  const t = ctx.t.earnings;
  const yesNo = (v: boolean) => (v ? t.yes : t.no);
  return (
    <section aria-labelledby="payouts">
      <h2 id="payouts">
        {t.payoutsTitle} {payout.kind === 'demo' ? <span class="badge demo">{t.demoBadge}</span> : null}
      </h2>
      {connectNotice === 'returned' ? <Notice kind="ok" role="status">{t.returned}</Notice> : null}
      {connectNotice === 'expired' ? <Notice kind="warn" role="status">{t.linkExpired}</Notice> : null}
      {connectNotice === 'unavailable' ? <Notice kind="bad" role="alert">{t.unavailable}</Notice> : null}
      {payout.kind === 'demo' ? <p>{t.demo}</p> : null}
      {payout.kind === 'not_connected' ? (
        <>
          <p>{t.notConnected}</p>
          <PostForm ctx={ctx} action="/lawyer/earnings/connect" once>
            <button type="submit">{t.connect}</button>
          </PostForm>
        </>
      ) : null}
      {payout.kind === 'connected' ? (
        <>
          <dl class="facts">
            <dt>{t.accountId}</dt>
            <dd>
              <code>{payout.accountId}</code>
            </dd>
            <dt>{t.detailsSubmitted}</dt>
            <dd>{yesNo(payout.detailsSubmitted)}</dd>
            <dt>{t.chargesEnabled}</dt>
            <dd>{yesNo(payout.chargesEnabled)}</dd>
            <dt>{t.payoutsEnabled}</dt>
            <dd>{yesNo(payout.payoutsEnabled)}</dd>
          </dl>
          <p>{payout.chargesEnabled ? t.ready : t.pending}</p>
          {!payout.detailsSubmitted || !payout.chargesEnabled || !payout.payoutsEnabled ? (
            <PostForm ctx={ctx} action="/lawyer/earnings/connect" once>
              <button type="submit">{t.continueSetup}</button>
            </PostForm>
          ) : null}
        </>
      ) : null}
    </section>
  );
}

function FirmInvitations({ ctx, firms, flash }: { ctx: SiteContext; firms: LawyerFirmRow[]; flash: string | null }) {
  const t = ctx.t.firmLawyers;
  if (firms.length === 0 && !flash) return null;
  const invited = firms.filter((f) => f.status === 'invited');
  const accepted = firms.filter((f) => f.status === 'accepted');
  const action = (slug: string, verb: string) => `/lawyer/earnings/firms/${encodeURIComponent(slug)}/${verb}`;
  return (
    <section aria-labelledby="firms">
      <h2 id="firms">{t.lawyerTitle}</h2>
      {flash ? <Notice kind="ok" role="status">{flash}</Notice> : null}
      <p>{t.lawyerIntro}</p>
      {firms.length > 0 ? (
        <ul class="cards">
          {invited.map((f) => (
            <li class="card" key={f.firm_id}>
              <h3>{t.invitedBy(f.name)}</h3>
              <p>{t.invitationExplains}</p>
              <div class="actions">
                <PostForm ctx={ctx} action={action(f.slug, 'accept')} once>
                  <button type="submit">{t.accept}</button>
                </PostForm>
                <PostForm ctx={ctx} action={action(f.slug, 'decline')} once>
                  <button type="submit" class="secondary">{t.decline}</button>
                </PostForm>
              </div>
            </li>
          ))}
          {accepted.map((f) => (
            <li class="card" key={f.firm_id}>
              <h3>{t.memberOf(f.name)}</h3>
              <PostForm ctx={ctx} action={action(f.slug, 'leave')} once>
                <button type="submit" class="secondary">{t.leave}</button>
              </PostForm>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}

export interface EarningsPageProps {
  ctx: SiteContext;
  lawyerName: string;
  earnings: Earnings;
  payout: PayoutStatus;
  connectNotice: 'returned' | 'expired' | 'unavailable' | null;
  firms: LawyerFirmRow[];
  firmFlash: string | null;
  monthError: boolean;
}

export function EarningsPage(p: EarningsPageProps) {
  const { ctx } = p;
  const t = ctx.t.earnings;
  return (
    <PortalLayout ctx={ctx} title={t.title} current="earnings">
      <h1>{t.title}</h1>
      <p class="meta">{p.lawyerName}</p>
      <p>{t.intro}</p>
      {p.monthError ? <Notice kind="bad" role="alert">{t.badMonth}</Notice> : null}
      <FirmInvitations ctx={ctx} firms={p.firms} flash={p.firmFlash} />
      <section aria-labelledby="months">
        <h2 id="months">{t.months}</h2>
        {p.earnings.months.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <>
            <div class="card">
              <h3>{t.total}</h3>
              <Figures ctx={ctx} totals={p.earnings.total} />
              <p>
                <a class="button secondary" href="/lawyer/earnings.csv" download>
                  {t.downloadCsv}
                </a>
              </p>
            </div>
            <MonthCards ctx={ctx} earnings={p.earnings} monthHref={(m) => `/lawyer/earnings?month=${m}`} />
          </>
        )}
      </section>
      <Payouts ctx={ctx} payout={p.payout} connectNotice={p.connectNotice} />
    </PortalLayout>
  );
}

/** One month's consultations: a card per consultation on a phone, the same cards in two columns wider. */
export function EarningsMonthPage({ ctx, month, lines, totals }: { ctx: SiteContext; month: string; lines: EarningLine[]; totals: Earnings['total'] }) {
  const t = ctx.t.earnings;
  const name = monthName(month, ctx.locale);
  const money = (c: number) => euros(c, ctx.locale);
  return (
    <PortalLayout ctx={ctx} title={t.monthTitle(name)} current="earnings">
      <p>
        <a href="/lawyer/earnings">{t.backToMonths}</a>
      </p>
      <h1>{t.monthTitle(name)}</h1>
      <Figures ctx={ctx} totals={totals} />
      <p>
        <a class="button secondary" href={`/lawyer/earnings.csv?month=${month}`} download>
          {t.downloadMonthCsv(name)}
        </a>
      </p>
      {lines.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul class="cards columns" aria-label={t.linesCaption}>
          {lines.map((l) => (
            <li class="card" key={l.consultationId}>
              <h2>
                {formatDay(l.date, ctx.locale)}, {l.time}
              </h2>
              <dl class="facts">
                <dt>{t.status}</dt>
                <dd>{t.statuses[l.status] ?? l.status}</dd>
                <dt>{t.paid}</dt>
                <dd>{money(l.paidCents)}</dd>
                {l.refundedCents > 0 ? (
                  <>
                    <dt>{t.refunded}</dt>
                    <dd>{money(l.refundedCents)}</dd>
                  </>
                ) : null}
                <dt>{t.platformShare}</dt>
                <dd>{money(l.platformShareCents)}</dd>
                <dt>{t.net}</dt>
                <dd>{money(l.netCents)}</dd>
                {l.paidCents > 0 ? (
                  <>
                    <dt>{t.account}</dt>
                    <dd>{l.toConnectedAccount ? t.toConnected : t.toPlatform}</dd>
                  </>
                ) : null}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </PortalLayout>
  );
}
