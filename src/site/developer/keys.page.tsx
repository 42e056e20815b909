/**
 * API key pages, for a person's own keys (`/developer/keys`) and a firm's (`/firms/:slug/keys`):
 * the list, the creation form, the secret shown once, one key, revocation, and for firm keys the
 * IP allow-list and suspension. They render what the routes hand them; they never query.
 */
import type { ComponentChildren } from 'preact';
import type { KeyStatus, ApiKeyRecord } from '../../domain/access/types.ts';
import { SCOPES } from '../../domain/access/types.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm } from '../ui/components.tsx';
import { DashboardLayout, FirmTabs, SecretOnce } from '../ui/dashboard.tsx';

/** Whose keys a page shows: the signed-in person's, or a firm's. */
export type KeysOwner = { kind: 'user'; base: '/developer' } | { kind: 'firm'; base: string; slug: string; name: string };

export interface KeyRow {
  key: ApiKeyRecord;
  status: KeyStatus;
  lastUsed: string | null;
  /** For firm keys: the creator's email, when known. */
  createdBy?: string | null;
}

/** Values and errors of the creation form (strings as typed, errors by field). */
export interface KeyForm {
  mode: string;
  name: string;
  scopes: string[];
  expires: string;
  allowList: string;
  errors: Partial<Record<'mode' | 'name' | 'scopes' | 'expires' | 'allowList', string>>;
}

/**
 * The creation form as first shown: a **test** key unless `mode` says live (the overview's "go
 * live" step links with ?mode=live). Test is the safe default: nothing it does is booked or
 * counted. The CLI keeps its documented default (live; `--test` for test), docs/dashboard.md.
 */
export const emptyKeyForm = (mode: 'live' | 'test' = 'test'): KeyForm => ({ mode, name: '', scopes: [...SCOPES], expires: '', allowList: '', errors: {} });

/** A key's title: the name its owner gave it, or a stand-in for keys without one. */
export const keyTitle = (ctx: SiteContext, key: Pick<ApiKeyRecord, 'name'>) => key.name ?? ctx.t.keys.unnamedKey;

const when = (ctx: SiteContext, iso: string | null, empty: string) => (iso ? formatInstant(iso, 'Europe/Madrid', ctx.locale) : empty);

function Frame({ ctx, owner, title, children }: { ctx: SiteContext; owner: KeysOwner; title: string; children: ComponentChildren }) {
  return (
    <DashboardLayout ctx={ctx} title={title} current={owner.kind === 'user' ? 'keys' : 'firms'}>
      {owner.kind === 'firm' ? (
        <>
          <p class="firm-name">{owner.name}</p>
          <FirmTabs ctx={ctx} slug={owner.slug} current="keys" />
        </>
      ) : null}
      {children}
    </DashboardLayout>
  );
}

export function ModeBadge({ ctx, mode }: { ctx: SiteContext; mode: 'live' | 'test' }) {
  return mode === 'test' ? <span class="badge test">{ctx.t.keys.test}</span> : <span class="badge">{ctx.t.keys.live}</span>;
}

export function StatusBadge({ ctx, status }: { ctx: SiteContext; status: KeyStatus }) {
  const cls = status === 'active' ? 'badge ok' : 'badge bad';
  return <span class={cls}>{ctx.t.keys.status[status]}</span>;
}

export function KeysListPage({ ctx, owner, rows, notice }: { ctx: SiteContext; owner: KeysOwner; rows: KeyRow[]; notice?: string }) {
  const t = ctx.t.keys;
  const title = owner.kind === 'firm' ? t.firmTitle(owner.name) : t.title;
  return (
    <Frame ctx={ctx} owner={owner} title={title}>
      <h1>{title}</h1>
      {notice ? <Notice kind="ok" role="status">{notice}</Notice> : null}
      <p>{t.intro}</p>
      <p class="actions">
        <a class="button" href={`${owner.base}/keys/new`}>{t.newKey}</a>
      </p>
      {rows.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul class="cards key-list">
          {rows.map(({ key, status, lastUsed, createdBy }) => (
            <li class="card">
              <h2 class="key-title">
                <a href={`${owner.base}/keys/${key.id}`}>{keyTitle(ctx, key)}</a> <ModeBadge ctx={ctx} mode={key.mode} /> <StatusBadge ctx={ctx} status={status} />
              </h2>
              <p class="key-prefix mono">{key.prefix}…</p>
              <dl class="facts">
                <KeyUseFacts ctx={ctx} row={{ key, lastUsed }} />
                {owner.kind === 'firm' ? (
                  <>
                    <dt>{t.colCreatedBy}</dt>
                    <dd>{createdBy ?? '—'}</dd>
                  </>
                ) : null}
              </dl>
            </li>
          ))}
        </ul>
      )}
    </Frame>
  );
}

function ErrorText({ id, text }: { id: string; text?: string }) {
  return text ? <span class="field-error" id={id}>{text}</span> : null;
}

export function NewKeyPage({ ctx, owner, form }: { ctx: SiteContext; owner: KeysOwner; form: KeyForm }) {
  const t = ctx.t.keys;
  const e = form.errors;
  const hasErrors = Object.keys(e).length > 0;
  return (
    <Frame ctx={ctx} owner={owner} title={t.newTitle}>
      <h1>{t.newTitle}</h1>
      {hasErrors ? <Notice kind="bad" role="alert">{t.fixErrors}</Notice> : null}
      <PostForm ctx={ctx} action={`${owner.base}/keys`} once>
        <fieldset aria-describedby={e.mode ? 'f-mode-error' : undefined}>
          <legend>{t.mode}</legend>
          <div class="checks">
            <label>
              <input type="radio" name="mode" value="test" checked={form.mode !== 'live'} /> {t.modeTest}
            </label>
            <label>
              <input type="radio" name="mode" value="live" checked={form.mode === 'live'} /> {t.modeLive}
            </label>
          </div>
          <ErrorText id="f-mode-error" text={e.mode} />
        </fieldset>
        <Field name="name" label={t.name} value={form.name} hint={t.nameHint} maxLength={100} error={e.name} autocomplete="off" />
        <fieldset aria-describedby={e.scopes ? 'f-scopes-hint f-scopes-error' : 'f-scopes-hint'}>
          <legend>{t.scopes}</legend>
          <span class="hint" id="f-scopes-hint">{t.scopesHint}</span>
          <div class="checks">
            {SCOPES.map((s) => (
              <label>
                <input type="checkbox" name="scopes" value={s} checked={form.scopes.includes(s)} /> {t.scopeNames[s] ?? s} <code>{s}</code>
              </label>
            ))}
          </div>
          <ErrorText id="f-scopes-error" text={e.scopes} />
        </fieldset>
        <div class="field">
          <label for="f-expires">{t.expires}</label>
          <input
            id="f-expires"
            name="expires"
            type="date"
            value={form.expires}
            aria-invalid={e.expires ? 'true' : undefined}
            aria-describedby={e.expires ? 'f-expires-hint f-expires-error' : 'f-expires-hint'}
          />
          <span class="hint" id="f-expires-hint">{t.expiresHint}</span>
          <ErrorText id="f-expires-error" text={e.expires} />
        </div>
        {owner.kind === 'firm' ? <AllowListField ctx={ctx} value={form.allowList} error={e.allowList} /> : null}
        <div class="actions">
          <button type="submit">{t.create}</button>
          <a href={`${owner.base}/keys`}>{t.cancel}</a>
        </div>
      </PostForm>
    </Frame>
  );
}

function AllowListField({ ctx, value, error }: { ctx: SiteContext; value: string; error?: string }) {
  const t = ctx.t.keys;
  return (
    <div class="field">
      <label for="f-allow_list">{t.allowList}</label>
      <textarea
        id="f-allow_list"
        name="allow_list"
        rows={3}
        spellcheck={false}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? 'f-allow_list-hint f-allow_list-error' : 'f-allow_list-hint'}
      >
        {value}
      </textarea>
      <span class="hint" id="f-allow_list-hint">{t.allowListHint}</span>
      <ErrorText id="f-allow_list-error" text={error} />
    </div>
  );
}

export function CreatedKeyPage({ ctx, owner, row, token, apiBase }: { ctx: SiteContext; owner: KeysOwner; row: KeyRow; token: string; apiBase: string }) {
  const t = ctx.t.keys;
  return (
    <Frame ctx={ctx} owner={owner} title={t.createdTitle}>
      <h1>{t.createdTitle}</h1>
      <SecretOnce ctx={ctx} label={t.secretLabel} value={token} warning={t.secretWarning} />
      <KeyFacts ctx={ctx} owner={owner} row={row} />
      <p>{t.tryIt}</p>
      {/* The whole key, so the command works when pasted; this is the one page that shows it (once). */}
      <pre class="mono wrap" id="try-it">{`curl -H "Authorization: Bearer ${token}" ${apiBase}/key`}</pre>
      <p>
        <a href={`${owner.base}/keys`}>{t.backToKeys}</a>
      </p>
    </Frame>
  );
}

/** What a key may do and when it was used, created and ends: the part of its facts the list and the key's page share. */
function KeyUseFacts({ ctx, row: { key, lastUsed } }: { ctx: SiteContext; row: Pick<KeyRow, 'key' | 'lastUsed'> }) {
  const t = ctx.t.keys;
  return (
    <>
      <dt>{t.colScopes}</dt>
      <dd class="mono">{key.scopes.join(', ')}</dd>
      <dt>{t.colTier}</dt>
      <dd>{key.tier}</dd>
      <dt>{t.colLastUsed}</dt>
      <dd>{when(ctx, lastUsed, t.never)}</dd>
      <dt>{t.colCreated}</dt>
      <dd>{when(ctx, key.createdAt, '')}</dd>
      <dt>{t.colExpires}</dt>
      <dd>{when(ctx, key.expiresAt, t.noExpiry)}</dd>
    </>
  );
}

function KeyFacts({ ctx, owner, row }: { ctx: SiteContext; owner: KeysOwner; row: KeyRow }) {
  const t = ctx.t.keys;
  const { key, status } = row;
  return (
    <dl class="facts">
      <dt>{t.colName}</dt>
      <dd>{key.name ?? t.unnamed}</dd>
      <dt>{t.colKey}</dt>
      <dd class="mono">{key.prefix}…</dd>
      <dt>{t.colMode}</dt>
      <dd>
        <ModeBadge ctx={ctx} mode={key.mode} />
      </dd>
      <dt>{t.colStatus}</dt>
      <dd>
        <StatusBadge ctx={ctx} status={status} />
      </dd>
      <KeyUseFacts ctx={ctx} row={row} />
      {owner.kind === 'firm' ? (
        <>
          <dt>{t.colCreatedBy}</dt>
          <dd>{row.createdBy ?? '—'}</dd>
          <dt>{t.allowListHeading}</dt>
          <dd class="mono">{key.allowedIps === null ? t.anyAddress : key.allowedIps.join(', ')}</dd>
        </>
      ) : null}
    </dl>
  );
}

export interface KeyDetailState {
  notice?: { kind: 'ok' | 'bad'; text: string };
  allowList?: string;
  allowListError?: string;
  reasonError?: string;
}

export function KeyDetailPage({ ctx, owner, row, state = {} }: { ctx: SiteContext; owner: KeysOwner; row: KeyRow; state?: KeyDetailState }) {
  const t = ctx.t.keys;
  const { key } = row;
  const url = `${owner.base}/keys/${key.id}`;
  const revoked = key.revokedAt !== null;
  return (
    <Frame ctx={ctx} owner={owner} title={t.detailTitle(keyTitle(ctx, key), key.prefix)}>
      <h1>{keyTitle(ctx, key)}</h1>
      <p class="key-prefix mono">{key.prefix}…</p>
      {state.notice ? (
        <Notice kind={state.notice.kind} role={state.notice.kind === 'ok' ? 'status' : 'alert'}>
          {state.notice.text}
        </Notice>
      ) : null}
      {key.suspension ? <Notice kind="warn">{t.suspendedBy(key.suspension.by, key.suspension.reason)}</Notice> : null}
      <KeyFacts ctx={ctx} owner={owner} row={row} />
      {owner.kind === 'firm' && !revoked ? (
        <>
          <h2>{t.allowListHeading}</h2>
          <PostForm ctx={ctx} action={`${url}/allow-list`}>
            <AllowListField ctx={ctx} value={state.allowList ?? (key.allowedIps ?? []).join('\n')} error={state.allowListError} />
            <button type="submit" class="secondary">{t.saveAllowList}</button>
          </PostForm>
          <h2>{key.suspension ? t.unsuspend : t.suspend}</h2>
          {key.suspension?.by === 'operator' ? (
            <p>{t.operatorSuspensionNote}</p>
          ) : key.suspension ? (
            <PostForm ctx={ctx} action={`${url}/unsuspend`}>
              <button type="submit" class="secondary">{t.unsuspend}</button>
            </PostForm>
          ) : (
            <PostForm ctx={ctx} action={`${url}/suspend`}>
              <Field name="reason" label={t.suspendReason} hint={t.suspendHint} maxLength={500} error={state.reasonError} required />
              <button type="submit" class="secondary">{t.suspend}</button>
            </PostForm>
          )}
        </>
      ) : null}
      {revoked ? null : (
        <p class="actions">
          <a class="button danger" href={`${url}/revoke`}>{t.revoke}</a>
        </p>
      )}
      <p>
        <a href={`${owner.base}/keys`}>{t.backToKeys}</a>
      </p>
    </Frame>
  );
}

export function RevokeKeyPage({ ctx, owner, row, error }: { ctx: SiteContext; owner: KeysOwner; row: KeyRow; error?: string }) {
  const t = ctx.t.keys;
  const url = `${owner.base}/keys/${row.key.id}`;
  return (
    <Frame ctx={ctx} owner={owner} title={t.revokeTitle}>
      <h1>{t.revokeTitle}</h1>
      <KeyFacts ctx={ctx} owner={owner} row={row} />
      <Notice kind="warn">{t.revokeWarning}</Notice>
      <PostForm ctx={ctx} action={`${url}/revoke`} once>
        <div class="checks field">
          <label>
            <input type="checkbox" name="confirm" value="yes" required aria-invalid={error ? 'true' : undefined} aria-describedby={error ? 'f-confirm-error' : undefined} /> {t.revokeConfirm}
          </label>
          <ErrorText id="f-confirm-error" text={error} />
        </div>
        <div class="actions">
          <button type="submit" class="danger">{t.revoke}</button>
          <a href={url}>{t.cancel}</a>
        </div>
      </PostForm>
    </Frame>
  );
}
