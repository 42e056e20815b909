/**
 * Developers → Booking widget (`/developer/widget`; docs/widget.md): the person's publishable
 * keys (theirs and their firms'), a form to create one, and the snippet generator — a GET form
 * whose answer is the snippet to copy and a live preview (the frame itself, framed by our own
 * origin: `preview=1` adds 'self' to its frame-ancestors). Rules are KeysService's.
 */
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import { keyStatus } from '../../domain/access/api-key.ts';
import type { ApiKeyRecord, Actor } from '../../domain/access/types.ts';
import { DomainError } from '../../domain/errors.ts';
import { LOCALES } from '../../i18n/index.ts';
import type { SiteContext } from '../context.ts';
import type { DashboardDeps } from '../dashboard-deps.ts';
import { requireUser } from '../guards.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { CopyButton, DashboardLayout } from '../ui/dashboard.tsx';
import { carry, widgetParams } from './widget.routes.ts';

type Q = Record<string, unknown>;
const text = (v: unknown, max = 200): string => (typeof v === 'string' ? v.slice(0, max).trim() : '');

interface Choice {
  key: string;
  show: 'lawyer' | 'firm' | 'search';
  lawyer: string;
  city: string;
  area: string;
  language: string;
  remote: boolean;
  mode: 'inline' | 'popup' | 'floating';
  lang: string;
  color: string;
  radius: string;
}

function choiceOf(q: Q, keys: ApiKeyRecord[]): Choice {
  const tokens = keys.map((k) => k.publicToken!);
  const key = typeof q.key === 'string' && tokens.includes(q.key) ? q.key : (tokens[0] ?? '');
  const show = q.show === 'firm' || q.show === 'search' ? q.show : 'lawyer';
  const mode = q.mode === 'popup' || q.mode === 'floating' ? q.mode : 'inline';
  return {
    key,
    show,
    lawyer: /^[0-9a-f-]{36}$/i.test(text(q.lawyer)) ? text(q.lawyer) : '',
    city: text(q.city, 100),
    area: /^[a-z0-9-]{0,100}$/.test(text(q.area)) ? text(q.area) : '',
    language: text(q.language, 60),
    remote: q.remote === '1',
    mode,
    lang: (LOCALES as readonly string[]).includes(text(q.lang)) ? text(q.lang) : '',
    color: /^#?[0-9a-f]{6}$/i.test(text(q.color)) ? text(q.color).replace('#', '').toLowerCase() : '',
    radius: /^\d{1,2}$/.test(text(q.radius)) ? text(q.radius) : '',
  };
}

const attr = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

/** The script tag for a choice (attributes in a fixed order, values escaped for an attribute). */
export function snippetOf(siteUrl: string, c: Choice): string {
  const a: Array<[string, string]> = [['data-key', c.key]];
  if (c.show === 'lawyer' && c.lawyer) a.push(['data-lawyer', c.lawyer]);
  if (c.show === 'firm') a.push(['data-firm', 'true']);
  if (c.show === 'search') {
    if (c.city) a.push(['data-city', c.city]);
    if (c.area) a.push(['data-practice-area', c.area]);
    if (c.language) a.push(['data-language', c.language]);
    if (c.remote) a.push(['data-remote', 'true']);
  }
  if (c.mode !== 'inline') a.push(['data-mode', c.mode]);
  if (c.lang) a.push(['data-lang', c.lang]);
  if (c.color) a.push(['data-color', c.color]);
  if (c.radius) a.push(['data-radius', c.radius]);
  return `<script src="${siteUrl}/embed.js" ${a.map(([k, v]) => `${k}="${attr(v)}"`).join(' ')} async></script>`;
}

/** The frame address for a choice (the iframe snippet, and the preview with `preview=1`). */
function frameOf(c: Choice, locale: string, extra: Record<string, string> = {}): string {
  const p = widgetParams({
    k: c.key,
    lang: c.lang || locale,
    c: c.color || undefined,
    r: c.radius || undefined,
    city: c.show === 'search' ? c.city : undefined,
    area: c.show === 'search' ? c.area : undefined,
    language: c.show === 'search' ? c.language : undefined,
    remote: c.show === 'search' && c.remote ? '1' : undefined,
    firm: c.show === 'firm' ? '1' : undefined,
  });
  const path = c.show === 'lawyer' && c.lawyer ? `/embed/lawyers/${c.lawyer}` : '/embed/search';
  return `${path}?${carry(p, extra)}`;
}

interface PageProps {
  ctx: SiteContext;
  keys: ApiKeyRecord[];
  firms: Array<{ slug: string; name: string }>;
  choice: Choice;
  siteUrl: string;
  created: boolean;
  error: boolean;
}

function WidgetDevPage({ ctx, keys, firms, choice: c, siteUrl, created, error }: PageProps) {
  const t = ctx.t.widgetDev;
  const snippet = c.key ? snippetOf(siteUrl, c) : '';
  const frame = c.key ? frameOf(c, ctx.locale) : '';
  const iframe = c.key ? `<iframe src="${siteUrl}${frame.replaceAll('&', '&amp;')}" title="${attr(ctx.t.widget.frameTitle)}" style="width:100%;height:640px;border:0"></iframe>` : '';
  const radio = (name: string, value: string, label: string, checked: boolean) => (
    <label class="choice">
      <input type="radio" name={name} value={value} checked={checked} /> {label}
    </label>
  );
  return (
    <DashboardLayout ctx={ctx} title={t.title} current="widget">
      <h1>{t.title}</h1>
      <p>{t.intro}</p>
      {created ? <Notice kind="ok" role="status">{t.created}</Notice> : null}
      <section class="card" aria-labelledby="wk">
        <h2 id="wk">{t.keysTitle}</h2>
        {keys.length === 0 ? <p>{t.noKeys}</p> : null}
        <ul>
          {keys.map((k) => (
            <li>
              <code>{k.publicToken}</code> {k.name ? `— ${k.name}` : ''} <span class="meta">{t.origins((k.allowedOrigins ?? []).join(', '))}</span>
            </li>
          ))}
        </ul>
      </section>
      {keys.length > 0 ? (
        <section class="card" aria-labelledby="wg">
          <h2 id="wg">{t.generatorTitle}</h2>
          <form method="get" action="/developer/widget">
            <p>
              <label for="w-key">{t.keyLabel}</label>
              <select id="w-key" name="key">
                {keys.map((k) => (
                  <option value={k.publicToken!} selected={k.publicToken === c.key}>
                    {k.prefix}… {k.name ?? ''}
                  </option>
                ))}
              </select>
            </p>
            <fieldset>
              <legend>{t.showLabel}</legend>
              {radio('show', 'lawyer', t.showLawyer, c.show === 'lawyer')}
              {radio('show', 'firm', t.showFirm, c.show === 'firm')}
              {radio('show', 'search', t.showSearch, c.show === 'search')}
            </fieldset>
            {(
              [
                ['lawyer', t.lawyerLabel, c.lawyer],
                ['city', t.cityLabel, c.city],
                ['area', t.areaLabel, c.area],
                ['language', t.languageLabel, c.language],
                ['color', t.colorLabel, c.color],
                ['radius', t.radiusLabel, c.radius],
              ] as const
            ).map(([name, label, value]) => (
              <p>
                <label for={`w-${name}`}>{label}</label>
                <input id={`w-${name}`} name={name} type="text" value={value} />
              </p>
            ))}
            <p>
              <label class="choice">
                <input type="checkbox" name="remote" value="1" checked={c.remote} /> {t.remoteLabel}
              </label>
            </p>
            <fieldset>
              <legend>{t.widgetModeLabel}</legend>
              {radio('mode', 'inline', t.inline, c.mode === 'inline')}
              {radio('mode', 'popup', t.popup, c.mode === 'popup')}
              {radio('mode', 'floating', t.floating, c.mode === 'floating')}
            </fieldset>
            <p>
              <label for="w-lang">{t.langLabel}</label>
              <select id="w-lang" name="lang">
                <option value="" selected={c.lang === ''}>{t.langAuto}</option>
                {LOCALES.map((l) => (
                  <option value={l} selected={c.lang === l}>{l}</option>
                ))}
              </select>
            </p>
            <button type="submit">{t.update}</button>
          </form>
          <p>
            <label for="w-snippet">{t.snippetLabel}</label>
            <textarea id="w-snippet" readonly rows={4} class="code">{snippet}</textarea>
            <CopyButton source="w-snippet" label={t.copySnippet} copied={t.copied} />
          </p>
          <p>
            <label for="w-iframe">{t.iframeLabel}</label>
            <textarea id="w-iframe" readonly rows={3} class="code">{iframe}</textarea>
            <CopyButton source="w-iframe" label={t.copyIframe} copied={t.copied} />
          </p>
          <h3>{t.previewTitle}</h3>
          <p class="meta">{t.previewNote}</p>
          <iframe class="widget-preview" src={frameOf(c, ctx.locale, { preview: '1', host: new URL(siteUrl).origin })} title={t.previewTitle} width="100%" height="560" />
          <p>
            <a href="/docs/widget">{t.docs}</a>
          </p>
        </section>
      ) : null}
      <section class="card" aria-labelledby="wc">
        <h2 id="wc">{t.createTitle}</h2>
        {error ? <Notice kind="bad" role="alert">{t.errOrigins}</Notice> : null}
        <PostForm ctx={ctx} action="/developer/widget/keys">
          <p>
            <label for="w-origins">{t.originsLabel}</label>
            <textarea id="w-origins" name="origins" rows={3} required aria-describedby="w-origins-hint" />
            <span class="hint" id="w-origins-hint">{t.originsHint}</span>
          </p>
          <fieldset>
            <legend>{t.modeLabel}</legend>
            {radio('mode', 'live', t.live, true)}
            {radio('mode', 'test', t.test, false)}
          </fieldset>
          <p>
            <label for="w-owner">{t.ownerLabel}</label>
            <select id="w-owner" name="owner">
              <option value="">{t.personal}</option>
              {firms.map((f) => (
                <option value={f.slug}>{f.name}</option>
              ))}
            </select>
          </p>
          <p>
            <label for="w-name">{t.nameLabel}</label>
            <input id="w-name" name="name" type="text" maxLength={100} />
          </p>
          <button type="submit">{t.create}</button>
        </PostForm>
      </section>
    </DashboardLayout>
  );
}

export function widgetDeveloperArea({ keys, accounts, clock, config, access }: DashboardDeps) {
  /** The person's publishable keys that work now: personal, and of the firms where they may manage keys. */
  const keysOf = async (actor: Actor) => {
    const firms = (await accounts.listMyFirms(actor)).map((f) => ({ slug: f.slug, name: f.name }));
    const lists = [await keys.list(actor)];
    const managed: typeof firms = [];
    for (const f of firms) {
      try {
        lists.push(await keys.list(actor, { firmSlug: f.slug }));
        managed.push(f);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
      }
    }
    const now = clock.now();
    return { keys: lists.flat().filter((k) => k.kind === 'publishable' && keyStatus(k, now) === 'active'), firms: managed };
  };

  return async (site: FastifyInstance) => {
    site.get('/developer/widget', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const q = (request.query ?? {}) as Q;
      const { keys: mine, firms } = await keysOf({ type: 'user', userId: user.id });
      return reply.page(h(WidgetDevPage, { ctx: request.site, keys: mine, firms, choice: choiceOf(q, mine), siteUrl: config.siteUrl, created: q.created === '1', error: q.error === 'origins' }));
    });

    site.post('/developer/widget/keys', { schema: { hide: true } }, async (request, reply) => {
      const user = requireUser(request, reply);
      if (!user) return reply;
      const body = (request.body ?? {}) as Q;
      const actor: Actor = { type: 'user', userId: user.id };
      const origins = text(body.origins, 4000).split(/[\s,]+/).filter(Boolean).slice(0, 25);
      const owner = text(body.owner) ? { firmSlug: text(body.owner) } : { ownerEmail: user.email };
      try {
        const created = await keys.create(actor, owner, { mode: body.mode === 'test' ? 'test' : 'live', publishable: true, origins, name: text(body.name, 100) || null });
        access.invalidate();
        return reply.code(303).redirect(`/developer/widget?created=1&key=${encodeURIComponent(created.token)}`);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'invalid_request') return reply.code(303).redirect('/developer/widget?error=origins');
        throw err;
      }
    });
  };
}
