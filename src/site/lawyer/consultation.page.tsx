/** /lawyer/consultation: the length of her consultation and its formats (at least one). No-JS form. */
import { CONSULTATION_LENGTHS } from '../../domain/lawyers/calendar-rules.ts';
import type { PortalOffer } from '../../domain/lawyers/portal.service.ts';
import type { SiteContext } from '../context.ts';
import { Field, PostForm, Select } from '../ui/components.tsx';
import { ErrorSummary, PortalLayout, SavedNotice, type PortalErrors } from './portal.pages.tsx';

export interface OfferForm {
  consultation_minutes: string;
  video_url: string;
  phone: boolean;
  office_address: string;
}

export const offerForm = (o: PortalOffer): OfferForm => ({ consultation_minutes: String(o.consultationMinutes), video_url: o.videoUrl ?? '', phone: o.offersPhone, office_address: o.officeAddress ?? '' });

export function ConsultationPage({ ctx, form, errors, saved }: { ctx: SiteContext; form: OfferForm; errors: PortalErrors; saved: string | null }) {
  const { t } = ctx;
  const j = t.join;
  const title = Object.keys(errors).length > 0 ? `${t.portal.errorTitle} — ${t.portal.consultationTitle}` : t.portal.consultationTitle;
  return (
    <PortalLayout ctx={ctx} title={title} current="consultation">
      <h1>{t.portal.consultationTitle}</h1>
      <ErrorSummary ctx={ctx} errors={errors} />
      <SavedNotice message={saved} />
      <p>{t.portal.consultationIntro}</p>
      <PostForm ctx={ctx} action="/lawyer/consultation" class="join-form" novalidate>
        <Select name="consultation_minutes" label={j.minutes} options={CONSULTATION_LENGTHS.map((n) => ({ value: String(n), label: j.minutesOption.replace('{n}', String(n)) }))} value={form.consultation_minutes} error={errors.consultation_minutes} />
        <fieldset class="field" id="f-formats" aria-describedby={errors.formats ? 'f-formats-error' : undefined}>
          <legend>{j.formats}</legend>
          {errors.formats ? <span class="field-error" id="f-formats-error">{errors.formats}</span> : null}
          <Field name="video_url" label={j.videoUrl} hint={j.videoHint} value={form.video_url} error={errors.video_url} autocomplete="url" maxLength={500} placeholder="https://" />
          <label class="check">
            <input type="checkbox" name="phone" value="on" checked={form.phone} /> {j.phone}
          </label>
          <Field name="office_address" label={j.officeAddress} hint={j.officeHint} value={form.office_address} error={errors.office_address} autocomplete="street-address" maxLength={200} />
        </fieldset>
        <button class="wide" type="submit">
          {t.portal.save}
        </button>
      </PostForm>
    </PortalLayout>
  );
}
