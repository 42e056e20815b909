/**
 * The confirmation page behind `confirmation_url`, and the payment page after it. A person sees
 * the lawyer, the time in the lawyer's zone (and their own, with JavaScript), the price with its
 * breakdown, and the time left; then signs in, confirms and pays.
 */
import type { ComponentChildren } from 'preact';
import type { Quote } from '../../domain/booking/quote.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm, euros } from '../ui/components.tsx';
import { formatDay, formatInstant, formatTime } from '../../i18n/format.ts';
import { zoneName } from '../../i18n/reference.ts';
import { Layout } from '../ui/layout.tsx';
import { SignInPage } from '../account/sign-in.page.tsx';

export interface HoldSummary {
  token: string;
  lawyer: { id: string; name: string; city: string; timezone: string };
  date: string;
  startTime: string;
  endTime: string;
  startsAtIso: string;
  expiresAtIso: string;
  quote: Quote;
  secondsLeft: number;
}

/** Lawyer, time (lawyer's zone, and the visitor's with JavaScript), price breakdown, time left. */
export function HoldFacts({ ctx, hold, showTimeLeft, paid }: { ctx: SiteContext; hold: HoldSummary; showTimeLeft: boolean; paid?: boolean }) {
  const { t } = ctx;
  const q = hold.quote;
  return (
    <>
      <dl class="facts">
        <dt>{t.confirm.lawyer}</dt>
        <dd>
          <a href={`/lawyers/${hold.lawyer.id}`}>{hold.lawyer.name}</a> · {hold.lawyer.city}
        </dd>
        <dt>{t.confirm.when}</dt>
        <dd>
          {formatDay(hold.date, ctx.locale)}, {formatTime(hold.startTime)}–{formatTime(hold.endTime)}
          <span class="meta"> ({t.confirm.lawyerTime(zoneName(ctx.locale, hold.lawyer.timezone))})</span>
          <br />
          <time data-local datetime={hold.startsAtIso}>
            <span class="meta" data-local-out data-prefix={t.confirm.yourTime} hidden></span>
          </time>
        </dd>
        {showTimeLeft ? (
          <>
            <dt>{t.confirm.heldFor}</dt>
            <dd>
              <span class="countdown" data-countdown data-deadline={hold.expiresAtIso}>
                {t.confirm.minutes(Math.max(0, Math.floor(hold.secondsLeft / 60)))}
              </span>{' '}
              <span class="meta">({t.confirm.until(formatInstant(hold.expiresAtIso, hold.lawyer.timezone, ctx.locale))})</span>
            </dd>
          </>
        ) : null}
      </dl>
      <table class="breakdown">
        <caption class="visually-hidden">{t.confirm.priceCaption}</caption>
        <tbody>
          <tr>
            <th scope="row">{paid ? t.account.paid : t.confirm.youPay}</th>
            <td>
              <strong>{euros(q.totalCents, ctx.locale)}</strong>
            </td>
          </tr>
          <tr>
            <td>{t.confirm.toLawyer}</td>
            <td>{euros(q.lawyerPayoutCents, ctx.locale)}</td>
          </tr>
          <tr>
            <td>{t.confirm.platformShare(q.commissionPercent)}</td>
            <td>{euros(q.platformShareCents, ctx.locale)}</td>
          </tr>
        </tbody>
      </table>
      <p class="meta">{t.confirm.priceNote}</p>
    </>
  );
}

export type ConfirmState = 'payable' | 'too_late' | 'expired' | 'confirmed' | 'in_progress';

export interface ConfirmPageProps {
  ctx: SiteContext;
  hold: HoldSummary;
  state: ConfirmState;
  /** The signed-in person owns the confirmed consultation (a link to it is shown). */
  consultationId?: string | null;
  /** Why the person is back here (`voided`: the hold lapsed while paying; nothing was charged). */
  flash?: 'voided' | 'confirmed' | null;
  emailError?: string | null;
  email?: string;
}

export function ConfirmPage({ ctx, hold, state, consultationId, flash, emailError, email }: ConfirmPageProps) {
  const { t } = ctx;
  const payPath = `/confirm/${hold.token}/pay`;
  let status: ComponentChildren;
  if (state === 'confirmed') {
    status = (
      <Notice kind="ok" role="status">
        <p>
          <strong>{t.confirm.confirmed}</strong>
        </p>
        <p>{t.confirm.confirmedNext}</p>
        {consultationId ? (
          <p>
            <a href={`/consultations/${consultationId}`}>{t.confirm.seeConsultation}</a>
          </p>
        ) : null}
      </Notice>
    );
  } else if (state === 'expired') {
    status = (
      <Notice kind="warn" role="status">
        <p>
          <strong>{flash === 'voided' ? t.confirm.voided : t.confirm.expired}</strong>
        </p>
        <p>
          <a href={`/lawyers/${hold.lawyer.id}/book`}>{t.confirm.chooseAnother}</a>
        </p>
      </Notice>
    );
  } else if (state === 'too_late') {
    status = (
      <Notice kind="warn" role="status">
        <p>
          <strong>{t.confirm.tooLate}</strong>
        </p>
        <p>
          <a href={`/lawyers/${hold.lawyer.id}/book`}>{t.confirm.chooseAnother}</a>
        </p>
      </Notice>
    );
  } else if (state === 'in_progress') {
    status = (
      <Notice kind="warn" role="status">
        <p>{t.confirm.inProgress}</p>
      </Notice>
    );
  }
  return (
    <Layout ctx={ctx} title={t.confirm.title} narrow>
      <h1>{state === 'confirmed' ? t.confirm.titleConfirmed : t.confirm.title}</h1>
      {status}
      <HoldFacts ctx={ctx} hold={hold} showTimeLeft={state === 'payable' || state === 'in_progress'} paid={state === 'confirmed'} />
      {state === 'payable' ? (
        ctx.user ? (
          <p>
            <a class="button wide" href={payPath}>
              {t.confirm.confirmAndPay(euros(hold.quote.totalCents, ctx.locale))}
            </a>
          </p>
        ) : (
          <section aria-labelledby="signin-heading">
            <h2 id="signin-heading">{t.confirm.signInHeading}</h2>
            <p>{t.confirm.signInWhy}</p>
            <PostForm ctx={ctx} action="/sign-in" once>
              <input type="hidden" name="return_to" value={payPath} />
              <Field name="email" type="email" label={t.signIn.email} autocomplete="email" inputmode="email" required maxLength={254} value={email} error={emailError} hint={t.signIn.emailHint} />
              <button class="wide" type="submit">
                {t.signIn.sendCode}
              </button>
            </PostForm>
          </section>
        )
      ) : null}
    </Layout>
  );
}

export type CardError = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'invalid_number' | 'invalid_expiry' | 'invalid_cvc';

export interface PayPageProps {
  ctx: SiteContext;
  hold: HoldSummary;
  provider: 'demo' | 'stripe';
  error?: CardError | null;
  values?: { expiry?: string; name?: string };
}

/** The payment step: the demo card form on our origin, or the button to Stripe's hosted Checkout. */
export function PayPage({ ctx, hold, provider, error, values }: PayPageProps) {
  const { t } = ctx;
  const total = euros(hold.quote.totalCents, ctx.locale);
  const fieldError = (field: 'number' | 'expiry' | 'cvc'): string | null => {
    if (!error) return null;
    if (field === 'number' && (error === 'invalid_number' || error === 'card_declined' || error === 'insufficient_funds')) return t.pay.errors[error];
    if (field === 'expiry' && (error === 'invalid_expiry' || error === 'expired_card')) return t.pay.errors[error];
    if (field === 'cvc' && error === 'invalid_cvc') return t.pay.errors[error];
    return null;
  };
  return (
    <Layout ctx={ctx} title={t.pay.title} narrow>
      <h1>{t.pay.title}</h1>
      <HoldFacts ctx={ctx} hold={hold} showTimeLeft />
      {error ? (
        <Notice kind="bad" role="alert">
          <p>
            <strong>{t.pay.errors[error]}</strong> {t.pay.notCharged}
          </p>
        </Notice>
      ) : null}
      {provider === 'demo' ? (
        <section aria-labelledby="card-heading">
          <h2 id="card-heading">
            {t.pay.cardHeading} <span class="badge demo">{t.pay.demoBadge}</span>
          </h2>
          <Notice kind="warn">
            <p>{t.pay.demoExplain}</p>
            <p class="meta">{t.pay.demoCards}</p>
          </Notice>
          <PostForm ctx={ctx} action={`/confirm/${hold.token}/pay`} once novalidate>
            <Field name="number" label={t.pay.number} autocomplete="cc-number" inputmode="numeric" maxLength={23} required error={fieldError('number')} hint={t.pay.numberHint} />
            <div class="grid two">
              <Field name="expiry" label={t.pay.expiry} autocomplete="cc-exp" inputmode="numeric" maxLength={7} required value={values?.expiry} error={fieldError('expiry')} hint={t.pay.expiryHint} />
              <Field name="cvc" label={t.pay.cvc} autocomplete="cc-csc" inputmode="numeric" maxLength={4} required error={fieldError('cvc')} />
            </div>
            <Field name="name" label={t.pay.name} autocomplete="cc-name" maxLength={100} value={values?.name} />
            <button class="wide" type="submit">
              {t.pay.payButton(total)}
            </button>
          </PostForm>
        </section>
      ) : (
        <PostForm ctx={ctx} action={`/confirm/${hold.token}/pay`} once>
          <p>{t.pay.stripeExplain}</p>
          <button class="wide" type="submit">
            {t.pay.stripeButton(total)}
          </button>
        </PostForm>
      )}
      <p>
        <a href={`/confirm/${hold.token}`}>{t.pay.back}</a>
      </p>
    </Layout>
  );
}

export function TestModePage({ ctx }: { ctx: SiteContext }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.testMode.title} narrow>
      <h1>{t.testMode.title}</h1>
      <p>{t.testMode.what}</p>
      <p>{t.testMode.nothing}</p>
      <p>{t.testMode.switch}</p>
    </Layout>
  );
}

/** A paid booking opened signed out: the sign-in page, saying why, and back here afterwards. Nothing of the booking. */
export function SignInToSeePage({ ctx, returnTo }: { ctx: SiteContext; returnTo: string }) {
  return <SignInPage ctx={ctx} returnTo={returnTo} notice={ctx.t.confirm.privateSignIn} />;
}

/** A paid booking opened by another account: says so and offers to sign in as the right one. Nothing of the booking. */
export function OtherAccountPage({ ctx, returnTo }: { ctx: SiteContext; returnTo: string }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.confirm.otherAccountTitle} narrow>
      <h1>{t.confirm.otherAccountTitle}</h1>
      <p>{t.confirm.otherAccount(ctx.user?.email ?? '')}</p>
      <PostForm ctx={ctx} action="/sign-out">
        <input type="hidden" name="return_to" value={`/sign-in?return_to=${encodeURIComponent(returnTo)}`} />
        <button type="submit" class="wide">
          {t.confirm.switchAccount}
        </button>
      </PostForm>
      <p>
        <a href="/consultations">{t.layout.myConsultations}</a>
      </p>
    </Layout>
  );
}
