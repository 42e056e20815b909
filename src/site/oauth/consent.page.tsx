/**
 * The consent page of the authorization server: which app asks (its self-declared name, marked
 * unverified), where the answer goes back to, and the three cumulative levels. Selected: the
 * least the app needs for the tools it tried (the level the MCP server's last challenge named,
 * else the first), within what it asks, or what it may already do if that is more. An app asking
 * for more than that (the MCP Inspector asks for every level) does not get it by one click: the
 * page says so, and marks each extra level. An app asking again for less never lowers its grant
 * unless the person picks a lower level, which the page says takes something away.
 * Allow and deny are separate forms, each with its CSRF token.
 */
import { LEVELS, type Level } from '../../domain/oauth/levels.ts';
import type { SiteContext } from '../context.ts';
import { Notice, PostForm } from '../ui/components.tsx';
import { Layout } from '../ui/layout.tsx';

export interface ConsentView {
  uid: string;
  clientName: string;
  /** Every client is self-declared today (registered or metadata document): always true. */
  unverified: boolean;
  /** Host (and port) of the redirect URI of this request. */
  redirectHost: string;
  /** Every redirect URI of the client is on a loopback address. */
  localhostOnly: boolean;
  requested: Level;
  /** What the app may already do (a step-up, or asked again), or null for a first connection. */
  current: Level | null;
  /** The level the MCP server's last insufficient_scope challenge named for this person and app, or null. */
  challenged: Level | null;
}

const rank = (level: Level) => LEVELS.indexOf(level);

/**
 * The level selected on the page: what the tools the app tried need (the challenged level, else
 * the first: a first connection's 401 names directory:read), no more than it asks, or what it
 * may already do if that is more.
 */
export function preselectedLevel(view: Pick<ConsentView, 'requested' | 'current' | 'challenged'>): Level {
  const needed = view.challenged ?? LEVELS[0];
  const wanted = rank(needed) < rank(view.requested) ? needed : view.requested;
  return view.current !== null && rank(view.current) > rank(wanted) ? view.current : wanted;
}

export function ConsentPage({ ctx, view }: { ctx: SiteContext; view: ConsentView }) {
  const t = ctx.t.oauth;
  const action = `/oauth/interaction/${encodeURIComponent(view.uid)}`;
  const selected = preselectedLevel(view);
  const lowers = (level: Level) => view.current !== null && rank(level) < rank(view.current);
  // Levels the app asks for beyond the selected one: not needed by anything it tried.
  const extra = (level: Level) => rank(level) > rank(selected) && rank(level) <= rank(view.requested);
  return (
    <Layout ctx={ctx} title={t.consentTitle} narrow>
      <h1>{t.consentTitle}</h1>
      <p class="consent-app">
        {t.consentIntro(view.clientName)} {view.unverified ? <span class="badge test">{t.unverified}</span> : null}
      </p>
      {view.unverified ? <p class="hint">{t.unverifiedNote}</p> : null}
      <dl class="facts">
        <dt>{t.returnsTo}</dt>
        <dd class="mono">{view.redirectHost}</dd>
      </dl>
      {view.localhostOnly ? (
        <Notice kind="warn" role="alert">
          <p>{t.localhostWarning}</p>
        </Notice>
      ) : null}
      {ctx.user ? <p>{t.signedInAs(ctx.user.email)}</p> : null}
      {view.current ? (
        <p>
          {t.alreadyAllowed(t.levels[view.current].name)} {selected === view.current && view.current !== LEVELS[0] ? t.lowerTakesAway : null}
        </p>
      ) : null}
      {rank(view.requested) > rank(selected) ? (
        <Notice kind="warn">
          <p>{t.askedMore(view.clientName, t.levels[selected].name)}</p>
        </Notice>
      ) : null}
      <PostForm ctx={ctx} action={`${action}/allow`} once>
        <fieldset aria-describedby="levels-hint">
          <legend>{t.levelsLegend}</legend>
          <span class="hint" id="levels-hint">{t.levelsHint}</span>
          <div class="checks levels">
            {LEVELS.map((level) => (
              <label>
                <input type="radio" name="level" value={level} checked={level === selected} />{' '}
                <span>
                  <strong>{t.levels[level].name}</strong> <code>{level}</code>
                  {level === view.requested ? ` (${t.askedMark})` : null}
                  <br />
                  {t.levels[level].description}
                  {extra(level) ? (
                    <>
                      <br />
                      <em>{t.extraMark}</em>
                    </>
                  ) : null}
                  {lowers(level) ? (
                    <>
                      <br />
                      <em>{t.lowersMark}</em>
                    </>
                  ) : null}
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <Notice kind="ok">
          <p>{t.bookingRule}</p>
        </Notice>
        <p class="hint">{t.revokeLater}</p>
        <p class="actions">
          <button type="submit">{t.allow}</button>
        </p>
      </PostForm>
      <PostForm ctx={ctx} action={`${action}/deny`}>
        <p class="actions">
          <button type="submit" class="secondary">{t.deny}</button>
        </p>
      </PostForm>
    </Layout>
  );
}

/** The interaction is unknown, expired or already answered. */
export function ConsentExpiredPage({ ctx }: { ctx: SiteContext }) {
  const t = ctx.t.oauth;
  return (
    <Layout ctx={ctx} title={t.expiredTitle} narrow>
      <h1>{t.expiredTitle}</h1>
      <p>{t.expired}</p>
    </Layout>
  );
}
