/** Sign-in pages: the email form, then the code form. */
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';
import { PasskeySignIn } from './passkeys.page.tsx';

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

export function CodePage({ ctx, challengeId, problem, attemptsLeft }: { ctx: SiteContext; challengeId: string | null; problem?: CodeProblem | null; attemptsLeft?: number }) {
  const { t } = ctx;
  const dead = problem === 'locked' || problem === 'expired' || problem === 'used' || problem === 'unknown' || !challengeId;
  const message =
    problem === 'wrong_code' ? t.signIn.wrongCode(attemptsLeft ?? 0)
    : problem === 'other_browser' ? t.signIn.otherBrowser
    : problem === 'locked' ? t.signIn.locked
    : problem === 'expired' ? t.signIn.expired
    : problem === 'used' ? t.signIn.used
    : problem === 'unknown' || !challengeId ? t.signIn.unknown
    : null;
  return (
    <Layout ctx={ctx} title={t.signIn.codeTitle} section="sign-in" narrow>
      <h1>{t.signIn.codeTitle}</h1>
      {message ? (
        <Notice kind={problem === 'other_browser' ? 'warn' : 'bad'} role="alert">
          <p>{message}</p>
        </Notice>
      ) : (
        <p>{t.signIn.codeIntro}</p>
      )}
      {dead ? (
        <p>
          <a class="button" href="/sign-in">
            {t.signIn.startAgain}
          </a>
        </p>
      ) : (
        <PostForm ctx={ctx} action="/sign-in/code" once>
          <input type="hidden" name="challenge" value={challengeId} />
          <Field name="code" label={t.signIn.code} autocomplete="one-time-code" inputmode="numeric" maxLength={12} required class="code-input" hint={t.signIn.codeHint} error={problem === 'wrong_code' ? t.signIn.wrongCode(attemptsLeft ?? 0) : null} autofocus />
          <button class="wide" type="submit">
            {t.signIn.verify}
          </button>
        </PostForm>
      )}
      <p class="meta">{t.signIn.noMail}</p>
      <p>
        <a href="/sign-in">{t.signIn.differentEmail}</a>
      </p>
    </Layout>
  );
}
