/**
 * The confirmation page behind `confirmation_url`, and the payment page after it. A person sees
 * the lawyer, the time in the lawyer's zone (and their own, with JavaScript), the price with its
 * breakdown, and the time left; then signs in, confirms and pays.
 */
import type { ComponentChildren } from 'preact';
import type { Quote } from '../../domain/booking/quote.ts';
import type { SiteContext } from '../context.ts';
import { CsrfField, Field, Notice, PostForm, euros } from '../ui/components.tsx';
import { dayAndTime, formatTime, colon } from '../../i18n/format.ts';
import { timeIn, zoneName } from './visitor-zone.ts';
import { BookingScript, BothTimes, ZoneChooser } from './zone.tsx';
import { Layout } from '../ui/layout.tsx';
import { SignInPage } from '../account/sign-in.page.tsx';
import { ChooseAnotherTime, HoldNoticeBox, type HoldNotice } from './hold-limit.page.tsx';

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

/** Milliseconds from midnight of an `HH:MM:SS` time. */
const msOf = (time: string) => (Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5))) * 60_000;

/** The hold's start and end instants. */
export function holdInstants(hold: Pick<HoldSummary, 'startsAtIso' | 'startTime' | 'endTime'>): { startMs: number; endMs: number } {
  const startMs = Date.parse(hold.startsAtIso);
  return { startMs, endMs: startMs + msOf(hold.endTime) - msOf(hold.startTime) };
}

/**
 * The time left to confirm: "14 minutes left" from the server, "14:59 left" each second with
 * booking.js; and the moment it ends, in the visitor's zone when known (else the lawyer's).
 */
export function TimeLeft({ ctx, hold }: { ctx: SiteContext; hold: HoldSummary }) {
  const b = ctx.t.bookingPath;
  const zone = ctx.zone ?? hold.lawyer.timezone;
  return (
    <>
      <span class="countdown" data-time-left data-seconds={Math.max(0, hold.secondsLeft)} data-template={b.timeLeft}>
        {b.minutesLeft(Math.max(0, Math.floor(hold.secondsLeft / 60)))}
      </span>
      <span class="meta kept-until">{b.keptUntil(timeIn(Date.parse(hold.expiresAtIso), zone, ctx.locale), zoneName(zone, ctx.locale))}</span>
    </>
  );
}

/** Lawyer, time (lawyer's zone, and the visitor's when it differs), price breakdown, time left. */
export function HoldFacts({ ctx, hold, showTimeLeft, paid, compact }: { ctx: SiteContext; hold: HoldSummary; showTimeLeft: boolean; paid?: boolean; compact?: boolean }) {
  const { t } = ctx;
  const b = t.bookingPath;
  const q = hold.quote;
  const { startMs, endMs } = holdInstants(hold);
  return (
    <>
      <dl class="facts">
        <dt>{t.confirm.lawyer(null)}</dt>
        <dd>
          <a href={`/lawyers/${hold.lawyer.id}`}>{hold.lawyer.name}</a> · {hold.lawyer.city}
        </dd>
        <dt>{t.confirm.when}</dt>
        <dd>
          <BothTimes ctx={ctx} lawyerZone={hold.lawyer.timezone} startMs={startMs} endMs={endMs} lawyerText={`${dayAndTime(hold.date, hold.startTime, ctx.locale)}–${formatTime(hold.endTime)}`} />
        </dd>
        {showTimeLeft ? (
          <>
            <dt>{b.timeLeftLabel}</dt>
            <dd>
              <TimeLeft ctx={ctx} hold={hold} />
            </dd>
          </>
        ) : null}
        {compact ? (
          <>
            <dt>{paid ? t.account.paid : t.confirm.youPay}</dt>
            <dd>{euros(q.totalCents, ctx.locale)}</dd>
          </>
        ) : null}
      </dl>
      {compact ? null : <PriceBreakdown ctx={ctx} quote={q} paid={paid} />}
    </>
  );
}

/** What the person pays, and how it splits between the lawyer and Consulta. */
export function PriceBreakdown({ ctx, quote: q, paid }: { ctx: SiteContext; quote: Quote; paid?: boolean }) {
  const { t } = ctx;
  return (
    <>
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
  /** The visitor's own site hold (this browser made it, or they were signed in): they may let it go. */
  mine?: boolean;
  /** A replacement happened, their new choice was taken, or letting go was refused (hold-limit.page.tsx). */
  holdNotice?: HoldNotice | null;
  /** What is bought (src/site/booking/purchase.tsx): the length and policy before the choices, */
  before?: ComponentChildren;
  /** the choices form in place of the pay link (signed in, payable), */
  choices?: ComponentChildren;
  /** and what happens next once confirmed. */
  after?: ComponentChildren;
}

export function ConfirmPage({ ctx, hold, state, consultationId, flash, emailError, email, mine, holdNotice, before, choices, after }: ConfirmPageProps) {
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
    // The tab says what the heading says: it stayed "Confirm your consultation" after paying (issue 25 item 15).
    <Layout ctx={ctx} title={state === 'confirmed' ? t.confirm.titleConfirmed : t.confirm.title} narrow>
      <h1>{state === 'confirmed' ? t.confirm.titleConfirmed : t.confirm.title}</h1>
      {holdNotice && (state === 'payable' || state === 'in_progress') ? <HoldNoticeBox ctx={ctx} notice={holdNotice} /> : null}
      {status}
      <HoldFacts ctx={ctx} hold={hold} showTimeLeft={state === 'payable' || state === 'in_progress'} paid={state === 'confirmed'} />
      <ZoneChooser ctx={ctx} lawyerZone={hold.lawyer.timezone} reload />
      {before}
      {after}
      {state === 'payable' ? (
        ctx.user && choices ? (
          choices
        ) : ctx.user ? (
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
              {/* Back to this page, not to payment: signed in, it shows the choices (note, phone) first —
                  with one format offered there was nothing to choose, and the note step was skipped (issue 25 item 14). */}
              <input type="hidden" name="return_to" value={`/confirm/${hold.token}`} />
              <Field name="email" type="email" label={t.signIn.email} autocomplete="email" inputmode="email" required maxLength={254} value={email} error={emailError} hint={t.signIn.emailHint} />
              <button class="wide" type="submit">
                {t.signIn.sendCode}
              </button>
            </PostForm>
          </section>
        )
      ) : null}
      {state === 'payable' && mine ? <ChooseAnotherTime ctx={ctx} token={hold.token} /> : null}
      <BookingScript ctx={ctx} />
    </Layout>
  );
}

export type CardError = 'card_declined' | 'insufficient_funds' | 'expired_card' | 'invalid_number' | 'invalid_expiry' | 'invalid_cvc';

/** What the card form keeps after a server error: everything typed except the CVC. */
export interface CardValues {
  number?: string;
  expiry?: string;
  name?: string;
}

/** The card's network from its first digits (shown beside the number; booking.js does the same as it is typed). */
export function cardBrand(number: string): string | null {
  const d = number.replace(/\D/g, '');
  if (/^4/.test(d)) return 'Visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(d)) return 'Mastercard';
  if (/^3[47]/.test(d)) return 'American Express';
  if (/^(6011|65|64[4-9])/.test(d)) return 'Discover';
  if (/^3(0[0-5]|[689])/.test(d)) return 'Diners Club';
  if (/^35/.test(d)) return 'JCB';
  return null;
}

/** A card number in groups as printed: 4-4-4-4 (American Express 4-6-5). */
export function groupCardNumber(number: string): string {
  const d = number.replace(/\D/g, '').slice(0, 19);
  const groups = /^3[47]/.test(d) ? [4, 6, 5] : [4, 4, 4, 4, 3];
  const out: string[] = [];
  let at = 0;
  for (const g of groups) {
    if (at >= d.length) break;
    out.push(d.slice(at, at + g));
    at += g;
  }
  return out.join(' ');
}

export interface PayPageProps {
  ctx: SiteContext;
  hold: HoldSummary;
  provider: 'demo' | 'stripe';
  error?: CardError | null;
  values?: CardValues;
  /** What is bought (src/site/booking/purchase.tsx): the choices made on the hold page and the policy. */
  chosen?: ComponentChildren;
}

/** The field a server-side card error belongs to. */
function errorField(error: CardError): 'number' | 'expiry' | 'cvc' {
  if (error === 'invalid_expiry' || error === 'expired_card') return 'expiry';
  if (error === 'invalid_cvc') return 'cvc';
  return 'number';
}

/** A labelled card input (like Field) that booking.js formats and checks: `data-card` names it. */
function CardInput(p: { name: 'number' | 'expiry' | 'cvc'; label: string; hint?: string; error?: string | null; value?: string; autocomplete: string; maxLength: number; placeholder?: string; children?: ComponentChildren }) {
  const id = `f-${p.name}`;
  const describedBy = [p.hint || p.children ? `${id}-hint` : null, p.error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{p.label}</label>
      <input
        id={id}
        name={p.name}
        type="text"
        value={p.value ?? ''}
        required
        autocomplete={p.autocomplete}
        inputmode="numeric"
        maxLength={p.maxLength}
        placeholder={p.placeholder}
        spellcheck={false}
        data-card={p.name}
        aria-invalid={p.error ? 'true' : undefined}
        aria-describedby={describedBy}
      />
      {p.hint || p.children ? (
        <span class="hint" id={`${id}-hint`}>
          {p.hint}
          {p.children}
        </span>
      ) : null}
      {p.error ? <span class="field-error" id={`${id}-error`}>{p.error}</span> : null}
    </div>
  );
}

/**
 * The payment step: the demo card form on our origin (summary beside it on a desktop, above it on
 * a phone), or the button to Stripe's hosted Checkout. After a refused card the form comes back
 * with what was typed — except the CVC — and the error summary, which has the focus (autofocus
 * without JavaScript; booking.js focuses it too, and the summary of problems it finds itself).
 */
export function PayPage({ ctx, hold, provider, error, values, chosen }: PayPageProps) {
  const { t } = ctx;
  const b = t.bookingPath;
  const total = euros(hold.quote.totalCents, ctx.locale);
  const field = error ? errorField(error) : null;
  const fieldError = (name: 'number' | 'expiry' | 'cvc') => (error && field === name ? t.pay.errors[error] : null);
  const brand = values?.number ? cardBrand(values.number) : null;
  const legal = (
    <p class="meta checkout-legal">
      {b.legal}{' '}
      <a href="/legal/terms">{b.terms}</a> · <a href="/legal/privacy">{b.privacy}</a> · <a href="/legal/aviso-legal">{b.notice}</a>
    </p>
  );
  return (
    <Layout ctx={ctx} title={t.pay.title}>
      <h1>{t.pay.title}</h1>
      <div class="checkout">
        {/* On a phone the card fields must be in the first screen (issue 25 item 13): one line — who,
            when, how much — and the rest (already read on the hold page) behind "Details"; a
            <details> opens without JavaScript, and booking.js opens it where it sits beside the form. */}
        <section class="checkout-summary" aria-labelledby="summary-heading">
          <h2 id="summary-heading" class="visually-hidden">
            {b.summary}
          </h2>
          <details class="checkout-details" data-open-wide>
            <summary>
              <span class="checkout-line">
                <strong>{hold.lawyer.name}</strong> · {dayAndTime(hold.date, hold.startTime, ctx.locale)} · <strong>{total}</strong>
              </span>{' '}
              <span class="details-toggle">{b.details}</span>
            </summary>
            <p class="checkout-item">{b.consultationWith(hold.lawyer.name)}</p>
            <HoldFacts ctx={ctx} hold={hold} showTimeLeft={false} />
            <ZoneChooser ctx={ctx} lawyerZone={hold.lawyer.timezone} reload={!error} />
            {chosen}
          </details>
          <p class="meta checkout-time-left">
            <TimeLeft ctx={ctx} hold={hold} />
          </p>
        </section>
        <section class="checkout-pay" aria-labelledby="card-heading">
          {provider === 'demo' ? (
            <>
              <h2 id="card-heading">
                {t.pay.cardHeading} <span class="badge demo">{t.pay.demoBadge}</span>
              </h2>
              <div class="notice bad error-summary" id="card-errors" role="alert" tabindex={-1} data-error-summary data-focus={error ? '' : undefined} autofocus={error ? true : undefined} hidden={!error}>
                <h3 class="error-summary-title">{b.errorSummary}</h3>
                <ul data-error-list>
                  {error && field ? (
                    <li>
                      <a href={`#f-${field}`}>{t.pay.errors[error]}</a>
                    </li>
                  ) : null}
                </ul>
                {error ? <p data-server-note>{t.pay.notCharged}</p> : null}
              </div>
              <Notice kind="warn">
                <p>{t.pay.demoExplain}</p>
              </Notice>
              <form
                method="post"
                action={`/confirm/${hold.token}/pay`}
                data-once=""
                data-card-form=""
                novalidate
                data-msg-number={b.clientErrors.number}
                data-msg-expiry={b.clientErrors.expiry}
                data-msg-expired={b.clientErrors.expired}
                data-msg-cvc={b.clientErrors.cvc}
              >
                <CsrfField ctx={ctx} />
                <CardInput name="number" label={t.pay.number} autocomplete="cc-number" maxLength={23} value={values?.number ? groupCardNumber(values.number) : undefined} error={fieldError('number')} placeholder="1234 1234 1234 1234">
                  {b.cardBrand}
                  {colon(ctx.locale)}
                  <span class="card-brand" data-card-brand>{brand ?? '—'}</span>
                </CardInput>
                <div class="grid two">
                  <CardInput name="expiry" label={t.pay.expiry} autocomplete="cc-exp" maxLength={7} value={values?.expiry} error={fieldError('expiry')} hint={t.pay.expiryHint} />
                  <CardInput name="cvc" label={t.pay.cvc} autocomplete="cc-csc" maxLength={4} error={fieldError('cvc')} placeholder="123" />
                </div>
                <Field name="name" label={t.pay.name} autocomplete="cc-name" maxLength={100} value={values?.name} />
                <button class="wide pay-button" type="submit" data-paying={b.paying}>
                  {t.pay.payButton(total)}
                </button>
              </form>
              {/* Under the form, not above it: on a phone the card fields come first. */}
              <p class="meta">{t.pay.demoCards}</p>
              {legal}
            </>
          ) : (
            <>
              <h2 id="card-heading">{t.pay.cardHeading}</h2>
              <PostForm ctx={ctx} action={`/confirm/${hold.token}/pay`} once>
                <p>{t.pay.stripeExplain}</p>
                <button class="wide" type="submit">
                  {t.pay.stripeButton(total)}
                </button>
              </PostForm>
              {legal}
            </>
          )}
        </section>
      </div>
      <p>
        <a href={`/confirm/${hold.token}`}>{t.pay.back}</a>
      </p>
      <BookingScript ctx={ctx} />
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
