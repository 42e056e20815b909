/** Sign-in pages: the email form, then the code form. */
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';
import { PasskeySignIn } from './passkeys.page.tsx';
import { euros, dayAndTime, formatTime } from '../../i18n/format.ts';
import { holdInstants, TimeLeft, type HoldSummary } from '../booking/confirm.page.tsx';
import { BookingScript, BothTimes } from '../booking/zone.tsx';

/** `notice`: why sign-in is asked for here (e.g. a paid booking that only its account may see). */
export function SignInPage({ ctx, returnTo, email, error, notice }: { ctx: SiteContext; returnTo: string | null; email?: string; error?: string | null; notice?: string }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.signIn.title} section="sign-in" narrow>
      <h1>{t.signIn.title}</h1>
      {notice ? (
        <Notice kind="warn" role="status">
          <p>{notice}</p>
        </Notice>
      ) : null}
      <p>{t.signIn.intro}</p>
      <PostForm ctx={ctx} action="/sign-in" once>
        {returnTo ? <input type="hidden" name="return_to" value={returnTo} /> : null}
        <Field name="email" type="email" label={t.signIn.email} autocomplete="username webauthn" inputmode="email" required maxLength={254} value={email} error={error} hint={t.signIn.emailHint} autofocus />
        <button class="wide" type="submit">
          {t.signIn.sendCode}
        </button>
      </PostForm>
      <PasskeySignIn ctx={ctx} returnTo={returnTo} />
    </Layout>
  );
}

export type CodeProblem = 'wrong_code' | 'locked' | 'expired' | 'used' | 'unknown' | 'other_browser';

/** This browser's pending sign-in as the code page shows it (null: none, or another browser's). */
export interface PendingSignIn {
  email: string;
  sendsLeft: number;
  sendsPerHour: number;
  /** The held booking the sign-in is for, while it can still be paid. */
  hold: HoldSummary | null;
}

export interface CodePageProps {
  ctx: SiteContext;
  challengeId: string | null;
  problem?: CodeProblem | null;
  attemptsLeft?: number;
  booking?: PendingSignIn | null;
  /** A new code was just sent. */
  resent?: boolean;
  /** "Send a new code" was refused by the limit: minutes until another may be asked for. */
  tooMany?: number | null;
}

/** The held booking beside the code form: lawyer, time, price and the time left. */
function HeldBooking({ ctx, hold }: { ctx: SiteContext; hold: HoldSummary }) {
  const { t } = ctx;
  const b = t.bookingPath;
  const { startMs, endMs } = holdInstants(hold);
  return (
    <section class="card code-booking" aria-labelledby="code-booking-heading">
      <h2 id="code-booking-heading">{b.codeBooking}</h2>
      <dl class="facts">
        <dt>{t.confirm.lawyer(null)}</dt>
        <dd>
          {hold.lawyer.name} · {hold.lawyer.city}
        </dd>
        <dt>{t.confirm.when}</dt>
        <dd>
          <BothTimes ctx={ctx} lawyerZone={hold.lawyer.timezone} startMs={startMs} endMs={endMs} lawyerText={`${dayAndTime(hold.date, hold.startTime, ctx.locale)}–${formatTime(hold.endTime)}`} />
        </dd>
        <dt>{t.confirm.youPay}</dt>
        <dd>{euros(hold.quote.totalCents, ctx.locale)}</dd>
        <dt>{b.timeLeftLabel}</dt>
        <dd>
          <TimeLeft ctx={ctx} hold={hold} />
        </dd>
      </dl>
    </section>
  );
}

/** "Send a new code", with how many more this hour; none left: says so instead of a button. */
function Resend({ ctx, booking }: { ctx: SiteContext; booking: PendingSignIn }) {
  const b = ctx.t.bookingPath;
  if (booking.sendsLeft <= 0) return <p class="meta">{b.resendNoneLeft(booking.sendsPerHour)}</p>;
  return (
    <PostForm ctx={ctx} action="/sign-in/resend" class="resend" once>
      <button type="submit" class="secondary" aria-describedby="resend-limit">
        {b.resend}
      </button>
      <span class="meta" id="resend-limit">
        {b.resendLimit(booking.sendsLeft, booking.sendsPerHour)}
      </span>
    </PostForm>
  );
}

export function CodePage({ ctx, challengeId, problem, attemptsLeft, booking, resent, tooMany }: CodePageProps) {
  const { t } = ctx;
  const b = t.bookingPath;
  const dead = problem === 'locked' || problem === 'expired' || problem === 'used' || problem === 'unknown' || !challengeId;
  const message =
    problem === 'wrong_code' ? t.signIn.wrongCode(attemptsLeft ?? 0)
    : problem === 'other_browser' ? t.signIn.otherBrowser
    : problem === 'locked' ? t.signIn.locked
    : problem === 'expired' ? t.signIn.expired
    : problem === 'used' ? t.signIn.used
    : problem === 'unknown' || !challengeId ? t.signIn.unknown
    : null;
  // Resending needs this browser's own challenge; a dead one can still be resent (same address).
  const canResend = booking && problem !== 'used' && problem !== 'other_browser';
  return (
    <Layout ctx={ctx} title={t.signIn.codeTitle} section="sign-in" narrow>
      <h1>{t.signIn.codeTitle}</h1>
      {tooMany ? (
        <Notice kind="bad" role="alert">
          <p>{b.resendTooMany(tooMany)}</p>
        </Notice>
      ) : resent && booking ? (
        <Notice kind="ok" role="status">
          <p>{b.resent(booking.email)}</p>
        </Notice>
      ) : null}
      {message ? (
        <Notice kind={problem === 'other_browser' ? 'warn' : 'bad'} role="alert">
          <p>{message}</p>
        </Notice>
      ) : (
        <p>{booking ? b.codeSentTo(booking.email) : t.signIn.codeIntro}</p>
      )}
      {booking?.hold ? <HeldBooking ctx={ctx} hold={booking.hold} /> : null}
      {dead && !canResend ? (
        <p>
          <a class="button" href="/sign-in">
            {t.signIn.startAgain}
          </a>
        </p>
      ) : dead ? null : (
        <PostForm ctx={ctx} action="/sign-in/code" once>
          <input type="hidden" name="challenge" value={challengeId} />
          <Field name="code" label={t.signIn.code} autocomplete="one-time-code" inputmode="numeric" maxLength={12} required class="code-input" hint={t.signIn.codeHint} error={problem === 'wrong_code' ? t.signIn.wrongCode(attemptsLeft ?? 0) : null} autofocus />
          <button class="wide" type="submit">
            {t.signIn.verify}
          </button>
        </PostForm>
      )}
      {canResend ? <Resend ctx={ctx} booking={booking} /> : null}
      <p class="meta">{t.signIn.noMail}</p>
      <p>
        <a href="/sign-in">{t.signIn.differentEmail}</a>
      </p>
      {booking?.hold ? <BookingScript ctx={ctx} /> : null}
    </Layout>
  );
}
