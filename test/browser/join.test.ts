/**
 * /join in Chromium, in Spanish, at phone (390 px) and desktop width: the signed-out explanation,
 * the form, the form after an error (its summary has the focus) and the pending page. axe-core
 * finds nothing, nothing overflows sideways. Screenshots go to /tmp/shots-join/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { ensureReferenceData } from '../../src/domain/directory/directory-writer.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { addSessionCookie } from '../support/dashboard.ts';
import { testConfig } from '../support/app.ts';
import { browserUnavailable, DESKTOP, freePort, launchBrowser, pageProblems, PHONE, focusedId, screenshotIfAsked } from '../support/browser.ts';
import { migratedSqliteUrl } from '../support/databases.ts';

const unavailable = browserUnavailable();
const SHOTS = '/tmp/shots-join';

describe('/join in Chromium (es): phone and desktop, axe-core clean', { skip: unavailable }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-join-'));
  let server: RunningServer;
  let browser: Browser;
  let site: string;
  before(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    const port = await freePort();
    site = `http://localhost:${port}`;
    server = await startServer(testConfig({ port, host: '127.0.0.1', siteUrl: site, baseUrl: `${site}/api/v1`, mcpUrl: `${site}/mcp`, databaseUrl: await migratedSqliteUrl(path.join(dir, 'j.db')) }));
    await ensureReferenceData(server.database.db, new Date().toISOString());
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function shot(page: Page, name: string) {
    await screenshotIfAsked(page, path.join(SHOTS, `${name}.png`), { fullPage: true });
  }

  for (const [label, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
    it(`signed out, the form, an error and the pending page (${label})`, async () => {
      const problems: string[] = [];
      const signedOut = await browser.newContext({ viewport, locale: 'es-ES' });
      try {
        const page = await signedOut.newPage();
        assert.equal((await page.goto(`${site}/join`))?.status(), 200);
        assert.match(await page.locator('main').innerText(), /Censo General de Letrados/);
        problems.push(...(await pageProblems(page, `signed out ${label}`)));
        await shot(page, `join-signed-out-es-${label}`);
      } finally {
        await signedOut.close();
      }

      const user = await server.app.services.accounts.ensureUser(`abogada-${label}@example.com`);
      const { token } = await server.app.services.sessions.create(user.id, { ip: '127.0.0.1' });
      const context = await browser.newContext({ viewport, locale: 'es-ES' });
      await addSessionCookie(context, site, token);
      try {
        const page = await context.newPage();
        await page.goto(`${site}/join`);
        problems.push(...(await pageProblems(page, `form ${label}`)));
        await shot(page, `join-form-es-${label}`);

        // A first try with an http video link and no colegio: the summary has the focus, values stay.
        await page.getByLabel(/Nombre completo/).fill('Lucía Fernández Ortega');
        await page.getByLabel(/Número de colegiación/).fill('4321');
        await page.getByLabel(/Ciudad donde ejerce/).selectOption('sevilla');
        await page.locator('input[name="languages"][value="es"]').check();
        await page.locator('input[name="practice_areas"]').first().check();
        await page.getByLabel(/Tarifa de una consulta/).fill('70');
        await page.getByLabel(/Vídeo: su propio enlace/).fill('http://meet.example.com/lucia');
        await page.getByRole('button', { name: 'Enviar mi solicitud' }).click();
        await page.waitForSelector('#error-summary');
        assert.equal(await focusedId(page, 'error-summary'), 'error-summary');
        assert.equal(await page.getByLabel(/Nombre completo/).inputValue(), 'Lucía Fernández Ortega');
        assert.match(await page.locator('#error-summary').innerText(), /Elija su colegio de la lista[\s\S]*https:\/\//);
        problems.push(...(await pageProblems(page, `form with errors ${label}`)));
        await shot(page, `join-form-errors-es-${label}`);

        await page.getByLabel(/Colegio de la abogacía/).selectOption('sevilla');
        await page.getByLabel(/Vídeo: su propio enlace/).fill('https://meet.example.com/lucia');
        await page.getByRole('button', { name: 'Enviar mi solicitud' }).click();
        await page.waitForURL(`${site}/join`);
        assert.match(await page.locator('h1').innerText(), /Su solicitud está pendiente/);
        assert.match(await page.locator('main').innerText(), /Lucía Fernández Ortega[\s\S]*Sevilla[\s\S]*4321/);
        problems.push(...(await pageProblems(page, `pending ${label}`)));
        await shot(page, `join-pending-es-${label}`);
      } finally {
        await context.close();
      }
      assert.deepEqual(problems, []);
    });
  }
});
