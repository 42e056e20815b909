/**
 * What is bought, before paying and after (issue 20 items 1–2; docs/site.md#what-is-bought):
 * small components each shared page inserts with one line — the offer (length, formats, price
 * breakdown, policy), the hold page's choices form, the choices on the payment page, and what
 * happens next (video link, office and map, the lawyer's call; the booking reference; Add to
 * calendar). The rules are src/domain/booking/purchase.ts and policy.ts; nothing is decided here.
 * The note is the person's own text: escaped like every string (Preact), shown with dir="auto".
 */
import { isCancelled, type Consultation } from '../../domain/booking/consultations.service.ts';
import { personPolicy, type PolicyState } from '../../domain/booking/policy.ts';
import { calendarLinks, effectiveFormat, formatPhone, NOTE_MAX, offeredFormats, type ChoiceError, type ConsultationFormat, type LawyerOffer } from '../../domain/booking/purchase.ts';
import type { Quote } from '../../domain/booking/quote.ts';
import type { SiteContext } from '../context.ts';
import type { ComponentChildren } from 'preact';
import { Notice, euros } from '../ui/components.tsx';
import { colon } from '../../i18n/format.ts';
import { Bidi } from '../ui/bidi.tsx';
import { formatNames } from '../lawyers/trust.tsx';
import { dayTimeIn, zoneName } from './visitor-zone.ts';
import { otherZone } from './zone.tsx';
import { PriceBreakdown, type HoldSummary } from './confirm.page.tsx';

/**
 * The cancellation policy (the `policy` section, one function: personPolicy). With a start, the
 * moment free cancellation ends, in the lawyer's zone and the visitor's when it differs.
 */
/** The one sentence of the policy that applies now: free cancellation until …, or the late warning; null when nothing applies. */
export function policyLine(ctx: SiteContext, state: PolicyState | null, lawyerZone: string | undefined): string | null {
  const p = ctx.t.policy;
  if (!state || !lawyerZone) return null;
  if (state.canCancelWithRefund) {
    const freeMs = Date.parse(state.freeUntil);
    const yours = otherZone(ctx, lawyerZone, freeMs);
    return p.freeUntil(`${dayTimeIn(freeMs, lawyerZone, ctx.locale)} (${zoneName(lawyerZone, ctx.locale)})${yours ? ` · ${dayTimeIn(freeMs, yours, ctx.locale)} (${zoneName(yours, ctx.locale)})` : ''}`);
  }
  return state.canCancelWithoutRefund ? p.late : null;
}

export function PolicyStatement({ ctx, startMs, nowMs, lawyerZone, status, state: given, level = 2 }: { ctx: SiteContext; startMs?: number; nowMs?: number; lawyerZone?: string; status?: Consultation['status']; state?: PolicyState; level?: 2 | 3 }) {
  const p = ctx.t.policy;
  const state = given ?? (startMs !== undefined && nowMs !== undefined ? personPolicy(startMs, nowMs, status ?? 'confirmed') : null);
  const line = policyLine(ctx, state, lawyerZone);
  return (
    <section class="policy" aria-label={p.title}>
      {level === 2 ? <h2 class="policy-title">{p.title}</h2> : <h3 class="policy-title">{p.title}</h3>}
      <p>{p.summary}</p>
      <p>{p.move}</p>
      {line ? (
        <p>
          <strong>{line}</strong>
        </p>
      ) : null}
    </section>
  );
}

/** The offer before choosing a time: length, formats, price breakdown and the policy (profile, free times). */
export function OfferSummary({ ctx, minutes, formats, quote }: { ctx: SiteContext; minutes: number; formats: readonly ConsultationFormat[]; quote: Quote }) {
  const u = ctx.t.purchase;
  return (
    <details class="offer-summary">
      <summary>
        {u.length(minutes)} · {formats.length > 0 ? formatNames(ctx, formats) : null} · {euros(quote.totalCents, ctx.locale)} · {ctx.t.policy.title}
      </summary>
      <dl class="facts">
        <dt>{u.lengthLabel}</dt>
        <dd>{u.length(minutes)}</dd>
        <dt>{u.formatLabel}</dt>
        <dd>{formats.map((f) => u.formats[f]).join(' · ')}</dd>
      </dl>
      <PriceBreakdown ctx={ctx} quote={quote} />
      <PolicyStatement ctx={ctx} />
    </details>
  );
}

export type ChoiceErrors = Partial<Record<'format' | 'phone' | 'note', ChoiceError>>;
export interface ChoiceValues {
  format?: string;
  phone?: string;
  note?: string;
}

/**
 * The hold page's form (signed in, payable): the format (radios when several; said when one),
 * the phone number (when phone is offered), the note; submitting stores them and goes to payment.
 */
export function ChoicesForm({ ctx, hold, offer, intent, values, errors, person }: { ctx: SiteContext; hold: HoldSummary; offer: LawyerOffer; intent: { format?: ConsultationFormat | null; note?: string | null; phone_e164?: string | null }; values?: ChoiceValues; errors?: ChoiceErrors; person?: ComponentChildren }) {
  const u = ctx.t.purchase;
  const formats = offeredFormats(offer);
  const chosen = values?.format ?? effectiveFormat(formats, intent.format) ?? '';
  const phone = values?.phone ?? (intent.phone_e164 ? formatPhone(intent.phone_e164) : '');
  const note = values?.note ?? intent.note ?? '';
  const message = (e: ChoiceError | undefined) => (e === 'note_too_long' ? u.errors.note_too_long(NOTE_MAX) : e ? u.errors[e] : null);
  const list = (['format', 'phone', 'note'] as const).filter((k) => errors?.[k]);
  return (
    <section class="choices" aria-labelledby="choices-heading">
      <h2 id="choices-heading">{u.heading}</h2>
      {list.length > 0 ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} data-error-summary data-focus="" autofocus>
          <h3 class="error-summary-title">{u.errorSummary}</h3>
          <ul>
            {list.map((k) => (
              <li>
                <a href={k === 'format' ? '#f-format-0' : `#f-${k}`}>{message(errors![k])}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <form method="post" action={`/confirm/${hold.token}/choices`} data-once="" novalidate>
        <input type="hidden" name="_csrf" value={ctx.csrfToken()} />
        {/* The person's name (asked once) and their answer to a language mismatch (src/site/lawyers/language-match.tsx). */}
        {person}
        {formats.length > 1 ? (
          <fieldset aria-describedby={errors?.format ? 'f-format-error' : undefined}>
            <legend>{u.formatLegend}</legend>
            <div class="checks">
              {formats.map((f, i) => (
                <label>
                  <input id={`f-format-${i}`} type="radio" name="format" value={f} checked={chosen === f} required aria-invalid={errors?.format ? 'true' : undefined} /> <span>{u.formats[f]}</span>
                </label>
              ))}
            </div>
            {errors?.format ? (
              <span class="field-error" id="f-format-error">
                {message(errors.format)}
              </span>
            ) : null}
          </fieldset>
        ) : formats.length === 1 ? (
          <dl class="facts">
            <dt>{u.formatLabel}</dt>
            <dd>
              {u.formats[formats[0]!]} <span class="meta">({u.onlyFormat})</span>
            </dd>
          </dl>
        ) : null}
        {formats.includes('phone') ? (
          <div class="field">
            <label for="f-phone">{u.phone}</label>
            <input
              id="f-phone"
              name="phone"
              type="tel"
              value={phone}
              autocomplete="tel"
              inputmode="tel"
              maxLength={40}
              dir="ltr"
              aria-invalid={errors?.phone ? 'true' : undefined}
              aria-describedby={['f-phone-hint', errors?.phone ? 'f-phone-error' : null].filter(Boolean).join(' ')}
            />
            <span class="hint" id="f-phone-hint">
              <Bidi ctx={ctx} text={u.phoneHint} />
            </span>
            {errors?.phone ? (
              <span class="field-error" id="f-phone-error">
                {message(errors.phone)}
              </span>
            ) : null}
          </div>
        ) : null}
        <div class="field">
          <label for="f-note">{u.note}</label>
          <textarea id="f-note" name="note" rows={4} maxLength={NOTE_MAX + 200} dir="auto" aria-invalid={errors?.note ? 'true' : undefined} aria-describedby={['f-note-hint', errors?.note ? 'f-note-error' : null].filter(Boolean).join(' ')}>
            {note}
          </textarea>
          <span class="hint" id="f-note-hint">
            {u.noteHint(NOTE_MAX)}
          </span>
          {errors?.note ? (
            <span class="field-error" id="f-note-error">
              {message(errors.note)}
            </span>
          ) : null}
        </div>
        <button class="wide" type="submit">
          {u.continue(euros(hold.quote.totalCents, ctx.locale))}
        </button>
      </form>
    </section>
  );
}

/** The choices as made, on the payment page (with a way back to change them) and the confirmed page. */
export function ChosenFacts({ ctx, minutes, format, phoneE164, note, changeHref }: { ctx: SiteContext; minutes: number; format: ConsultationFormat | null; phoneE164: string | null; note: string | null; changeHref?: string }) {
  const u = ctx.t.purchase;
  return (
    <dl class="facts chosen">
      <dt>{u.lengthLabel}</dt>
      <dd>{u.length(minutes)}</dd>
      {format ? (
        <>
          <dt>{u.formatLabel}</dt>
          <dd>
            {u.formats[format]}
            {changeHref ? (
              <>
                {' '}
                <a href={changeHref} class="meta">
                  ({ctx.t.bookingPath.zoneChange})
                </a>
              </>
            ) : null}
          </dd>
        </>
      ) : null}
      {format === 'phone' && phoneE164 ? (
        <>
          <dt>{u.phoneLabel}</dt>
          <dd dir="ltr">{formatPhone(phoneE164)}</dd>
        </>
      ) : null}
      {note ? (
        <>
          <dt>{u.noteLabel}</dt>
          <dd class="note" dir="auto">
            {note}
          </dd>
        </>
      ) : null}
    </dl>
  );
}

/** The payment page's summary of what is bought: the choices (with a way back to change them), and the policy. */
export function PayChoices({ ctx, token, offer, intent, startMs, nowMs, lawyerZone }: { ctx: SiteContext; token: string; offer: LawyerOffer; intent: { format?: ConsultationFormat | null; note?: string | null; phone_e164?: string | null }; startMs: number; nowMs: number; lawyerZone: string }) {
  const u = ctx.t.purchase;
  const format = effectiveFormat(offeredFormats(offer), intent.format);
  const back = `/confirm/${token}#choices-heading`;
  return (
    <>
      <ChosenFacts ctx={ctx} minutes={offer.consultation_minutes} format={format} phoneE164={intent.phone_e164 ?? null} note={intent.note ?? null} changeHref={back} />
      {format === 'phone' && !intent.phone_e164 ? (
        <Notice kind="warn">
          <p>
            {u.nextPhoneNone} <a href={`/confirm/${token}#f-phone`}>{u.phone}</a>
          </p>
        </Notice>
      ) : null}
      <PolicyStatement ctx={ctx} startMs={startMs} nowMs={nowMs} lawyerZone={lawyerZone} />
    </>
  );
}

/**
 * What happens next (the confirmed page, a consultation's page, My consultations): how to meet,
 * the booking reference, Add to calendar (Google, Outlook, the `.ics`), and the policy.
 */
export function WhatNext({ ctx, c, compact }: { ctx: SiteContext; c: Consultation; compact?: boolean }) {
  const u = ctx.t.purchase;
  const n = c.bought.next;
  const startMs = Date.parse(c.startsAt);
  const endMs = Date.parse(c.endsAt);
  // Nothing happens next once cancelled (issue 25 item 9): the reference, for support, and the
  // calendar file that withdraws the event for whoever added it from here.
  if (isCancelled(c)) {
    return (
      <div class="cancelled-facts">
        <p>
          {u.reference}
          {colon(ctx.locale)}
          <strong class="mono">{c.bought.reference}</strong>
        </p>
        <p>
          <a href={`/consultations/${c.id}.ics`} download>
            <Bidi ctx={ctx} text={ctx.t.account.removeFromCalendar} />
          </a>
        </p>
      </div>
    );
  }
  const link = `${ctx.origin}/confirm/${c.confirmationToken}`;
  const links = calendarLinks({
    title: ctx.t.mail.invitation.summary(c.lawyer.name),
    startMs,
    endMs,
    details: ctx.t.mail.invitation.description(c.lawyer.name, link),
    location: n.kind === 'in_person' ? n.address : null,
  });
  let how;
  if (n.kind === 'video') {
    how = (
      <>
        <p>{u.nextVideo}</p>
        {n.url ? (
          <p>
            <a class="button" href={n.url} rel="noopener noreferrer" target="_blank">
              {u.videoJoin}
            </a>
          </p>
        ) : (
          <p class="meta">{u.videoLater}</p>
        )}
      </>
    );
  } else if (n.kind === 'in_person') {
    how = (
      <p>
        {u.nextInPerson(n.address)}{' '}
        <a href={n.mapUrl} rel="noopener noreferrer">
          {u.map}
        </a>
      </p>
    );
  } else if (n.kind === 'phone') {
    how = (
      <p>
        <Bidi ctx={ctx} text={n.phone ? u.nextPhone(`\u2066${formatPhone(n.phone)}\u2069`) : u.nextPhoneNone} />
      </p>
    );
  } else how = <p>{u.nextUnknown}</p>;
  return (
    <section class="what-next" aria-labelledby={`next-${c.id}`}>
      {compact ? (
        <h4 id={`next-${c.id}`}>{u.nextHeading}</h4>
      ) : (
        <h2 id={`next-${c.id}`}>{u.nextHeading}</h2>
      )}
      <p class="meta">
        {u.length(c.bought.minutes)}
        {c.bought.format ? ` · ${u.formats[c.bought.format]}` : ''}
      </p>
      {how}
      <p>
        {u.reference}
        {colon(ctx.locale)}
        <strong class="mono">{c.bought.reference}</strong> <span class="meta">{compact ? null : u.referenceHint(c.lawyer.formOfAddress)}</span>
      </p>
      <div class="calendar-links">
        <span>
          {u.addToCalendar}
          {colon(ctx.locale).trimEnd()}
        </span>{' '}
        <a href={links.google} rel="noopener noreferrer">
          <Bidi ctx={ctx} text={u.google} />
        </a>{' '}
        ·{' '}
        <a href={links.outlook} rel="noopener noreferrer">
          <Bidi ctx={ctx} text={u.outlook} />
        </a>{' '}
        ·{' '}
        <a href={`/consultations/${c.id}.ics`} download>
          <Bidi ctx={ctx} text={u.ics} />
        </a>
      </div>
      {/* In a list the policy's state is the Move/Cancel links' line (consultation-change/links.tsx): said once. */}
      {compact ? null : <PolicyStatement ctx={ctx} state={c.policy} lawyerZone={c.lawyer.timezone} level={3} />}
    </section>
  );
}

/** For the lawyer (her portal): how the person chose to meet, their number, and their note (escaped, as written). */
export function ClientChoices({ ctx, bought }: { ctx: SiteContext; bought: { format: ConsultationFormat | null; phoneE164: string | null; note: string | null } }) {
  const u = ctx.t.purchase;
  return (
    <dl class="facts client-choices">
      <dt>{u.client.format}</dt>
      <dd>{bought.format ? u.formats[bought.format] : '—'}</dd>
      {bought.phoneE164 ? (
        <>
          <dt>{u.client.phone}</dt>
          <dd dir="ltr">
            <a href={`tel:${bought.phoneE164}`}>{formatPhone(bought.phoneE164)}</a>
          </dd>
        </>
      ) : null}
      <dt>{u.client.note}</dt>
      <dd class="note" dir="auto">
        {bought.note ?? u.client.noNote}
      </dd>
    </dl>
  );
}
