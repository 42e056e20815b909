import type { ComponentChildren } from 'preact';
/**
 * The lawyer's public profile (profile_url): who she is and why she can be trusted (badge, what
 * was checked, photo or initials, reviews — docs/site.md#trust), her offer, and her bio in the
 * reader's language when she wrote one. Every third-party text is shown as escaped plain text.
 */
import type { LawyerProfile } from '../../contract/directory.ts';
import { bioFor, type LawyerTrust, type ProfileTrust } from '../../domain/directory/trust.service.ts';
import type { SiteContext } from '../context.ts';
import { formatDay } from '../../i18n/format.ts';
import { languageName, listOf, practiceAreaName } from '../../i18n/reference.ts';
import { Layout } from '../ui/layout.tsx';
import { Avatar, OfferFacts, ratingWithCount, VERIFY_PAGE, VerifiedBadge } from './trust.tsx';
import { ProfileReviews, type ReviewsPaging } from '../reviews/review.page.tsx';
import { OfferSummary } from '../booking/purchase.tsx';
import { quote } from '../../domain/booking/quote.ts';

export interface ProfilePageProps {
  ctx: SiteContext;
  lawyer: LawyerProfile;
  trust: LawyerTrust | undefined;
  extras: ProfileTrust;
  /** The page of reviews shown (`?reviews=`), validated by the route. */
  paging: ReviewsPaging;
  /** "This lawyer does not speak Arabic" (language-match.tsx), when she speaks none of the visitor's languages. */
  languageNotice?: ComponentChildren;
}

export function ProfilePage({ ctx, lawyer: p, trust, extras, paging, languageNotice }: ProfilePageProps) {
  const { t } = ctx;
  const tt = t.lawyer.trust;
  const bio = bioFor(ctx.locale, extras.bios, p.bio);
  const v = trust?.verification ?? null;
  const reviewCount = p.review_count;
  return (
    <Layout ctx={ctx} title={p.name}>
      <div class="profile-head">
        <Avatar ctx={ctx} name={p.name} photoUrl={trust?.photoUrl ?? null} size={96} />
        <div>
          <h1>{p.name}</h1>
          <VerifiedBadge ctx={ctx} form={trust?.formOfAddress} />
          <p class="meta">
            {p.city} · {t.lawyer.speaks(listOf(ctx.locale, p.languages.map((code) => languageName(ctx.locale, code))))}
          </p>
        </div>
      </div>
      {languageNotice}
      <OfferFacts ctx={ctx} trust={trust} feeCents={p.consultation_fee_cents} />
      <OfferSummary ctx={ctx} minutes={p.consultation_minutes} formats={p.formats} quote={quote(p)} />
      <p class="meta">
        {ratingWithCount(ctx, p.average_rating, reviewCount)}
        {p.total_bookings !== null ? ` · ${t.lawyer.bookings(p.total_bookings)}` : ''}
      </p>
      <p>
        {p.next_available ? t.lawyer.nextAvailable(formatDay(p.next_available, ctx.locale)) : t.lawyer.noneSoon}{' '}
        <a class="button" href={`/lawyers/${p.id}/book`}>
          {t.lawyer.seeTimes}
        </a>
      </p>
      {v ? (
        <section class="card checked" aria-labelledby="checked-heading">
          <h2 id="checked-heading">{tt.checked}</h2>
          <dl class="facts">
            <dt>{tt.colegio}</dt>
            <dd>{v.colegio}</dd>
            {v.membershipNumber ? (
              <>
                <dt>{tt.number}</dt>
                <dd>{v.membershipNumber}</dd>
              </>
            ) : null}
            <dt>{tt.checkedOn}</dt>
            <dd>
              <time datetime={v.verifiedOn}>{formatDay(v.verifiedOn, ctx.locale)}</time>
            </dd>
            <dt>{tt.validUntil}</dt>
            <dd>
              <time datetime={v.validUntil}>{formatDay(v.validUntil, ctx.locale)}</time>
            </dd>
          </dl>
          <p>
            <a href={VERIFY_PAGE}>{tt.howWeVerify}</a>
          </p>
        </section>
      ) : null}
      <h2>{t.lawyer.areas}</h2>
      <ul>
        {p.practice_areas.map((a) => (
          <li>
            {practiceAreaName(ctx.locale, a.slug, a.name)}
            {a.is_primary ? <small> ({t.lawyer.mainArea})</small> : null}
          </li>
        ))}
      </ul>
      {bio ? (
        <>
          <h2>{t.lawyer.about(trust?.formOfAddress ?? null)}</h2>
          <p class="bio" dir="auto">{bio}</p>
        </>
      ) : null}
      <ProfileReviews ctx={ctx} reviews={extras.reviews} reviewCount={reviewCount} paging={paging} />
      <h2>{t.lawyer.bars}</h2>
      <ul>
        {p.bar_memberships.map((b) => (
          <li>
            {b.bar_name}
            {b.verified ? ` ✓ ${t.lawyer.verified}` : ''}
          </li>
        ))}
      </ul>
    </Layout>
  );
}
