import type { ComponentChildren } from 'preact';
/**
 * The lawyer's booking page (booking_url): a week strip (seven days, the weeks either side) and
 * the chosen day's free times; choosing one holds it for 15 minutes (one POST form whose buttons
 * carry the time, so it works without JavaScript). docs/site.md, "Booking path".
 */
import type { AvailabilityResponse } from '../../contract/directory.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm, euros } from '../ui/components.tsx';
import { formatDay, formatTime } from '../../i18n/format.ts';
import type { WeekStrip } from './week-strip.ts';
import { WeekStripNav } from './week-strip-nav.tsx';
import { Layout } from '../ui/layout.tsx';
import { OfferSummary } from '../booking/purchase.tsx';
import { quote } from '../../domain/booking/quote.ts';
import { dateInZone, zonedToUtcMs } from '../../zoned-time.ts';
import { timeIn, zoneName, zonesDiffer } from '../booking/visitor-zone.ts';
import { BookingScript, otherZone, ZoneChooser } from '../booking/zone.tsx';
import type { FormOfAddress } from '../../i18n/form-of-address.ts';

export interface BookPageProps {
  ctx: SiteContext;
  availability: AvailabilityResponse;
  /** A fresh random value per rendering: the hold's Idempotency-Key, so a double tap holds once. */
  nonce: string;
  notice?: 'taken' | null;
  /** "This lawyer does not speak Arabic" (language-match.tsx), when she speaks none of the visitor's languages. */
  languageNotice?: ComponentChildren;
  /** The week shown, its days and the chosen one. */
  strip: WeekStrip;
  /** The link that chooses a day of this week. */
  dayLink: (date: string) => string;
  prev: string | null;
  next: string | null;
  /** How she is named (her trust facts): "the lawyer's time" in her form; neutral when unknown. */
  formOfAddress?: FormOfAddress | null;
}

export function BookPage({ ctx, availability: a, strip, dayLink, nonce, notice, prev, next, languageNotice, formOfAddress = null }: BookPageProps) {
  const { t } = ctx;
  const b = t.bookingPath;
  // The visitor's zone, when it shows other wall-clock times than the lawyer's in this window.
  const firstMs = a.slots.length > 0 ? zonedToUtcMs(a.slots[0]!.date, a.slots[0]!.start_time, a.timezone) ?? Date.parse(`${a.start_date}T12:00:00Z`) : Date.parse(`${a.start_date}T12:00:00Z`);
  const yours = otherZone(ctx, a.timezone, firstMs) ?? (ctx.zone && zonesDiffer(ctx.zone, a.timezone, firstMs + 14 * 86_400_000) ? ctx.zone : null);
  const yourTime = (date: string, time: string): string | null => {
    if (!yours) return null;
    const ms = zonedToUtcMs(date, time, a.timezone);
    if (ms === null) return null;
    // Far enough away, the visitor's calendar day is another: say so beside the time.
    const theirDay = dateInZone(ms, yours);
    const shift = theirDay > date ? ` ${b.dayAfter}` : theirDay < date ? ` ${b.dayBefore}` : '';
    return `${timeIn(ms, yours, ctx.locale)}${shift}`;
  };
  const sel = strip.days.find((d) => d.date === strip.selected) ?? null;
  const hasFree = strip.days.some((d) => d.slots.length > 0);
  return (
    <Layout ctx={ctx} title={t.book.title(a.lawyer_name)}>
      <h1>{t.book.title(a.lawyer_name)}</h1>
      <p>
        <span class="price">{euros(a.consultation_fee_cents, ctx.locale)}</span> {t.lawyer.perConsultation} · <a href={`/lawyers/${a.lawyer_id}`}>{t.book.profile}</a>
      </p>
      <OfferSummary ctx={ctx} minutes={a.consultation_minutes} formats={a.formats} quote={quote(a)} />
      {languageNotice}
      <p class="meta">{yours ? b.timesNoteBoth(formOfAddress, zoneName(a.timezone, ctx.locale), zoneName(yours, ctx.locale)) : b.timesNote(formOfAddress, zoneName(a.timezone, ctx.locale))}</p>
      <ZoneChooser ctx={ctx} lawyerZone={a.timezone} reload={notice !== 'taken'} />
      {notice === 'taken' ? (
        <Notice kind="warn" role="alert">
          <p>{t.book.taken}</p>
        </Notice>
      ) : null}
      <p>{t.book.howItWorks}</p>
      <WeekStripNav ctx={ctx} strip={strip} dayLink={dayLink} prev={prev} next={next} />
      {!hasFree ? <p class="no-times">{t.book.noneThisWeek}</p> : null}
      {sel ? (
        // One form: each time is a submit button carrying its slot, so one tap holds it, and the
        // page carries one CSRF token and one nonce however many times it lists.
        <PostForm ctx={ctx} action={`/lawyers/${a.lawyer_id}/book`} once>
          <input type="hidden" name="nonce" value={nonce} />
          <section class="day" aria-labelledby="day-times">
            <h2 id="day-times">{formatDay(sel.date, ctx.locale)}</h2>
            <ul class="times">
              {sel.slots.map((s) => {
                const mine = yourTime(s.date, s.start_time);
                return (
                  <li>
                    {mine ? (
                      // Two times on the button: its name is its text (what it says, then what it does), so a
                      // voice-control user can say what they see (WCAG 2.5.3).
                      <button type="submit" name="slot" value={`${s.date}|${s.start_time}|${s.end_time}`} class="secondary two-times">
                        <span class="visually-hidden">{b.holdPrefix(formatDay(s.date, ctx.locale))}</span>
                        {formatTime(s.start_time)} <span class="slot-yours">{b.yoursShort(mine)}</span>
                      </button>
                    ) : (
                      <button type="submit" name="slot" value={`${s.date}|${s.start_time}|${s.end_time}`} class="secondary" aria-label={t.book.holdLabel(formatDay(s.date, ctx.locale), formatTime(s.start_time))}>
                        {formatTime(s.start_time)}
                      </button>
                    )}
                  </li>
                );
              })}
            </ul>
          </section>
        </PostForm>
      ) : null}
      <BookingScript ctx={ctx} />
    </Layout>
  );
}
