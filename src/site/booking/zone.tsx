/**
 * What the booking path shows about time zones: the lawyer's time with the visitor's beside it
 * when they differ, the chooser (a plain form: works without JavaScript), and booking.js, which
 * detects the browser's zone, counts the hold down and checks the card form.
 */
import { intlTag } from '../../i18n/locales.ts';
import type { SiteContext } from '../context.ts';
import { PostForm, Select } from '../ui/components.tsx';
import { chooserOptions, timeIn, zoneName, zonesDiffer } from './visitor-zone.ts';
import { comma } from '../../i18n/format.ts';

/** The visitor's zone when it shows another wall-clock time than `lawyerZone` at `atMs`, else null. */
export function otherZone(ctx: SiteContext, lawyerZone: string, atMs: number): string | null {
  return ctx.zone && zonesDiffer(ctx.zone, lawyerZone, atMs) ? ctx.zone : null;
}

/**
 * The zone chooser: a summary line and, opened, a select and a button. `reload` lets booking.js
 * reload the page once after it detected the zone (only on pages fetched with GET).
 */
export function ZoneChooser({ ctx, lawyerZone, reload }: { ctx: SiteContext; lawyerZone: string; reload?: boolean }) {
  const b = ctx.t.bookingPath;
  return (
    <details class="zone-chooser" data-zone-chooser data-zone-current={ctx.zone ?? ''} data-lawyer-zone={lawyerZone} data-zone-reload={reload ? '' : undefined}>
      <summary>
        {ctx.zone ? b.zoneCurrent(zoneName(ctx.zone, ctx.locale)) : b.zoneUnknown} <span class="zone-change">{b.zoneChange}</span>
      </summary>
      <PostForm ctx={ctx} action="/time-zone" class="zone-form">
        <input type="hidden" name="return_to" value={ctx.path} />
        <Select name="zone" label={b.zoneChooser} options={chooserOptions(ctx.zone ?? null, ctx.locale)} value={ctx.zone ?? lawyerZone} />
        <button type="submit" class="secondary">
          {b.zoneSave}
        </button>
      </PostForm>
    </details>
  );
}

/** "10:00 (lawyer's time: hora peninsular)" and, when the visitor's differs, "09:00 (your time: hora de Canarias)". */
export function BothTimes({ ctx, lawyerZone, startMs, endMs, lawyerText }: { ctx: SiteContext; lawyerZone: string; startMs: number; endMs: number; lawyerText: string }) {
  const b = ctx.t.bookingPath;
  const yours = otherZone(ctx, lawyerZone, startMs);
  return (
    <>
      {lawyerText} <span class="meta">({b.lawyerZone(zoneName(lawyerZone, ctx.locale))})</span>
      {yours ? (
        <span class="your-time">
          {timeIn(startMs, yours, ctx.locale)}–{timeIn(endMs, yours, ctx.locale)}
          {dayShift(startMs, lawyerZone, yours, ctx.locale)} <span class="meta">({b.yourZone(zoneName(yours, ctx.locale))})</span>
        </span>
      ) : null}
    </>
  );
}

const dayFormat = new Map<string, Intl.DateTimeFormat>();
/** ", martes 1 de diciembre" when the visitor's calendar day is not the lawyer's; else nothing. */
function dayShift(atMs: number, lawyerZone: string, yours: string, locale: string): string {
  const key = (zone: string) => {
    const id = `${locale}|${zone}`;
    let f = dayFormat.get(id);
    if (!f) {
      f = new Intl.DateTimeFormat(intlTag(locale), { weekday: 'long', day: 'numeric', month: 'long', timeZone: zone });
      if (dayFormat.size < 400) dayFormat.set(id, f);
    }
    return f.format(new Date(atMs));
  };
  const theirs = key(lawyerZone);
  const mine = key(yours);
  return theirs === mine ? '' : `${comma(locale)}${mine}`;
}

/** booking.js: included by the booking path's pages only. */
export function BookingScript({ ctx }: { ctx: SiteContext }) {
  return <script src={ctx.asset('booking.js')} defer></script>;
}
