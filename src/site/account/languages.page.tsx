/** Account → Your languages: the languages a person reads, in order (DESIGN.md §13). A plain form: no JavaScript needed. */
import type { SiteContext } from '../context.ts';
import { Layout } from '../ui/layout.tsx';
import { BackLink, Notice, PostForm } from '../ui/components.tsx';
import { capitalized, languageName } from '../../i18n/reference.ts';

/** How many choices the form offers (the service takes up to MAX_PERSON_LANGUAGES). */
export const LANGUAGE_SLOTS = 3;

/** The languages offered: those people who book here read most, then any other the account already has. */
export const OFFERED = ['ar', 'fr', 'en', 'es', 'ro', 'uk', 'ru', 'zh', 'pt', 'de', 'it', 'ur', 'bn', 'hi', 'wo', 'tl', 'ca', 'pl', 'bg'];

export function LanguagesPage({ ctx, languages, fromSite, saved, error }: { ctx: SiteContext; languages: readonly string[]; fromSite: boolean; saved: boolean; error: 'empty' | 'unknown' | 'too_many' | null }) {
  const m = ctx.t.languageMatch;
  const collator = new Intl.Collator(ctx.locale);
  const options = [...new Set([...OFFERED, ...languages])].map((code) => ({ code, label: capitalized(ctx.locale, languageName(ctx.locale, code)) })).sort((a, b) => collator.compare(a.label, b.label));
  const message = error === 'empty' ? m.accountEmpty : error ? m.accountUnknown : null;
  return (
    <Layout ctx={ctx} title={m.accountHeading}>
      <p>
        <BackLink ctx={ctx} href="/account">
          {ctx.t.myAccount.title}
        </BackLink>
      </p>
      <h1>{m.accountHeading}</h1>
      {saved ? (
        <Notice kind="ok" role="status">
          <p>{m.accountSaved}</p>
        </Notice>
      ) : null}
      {message ? (
        <Notice kind="bad" role="alert">
          <p>{message}</p>
        </Notice>
      ) : null}
      <p>{m.accountIntro}</p>
      {fromSite ? <p class="meta">{m.accountFromSite}</p> : null}
      <PostForm ctx={ctx} action="/account/languages" class="account-languages">
        {Array.from({ length: LANGUAGE_SLOTS }, (_, i) => (
          <div class="field">
            <label for={`f-language-${i}`}>{m.accountLabel(i + 1)}</label>
            <select id={`f-language-${i}`} name="language" aria-invalid={message && i === 0 ? 'true' : undefined}>
              {i > 0 ? <option value="">{m.accountNone}</option> : null}
              {options.map((o) => (
                <option value={o.code} selected={languages[i] === o.code}>
                  {o.label}
                </option>
              ))}
            </select>
          </div>
        ))}
        <button type="submit">{m.accountSave}</button>
      </PostForm>
    </Layout>
  );
}
