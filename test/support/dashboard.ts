/**
 * Signed-in clients for dashboard tests without going through the email flow each time (the
 * sign-in itself is tested in test/site/sign-in.test.ts and the e2e suites): a real session row,
 * its token in the cookie, exactly what a completed sign-in leaves.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Database } from '../../src/db/database.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import type { TestContext } from './app.ts';
import { screenshotIfAsked } from './screenshots.ts';
import { SiteClient } from './site.ts';

export interface SignedIn {
  client: SiteClient;
  userId: string;
  email: string;
  sessionId: string;
  token: string;
}

/** Makes the user an operator (as `consulta operators add` does). */
export async function makeOperator(database: Database, userId: string, nowIso = new Date().toISOString()): Promise<void> {
  await database.db.insertInto('operators').values({ user_id: userId, added_at: nowIso }).onConflict((oc) => oc.column('user_id').doNothing()).execute();
}

/**
 * A SiteClient signed in as `email` (the account is created if absent). `operator` lists them as
 * an operator; `steppedUp` marks the session as having just proved a passkey.
 */
export async function signedIn(
  ctx: TestContext,
  email: string,
  options: { operator?: boolean; steppedUp?: boolean; lang?: 'en' | 'es'; ip?: string } = {},
): Promise<SignedIn> {
  const user = await ctx.app.services.accounts.ensureUser(email);
  if (options.operator) await makeOperator(ctx.database, user.id, ctx.clock.now().toISOString());
  const session = await ctx.app.services.sessions.create(user.id, { ip: options.ip ?? '127.0.0.1', passkey: options.steppedUp });
  const cookies = siteCookies(ctx.config.siteUrl);
  const headers: Record<string, string> = { 'accept-language': options.lang ?? 'en' };
  if (options.ip) headers['x-forwarded-for'] = options.ip;
  const client = new SiteClient(ctx.app.fastify, new URL(ctx.config.siteUrl).origin, headers);
  client.cookies.set(cookies.session, session.token);
  return { client, userId: user.id, email: user.email, sessionId: session.id, token: session.token };
}

/** Puts a session token in a Chromium context as the site's session cookie. */
export async function addSessionCookie(context: BrowserContext, siteUrl: string, token: string): Promise<void> {
  const cookies = siteCookies(siteUrl);
  const url = new URL(siteUrl);
  await context.addCookies([{ name: cookies.session, value: token, domain: url.hostname, path: '/', httpOnly: true, secure: cookies.secure, sameSite: 'Lax' }]);
}

/**
 * A screenshot for the docs: written to docs/images/dashboard/NAME.png when UPDATE_SCREENSHOTS=1
 * (`npm run screenshots`), to a temporary folder when TEST_SHOTS=1 or SHOTS_DIR asks for the
 * suites' screenshots (so the suite never dirties the tree), and not taken otherwise
 * (`screenshotIfAsked`). Returns the file written (open it and look), or undefined.
 */
export function screenshot(page: Page, name: string): Promise<string | undefined> {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? join(process.cwd(), 'docs', 'images', 'dashboard') : join(tmpdir(), 'consulta-screenshots');
  return screenshotIfAsked(page, join(dir, `${name}.png`), { fullPage: true });
}

/**
 * One row of the object-level authorization table (test/dashboard/authorization.test.ts): a
 * dashboard route that names an object, and how to make a victim's object for it. The driver
 * signs in an attacker, sends the request with the victim's id (in the URL or a form field) and
 * expects 404 with nothing changed. Every dashboard route with a parameter or an id field must
 * have a row: the driver fails on routes without one.
 */
export interface ForeignObjectCase {
  /** The route as registered (`/developer/keys/:id/revoke`). */
  route: string;
  method: 'GET' | 'POST';
  /**
   * The answer when it is not the ordinary 404: an invitation link opened by another account is
   * 403, a page that names only the address it was sent to (docs/dashboard.md#firms).
   */
  status?: 403;
  /** Creates the victim's object(s); returns the concrete URL, the form (for POST) and a snapshot of what must not change. */
  setup(ctx: TestContext, victim: SignedIn): Promise<{ url: string; form?: Record<string, string>; snapshot: () => Promise<unknown> }>;
}
