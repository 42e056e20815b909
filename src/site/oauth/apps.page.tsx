/** Connected apps (`/account/apps`): each AI app with its level and last use, and a revoke button. */
import type { ConnectedApp } from '../../domain/oauth/connected-apps.service.ts';
import { peopleInstant } from '../../i18n/reference.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { AccountAreaLayout } from '../ui/dashboard.tsx';

const ZONE = 'Europe/Madrid';

export function ConnectedAppsPage({ ctx, apps, notice }: { ctx: SiteContext; apps: ConnectedApp[]; notice?: string }) {
  const t = ctx.t.oauth;
  const when = (iso: string | null) => (iso ? peopleInstant(ctx.locale, iso, ZONE) : t.appNever);
  return (
    <AccountAreaLayout ctx={ctx} title={t.appsTitle} current="apps">
      <h1>{t.appsTitle}</h1>
      {notice ? <Notice kind="ok" role="status">{notice}</Notice> : null}
      <p>{t.appsIntro}</p>
      {apps.length === 0 ? (
        <p>{t.appsNone}</p>
      ) : (
        <ul class="cards">
          {apps.map((app) => (
            <li class="card">
              <h2>
                {app.clientName} <span class="badge test">{t.unverified}</span>
              </h2>
              <dl class="facts">
                <dt>{t.appLevel}</dt>
                <dd>{app.levels.length > 0 ? app.levels.map((l) => t.levels[l].name).join(' · ') : '—'}</dd>
                <dt>{t.appReturnsTo}</dt>
                <dd class="mono">{app.redirectHost ?? '—'}</dd>
                <dt>{t.appHow}</dt>
                <dd>{t.appKind[app.kind]}</dd>
                <dt>{t.appGranted}</dt>
                <dd>{when(app.grantedAt)}</dd>
                <dt>{t.appLastUsed}</dt>
                <dd>{when(app.lastUsedAt)}</dd>
              </dl>
              <PostForm ctx={ctx} action={`/account/apps/${encodeURIComponent(app.grantId)}/revoke`} class="inline">
                <button type="submit" class="secondary" aria-label={t.revokeLabel(app.clientName)}>
                  {t.revoke}
                </button>
              </PostForm>
            </li>
          ))}
        </ul>
      )}
    </AccountAreaLayout>
  );
}
