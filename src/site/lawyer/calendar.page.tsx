/**
 * /lawyer/calendar: her weekly hours (up to three ranges a day, time fields stepping by quarter hours), the
 * booking rules (notice, buffer, horizon, time zone) and her date overrides (closed, or other
 * hours). Everything works without JavaScript: "copy Monday to Tuesday–Friday" is a second
 * submit button of the same form; each override is removed by its own small form.
 */
import { BUFFER_MINUTES, HORIZON_DAYS, NOTICE_MINUTES, TIME_ZONES } from '../../domain/lawyers/calendar-rules.ts';
import { RANGES_PER_DAY, type CalendarView } from '../../domain/lawyers/calendar.service.ts';
import { formatDay } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { PostForm, Select } from '../ui/components.tsx';
import { ErrorSummary, PortalLayout, SavedNotice, type PortalErrors } from './portal.pages.tsx';

export const WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;

export interface RangeForm {
  start: string;
  end: string;
}

export interface WeekForm {
  week: Record<number, RangeForm[]>;
  notice_minutes: string;
  buffer_minutes: string;
  horizon_days: string;
  timezone: string;
}

export interface OverrideForm {
  date: string;
  kind: 'closed' | 'hours';
  ranges: RangeForm[];
}

const padRanges = (ranges: RangeForm[]): RangeForm[] => [...ranges, ...Array.from({ length: Math.max(0, RANGES_PER_DAY - ranges.length) }, () => ({ start: '', end: '' }))].slice(0, RANGES_PER_DAY);

export function weekForm(c: CalendarView): WeekForm {
  const week: Record<number, RangeForm[]> = {};
  for (const d of WEEKDAYS) week[d] = padRanges(c.week[d] ?? []);
  return { week, notice_minutes: String(c.noticeMinutes), buffer_minutes: String(c.bufferMinutes), horizon_days: String(c.horizonDays), timezone: c.timezone };
}

export const emptyOverrideForm = (): OverrideForm => ({ date: '', kind: 'closed', ranges: padRanges([]) });

/**
 * One end of a range: a native time field stepping by quarter hours (15 minutes = 900 s). The
 * server still checks every value is on a quarter hour (calendar-rules `isQuarterHour`): the step
 * only guides the browser's picker. An empty field means "no range". A select of the 96 quarter
 * hours did the same with 97 options per field, about 4,000 on the page (seven days and the
 * override, three ranges, two ends), which made the page heavy to send, render and check.
 */
function TimeInput({ id, name, label, value, invalid }: { id: string; name: string; label: string; value: string; invalid: boolean }) {
  return (
    <span class="time-field">
      <label for={id}>{label}</label>
      <input id={id} name={name} type="time" step={900} value={value} aria-invalid={invalid ? 'true' : undefined} />
    </span>
  );
}

function Ranges({ ctx, prefix, ranges, invalid }: { ctx: SiteContext; prefix: string; ranges: RangeForm[]; invalid: boolean }) {
  const { t } = ctx;
  return (
    <>
      {padRanges(ranges).map((r, i) => (
        <div class="time-range">
          <TimeInput id={`f-${prefix}_${i}_start`} name={`${prefix}_${i}_start`} label={t.portal.from} value={r.start} invalid={invalid} />
          <TimeInput id={`f-${prefix}_${i}_end`} name={`${prefix}_${i}_end`} label={t.portal.to} value={r.end} invalid={invalid} />
        </div>
      ))}
    </>
  );
}

export function noticeLabel(ctx: Pick<SiteContext, 't'>, minutes: number): string {
  const p = ctx.t.portal;
  if (minutes === 60) return p.oneHour;
  // "1 días" read in the notice select (issue 25 item 15).
  if (minutes === 1440) return p.oneDay;
  if (minutes % 1440 === 0) return p.days.replace('{n}', String(minutes / 1440));
  return p.hours.replace('{n}', String(minutes / 60));
}

export function CalendarPage({
  ctx,
  view,
  form,
  override,
  errors,
  overrideErrors,
  saved,
}: {
  ctx: SiteContext;
  view: CalendarView;
  form: WeekForm;
  override: OverrideForm;
  errors: PortalErrors;
  overrideErrors: PortalErrors;
  saved: string | null;
}) {
  const { t, locale } = ctx;
  const p = t.portal;
  const anyErrors = Object.keys(errors).length + Object.keys(overrideErrors).length > 0;
  const title = anyErrors ? `${p.errorTitle} — ${p.calendarTitle}` : p.calendarTitle;
  const lastDay = formatDay(view.lastDate, locale);
  return (
    <PortalLayout ctx={ctx} title={title} current="calendar">
      <h1>{p.calendarTitle}</h1>
      <ErrorSummary ctx={ctx} errors={{ ...errors, ...overrideErrors }} anchor={(field) => (field.startsWith('week_') ? `day-${field.slice(5)}` : field === 'ranges' ? 'f-o_0_start' : `f-${field}`)} />
      <SavedNotice message={saved} />
      <p>{p.calendarIntro}</p>
      <PostForm ctx={ctx} action="/lawyer/calendar" class="join-form calendar-form" novalidate>
        <h2 id="week">{p.weekTitle}</h2>
        <p>{p.weekIntro}</p>
        <div class="week">
          {WEEKDAYS.map((d) => {
            const error = errors[`week_${d}`];
            return (
              <fieldset class="field weekday" id={`day-${d}`} aria-describedby={error ? `day-${d}-error` : undefined}>
                <legend>{p.weekdays[d]}</legend>
                {error ? <span class="field-error" id={`day-${d}-error`}>{error}</span> : null}
                <Ranges ctx={ctx} prefix={`w${d}`} ranges={form.week[d] ?? []} invalid={Boolean(error)} />
              </fieldset>
            );
          })}
        </div>
        <button type="submit" name="copy_monday" value="1" class="secondary">
          {p.copyMonday}
        </button>
        <h2>{p.settingsTitle}</h2>
        <Select name="notice_minutes" label={p.notice} options={NOTICE_MINUTES.map((n) => ({ value: String(n), label: noticeLabel(ctx, n) }))} value={form.notice_minutes} error={errors.notice_minutes} />
        <Select name="buffer_minutes" label={p.buffer} options={BUFFER_MINUTES.map((n) => ({ value: String(n), label: n === 0 ? p.noBuffer : p.minutes.replace('{n}', String(n)) }))} value={form.buffer_minutes} error={errors.buffer_minutes} />
        <Select name="horizon_days" label={p.horizon} options={HORIZON_DAYS.map((n) => ({ value: String(n), label: p.days.replace('{n}', String(n)) }))} value={form.horizon_days} error={errors.horizon_days} />
        <Select name="timezone" label={p.timezone} options={TIME_ZONES.map((z) => ({ value: z, label: p.zones[z] ?? z }))} value={form.timezone} error={errors.timezone} />
        <button class="wide" type="submit">
          {p.save}
        </button>
      </PostForm>

      <section aria-labelledby="holidays" class="overrides holidays">
        <h2 id="holidays">{p.holidaysTitle}</h2>
        <p>{p.holidaysIntro}</p>
        {view.holidays.length === 0 ? (
          <p>{p.holidaysNone}</p>
        ) : (
          <ul class="override-list">
            {view.holidays.map((hol) => {
              const day = formatDay(hol.date, locale);
              const action = hol.kind === 'local' ? 'reset' : hol.open ? 'close' : 'open';
              return (
                <li>
                  <span>
                    <strong>{day}</strong>
                    {hol.name ? <span lang="es"> · {hol.name}</span> : null}: {hol.kind === 'local' ? p.holidayLocal : hol.open ? p.holidayOpen : p.holidayClosed}
                  </span>
                  <PostForm ctx={ctx} action="/lawyer/calendar/holidays">
                    <input type="hidden" name="date" value={hol.date} />
                    <input type="hidden" name="action" value={action} />
                    <button type="submit" class="secondary">
                      {action === 'open' ? p.holidayOpenButton : action === 'close' ? p.holidayCloseButton : p.holidayRemoveButton}
                      <span class="visually-hidden"> {day}</span>
                    </button>
                  </PostForm>
                </li>
              );
            })}
          </ul>
        )}
        <PostForm ctx={ctx} action="/lawyer/calendar/holidays" class="join-form" novalidate>
          <input type="hidden" name="action" value="close" />
          <div class="field">
            <label for="f-holiday-date">{p.holidayLocalDate}</label>
            <input id="f-holiday-date" name="date" type="date" min={view.today} max={view.lastDate} aria-describedby="f-holiday-hint" />
            <span class="hint" id="f-holiday-hint">{p.holidayLocalHint}</span>
          </div>
          <button type="submit">{p.holidayLocalAdd}</button>
        </PostForm>
      </section>

      <section aria-labelledby="overrides" class="overrides">
        <h2 id="overrides">{p.overridesTitle}</h2>
        <p>{p.overridesIntro.replace('{last}', lastDay)}</p>
        {view.overrides.length === 0 ? (
          <p>{p.overridesNone}</p>
        ) : (
          <ul class="override-list">
            {view.overrides.map((o) => (
              <li>
                <span>
                  <strong>{formatDay(o.date, locale)}</strong>: {o.closed ? p.closed : o.ranges.map((r) => `${r.start}–${r.end}`).join(', ')}
                </span>
                <PostForm ctx={ctx} action="/lawyer/calendar/overrides/remove">
                  <input type="hidden" name="date" value={o.date} />
                  <button type="submit" class="secondary">
                    {p.overrideRemove}
                    <span class="visually-hidden"> {formatDay(o.date, locale)}</span>
                  </button>
                </PostForm>
              </li>
            ))}
          </ul>
        )}
        <PostForm ctx={ctx} action="/lawyer/calendar/overrides" class="join-form" novalidate>
          <div class="field">
            <label for="f-date">{p.overrideDate}</label>
            <input id="f-date" name="date" type="date" value={override.date} min={view.today} max={view.lastDate} aria-invalid={overrideErrors.date ? 'true' : undefined} aria-describedby={overrideErrors.date ? 'f-date-error' : undefined} />
            {overrideErrors.date ? <span class="field-error" id="f-date-error">{overrideErrors.date}</span> : null}
          </div>
          <fieldset class="field" id="f-kind" aria-describedby={overrideErrors.ranges ? 'f-ranges-error' : undefined}>
            <legend>{p.overrideKind}</legend>
            {overrideErrors.ranges ? <span class="field-error" id="f-ranges-error">{overrideErrors.ranges}</span> : null}
            <label class="check">
              <input type="radio" name="kind" value="closed" checked={override.kind === 'closed'} /> {p.overrideClosed}
            </label>
            <label class="check">
              <input type="radio" name="kind" value="hours" checked={override.kind === 'hours'} /> {p.overrideHours}
            </label>
            <Ranges ctx={ctx} prefix="o" ranges={override.ranges} invalid={Boolean(overrideErrors.ranges)} />
          </fieldset>
          <button type="submit">{p.overrideAdd}</button>
        </PostForm>
      </section>
    </PortalLayout>
  );
}
