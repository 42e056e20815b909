/**
 * The person's browser for an OAuth authorization over real HTTP, for suites and harnesses that
 * drive real MCP clients (test/e2e/mcp-clients.test.ts, test/clients/harness.ts): it keeps
 * cookies, follows redirects one by one, signs in with the code mailed to the local outbox, and
 * answers the consent page with a plain form post, as a browser without JavaScript would. It
 * stops at the first redirect that leaves the site (the app's redirect URI) and returns it; the
 * caller hands it to the app. The Chromium flow is test/e2e/mcp-oauth.test.ts.
 */
import type { Database } from '../../src/db/database.ts';

/** A cookie-keeping browser on one site origin (cookie paths are not modelled: one flow at a time). */
export class HttpBrowser {
  readonly cookies = new Map<string, string>();

  /**
   * `language`: the browser's Accept-Language (English unless a suite reads another language).
   * `sent`: headers every request carries (an `x-forwarded-for` of its own, behind a trusted proxy).
   */
  constructor(
    private readonly origin: string,
    private readonly language = 'en',
    private readonly sent: Record<string, string> = {},
  ) {}

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      const gone = value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a) || (/^\s*expires=/i.test(a) && Date.parse(a.split('=')[1]!) <= Date.now()));
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private headers(extra: Record<string, string> = {}): Record<string, string> {
    return { accept: 'text/html', 'accept-language': this.language, cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '), ...this.sent, ...extra };
  }

  /** One request, no redirect followed; cookies kept. */
  async get(url: string): Promise<Response> {
    const res = await fetch(new URL(url, this.origin), { headers: this.headers(), redirect: 'manual' });
    this.keep(res);
    return res;
  }

  /** A form post from a page of this site (urlencoded, same-origin headers), no redirect followed. */
  async post(url: string, form: Record<string, string>): Promise<Response> {
    const res = await fetch(new URL(url, this.origin), {
      method: 'POST',
      headers: this.headers({ 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, 'sec-fetch-site': 'same-origin' }),
      body: new URLSearchParams(form).toString(),
      redirect: 'manual',
    });
    this.keep(res);
    return res;
  }
}

/** The hidden fields of the form posting to `action` (its CSRF token, return_to…). */
export function hiddenFields(html: string, action: RegExp): Record<string, string> {
  for (const form of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const target = /\baction="([^"]*)"/.exec(form[1]!)?.[1]?.replace(/&amp;/g, '&');
    if (!target || !action.test(target)) continue;
    const fields: Record<string, string> = { __action: target };
    for (const input of form[2]!.matchAll(/<input\b[^>]*\btype="hidden"[^>]*>/g)) {
      const name = /\bname="([^"]*)"/.exec(input[0])?.[1];
      const value = /\bvalue="([^"]*)"/.exec(input[0])?.[1] ?? '';
      if (name) fields[name] = value.replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>');
    }
    return fields;
  }
  throw new Error(`no form posting to ${action} on the page`);
}

/** The ids of the sign-in mails `email` has had so far (to tell the next one apart). */
export async function signInMails(database: Database, email: string): Promise<Set<string>> {
  const rows = await database.db.selectFrom('mail_outbox').select('id').where('recipient', '=', email).where('kind', '=', 'sign_in').execute();
  return new Set(rows.map((r) => r.id));
}

/** The code of a sign-in mail to `email` not among `known` (the local outbox, as `consulta mail show --last` reads it). */
export async function mailedCode(database: Database, email: string, known: ReadonlySet<string>): Promise<string> {
  for (let tries = 0; tries < 50; tries++) {
    const rows = await database.db.selectFrom('mail_outbox').select(['id', 'text']).where('recipient', '=', email).where('kind', '=', 'sign_in').execute();
    const code = rows.filter((r) => !known.has(r.id)).map((r) => /\b(\d{6})\b/.exec(r.text)?.[1]).find(Boolean);
    if (code) return code;
    // The mail is queued in the sign-in request's transaction; a moment's wait covers a slow commit.
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`no sign-in code mailed to ${email}`);
}

export interface ConsentOptions {
  database: Database;
  /** Who signs in when the site asks. */
  email: string;
  /** The level chosen on the consent page; the preselected one when absent. */
  level?: string;
  /** Called with each consent page's HTML (to check what the person reads). */
  onConsentPage?(html: string): void;
}

export interface ConsentOutcome {
  /** The redirect to the app (its redirect URI with code, state and iss, or an error). */
  redirect: URL;
  /** How many consent pages were answered (0 when the authorization needed none). */
  consentPages: number;
  /** Whether the person had to sign in. */
  signedIn: boolean;
}

/**
 * Opens an authorization URL in `browser` and goes through sign-in (when asked) and consent (when
 * shown, answering Allow) up to the redirect back to the app.
 */
export async function authorizeInBrowser(browser: HttpBrowser, authorizationUrl: string | URL, options: ConsentOptions): Promise<ConsentOutcome> {
  let res = await browser.get(String(authorizationUrl));
  let url = new URL(String(authorizationUrl));
  let consentPages = 0;
  let signedIn = false;
  for (let hops = 0; hops < 20; hops++) {
    if (res.status >= 300 && res.status < 400) {
      const next = new URL(res.headers.get('location') ?? '', url);
      await res.body?.cancel();
      if (next.origin !== url.origin && next.origin !== new URL(String(authorizationUrl)).origin) return { redirect: next, consentPages, signedIn };
      url = next;
      res = await browser.get(url.href);
      continue;
    }
    const html = await res.text();
    if (res.status !== 200) throw new Error(`authorization stopped at ${res.status} ${url.pathname}: ${html.slice(0, 300)}`);
    if (url.pathname === '/sign-in') {
      const known = await signInMails(options.database, options.email);
      const { __action, ...fields } = hiddenFields(html, /^\/sign-in$/);
      res = await browser.post(__action!, { ...fields, email: options.email });
      if (res.status !== 303) throw new Error(`sign-in refused: ${res.status}`);
      url = new URL(res.headers.get('location')!, url);
      const codePage = await (await browser.get(url.href)).text();
      const { __action: codeAction, ...codeFields } = hiddenFields(codePage, /^\/sign-in\/code$/);
      res = await browser.post(codeAction!, { ...codeFields, code: await mailedCode(options.database, options.email, known) });
      signedIn = true;
      continue;
    }
    if (/^\/oauth\/interaction\/[^/]+$/.test(url.pathname)) {
      consentPages++;
      options.onConsentPage?.(html);
      const { __action, ...fields } = hiddenFields(html, /\/allow$/);
      const level = options.level ?? /name="level" value="([^"]+)" checked/.exec(html)?.[1];
      if (!level) throw new Error('the consent page preselects no level');
      res = await browser.post(__action!, { ...fields, level });
      continue;
    }
    throw new Error(`authorization stopped on an unexpected page ${url.pathname}: ${html.slice(0, 300)}`);
  }
  throw new Error('too many redirects');
}
