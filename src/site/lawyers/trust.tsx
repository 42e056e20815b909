/**
 * What makes a listed lawyer trustworthy at a glance (docs/site.md#trust), shared by the result
 * cards and the profile: the verified badge (a link to how we verify), her photo or initials at a
 * fixed size (no layout shift), and her offer — length, formats and price.
 */
import type { LawyerTrust } from '../../domain/directory/trust.service.ts';
import { initials } from '../../domain/directory/trust.service.ts';
import type { ConsultationFormat } from '../../domain/lawyers/listing.ts';
import type { FormOfAddress } from '../../i18n/form-of-address.ts';
import { intlTag } from '../../i18n/locales.ts';
import type { SiteContext } from '../context.ts';
import { euros } from '../ui/components.tsx';

/** The page that says how lawyers are verified; the badge and the footer link to it. */
export const VERIFY_PAGE = '/help/verification';

/** "Abogada verificada" / "Abogado verificado" / "Abogacía verificada": in her own form of address, neutral without one. */
export function VerifiedBadge({ ctx, form }: { ctx: SiteContext; form: FormOfAddress | null | undefined }) {
  const t = ctx.t.lawyer.trust;
  return (
    <a class="badge-verified" href={VERIFY_PAGE} title={t.badgeTitle}>
      <svg aria-hidden="true" width="16" height="16" viewBox="0 0 16 16" focusable="false">
        <circle cx="8" cy="8" r="8" fill="currentColor" />
        <path d="M4.5 8.2l2.2 2.2 4.8-4.8" fill="none" stroke="#fff" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round" />
      </svg>
      <span>{t.badge(form ?? null)}</span>
    </a>
  );
}

/** Her photo, or her initials in a circle; always `size` px square, so nothing moves when it loads. */
export function Avatar({ ctx, name, photoUrl, size }: { ctx: SiteContext; name: string; photoUrl: string | null; size: 56 | 96 }) {
  const cls = `avatar avatar-${size}`;
  if (photoUrl) return <img class={cls} src={photoUrl} width={size} height={size} alt={ctx.t.lawyer.trust.photoAlt(name)} loading={size === 56 ? 'lazy' : 'eager'} decoding="async" />;
  // The name is right beside it: the initials are decoration to a screen reader.
  return (
    <span class={`${cls} avatar-initials`} aria-hidden="true">
      {initials(name)}
    </span>
  );
}

/**
 * "rated 4.7/5 · 17 reviews": a rating is never shown without how many reviews it averages, so
 * one glowing review does not read like seventeen. No rating yet: the count alone ("0 reviews").
 */
export function ratingWithCount(ctx: SiteContext, averageRating: number | null, reviewCount: number): string {
  const count = ctx.t.lawyer.trust.reviewCount(reviewCount);
  return averageRating === null ? count : `${ctx.t.lawyer.rating(averageRating)} · ${count}`;
}

export function formatNames(ctx: SiteContext, formats: readonly ConsultationFormat[]): string {
  const t = ctx.t.lawyer.trust;
  const name = { video: t.video, phone: t.phone, in_person: t.inPerson } as const;
  // "video call, phone or in person": any one of them, at her choice of the person booking.
  return new Intl.ListFormat(intlTag(ctx.locale), { style: 'long', type: 'disjunction' }).format(formats.map((f) => name[f]));
}

/** "30-minute consultation · Ways to meet: video call and phone · €90". */
export function OfferFacts({ ctx, trust, feeCents }: { ctx: SiteContext; trust: LawyerTrust | undefined; feeCents: number }) {
  const t = ctx.t;
  return (
    <p class="offer-facts">
      {trust ? <span>{t.lawyer.trust.length(trust.consultationMinutes)}</span> : null}
      {trust && trust.formats.length > 0 ? (
        <span>
          {t.lawyer.trust.formatsLabel}
          {formatNames(ctx, trust.formats)}
        </span>
      ) : null}
      <span>
        <span class="price">{euros(feeCents, ctx.locale)}</span> {t.lawyer.perConsultation}
      </span>
    </p>
  );
}
