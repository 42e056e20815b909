/**
 * The layer order of DESIGN.md §2, kept by `npm run lint` (eslint.config.js, import-x's
 * no-restricted-paths; docs/decisions.md#layers-how-the-code-is-put-together). An import from a
 * lower layer to a higher one fails; one that runs downwards passes. That src/ as it stands passes
 * is `npm run lint`'s own job in CI (.ci/run): linting all of src/ here again cost the suite ~2 minutes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = path.resolve(import.meta.dirname, '../..');
const RULE = 'import-x/no-restricted-paths';
// Only the layer rule: the other rules are not what this test is about.
const eslint = new ESLint({ cwd: root, ruleFilter: ({ ruleId }) => ruleId === RULE });

/** The layer rule's messages for `code` as if it were the file `file` (which need not exist). */
async function layerErrors(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  assert.ok(result, 'ESLint answered');
  assert.deepEqual(result.messages.filter((m) => m.fatal), [], 'the snippet parses');
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe('layers a linter keeps (DESIGN.md §2)', () => {
  it('refuses an import that runs back up, type-only imports included, and names the layer', async () => {
    const backUp: Array<[file: string, code: string]> = [
      // The domain importing a page (an area plugin).
      ['src/domain/booking/layers-fixture.ts', "import { sitePlugin } from '../../site/plugin.ts';\nexport const x = sitePlugin;\n"],
      // i18n importing the domain.
      ['src/i18n/layers-fixture.ts', "import { DirectoryService } from '../domain/directory/directory.service.ts';\nexport const x = DirectoryService;\n"],
      // An area plugin importing the composition, for a type.
      ['src/metrics/layers-fixture.ts', "import type { App } from '../app.ts';\nexport type X = App;\n"],
      // A payment provider importing an HTTP helper.
      ['src/payments/layers-fixture.ts', "import { sendProblem } from '../http/problem.ts';\nexport const x = sendProblem;\n"],
      // The composition importing the server that starts it.
      ['src/app.ts', "import { startServer } from './server.ts';\nexport const x = startServer;\n"],
    ];
    for (const [file, code] of backUp) {
      const errors = await layerErrors(file, code);
      assert.equal(errors.length, 1, `${file}: ${code}`);
      assert.match(errors[0]!, /imports only from itself and the layers below it/);
    }
  });

  it('refuses an import between db and the payment providers, which stand side by side', async () => {
    const errors = await layerErrors('src/db/repositories/layers-fixture.ts', "import type { ConnectedAccountState } from '../../payments/provider.ts';\nexport type X = ConnectedAccountState;\n");
    assert.equal(errors.length, 1);
    assert.match(errors[0]!, /stand side by side/);
    assert.equal((await layerErrors('src/payments/layers-fixture.ts', "import type { Executor } from '../db/repositories/types.ts';\nexport type X = Executor;\n")).length, 1);
  });

  it('lets imports run downwards and across one layer', async () => {
    const fine: Array<[string, string]> = [
      ['src/domain/booking/layers-fixture.ts', "import type { Database } from '../../db/database.ts';\nimport { zonedToUtcMs } from '../../zoned-time.ts';\nexport type X = Database;\nexport const y = zonedToUtcMs;\n"],
      ['src/site/layers-fixture.ts', "import { sendProblem } from '../http/problem.ts';\nimport { BookingService } from '../domain/booking/booking.service.ts';\nexport const x = [sendProblem, BookingService];\n"],
      ['src/server.ts', "import { buildApp } from './app.ts';\nexport const x = buildApp;\n"],
    ];
    for (const [file, code] of fine) assert.deepEqual(await layerErrors(file, code), [], file);
  });

  it('places every file of src/ in a layer, so none escapes the rule', async () => {
    const { LAYERS } = (await import(pathToFileURL(path.join(root, 'eslint.config.js')).href)) as { LAYERS: Array<{ paths: string[] }> };
    const placed = LAYERS.flatMap((l) => l.paths);
    const files = fs.readdirSync(path.join(root, 'src'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && /\.tsx?$/.test(e.name));
    assert.ok(files.length > 100);
    for (const f of files) {
      const rel = path.relative(root, path.join(f.parentPath, f.name));
      assert.ok(placed.some((p) => rel === p || rel.startsWith(`${p}/`)), `${rel} is in no layer of eslint.config.js`);
    }
  });
});
