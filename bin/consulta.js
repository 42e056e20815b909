#!/usr/bin/env node
// The `consulta` command. There is no build step to remember: a start bundles the TypeScript
// sources into ES modules with esbuild (about 0.1 s; split at the CLI's dynamic imports, so an
// operator command loads none of the server's packages), stored under node_modules/.cache in a
// directory named by a hash of their content, and runs it; a start on sources it has seen (same files, sizes and
// modification times) runs their bundle without bundling. Running the sources through tsx's
// loader instead (as the tests do) keeps a second V8 isolate alive for the loader thread: about
// 40 MB of the server's memory, and a slower start (docs/performance.md, Memory).
//
// The bundle has a linked source map: run with NODE_OPTIONS=--enable-source-maps to see stack
// traces in the TypeScript sources (Node then holds the map in memory, about 11 MB). Where no
// bundle can be made (a read-only install, say), the sources are loaded through tsx instead.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const CACHE_DIR = path.join(ROOT, 'node_modules', '.cache', 'consulta');
// Bundles of other source versions not used for this long are removed.
const PRUNE_AFTER_MS = 24 * 60 * 60 * 1000;

async function bundle() {
  const { build, stop } = await import('esbuild');
  // esbuild keeps its service process alive, pinging this one, for as long as the server runs:
  // stopped once the bundle is made, so a server is one process and spends nothing on it.
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: 'src/cli/main.ts' },
    bundle: true,
    // Split at the CLI's dynamic imports: an operator command loads its own code and packages,
    // not the server's (fastify, oidc-provider, the MCP SDK, stripe: about half a second).
    splitting: true,
    chunkNames: 'chunk-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    // Dependencies stay in node_modules (the bundle sits inside it, so they resolve as usual),
    // except Kysely: its ESM build is 279 small files, which Node resolves and compiles one by
    // one on every start; bundled, it is part of one chunk.
    external: Object.keys(JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).dependencies ?? {}).filter((name) => name !== 'kysely'),
    sourcemap: 'linked',
    outdir: path.join(CACHE_DIR, 'cli'),
    outExtension: { '.js': '.mjs' },
    write: false,
    logLevel: 'silent',
  }).finally(() => stop());
  const outDir = path.join(CACHE_DIR, 'cli');
  const files = result.outputFiles.map((f) => ({ rel: path.relative(outDir, f.path), text: f.text })).sort((a, b) => (a.rel < b.rel ? -1 : 1));
  if (!files.some((f) => f.rel === 'main.mjs') || !files.some((f) => f.rel === 'main.mjs.map')) throw new Error('esbuild produced no bundle');
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.rel}\0${f.text}\0`);
  // One directory per build (entry, chunks and maps), named by their content: the maps' relative
  // paths into src/ hold because the directory sits where esbuild placed its output.
  const name = `cli-${hash.digest('hex').slice(0, 16)}`;
  const dir = path.join(CACHE_DIR, name);
  if (fs.existsSync(path.join(dir, 'main.mjs'))) {
    const now = new Date();
    fs.utimesSync(dir, now, now);
    return name;
  }
  fs.mkdirSync(CACHE_DIR, { recursive: true });
  // Written under a temporary name and renamed whole, so a process starting at the same moment
  // never imports half a bundle; two processes writing the same sources write the same bytes.
  const tmp = `${dir}.${process.pid}.tmp`;
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.mkdirSync(tmp);
  for (const f of files) fs.writeFileSync(path.join(tmp, f.rel), f.text);
  try {
    fs.renameSync(tmp, dir);
  } catch (err) {
    // Another process renamed the same build into place first.
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(path.join(dir, 'main.mjs'))) throw err;
  }
  prune(name);
  return name;
}

function prune(keep) {
  const cutoff = Date.now() - PRUNE_AFTER_MS;
  for (const entry of fs.readdirSync(CACHE_DIR)) {
    if (!(entry.startsWith('cli-') || entry.startsWith('stamp-')) || entry === keep) continue;
    const file = path.join(CACHE_DIR, entry);
    try {
      if (fs.statSync(file).mtimeMs < cutoff) fs.rmSync(file, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}

/**
 * What the bundle follows from, cheaply: every source file's path, size and modification time,
 * and the esbuild and launcher versions. Bundling costs about 0.3 s of a 1.2 s command; a stamp
 * seen before names its bundle, so a command run again on the same sources skips esbuild (as
 * make does, by modification time). Any edit, checkout or install changes the stamp.
 */
function sourceStamp() {
  const hash = createHash('sha256');
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else {
        const st = fs.statSync(p);
        hash.update(`${p}\0${st.size}\0${st.mtimeMs}\n`);
      }
    }
  };
  walk(path.join(ROOT, 'src'));
  for (const f of [import.meta.filename, path.join(ROOT, 'tsconfig.json'), path.join(ROOT, 'package.json'), path.join(ROOT, 'package-lock.json'), path.join(ROOT, 'node_modules', 'esbuild', 'package.json')]) {
    const st = fs.statSync(f, { throwIfNoEntry: false });
    hash.update(`${f}\0${st?.size}\0${st?.mtimeMs}\n`);
  }
  return path.join(CACHE_DIR, `stamp-${hash.digest('hex').slice(0, 16)}`);
}

/** The bundle a stamp names, kept fresh like a bundle found by its content (used bundles are never pruned); null if none. */
function stampedBundle(stamp) {
  const known = fs.existsSync(stamp) ? fs.readFileSync(stamp, 'utf8').trim() : '';
  const dir = path.join(CACHE_DIR, known);
  if (!/^cli-[0-9a-f]{16}$/.test(known) || !fs.existsSync(path.join(dir, 'main.mjs'))) return null;
  const now = new Date();
  fs.utimesSync(dir, now, now);
  fs.utimesSync(stamp, now, now);
  return known;
}

/** The bundle of these sources: the one their stamp names, or a new one, then named by it. */
async function bundleForSources() {
  const stamp = sourceStamp();
  const known = stampedBundle(stamp);
  if (known) return path.join(CACHE_DIR, known, 'main.mjs');
  const name = await bundle();
  const tmp = `${stamp}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${name}\n`);
  fs.renameSync(tmp, stamp);
  return path.join(CACHE_DIR, name, 'main.mjs');
}

let entry;
try {
  entry = await bundleForSources();
} catch (err) {
  // A read-only install, say: still run, from the sources, and say why it is slower.
  process.stderr.write(`consulta: running the sources through tsx (no bundle: ${err?.message ?? err})\n`);
  const { register } = await import('tsx/esm/api');
  register();
  entry = path.join(ROOT, 'src', 'cli', 'main.ts');
}
const { cli } = await import(entry);
await cli(process.argv.slice(2));
