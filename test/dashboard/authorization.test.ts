/**
 * Object-level authorization over every dashboard route, table-driven: each area lists, in
 * test/dashboard/authz/<area>.ts, the routes that name an object (a path parameter, or an id in a
 * form) and how to make a victim's object for them. Here an attacker — signed in, with a valid
 * CSRF token of their own — sends each request with the victim's id: the answer must be the
 * ordinary 404 page and the victim's object must be exactly as it was.
 *
 * The table must be complete: every registered dashboard route with a path parameter needs a row
 * (the operator console is the exception — there every non-operator gets 404 on every URL,
 * enumerated from the registered routes in test/dashboard/operator.test.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createTestContext, type TestContext } from '../support/app.ts';
import { databaseTargets } from '../support/databases.ts';
import { signedIn, type ForeignObjectCase } from '../support/dashboard.ts';

const DASHBOARD = /^\/(developer|firms|account\/passkeys)(\/|$)/;

const here = path.dirname(fileURLToPath(import.meta.url));
const tableDir = path.join(here, 'authz');
const cases: ForeignObjectCase[] = [];
for (const file of (fs.existsSync(tableDir) ? fs.readdirSync(tableDir) : []).filter((f) => f.endsWith('.ts')).sort()) {
  const mod = (await import(pathToFileURL(path.join(tableDir, file)).href)) as { cases: ForeignObjectCase[] };
  cases.push(...mod.cases);
}

for (const target of databaseTargets()) {
  describe(`object-level authorization on every dashboard route (${target.name})`, () => {
    let ctx: TestContext;
    before(async () => {
      ctx = await createTestContext(target, { config: { keyCacheTtlMs: 0 } });
    });
    after(async () => ctx?.close());

    it('has a row for every dashboard route with a path parameter', () => {
      const covered = new Set(cases.map((c) => `${c.method} ${c.route}`));
      const missing = ctx.app.routes
        .filter((r) => (r.method === 'GET' || r.method === 'POST') && DASHBOARD.test(r.url) && r.url.includes(':'))
        .map((r) => `${r.method} ${r.url}`)
        .filter((r) => !covered.has(r));
      assert.deepEqual([...new Set(missing)], [], 'routes without an authorization row');
    });

    it('every row names a registered route', () => {
      const registered = new Set(ctx.app.routes.map((r) => `${r.method} ${r.url}`));
      assert.deepEqual(cases.map((c) => `${c.method} ${c.route}`).filter((r) => !registered.has(r)), []);
    });

    let n = 0;
    for (const c of cases) {
      it(`${c.method} ${c.route} with another person's object: 404, nothing changed`, async () => {
        n += 1;
        const victim = await signedIn(ctx, `victim-${n}-${target.name}@example.com`);
        const attacker = await signedIn(ctx, `attacker-${n}-${target.name}@example.com`);
        const { url, form, snapshot } = await c.setup(ctx, victim);
        const before = await snapshot();
        // The attacker's own valid CSRF token: a page of theirs with forms.
        await attacker.client.get('/developer/keys/new');
        const res = c.method === 'GET' ? await attacker.client.get(url) : await attacker.client.post(url, form ?? {});
        assert.equal(res.statusCode, c.status ?? 404, `${c.method} ${url} answered ${res.statusCode}`);
        assert.match(res.headers['content-type'] as string, /^text\/html/);
        assert.deepEqual(await snapshot(), before, 'the victim\'s object changed');
        // And the victim can still reach it (the row really names their object).
        if (c.method === 'GET') assert.notEqual((await victim.client.get(url)).statusCode, 404, 'the owner sees it');
      });
    }
  });
}
