/**
 * The lawyer's booking page (booking_url): free times of the next two weeks; choosing one holds
 * it for 15 minutes (a POST form per time, so it works without JavaScript).
 */
import type { AvailabilityResponse } from '../../contract/directory.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm, euros } from '../ui/components.tsx';
import { formatDay, formatTime } from '../../i18n/format.ts';
import { zoneName } from '../../i18n/reference.ts';
import { Layout } from '../ui/layout.tsx';

export interface BookPageProps {
  ctx: SiteContext;
  availability: AvailabilityResponse;
  /** A fresh random value per rendering: the hold's Idempotency-Key, so a double tap holds once. */
  nonce: string;
  notice?: 'taken' | null;
  prev: string | null;
  next: string | null;
}

export function BookPage({ ctx, availability: a, nonce, notice, prev, next }: BookPageProps) {
  const { t } = ctx;
  const byDate = new Map<string, typeof a.slots>();
  for (const s of a.slots) {
    if (!s.available) continue;
    const list = byDate.get(s.date) ?? [];
    list.push(s);
    byDate.set(s.date, list);
  }
  return (
    <Layout ctx={ctx} title={t.book.title(a.lawyer_name)}>
      <h1>{t.book.title(a.lawyer_name)}</h1>
      <p>
        <span class="price">{euros(a.consultation_fee_cents, ctx.locale)}</span> {t.lawyer.perConsultation} · <a href={`/lawyers/${a.lawyer_id}`}>{t.book.profile}</a>
      </p>
      <p class="meta">{t.book.zoneNote(zoneName(ctx.locale, a.timezone))}</p>
      {notice === 'taken' ? (
        <Notice kind="warn" role="alert">
          <p>{t.book.taken}</p>
        </Notice>
      ) : null}
      <p>{t.book.howItWorks}</p>
      {byDate.size === 0 ? <p>{t.book.none}</p> : null}
      {byDate.size > 0 ? (
        // One form: each time is a submit button carrying its slot, so one tap holds it, and the
        // page carries one CSRF token and one nonce however many times it lists.
        <PostForm ctx={ctx} action={`/lawyers/${a.lawyer_id}/book`} once>
          <input type="hidden" name="nonce" value={nonce} />
          <ul class="days">
            {[...byDate].map(([date, slots]) => (
              <li class="day">
                <h2>{formatDay(date, ctx.locale)}</h2>
                <ul class="times">
                  {slots.map((s) => (
                    <li>
                      <button type="submit" name="slot" value={`${s.date}|${s.start_time}|${s.end_time}`} class="secondary" aria-label={t.book.holdLabel(formatDay(date, ctx.locale), formatTime(s.start_time))}>
                        {formatTime(s.start_time)}
                      </button>
                    </li>
                  ))}
                </ul>
              </li>
            ))}
          </ul>
        </PostForm>
      ) : null}
      <nav class="pager" aria-label={t.book.weeks}>
        {prev ? <a href={prev}>{t.book.earlier}</a> : <span />}
        {next ? <a href={next}>{t.book.later}</a> : <span />}
      </nav>
    </Layout>
  );
}
