/**
 * The console's applications queue (docs/lawyers.md#joining-and-verification): the waiting
 * applications, oldest first, and one application — what she claims (escaped: it is her own
 * text), where to check it (the census, with the values to type there, and her colegio's
 * website), then verify (a note, what was checked) or refuse (a reason, emailed to her).
 */
import type { ApplicationReview } from '../../domain/lawyers/application-review.ts';
import type { Application } from '../../domain/lawyers/verification.service.ts';
import { CITIES } from '../../domain/demo/spain.ts';
import { PRACTICE_AREAS, type PracticeAreaData } from '../../domain/demo/practice-areas.ts';
import { euros, formatInstant } from '../../i18n/format.ts';
import { languageName, practiceAreaName } from '../../i18n/reference.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { Frame } from './operator.page.tsx';

const AREA_NAMES = new Map<string, string>();
(function walk(list: readonly PracticeAreaData[]) {
  for (const a of list) {
    AREA_NAMES.set(a.slug, a.name);
    walk(a.children ?? []);
  }
})(PRACTICE_AREAS);

const cityName = (slug: string) => CITIES.find((c) => c.slug === slug)?.name ?? slug;
const when = (ctx: SiteContext, iso: string) => formatInstant(iso, 'Europe/Madrid', ctx.locale);

export function ApplicationsPage({ ctx, applications, done }: { ctx: SiteContext; applications: Application[]; done?: string }) {
  const t = ctx.t.applicationsQueue;
  const doneText = done ? t.done[done] : undefined;
  return (
    <Frame ctx={ctx} title={t.title} tab="applications">
      <h1>{t.title}</h1>
      {doneText ? <Notice kind="ok" role="status">{doneText}</Notice> : null}
      <p>{t.intro}</p>
      {applications.length === 0 ? (
        <p>{t.none}</p>
      ) : (
        <ol class="cards">
          {applications.map((a) => {
            const m = a.memberships[0];
            return (
              <li class="card">
                <p class="key-title">
                  <a href={`/operator/applications/${a.id}`}>{a.name}</a>
                </p>
                <div class="meta">
                  {m ? (m.colegio?.name ?? m.barName) : '—'} · {cityName(a.citySlug)} · {t.appliedOn(when(ctx, a.appliedAt))}
                </div>
              </li>
            );
          })}
        </ol>
      )}
    </Frame>
  );
}

export interface DecisionForms {
  note?: string;
  checked?: string[];
  reason?: string;
  errors?: Partial<Record<'note' | 'checked' | 'reason', string>>;
  problem?: string;
}

function TextArea({ name, label, hint, value, error, rows = 4 }: { name: string; label: string; hint?: string; value?: string; error?: string; rows?: number }) {
  const id = `f-${name}`;
  const describedBy = [hint ? `${id}-hint` : null, error ? `${id}-error` : null].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <textarea id={id} name={name} rows={rows} maxLength={2000} required aria-invalid={error ? 'true' : undefined} aria-describedby={describedBy}>
        {value ?? ''}
      </textarea>
      {hint ? <span class="hint" id={`${id}-hint`}>{hint}</span> : null}
      {error ? <span class="field-error" id={`${id}-error`}>{error}</span> : null}
    </div>
  );
}

export function ApplicationPage({ ctx, review, forms = {} }: { ctx: SiteContext; review: ApplicationReview; forms?: DecisionForms }) {
  const t = ctx.t.applicationsQueue;
  const { locale } = ctx;
  const a = review.application;
  const url = `/operator/applications/${a.id}`;
  const pending = a.status === 'applied';
  const errors = Object.entries(forms.errors ?? {}) as Array<[string, string]>;
  const checked = new Set(forms.checked ?? []);
  const formats = a.formats.map((f) => t.formatNames[f] ?? f).join(', ');
  const title = t.detailTitle(a.name);
  const rows: Array<[string, string]> = [
    [t.name, a.name],
    [t.colegio, a.colegio?.name ?? t.unknownColegio],
    [t.membershipNumber, a.membershipNumber ?? '—'],
    [t.city, cityName(a.citySlug)],
    [t.languages, a.languages.map((l) => languageName(locale, l)).join(', ') || '—'],
    [t.areas, a.practiceAreas.map((p) => practiceAreaName(locale, p.slug, AREA_NAMES.get(p.slug) ?? p.slug) + (p.isPrimary ? ` ${t.primary}` : '')).join(', ') || '—'],
    [t.fee, euros(a.feeCents, locale)],
    [t.length, t.minutes(a.consultationMinutes)],
    [t.formats, formats || '—'],
    [t.videoUrl, a.videoUrl ?? '—'],
    [t.office, a.officeAddress ?? '—'],
    [t.contactEmail, review.email ?? '—'],
    [t.appliedAt, when(ctx, a.appliedAt)],
    [t.status, t.statuses[a.status] ?? a.status],
  ];
  return (
    <Frame ctx={ctx} title={errors.length > 0 ? `${t.errorTitle} — ${title}` : title} tab="applications">
      <p>
        <a href="/operator/applications">{t.back}</a>
      </p>
      <h1>{title}</h1>
      {errors.length > 0 ? (
        <div class="notice bad error-summary" role="alert" tabindex={-1} id="error-summary" autofocus aria-labelledby="error-summary-title">
          <h2 id="error-summary-title">{t.errorTitle}</h2>
          <ul>
            {errors.map(([field, message]) => (
              <li>
                <a href={field === 'checked' ? '#f-checked-census' : `#f-${field}`}>{message}</a>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {forms.problem ? <Notice kind="bad" role="alert">{forms.problem}</Notice> : null}
      {!pending ? (
        <Notice kind="warn" role="status">
          <p>
            {t.notPending(t.statuses[a.status] ?? a.status)} <a href={`/operator/lawyers/${a.id}`}>{t.lawyerPage}</a>
          </p>
        </Notice>
      ) : null}
      <h2>{t.claimed}</h2>
      <dl class="facts">
        {rows.map(([label, value]) => (
          <>
            <dt>{label}</dt>
            <dd>{value}</dd>
          </>
        ))}
        <dt>{t.bio}</dt>
        <dd class="bio">{a.bio ?? '—'}</dd>
      </dl>
      <h2>{t.checkTitle}</h2>
      <p>{t.censusText}</p>
      <dl class="facts">
        <dt>{t.name}</dt>
        <dd class="mono">{a.name}</dd>
        <dt>{t.colegio}</dt>
        <dd class="mono">{a.colegio?.name ?? '—'}</dd>
        <dt>{t.membershipNumber}</dt>
        <dd class="mono">{a.membershipNumber ?? '—'}</dd>
      </dl>
      <ul>
        <li>
          <a href={review.censusUrl} rel="noopener noreferrer" target="_blank">{t.censusLink}</a>
        </li>
        <li>{review.colegioWebsite && a.colegio ? <a href={review.colegioWebsite} rel="noopener noreferrer" target="_blank">{t.colegioLink(a.colegio.name)}</a> : a.colegio ? t.noWebsite : t.unknownColegio}</li>
      </ul>
      {pending ? (
        <>
          <p class="meta">{t.stepUpNote}</p>
          <div class="cards">
            <section aria-labelledby="verify-title" class="card">
              <h2 id="verify-title">{t.verifyTitle}</h2>
              <PostForm ctx={ctx} action={`${url}/verify`} novalidate>
                <TextArea name="note" label={t.noteLabel} hint={t.noteHint} value={forms.note} error={forms.errors?.note} />
                <fieldset class="checks" aria-describedby={forms.errors?.checked ? 'f-checked-error' : undefined}>
                  <legend>{t.checkedLegend}</legend>
                  <label>
                    <input type="checkbox" id="f-checked-census" name="checked" value="census" checked={checked.has('census')} /> {t.checkedCensus}
                  </label>
                  <label>
                    <input type="checkbox" id="f-checked-colegio" name="checked" value="colegio" checked={checked.has('colegio')} /> {t.checkedColegio}
                  </label>
                  {forms.errors?.checked ? <span class="field-error" id="f-checked-error">{forms.errors.checked}</span> : null}
                </fieldset>
                <button type="submit">{t.verifyButton}</button>
              </PostForm>
            </section>
            <section aria-labelledby="refuse-title" class="card">
              <h2 id="refuse-title">{t.refuseTitle}</h2>
              <p>{t.refuseText}</p>
              <PostForm ctx={ctx} action={`${url}/refuse`} novalidate>
                <TextArea name="reason" label={t.reasonLabel} value={forms.reason} error={forms.errors?.reason} />
                <button type="submit" class="danger">{t.refuseButton}</button>
              </PostForm>
            </section>
          </div>
        </>
      ) : null}
    </Frame>
  );
}
