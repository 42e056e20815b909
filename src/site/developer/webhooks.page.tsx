/**
 * Webhook endpoint pages, for a person's own endpoints (`/developer/webhooks`) and a firm's
 * (`/firms/:slug/webhooks`): the list, the form to add one, the signing secret shown once (after
 * adding and after a rotation), one endpoint with its actions and its deliveries, the disable
 * confirmation, and one message with its attempts. They render what the routes hand them; they
 * never query. Response bodies and errors come from the receiver's server: untrusted text,
 * rendered escaped like everything else.
 */
import type { ComponentChildren } from 'preact';
import { WEBHOOK_EVENT_TYPES, type WebhookAttempt, type WebhookEndpoint, type WebhookMessage } from '../../domain/webhooks/types.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm } from '../ui/components.tsx';
import { DashboardLayout, FirmTabs, SecretOnce } from '../ui/dashboard.tsx';

/** Whose endpoints a page shows: the signed-in person's, or a firm's. */
export type WebhooksOwner = { kind: 'user'; base: '/developer' } | { kind: 'firm'; base: string; slug: string; name: string };

/** Values and errors of the form that adds an endpoint (as typed). */
export interface EndpointForm {
  url: string;
  events: string[];
  errors: Partial<Record<'url' | 'events' | 'form', string>>;
  /** The address policy's own words (host, address, range), shown under the URL error. */
  urlDetail?: string;
}

export const emptyEndpointForm = (): EndpointForm => ({ url: '', events: [...WEBHOOK_EVENT_TYPES], errors: {} });

/** A page-level notice (after a redirect, or a refusal). */
export type PageNotice = { kind: 'ok' | 'bad'; text: string };

const when = (ctx: SiteContext, iso: string) => formatInstant(iso, 'Europe/Madrid', ctx.locale);
const endpointUrl = (owner: WebhooksOwner, id: string) => `${owner.base}/webhooks/${id}`;
// The list shows a taste of each response; the message page shows all we kept (1 KiB).
const LIST_EXCERPT = 300;

function Frame({ ctx, owner, title, children }: { ctx: SiteContext; owner: WebhooksOwner; title: string; children: ComponentChildren }) {
  return (
    <DashboardLayout ctx={ctx} title={title} current={owner.kind === 'user' ? 'webhooks' : 'firms'}>
      {owner.kind === 'firm' ? (
        <>
          <p class="firm-name">{owner.name}</p>
          <FirmTabs ctx={ctx} slug={owner.slug} current="webhooks" />
        </>
      ) : null}
      {children}
    </DashboardLayout>
  );
}

function PageNoticeBox({ notice }: { notice?: PageNotice }) {
  if (!notice) return null;
  return (
    <Notice kind={notice.kind} role={notice.kind === 'ok' ? 'status' : 'alert'}>
      {notice.text}
    </Notice>
  );
}

function ErrorText({ id, text }: { id: string; text?: string }) {
  return text ? <span class="field-error" id={id}>{text}</span> : null;
}

function EnabledBadge({ ctx, endpoint }: { ctx: SiteContext; endpoint: WebhookEndpoint }) {
  const t = ctx.t.webhooks;
  return endpoint.enabled ? <span class="badge ok">{t.enabled}</span> : <span class="badge bad">{t.disabled}</span>;
}

/** Why an endpoint is disabled, in the page's language (the manual reason is the person's own words). */
function disabledText(ctx: SiteContext, endpoint: WebhookEndpoint): string | null {
  const t = ctx.t.webhooks;
  const d = endpoint.disabled;
  if (!d) return null;
  const at = when(ctx, d.at);
  return d.cause === 'gone' ? t.disabledGone(at) : d.cause === 'failures' ? t.disabledFailures(at, endpoint.consecutiveFailures) : t.disabledManual(at, d.reason);
}

function eventsText(ctx: SiteContext, endpoint: WebhookEndpoint): string {
  return endpoint.eventTypes === null ? ctx.t.webhooks.allEvents : endpoint.eventTypes.join(', ');
}

/**
 * An endpoint's facts. Marked `data-live-facts`: the deliveries fragment carries a fresh copy, so
 * the page's script updates "messages waiting", the failures and the status with the list (a
 * delivered message must not still read as waiting beside it).
 */
export function EndpointFacts({ ctx, endpoint }: { ctx: SiteContext; endpoint: WebhookEndpoint }) {
  const t = ctx.t.webhooks;
  const disabled = disabledText(ctx, endpoint);
  return (
    <dl class="facts" data-live-facts>
      <dt>{t.colUrl}</dt>
      <dd class="mono">{endpoint.url}</dd>
      <dt>{t.colEvents}</dt>
      <dd class={endpoint.eventTypes === null ? undefined : 'mono'}>{eventsText(ctx, endpoint)}</dd>
      <dt>{t.colStatus}</dt>
      <dd>
        <EnabledBadge ctx={ctx} endpoint={endpoint} />
        {disabled ? <span class="status-reason">{disabled}</span> : null}
      </dd>
      <dt>{t.colSecret}</dt>
      <dd>{endpoint.previousSecretExpiresAt ? t.rotating(when(ctx, endpoint.previousSecretExpiresAt)) : t.oneSecret}</dd>
      <dt>{t.colWaiting}</dt>
      <dd>{endpoint.pendingMessages}</dd>
      <dt>{t.colFailures}</dt>
      <dd>{endpoint.consecutiveFailures}</dd>
      <dt>{t.colCreated}</dt>
      <dd>{when(ctx, endpoint.createdAt)}</dd>
    </dl>
  );
}

export function WebhooksListPage({ ctx, owner, endpoints }: { ctx: SiteContext; owner: WebhooksOwner; endpoints: WebhookEndpoint[] }) {
  const t = ctx.t.webhooks;
  const title = owner.kind === 'firm' ? t.firmTitle(owner.name) : t.title;
  return (
    <Frame ctx={ctx} owner={owner} title={title}>
      <h1>{title}</h1>
      <p>{t.intro}</p>
      <p class="actions">
        <a class="button" href={`${owner.base}/webhooks/new`}>{t.add}</a>
      </p>
      {endpoints.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul class="cards webhook-list">
          {endpoints.map((endpoint) => {
            const disabled = disabledText(ctx, endpoint);
            return (
              <li class="card">
                <h2 class="endpoint-title">
                  <a href={endpointUrl(owner, endpoint.id)} class="mono">{endpoint.url}</a> <EnabledBadge ctx={ctx} endpoint={endpoint} />
                </h2>
                {disabled ? <p class="status-reason">{disabled}</p> : null}
                <dl class="facts">
                  <dt>{t.colEvents}</dt>
                  <dd class={endpoint.eventTypes === null ? undefined : 'mono'}>{eventsText(ctx, endpoint)}</dd>
                  <dt>{t.colSecret}</dt>
                  <dd>{endpoint.previousSecretExpiresAt ? t.rotating(when(ctx, endpoint.previousSecretExpiresAt)) : t.oneSecret}</dd>
                  <dt>{t.colWaiting}</dt>
                  <dd>{endpoint.pendingMessages}</dd>
                  <dt>{t.colCreated}</dt>
                  <dd>{when(ctx, endpoint.createdAt)}</dd>
                </dl>
              </li>
            );
          })}
        </ul>
      )}
    </Frame>
  );
}

export function NewEndpointPage({ ctx, owner, form }: { ctx: SiteContext; owner: WebhooksOwner; form: EndpointForm }) {
  const t = ctx.t.webhooks;
  const e = form.errors;
  const urlDescribedBy = ['f-url-hint', e.url ? 'f-url-error' : null, e.url && form.urlDetail ? 'f-url-detail' : null].filter(Boolean).join(' ');
  return (
    <Frame ctx={ctx} owner={owner} title={t.newTitle}>
      <h1>{t.newTitle}</h1>
      {Object.keys(e).length > 0 ? <Notice kind="bad" role="alert">{e.form ?? t.fixErrors}</Notice> : null}
      <PostForm ctx={ctx} action={`${owner.base}/webhooks`} once>
        <div class="field">
          <label for="f-url">{t.url}</label>
          <input
            id="f-url"
            name="url"
            type="url"
            value={form.url}
            required
            maxLength={2048}
            autocomplete="off"
            spellcheck={false}
            placeholder="https://"
            aria-invalid={e.url ? 'true' : undefined}
            aria-describedby={urlDescribedBy}
          />
          <span class="hint" id="f-url-hint">{t.urlHint}</span>
          <ErrorText id="f-url-error" text={e.url} />
          {e.url && form.urlDetail ? (
            <span class="hint" id="f-url-detail">
              {t.technicalDetail} <code>{form.urlDetail}</code>
            </span>
          ) : null}
        </div>
        <fieldset aria-describedby={e.events ? 'f-events-hint f-events-error' : 'f-events-hint'}>
          <legend>{t.events}</legend>
          <span class="hint" id="f-events-hint">{t.eventsHint}</span>
          <div class="checks">
            {WEBHOOK_EVENT_TYPES.map((type) => (
              <label>
                <input type="checkbox" name="events" value={type} checked={form.events.includes(type)} /> {t.eventNames[type]} <code>{type}</code>
              </label>
            ))}
          </div>
          <ErrorText id="f-events-error" text={e.events} />
        </fieldset>
        <div class="actions">
          <button type="submit">{t.create}</button>
          <a href={`${owner.base}/webhooks`}>{t.cancel}</a>
        </div>
      </PostForm>
    </Frame>
  );
}

/** The answer to adding an endpoint or rotating its secret: the secret, this once. */
export function SecretShownPage({ ctx, owner, endpoint, secret, rotated }: { ctx: SiteContext; owner: WebhooksOwner; endpoint: WebhookEndpoint; secret: string; rotated: boolean }) {
  const t = ctx.t.webhooks;
  const title = rotated ? t.rotatedTitle : t.createdTitle;
  return (
    <Frame ctx={ctx} owner={owner} title={title}>
      <h1>{title}</h1>
      <SecretOnce ctx={ctx} label={t.secretLabel} value={secret} warning={rotated ? t.rotatedWarning : t.secretWarning} />
      {rotated && endpoint.previousSecretExpiresAt ? <p>{t.rotatedOverlap(when(ctx, endpoint.previousSecretExpiresAt))}</p> : null}
      <p>{t.verifyHint}</p>
      <EndpointFacts ctx={ctx} endpoint={endpoint} />
      <p class="actions">
        <a class="button secondary" href={endpointUrl(owner, endpoint.id)}>{t.openEndpoint}</a>
        <a href={`${owner.base}/webhooks`}>{t.backToList}</a>
      </p>
    </Frame>
  );
}

function AttemptLine({ ctx, attempt, excerpt, open }: { ctx: SiteContext; attempt: WebhookAttempt; excerpt?: number; open?: boolean }) {
  const t = ctx.t.webhooks;
  const body = attempt.responseBody ?? '';
  const shown = excerpt !== undefined && body.length > excerpt ? `${body.slice(0, excerpt)}…` : body;
  return (
    <li class="attempt">
      <p class="attempt-head">
        <span class={attempt.success ? 'badge ok' : 'badge bad'}>{attempt.statusCode ?? t.noResponse}</span> <span>{t.attempt(attempt.attempt)}</span>
        {' · '}
        <time datetime={attempt.attemptedAt}>{when(ctx, attempt.attemptedAt)}</time>
        {' · '}
        <span>{t.durationMs(attempt.durationMs)}</span>
      </p>
      {attempt.error ? (
        <p class="attempt-error">
          {t.error}: <span class="mono">{attempt.error}</span>
        </p>
      ) : null}
      {shown !== '' ? (
        <details class="response" open={open} data-attempt={`${attempt.messageId}/${attempt.attempt}`}>
          <summary>{t.responseBody}</summary>
          <pre class="wrap">{shown}</pre>
        </details>
      ) : null}
    </li>
  );
}

/** The messages of a page of attempts, in the order their newest attempt appears. */
function groupByMessage(attempts: WebhookAttempt[]): WebhookAttempt[][] {
  const groups = new Map<string, WebhookAttempt[]>();
  for (const a of attempts) {
    const group = groups.get(a.messageId);
    if (group) group.push(a);
    else groups.set(a.messageId, [a]);
  }
  return [...groups.values()];
}

function MessageStatus({ ctx, status }: { ctx: SiteContext; status: string }) {
  const cls = status === 'delivered' ? 'badge ok' : status === 'dead' ? 'badge bad' : 'badge';
  return <span class={cls}>{ctx.t.webhooks.status[status] ?? status}</span>;
}

function RetryForm({ ctx, action }: { ctx: SiteContext; action: string }) {
  return (
    <PostForm ctx={ctx} action={action} once class="inline">
      <button type="submit" class="secondary">{ctx.t.webhooks.retry}</button>
    </PostForm>
  );
}

/** A short fingerprint of what the deliveries list shows, so the page's script replaces the list only when it changed. */
export function deliveriesVersion(endpoint: WebhookEndpoint, attempts: WebhookAttempt[], next: string | null): string {
  const text = [endpoint.enabled ? 'on' : 'off', next ?? '', ...attempts.map((a) => `${a.messageId}/${a.attempt}:${a.messageStatus}:${a.nextAttemptAt ?? ''}`)].join('|');
  // FNV-1a, 32 bits: not a secret, only a change detector.
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return `${attempts.length}-${hash.toString(36)}`;
}

export interface DeliveriesListProps {
  ctx: SiteContext;
  owner: WebhooksOwner;
  endpoint: WebhookEndpoint;
  attempts: WebhookAttempt[];
  /** Cursor of the next (older) page; null on the last one. */
  next: string | null;
  /** Whether this is a later page (a link back to the newest). */
  paged: boolean;
}

/**
 * An endpoint's deliveries: each message with its attempts, and the pager. The endpoint page
 * shows it, and `GET …/webhooks/:id/deliveries` answers it alone (an HTML fragment) for the
 * page's script, which swaps it in when its `data-live-version` changes.
 */
export function DeliveriesList({ ctx, owner, endpoint, attempts, next, paged }: DeliveriesListProps) {
  const t = ctx.t.webhooks;
  const url = endpointUrl(owner, endpoint.id);
  return (
    <div class="deliveries-list" data-live-version={deliveriesVersion(endpoint, attempts, next)}>
      {attempts.length === 0 ? (
        <p>{t.noDeliveries}</p>
      ) : (
        <ul class="cards delivery-list">
          {groupByMessage(attempts).map((group) => {
            const first = group[0]!;
            const messageUrl = `${url}/messages/${first.messageId}`;
            return (
              <li class="card">
                <h3 class="message-title">
                  <span>{t.eventNames[first.eventType] ?? first.eventType}</span> <MessageStatus ctx={ctx} status={first.messageStatus} />
                </h3>
                <p class="meta">
                  <a href={messageUrl} class="mono">{first.messageId}</a>
                  {first.messageStatus === 'pending' ? <> · {first.nextAttemptAt ? t.nextAttempt(when(ctx, first.nextAttemptAt)) : t.waitingForEnable}</> : null}
                </p>
                <ul class="attempts">
                  {group.map((attempt) => (
                    <AttemptLine ctx={ctx} attempt={attempt} excerpt={LIST_EXCERPT} />
                  ))}
                </ul>
                {first.messageStatus === 'dead' && endpoint.enabled ? <RetryForm ctx={ctx} action={`${messageUrl}/retry`} /> : null}
              </li>
            );
          })}
        </ul>
      )}
      {next || paged ? (
        <nav class="pager" aria-label={t.deliveries}>
          {paged ? <a href={`${url}#deliveries`}>{t.newest}</a> : <span />}
          {next ? <a href={`${url}?before=${encodeURIComponent(next)}#deliveries`}>{t.older}</a> : null}
        </nav>
      ) : null}
    </div>
  );
}

export interface EndpointDetailProps {
  ctx: SiteContext;
  owner: WebhooksOwner;
  endpoint: WebhookEndpoint;
  attempts: WebhookAttempt[];
  /** Cursor of the next (older) page; null on the last one. */
  next: string | null;
  /** The cursor this page started from (a later page), or null for the newest. */
  paged: string | null;
  notice?: PageNotice;
}

export function EndpointDetailPage({ ctx, owner, endpoint, attempts, next, paged, notice }: EndpointDetailProps) {
  const t = ctx.t.webhooks;
  const url = endpointUrl(owner, endpoint.id);
  return (
    <Frame ctx={ctx} owner={owner} title={t.detailTitle}>
      <h1>{t.detailTitle}</h1>
      <PageNoticeBox notice={notice} />
      <EndpointFacts ctx={ctx} endpoint={endpoint} />

      <h2>{t.actions}</h2>
      <div class="endpoint-actions">
        <section class="card" aria-labelledby="a-test">
          <h3 id="a-test">{t.sendTest}</h3>
          {endpoint.enabled ? (
            <>
              <p class="hint">{t.sendTestHint}</p>
              <PostForm ctx={ctx} action={`${url}/test`} once>
                <button type="submit">{t.sendTest}</button>
              </PostForm>
            </>
          ) : (
            <p class="hint">{t.disabledNoTest}</p>
          )}
        </section>
        <section class="card" aria-labelledby="a-rotate">
          <h3 id="a-rotate">{t.rotate}</h3>
          <p class="hint">{t.rotateHint}</p>
          <PostForm ctx={ctx} action={`${url}/rotate`} once>
            <button type="submit" class="secondary">{t.rotate}</button>
          </PostForm>
        </section>
        <section class="card" aria-labelledby="a-state">
          {endpoint.enabled ? (
            <>
              <h3 id="a-state">{t.disable}</h3>
              <p class="hint">{t.disableWarning}</p>
              <a class="button danger" href={`${url}/disable`}>{t.disable}</a>
            </>
          ) : (
            <>
              <h3 id="a-state">{t.enable}</h3>
              <p class="hint">{t.enableHint}</p>
              <PostForm ctx={ctx} action={`${url}/enable`} once>
                <button type="submit">{t.enable}</button>
              </PostForm>
            </>
          )}
        </section>
      </div>

      <section
        class="deliveries"
        aria-labelledby="deliveries"
        data-live-url={paged ? undefined : `${url}/deliveries`}
        data-live-on={t.liveOn}
        data-live-updated={t.liveUpdated}
        data-live-stopped={t.liveStopped}
      >
        <h2 id="deliveries">{t.deliveries}</h2>
        <p>{t.deliveriesIntro}</p>
        {/*
          Without JavaScript (or once the script has stopped) this reloads the page at the list. The
          `r` value (this answer's own, ignored by the route) makes the link differ from the page's
          address: a link that differs only by its #fragment scrolls instead of reloading.
        */}
        <p class="live-line">
          <a href={`${url}?${paged ? `before=${encodeURIComponent(paged)}&` : ''}r=${ctx.requestId.slice(-8)}#deliveries`}>{t.refresh}</a>{' '}
          <span class="hint live-status" data-live-status role="status" hidden></span>
        </p>
        <div data-live-target>
          <DeliveriesList ctx={ctx} owner={owner} endpoint={endpoint} attempts={attempts} next={next} paged={paged !== null} />
        </div>
      </section>
      <p>
        <a href={`${owner.base}/webhooks`}>{t.backToList}</a>
      </p>
      {paged ? null : <script src={ctx.asset('live-deliveries.js')} defer></script>}
    </Frame>
  );
}

export function DisableEndpointPage({ ctx, owner, endpoint, reason = '', errors = {} }: { ctx: SiteContext; owner: WebhooksOwner; endpoint: WebhookEndpoint; reason?: string; errors?: { reason?: string; confirm?: string } }) {
  const t = ctx.t.webhooks;
  const url = endpointUrl(owner, endpoint.id);
  return (
    <Frame ctx={ctx} owner={owner} title={t.disableTitle}>
      <h1>{t.disableTitle}</h1>
      {errors.reason || errors.confirm ? <Notice kind="bad" role="alert">{t.fixErrors}</Notice> : null}
      <p class="mono">{endpoint.url}</p>
      <Notice kind="warn">{t.disableWarning}</Notice>
      <PostForm ctx={ctx} action={`${url}/disable`} once>
        <Field name="reason" label={t.disableReason} hint={t.disableReasonHint} value={reason} maxLength={500} error={errors.reason} required autocomplete="off" />
        <div class="checks field">
          <label>
            <input type="checkbox" name="confirm" value="yes" required aria-invalid={errors.confirm ? 'true' : undefined} aria-describedby={errors.confirm ? 'f-confirm-error' : undefined} />{' '}
            {t.disableConfirm}
          </label>
          <ErrorText id="f-confirm-error" text={errors.confirm} />
        </div>
        <div class="actions">
          <button type="submit" class="danger">{t.disable}</button>
          <a href={url}>{t.cancel}</a>
        </div>
      </PostForm>
    </Frame>
  );
}

export function WebhookMessagePage({ ctx, owner, endpoint, message, notice }: { ctx: SiteContext; owner: WebhooksOwner; endpoint: WebhookEndpoint; message: WebhookMessage; notice?: PageNotice }) {
  const t = ctx.t.webhooks;
  const url = endpointUrl(owner, endpoint.id);
  return (
    <Frame ctx={ctx} owner={owner} title={t.messageTitle}>
      <h1>{t.messageTitle}</h1>
      <PageNoticeBox notice={notice} />
      <dl class="facts">
        <dt>{t.messageId}</dt>
        <dd class="mono">{message.id}</dd>
        <dt>{t.eventType}</dt>
        <dd>
          {t.eventNames[message.eventType] ?? message.eventType} <code>{message.eventType}</code>
        </dd>
        <dt>{t.eventId}</dt>
        <dd class="mono">{message.eventId}</dd>
        <dt>{t.colStatus}</dt>
        <dd>
          <MessageStatus ctx={ctx} status={message.status} />
          {message.status === 'pending' ? <span class="status-reason">{message.nextAttemptAt ? t.nextAttempt(when(ctx, message.nextAttemptAt)) : t.waitingForEnable}</span> : null}
        </dd>
        <dt>{t.attemptsMade}</dt>
        <dd>{message.attempts}</dd>
        <dt>{t.createdAt}</dt>
        <dd>{when(ctx, message.createdAt)}</dd>
        {message.deliveredAt ? (
          <>
            <dt>{t.deliveredAt}</dt>
            <dd>{when(ctx, message.deliveredAt)}</dd>
          </>
        ) : null}
        <dt>{t.colUrl}</dt>
        <dd class="mono">{endpoint.url}</dd>
      </dl>
      {message.status === 'dead' ? (
        endpoint.enabled ? (
          <>
            <p class="hint">{t.retryHint}</p>
            <RetryForm ctx={ctx} action={`${url}/messages/${message.id}/retry`} />
          </>
        ) : (
          <p>{t.retryRefused}</p>
        )
      ) : null}
      <h2>{t.attempts}</h2>
      {message.history.length === 0 ? (
        <p>{t.noAttempts}</p>
      ) : (
        <ul class="attempts">
          {message.history.map((attempt) => (
            <AttemptLine ctx={ctx} attempt={attempt} open />
          ))}
        </ul>
      )}
      <p>
        <a href={url}>{t.backToEndpoint}</a>
      </p>
    </Frame>
  );
}
