/**
 * Reviews' answers, reports and moderation in Chromium (issue 20 item 5): the report page and
 * its thank-you page (Spanish and Arabic, right to left), "How reviews are verified" (Spanish and
 * Arabic), the lawyer's /lawyer/reviews and the console's /operator/reviews (Spanish), at phone
 * (390 px) and desktop (1280 px) width: axe-core finds nothing, nothing scrolls sideways, and the
 * report form works without JavaScript. Screenshots go to SHOTS_DIR (or /tmp/shots-reviews), to
 * be looked at, not kept.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext } from 'playwright-core';
import { ManualClock } from '../../src/clock.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';
import { addSessionCookie, makeOperator } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { givePasskey } from '../support/operator.ts';

const unavailable = browserUnavailable();
const SHOTS = process.env.SHOTS_DIR ?? '/tmp/shots-reviews';

describe('review answers, reports and moderation in a real browser', { skip: unavailable, timeout: 300_000 }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-reviews-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyerToken: string;
  let operatorToken: string;
  let reviewId: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, databaseUrl: `sqlite:${path.join(dir, 'reviews.db')}`, rateLimitMultiplier: 1000 }), { clock: new ManualClock(Date.now()) });
    const [lawyerId] = await insertLawyers(
      server.database,
      [
        lawyerRecord({
          name: 'Nadia El Amrani',
          reviews: [
            { rating: 5, comment: 'Muy clara y paciente. Me explicó todo en árabe y me dio los pasos por escrito.', date: '2026-10-01T10:00:00Z' },
            { rating: 2, comment: '<script>alert(1)</script> Llegó tarde y no leyó mis papeles.', date: '2026-10-08T10:00:00Z' },
            { rating: 1, comment: 'Su teléfono es 600 000 000, llamadla a casa.', date: '2026-10-12T10:00:00Z' },
          ],
        }),
      ],
      new Date(),
    );
    const reviews = await server.database.db.selectFrom('reviews').select(['id', 'rating']).where('lawyer_id', '=', lawyerId!).execute();
    const of = (r: number) => reviews.find((x) => Number(x.rating) === r)!.id;
    reviewId = of(2);
    const { accounts, sessions, reviewModeration } = server.app.services;
    const lawyerUser = await accounts.ensureUser('nadia@example.com');
    await server.database.db.updateTable('lawyers').set({ user_id: lawyerUser.id }).where('id', '=', lawyerId!).execute();
    lawyerToken = (await sessions.create(lawyerUser.id, { ip: '127.0.0.1' })).token;
    const op = await accounts.ensureUser('operator@example.com');
    await makeOperator(server.database, op.id);
    await givePasskey(server.database, op.id, new Date().toISOString());
    operatorToken = (await sessions.create(op.id, { ip: '127.0.0.1' })).token;
    // One answered, one reported twice, one hidden: every state on the pages.
    await reviewModeration.answer(lawyerId!, of(5), 'Gracias por su confianza. Un placer ayudarle.');
    await reviewModeration.report({ reviewId, reason: 'not_genuine', details: 'No creo que haya sido cliente: la fecha no cuadra.', userId: null, ip: '203.0.113.5' });
    await reviewModeration.report({ reviewId, reason: 'offensive', details: null, userId: op.id, ip: '203.0.113.6' });
    await reviewModeration.report({ reviewId: of(1), reason: 'personal_data', details: 'Publica un número de teléfono.', userId: null, ip: '203.0.113.7' });
    await reviewModeration.hide({ type: 'operator', by: { kind: 'user', userId: op.id, email: 'operator@example.com', requestId: null } }, of(1), { reason: 'personal_data', note: 'Número de teléfono de la abogada.' });
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const shoot = async (context: BrowserContext, url: string, name: string, viewport: { width: number; height: number }, expect: RegExp) => {
    const page = await context.newPage();
    await page.setViewportSize(viewport);
    const res = await page.goto(`${site}${url}`);
    assert.equal(res?.status(), 200, url);
    assert.match(await page.locator('main').innerText(), expect);
    const problems = await pageProblems(page, `${name} ${viewport.width}`);
    await screenshotIfAsked(page, path.join(SHOTS, `${name}-${viewport.width}.png`), { fullPage: true });
    await page.close();
    return problems;
  };

  for (const locale of ['es', 'ar'] as const) {
    it(`the report page, its thank-you page and /help/reviews (${locale}) at 390 and 1280 px`, async () => {
      const context = await browser.newContext({ locale });
      const problems: string[] = [];
      for (const viewport of [PHONE, DESKTOP]) {
        problems.push(...(await shoot(context, `/reviews/${reviewId}/report?lang=${locale}`, `report-${locale}`, viewport, locale === 'es' ? /Denunciar una reseña/ : /الإبلاغ عن تقييم/)));
        problems.push(...(await shoot(context, `/help/reviews?lang=${locale}`, `help-reviews-${locale}`, viewport, locale === 'es' ? /Cómo se calcula la media/ : /كيف يُحسب المتوسط/)));
      }
      // The form works without JavaScript: a reason, details, sent; the thank-you page.
      const page = await context.newPage();
      await page.setViewportSize(PHONE);
      await page.goto(`${site}/reviews/${reviewId}/report?lang=${locale}`);
      const html = await page.content();
      assert.ok(!html.includes('<script>alert(1)</script>'), 'the comment is escaped');
      await page.locator('input[name="reason"][value="spam"]').check();
      await page.locator('textarea[name="details"]').fill('Publicidad de otro despacho.');
      await Promise.all([page.waitForURL(/\/report\/sent$/), page.locator('form[method="post"] button[type="submit"]').click()]);
      assert.match(await page.locator('h1').innerText(), locale === 'es' ? /Gracias/ : /شكرًا/);
      problems.push(...(await pageProblems(page, `report-sent-${locale}`)));
      await screenshotIfAsked(page, path.join(SHOTS, `report-sent-${locale}-390.png`), { fullPage: true });
      await context.close();
      assert.deepEqual(problems, []);
    });
  }

  it('/lawyer/reviews and /operator/reviews (es) at 390 and 1280 px', async () => {
    const problems: string[] = [];
    const lawyer = await browser.newContext({ locale: 'es' });
    await addSessionCookie(lawyer, site, lawyerToken);
    const operator = await browser.newContext({ locale: 'es' });
    await addSessionCookie(operator, site, operatorToken);
    for (const viewport of [PHONE, DESKTOP]) {
      problems.push(...(await shoot(lawyer, '/lawyer/reviews?lang=es', 'lawyer-reviews-es', viewport, /Oculta por moderación/)));
      problems.push(...(await shoot(operator, '/operator/reviews?lang=es', 'operator-reviews-es', viewport, /\d denuncias abiertas/)));
      problems.push(...(await shoot(operator, `/operator/reviews/${reviewId}?lang=es`, 'operator-review-es', viewport, /Ocultar esta reseña/)));
    }
    await lawyer.close();
    await operator.close();
    assert.deepEqual(problems, []);
  });
});
