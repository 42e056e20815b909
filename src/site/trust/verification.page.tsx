/** "How we verify lawyers": what the operator checks, for how long, and what ends a listing (docs/lawyers.md). */
import type { SiteContext } from '../context.ts';
import { Layout } from '../ui/layout.tsx';

export function VerificationPage({ ctx }: { ctx: SiteContext }) {
  const t = ctx.t.lawyer.trust.page;
  return (
    <Layout ctx={ctx} title={t.title}>
      <div class="prose">
        <h1>{t.title}</h1>
        <p class="lead">{t.intro}</p>
        <h2>{t.checkHeading}</h2>
        <ul>
          <li>{t.checkCensus}</li>
          <li>{t.checkColegio}</li>
        </ul>
        <p>{t.checkShown}</p>
        <h2>{t.lastsHeading}</h2>
        <p>{t.lasts}</p>
        <h2>{t.endsHeading}</h2>
        <p>{t.ends}</p>
        <p>{t.booked}</p>
        <p>
          <a href="/contact">{t.wrong}</a>
        </p>
      </div>
    </Layout>
  );
}
