/**
 * In Chromium, at phone (390 px) and desktop width, in Spanish and English: her consultations
 * (the list with upcoming and past ones and the bookings feed's address, one consultation with
 * the cancel form after an error — its summary has the focus — and a past one with held /
 * no-show), and the console's applications queue (the list and one application). axe-core finds
 * nothing, nothing overflows sideways. Screenshots go to /tmp/shots-c/.
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
import { addSessionCookie, makeOperator } from '../support/dashboard.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, focusedId, screenshotIfAsked } from '../support/browser.ts';
import { givePasskey } from '../support/operator.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-c';
const CARD = { number: '4242 4242 4242 4242', expiry: '12/30', cvc: '123' };

describe('her consultations and the applications queue in Chromium: phone and desktop, es and en, axe-core clean', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-c-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  let lawyerToken: string;
  let operatorToken: string;
  let upcomingId: string;
  let pastId: string;
  let applicationId: string;

  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'c.db')) }));
    const db = server.database.db;
    const now = new Date().toISOString();
    await ensureReferenceData(db, now);
    const [lawyerId] = await insertLawyers(server.database, [lawyerRecord({ name: 'Lucía Fernández Ruiz', weekly_hours: EVERY_DAY_9_TO_14 })], new Date());
    const services = server.app.services;
    const lawyerUser = await services.accounts.ensureUser('lucia@despacho.example');
    await db.updateTable('lawyers').set({ user_id: lawyerUser.id }).where('id', '=', lawyerId!).execute();
    lawyerToken = (await services.sessions.create(lawyerUser.id, { ip: '127.0.0.1' })).token;
    const ctx = { app: server.app } as unknown as TestContext;
    const ids: string[] = [];
    for (const [i, email, name] of [[0, 'maria.garcia@example.com', 'María García'], [1, 'ahmed@example.com', 'Ahmed Benali']] as const) {
      const person = await services.accounts.ensureUser(email);
      await db.updateTable('users').set({ name }).where('id', '=', person.id).execute();
      const res = await initiate(ctx, slotBody(lawyerId!, madridDate(Date.now(), 3), `1${i}`), { remoteAddress: `198.51.100.${i + 1}` });
      assert.equal(res.statusCode, 201, res.body);
      const outcome = await services.payments.payWithCard(tokenOf(res.json().confirmation_url), person.id, CARD);
      assert.equal(outcome.kind, 'confirmed');
      ids.push((await db.selectFrom('consultations').select('id').where('booking_intent_id', '=', res.json().booking_intent_id).executeTakeFirstOrThrow()).id);
    }
    upcomingId = ids[0]!;
    pastId = ids[1]!;
    // The second one as if it had taken place last week.
    await db.updateTable('consultations').set({ slot_date: madridDate(Date.now(), -7) }).where('id', '=', pastId).execute();

    const applicant = await services.accounts.ensureUser('amina@example.com');
    applicationId = (
      await services.applications.apply(
        { userId: applicant.id, email: applicant.email },
        { name: 'Amina Benali Ruiz', colegio: 'madrid', membershipNumber: '12.345', city: 'madrid', languages: ['es', 'ar', 'fr'], practiceAreas: ['residence', 'arraigo-social'], primaryArea: 'arraigo-social', fee: '65', consultationMinutes: '45', videoUrl: 'https://meet.example.com/amina', phone: 'on', officeAddress: 'Calle Mayor 5, 28013 Madrid', bio: 'Abogada de extranjería desde 2012: arraigo, reagrupación familiar y nacionalidad.' },
      )
    ).application.id;
    const op = await services.accounts.ensureUser('operadora@consulta.example');
    await makeOperator(server.database, op.id, now);
    await givePasskey(server.database, op.id, now);
    operatorToken = (await services.sessions.create(op.id, { ip: '127.0.0.1', passkey: true })).token;
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const shot = (page: Page, name: string) => screenshotIfAsked(page, path.join(SHOTS, `${name}.png`), { fullPage: true });

  for (const lang of ['es', 'en'] as const) {
    for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      it(`her consultations (${lang}, ${label})`, async () => {
        const problems: string[] = [];
        const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
        await addSessionCookie(context, site, lawyerToken);
        try {
          const page = await context.newPage();
          assert.equal((await page.goto(`${site}/lawyer/consultations?lang=${lang}`))?.status(), 200);
          assert.match(await page.locator('main').innerText(), /María García/);
          problems.push(...(await pageProblems(page, `list ${lang} ${label}`)));
          await shot(page, `consultations-${lang}-${label}`);
          // Make the feed address: shown once.
          await page.locator('form[action="/lawyer/consultations/feed"] button').click();
          await page.waitForSelector('#feed-url');
          assert.match(await page.locator('#feed-url').inputValue(), /\/lawyer\/consultations\/feed\/[A-Za-z0-9_-]{43}\.ics$/);
          problems.push(...(await pageProblems(page, `feed ${lang} ${label}`)));
          await shot(page, `consultations-feed-${lang}-${label}`);

          await page.goto(`${site}/lawyer/consultations/${upcomingId}?lang=${lang}`);
          await page.locator('form[action$="/cancel"] button').click();
          await page.waitForSelector('#error-summary');
          assert.equal(await focusedId(page, 'error-summary'), 'error-summary');
          problems.push(...(await pageProblems(page, `cancel error ${lang} ${label}`)));
          await shot(page, `consultation-cancel-error-${lang}-${label}`);

          await page.goto(`${site}/lawyer/consultations/${pastId}?lang=${lang}`);
          assert.equal(await page.locator('form[action$="/outcome"]').count(), 2);
          problems.push(...(await pageProblems(page, `past ${lang} ${label}`)));
          await shot(page, `consultation-past-${lang}-${label}`);
        } finally {
          await context.close();
        }
        assert.deepEqual(problems, []);
      });

      it(`the applications queue (${lang}, ${label})`, async () => {
        const problems: string[] = [];
        const context = await browser.newContext({ viewport, locale: lang === 'es' ? 'es-ES' : 'en-GB' });
        await addSessionCookie(context, site, operatorToken);
        try {
          const page = await context.newPage();
          assert.equal((await page.goto(`${site}/operator/applications?lang=${lang}`))?.status(), 200);
          assert.match(await page.locator('main').innerText(), /Amina Benali Ruiz/);
          problems.push(...(await pageProblems(page, `queue ${lang} ${label}`)));
          await shot(page, `queue-${lang}-${label}`);
          await page.goto(`${site}/operator/applications/${applicationId}?lang=${lang}`);
          assert.match(await page.locator('main').innerText(), /Censo General de Letrados/);
          problems.push(...(await pageProblems(page, `application ${lang} ${label}`)));
          await shot(page, `application-${lang}-${label}`);
        } finally {
          await context.close();
        }
        assert.deepEqual(problems, []);
      });
    }
  }
});
