// Page weight of the booking path, first visit: every HTML page a person loads from the home
// page to the hold's confirmation page, and every asset those pages link (stylesheet, scripts,
// images, icons) counted once, as a browser with an empty cache fetches them. Sizes raw, gzip
// (level 6) and Brotli (quality 11), as a compressing proxy in front of the service would send
// them (the service itself does not compress; docs/performance.md).
//
//   npx tsx bench/page-weight.ts http://localhost:3000
//
// The server must be running with the demo directory (npm start).
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const base = (process.argv[2] ?? 'http://localhost:3000').replace(/\/$/, '');
const jar = new Map<string, string>();

function cookieHeader(): string {
  return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
}

function keepCookies(res: Response): void {
  for (const line of res.headers.getSetCookie()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    jar.set(pair!.slice(0, at).trim(), pair!.slice(at + 1).trim());
  }
}

async function fetchText(path: string, init: RequestInit = {}): Promise<{ status: number; body: Buffer; location: string | null; type: string }> {
  const res = await fetch(base + path, { ...init, redirect: 'manual', headers: { ...(init.headers ?? {}), cookie: cookieHeader(), 'accept-language': 'es' } });
  keepCookies(res);
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()), location: res.headers.get('location'), type: res.headers.get('content-type') ?? '' };
}

interface Row { what: string; raw: number; gzip: number; br: number }
const rows: Row[] = [];
const seenAssets = new Set<string>();

function measure(what: string, body: Buffer): void {
  rows.push({
    what,
    raw: body.length,
    gzip: gzipSync(body, { level: 6 }).length,
    br: brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  });
}

async function page(what: string, path: string): Promise<string> {
  const res = await fetchText(path);
  if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
  measure(what, res.body);
  const html = res.body.toString('utf8');
  for (const m of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
    const asset = m[1]!;
    if (seenAssets.has(asset)) continue;
    seenAssets.add(asset);
    const a = await fetchText(asset);
    measure(`  asset ${asset.replace(/\.[0-9a-f]{10}\./, '.')}`, a.body);
  }
  return html;
}

const home = await page('home', '/');
void home;
const results = await page('search', '/?city=madrid');
const lawyer = /href="(\/lawyers\/[0-9a-f-]{36})"/.exec(results)?.[1];
if (!lawyer) throw new Error('no lawyer on the search page');
await page('profile', lawyer);
const book = await page('free times', `${lawyer}/book`);
// The first time button's form: its hidden fields and the slot it holds.
const form = /<form[^>]*action="([^"]*\/book)"[^>]*>([\s\S]*?)<\/form>/.exec(book);
if (!form) throw new Error('no hold form on the free-times page');
const fields = new URLSearchParams();
for (const m of form[2]!.matchAll(/<input[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) fields.set(m[1]!, m[2]!.replaceAll('&amp;', '&'));
const button = /<button[^>]*name="([^"]+)"[^>]*value="([^"]+)"/.exec(form[2]!);
if (button) fields.set(button[1]!, button[2]!);
const held = await fetchText(form[1]!, { method: 'POST', body: fields, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: base } });
if (held.status !== 303 || !held.location) throw new Error(`hold: ${held.status} ${held.body.toString('utf8').slice(0, 200)}`);
await page('hold / confirm', new URL(held.location, base).pathname);

const total = rows.reduce((t, r) => ({ raw: t.raw + r.raw, gzip: t.gzip + r.gzip, br: t.br + r.br }), { raw: 0, gzip: 0, br: 0 });
const kb = (n: number) => (n / 1024).toFixed(1).padStart(7);
console.log(`${'what'.padEnd(44)}${'raw KB'.padStart(8)}${'gzip KB'.padStart(9)}${'br KB'.padStart(8)}`);
for (const r of rows) console.log(`${r.what.padEnd(44)}${kb(r.raw)} ${kb(r.gzip)} ${kb(r.br)}`);
console.log(`${'total, first visit'.padEnd(44)}${kb(total.raw)} ${kb(total.gzip)} ${kb(total.br)}`);
