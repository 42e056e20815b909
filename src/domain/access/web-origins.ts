/**
 * The web origins a publishable key works from (docs/widget.md#security-model). One list serves
 * two checks: CORS on the REST API (the `Origin` a browser sends) and `frame-ancestors` on the
 * widget's frame (the browser compares the embedding pages itself). So every entry must mean the
 * same in both: an exact origin (`https://ngo.example`, `https://ngo.example:8443`), or one
 * wildcard form, `https://*.example.org` (any subdomain of example.org, not example.org itself;
 * CSP's own meaning). HTTPS only, except loopback hosts over http for local development.
 * Paths, credentials, queries, other wildcards and bare hosts are refused with a reason.
 */

export const MAX_ORIGINS = 20;

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
// A DNS label: letters, digits, hyphens inside (IDNs are given in their xn-- form).
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}\\.)*${LABEL}$`);
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export interface OriginsCheck {
  origins: string[];
  errors: Array<{ index: number; detail: string }>;
}

/** One entry, normalised (lower case, no default port), or the reason it is refused. */
export function normaliseOrigin(raw: unknown): { origin: string } | { error: string } {
  if (typeof raw !== 'string') return { error: 'must be text' };
  const text = raw.trim().toLowerCase();
  const m = /^(https?):\/\/(\*\.)?([^/:?#@\s]+|\[::1\])(?::(\d{1,5}))?\/?$/.exec(text);
  if (!m) return { error: 'must be a web origin such as https://ngo.example (scheme and host, no path)' };
  const [, scheme, wildcard, host, port] = m as unknown as [string, string, string | undefined, string, string | undefined];
  if (host !== '[::1]' && !HOST.test(host) && !IPV4.test(host)) return { error: 'the host is not a valid domain name' };
  const loopback = LOOPBACK.has(host);
  if (scheme === 'http' && !loopback) return { error: 'must use https (plain http is accepted for localhost only)' };
  if (wildcard) {
    if (scheme !== 'https') return { error: 'a wildcard origin must use https' };
    // *.org or *.co would open the key to a whole public suffix: at least two labels after the star.
    if (!host.includes('.') || IPV4.test(host)) return { error: 'a wildcard must be followed by a domain with at least two labels (https://*.example.org)' };
  }
  const portNumber = port === undefined ? null : Number(port);
  if (portNumber !== null && (portNumber < 1 || portNumber > 65535)) return { error: 'the port is out of range' };
  const defaultPort = scheme === 'https' ? 443 : 80;
  const portPart = portNumber === null || portNumber === defaultPort ? '' : `:${portNumber}`;
  return { origin: `${scheme}://${wildcard ?? ''}${host}${portPart}` };
}

/** Validates a whole list: at least one entry, at most MAX_ORIGINS, duplicates folded. */
export function validateOrigins(entries: readonly unknown[]): OriginsCheck {
  const errors: OriginsCheck['errors'] = [];
  const origins: string[] = [];
  if (!Array.isArray(entries) || entries.length === 0) return { origins, errors: [{ index: -1, detail: 'name at least one web origin (https://ngo.example)' }] };
  if (entries.length > MAX_ORIGINS) return { origins, errors: [{ index: -1, detail: `at most ${MAX_ORIGINS} origins` }] };
  entries.forEach((entry, index) => {
    const r = normaliseOrigin(entry);
    if ('error' in r) errors.push({ index, detail: r.error });
    else if (!origins.includes(r.origin)) origins.push(r.origin);
  });
  return { origins, errors };
}

/**
 * Whether the `Origin` a browser sent is on the list. The header is an exact origin (never a
 * wildcard); `null` (sandboxed frames, file pages) and anything malformed match nothing.
 */
export function originAllowed(list: readonly string[], origin: string | undefined): boolean {
  if (origin === undefined || origin === 'null') return false;
  const r = normaliseOrigin(origin);
  if ('error' in r || r.origin.includes('*')) return false;
  const asked = r.origin;
  for (const entry of list) {
    if (entry === asked) return true;
    const star = entry.indexOf('://*.');
    if (star < 0) continue;
    // https://*.example.org matches https://a.example.org and https://a.b.example.org (same port).
    const scheme = entry.slice(0, star);
    const suffix = entry.slice(star + 4);
    if (asked.startsWith(`${scheme}://`) && asked.endsWith(suffix) && asked.length > scheme.length + 3 + suffix.length) {
      const hostPart = asked.slice(scheme.length + 3, asked.length - suffix.length);
      if (!hostPart.includes(':') && !hostPart.includes('/')) return true;
    }
  }
  return false;
}

/** The `frame-ancestors` source list for these origins (each already validated: no spaces, no `;`). */
export function frameAncestors(list: readonly string[]): string {
  return list.length === 0 ? "'none'" : list.join(' ');
}
