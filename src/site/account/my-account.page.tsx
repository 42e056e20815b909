/**
 * The people's Account page (`/account`): the name lawyers see, language, connected apps, passkeys, sign out
 * everywhere, and the way to delete the account; the deletion page (`/account/delete`) with what
 * goes, what stays and why, and its confirmation; the page after deletion (`/account/deleted`).
 */
import type { DeletionBlocker, DeletionPreview } from '../../domain/identity/account-deletion.service.ts';
import type { ConnectedApp } from '../../domain/oauth/connected-apps.service.ts';
import { PERSON_NAME_MAX, type PersonNameError } from '../../domain/people/person-name.ts';
import { peopleInstant } from '../../i18n/reference.ts';
import { LOCALES, type Locale } from '../../i18n/index.ts';
import type { SiteContext } from '../context.ts';
import { BackLink, Field, Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';

/** Where the browser's zone is not known (no JavaScript, no choice made): the service's own. */
const ZONE = 'Europe/Madrid';

/** A language's name as its own speakers write it ("Español", "English", "العربية"). */
export function languageName(locale: Locale): string {
  const name = new Intl.DisplayNames([locale], { type: 'language' }).of(locale) ?? locale;
  return name.charAt(0).toLocaleUpperCase(locale) + name.slice(1);
}

/** "A, B and C" in the page's language. */
function list(items: readonly string[], locale: Locale): string {
  return new Intl.ListFormat(locale, { type: 'conjunction' }).format(items);
}

export interface AccountPageProps {
  ctx: SiteContext;
  email: string;
  createdAt: string;
  /** The language stored on the account (emails use it); null: never chosen. */
  accountLocale: Locale | null;
  apps: ConnectedApp[];
  passkeys: number;
  sessions: number;
  /** The name lawyers see with the person's bookings (users.name); null: not given yet. */
  name: string | null;
  notice?: 'language' | 'name' | 'name_removed' | null;
  languageError?: string | null;
  /** A refused name: what was typed and why. */
  nameForm?: { value: string; error: PersonNameError } | null;
}

export function AccountPage({ ctx, email, createdAt, accountLocale, name, apps, passkeys, sessions, notice, languageError, nameForm }: AccountPageProps) {
  const t = ctx.t.myAccount;
  const m = ctx.t.languageMatch;
  const chosen = accountLocale ?? ctx.locale;
  const nameError = nameForm ? (nameForm.error === 'name_too_long' ? m.nameTooLong : nameForm.error === 'name_is_email' ? m.nameIsEmail : m.nameInvalid) : null;
  return (
    <Layout ctx={ctx} title={t.title} section="account">
      <div class="account-page">
        <h1>{t.title}</h1>
        {notice === 'language' ? (
          <Notice kind="ok" role="status">
            <p>{t.languageSaved(languageName(ctx.locale))}</p>
          </Notice>
        ) : null}
        {notice === 'name' || notice === 'name_removed' ? (
          <Notice kind="ok" role="status">
            <p>{notice === 'name' ? m.nameSaved : m.nameRemoved}</p>
          </Notice>
        ) : null}
        <p>{t.intro}</p>
        <dl class="facts">
          <dt>{t.email}</dt>
          <dd class="break-anywhere">{email}</dd>
          <dt>{t.since}</dt>
          <dd>{peopleInstant(ctx.locale, createdAt, ctx.zone ?? ZONE)}</dd>
        </dl>

        <section class="card account-section" id="account-name" aria-labelledby="account-name-heading">
          <h2 id="account-name-heading">{m.nameLabel}</h2>
          <p>{m.nameIntro}</p>
          {name === null && !nameForm ? <p class="meta">{m.nameNone}</p> : null}
          <PostForm ctx={ctx} action="/account/name" class="account-name">
            <div class="field">
              <label for="f-name">{m.nameLabel}</label>
              <input
                id="f-name"
                name="name"
                type="text"
                value={nameForm ? nameForm.value : (name ?? '')}
                autocomplete="name"
                maxLength={PERSON_NAME_MAX}
                aria-invalid={nameError ? 'true' : undefined}
                aria-describedby={nameError ? 'f-name-error' : undefined}
              />
              {nameError ? (
                <span class="field-error" id="f-name-error" role="alert">
                  {nameError}
                </span>
              ) : null}
            </div>
            <button type="submit">{m.nameSave}</button>
          </PostForm>
        </section>

        <section class="card account-section" aria-labelledby="account-language">
          <h2 id="account-language">{t.languageHeading}</h2>
          <p>{t.languageIntro}</p>
          <PostForm ctx={ctx} action="/account/language" class="account-language">
            <div class="field">
              <label for="f-locale">{t.languageLabel}</label>
              <select id="f-locale" name="locale" aria-invalid={languageError ? 'true' : undefined} aria-describedby={languageError ? 'f-locale-error' : undefined}>
                {LOCALES.map((l) => (
                  <option value={l} lang={l} selected={l === chosen}>
                    {languageName(l)}
                  </option>
                ))}
              </select>
              {languageError ? (
                <span class="field-error" id="f-locale-error">
                  {languageError}
                </span>
              ) : null}
            </div>
            <button type="submit">{t.languageSave}</button>
          </PostForm>
        </section>

        <section class="card account-section" aria-labelledby="account-languages">
          <h2 id="account-languages">{ctx.t.languageMatch.accountHeading}</h2>
          <p>{ctx.t.languageMatch.accountIntro}</p>
          <p>
            <a href="/account/languages">{ctx.t.languageMatch.accountEdit}</a>
          </p>
        </section>

        <section class="card account-section" aria-labelledby="account-apps">
          <h2 id="account-apps">{t.appsHeading}</h2>
          <p>{t.appsSummary(apps.length)}</p>
          {apps.length > 0 ? (
            <ul class="account-apps">
              {apps.map((a) => (
                <li>{a.clientName}</li>
              ))}
            </ul>
          ) : null}
          <p>
            <a href="/account/apps">{t.appsLink}</a>
          </p>
        </section>

        <section class="card account-section" aria-labelledby="account-passkeys">
          <h2 id="account-passkeys">{t.passkeysHeading}</h2>
          <p>{t.passkeysSummary(passkeys)}</p>
          <p>
            <a href="/account/passkeys">{t.passkeysLink}</a>
          </p>
        </section>

        <section class="card account-section" aria-labelledby="account-everywhere">
          <h2 id="account-everywhere">{t.everywhereHeading}</h2>
          <p>{t.everywhereText}</p>
          <p class="meta">{t.everywhereSessions(sessions)}</p>
          <PostForm ctx={ctx} action="/sign-out/everywhere" once>
            <button type="submit" class="secondary">
              {t.everywhereButton}
            </button>
          </PostForm>
        </section>

        <section class="card account-section account-danger" aria-labelledby="account-delete">
          <h2 id="account-delete">{t.deleteHeading}</h2>
          <p>{t.deleteText}</p>
          <p>
            <a class="button secondary danger-outline" href="/account/delete">
              {t.deleteLink}
            </a>
          </p>
        </section>
      </div>
    </Layout>
  );
}

function Blocker({ ctx, blocker }: { ctx: SiteContext; blocker: DeletionBlocker }) {
  const t = ctx.t.myAccount;
  switch (blocker.kind) {
    case 'upcoming_consultations':
      return (
        <li>
          {t.blockedUpcoming(blocker.consultations.length)} <a href="/consultations">{t.blockedUpcomingLink}</a>
        </li>
      );
    case 'last_owner':
      return (
        <li>
          {t.blockedOwner(list(blocker.firms.map((f) => f.name), ctx.locale))}{' '}
          {blocker.firms.map((f, i) => (
            <>
              {i > 0 ? ' · ' : null}
              <a href={`/firms/${encodeURIComponent(f.slug)}/members`}>{f.name}</a>
            </>
          ))}
        </li>
      );
    case 'lawyer':
      return <li>{t.blockedLawyer}</li>;
    case 'operator':
      return <li>{t.blockedOperator}</li>;
  }
}

export interface DeletePageProps {
  ctx: SiteContext;
  preview: DeletionPreview;
  /** What went wrong with the last attempt, if anything. */
  problem?: 'wrong_email' | 'stale' | 'refused' | null;
  typed?: string;
}

export function DeleteAccountPage({ ctx, preview, problem, typed }: DeletePageProps) {
  const t = ctx.t.myAccount;
  const { owned, kept, blockers } = preview;
  const blocked = blockers.length > 0;
  return (
    <Layout ctx={ctx} title={t.deleteTitle} section="account">
      <div class="account-page">
        <p class="account-back">
          <BackLink ctx={ctx} href="/account">
            {t.title}
          </BackLink>
        </p>
        <h1>{t.deleteTitle}</h1>
        {problem === 'stale' ? (
          <Notice kind="warn" role="alert">
            <p>{t.stale}</p>
          </Notice>
        ) : null}
        <p>{blocked ? t.deleteIntroBlocked : t.deleteIntro}</p>

        {blocked ? (
          <section class="notice bad" role={problem === 'refused' ? 'alert' : undefined} aria-labelledby="delete-blocked">
            <h2 id="delete-blocked">{t.blockedHeading}</h2>
            {problem === 'refused' ? <p>{t.refused}</p> : null}
            <ul class="account-list">
              {blockers.map((b) => (
                <Blocker ctx={ctx} blocker={b} />
              ))}
            </ul>
          </section>
        ) : null}

        <section aria-labelledby="delete-goes">
          <h2 id="delete-goes">{t.goesHeading}</h2>
          <ul class="account-list">
            <li>{t.goesAccount}</li>
            <li>{t.goesSessions(owned.sessions)}</li>
            {owned.passkeys > 0 ? <li>{t.goesPasskeys(owned.passkeys)}</li> : null}
            {owned.apps > 0 ? <li>{t.goesApps(owned.apps)}</li> : null}
            {owned.keys > 0 || owned.endpoints > 0 ? <li>{t.goesKeys(owned.keys, owned.endpoints)}</li> : null}
            {owned.firms.length > 0 ? <li>{t.goesFirms(list(owned.firms.map((f) => f.name), ctx.locale))}</li> : null}
            <li>{t.goesHolds}</li>
            <li>{t.goesMail}</li>
          </ul>
        </section>

        <section aria-labelledby="delete-kept">
          <h2 id="delete-kept">{t.keptHeading}</h2>
          <ul class="account-list">
            <li>
              {t.keptBookings(kept.consultations)} {t.keptProvider}
            </li>
            <li>{t.keptLawyerMail}</li>
            <li>{t.keptRequestLog}</li>
            <li>{t.keptAudit}</li>
            <li>{t.keptConfirmation}</li>
          </ul>
        </section>

        {blocked ? null : (
          <section class="card account-section account-danger" aria-labelledby="delete-confirm">
            <h2 id="delete-confirm">{t.confirmHeading}</h2>
            {preview.fresh ? (
              <PostForm ctx={ctx} action="/account/delete" once>
                <Field
                  name="confirm_email"
                  type="email"
                  label={t.typeLabel(preview.email)}
                  hint={t.typeHint}
                  value={typed ?? ''}
                  error={problem === 'wrong_email' ? t.wrongEmail(preview.email) : null}
                  autofocus={problem === 'wrong_email'}
                  autocomplete="off"
                  required
                  maxLength={254}
                />
                <div class="actions">
                  <button type="submit" class="danger">
                    {t.deleteButton}
                  </button>
                  <a class="button secondary" href="/account">
                    {t.keep}
                  </a>
                </div>
              </PostForm>
            ) : (
              <>
                <p>{t.notFresh(owned.passkeys > 0)}</p>
                <div class="actions">
                  {/* The ordinary sign-in by email, for this address, coming back here: a new session is a fresh one. */}
                  <PostForm ctx={ctx} action="/sign-in" class="inline">
                    <input type="hidden" name="email" value={preview.email} />
                    <input type="hidden" name="return_to" value="/account/delete" />
                    <button type="submit">{t.sendCode}</button>
                  </PostForm>
                  {owned.passkeys > 0 ? (
                    <a class="button secondary" href={`/account/passkeys/step-up?return_to=${encodeURIComponent('/account/delete')}`}>
                      {t.usePasskey}
                    </a>
                  ) : null}
                  <a class="button secondary" href="/account">
                    {t.keep}
                  </a>
                </div>
              </>
            )}
          </section>
        )}
      </div>
    </Layout>
  );
}

export function AccountDeletedPage({ ctx }: { ctx: SiteContext }) {
  const t = ctx.t.myAccount;
  return (
    <Layout ctx={ctx} title={t.deletedTitle} narrow>
      <h1>{t.deletedTitle}</h1>
      <Notice kind="ok" role="status">
        <p>{t.deletedText}</p>
      </Notice>
      <p>{t.deletedAgain}</p>
      <p>
        <a class="button" href="/">
          {t.deletedHome}
        </a>
      </p>
    </Layout>
  );
}
