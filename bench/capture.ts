/**
 * Reads real lawyer ids from the running service and records, for every benchmark path, the
 * exact status, content type and body the service answered, which the raw baseline replays.
 */
import { FORWARDED_FOR, nextClientAddress } from './addresses.ts';
import { API } from './scenarios.ts';

export interface Captured {
  status: number;
  contentType: string;
  body: Buffer;
}

export type Capture = Map<string, Captured>;

async function get(url: string, headers: Record<string, string> = {}): Promise<Captured> {
  const res = await fetch(url, { headers: { ...headers, [FORWARDED_FOR]: nextClientAddress() }, signal: AbortSignal.timeout(30_000) });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, contentType: res.headers.get('content-type') ?? 'application/octet-stream', body };
}

/** Up to `count` distinct lawyer ids, read page by page from the default search (25 per page). */
export async function discoverLawyerIds(baseUrl: string, count: number, headers: Record<string, string> = {}): Promise<string[]> {
  const ids: string[] = [];
  const pages = Math.ceil(count / 25);
  for (let page = 1; page <= pages; page++) {
    const res = await get(`${baseUrl}${API}/lawyers/search?limit=25&page=${page}`, headers);
    if (res.status !== 200) throw new Error(`search page ${page} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    const data = JSON.parse(res.body.toString('utf8')) as { lawyers: Array<{ id: string }>; has_more: boolean };
    ids.push(...data.lawyers.map((l) => l.id));
    if (!data.has_more) break;
  }
  const unique = [...new Set(ids)].slice(0, count);
  if (unique.length === 0) throw new Error('the search returned no lawyers: is the database seeded?');
  return unique;
}

/** Fetches every path once; every answer must be a 200, or the benchmark would time errors. */
export async function capture(baseUrl: string, paths: Iterable<string>, headers: Record<string, string> = {}): Promise<Capture> {
  const out: Capture = new Map();
  for (const path of paths) {
    if (out.has(path)) continue;
    const res = await get(`${baseUrl}${path}`, headers);
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
    out.set(path, res);
  }
  return out;
}

/** Confirms the baseline answers byte-for-byte what the service answered. */
export async function verifyReplay(baseUrl: string, expected: Capture): Promise<void> {
  for (const [path, want] of expected) {
    const got = await get(`${baseUrl}${path}`);
    if (got.status !== want.status || got.contentType !== want.contentType || !got.body.equals(want.body)) {
      throw new Error(`baseline answer for ${path} differs from the service's`);
    }
  }
}

export function serializeCapture(c: Capture): string {
  return JSON.stringify([...c].map(([path, r]) => ({ path, status: r.status, content_type: r.contentType, body: r.body.toString('base64') })));
}
