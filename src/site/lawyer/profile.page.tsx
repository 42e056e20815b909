/**
 * /lawyer/profile: her name, introduction per language, languages, practice areas (one main),
 * fee and photo. No-JS forms (post/redirect/get); after an error the form comes back with what
 * she typed and an error summary that takes the focus.
 */
import { PRACTICE_AREAS, type PracticeAreaData } from '../../domain/demo/practice-areas.ts';
import { BIO_LANGUAGES, type PortalProfile } from '../../domain/lawyers/portal.service.ts';
import { languageName, practiceAreaName } from '../../i18n/reference.ts';
import type { SiteContext } from '../context.ts';
import { Checkboxes, FormOfAddressField, JOIN_LANGUAGES } from '../join/join.page.tsx';
import { CsrfField, Field, PostForm, Select } from '../ui/components.tsx';
import { ErrorSummary, PortalLayout, SavedNotice, type PortalErrors } from './portal.pages.tsx';

const AREAS: Array<{ slug: string; name: string }> = [];
(function walk(list: readonly PracticeAreaData[]) {
  for (const a of list) {
    AREAS.push({ slug: a.slug, name: a.name });
    walk(a.children ?? []);
  }
})(PRACTICE_AREAS);

/** What she typed, as strings. */
export interface ProfileForm {
  name: string;
  bio_es: string;
  bio_en: string;
  languages: string[];
  practice_areas: string[];
  primary_area: string;
  fee: string;
  /** 'female' | 'male' | 'neutral', or '' (not chosen). */
  form_of_address: string;
}

export function profileForm(p: PortalProfile, locale: string): ProfileForm {
  const fee = (p.feeCents / 100).toFixed(p.feeCents % 100 === 0 ? 0 : 2);
  return { name: p.name, bio_es: p.bios.es, bio_en: p.bios.en, languages: p.languages, practice_areas: p.practiceAreas, primary_area: p.primaryArea, fee: locale === 'es' ? fee.replace('.', ',') : fee, form_of_address: p.formOfAddress ?? '' };
}

export function ProfilePage({ ctx, form, errors, photoUrl, saved, photoError }: { ctx: SiteContext; form: ProfileForm; errors: PortalErrors; photoUrl: string | null; saved: string | null; photoError?: string }) {
  const { t, locale } = ctx;
  const j = t.join;
  const areaOptions = AREAS.map((a) => ({ value: a.slug, label: practiceAreaName(locale, a.slug, a.name) }));
  // Her own languages first (a language she ticked that is not in the usual list stays offered).
  const languages = [...new Set([...JOIN_LANGUAGES, ...form.languages])];
  const allErrors = { ...errors, ...(photoError ? { photo: photoError } : {}) };
  const title = Object.keys(allErrors).length > 0 ? `${t.portal.errorTitle} — ${t.portal.profileTitle}` : t.portal.profileTitle;
  return (
    <PortalLayout ctx={ctx} title={title} current="profile">
      <h1>{t.portal.profileTitle}</h1>
      <ErrorSummary ctx={ctx} errors={allErrors} />
      <SavedNotice message={saved} />
      <p>{t.portal.profileIntro}</p>
      <PostForm ctx={ctx} action="/lawyer/profile" class="join-form" novalidate>
        <Field name="name" label={`${j.name} (${j.required})`} value={form.name} error={errors.name} autocomplete="name" maxLength={120} required />
        <FormOfAddressField ctx={ctx} value={form.form_of_address} error={errors.form_of_address} />
        {BIO_LANGUAGES.map((lang) => {
          const name = `bio_${lang}`;
          const error = errors[name];
          return (
            <div class="field">
              <label for={`f-${name}`}>{t.portal.bio[lang]}</label>
              <textarea id={`f-${name}`} name={name} lang={lang} rows={5} maxLength={1000} aria-describedby={error ? `f-bio-hint f-${name}-error` : 'f-bio-hint'} aria-invalid={error ? 'true' : undefined}>
                {form[name as 'bio_es' | 'bio_en']}
              </textarea>
              {error ? <span class="field-error" id={`f-${name}-error`}>{error}</span> : null}
            </div>
          );
        })}
        <p class="hint" id="f-bio-hint">{t.portal.bioHint}</p>
        <Checkboxes name="languages" legend={`${j.languages} (${j.required})`} options={languages.map((code) => ({ value: code, label: languageName(locale, code) }))} checked={form.languages} error={errors.languages} />
        <Checkboxes name="practice_areas" legend={`${j.practiceAreas} (${j.required})`} options={areaOptions} checked={form.practice_areas} error={errors.practice_areas} />
        <Select name="primary_area" label={j.primaryArea} options={areaOptions} value={form.primary_area} empty={j.primaryFirst} error={errors.primary_area} />
        <Field name="fee" label={`${j.fee} (${j.required})`} hint={j.feeHint} value={form.fee} error={errors.fee} inputmode="decimal" maxLength={10} required />
        <button class="wide" type="submit">
          {t.portal.save}
        </button>
      </PostForm>

      <section aria-labelledby="portal-photo" class="portal-photo-section">
        <h2 id="portal-photo">{t.portal.photoTitle}</h2>
        {photoUrl ? <img class="portal-photo" src={photoUrl} alt={t.portal.photoAlt} width={96} height={96} /> : <p>{t.portal.noPhoto}</p>}
        <p>{t.portal.photoIntro}</p>
        <form method="post" action="/lawyer/profile/photo" enctype="multipart/form-data">
          <CsrfField ctx={ctx} />
          <div class="field">
            <label for="f-photo">{t.portal.photoLabel}</label>
            <input id="f-photo" type="file" name="photo" accept="image/jpeg,image/png,image/webp" aria-invalid={photoError ? 'true' : undefined} aria-describedby={photoError ? 'f-photo-error' : undefined} />
            {photoError ? <span class="field-error" id="f-photo-error">{photoError}</span> : null}
          </div>
          <button type="submit">{t.portal.photoUpload}</button>
        </form>
        {photoUrl ? (
          <PostForm ctx={ctx} action="/lawyer/profile/photo/remove">
            <button type="submit" class="secondary">
              {t.portal.photoRemove}
            </button>
          </PostForm>
        ) : null}
      </section>
    </PortalLayout>
  );
}
