/**
 * The webhook endpoint pages in Chromium against a real server on http://localhost, on SQLite and
 * PostgreSQL: a signed-in person adds an endpoint pointing at a local HTTPS receiver, reads the
 * signing secret from the page, presses "Send test event"; the receiver verifies the message with
 * `standardwebhooks` and that secret, and the attempt is listed on the page. axe-core on every
 * webhook page (a person's and a firm's) in both languages, nothing wider than a phone;
 * screenshots for docs/dashboard.md.
 *
 * The receiver is HTTPS with the test certificate of test/webhooks/fixtures (issued to
 * hooks.example.test), on 127.0.0.1: the server allows loopback targets
 * (WEBHOOK_ALLOW_INSECURE_TARGETS, as in development), and the dispatcher here trusts that
 * certificate and checks it against its name. The test runs the dispatcher itself, so it knows
 * when an attempt is recorded instead of waiting for one.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { buildApp, type App } from '../../src/app.ts';
import { ManualClock } from '../../src/clock.ts';
import { openDatabase, type Database } from '../../src/db/database.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { Notifier } from '../../src/domain/notify/notifier.ts';
import { WebhookDispatcher } from '../../src/domain/webhooks/dispatcher.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE } from '../support/browser.ts';
import { addSessionCookie, screenshot } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { memoryLogger } from '../access/support.ts';
import { startReceiver, type Receiver } from '../webhooks/support.ts';

const unavailable = browserUnavailable();
const FIXTURES = new URL('../webhooks/fixtures/', import.meta.url);

for (const target of browserDatabaseTarget('sqlite')) {
  describe(`webhook endpoint pages in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let database: Database;
    let app: App;
    let dispatcher: WebhookDispatcher;
    let receiver: Receiver;
    let browser: Browser;
    let site: string;
    // Set when the suite starts, not when the file loads: the receiver verifies timestamps against
    // real time (5 minutes' tolerance), and the PostgreSQL suite starts after the SQLite one.
    let clock: ManualClock;
    let n = 0;

    before(async () => {
      clock = new ManualClock(Date.now());
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const config = testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000, webhookAllowInsecureTargets: true });
      database = openDatabase(db.url, { poolSize: config.dbPoolSize });
      await migrateToLatest(database);
      app = await buildApp({ config, database, clock });
      await app.fastify.listen({ port, host: '127.0.0.1' });
      const cert = fs.readFileSync(new URL('receiver.crt', FIXTURES), 'utf8');
      receiver = await startReceiver({ key: fs.readFileSync(new URL('receiver.key', FIXTURES), 'utf8'), cert });
      // One retry a minute after a failure, then dead: the screenshots show a dead message.
      const logger = memoryLogger();
      dispatcher = new WebhookDispatcher({
        database,
        clock,
        config: { ...config, webhookRetryScheduleSeconds: [60] },
        notifier: new Notifier({ database, mailer: { send: async () => {}, close: async () => {} }, clock, logger }),
        logger,
        // The receiver's certificate, checked against the name it was issued to.
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
      const email = `hooks-${++n}-${target.name}@example.com`;
      const user = await app.services.accounts.ensureUser(email);
      const session = await app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      return { email, token: session.token, userId: user.id };
    }

    async function tab(token: string, options: { viewport?: typeof PHONE; lang?: 'en' | 'es' } = {}): Promise<{ context: BrowserContext; page: Page }> {
      const context = await browser.newContext({ viewport: options.viewport ?? DESKTOP, locale: options.lang === 'es' ? 'es-ES' : 'en-GB' });
      await addSessionCookie(context, site, token);
      return { context, page: await context.newPage() };
    }

    it('add an endpoint, copy its secret, send a test event: the receiver verifies it and the page lists the attempt', async () => {
      const me = await person();
      const { context, page } = await tab(me.token);
      try {
        await page.goto(`${site}/developer/webhooks`);
        await page.getByRole('link', { name: 'Add endpoint' }).click();
        await page.getByLabel('Endpoint URL').fill(`https://127.0.0.1:${receiver.port}/consulta`);
        await page.getByRole('button', { name: 'Add endpoint' }).click();
        const secret = await page.locator('#secret-value').inputValue();
        assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);

        await page.getByRole('link', { name: 'Open the endpoint' }).click();
        assert.ok(!(await page.content()).includes(secret), 'the secret is not shown again');
        await page.getByRole('button', { name: 'Send test event' }).click();
        await page.waitForURL(/done=test/);
        assert.match(await page.locator('main').innerText(), /The test event is on its way/);

        await dispatcher.runUntilIdle();
        const [message] = await receiver.waitFor(1);
        const payload = new Webhook(secret).verify(message!.body, message!.headers) as { type: string; data: { endpoint_id: string } };
        assert.equal(payload.type, 'webhook.test');
        assert.match(page.url(), new RegExp(`/developer/webhooks/${payload.data.endpoint_id}\\?done=test`));

        await page.reload();
        const delivery = page.locator('.delivery-list > li').first();
        const text = await delivery.innerText();
        assert.match(text, /Test event\s+Delivered/);
        assert.ok(text.includes(message!.headers['webhook-id']!), 'the message id is the webhook-id received');
        assert.match(text, /200\s+Attempt 1 · .* · \d+ ms/);
      } finally {
        await context.close();
      }
    });

    it("a test event's attempt appears on the open endpoint page without a reload; without JavaScript, Refresh shows it", async () => {
      const me = await person();
      const { endpoint } = await app.services.webhooks.create({ type: 'user', userId: me.userId }, null, { url: `https://127.0.0.1:${receiver.port}/live` });
      const url = `${site}/developer/webhooks/${endpoint.id}`;
      const { context, page } = await tab(me.token);
      try {
        await page.goto(url);
        await page.getByRole('button', { name: 'Send test event' }).click();
        await page.waitForURL(/done=test/);
        assert.match(await page.locator('main').innerText(), /No deliveries yet/);
        assert.match(await page.locator('dl.facts').innerText(), /Messages waiting\s+1\b/);
        assert.match(await page.locator('[data-live-status]').innerText(), /updates by itself/);
        // A mark that a reload or a navigation would wipe out.
        await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
        const received = receiver.requests.length;
        await dispatcher.runUntilIdle();
        await receiver.waitFor(received + 1);
        const delivery = page.locator('.delivery-list > li').first();
        await delivery.waitFor({ timeout: 15_000 });
        assert.match(await delivery.innerText(), /Test event\s+Delivered/);
        assert.match(await delivery.innerText(), /Attempt 1/);
        // The facts above follow the list: a delivered message no longer reads as waiting.
        assert.equal(await page.locator('dl.facts').count(), 1);
        assert.match(await page.locator('dl.facts').innerText(), /Messages waiting\s+0\b/);
        assert.equal(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed), true, 'no reload, no navigation');
        assert.match(await page.locator('[data-live-status]').innerText(), /^Updated at \d/);
        assert.deepEqual(await pageProblems(page, 'live endpoint page'), []);
      } finally {
        await context.close();
      }

      // Without JavaScript: the page lists what there was when it loaded, and Refresh reloads it.
      const context2 = await browser.newContext({ viewport: PHONE, locale: 'en-GB', javaScriptEnabled: false });
      await addSessionCookie(context2, site, me.token);
      const plain = await context2.newPage();
      try {
        await plain.goto(url);
        assert.equal(await plain.locator('.delivery-list > li').count(), 1);
        const received = receiver.requests.length;
        await app.services.webhooks.sendTest({ type: 'user', userId: me.userId }, endpoint.id);
        await dispatcher.runUntilIdle();
        await receiver.waitFor(received + 1);
        assert.equal(await plain.locator('.delivery-list > li').count(), 1, 'nothing moves without JavaScript');
        await Promise.all([plain.waitForEvent('load'), plain.getByRole('link', { name: 'Refresh' }).click()]);
        assert.equal(await plain.locator('.delivery-list > li').count(), 2);
        // Again, from the refreshed page (whose address now ends in #deliveries).
        await app.services.webhooks.sendTest({ type: 'user', userId: me.userId }, endpoint.id);
        await dispatcher.runUntilIdle();
        await receiver.waitFor(received + 2);
        await Promise.all([plain.waitForEvent('load'), plain.getByRole('link', { name: 'Refresh' }).click()]);
        assert.equal(await plain.locator('.delivery-list > li').count(), 3);
        assert.match(plain.url(), /#deliveries$/);
      } finally {
        await context2.close();
      }
    });

    it('every webhook page passes axe-core in English and Spanish and fits a phone; screenshots', async () => {
      const me = await person();
      const actor = { type: 'user' as const, userId: me.userId };
      const slug = `bufete-hooks-${target.name}`;
      await app.services.accounts.createFirm({ type: 'operator' }, { slug, name: 'Bufete Ejemplo', ownerEmail: me.email });
      const url = (path: string) => `https://127.0.0.1:${receiver.port}${path}`;
      receiver.answer((req) => (req.path === '/flaky' ? { status: 503, body: '<html><body><h1>503 Service Unavailable</h1><p>Back soon.</p></body></html>' } : { status: 204 }));
      const { endpoint } = await app.services.webhooks.create(actor, null, { url: url('/flaky') });
      clock.advance(1000); // listed oldest first: a stable order in the screenshots
      const { endpoint: quiet } = await app.services.webhooks.create(actor, null, { url: url('/bookings/confirmed'), eventTypes: ['booking_intent.confirmed'] });
      const { endpoint: paused } = await app.services.webhooks.create(actor, null, { url: url('/old-crm') });
      await app.services.webhooks.rotateSecret(actor, quiet.id);
      await app.services.webhooks.disable(actor, paused.id, 'Receiver moving to a new server');
      const { endpoint: firmEndpoint } = await app.services.webhooks.create(actor, { firmSlug: slug }, { url: url('/firm') });
      // A dead message (two failed attempts), then a pending one after a first failure.
      const dead = await app.services.webhooks.sendTest(actor, endpoint.id);
      await dispatcher.runUntilIdle();
      clock.advance(60_000);
      await dispatcher.runUntilIdle();
      clock.advance(30_000);
      await app.services.webhooks.sendTest(actor, endpoint.id);
      await dispatcher.runUntilIdle();
      await app.services.webhooks.sendTest(actor, firmEndpoint.id);
      await dispatcher.runUntilIdle();

      const newcomer = await person();
      const problems: string[] = [];
      for (const lang of ['en', 'es'] as const) {
        for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
          const { context, page } = await tab(me.token, { viewport, lang });
          try {
            const visit = async (path: string, name: string) => {
              await page.goto(`${site}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
              problems.push(...(await pageProblems(page, `${name} ${lang} ${label}`)));
              if (lang === 'en') await screenshot(page, `webhooks-${name}-${label}`);
            };
            await visit('/developer/webhooks', 'list');
            await visit('/developer/webhooks/new', 'new');
            await visit(`/developer/webhooks/${endpoint.id}`, 'detail');
            await visit(`/developer/webhooks/${paused.id}`, 'detail-disabled');
            await visit(`/developer/webhooks/${endpoint.id}/disable`, 'disable');
            await visit(`/developer/webhooks/${endpoint.id}/messages/${dead.messageId}`, 'message');
            await visit(`/firms/${slug}/webhooks`, 'firm-list');
            await visit(`/firms/${slug}/webhooks/${firmEndpoint.id}`, 'firm-detail');
          } finally {
            await context.close();
          }
          // The secret shown once (a form posted in this very browser), by someone else so the
          // list above keeps the same endpoints in every screenshot.
          const { context: other, page: form } = await tab(newcomer.token, { viewport, lang });
          try {
            await form.goto(`${site}/developer/webhooks/new?lang=${lang}`);
            await form.locator('#f-url').fill(url('/consulta'));
            await form.locator('form[action="/developer/webhooks"] button[type="submit"]').click();
            await form.locator('#secret-value').waitFor();
            problems.push(...(await pageProblems(form, `created ${lang} ${label}`)));
            if (lang === 'en') await screenshot(form, `webhooks-created-${label}`);
            // A refused address, explained next to the field.
            await form.goto(`${site}/developer/webhooks/new?lang=${lang}`);
            await form.locator('#f-url').fill('https://user:secret@hooks.example.com/consulta');
            await form.locator('form[action="/developer/webhooks"] button[type="submit"]').click();
            await form.locator('#f-url-error').waitFor();
            problems.push(...(await pageProblems(form, `errors ${lang} ${label}`)));
            if (lang === 'en') await screenshot(form, `webhooks-errors-${label}`);
          } finally {
            await other.close();
          }
        }
      }
      assert.deepEqual(problems, []);
    });
  });
}
