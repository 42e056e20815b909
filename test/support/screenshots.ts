/**
 * The suites' screenshots, taken only when a person asks for them. Apart from browser.ts (which
 * re-exports it) so that the many HTTP suites importing dashboard.ts load no browser packages.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * Whether the suites take their screenshots: when a person asks for them with `TEST_SHOTS=1`, by
 * naming a folder with `SHOTS_DIR`, or with `UPDATE_SCREENSHOTS=1` (`npm run screenshots`, which
 * rewrites the docs' images). No test reads a screenshot: they are for a person to look at, and a
 * full-page one costs a walk a rendering of the whole page and a PNG encoding each time
 * (docs/performance.md, the suite), so a plain `npm test` takes none.
 */
export function screenshotsWanted(): boolean {
  const env = process.env;
  return env.TEST_SHOTS === '1' || (env.SHOTS_DIR ?? '') !== '' || env.UPDATE_SCREENSHOTS === '1';
}

/**
 * A screenshot of a page (or of one element) into `file`, its folder created, when
 * `screenshotsWanted()`; otherwise nothing. Resolves with the file written, or undefined.
 */
export async function screenshotIfAsked(target: Page | Locator, file: string, options: { fullPage?: boolean } = {}): Promise<string | undefined> {
  if (!screenshotsWanted()) return undefined;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  if ('goto' in target) await target.screenshot({ path: file, fullPage: options.fullPage ?? false });
  else await target.screenshot({ path: file });
  return file;
}
