/**
 * The earnings page, one month, the lawyer's firm invitations and a firm's lawyers page in
 * Chromium against a real server on http://localhost, on SQLite and PostgreSQL: axe-core clean,
 * nothing wider than a phone, in English and Spanish; with Stripe (the local stand-in) the
 * payouts section before and after connecting. Screenshots go to $SHOTS_DIR (or a temporary
 * folder) for a person to look at.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { browserDatabaseTarget, type TestDatabase } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { StripeStandIn } from '../support/stripe-stand-in.ts';
import { ledger, linkLawyer } from '../payments/earnings-support.ts';
import { STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET } from '../payments/support.ts';

const unavailable = browserUnavailable();
const SHOTS = process.env.SHOTS_DIR ?? join(tmpdir(), 'consulta-screenshots');

for (const target of browserDatabaseTarget('postgres')) {
  describe(`earnings and firms' lawyers in Chromium (${target.name})`, { skip: unavailable }, () => {
    let db: TestDatabase;
    let server: RunningServer;
    let standIn: StripeStandIn;
    let browser: Browser;
    let site: string;
    let lawyerToken: string;
    let ownerToken: string;
    let strangerToken: string;
    let luciaId: string;

    before(async () => {
      mkdirSync(SHOTS, { recursive: true });
      db = await target.create();
      await db.database.close();
      const port = await freePort();
      site = `http://localhost:${port}`;
      const clock = new ManualClock('2026-11-23T08:00:00Z');
      standIn = await StripeStandIn.start({ secretKey: STRIPE_SECRET_KEY, webhookSecret: STRIPE_WEBHOOK_SECRET, now: () => clock.now().getTime() });
      server = await startServer(
        testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: db.url, rateLimitMultiplier: 1000, paymentProvider: 'stripe', stripeSecretKey: STRIPE_SECRET_KEY, stripeWebhookSecret: STRIPE_WEBHOOK_SECRET, stripeApiBase: standIn.url }),
        { clock },
      );
      const { accounts, sessions, firmLawyers } = server.app.services;
      const [lucia, pablo] = (await insertLawyers(server.database, [
        lawyerRecord({ name: 'Lucía Fernández Ruiz', consultation_fee_cents: 7450, platform_commission_percent: 15 }),
        lawyerRecord({ name: 'Pablo Gómez Sanz', consultation_fee_cents: 9000, platform_commission_percent: 10 }),
      ])) as [string, string];
      const her = await accounts.ensureUser('lucia@example.com');
      const him = await accounts.ensureUser('pablo@example.com');
      const owner = await accounts.ensureUser('owner@bufete.example');
      const client = await accounts.ensureUser('maria@example.com');
      const stranger = await accounts.ensureUser('nobody@example.com');
      luciaId = lucia;
      await linkLawyer(server.database, lucia, her.id);
      await linkLawyer(server.database, pablo, him.id);
      for (const [date, hour, refund] of [['2026-11-24', '10', false], ['2026-11-25', '12', false], ['2026-11-27', '09', true], ['2026-10-06', '10', false], ['2026-10-20', '16', false], ['2026-09-14', '11', false]] as const) {
        await ledger(server.database, { lawyerId: lucia, userId: client.id, date, hour, paid: 7450, fee: 1118, ...(refund ? { refund: { amount: 7450, status: 'succeeded' as const }, status: 'cancelled_by_lawyer' as const } : {}) });
      }
      await ledger(server.database, { lawyerId: pablo, userId: client.id, date: '2026-11-26', hour: '17', paid: 9000, fee: 900 });
      await accounts.createFirm({ type: 'user', userId: owner.id }, { slug: 'bufete', name: 'Bufete Norte Abogados' });
      await accounts.createFirm({ type: 'user', userId: stranger.id }, { slug: 'otro', name: 'Despacho Sur' });
      await firmLawyers.invite({ type: 'user', userId: owner.id }, 'bufete', lucia);
      await firmLawyers.answer(lucia, 'bufete', 'accept');
      await firmLawyers.invite({ type: 'user', userId: owner.id }, 'bufete', pablo);
      await firmLawyers.invite({ type: 'user', userId: stranger.id }, 'otro', lucia);
      lawyerToken = (await sessions.create(her.id, { ip: '127.0.0.1' })).token;
      ownerToken = (await sessions.create(owner.id, { ip: '127.0.0.1' })).token;
      strangerToken = (await sessions.create(stranger.id, { ip: '127.0.0.1' })).token;
      browser = await launchBrowser();
    });

    after(async () => {
      await browser?.close();
      await server?.stop();
      await standIn?.close();
      await db?.drop();
    });

    /** Opens `path` as `token` at both sizes and in both languages; returns the problems found. */
    async function check(token: string, path: string, name: string, onPage?: (page: Page, lang: 'en' | 'es') => Promise<void>): Promise<string[]> {
      const problems: string[] = [];
      for (const lang of ['en', 'es'] as const) {
        for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
          const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
          await addSessionCookie(context, site, token);
          const page = await context.newPage();
          const res = await page.goto(`${site}${path}${path.includes('?') ? '&' : '?'}lang=${lang}`);
          assert.ok(res && res.status() < 500, `${path} answered ${res?.status()}`);
          problems.push(...(await pageProblems(page, `${name} ${lang} ${size}`)));
          if (onPage) await onPage(page, lang);
          await screenshotIfAsked(page, join(SHOTS, `${name}-${lang}-${size}-${target.name}.png`), { fullPage: true });
          await context.close();
        }
      }
      return problems;
    }

    it('her earnings page (not connected, an invitation waiting), a month, the CSV link: clean at every size and language', async () => {
      const problems = await check(lawyerToken, '/lawyer/earnings', 'earnings', async (page, lang) => {
        const text = await page.locator('main').innerText();
        assert.match(text, lang === 'en' ? /Despacho Sur invites you/ : /Despacho Sur te invita/);
        assert.match(text, lang === 'en' ? /Connect with Stripe/ : /Conectar con Stripe/);
      });
      problems.push(...(await check(lawyerToken, '/lawyer/earnings?month=2026-11', 'earnings-month')));
      assert.deepEqual(problems, []);
    });

    it('connected: the payouts section after Stripe’s onboarding', async () => {
      // The page's form redirects to connect.stripe.com (the CSP allows only Stripe's origins, so
      // not the stand-in's): the same call the route makes, then back as Stripe would send her.
      const url = await server.app.services.payouts.onboardingUrl({ id: luciaId, email: 'lucia@example.com' }, { refreshUrl: `${site}/lawyer/earnings?connect=expired`, returnUrl: `${site}/lawyer/earnings/connect/return` });
      assert.ok(standIn.accountLinks.has(url));
      const context = await browser.newContext({ viewport: DESKTOP, locale: 'en-GB' });
      await addSessionCookie(context, site, lawyerToken);
      const page = await context.newPage();
      const accountId = [...standIn.accounts.keys()][0]!;
      standIn.finishOnboarding(accountId, { payouts_enabled: false });
      await page.goto(`${site}/lawyer/earnings/connect/return`);
      assert.match(page.url(), /connect=returned/);
      assert.match(await page.locator('main').innerText(), /(Takes payments|Acepta pagos)\s+(Yes|Sí)/);
      await context.close();
      assert.deepEqual(await check(lawyerToken, '/lawyer/earnings?connect=returned', 'earnings-connected'), []);
    });

    it('a firm’s lawyers page for its owner, and the page for someone who is not a lawyer', async () => {
      const problems = await check(ownerToken, '/firms/bufete/lawyers', 'firm-lawyers', async (page) => {
        const html = await page.content();
        assert.ok(!html.includes('maria@example.com'));
        assert.doesNotMatch(await page.locator('main').innerText(), /17:00/, 'a lawyer who has not accepted: nothing shown');
      });
      problems.push(...(await check(strangerToken, '/lawyer/earnings', 'not-a-lawyer')));
      assert.deepEqual(problems, []);
    });
  });
}
