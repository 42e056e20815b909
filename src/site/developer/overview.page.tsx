/**
 * The developer dashboard's overview (`/developer`): the getting-started checklist, each step
 * done or not as GettingStartedService found it with the action that does it, then the way to
 * every developer page and to the person's firms. Renders what the route hands it.
 */
import type { ChecklistStep, GettingStarted } from '../../domain/access/getting-started.service.ts';
import type { Firm } from '../../domain/access/accounts.service.ts';
import type { FirmRole } from '../../domain/access/types.ts';
import type { SiteContext } from '../context.ts';
import { Notice } from '../ui/components.tsx';
import { DashboardLayout } from '../ui/dashboard.tsx';

export interface OverviewProps {
  ctx: SiteContext;
  progress: GettingStarted;
  firms: Array<Pick<Firm, 'slug' | 'name'> & { role: FirmRole }>;
  /** The API's base URL, for the example request. */
  apiBase: string;
}

/** Where each open step's button goes, and what it says. */
function action(ctx: SiteContext, step: ChecklistStep, progress: GettingStarted): { href: string; label: string } {
  const t = ctx.t.overview;
  switch (step) {
    case 'test_key':
      return { href: '/developer/keys/new?mode=test', label: t.actionTestKey };
    case 'first_request':
      return { href: '/docs/api', label: t.actionCall };
    case 'log_seen':
      return { href: '/developer/requests', label: t.actionLog };
    case 'webhook':
      return { href: '/developer/webhooks/new', label: t.actionWebhook };
    case 'live':
      return progress.hasLiveKey ? { href: '/developer/requests?mode=live', label: t.actionLiveRequests } : { href: '/developer/keys/new?mode=live', label: t.actionLiveKey };
    case 'widget':
      return { href: '/developer/widget', label: t.actionWidget };
  }
}

export function OverviewPage({ ctx, progress, firms, apiBase }: OverviewProps) {
  const t = ctx.t.overview;
  const doneCount = progress.steps.filter((s) => s.done).length;
  const areas: Array<[string, string, string]> = [
    ['/developer/keys', ctx.t.dashboard.keys, t.keysBlurb],
    ['/developer/webhooks', ctx.t.dashboard.webhooks, t.webhooksBlurb],
    ['/developer/requests', ctx.t.dashboard.requests, t.requestsBlurb],
    ['/developer/usage', ctx.t.dashboard.usage, t.usageBlurb],
  ];
  return (
    <DashboardLayout ctx={ctx} title={t.title} current="overview">
      <h1>{t.title}</h1>
      <p>{t.intro}</p>
      <section class="card getting-started" aria-labelledby="gs-title">
        <h2 id="gs-title">{t.checklistTitle}</h2>
        <p class="meta" id="gs-progress">{t.progress(doneCount, progress.steps.length)}</p>
        {progress.next === null ? (
          <Notice kind="ok" role="status">{t.allDone}</Notice>
        ) : null}
        <ol class="checklist" aria-describedby="gs-progress">
          {progress.steps.map(({ step, done }, i) => {
            const next = progress.next === step;
            const go = done ? null : action(ctx, step, progress);
            return (
              <li class={`checklist-step${done ? ' done' : ''}${next ? ' next' : ''}`} data-step={step} data-done={done ? 'yes' : 'no'}>
                <h3 class="checklist-title">
                  <span class="checklist-number" aria-hidden="true">{i + 1}</span>
                  <span class="checklist-name">
                    {t.steps[step].title} {done ? <span class="badge ok">{t.done}</span> : <span class="badge">{t.todo}</span>}
                  </span>
                </h3>
                {/* A done step is its title alone: the list stays short on a phone. */}
                {done ? null : <p>{t.steps[step].text}</p>}
                {step === 'first_request' && !done ? <pre class="mono wrap">{`curl -H "Authorization: Bearer ${t.yourKey}" ${apiBase}/key`}</pre> : null}
                {go ? (
                  <p class="checklist-action">
                    {/* The next step's action is the page's button; the others are plain links. */}
                    <a class={next ? 'button' : undefined} href={go.href}>{go.label}</a>
                  </p>
                ) : null}
              </li>
            );
          })}
        </ol>
        <p class="hint">{t.whoseWork}</p>
      </section>

      <h2>{t.areasTitle}</h2>
      <ul class="cards columns overview-areas">
        {areas.map(([href, label, blurb]) => (
          <li class="card">
            <h3>
              <a href={href}>{label}</a>
            </h3>
            <p>{blurb}</p>
          </li>
        ))}
      </ul>

      {firms.length > 0 ? (
        <>
          <h2>{t.firmsTitle}</h2>
          <p>{t.firmsIntro}</p>
          <ul class="cards columns">
            {firms.map((firm) => (
              <li class="card">
                <h3>
                  <a href={`/firms/${encodeURIComponent(firm.slug)}`}>{firm.name}</a>
                </h3>
                <p class="meta">{ctx.t.firms.roles[firm.role]}</p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </DashboardLayout>
  );
}
