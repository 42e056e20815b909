/**
 * Static assets of the site (the stylesheet, small scripts, and the prebuilt browser bundles of
 * a few npm packages), served under content-hashed names (`/assets/site.3f2a9c1b.css`) so
 * browsers may cache them for a year and a new version is a new URL. Read once at start-up from
 * `src/site/assets/` (found from the project root, so the same code works from the sources and
 * from the launcher's bundle) and from node_modules.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

interface Asset {
  url: string;
  body: Buffer;
  type: string;
}

const TYPES: Record<string, string> = { '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.svg': 'image/svg+xml' };

/**
 * Prebuilt browser bundles of npm packages, served as hashed assets like our own files (no copy
 * in the tree to keep up to date): the WebAuthn calls of the passkey pages.
 */
const VENDOR: Record<string, () => string> = {
  'simplewebauthn-browser.js': () => path.join(path.dirname(createRequire(import.meta.url).resolve('@simplewebauthn/browser')), '..', 'dist', 'bundle', 'index.umd.min.js'),
};

/** The folder of the assets: walks up from this module to the package root. */
function assetsDir(): string {
  let dir = import.meta.dirname;
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, 'src', 'site', 'assets');
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(candidate)) return candidate;
    if (path.basename(dir) === 'site' && fs.existsSync(path.join(dir, 'assets'))) return path.join(dir, 'assets');
    dir = path.dirname(dir);
  }
  throw new Error('site assets not found (src/site/assets)');
}

export class SiteAssets {
  private readonly byName = new Map<string, Asset>();
  private readonly byUrl = new Map<string, Asset>();

  constructor(dir = assetsDir()) {
    const files: Array<[string, string]> = fs.readdirSync(dir).map((file) => [file, path.join(dir, file)]);
    for (const [name, locate] of Object.entries(VENDOR)) files.push([name, locate()]);
    for (const [file, full] of files) {
      const ext = path.extname(file);
      const type = TYPES[ext];
      if (!type) continue;
      const body = fs.readFileSync(full);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
      const asset = { url: `/assets/${path.basename(file, ext)}.${hash}${ext}`, body, type };
      this.byName.set(file, asset);
      this.byUrl.set(asset.url, asset);
    }
  }

  /** The hashed URL of an asset (`url('site.css')`). */
  url(name: string): string {
    const asset = this.byName.get(name);
    if (!asset) throw new Error(`unknown site asset ${name}`);
    return asset.url;
  }

  /** An asset's bytes, for files also served at a fixed address (the widget's /embed.js). */
  body(name: string): Buffer {
    const asset = this.byName.get(name);
    if (!asset) throw new Error(`unknown site asset ${name}`);
    return asset.body;
  }

  register(app: FastifyInstance): void {
    app.get<{ Params: { file: string } }>('/assets/:file', { schema: { hide: true } }, async (request, reply) => {
      const asset = this.byUrl.get(`/assets/${request.params.file}`);
      // Unknown name or stale hash: the site's not-found answer (a problem document for the
      // browser's asset fetch, the 404 page for a person who opened the URL; docs/errors.md).
      if (!asset) return reply.callNotFound();
      return reply.type(asset.type).header('cache-control', 'public, max-age=31536000, immutable').send(asset.body);
    });
  }
}
