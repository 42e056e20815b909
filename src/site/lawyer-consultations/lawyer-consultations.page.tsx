/**
 * Her consultations as a lawyer (docs/lawyers.md#her-bookings): the list (upcoming, past), one
 * consultation (cancel with a reason, or record held / no-show), and her bookings feed's address.
 * They render what the routes hand them; they never query. Names and emails are escaped (JSX).
 */
import type { FeedState, LawyerConsultation, LawyerSelf } from '../../domain/booking/lawyer-consultations.service.ts';
import { dayAndTime, euros, formatInstant, formatTime } from '../../i18n/format.ts';
import { zoneName } from '../../i18n/reference.ts';
import { languagesText } from '../../domain/booking/who-comes.ts';
import { formatPhone } from '../../domain/booking/purchase.ts';
import { languageName } from '../../i18n/reference.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { PortalLayout } from '../lawyer/portal.pages.tsx';

const whenText = (ctx: SiteContext, c: LawyerConsultation) => `${dayAndTime(c.date, c.startTime, ctx.locale)}–${formatTime(c.endTime)}`;

function Done({ ctx, done }: { ctx: SiteContext; done?: string }) {
  const text = done ? ctx.t.lawyerBookings.done[done] : undefined;
  return text ? <Notice kind="ok" role="status">{text}</Notice> : null;
}

function StatusBadge({ ctx, status }: { ctx: SiteContext; status: string }) {
  const bad = status.startsWith('cancelled') || status === 'no_show';
  return <span class={bad ? 'badge badge-bad' : status === 'confirmed' ? 'badge badge-ok' : 'badge'}>{ctx.t.lawyerBookings.statuses[status] ?? status}</span>;
}

/**
 * Who comes and how (who-comes.ts): their languages, their mismatch answer, the format, the phone
 * number, her meeting link, the note with its language as a label (the note is theirs, verbatim:
 * `dir="auto"` and the detected `lang`), and the reference the person quotes.
 */
function Who({ ctx, who }: { ctx: SiteContext; who: LawyerConsultation['who'] }) {
  const t = ctx.t.lawyerBookings;
  const u = ctx.t.purchase;
  return (
    <dl class="facts who-comes">
      {who.languages.length > 0 ? (
        <>
          <dt>{t.languagesLabel}</dt>
          <dd>{t.reads(languagesText(ctx.locale, who.languages))}</dd>
        </>
      ) : null}
      {who.languageAck ? (
        <>
          <dt>{t.ackLabel}</dt>
          <dd>{t.ack[who.languageAck]}</dd>
        </>
      ) : null}
      <dt>{u.client.format}</dt>
      <dd>{who.format ? u.formats[who.format] : '—'}</dd>
      {who.phoneE164 ? (
        <>
          <dt>{u.client.phone}</dt>
          <dd dir="ltr">
            <a href={`tel:${who.phoneE164}`}>{formatPhone(who.phoneE164)}</a>
          </dd>
        </>
      ) : null}
      {who.meetingUrl ? (
        <>
          <dt>{t.meetingLink}</dt>
          <dd dir="ltr">
            <a href={who.meetingUrl} rel="noopener noreferrer">{who.meetingUrl}</a>
          </dd>
        </>
      ) : null}
      <dt>{u.client.note}</dt>
      <dd>
        {who.noteLanguage ? <span class="badge note-language">{t.noteIn(languageName(ctx.locale, who.noteLanguage))}</span> : null}
        {who.note ? (
          <blockquote class="note" dir="auto" lang={who.noteLanguage ?? undefined}>
            {who.note}
          </blockquote>
        ) : (
          <span>{u.client.noNote}</span>
        )}
      </dd>
      <dt>{t.reference}</dt>
      <dd class="mono" dir="ltr">
        {who.reference}
      </dd>
    </dl>
  );
}

function List({ ctx, items, empty }: { ctx: SiteContext; items: LawyerConsultation[]; empty: string }) {
  const t = ctx.t.lawyerBookings;
  if (items.length === 0) return <p>{empty}</p>;
  return (
    <ul class="cards">
      {items.map((c) => (
        <li class="card">
          <p class="key-title">
            <a href={`/lawyer/consultations/${c.id}`} aria-label={t.detailsOf(whenText(ctx, c))}>{whenText(ctx, c)}</a> <StatusBadge ctx={ctx} status={c.status} />
          </p>
          <p class="person-name">
            <strong>{c.person.name ?? t.noName}</strong>
          </p>
          <div class="meta">
            <a href={`mailto:${c.person.email}`}>{c.person.email}</a>
          </div>
          <Who ctx={ctx} who={c.who} />
        </li>
      ))}
    </ul>
  );
}

export interface FeedBox {
  state: FeedState | null;
  /** Whether the feed carries phone numbers, emails and notes (her switch; off by default). */
  privateDetails: boolean;
  /** Right after making an address: shown this once. */
  fresh?: { https: string; webcal: string };
}

function Feed({ ctx, feed }: { ctx: SiteContext; feed: FeedBox }) {
  const t = ctx.t.lawyerBookings;
  const f = t.feed;
  const when = (iso: string) => formatInstant(iso, 'Europe/Madrid', ctx.locale);
  return (
    <section aria-labelledby="feed-title">
      <h2 id="feed-title">{f.title}</h2>
      <p>{f.text}</p>
      {feed.fresh ? (
        <div class="notice warn secret-once" role="status">
          <p>
            <strong>{f.shownOnce}</strong>
          </p>
          <label class="label" for="feed-url">{f.httpsLabel}</label>
          <input id="feed-url" type="text" readonly value={feed.fresh.https} class="secret" spellcheck={false} autocomplete="off" />
          <p>
            <a href={feed.fresh.webcal}>{f.webcal}</a>
          </p>
        </div>
      ) : null}
      {feed.state ? (
        <p class="meta">
          {f.created(when(feed.state.createdAt))} {feed.state.lastFetchedAt ? f.lastFetched(when(feed.state.lastFetchedAt)) : f.neverFetched}
        </p>
      ) : (
        <p class="meta">{f.none}</p>
      )}
      <PostForm ctx={ctx} action="/lawyer/consultations/feed" once>
        {feed.state ? <p class="hint">{f.rotateNote}</p> : null}
        <button type="submit" class="secondary">{feed.state ? f.rotate : f.make}</button>
      </PostForm>
      <h3 id="feed-private-title">{t.privateTitle}</h3>
      <p id="feed-private-text">{t.privateText}</p>
      <PostForm ctx={ctx} action="/lawyer/consultations/feed/private">
        <div class="field checkbox">
          <input type="checkbox" id="f-private-details" name="private_details" value="on" checked={feed.privateDetails} aria-describedby="feed-private-text" />
          <label for="f-private-details">{t.privateLabel}</label>
        </div>
        <button type="submit" class="secondary">{t.save}</button>
      </PostForm>
    </section>
  );
}

export function LawyerConsultationsPage({ ctx, lawyer, upcoming, past, feed, done }: { ctx: SiteContext; lawyer: LawyerSelf; upcoming: LawyerConsultation[]; past: LawyerConsultation[]; feed: FeedBox; done?: string }) {
  const t = ctx.t.lawyerBookings;
  return (
    <PortalLayout ctx={ctx} title={t.title} current="consultations">
      <h1>{t.title}</h1>
      <Done ctx={ctx} done={done} />
      <p>
        {t.intro} {t.zone(zoneName(ctx.locale, lawyer.timezone))}
      </p>
      <h2>{t.upcoming}</h2>
      <List ctx={ctx} items={upcoming} empty={t.noneUpcoming} />
      <h2>{t.past}</h2>
      <List ctx={ctx} items={past} empty={t.nonePast} />
      <Feed ctx={ctx} feed={feed} />
    </PortalLayout>
  );
}

export interface CancelForm {
  reason: string;
  error?: string;
}

export function LawyerConsultationPage({ ctx, lawyer, consultation: c, done, form, problem }: { ctx: SiteContext; lawyer: LawyerSelf; consultation: LawyerConsultation; done?: string; form?: CancelForm; problem?: string }) {
  const t = ctx.t.lawyerBookings;
  const base = `/lawyer/consultations/${c.id}`;
  const cancellable = c.upcoming && c.status === 'confirmed';
  const markable = !c.upcoming && (c.status === 'confirmed' || c.status === 'held' || c.status === 'no_show');
  const title = t.detailTitle(whenText(ctx, c));
  return (
    <PortalLayout ctx={ctx} title={form?.error ? `${t.errorTitle} — ${title}` : title} current="consultations">
      <p>
        <a href="/lawyer/consultations">{t.back}</a>
      </p>
      <h1>{title}</h1>
      {form?.error ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">{t.errorTitle}</h2>
          <ul>
            <li>
              <a href="#f-reason">{form.error}</a>
            </li>
          </ul>
        </div>
      ) : null}
      {problem ? <Notice kind="bad" role="alert">{problem}</Notice> : null}
      <Done ctx={ctx} done={done} />
      <div class="facts-group">
        <dl class="facts">
          <dt>{t.when}</dt>
          <dd>
            {whenText(ctx, c)} ({zoneName(ctx.locale, lawyer.timezone)})
          </dd>
          <dt>{t.status}</dt>
          <dd>
            <StatusBadge ctx={ctx} status={c.status} />
          </dd>
          {c.statusReason ? (
            <>
              <dt>{t.reason}</dt>
              <dd>{c.statusReason}</dd>
            </>
          ) : null}
          <dt>{t.person}</dt>
          <dd>{c.person.name ?? t.noName}</dd>
          <dt>{t.email}</dt>
          <dd>
            <a href={`mailto:${c.person.email}`}>{c.person.email}</a>
          </dd>
        </dl>
        <Who ctx={ctx} who={c.who} />
        <dl class="facts">
          <dt>{t.fee}</dt>
          <dd>{euros(c.quote.totalCents, ctx.locale)}</dd>
          <dt>{t.payout}</dt>
          <dd>{euros(c.quote.lawyerPayoutCents, ctx.locale)}</dd>
          {c.refund ? (
            <>
              <dt>{t.refund}</dt>
              <dd>
                {euros(c.refund.amountCents, ctx.locale)} · {t.refundStatuses[c.refund.status]}
              </dd>
            </>
          ) : null}
        </dl>
      </div>
      {cancellable ? (
        <section aria-labelledby="cancel-title">
          <h2 id="cancel-title">{t.cancelTitle}</h2>
          <p>{t.cancelText}</p>
          <PostForm ctx={ctx} action={`${base}/cancel`} once novalidate>
            <div class="field">
              <label for="f-reason">{t.reasonLabel}</label>
              <textarea
                id="f-reason"
                name="reason"
                rows={4}
                maxLength={1000}
                required
                aria-invalid={form?.error ? 'true' : undefined}
                aria-describedby={form?.error ? 'f-reason-hint f-reason-error' : 'f-reason-hint'}
              >
                {form?.reason ?? ''}
              </textarea>
              <span class="hint" id="f-reason-hint">{t.reasonHint}</span>
              {form?.error ? <span class="field-error" id="f-reason-error">{form.error}</span> : null}
            </div>
            <button type="submit" class="danger">{t.cancelButton}</button>
          </PostForm>
        </section>
      ) : null}
      {markable ? (
        <section aria-labelledby="outcome-title">
          <h2 id="outcome-title">{t.outcomeTitle}</h2>
          <p>{t.outcomeText}</p>
          <div class="actions">
            <PostForm ctx={ctx} action={`${base}/outcome`}>
              <input type="hidden" name="outcome" value="held" />
              <button type="submit" class={c.status === 'held' ? 'secondary' : undefined} aria-pressed={c.status === 'held' ? 'true' : 'false'}>{t.heldButton}</button>
            </PostForm>
            <PostForm ctx={ctx} action={`${base}/outcome`}>
              <input type="hidden" name="outcome" value="no_show" />
              <button type="submit" class="secondary" aria-pressed={c.status === 'no_show' ? 'true' : 'false'}>{t.noShowButton}</button>
            </PostForm>
          </div>
        </section>
      ) : null}
    </PortalLayout>
  );
}
