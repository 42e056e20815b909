/**
 * The developer overview in Chromium against a real server on http://localhost, on SQLite and
 * PostgreSQL: the checklist's buttons lead where they say (a test key preselected), and the
 * overview, the key list (keys titled by their name) and an endpoint page (its deliveries kept
 * current) pass axe-core in English and Spanish at phone and desktop widths, nothing wider than
 * the screen; screenshots of each (docs/dashboard.md#overview).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { buildApp, type App } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { Notifier } from '../../src/domain/notify/notifier.ts';
import { WebhookDispatcher } from '../../src/domain/webhooks/dispatcher.ts';
import { memoryLogger } from '../access/support.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotsWanted } from '../support/browser.ts';
import { addSessionCookie, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

const unavailable = browserUnavailable();
const FIXTURES = new URL('../webhooks/fixtures/', import.meta.url);

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`developer overview in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let database: Database;
    let app: App;
    let dispatcher: WebhookDispatcher;
    let receiver: Receiver;
    let browser: Browser;
    let site: string;
    const clock = new ManualClock(Date.now());
    let n = 0;

    before(async () => {
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const config = testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000, keyCacheTtlMs: 0, webhookAllowInsecureTargets: true });
      database = openDatabase(db.url, { poolSize: config.dbPoolSize });
      await migrateToLatest(database);
      app = await buildApp({ config, database, clock });
      await app.fastify.listen({ port, host: '127.0.0.1' });
      const cert = fs.readFileSync(new URL('receiver.crt', FIXTURES), 'utf8');
      receiver = await startReceiver({ key: fs.readFileSync(new URL('receiver.key', FIXTURES), 'utf8'), cert });
      const logger = memoryLogger();
      dispatcher = new WebhookDispatcher({
        database,
        clock,
        config,
        notifier: new Notifier({ database, mailer: { send: async () => {}, close: async () => {} }, clock, logger }),
        logger,
        tls: { ca: cert, servername: 'hooks.example.test' },
      });
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await dispatcher?.stop();
      await receiver?.close();
      await app?.fastify.close();
      await database?.close();
      await db?.drop();
    });

    async function person(): Promise<{ email: string; token: string; userId: string }> {
      const email = `overview-${++n}-${target.name}@example.com`;
      const user = await app.services.accounts.ensureUser(email);
      const session = await app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      return { email, token: session.token, userId: user.id };
    }

    async function tab(token: string, options: { viewport?: typeof PHONE; lang?: 'en' | 'es' } = {}): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: options.lang === 'es' ? 'es-ES' : 'en-GB' });
      await addSessionCookie(context, site, token);
      return { context, page: await context.newPage() };
    }

    it('a newcomer follows the first button to a test key, and the checklist says so', async () => {
      const me = await person();
      const { context, page } = await tab(me.token, { viewport: PHONE });
      try {
        await page.goto(`${site}/developer`);
        assert.match(await page.locator('.getting-started').innerText(), /0 of 6 steps done/);
        await page.getByRole('link', { name: 'Create a test key' }).click();
        assert.equal(await page.locator('input[name="mode"][value="test"]').isChecked(), true, 'test preselected');
        await page.getByLabel('Name').fill('first try');
        await page.getByRole('button', { name: 'Create key' }).click();
        assert.match(await page.locator('#secret-value').inputValue(), /^svc_test_/);
        await page.getByRole('link', { name: 'Overview' }).click();
        assert.match(await page.locator('.getting-started').innerText(), /1 of 6 steps done/);
        assert.equal(await page.locator('[data-step="test_key"]').getAttribute('data-done'), 'yes');
      } finally {
        await context.close();
      }
    });

    it('the overview, the key list and an endpoint page pass axe-core in English and Spanish, fit a phone; screenshots', async () => {
      const me = await person();
      const actor = { type: 'user' as const, userId: me.userId };
      await app.services.accounts.createFirm({ type: 'operator' }, { slug: `bufete-${target.name}`, name: 'Bufete Ejemplo', ownerEmail: me.email });
      // Halfway: a test key that was used and seen in the log, a live key not used yet, an endpoint with a delivered test event.
      const test = await app.services.keys.create(actor, { ownerEmail: me.email }, { mode: 'test', name: 'staging server' });
      clock.advance(1000);
      await app.services.keys.create(actor, { ownerEmail: me.email }, { mode: 'live', name: 'production server' });
      await fetch(`${site}/api/v1/lawyers/search?city=madrid&language=ar`, { headers: { authorization: `Bearer ${test.token}` } });
      await app.services.requestLog.flush();
      const { endpoint } = await app.services.webhooks.create(actor, null, { url: `https://127.0.0.1:${receiver.port}/consulta` });
      await app.services.webhooks.sendTest(actor, endpoint.id);
      await dispatcher.runUntilIdle();
      const newcomer = await person();

      const problems: string[] = [];
      const shots: (string | undefined)[] = [];
      for (const lang of ['en', 'es'] as const) {
        for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
          const { context, page } = await tab(me.token, { viewport, lang });
          try {
            const visit = async (path: string, name: string) => {
              await page.goto(`${site}${path}?lang=${lang}`);
              problems.push(...(await pageProblems(page, `${name} ${lang} ${label}`)));
              shots.push(await screenshot(page, `${name}-${lang}-${label}`));
            };
            await visit('/developer/requests', 'requests-query');
            await visit('/developer', 'overview');
            await visit('/developer/keys', 'keys-list');
            await visit(`/developer/webhooks/${endpoint.id}`, 'webhooks-live');
            // The script has started: its status line is part of what axe checks.
            assert.equal(await page.locator('[data-live-status]').isVisible(), true);
          } finally {
            await context.close();
          }
          const fresh = await tab(newcomer.token, { viewport, lang });
          try {
            await fresh.page.goto(`${site}/developer?lang=${lang}`);
            problems.push(...(await pageProblems(fresh.page, `overview-empty ${lang} ${label}`)));
            shots.push(await screenshot(fresh.page, `overview-empty-${lang}-${label}`));
          } finally {
            await fresh.context.close();
          }
        }
      }
      assert.deepEqual(problems, []);
      // Taken when asked for (TEST_SHOTS=1, UPDATE_SCREENSHOTS=1): then every one was written.
      assert.ok(shots.every((file) => (file === undefined ? !screenshotsWanted() : fs.statSync(file).size > 0)));
    });
  });
}
