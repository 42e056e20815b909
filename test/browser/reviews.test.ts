/**
 * In Chromium: a person on a phone, in Spanish, follows "Valora tu consulta" from My
 * consultations, chooses the stars by their visible labels, writes a comment and publishes it;
 * then the review page and the profile's reviews (with the office's answer, and a comment with
 * markup shown as text) at 390 and 1280 px in Spanish and Arabic (right to left). axe-core finds
 * nothing and nothing overflows sideways. Screenshots go to /tmp/shots-reviews/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { testConfig, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, initiate, madridDate, slotBody, tokenOf } from '../support/booking.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, screenshotIfAsked } from '../support/browser.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-review-write';
const CARD = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' };

describe('reviews in Chromium: writing one on a phone, the review page and the profile in es and ar, axe-core clean', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-reviews-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyerId: string;
  let personToken: string;
  let toWrite: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: `sqlite:${path.join(dir, 'r.db')}` }));
    const db = server.database.db;
    await ensureReferenceData(db, new Date().toISOString());
    [lawyerId] = (await insertLawyers(server.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', weekly_hours: EVERY_DAY_9_TO_14 })], new Date())) as [string];
    const services = server.app.services;
    const ctx = { app: server.app } as unknown as TestContext;
    const person = await services.accounts.ensureUser('maria.garcia@example.com');
    personToken = (await services.sessions.create(person.id, { ip: '127.0.0.1' })).token;
    const other = await services.accounts.ensureUser('ahmed@example.com');
    const ids: string[] = [];
    for (const [i, who] of [[0, person.id], [1, other.id]] as const) {
      const res = await initiate(ctx, slotBody(lawyerId, madridDate(Date.now(), 3), `1${i}`), { remoteAddress: `198.51.100.${i + 1}` });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal((await services.payments.payWithCard(tokenOf(res.json().confirmation_url), who, CARD)).kind, 'confirmed');
      ids.push((await db.selectFrom('consultations').select('id').where('booking_intent_id', '=', res.json().booking_intent_id).executeTakeFirstOrThrow()).id);
    }
    // Both took place last week.
    await db.updateTable('consultations').set({ slot_date: madridDate(Date.now(), -7), status: 'held' }).where('id', 'in', ids).execute();
    toWrite = ids[0]!;
    // Another client's review, in Arabic with markup, and the office's answer.
    const written = await services.reviews.write(other.id, ids[1]!, { rating: '4', comment: 'محامية ممتازة، شرحت لي كل شيء عن الإقامة. <b>شكرا</b>' });
    assert.ok(written.ok);
    await db.updateTable('reviews').set({ answer: 'Gracias por tu confianza. Un saludo desde el despacho.', answered_at: new Date().toISOString() }).where('consultation_id', '=', ids[1]!).execute();
    await services.reviews.recompute(lawyerId);
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const shot = (page: Page, name: string) => screenshotIfAsked(page, path.join(SHOTS, `${name}.png`), { fullPage: true });

  it('writes a review on a phone in Spanish', async () => {
    const problems: string[] = [];
    const context = await browser.newContext({ viewport: PHONE, locale: 'es-ES' });
    await addSessionCookie(context, site, personToken);
    try {
      const page = await context.newPage();
      assert.equal((await page.goto(`${site}/consultations?lang=es`))?.status(), 200);
      await page.getByRole('link', { name: 'Valora tu consulta' }).click();
      await page.waitForURL(`${site}/consultations/${toWrite}/review`);
      problems.push(...(await pageProblems(page, 'form es phone')));
      await shot(page, 'review-form-es-phone');
      // Submitting without a rating: the browser's own check keeps the form (required radios).
      await page.getByLabel('5 — Excelente').check();
      await page.getByLabel('Comentario (opcional)').fill('Muy clara y paciente. Me explicó el arraigo <sin prisas>.');
      await page.getByRole('button', { name: 'Publicar la opinión' }).click();
      await page.waitForURL(/done=published/);
      assert.match(await page.locator('main').innerText(), /Gracias: tu opinión está publicada/);
      assert.equal(await page.getByLabel('5 — Excelente').isChecked(), true);
      problems.push(...(await pageProblems(page, 'published es phone')));
      await shot(page, 'review-published-es-phone');
    } finally {
      await context.close();
    }
    assert.deepEqual(problems, []);
    const api = (await (await fetch(`${site}/api/v1/lawyers/${lawyerId}/reviews`)).json()) as { average_rating: number; total_reviews: number };
    assert.equal(api.total_reviews, 2);
    assert.equal(api.average_rating, 4.5);
  });

  for (const lang of ['es', 'ar'] as const) {
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`the review page and the profile's reviews (${lang}, ${label})`, async () => {
        const problems: string[] = [];
        const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'ar' });
        await addSessionCookie(context, site, personToken);
        try {
          const page = await context.newPage();
          assert.equal((await page.goto(`${site}/consultations/${toWrite}/review?lang=${lang}`))?.status(), 200);
          assert.equal(await page.locator('html').getAttribute('dir'), lang === 'ar' ? 'rtl' : 'ltr');
          problems.push(...(await pageProblems(page, `review ${lang} ${label}`)));
          await shot(page, `review-${lang}-${label}`);
          assert.equal((await page.goto(`${site}/lawyers/${lawyerId}?lang=${lang}`))?.status(), 200);
          const reviews = page.locator('section[aria-labelledby="reviews-heading"]');
          const text = await reviews.innerText();
          assert.match(text, lang === 'es' ? /Consulta verificada, \p{L}+ de \d{4}/u : /استشارة موثّقة/);
          assert.match(text, /<b>شكرا<\/b>/, 'markup shown as text');
          assert.match(text, /Gracias por tu confianza/);
          assert.equal(await reviews.locator('a[href$="/report"]').count(), 2);
          problems.push(...(await pageProblems(page, `profile ${lang} ${label}`)));
          await reviews.scrollIntoViewIfNeeded();
          await screenshotIfAsked(reviews, path.join(SHOTS, `profile-reviews-${lang}-${label}.png`));
        } finally {
          await context.close();
        }
        assert.deepEqual(problems, []);
      });
    }
  }
});
