/**
 * The week strip as a person sees it (the booking page, moving a consultation:
 * src/site/consultation-change/, and the booking widget's frame: src/site/widget/): seven days as links (a day without free times is shown, marked,
 * and not a link), and the weeks either side. Plain links with ?week=&day=, so it works without
 * JavaScript. The data is week-strip.ts's.
 */
import type { SiteContext } from '../context.ts';
import { comma, formatDay } from '../../i18n/format.ts';
import { intlTag } from '../../i18n/locales.ts';
import type { WeekStrip } from './week-strip.ts';

const dayParts = new Map<string, Intl.DateTimeFormat>();
function part(kind: 'weekday' | 'day', locale: string): Intl.DateTimeFormat {
  const key = `${kind}|${locale}`;
  let f = dayParts.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(intlTag(locale), kind === 'weekday' ? { weekday: 'short', timeZone: 'UTC' } : { day: 'numeric', timeZone: 'UTC' });
    dayParts.set(key, f);
  }
  return f;
}
/** "lun", "Mon", "الاثنين": the strip's short day name. */
const weekday = (date: string, locale: string) => part('weekday', locale).format(new Date(`${date}T12:00:00Z`));
/** "30": the strip's day of the month (the full date is in its name and the heading). */
const dayNumber = (date: string, locale: string) => part('day', locale).format(new Date(`${date}T12:00:00Z`));

/** The page's language and messages: a site page's context, or the booking widget's frame's. */
type StripContext = Pick<SiteContext, 't' | 'locale'>;

export function WeekStripNav({ ctx, strip, dayLink, prev, next }: { ctx: StripContext; strip: WeekStrip; dayLink: (date: string) => string; prev: string | null; next: string | null }) {
  const { t } = ctx;
  return (
    <nav class="week-strip" aria-label={t.book.weekNav(formatDay(strip.week, ctx.locale))}>
      <ol class="week-days">
        {strip.days.map((d) => {
          const label = `${formatDay(d.date, ctx.locale)}${comma(ctx.locale)}${d.today ? `${t.book.today}${comma(ctx.locale)}` : ''}${t.book.freeCount(d.slots.length)}`;
          const cls = ['week-day', d.today ? 'is-today' : '', d.slots.length === 0 ? 'is-empty' : '', d.date === strip.selected ? 'is-selected' : ''].filter(Boolean).join(' ');
          // What the day shows ("jue", "26", "5") starts its name, and the rest is said after
          // it, so a voice-control user can say what they see (WCAG 2.5.3).
          const face = (
            <>
              <span class="wd">{weekday(d.date, ctx.locale)}</span>
              <span class="dn">{dayNumber(d.date, ctx.locale)}</span>
              <span class="dc">{d.slots.length > 0 ? d.slots.length : '–'}</span>
              <span class="visually-hidden">{` (${label})`}</span>
            </>
          );
          return (
            <li class={cls}>
              {d.slots.length > 0 ? (
                <a href={dayLink(d.date)} aria-current={d.date === strip.selected ? 'date' : undefined}>
                  {face}
                </a>
              ) : (
                <span>{face}</span>
              )}
            </li>
          );
        })}
      </ol>
      <div class="pager">
        {prev ? (
          <a href={prev} rel="prev">
            {t.book.prevWeek}
          </a>
        ) : (
          <span />
        )}
        {next ? (
          <a href={next} rel="next">
            {t.book.nextWeek}
          </a>
        ) : (
          <span />
        )}
      </div>
    </nav>
  );
}
