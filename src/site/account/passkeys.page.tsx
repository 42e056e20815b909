/**
 * Passkey pages: the list with add and remove, the removal confirmation, the step-up page, and
 * the passkey part of the sign-in form. The WebAuthn ceremonies run in passkeys.js (a file: the
 * CSP forbids inline scripts); without JavaScript the pages say so, and the email code works.
 *
 * passkeys.js finds its work through `data-passkey` roots:
 * - `register`: a form with a name field; `data-options` and `data-verify` are the endpoints,
 *   `data-then` = "step-up" continues with an assertion (the step-up page);
 * - `sign-in`: a button, and the autofill of the email field (conditional UI);
 * - `step-up`: a button.
 * Messages come from `data-msg-*` attributes in the page's language.
 */
import type { PasskeyView } from '../../domain/identity/passkeys.service.ts';
import { formatInstant } from '../../i18n/format.ts';
import type { SiteContext } from '../context.ts';
import { CsrfField, Field, Notice, PostForm } from '../ui/components.tsx';
import { AccountAreaLayout } from '../ui/dashboard.tsx';
import { Layout } from '../ui/layout.tsx';

/** Where the browser's zone is not known (no JavaScript, no choice made): the service's own. */
const ZONE = 'Europe/Madrid';

/** The endpoints the browser script calls (urlencoded POSTs with the page's CSRF token). */
export const PASSKEY_ENDPOINTS = {
  registerOptions: '/account/passkeys/register/options',
  register: '/account/passkeys/register',
  signInOptions: '/sign-in/passkey/options',
  signIn: '/sign-in/passkey',
  stepUpOptions: '/account/passkeys/step-up/options',
  stepUp: '/account/passkeys/step-up',
};

/** The messages passkeys.js may show, as data attributes of its root. */
function messageAttributes(ctx: SiteContext): Record<string, string> {
  const t = ctx.t.passkeys;
  return {
    'data-msg-working': t.working,
    'data-msg-cancelled': t.cancelled,
    'data-msg-failed': t.failed,
    'data-msg-unsupported': t.unsupported,
    'data-msg-duplicate': t.problems.duplicate,
  };
}

/** The WebAuthn library's browser bundle, then our script. Placed at the end of the page. */
export function PasskeyScripts({ ctx }: { ctx: SiteContext }) {
  return (
    <>
      <script src={ctx.asset('simplewebauthn-browser.js')} defer></script>
      <script src={ctx.asset('passkeys.js')} defer></script>
    </>
  );
}

/** Where passkeys.js writes what is happening (announced to screen readers). */
function Status() {
  return <p class="passkey-status" role="status" aria-live="polite" data-passkey-status></p>;
}

/** Shown until the script runs: without JavaScript, passkeys cannot work. */
function NeedsJs({ ctx }: { ctx: SiteContext }) {
  return (
    <div data-passkey-nojs>
      <Notice kind="warn">
        <p>{ctx.t.passkeys.needsJs}</p>
      </Notice>
    </div>
  );
}

/** The add-a-passkey form: hidden until the script shows it (it needs WebAuthn). */
function RegisterForm({ ctx, nextName, then, returnTo, button }: { ctx: SiteContext; nextName: string; then?: 'step-up'; returnTo?: string | null; button: string }) {
  const t = ctx.t.passkeys;
  return (
    <div
      class="passkey-box"
      data-passkey="register"
      data-options={PASSKEY_ENDPOINTS.registerOptions}
      data-verify={PASSKEY_ENDPOINTS.register}
      data-then={then}
      data-step-up-options={then ? PASSKEY_ENDPOINTS.stepUpOptions : undefined}
      data-step-up={then ? PASSKEY_ENDPOINTS.stepUp : undefined}
      data-return-to={returnTo ?? undefined}
      {...messageAttributes(ctx)}
    >
      <NeedsJs ctx={ctx} />
      <form method="post" action={PASSKEY_ENDPOINTS.register} data-passkey-js hidden>
        <CsrfField ctx={ctx} />
        <p>{t.addIntro}</p>
        <Field name="name" label={t.nameLabel} hint={t.nameHint} maxLength={60} autocomplete="off" placeholder={nextName} />
        <button type="submit">{button}</button>
      </form>
      <Status />
    </div>
  );
}

/** For a session too old to add a passkey: confirm with one, or sign in again. */
function NotFresh({ ctx, hasPasskey, returnTo }: { ctx: SiteContext; hasPasskey: boolean; returnTo: string }) {
  const t = ctx.t.passkeys;
  return (
    <Notice kind="warn">
      <p>{t.notFresh}</p>
      <div class="actions">
        {hasPasskey ? (
          <a class="button" href={`/account/passkeys/step-up?return_to=${encodeURIComponent(returnTo)}`}>
            {t.confirmFirst}
          </a>
        ) : null}
        <PostForm ctx={ctx} action="/account/passkeys/reauth" class="inline">
          <input type="hidden" name="return_to" value={returnTo} />
          <button type="submit" class={hasPasskey ? 'secondary' : undefined}>
            {t.signInAgain}
          </button>
        </PostForm>
      </div>
    </Notice>
  );
}

const when = (iso: string, ctx: SiteContext) => formatInstant(iso, ctx.zone ?? ZONE, ctx.locale);

export interface PasskeysPageProps {
  ctx: SiteContext;
  passkeys: PasskeyView[];
  operator: boolean;
  /** The session may add a passkey now (signed in or stepped up within 10 minutes). */
  fresh: boolean;
  notice?: 'added' | 'removed' | null;
}

export function PasskeysPage({ ctx, passkeys, operator, fresh, notice }: PasskeysPageProps) {
  const t = ctx.t.passkeys;
  return (
    <AccountAreaLayout ctx={ctx} title={t.title} current="passkeys">
      <h1>{t.title}</h1>
      {notice ? (
        <Notice kind="ok" role="status">
          <p>{notice === 'added' ? t.added : t.removed}</p>
        </Notice>
      ) : null}
      <p>{t.intro}</p>
      {operator ? <p class="meta">{t.operatorNote}</p> : null}
      <h2>{t.listHeading}</h2>
      {passkeys.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ul class="cards passkey-list">
          {passkeys.map((p) => (
            <li class="card">
              <h3>{p.name}</h3>
              <dl class="facts">
                <dt>{t.created}</dt>
                <dd>{when(p.createdAt, ctx)}</dd>
                <dt>{t.lastUsed}</dt>
                <dd>{p.lastUsedAt ? when(p.lastUsedAt, ctx) : t.never}</dd>
                <dt>{t.kind}</dt>
                <dd>
                  {p.synced ? (
                    <>
                      {t.synced}
                      <span class="hint">{t.syncedHint}</span>
                    </>
                  ) : (
                    t.oneDevice
                  )}
                  {p.backedUp && !p.synced ? ` (${t.backedUp})` : null}
                </dd>
              </dl>
              <a href={`/account/passkeys/${p.id}/remove`} aria-label={t.removeLabel(p.name)}>
                {t.remove}
              </a>
            </li>
          ))}
        </ul>
      )}
      <h2>{t.addHeading}</h2>
      {fresh ? (
        <RegisterForm ctx={ctx} nextName={t.defaultName(passkeys.length + 1)} button={t.addButton} />
      ) : (
        <NotFresh ctx={ctx} hasPasskey={passkeys.length > 0} returnTo="/account/passkeys" />
      )}
      <PasskeyScripts ctx={ctx} />
    </AccountAreaLayout>
  );
}

/** "Remove this passkey?" — the confirmation step of removal (a POST from here removes it). */
export function RemovePasskeyPage({ ctx, passkey, error }: { ctx: SiteContext; passkey: PasskeyView; error?: string | null }) {
  const t = ctx.t.passkeys;
  return (
    <AccountAreaLayout ctx={ctx} title={t.removeTitle} current="passkeys">
      <h1>{t.removeTitle}</h1>
      {error ? (
        <Notice kind="bad" role="alert">
          <p>{error}</p>
        </Notice>
      ) : null}
      <dl class="facts">
        <dt>{t.name}</dt>
        <dd>{passkey.name}</dd>
        <dt>{t.created}</dt>
        <dd>{when(passkey.createdAt, ctx)}</dd>
        <dt>{t.lastUsed}</dt>
        <dd>{passkey.lastUsedAt ? when(passkey.lastUsedAt, ctx) : t.never}</dd>
      </dl>
      <p>{t.removeConfirm(passkey.name)}</p>
      <div class="actions">
        {error ? null : (
          <PostForm ctx={ctx} action={`/account/passkeys/${passkey.id}/remove`} once class="inline">
            <button type="submit" class="danger">
              {t.removeButton}
            </button>
          </PostForm>
        )}
        <a class="button secondary" href="/account/passkeys">
          {error ? t.goBack : t.cancel}
        </a>
      </div>
    </AccountAreaLayout>
  );
}

export interface StepUpPageProps {
  ctx: SiteContext;
  returnTo: string;
  hasPasskey: boolean;
  operator: boolean;
  /** May add a passkey here (the session is recent): only asked when hasPasskey is false. */
  fresh: boolean;
  passkeyCount: number;
}

/**
 * "Confirm it's you": an assertion with one of this person's passkeys, then back to returnTo.
 * Someone without a passkey adds one here first, then confirms with it.
 */
export function StepUpPage({ ctx, returnTo, hasPasskey, operator, fresh, passkeyCount }: StepUpPageProps) {
  const t = ctx.t.passkeys;
  return (
    <Layout ctx={ctx} title={t.stepUpTitle} section="dashboard" narrow>
      <h1>{t.stepUpTitle}</h1>
      {hasPasskey ? (
        <>
          <p>{t.stepUpIntro}</p>
          <div
            class="passkey-box"
            data-passkey="step-up"
            data-options={PASSKEY_ENDPOINTS.stepUpOptions}
            data-verify={PASSKEY_ENDPOINTS.stepUp}
            data-return-to={returnTo}
            {...messageAttributes(ctx)}
          >
            <NeedsJs ctx={ctx} />
            <form method="post" action={PASSKEY_ENDPOINTS.stepUp} data-passkey-js hidden>
              <CsrfField ctx={ctx} />
              <button type="submit" class="wide">
                {t.stepUpButton}
              </button>
            </form>
            <Status />
          </div>
        </>
      ) : (
        <>
          <Notice kind="warn">
            <p>{operator ? t.stepUpNoPasskeyOperator : t.stepUpNoPasskey}</p>
          </Notice>
          {fresh ? (
            <RegisterForm ctx={ctx} nextName={t.defaultName(passkeyCount + 1)} then="step-up" returnTo={returnTo} button={t.stepUpAddButton} />
          ) : (
            <NotFresh ctx={ctx} hasPasskey={false} returnTo={`/account/passkeys/step-up?return_to=${encodeURIComponent(returnTo)}`} />
          )}
        </>
      )}
      <p>
        <a href="/account/passkeys">{t.goBack}</a>
      </p>
      <PasskeyScripts ctx={ctx} />
    </Layout>
  );
}

/**
 * The passkey half of the sign-in page: a button, hidden until the script knows the browser can
 * use passkeys (the email field's autofill offers them too: `autocomplete="username webauthn"`).
 */
export function PasskeySignIn({ ctx, returnTo }: { ctx: SiteContext; returnTo: string | null }) {
  const t = ctx.t.passkeys;
  return (
    <div class="passkey-signin" data-passkey="sign-in" data-options={PASSKEY_ENDPOINTS.signInOptions} data-verify={PASSKEY_ENDPOINTS.signIn} data-return-to={returnTo ?? undefined} {...messageAttributes(ctx)}>
      <p class="passkey-or" data-passkey-js hidden>
        <span>{t.or}</span>
      </p>
      <button type="button" class="secondary wide" data-passkey-js data-passkey-start hidden>
        {t.signInButton}
      </button>
      <Status />
      <PasskeyScripts ctx={ctx} />
    </div>
  );
}
