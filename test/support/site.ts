/**
 * A browser-like client over `app.inject()` for site tests: keeps cookies, reads the CSRF token of
 * the last page, and posts forms the way a browser does (urlencoded, same-origin headers).
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';

export class SiteClient {
  readonly cookies = new Map<string, string>();
  last: LightMyRequestResponse | null = null;
  private token: string | null = null;

  constructor(
    private readonly fastify: FastifyInstance,
    private readonly origin = 'http://consulta.test',
    private readonly headers: Record<string, string> = {},
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number; expires?: Date }>) {
      const gone = c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.value === '';
      if (gone) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    this.last = res;
    const m = /name="_csrf" value="([^"]+)"/.exec(res.body);
    if (m) this.token = m[1]!;
    return res;
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    return this.keep(await this.fastify.inject({ method: 'GET', url, headers: { accept: 'text/html', ...this.headers, cookie: this.cookieHeader(), ...headers } }));
  }

  /** The CSRF token of the last page that had forms. */
  csrf(): string {
    if (!this.token) throw new Error('no page with a CSRF token was loaded');
    return this.token;
  }

  /** Posts a form as a browser on our origin would, with the last page's CSRF token unless given. */
  async post(url: string, form: Record<string, string>, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
    const body = new URLSearchParams({ _csrf: form._csrf ?? this.csrf(), ...form }).toString();
    return this.keep(
      await this.fastify.inject({
        method: 'POST',
        url,
        payload: body,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: this.origin,
          'sec-fetch-site': 'same-origin',
          accept: 'text/html',
          ...this.headers,
          cookie: this.cookieHeader(),
          ...headers,
        },
      }),
    );
  }
}

/** The text of an HTML page without tags (for assertions on what a person reads). */
export function pageText(html: string): string {
  return html.replace(/<script[\s\S]*?<\/script>/g, '').replace(/<[^>]+>/g, ' ').replace(/&amp;/g, '&').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/\s+/g, ' ').trim();
}
