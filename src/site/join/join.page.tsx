/**
 * /join (docs/lawyers.md#joining-and-verification): what verification means, then sign-in (signed
 * out), the application form (signed in, no application yet) or her application as she claimed
 * it (pending or decided). The form works without JavaScript: after an error it comes back with
 * what she typed and an error summary that takes the focus.
 */
import type { MyApplication } from '../../domain/lawyers/application.service.ts';
import { BAR_ASSOCIATIONS, barAssociationById } from '../../domain/lawyers/bar-associations.ts';
import { CONSULTATION_LENGTHS } from '../../domain/lawyers/calendar-rules.ts';
import { CITIES } from '../../domain/demo/spain.ts';
import { PRACTICE_AREAS, type PracticeAreaData } from '../../domain/demo/practice-areas.ts';
import { euros } from '../../i18n/format.ts';
import { FORMS_OF_ADDRESS } from '../../i18n/form-of-address.ts';
import { intlTag } from '../../i18n/locales.ts';
import { languageName, practiceAreaName } from '../../i18n/reference.ts';
import type { SiteContext } from '../context.ts';
import { Field, Notice, PostForm, Select } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';

/** The languages offered as boxes to tick (ISO 639-1): those people in Spain most often consult in. */
export const JOIN_LANGUAGES = ['es', 'en', 'fr', 'ar', 'ro', 'pt', 'ru', 'uk', 'zh', 'de', 'it', 'ca', 'eu', 'gl', 'ur', 'bn', 'wo', 'tl'] as const;

const AREAS: Array<{ slug: string; name: string }> = [];
(function walk(list: readonly PracticeAreaData[]) {
  for (const a of list) {
    AREAS.push({ slug: a.slug, name: a.name });
    walk(a.children ?? []);
  }
})(PRACTICE_AREAS);

/** What she typed, as strings, to fill the form again after an error. */
export interface JoinForm {
  name: string;
  colegio: string;
  membership_number: string;
  city: string;
  languages: string[];
  practice_areas: string[];
  primary_area: string;
  fee: string;
  consultation_minutes: string;
  video_url: string;
  phone: boolean;
  office_address: string;
  bio: string;
  /** 'female' | 'male' | 'neutral', or '' (not chosen). */
  form_of_address: string;
}

export const emptyJoinForm = (): JoinForm => ({ name: '', colegio: '', membership_number: '', city: '', languages: [], practice_areas: [], primary_area: '', fee: '', consultation_minutes: '60', video_url: '', phone: false, office_address: '', bio: '', form_of_address: '' });

function Explanation({ ctx }: { ctx: SiteContext }) {
  const { t } = ctx;
  return (
    <section aria-labelledby="join-verify">
      <p>{t.join.intro}</p>
      <h2 id="join-verify">{t.join.verifyTitle}</h2>
      <p>{t.join.verifyText}</p>
    </section>
  );
}

export function JoinSignedOutPage({ ctx }: { ctx: SiteContext }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={t.join.title} narrow>
      <h1>{t.join.title}</h1>
      <Explanation ctx={ctx} />
      <p>{t.join.signInFirst}</p>
      <p>
        <a class="button" href={`/sign-in?return_to=${encodeURIComponent('/join')}`}>
          {t.join.signInButton}
        </a>
      </p>
    </Layout>
  );
}

/** Field name → the pointer's localised message. */
export type JoinErrors = Partial<Record<string, string>>;

export function Checkboxes({ name, legend, options, checked, error }: { name: string; legend: string; options: Array<{ value: string; label: string }>; checked: readonly string[]; error?: string }) {
  const id = `f-${name}`;
  return (
    <fieldset class="field join-choices" id={id} aria-describedby={error ? `${id}-error` : undefined}>
      <legend>{legend}</legend>
      {error ? <span class="field-error" id={`${id}-error`}>{error}</span> : null}
      <div class="join-options">
        {options.map((o) => (
          <label class="check">
            <input type="checkbox" name={name} value={o.value} checked={checked.includes(o.value)} /> {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

/**
 * How the site names her (abogada, abogado, or neutral wording): three radio buttons under one
 * legend, none ticked until she chooses (no choice reads as neutral; it is never guessed).
 */
export function FormOfAddressField({ ctx, value, error }: { ctx: SiteContext; value: string; error?: string | undefined }) {
  const t = ctx.t.join;
  const described = [`f-form_of_address-hint`, error ? 'f-form_of_address-error' : ''].filter(Boolean).join(' ');
  return (
    <fieldset class="field join-choices" id="f-form_of_address" aria-describedby={described}>
      <legend>{t.formOfAddress}</legend>
      <span class="hint" id="f-form_of_address-hint">
        {t.formOfAddressHint}
      </span>
      {error ? (
        <span class="field-error" id="f-form_of_address-error">
          {error}
        </span>
      ) : null}
      <div class="join-options">
        {FORMS_OF_ADDRESS.map((form) => (
          <label class="check">
            <input type="radio" name="form_of_address" value={form} checked={value === form} /> {t.formsOfAddress[form]}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function JoinFormPage({ ctx, form, errors }: { ctx: SiteContext; form: JoinForm; errors: JoinErrors }) {
  const { t, locale } = ctx;
  const errorList = Object.entries(errors).filter((e): e is [string, string] => typeof e[1] === 'string');
  const areaOptions = AREAS.map((a) => ({ value: a.slug, label: practiceAreaName(locale, a.slug, a.name) }));
  const cities = [...CITIES].sort((a, b) => a.name.localeCompare(b.name, locale)).map((c) => ({ value: c.slug, label: c.name }));
  const colegios = [...BAR_ASSOCIATIONS].sort((a, b) => a.id.localeCompare(b.id)).map((b) => ({ value: b.id, label: b.name }));
  const user = ctx.user!;
  return (
    <Layout ctx={ctx} title={errorList.length > 0 ? `${t.join.errorTitle} — ${t.join.title}` : t.join.title} narrow>
      <h1>{t.join.title}</h1>
      {errorList.length > 0 ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">{t.join.errorTitle}</h2>
          <p>{t.join.errorIntro}</p>
          <ul>
            {errorList.map(([field, message]) => (
              <li>
                <a href={`#f-${field === 'formats' ? 'video_url' : field}`}>{message}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      <Explanation ctx={ctx} />
      <h2>{t.join.formTitle}</h2>
      <p>{t.join.formIntro.replace('{email}', user.email)}</p>
      <PostForm ctx={ctx} action="/join" class="join-form" novalidate>
        <Field name="name" label={`${t.join.name} (${t.join.required})`} value={form.name} error={errors.name} autocomplete="name" maxLength={120} required />
        <FormOfAddressField ctx={ctx} value={form.form_of_address} error={errors.form_of_address} />
        <Select name="colegio" label={`${t.join.colegio} (${t.join.required})`} options={colegios} value={form.colegio} empty={t.join.chooseColegio} error={errors.colegio} />
        <Field name="membership_number" label={`${t.join.membershipNumber} (${t.join.required})`} hint={t.join.membershipHint} value={form.membership_number} error={errors.membership_number} maxLength={40} required />
        <Select name="city" label={`${t.join.city} (${t.join.required})`} options={cities} value={form.city} empty={t.join.chooseCity} error={errors.city} />
        <Checkboxes name="languages" legend={`${t.join.languages} (${t.join.required})`} options={JOIN_LANGUAGES.map((code) => ({ value: code, label: languageName(locale, code) }))} checked={form.languages} error={errors.languages} />
        <Checkboxes name="practice_areas" legend={`${t.join.practiceAreas} (${t.join.required})`} options={areaOptions} checked={form.practice_areas} error={errors.practice_areas} />
        <Select name="primary_area" label={t.join.primaryArea} options={areaOptions} value={form.primary_area} empty={t.join.primaryFirst} error={errors.primary_area} />
        <Field name="fee" label={`${t.join.fee} (${t.join.required})`} hint={t.join.feeHint} value={form.fee} error={errors.fee} inputmode="decimal" maxLength={10} required />
        <Select name="consultation_minutes" label={t.join.minutes} options={CONSULTATION_LENGTHS.map((n) => ({ value: String(n), label: t.join.minutesOption.replace('{n}', String(n)) }))} value={form.consultation_minutes} error={errors.consultation_minutes} />
        <fieldset class="field" id="f-formats" aria-describedby={errors.formats ? 'f-formats-error' : undefined}>
          <legend>{t.join.formats}</legend>
          {errors.formats ? <span class="field-error" id="f-formats-error">{errors.formats}</span> : null}
          <Field name="video_url" label={t.join.videoUrl} hint={t.join.videoHint} value={form.video_url} error={errors.video_url} autocomplete="url" maxLength={500} placeholder="https://" />
          <label class="check">
            <input type="checkbox" name="phone" value="on" checked={form.phone} /> {t.join.phone}
          </label>
          <Field name="office_address" label={t.join.officeAddress} hint={t.join.officeHint} value={form.office_address} error={errors.office_address} autocomplete="street-address" maxLength={200} />
        </fieldset>
        <div class="field">
          <label for="f-bio">{t.join.bio}</label>
          <textarea id="f-bio" name="bio" rows={5} maxLength={1000} aria-describedby={errors.bio ? 'f-bio-hint f-bio-error' : 'f-bio-hint'} aria-invalid={errors.bio ? 'true' : undefined}>
            {form.bio}
          </textarea>
          <span class="hint" id="f-bio-hint">{t.join.bioHint}</span>
          {errors.bio ? <span class="field-error" id="f-bio-error">{errors.bio}</span> : null}
        </div>
        <button class="wide" type="submit">
          {t.join.submit}
        </button>
      </PostForm>
    </Layout>
  );
}

export function JoinPendingPage({ ctx, application, already }: { ctx: SiteContext; application: MyApplication; already: boolean }) {
  const { t, locale } = ctx;
  const a = application;
  const areaName = new Map(AREAS.map((x) => [x.slug, x.name]));
  const none = t.join.none;
  const rows: Array<[string, string]> = [
    [t.join.name, a.name],
    [t.join.colegio, a.colegio ? (barAssociationById(a.colegio.id)?.name ?? a.colegio.name) : none],
    [t.join.membershipNumber, a.membershipNumber ?? none],
    [t.join.city, CITIES.find((c) => c.slug === a.citySlug)?.name ?? a.citySlug],
    [t.join.languages, a.languages.map((l) => languageName(locale, l)).join(', ')],
    [t.join.practiceAreas, a.practiceAreas.map((p) => practiceAreaName(locale, p.slug, areaName.get(p.slug) ?? p.slug) + (p.isPrimary ? ` (${t.join.primaryArea.toLowerCase()})` : '')).join(', ')],
    [t.join.fee, euros(a.feeCents, locale)],
    [t.join.minutes, t.join.minutesOption.replace('{n}', String(a.consultationMinutes))],
    [t.join.videoUrl, a.videoUrl ?? none],
    [t.join.phone, a.formats.includes('phone') ? '✓' : none],
    [t.join.officeAddress, a.officeAddress ?? none],
    [t.join.bio, a.bio ?? none],
  ];
  const pending = a.status === 'applied';
  return (
    <Layout ctx={ctx} title={pending ? t.join.pendingTitle : t.join.title} narrow>
      <h1>{pending ? t.join.pendingTitle : t.join.title}</h1>
      {already ? (
        <Notice kind="warn" role="status">
          <p>{t.join.alreadyApplied}</p>
        </Notice>
      ) : null}
      {pending ? <p>{t.join.pendingText.replace('{email}', a.contactEmail ?? ctx.user?.email ?? '')}</p> : null}
      <p>
        <a class="button" href="/lawyer">
          {t.portal.fromJoin}
        </a>
      </p>
      <dl class="join-claim">
        <dt>{t.join.statusLabel}</dt>
        <dd>{t.join.status[a.status] ?? a.status}</dd>
        {a.statusReason ? (
          <>
            <dt>{t.join.reason}</dt>
            <dd>{a.statusReason}</dd>
          </>
        ) : null}
        <dt>{t.join.appliedOn}</dt>
        <dd>
          <time datetime={a.appliedAt}>{new Date(a.appliedAt).toLocaleDateString(intlTag(locale), { timeZone: 'Europe/Madrid', dateStyle: 'long' })}</time>
        </dd>
      </dl>
      <h2>{t.join.claimed}</h2>
      <dl class="join-claim">
        {rows.map(([k, v]) => (
          <>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </>
        ))}
      </dl>
      <Explanation ctx={ctx} />
    </Layout>
  );
}
