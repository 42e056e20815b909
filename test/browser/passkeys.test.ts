/**
 * Passkeys in Chromium, with its virtual authenticator (DevTools protocol), against a real server
 * on http://localhost (WebAuthn needs a secure context: localhost is one), on SQLite and
 * PostgreSQL: add a passkey on /account/passkeys, sign out, sign in with the button and with the
 * email field's autofill (conditional UI), a replayed answer and a counter that went back are
 * refused, removal with confirmation; the step-up of an operator without a passkey (add one,
 * then confirm with it) and with one. axe-core on every passkey page and on the sign-in page in
 * both languages; screenshots for the docs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, CDPSession, Page, Request } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { sha256 } from '../../src/domain/identity/session.service.ts';
import { siteCookies } from '../../src/site/plugin.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { axeViolations, browserUnavailable, DESKTOP_TALL, freePort, launchBrowser, PHONE, sidewaysOverflow } from '../support/browser.ts';
import { addSessionCookie, makeOperator, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';

const unavailable = browserUnavailable();

interface Tab {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** Turns the authenticator's automatic "touch" on or off (off: a ceremony waits). */
  presence(on: boolean): Promise<void>;
  /** Resolves once the page's autofill or button ceremony waits in the browser for a touch. */
  waiting(kind: 'autofill' | 'button'): Promise<void>;
  close(): Promise<void>;
}

for (const target of browserDatabaseTarget('postgres')) {
  describe(`passkeys in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let browser: Browser;
    let clock: ManualClock;
    let site: string;
    let n = 0;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      clock = new ManualClock(Date.now());
      server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000 }), { clock });
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await db?.drop();
    });

    const sql = () => server.database.db;
    const passkeyRows = (userId: string) => sql().selectFrom('passkeys').selectAll().where('user_id', '=', userId).execute();
    const sessionByToken = (token: string) => sql().selectFrom('sessions').selectAll().where('token_hash', '=', sha256(token)).executeTakeFirstOrThrow();

    /** A person with a signed-in session (as a completed email sign-in leaves it). */
    async function person(options: { operator?: boolean } = {}) {
      const email = `chromium-${++n}-${target.name}@example.com`;
      const user = await server.app.services.accounts.ensureUser(email);
      if (options.operator) await makeOperator(server.database, user.id, clock.now().toISOString());
      const session = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      return { userId: user.id, email, token: session.token, sessionId: session.id };
    }

    /** A browser tab with a virtual platform authenticator (resident keys, user verification). */
    async function tab(options: { token?: string; viewport?: { width: number; height: number }; lang?: 'en' | 'es' } = {}): Promise<Tab> {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP_TALL, locale: options.lang === 'es' ? 'es-ES' : 'en-GB' });
      if (options.token) await addSessionCookie(context, site, options.token);
      // Marks when the page's ceremonies are actually waiting in the browser for a touch. With
      // presence on, Chromium's virtual authenticator answers whichever request is waiting, the
      // autofill's included; a test that wants the button's ceremony to sign in turns presence on
      // only once the button's request waits (the button's start has aborted the autofill's).
      await context.addInitScript(() => {
        const credentials = navigator.credentials;
        if (!credentials) return;
        const get = credentials.get.bind(credentials);
        const marks = window as unknown as { __ceremony?: Record<string, string> };
        marks.__ceremony = {};
        credentials.get = (options?: CredentialRequestOptions) => {
          const kind = options?.mediation === 'conditional' ? 'autofill' : 'button';
          marks.__ceremony![kind] = 'waiting';
          const pending = get(options);
          // (No named function in here: the test's compiler would wrap it in a helper the page lacks.)
          pending.then(() => { marks.__ceremony![kind] = 'settled'; }, () => { marks.__ceremony![kind] = 'settled'; });
          return pending;
        };
      });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable');
      const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      return {
        context,
        page,
        cdp,
        authenticatorId,
        waiting: async (kind) => {
          await page.waitForFunction((k) => (window as unknown as { __ceremony?: Record<string, string> }).__ceremony?.[k] === 'waiting', kind);
        },
        presence: async (on) => {
          await cdp.send('WebAuthn.setAutomaticPresenceSimulation', { authenticatorId, enabled: on });
        },
        close: () => context.close(),
      };
    }

    /** axe-core's violations, and any sideways overflow (a page must fit a phone's width). */
    async function axe(page: Page, label: string): Promise<string[]> {
      const problems = await axeViolations(page, label);
      const overflow = await sidewaysOverflow(page);
      if (overflow > 0) problems.push(`${label}: ${overflow}px wider than the screen`);
      return problems;
    }

    /** Records the challenges the server handed out and the answers the page sent back. */
    async function watch(page: Page) {
      const challenges: string[] = [];
      const answers: Array<{ url: string; form: URLSearchParams }> = [];
      // Read on the way through (a route), not from the page's response afterwards: a ceremony
      // that signs in navigates away at once, and a body read after that may no longer be there.
      await page.route(/\/options$/, async (route) => {
        const res = await route.fetch();
        const body = (await res.json().catch(() => null)) as { options?: { challenge: string } } | null;
        if (res.status() === 200 && body?.options) challenges.push(body.options.challenge);
        await route.fulfill({ response: res });
      });
      page.on('request', (req: Request) => {
        const path = new URL(req.url()).pathname;
        if (req.method() === 'POST' && ['/sign-in/passkey', '/account/passkeys/step-up', '/account/passkeys/register'].includes(path)) answers.push({ url: path, form: new URLSearchParams(req.postData() ?? '') });
      });
      /** The challenge a captured answer signed (from its clientDataJSON). */
      const signed = (form: URLSearchParams) => {
        const response = JSON.parse(form.get('response')!) as { response: { clientDataJSON: string } };
        return (JSON.parse(Buffer.from(response.response.clientDataJSON, 'base64url').toString('utf8')) as { challenge: string }).challenge;
      };
      return { challenges, answers, signed };
    }

    const signOut = async (page: Page) => {
      await page.locator('form[action="/sign-out"] button').click();
      await page.waitForURL(`${site}/`);
    };
    const at = (path: string) => (u: URL) => u.pathname === path;
    const sessionCookieOf = async (context: BrowserContext) => (await context.cookies(site)).find((c) => c.name === siteCookies(site).session)?.value;

    it('adds a passkey, signs out, signs in with the button; the new session counts as stepped up', async () => {
      const me = await person();
      const t = await tab({ token: me.token });
      const { page } = t;
      const violations: string[] = [];
      try {
        await page.goto(`${site}/account/passkeys`);
        assert.match(await page.locator('main').innerText(), /You have no passkeys yet/);
        assert.equal(await page.locator('[data-passkey-nojs]').isHidden(), true, 'the no-JavaScript notice is gone once the script runs');
        violations.push(...(await axe(page, 'passkeys, none (en)')));
        await page.fill('#f-name', 'Work laptop');
        await page.locator('[data-passkey="register"] button[type="submit"]').click();
        await page.waitForURL((u) => u.pathname === '/account/passkeys' && u.search === '?added=1');
        assert.match(await page.locator('main').innerText(), /Passkey added/);
        assert.match(await page.locator('.passkey-list').innerText(), /Work laptop[\s\S]*Never[\s\S]*This device only/);
        violations.push(...(await axe(page, 'passkeys, one (en)')));

        // What the server stored, and what the authenticator holds: a resident credential whose
        // user handle is our random handle, not the email.
        const [row] = await passkeyRows(me.userId);
        assert.ok(row);
        assert.deepEqual(JSON.parse(row.transports), ['internal']);
        const { credentials } = await t.cdp.send('WebAuthn.getCredentials', { authenticatorId: t.authenticatorId });
        assert.equal(credentials.length, 1);
        const credential = credentials[0]!;
        assert.equal(credential.isResidentCredential, true);
        assert.equal(credential.rpId, 'localhost');
        assert.equal(Buffer.from(credential.credentialId, 'base64').toString('base64url'), row.credential_id);
        const handle = await sql().selectFrom('passkey_user_handles').select('handle').where('user_id', '=', me.userId).executeTakeFirstOrThrow();
        assert.equal(Buffer.from(credential.userHandle!, 'base64').toString('base64url'), handle.handle);
        // 32 random bytes, never the email (an '@' byte turns up in about 12 % of random handles,
        // so the check is for the address itself and for the handle's length).
        assert.equal(Buffer.from(credential.userHandle!, 'base64').length, 32);
        assert.ok(!Buffer.from(credential.userHandle!, 'base64').toString('utf8').includes(me.email));

        for (const [size, viewport] of [['desktop', DESKTOP_TALL], ['phone', PHONE]] as const) {
          await page.setViewportSize(viewport);
          await page.goto(`${site}/account/passkeys`);
          violations.push(...(await axe(page, `passkeys, one, ${size}`)));
          await screenshot(page, `passkeys-${size}`);
        }
        await page.setViewportSize(DESKTOP_TALL);
        await page.goto(`${site}/account/passkeys?lang=es`);
        assert.match(await page.locator('h1').innerText(), /Llaves de acceso/);
        violations.push(...(await axe(page, 'passkeys, one (es)')));
        await page.goto(`${site}/account/passkeys?lang=en`);

        await signOut(page);
        // The autofill ceremony starts with the page and waits for a touch; the button's replaces it.
        await t.presence(false);
        const seen = await watch(page);
        // The autofill ceremony must have its challenge before the button replaces it (on a
        // loaded machine the click could otherwise come first, and only one ceremony would run).
        const autofillOptions = page.waitForResponse((res) => new URL(res.url()).pathname === '/sign-in/passkey/options');
        await page.goto(`${site}/sign-in?return_to=/account/passkeys`);
        await page.locator('[data-passkey-start]').waitFor({ state: 'visible' });
        await (await autofillOptions).finished();
        assert.equal(await page.getAttribute('#f-email', 'autocomplete'), 'username webauthn');
        violations.push(...(await axe(page, 'sign-in with the passkey option (en)')));
        await t.waiting('autofill');
        await t.presence(true);
        await page.locator('[data-passkey-start]').click();
        await page.waitForURL(at('/account/passkeys'));
        assert.equal(seen.challenges.length, 2, 'one challenge for the autofill, one for the button');
        assert.equal(seen.answers.length, 1);
        assert.equal(seen.signed(seen.answers[0]!.form), seen.challenges[1], 'the button\'s ceremony signed in');
        const token = await sessionCookieOf(t.context);
        assert.ok(token);
        const session = await sessionByToken(token);
        assert.equal(session.user_id, me.userId);
        assert.equal(session.step_up_at, clock.now().toISOString(), 'signed in with a passkey: stepped up');
        const [used] = await passkeyRows(me.userId);
        assert.equal(used!.last_used_at, clock.now().toISOString());
        assert.ok(used!.counter > row.counter, 'the counter moved forward');
        assert.match(await page.locator('.passkey-list').innerText(), /Work laptop/);
      } finally {
        await t.close();
      }
      assert.deepEqual(violations, []);
    });

    it('signs in from the email field\'s autofill (conditional UI), and refuses the same answer replayed', async () => {
      const me = await person();
      const t = await tab({ token: me.token });
      const { page } = t;
      try {
        await page.goto(`${site}/account/passkeys`);
        await page.locator('[data-passkey="register"] button[type="submit"]').click();
        await page.waitForURL((u) => u.search === '?added=1');
        assert.equal((await passkeyRows(me.userId))[0]!.name, 'Passkey 1', 'the suggested name');
        await signOut(page);
        // With presence on, Chromium's virtual authenticator answers the autofill request as a
        // person picking the passkey from the email field's suggestions would.
        const seen = await watch(page);
        await page.goto(`${site}/sign-in?return_to=${encodeURIComponent('/account/passkeys?from=autofill')}`);
        await page.waitForURL((u) => u.pathname === '/account/passkeys' && u.search === '?from=autofill');
        assert.equal(seen.challenges.length, 1, 'only the autofill ceremony ran');
        assert.equal(seen.signed(seen.answers[0]!.form), seen.challenges[0]);
        const token = await sessionCookieOf(t.context);
        assert.equal((await sessionByToken(token!)).user_id, me.userId);

        // The same signed answer again (say, captured on the way): its challenge is used up.
        const replay = await t.context.request.post(`${site}/sign-in/passkey`, { form: Object.fromEntries(seen.answers[0]!.form), headers: { origin: site } });
        assert.equal(replay.status(), 400);
        assert.equal(((await replay.json()) as { error: string }).error, 'expired');
      } finally {
        await t.close();
      }
    });

    it('refuses an older answer once a newer one was used (the counter went back)', async () => {
      const me = await person();
      const t = await tab({ token: me.token });
      const { page } = t;
      try {
        await page.goto(`${site}/account/passkeys`);
        await page.locator('[data-passkey="register"] button[type="submit"]').click();
        await page.waitForURL((u) => u.search === '?added=1');
        await signOut(page);
        // First ceremony: its answer is held back (never reaches the server).
        await t.presence(false);
        const seen = await watch(page);
        await page.route('**/sign-in/passkey', (route) => route.abort());
        await page.goto(`${site}/sign-in`);
        await page.locator('[data-passkey-start]').waitFor({ state: 'visible' });
        await t.waiting('autofill');
        await t.presence(true);
        await page.locator('[data-passkey-start]').click();
        await page.locator('[data-passkey-status].bad').waitFor();
        assert.match(await page.locator('[data-passkey-status]').innerText(), /Something went wrong/);
        const held = seen.answers.at(-1)!.form;
        await page.unroute('**/sign-in/passkey');
        // Second ceremony: signs in, the counter moves past the held answer's.
        await t.presence(false);
        await page.goto(`${site}/sign-in`);
        await page.locator('[data-passkey-start]').waitFor({ state: 'visible' });
        await t.waiting('autofill');
        await t.presence(true);
        await page.locator('[data-passkey-start]').click();
        await page.waitForURL(at('/consultations'));
        const counter = (await passkeyRows(me.userId))[0]!.counter;
        // The held answer: its challenge is still unused and its signature valid, but its counter is behind.
        const res = await t.context.request.post(`${site}/sign-in/passkey`, { form: Object.fromEntries(held), headers: { origin: site } });
        assert.equal(res.status(), 400);
        assert.equal(((await res.json()) as { error: string }).error, 'counter');
        assert.equal((await passkeyRows(me.userId))[0]!.counter, counter, 'unchanged');
      } finally {
        await t.close();
      }
    });

    it('removes a passkey after asking; the sign-in page in Spanish', async () => {
      const me = await person();
      const t = await tab({ token: me.token, lang: 'es', viewport: PHONE });
      const { page } = t;
      const violations: string[] = [];
      try {
        await page.goto(`${site}/account/passkeys`);
        violations.push(...(await axe(page, 'passkeys, none (es)')));
        await page.fill('#f-name', 'Móvil');
        await page.locator('[data-passkey="register"] button[type="submit"]').click();
        await page.waitForURL((u) => u.search === '?added=1');
        await page.locator('.passkey-list a', { hasText: 'Quitar' }).click();
        await page.waitForURL((u) => /^\/account\/passkeys\/[0-9a-f-]{36}\/remove$/.test(u.pathname));
        assert.match(await page.locator('h1').innerText(), /¿Quitar esta llave de acceso\?/);
        violations.push(...(await axe(page, 'remove (es)')));
        await page.locator('form[action$="/remove"] button[type="submit"]').click();
        await page.waitForURL((u) => u.search === '?removed=1');
        assert.match(await page.locator('main').innerText(), /Llave de acceso quitada/);
        assert.equal((await passkeyRows(me.userId)).length, 0);
        await signOut(page);
        // The authenticator still holds the removed passkey and offers it in the autofill: the
        // page says plainly that it is not registered here, and nobody is signed in.
        await page.goto(`${site}/sign-in`);
        await page.locator('[data-passkey-status].bad').waitFor();
        assert.match(await page.locator('[data-passkey-status]').innerText(), /no está registrada en Consulta/);
        assert.equal(await sessionCookieOf(t.context), undefined);
        violations.push(...(await axe(page, 'sign-in, unknown passkey (es)')));
        await t.presence(false);
        await page.goto(`${site}/sign-in`);
        await page.locator('[data-passkey-start]').waitFor({ state: 'visible' });
        assert.match(await page.locator('[data-passkey-start]').innerText(), /Entrar con una llave de acceso/);
        violations.push(...(await axe(page, 'sign-in with the passkey option (es)')));
        await screenshot(page, 'sign-in-passkey-phone');
      } finally {
        await t.close();
      }
      assert.deepEqual(violations, []);
    });

    it('step-up: an operator without a passkey adds one, confirms with it, and lands on return_to stepped up', async () => {
      const op = await person({ operator: true });
      const t = await tab({ token: op.token, viewport: PHONE });
      const { page } = t;
      const violations: string[] = [];
      try {
        assert.equal((await sessionByToken(op.token)).step_up_at, null);
        await page.goto(`${site}/account/passkeys/step-up?return_to=${encodeURIComponent('/operator')}`);
        assert.match(await page.locator('main').innerText(), /Operators must have a passkey/);
        violations.push(...(await axe(page, 'step-up, no passkey (en)')));
        await screenshot(page, 'passkeys-step-up-enrol-phone');
        const seen = await watch(page);
        clock.advance(2000);
        await page.locator('[data-passkey="register"] button[type="submit"]').click();
        await page.waitForURL(at('/operator'));
        // Registered, then asked for at once: the session was marked by the assertion.
        assert.deepEqual(seen.answers.map((a) => a.url), ['/account/passkeys/register', '/account/passkeys/step-up']);
        assert.equal((await passkeyRows(op.userId)).length, 1);
        assert.equal((await sessionByToken(op.token)).step_up_at, clock.now().toISOString());

        // Eleven minutes later the console asks again; the page now offers the passkey.
        clock.advance(11 * 60_000);
        assert.equal(server.app.services.sessions.steppedUpRecently((await sessionByToken(op.token)).step_up_at), false);
        await page.goto(`${site}/account/passkeys/step-up?return_to=${encodeURIComponent('/operator/keys?q=svc')}`);
        assert.match(await page.locator('main').innerText(), /Use my passkey/);
        violations.push(...(await axe(page, 'step-up (en)')));
        await screenshot(page, 'passkeys-step-up-phone');
        await page.setViewportSize(DESKTOP_TALL);
        await screenshot(page, 'passkeys-step-up-desktop');
        await page.locator('[data-passkey="step-up"] button[type="submit"]').click();
        await page.waitForURL((u) => u.pathname === '/operator/keys' && u.search === '?q=svc');
        const stepped = (await sessionByToken(op.token)).step_up_at;
        assert.equal(stepped, clock.now().toISOString());
        assert.equal(server.app.services.sessions.steppedUpRecently(stepped), true);

        await page.goto(`${site}/account/passkeys/step-up?return_to=/operator&lang=es`);
        assert.match(await page.locator('h1').innerText(), /Confirma que eres tú/);
        violations.push(...(await axe(page, 'step-up (es)')));
        await page.goto(`${site}/account/passkeys?lang=es`);
        violations.push(...(await axe(page, 'passkeys, operator (es)')));
      } finally {
        await t.close();
      }
      const other = await person({ operator: true });
      const es = await tab({ token: other.token, lang: 'es' });
      try {
        await es.page.goto(`${site}/account/passkeys/step-up?return_to=/operator`);
        assert.match(await es.page.locator('main').innerText(), /Una cuenta de operación debe tener una llave de acceso/);
        violations.push(...(await axe(es.page, 'step-up, no passkey (es)')));
      } finally {
        await es.close();
      }
      assert.deepEqual(violations, []);
    });

    it('step-up with no passkey of one\'s own has nothing to ask for, even when the browser holds someone else\'s', async () => {
      // Two people share a browser profile (one authenticator holds both passkeys).
      const a = await person();
      const b = await person({ operator: true });
      const t = await tab({ token: a.token });
      try {
        await t.page.goto(`${site}/account/passkeys`);
        await t.page.locator('[data-passkey="register"] button[type="submit"]').click();
        await t.page.waitForURL((u) => u.search === '?added=1');
        await t.context.clearCookies();
        await addSessionCookie(t.context, site, b.token);
        // b has no passkey: the step-up options have nothing to offer; the page offers to add one.
        await t.page.goto(`${site}/account/passkeys/step-up?return_to=/operator`);
        assert.equal(await t.page.locator('[data-passkey="step-up"]').count(), 0);
        const options = await t.context.request.post(`${site}/account/passkeys/step-up/options`, { form: { _csrf: (await t.page.locator('input[name="_csrf"]').first().inputValue()) }, headers: { origin: site } });
        assert.equal(options.status(), 400);
        assert.equal((await sessionByToken(b.token)).step_up_at, null);
      } finally {
        await t.close();
      }
    });
  });
}
