/**
 * The operator's legal details (issue 25 item 18): while LEGAL_* settings are unset, the legal
 * notice shows demonstration values in the reader's language (it read "DEMO: no real entry" in
 * English on every page); start-up names the missing settings; and a production start
 * (NODE_ENV=production) refuses people's pages without them — 503 "not open yet" in their
 * language — while the API, the docs and the developer area still answer. A development start
 * (`npm start`) serves everything.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { legalDetailsNotice } from '../../src/cli/main.ts';
import { messages } from '../../src/i18n/index.ts';
import { LEGAL_CHROME } from '../../src/site/help/legal-texts.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { pageText } from '../support/site.ts';

const SET = {
  LEGAL_NAME: 'Abogados Digitales, S.L.',
  LEGAL_TAX_ID: 'B12345678',
  LEGAL_ADDRESS: 'Calle Mayor 10, 28013 Madrid',
  LEGAL_EMAIL: 'legal@abogados-digitales.example',
  LEGAL_REGISTRY: 'Registro Mercantil de Madrid, tomo 1, folio 2, hoja M-3',
};
const HTML = { accept: 'text/html' };

describe('start-up names the missing legal details', () => {
  it('lists each unset LEGAL_* setting; says production refuses; nothing when all are set', () => {
    const none = loadConfig({ LOG_LEVEL: 'silent' });
    assert.deepEqual(none.legal.missing, ['LEGAL_NAME', 'LEGAL_TAX_ID', 'LEGAL_ADDRESS', 'LEGAL_EMAIL', 'LEGAL_REGISTRY']);
    assert.match(legalDetailsNotice(none) ?? '', /LEGAL_NAME, LEGAL_TAX_ID, LEGAL_ADDRESS, LEGAL_EMAIL, LEGAL_REGISTRY not set/);
    const some = loadConfig({ LOG_LEVEL: 'silent', ...SET, LEGAL_REGISTRY: '' });
    assert.deepEqual(some.legal.missing, ['LEGAL_REGISTRY']);
    assert.match(legalDetailsNotice(some) ?? '', /\(LEGAL_REGISTRY not set\)/);
    assert.match(legalDetailsNotice(loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'production' })) ?? '', /NODE_ENV=production .* people's pages answer 503/);
    assert.equal(legalDetailsNotice(loadConfig({ LOG_LEVEL: 'silent', ...SET })), null);
  });

  it('`consulta serve` prints them on standard error as it starts', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-legal-'));
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DATABASE_URL: `sqlite:${path.join(dir, 'c.db')}`, DEMO_LAWYERS: '0' };
    for (const name of Object.keys(SET)) delete env[name];
    delete env.NODE_ENV;
    const child = spawn(process.execPath, [path.resolve('bin/consulta.js'), 'serve'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    try {
      const stderr = await new Promise<string>((resolve, reject) => {
        let text = '';
        const timer = setTimeout(() => reject(new Error(`no notice within 60 s: ${text}`)), 60_000);
        child.stderr.on('data', (d: Buffer) => {
          text += d.toString();
          if (text.includes('LEGAL_REGISTRY not set')) {
            clearTimeout(timer);
            resolve(text);
          }
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}: ${text}`)));
      });
      assert.match(stderr, /legal details missing \(LEGAL_NAME, LEGAL_TAX_ID, LEGAL_ADDRESS, LEGAL_EMAIL, LEGAL_REGISTRY not set\)/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

for (const target of databaseTargets()) {
  describe(`legal details on the site (${target.name})`, () => {
    let dev: TestContext;
    let prod: TestContext;
    let prodSet: TestContext;

    before(async () => {
      dev = await createTestContext(target);
      prod = await createTestContext(target, { config: { nodeEnv: 'production' } });
      prodSet = await createTestContext(target, { config: { nodeEnv: 'production', legal: loadConfig({ ...SET }).legal } });
    });
    after(async () => {
      await dev?.close();
      await prod?.close();
      await prodSet?.close();
    });

    it('the demonstration values of the legal notice are in the reader\'s language', async () => {
      for (const lang of ['es', 'fr', 'ar', 'uk', 'ro', 'en'] as const) {
        const res = await dev.app.fastify.inject({ url: `/legal/aviso-legal?lang=${lang}`, headers: HTML });
        assert.equal(res.statusCode, 200);
        const text = pageText(res.body);
        assert.ok(text.includes(LEGAL_CHROME[lang].demoValues.registry.replace(/\u00a0/g, ' ')), `${lang}: its own demonstration registry`);
        if (lang !== 'en') assert.doesNotMatch(text, /no real entry/, `${lang}: no English placeholder`);
      }
    });

    it('development serves people\'s pages without them', async () => {
      assert.equal((await dev.app.fastify.inject({ url: '/', headers: HTML })).statusCode, 200);
    });

    it('production without them: people\'s pages answer 503 "not open yet" in their language; API, docs and developer area answer', async () => {
      for (const url of ['/', '/legal/aviso-legal', '/contact', '/sign-in', '/consultations']) {
        const res = await prod.app.fastify.inject({ url: `${url}?lang=fr`, headers: HTML });
        assert.equal(res.statusCode, 503, url);
        assert.match(pageText(res.body), new RegExp(messages('fr').errors.notOpenTitle), url);
      }
      const post = await prod.app.fastify.inject({ method: 'POST', url: '/contact', headers: HTML, payload: {} });
      assert.equal(post.statusCode, 503, 'a form post too');
      assert.equal((await prod.app.fastify.inject({ url: '/api/v1/practice-areas' })).statusCode, 200);
      assert.equal((await prod.app.fastify.inject({ url: '/docs/api', headers: HTML })).statusCode, 200);
      assert.notEqual((await prod.app.fastify.inject({ url: '/developer', headers: HTML })).statusCode, 503);
    });

    it('production with them serves people\'s pages', async () => {
      const res = await prodSet.app.fastify.inject({ url: '/legal/aviso-legal', headers: HTML });
      assert.equal(res.statusCode, 200);
      assert.match(pageText(res.body), /Abogados Digitales, S\.L\./);
    });
  });
}
