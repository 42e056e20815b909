/**
 * The booking widget's frame (docs/widget.md): small server-rendered pages shown inside an
 * iframe on another site. No cookies, no inline script or style; one stylesheet, an optional
 * theme stylesheet (the embedder's colour and radius), one script file. Everything the frame
 * needs to keep between pages travels in its links (`carry`).
 */
import type { ComponentChildren } from 'preact';
import type { AvailabilityResponse, LawyerSummary } from '../../contract/directory.ts';
import { euros, formatDay, formatTime } from '../../i18n/format.ts';
import { textDirection, type Locale, type Messages } from '../../i18n/index.ts';
import { zoneName } from '../booking/visitor-zone.ts';
import type { WeekStrip } from '../lawyers/week-strip.ts';
import { WeekStripNav } from '../lawyers/week-strip-nav.tsx';

export interface FrameContext {
  locale: Locale;
  t: Messages;
  /** Hashed URLs of the frame's stylesheet and script. */
  css: string;
  js: string;
  /** `/embed/theme.css?…` when the embedder chose a colour or radius. */
  theme: string | null;
  /** The embedding page's origin, checked against the key's list: where events go (null: none). */
  host: string | null;
  /** The embedder's id for this widget (several on one page), echoed in events. */
  wid: string;
  /** `_blank` (default) or `_top`: where confirming and paying continue. */
  continueTarget: '_blank' | '_top';
  siteUrl: string;
}

export function FrameLayout({ ctx, title, children }: { ctx: FrameContext; title: string; children: ComponentChildren }) {
  return (
    <html lang={ctx.locale} dir={textDirection(ctx.locale)}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="strict-origin" />
        <title>{`${title} · Consulta`}</title>
        <link rel="stylesheet" href={ctx.css} />
        {ctx.theme ? <link rel="stylesheet" href={ctx.theme} /> : null}
        <script src={ctx.js} defer />
      </head>
      <body data-host={ctx.host ?? ''} data-wid={ctx.wid}>
        <main class="w-main" aria-label={ctx.t.widget.frameTitle}>
          {children}
        </main>
        <footer class="w-foot">
          <a href={ctx.siteUrl} target="_blank" rel="noopener">
            {ctx.t.widget.poweredBy}
          </a>
        </footer>
      </body>
    </html>
  );
}

/** A message instead of the booker: the key is off, a secret key was given, the settings are wrong, too many requests. */
export function MessageView({ ctx, title, text, findLink }: { ctx: FrameContext; title: string; text: string; findLink?: boolean }) {
  return (
    <FrameLayout ctx={ctx} title={title}>
      <div class="w-message" role="alert">
        <h1>{title}</h1>
        <p>{text}</p>
        {findLink ? (
          <p>
            <a href={`${ctx.siteUrl}/?lang=${ctx.locale}`} target="_blank" rel="noopener">
              {ctx.t.widget.findOnConsulta} <span class="w-hint">{ctx.t.widget.newTab}</span>
            </a>
          </p>
        ) : null}
      </div>
    </FrameLayout>
  );
}

export interface BookerProps {
  ctx: FrameContext;
  availability: AvailabilityResponse;
  strip: WeekStrip;
  /** Links within the frame (they carry the widget's settings). */
  dayLink: (date: string) => string;
  prev: string | null;
  next: string | null;
  holdAction: string;
  nonce: string;
  taken: boolean;
  back: string | null;
}

/** One lawyer's free times: a week of days, the chosen day's times as buttons of one form. */
export function BookerView({ ctx, availability: a, strip, dayLink, prev, next, holdAction, nonce, taken, back }: BookerProps) {
  const { t } = ctx;
  const w = t.widget;
  const sel = strip.days.find((d) => d.date === strip.selected) ?? null;
  return (
    <FrameLayout ctx={ctx} title={t.book.title(a.lawyer_name)}>
      {back ? (
        <p class="w-back">
          <a href={back}>{w.backToList}</a>
        </p>
      ) : null}
      <h1>{a.lawyer_name}</h1>
      <p class="w-price">
        <strong>{euros(a.consultation_fee_cents, ctx.locale)}</strong> {t.lawyer.perConsultation} · {t.purchase.length(a.consultation_minutes)}
      </p>
      <p class="w-note">{t.bookingPath.timesNote(null, zoneName(a.timezone, ctx.locale))}</p>
      {taken ? (
        <p class="w-alert" role="alert">
          {w.taken}
        </p>
      ) : null}
      <h2>{w.chooseTime}</h2>
      <WeekStripNav ctx={ctx} strip={strip} dayLink={dayLink} prev={prev} next={next} />
      {sel ? (
        <form method="post" action={holdAction}>
          <input type="hidden" name="nonce" value={nonce} />
          <h3>{formatDay(sel.date, ctx.locale)}</h3>
          <ul class="w-times">
            {sel.slots.map((s) => (
              <li>
                <button type="submit" name="slot" value={`${s.date}|${s.start_time}|${s.end_time}`} aria-label={t.book.holdLabel(formatDay(s.date, ctx.locale), formatTime(s.start_time))}>
                  {formatTime(s.start_time)}
                </button>
              </li>
            ))}
          </ul>
        </form>
      ) : (
        <p>{w.noTimes}</p>
      )}
    </FrameLayout>
  );
}

/** A firm's lawyers or a search preset's: each links to her booker inside the frame. */
export function ListView({ ctx, lawyers, link, remote }: { ctx: FrameContext; lawyers: LawyerSummary[]; link: (id: string) => string; remote: boolean }) {
  const w = ctx.t.widget;
  return (
    <FrameLayout ctx={ctx} title={w.lawyersTitle}>
      <h1>{w.lawyersTitle}</h1>
      {remote ? <p class="w-note">{w.remote}</p> : null}
      {lawyers.length === 0 ? <p>{w.noLawyers}</p> : null}
      <ul class="w-list">
        {lawyers.map((l) => (
          <li>
            <h2>{l.name}</h2>
            <p class="w-price">
              {l.city} · <strong>{euros(l.consultation_fee_cents, ctx.locale)}</strong> {ctx.t.lawyer.perConsultation}
            </p>
            <p class="w-note">{l.next_available ? w.nextFree(formatDay(l.next_available, ctx.locale)) : w.noneFree}</p>
            {l.next_available ? (
              <a class="w-button" href={link(l.id)}>
                {w.seeTimes(l.name)}
              </a>
            ) : null}
          </li>
        ))}
      </ul>
    </FrameLayout>
  );
}

export interface HeldProps {
  ctx: FrameContext;
  lawyerName: string | null;
  lawyerId: string;
  intentId: string | null;
  date: string;
  startTime: string;
  endTime: string;
  status: 'pending' | 'confirmed' | 'expired';
  expiresAt: string;
  /** Seconds left now (the script counts down from `expiresAt`). */
  secondsLeft: number;
  minutes: number;
  confirmationUrl: string | null;
  statusUrl: string | null;
  again: string;
  another: string;
  /** A test key's "hold": nothing held (docs/widget.md#test-mode). */
  test: boolean;
}

const mmss = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/**
 * After holding: continue at top level (a new tab) to sign in and pay; meanwhile the frame waits
 * and learns the outcome (the script polls `statusUrl`; without script, "Check again"). The three
 * outcomes are all in the page, the current one shown, so the script only switches `hidden`.
 */
export function HeldView(p: HeldProps) {
  const { ctx } = p;
  const w = ctx.t.widget;
  const when = `${formatDay(p.date, ctx.locale)}, ${formatTime(p.startTime)}`;
  return (
    <FrameLayout ctx={ctx} title={p.test ? w.testTitle : w.heldTitle}>
      <div
        id="hold"
        data-intent={p.intentId ?? ''}
        data-lawyer={p.lawyerId}
        data-date={p.date}
        data-start={p.startTime}
        data-end={p.endTime}
        data-expires={p.expiresAt}
        data-status={p.status}
        data-test={p.test ? '1' : ''}
        data-poll={p.statusUrl ?? ''}
      >
        {p.test ? (
          <section>
            <h1>{w.testTitle}</h1>
            <p class="w-when">
              {p.lawyerName ? `${p.lawyerName} · ` : ''}
              {when}
            </p>
            <p>{w.test}</p>
            <p>
              <a href={`${ctx.siteUrl}/booking/test-mode?lang=${ctx.locale}`} target="_blank" rel="noopener">
                {w.testLink} <span class="w-hint">{w.newTab}</span>
              </a>
            </p>
          </section>
        ) : (
          <>
            <section data-state="pending" hidden={p.status !== 'pending'}>
              <h1>{w.heldTitle}</h1>
              <p class="w-when">
                {p.lawyerName ? `${p.lawyerName} · ` : ''}
                {when}
              </p>
              <p>{w.heldFor(p.minutes)}</p>
              <p>
                <a class="w-button" id="continue" href={p.confirmationUrl ?? '#'} target={ctx.continueTarget} rel="noopener">
                  {w.continueLink} {ctx.continueTarget === '_blank' ? <span class="w-hint">{w.newTab}</span> : null}
                </a>
              </p>
              <p class="w-wait" role="status">
                {w.waiting}
              </p>
              <p>
                {w.timeLeft}: <span id="countdown">{mmss(p.secondsLeft)}</span>
              </p>
              <p>
                <a href={p.again}>{w.checkAgain}</a>
              </p>
            </section>
            <section data-state="confirmed" hidden={p.status !== 'confirmed'} role="status">
              <h1>{w.confirmedTitle}</h1>
              <p class="w-when">
                {p.lawyerName ? `${p.lawyerName} · ` : ''}
                {when}
              </p>
              <p>{w.confirmed}</p>
            </section>
            <section data-state="expired" hidden={p.status !== 'expired'} role="status">
              <h1>{w.expiredTitle}</h1>
              <p>{w.expired}</p>
              <p>
                <a class="w-button" href={p.another}>
                  {w.chooseAnother}
                </a>
              </p>
            </section>
          </>
        )}
      </div>
    </FrameLayout>
  );
}
