/**
 * "How reviews are verified" (/help/reviews): who may write one, one per consultation, 30 days
 * to edit, the lawyer's one answer, no paid or selected reviews, what is hidden and why, how the
 * average is computed, how to report — the information the Omnibus directive (Directive (EU)
 * 2019/2161, art. 7(6) of the Unfair Commercial Practices Directive) asks of platforms that show
 * consumer reviews. docs/reviews.md.
 */
import { HIDE_REASONS } from '../../domain/reviews/review-moderation.service.ts';
import type { SiteContext } from '../context.ts';
import { Layout } from '../ui/layout.tsx';

export function ReviewsHelpPage({ ctx }: { ctx: SiteContext }) {
  const t = ctx.t.reviewReports.help;
  return (
    <Layout ctx={ctx} title={t.title}>
      <div class="prose">
        <h1>{t.title}</h1>
        <p class="lead">{t.intro}</p>
        <h2>{t.whoHeading}</h2>
        <p>{t.who}</p>
        <h2>{t.oneHeading}</h2>
        <p>{t.one}</p>
        <h2>{t.editHeading}</h2>
        <p>{t.edit}</p>
        <h2>{t.answerHeading}</h2>
        <p>{t.answer}</p>
        <h2>{t.notPaidHeading}</h2>
        <p>{t.notPaid}</p>
        <h2 id="hidden">{t.shownHeading}</h2>
        <p>{t.shown}</p>
        <ul>
          {HIDE_REASONS.map((r) => (
            <li>{t.hideReasons[r]}</li>
          ))}
        </ul>
        <p>{t.hiddenRecord}</p>
        <h2>{t.averageHeading}</h2>
        <p>{t.average}</p>
        <h2 id="report">{t.reportHeading}</h2>
        <p>{t.report}</p>
        <p>
          <a href="/contact">{ctx.t.face.footer.contact}</a>
        </p>
      </div>
    </Layout>
  );
}
