/**
 * bin/consulta.js bundles the sources with esbuild and runs the bundle (a directory of ES modules:
 * `main.mjs` and the chunks split at the CLI's dynamic imports), cached by content hash under
 * node_modules/.cache/consulta. Each test runs a copy of the launcher in its own install
 * tree (the sources and packages linked in, its own node_modules/.cache), so the shared cache the
 * other suites use is never touched.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const REPO = path.resolve(import.meta.dirname, '..');
const roots: string[] = [];

/** An install tree: bin/ copied, src/ and every package linked, node_modules/.cache its own. */
function install(): { root: string; cache: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'consulta-launcher-'));
  roots.push(root);
  fs.cpSync(path.join(REPO, 'bin'), path.join(root, 'bin'), { recursive: true });
  fs.copyFileSync(path.join(REPO, 'package.json'), path.join(root, 'package.json'));
  fs.symlinkSync(path.join(REPO, 'src'), path.join(root, 'src'));
  fs.mkdirSync(path.join(root, 'node_modules'));
  for (const name of fs.readdirSync(path.join(REPO, 'node_modules'))) {
    if (name === '.cache') continue;
    fs.symlinkSync(path.join(REPO, 'node_modules', name), path.join(root, 'node_modules', name));
  }
  return { root, cache: path.join(root, 'node_modules', '.cache', 'consulta') };
}

function run(root: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(root, 'bin', 'consulta.js'), ...args], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path.join(root, 'c.db')}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

const bundles = (cache: string) => fs.readdirSync(cache).filter((f) => /^cli-[0-9a-f]{16}$/.test(f)).sort();

/** Every file of a bundle directory's ES modules, concatenated (entry and chunks). */
const bundleCode = (dir: string) => fs.readdirSync(dir).filter((f) => f.endsWith('.mjs')).map((f) => fs.readFileSync(path.join(dir, f), 'utf8')).join('\n');

after(() => {
  for (const root of roots) fs.rmSync(root, { recursive: true, force: true });
});

describe('the consulta launcher', { concurrency: 2 }, () => {
  it('runs a bundle named by its content, with a linked source map into the sources, and reuses it', async () => {
    const { root, cache } = install();
    const first = await run(root, ['migrate', '--json']);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.match(first.stdout, /"applied"/);
    const [name, ...others] = bundles(cache);
    assert.ok(name !== undefined && others.length === 0, `one bundle, got ${bundles(cache).join(', ')}`);
    const dir = path.join(cache, name);
    const code = fs.readFileSync(path.join(dir, 'main.mjs'), 'utf8');
    assert.ok(code.trimEnd().endsWith('//# sourceMappingURL=main.mjs.map'), 'the entry links its own map');
    const map = JSON.parse(fs.readFileSync(path.join(dir, 'main.mjs.map'), 'utf8')) as { sources: string[] };
    const cli = map.sources.find((s) => s.endsWith('src/cli/main.ts'));
    assert.ok(cli !== undefined, 'the map names the TypeScript sources');
    assert.ok(fs.existsSync(path.resolve(dir, cli)), `${cli} resolves from the bundle's directory`);
    const all = bundleCode(dir);
    assert.ok(!/^\s*import\s[^;]*from\s+["']\.\.\//m.test(all), 'no import leaves the bundle for the sources');
    // Split at the CLI's dynamic imports: an operator command loads none of the server's packages.
    assert.ok(!/^\s*import\s[^;]*from\s+["'](fastify|oidc-provider)["']/m.test(code), 'the entry imports neither fastify nor oidc-provider');
    assert.match(all, /from\s+["']fastify["']/, 'a chunk (the server\'s) does');

    // Same sources: the same file, kept fresh (used bundles are never pruned), nothing new written.
    const old = new Date(Date.now() - 3 * 86_400_000);
    fs.utimesSync(dir, old, old);
    const second = await run(root, ['--help']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(bundles(cache), [name]);
    assert.ok(fs.statSync(dir).mtimeMs > old.getTime() + 86_400_000, 'mtime refreshed');
  });

  it('runs the bundle its sources\' stamp names without bundling again, and bundles anew when a source changes', async () => {
    const { root, cache } = install();
    const first = await run(root, ['--help']);
    assert.equal(first.code, 0, first.stderr);
    const stamps = fs.readdirSync(cache).filter((f) => f.startsWith('stamp-'));
    assert.equal(stamps.length, 1, fs.readdirSync(cache).join(', '));
    assert.equal(fs.readFileSync(path.join(cache, stamps[0]!), 'utf8').trim(), bundles(cache)[0]);
    // Point the stamp at another bundle: a run on the same sources must take it as it is.
    const planted = 'cli-00000000000000cc';
    fs.mkdirSync(path.join(cache, planted));
    fs.writeFileSync(path.join(cache, planted, 'main.mjs'), "export async function cli() { process.stdout.write('planted bundle\\n'); }\n");
    fs.writeFileSync(path.join(cache, stamps[0]!), `${planted}\n`);
    const second = await run(root, ['--help']);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout, 'planted bundle\n', 'the stamp decided which bundle ran, no esbuild');
    // A changed input (here package.json, one of the stamp's files) is a new stamp: bundled again, the real CLI runs.
    const pkg = path.join(root, 'package.json');
    fs.utimesSync(pkg, new Date(), new Date(Date.now() + 5_000));
    const third = await run(root, ['--help']);
    assert.equal(third.code, 0, third.stderr);
    assert.match(third.stdout, /consulta/);
    assert.notEqual(third.stdout, 'planted bundle\n');
    assert.equal(fs.readdirSync(cache).filter((f) => f.startsWith('stamp-')).length, 2);
  });

  it('removes bundles of other sources unused for a day when it writes a new one, and keeps recent ones', async () => {
    const { root, cache } = install();
    fs.mkdirSync(cache, { recursive: true });
    const stale = 'cli-00000000000000aa';
    const recent = 'cli-00000000000000bb';
    for (const d of [stale, recent]) {
      fs.mkdirSync(path.join(cache, d));
      for (const f of ['main.mjs', 'main.mjs.map']) fs.writeFileSync(path.join(cache, d, f), '// another version\n');
    }
    const twoDaysAgo = new Date(Date.now() - 2 * 86_400_000);
    fs.utimesSync(path.join(cache, stale), twoDaysAgo, twoDaysAgo);
    const r = await run(root, ['--help']);
    assert.equal(r.code, 0, r.stderr);
    const left = fs.readdirSync(cache);
    assert.ok(!left.includes(stale), `stale bundle removed: ${left.join(', ')}`);
    assert.ok(left.includes(recent) && fs.existsSync(path.join(cache, recent, 'main.mjs')), 'a bundle used within the day is kept');
    assert.equal(bundles(cache).length, 2);
  });

  it('serves as one process: the bundler\'s service is stopped once the bundle is made', async () => {
    const { root } = install();
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: p } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(p));
      });
    });
    const child = spawn(process.execPath, [path.join(root, 'bin', 'consulta.js'), 'serve'], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: `sqlite:${path.join(root, 'c.db')}`, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: 'ignore',
    });
    try {
      let ready = false;
      for (let i = 0; i < 600 && !ready; i++) {
        ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.ok, () => false);
        if (!ready) await new Promise((r) => setTimeout(r, 100));
      }
      assert.ok(ready, 'the server answered /readyz');
      // Every thread's children (Linux): esbuild's service would be one, pinging the server.
      const taskDir = `/proc/${child.pid}/task`;
      const children = fs.readdirSync(taskDir).flatMap((t) => fs.readFileSync(path.join(taskDir, t, 'children'), 'utf8').trim().split(/\s+/).filter(Boolean));
      assert.deepEqual(children, [], 'no child process is left running beside the server');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
  });

  it('still runs, from the sources through tsx, when no bundle can be written, and says so', async () => {
    const { root } = install();
    // node_modules/.cache is a file: the cache directory cannot be created.
    fs.writeFileSync(path.join(root, 'node_modules', '.cache'), '');
    const r = await run(root, ['migrate', '--json']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /"applied"/);
    assert.match(r.stderr, /^consulta: running the sources through tsx \(no bundle: /);
  });
});
