/**
 * /firms/:slug/lawyers (docs/keys-and-firms.md#lawyers-of-a-firm), for the firm's owners: invite
 * a lawyer, the invitations and lawyers with their status, the accepted lawyers' bookings (date,
 * time, lawyer, status; never who booked) and their earnings. Renders its props; never queries.
 */
import type { FirmLawyersOverview } from '../../domain/access/firm-lawyers.service.ts';
import type { Earnings } from '../../domain/payments/earnings.service.ts';
import type { FirmBookingRow } from '../../db/repositories/firm-lawyers.repository.ts';
import { formatDay } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm } from '../ui/components.tsx';
import { DashboardLayout, FirmTabs } from '../ui/dashboard.tsx';
import { Figures, MonthCards } from '../lawyer-earnings/earnings.page.tsx';

export interface FirmLawyersPageProps {
  ctx: SiteContext;
  overview: FirmLawyersOverview;
  bookings: FirmBookingRow[];
  earnings: { all: Earnings; perLawyer: Array<{ lawyerId: string; name: string; earnings: Earnings }> };
  form: { lawyer: string; error: string | null };
  flash: string | null;
}

export function FirmLawyersPage({ ctx, overview, bookings, earnings, form, flash }: FirmLawyersPageProps) {
  const t = ctx.t.firmLawyers;
  const { firm, lawyers } = overview;
  const base = `/firms/${encodeURIComponent(firm.slug)}/lawyers`;
  const current = lawyers.filter((l) => l.status === 'invited' || l.status === 'accepted');
  return (
    <DashboardLayout ctx={ctx} title={form.error ? `${t.errorSummary} — ${t.title}` : `${t.title} · ${firm.name}`} current="firms">
      <p class="firm-name">{firm.name}</p>
      <FirmTabs ctx={ctx} slug={firm.slug} current="lawyers" />
      <h1>{t.title}</h1>
      {form.error ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">{t.errorSummary}</h2>
          <ul>
            <li>
              <a href="#f-lawyer">{form.error}</a>
            </li>
          </ul>
        </div>
      ) : null}
      {flash ? <Notice kind="ok" role="status">{flash}</Notice> : null}
      <p>{t.intro}</p>

      <section aria-labelledby="invite">
        <h2 id="invite">{t.inviteTitle}</h2>
        <PostForm ctx={ctx} action={base} novalidate>
          <Field name="lawyer" label={t.inviteLabel} hint={t.inviteHint} value={form.lawyer} error={form.error} maxLength={500} required />
          <button type="submit">{t.invite}</button>
        </PostForm>
      </section>

      <section aria-labelledby="lawyers">
        <h2 id="lawyers">{t.listTitle}</h2>
        {current.length === 0 ? (
          <p>{t.none}</p>
        ) : (
          <ul class="cards columns">
            {current.map((l) => (
              <li class="card" key={l.lawyer_id}>
                <h3>{l.name}</h3>
                <p>
                  <span class="badge">{t.statusNames[l.status]}</span>
                </p>
                <PostForm ctx={ctx} action={`${base}/${encodeURIComponent(l.lawyer_id)}/remove`} once>
                  <button type="submit" class="secondary">{l.status === 'invited' ? t.withdraw(l.name) : t.remove(l.name)}</button>
                </PostForm>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="bookings">
        <h2 id="bookings">{t.bookingsTitle}</h2>
        <p class="meta">{t.bookingsIntro}</p>
        {bookings.length === 0 ? (
          <p>{t.noBookings}</p>
        ) : (
          <ul class="cards columns">
            {bookings.map((b) => (
              <li class="card" key={`${b.lawyer_id}${b.slot_date}${b.start_time}`}>
                <p>
                  <strong>
                    {formatDay(b.slot_date, ctx.locale)}, {b.start_time.slice(0, 5)}–{b.end_time.slice(0, 5)}
                  </strong>
                </p>
                <p class="meta">
                  {b.lawyer_name} · {ctx.t.earnings.statuses[b.status] ?? b.status}
                </p>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="earnings">
        <h2 id="earnings">{t.earningsTitle}</h2>
        {earnings.all.months.length === 0 ? (
          <p>{t.noEarnings}</p>
        ) : (
          <>
            <div class="card">
              <h3>{t.earningsAll}</h3>
              <Figures ctx={ctx} totals={earnings.all.total} />
            </div>
            <ul class="cards columns">
              {earnings.perLawyer.map((l) => (
                <li class="card" key={l.lawyerId}>
                  <h3>{l.name}</h3>
                  <Figures ctx={ctx} totals={l.earnings.total} />
                </li>
              ))}
            </ul>
            <h3>{ctx.t.earnings.months}</h3>
            <MonthCards ctx={ctx} earnings={earnings.all} />
          </>
        )}
      </section>
    </DashboardLayout>
  );
}
