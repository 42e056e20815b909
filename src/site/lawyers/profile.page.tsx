/** The lawyer's public profile (profile_url). The bio is shown as escaped plain text. */
import type { LawyerProfile } from '../../contract/directory.ts';
import type { SiteContext } from '../context.ts';
import { euros } from '../ui/components.tsx';
import { formatDay } from '../../i18n/format.ts';
import { languageName, listOf, practiceAreaName } from '../../i18n/reference.ts';
import { Layout } from '../ui/layout.tsx';

export function ProfilePage({ ctx, lawyer: p }: { ctx: SiteContext; lawyer: LawyerProfile }) {
  const { t } = ctx;
  return (
    <Layout ctx={ctx} title={p.name}>
      <h1>{p.name}</h1>
      <p class="meta">
        {p.city} · {t.lawyer.speaks(listOf(ctx.locale, p.languages.map((code) => languageName(ctx.locale, code))))}
      </p>
      <p>
        <span class="price">{euros(p.consultation_fee_cents, ctx.locale)}</span> {t.lawyer.perConsultation}
        {p.average_rating !== null ? ` · ${t.lawyer.rating(p.average_rating)}` : ''}
        {p.total_bookings !== null ? ` · ${t.lawyer.bookings(p.total_bookings)}` : ''}
      </p>
      <p>
        {p.next_available ? t.lawyer.nextAvailable(formatDay(p.next_available, ctx.locale)) : t.lawyer.noneSoon}{' '}
        <a class="button" href={`/lawyers/${p.id}/book`}>
          {t.lawyer.seeTimes}
        </a>
      </p>
      <h2>{t.lawyer.areas}</h2>
      <ul>
        {p.practice_areas.map((a) => (
          <li>
            {practiceAreaName(ctx.locale, a.slug, a.name)}
            {a.is_primary ? <small> ({t.lawyer.mainArea})</small> : null}
          </li>
        ))}
      </ul>
      {p.bio ? (
        <>
          <h2>{t.lawyer.about}</h2>
          <p class="bio">{p.bio}</p>
        </>
      ) : null}
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
