// Bundles test files for the test runner (scripts/test.mjs): each test file with the project's
// own TypeScript it imports, compiled once by esbuild into `.mjs` files with shared chunks;
// packages stay imports of node_modules.
//
// Why: every test file runs in its own Node process, and under the tsx loader every module it
// loads, the few hundred of the project and the thousands of its packages, goes through the
// loader's hooks on another thread. That cost a file importing the app about 6 s of CPU before
// its first test, against about 3 s bundled (docs/performance.md, the suite), over 217 files.
//
// What a bundle keeps of its sources: `import.meta.url`, `import.meta.dirname` and
// `import.meta.filename` are replaced by the original file's (fixtures and assets are found where
// they are); stack traces point at the TypeScript through source maps (--enable-source-maps);
// names are kept as tsx keeps them. A test file importing modules by a computed name (which a
// bundler cannot follow) gets the tsx loader registered first, so those imports still compile.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import * as esbuild from 'esbuild';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'consulta-tests');
/** This run's bundles: one directory per run, so two runs in one checkout never share files. */
export const BUILD_DIR = path.join(CACHE, `run-${process.pid}`);

const COMPUTED_IMPORT = /\bimport\(\s*(?!['"`])/;

const keepSourcePlaces = {
  name: 'keep-source-places',
  setup(build) {
    build.onLoad({ filter: /\.(?:ts|tsx|mts)$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      let source = await fs.promises.readFile(args.path, 'utf8');
      if (source.includes('import.meta.')) {
        source = source
          .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
          .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(args.path)))
          .replaceAll('import.meta.filename', JSON.stringify(args.path));
      }
      if (args.path.endsWith('.test.ts') && COMPUTED_IMPORT.test(source)) source = `import 'tsx';\n${source}`;
      return { contents: source, loader: args.path.endsWith('x') ? 'tsx' : 'ts', resolveDir: path.dirname(args.path) };
    });
  },
};

/** Removes this run's bundles. */
export function removeBuild() {
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
}

/** Bundles of runs whose process is gone (killed before it could remove them). */
function removeStaleBuilds() {
  let entries = [];
  try {
    entries = fs.readdirSync(CACHE);
  } catch {
    return;
  }
  for (const name of entries) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if (error.code === 'ESRCH') fs.rmSync(path.join(CACHE, name), { recursive: true, force: true });
    }
  }
}

/** The bundle a test file runs as. */
export function bundleOf(file) {
  return path.join(BUILD_DIR, path.relative(ROOT, path.resolve(file))).replace(/\.(?:ts|tsx|mts)$/, '.mjs');
}

/** Builds the bundles of `files` (paths of test files); resolves with their paths, in order. */
export async function buildTests(files) {
  removeStaleBuilds();
  fs.rmSync(BUILD_DIR, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: files.map((f) => path.resolve(f)),
    outbase: ROOT,
    outdir: BUILD_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // As tsx compiles: functions keep their names (a test may read them), and so functions passed
    // to page.evaluate must not define named helpers, as under tsx.
    keepNames: true,
    sourcemap: 'linked',
    sourcesContent: false,
    chunkNames: 'chunks/[name]-[hash]',
    tsconfig: path.join(ROOT, 'tsconfig.json'),
    logLevel: 'warning',
    plugins: [keepSourcePlaces],
  });
  return files.map(bundleOf);
}
