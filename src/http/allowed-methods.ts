/**
 * Which methods a path accepts, from the routes the app registered (never a hand-written list),
 * so that a known path asked with a method it does not serve answers 405 with an `Allow` header
 * (RFC 9110 §15.5.6) instead of a 404 that says the path does not exist.
 *
 * Patterns are Fastify's: `:name` is one path segment, a trailing `*` is the rest of the path.
 * Fastify registers a HEAD route beside every GET route, so HEAD is listed wherever GET is.
 */

interface RoutePattern {
  /** Matches the path (without query, without a trailing slash). */
  re: RegExp;
  methods: Set<string>;
  /** A catch-all (`/api/v1/*` for CORS preflights, `/oauth/*`): it makes no path "known" by itself. */
  wildcard: boolean;
}

/** The order methods are listed in `Allow`: the usual ones first, then any other alphabetically. */
const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

function compile(url: string): RegExp {
  const trimmed = url.length > 1 && url.endsWith('/') ? url.slice(0, -1) : url;
  const segments = trimmed.split('/').map((segment) => {
    if (segment === '*') return '.*';
    // A parameter (possibly with a regular expression or a suffix, `:file.:ext`): any one segment.
    if (segment.includes(':')) return '[^/]+';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  const source = segments.join('/');
  // `/api/v1/*` also serves `/api/v1` itself, as Fastify's router does.
  return new RegExp(`^${source.endsWith('/.*') ? `${source.slice(0, -3)}(?:/.*)?` : source}$`);
}

export class RouteMethods {
  private readonly byUrl = new Map<string, RoutePattern>();

  /** Records a registered route (call from an `onRoute` hook). */
  add(method: string, url: string): void {
    let pattern = this.byUrl.get(url);
    if (!pattern) this.byUrl.set(url, (pattern = { re: compile(url), methods: new Set(), wildcard: url.endsWith('*') }));
    pattern.methods.add(method.toUpperCase());
  }

  /**
   * The methods `path` is served with, in `Allow` order, or null when no route names the path
   * (then it is a 404). `path` is the request URL; its query string is ignored.
   */
  allowed(path: string): string[] | null {
    let p = path.split('?', 1)[0]!;
    if (p.length > 1 && p.endsWith('/')) p = p.slice(0, -1);
    const methods = new Set<string>();
    let known = false;
    for (const pattern of this.byUrl.values()) {
      if (!pattern.re.test(p)) continue;
      if (!pattern.wildcard) known = true;
      for (const m of pattern.methods) methods.add(m);
    }
    if (!known) return null;
    return [...methods].sort((a, b) => {
      const ia = ORDER.indexOf(a);
      const ib = ORDER.indexOf(b);
      if (ia >= 0 && ib >= 0) return ia - ib;
      if (ia >= 0 || ib >= 0) return ia >= 0 ? -1 : 1;
      return a.localeCompare(b);
    });
  }
}
