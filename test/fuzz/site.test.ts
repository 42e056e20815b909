/**
 * Contract fuzzing of the web site's forms. The site is crawled as four people (anonymous, a
 * signed-in person, a firm owner, a stepped-up operator) from every parameterless GET route the
 * app registers, following its links; every <form> found is then submitted with fields derived
 * from the form's own HTML (type, maxlength, min/max, options, hidden values): valid values,
 * boundaries, malformed and huge values, a marker that would be markup if reflected raw, unknown
 * and missing fields, broken percent-encoding and odd content types, with the CSRF token kept,
 * dropped, altered or taken from another session. Properties (docs/errors.md#contract-fuzzing):
 * no 5xx; a refusal is an HTML page, never JSON or a stack trace; the marker never appears raw in
 * HTML; a redirect stays on the site.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import { AccountsService } from '../../src/domain/access/accounts.service.ts';
import { createTestContext, type TestContext } from '../support/app.ts';
import { EVERY_DAY_9_TO_14, initiate, madridDate, slotBody, T0 } from '../support/booking.ts';
import { signedIn } from '../support/dashboard.ts';
import { databaseTargets } from '../support/databases.ts';
import { insertLawyers, lawyerRecord } from '../support/factories.ts';
import { OPERATOR } from '../support/keys.ts';
import { operatorSignedIn } from '../support/operator.ts';
import { anyString, assertContract, encodePart, fuzzParameters, fuzzValue, hugeString, MARKER, runs, Tally, validValue, type JsonSchema, type ValueContext } from './support.ts';

interface Field {
  name: string;
  schema: JsonSchema;
  /** The value the page put in the field (hidden fields, pre-filled inputs). */
  value: string | null;
}

interface Form {
  persona: string;
  /** The page the form was found on (reloaded before each submission, for a fresh CSRF token). */
  page: string;
  method: 'GET' | 'POST';
  action: string;
  fields: Field[];
}

const decode = (s: string) => s.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');

function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:="([^"]*)")?/g)) out[m[1]!.toLowerCase()] = decode(m[2] ?? '');
  return out;
}

/** A field's HTML constraints as a JSON Schema, so the value arbitraries of ./support.ts apply. */
function fieldSchema(a: Record<string, string>, options: string[] | null): JsonSchema {
  if (options) return { type: 'string', enum: options.length > 0 ? options : [''] };
  const s: JsonSchema = { type: 'string' };
  switch (a.type) {
    case 'email':
      s.format = 'email';
      break;
    case 'url':
      s.format = 'uri';
      break;
    case 'date':
      s.format = 'date';
      break;
    case 'datetime-local':
      s.format = 'date-time';
      break;
    case 'number':
      return { type: 'integer', ...(a.min !== undefined && { minimum: Number(a.min) }), ...(a.max !== undefined && { maximum: Number(a.max) }) };
    case 'checkbox':
    case 'radio':
      return { type: 'string', enum: [a.value ?? 'on'] };
  }
  if (a.maxlength !== undefined) s.maxLength = Number(a.maxlength);
  if (a.minlength !== undefined) s.minLength = Number(a.minlength);
  if (a.required !== undefined && s.minLength === undefined) s.minLength = 1;
  if (a.pattern !== undefined) s.pattern = `^(?:${a.pattern})$`;
  return s;
}

/** Every form of a page, with its fields. */
function formsOf(html: string, page: string, persona: string): Form[] {
  const out: Form[] = [];
  for (const m of html.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/g)) {
    const a = attributes(m[1]!);
    const action = a.action ? a.action : page;
    if (!action.startsWith('/')) continue; // e.g. Stripe Checkout: not ours to fuzz
    const fields: Field[] = [];
    const body = m[2]!;
    const groups = new Map<string, string[]>();
    for (const i of body.matchAll(/<input\b([^>]*)>/g)) {
      const f = attributes(i[1]!);
      if (!f.name || f.type === 'submit' || f.type === 'file') continue;
      // A radio group is one field whose value is one of its buttons' values.
      if (f.type === 'radio') groups.set(f.name, [...(groups.get(f.name) ?? []), f.value ?? 'on']);
      else fields.push({ name: f.name, schema: fieldSchema(f, null), value: f.value ?? null });
    }
    for (const sel of body.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/g)) {
      const f = attributes(sel[1]!);
      const options = [...sel[2]!.matchAll(/<option\b([^>]*)>([^<]*)/g)].map((o) => attributes(o[1]!).value ?? decode(o[2]!));
      if (f.name) fields.push({ name: f.name, schema: fieldSchema(f, options), value: options[0] ?? null });
    }
    for (const t of body.matchAll(/<textarea\b([^>]*)>([\s\S]*?)<\/textarea>/g)) {
      const f = attributes(t[1]!);
      if (f.name) fields.push({ name: f.name, schema: fieldSchema(f, null), value: decode(t[2]!) });
    }
    // Named submit buttons: a browser sends the one that was pressed, so a group is one field too.
    for (const b of body.matchAll(/<button\b([^>]*)>/g)) {
      const f = attributes(b[1]!);
      if (f.name) groups.set(f.name, [...(groups.get(f.name) ?? []), f.value ?? '']);
    }
    for (const [name, options] of groups) fields.push({ name, schema: { type: 'string', enum: options }, value: options[0]! });
    out.push({ persona, page, method: (a.method ?? 'get').toUpperCase() === 'POST' ? 'POST' : 'GET', action, fields });
  }
  return out;
}

/** A cookie jar over `inject()`: what a browser keeps between requests. */
class Browser {
  readonly cookies = new Map<string, string>();
  constructor(
    private readonly ctx: TestContext,
    readonly persona: string,
    private readonly login: (() => Promise<string>) | null,
    private readonly sessionCookie: string,
  ) {}

  /** A fresh session for each submission: an earlier one may have signed out or revoked it. */
  async renew(): Promise<void> {
    this.cookies.clear();
    if (this.login) this.cookies.set(this.sessionCookie, await this.login());
  }

  private keep(res: LightMyRequestResponse): LightMyRequestResponse {
    for (const c of res.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (c.maxAge === 0 || c.value === '') this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    return res;
  }

  async send(method: string, url: string, headers: Record<string, string> = {}, payload?: string | Buffer): Promise<LightMyRequestResponse> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return this.keep(await this.ctx.app.fastify.inject({ method: method as 'GET', url, payload, headers: { accept: 'text/html', 'accept-language': 'en', ...(cookie && { cookie }), ...headers } }));
  }
}

const sqlite = databaseTargets()[0]!;
/**
 * The documented exception: the passkey ceremonies' endpoints answer JSON to passkeys.js
 * (src/site/account/passkeys.routes.ts), refusals included. They must still never fail (5xx) and
 * their refusals must be that JSON (`ok: false` and a message), not a stack trace.
 */
const JSON_FOR_SCRIPT = /^\/(account\/passkeys\/(register|reauth|step-up)(\/options)?|sign-in\/passkey(\/options)?)$/;
// Not pages with forms (assets, the API reference, the OAuth server, one-time links), and the
// error-code pages past the index (static text, 18 of them).
const SKIP = /^\/(assets\/|docs\/api|docs\/errors\/|oauth\b|sign-in\/link\/|\.well-known|mcp|healthz|readyz)|\/sign-out/;

/** A page's shape: its path with ids and confirmation tokens generalised. */
const shapeOf = (url: string) => url.split('?')[0]!.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id').replace(/^\/confirm\/[^/]+/, '/confirm/:token');

/** A link without its `lang` switch (the same page in another language adds no form). */
function normalise(link: string): string {
  const [path, query] = link.split('?', 2) as [string, string?];
  const params = new URLSearchParams(query ?? '');
  params.delete('lang');
  const rest = params.toString();
  return rest ? `${path}?${rest}` : path;
}

describe('contract fuzzing: site forms (sqlite)', () => {
  let ctx: TestContext;
  let values: ValueContext;
  let browsers: Browser[];
  const forms: Form[] = [];
  const tally = new Tally();

  before(async () => {
    ctx = await createTestContext(sqlite, { config: { maxFailedAuthPerMinute: 100_000 } });
    const lawyers = await insertLawyers(ctx.database, [
      lawyerRecord({ weekly_hours: EVERY_DAY_9_TO_14, reviews: [{ rating: 5, comment: 'Clara', date: '2026-10-01T10:00:00Z', verified_client: true }] }),
      lawyerRecord({ name: 'Ahmed Benali', city: 'barcelona', weekly_hours: EVERY_DAY_9_TO_14 }),
    ]);
    const accounts = new AccountsService({ database: ctx.database, clock: ctx.clock });
    await accounts.createFirm(OPERATOR, { slug: 'bufete-fuzz', name: 'Bufete <x-fuzz>', ownerEmail: 'owner@example.com' });
    const keys = ctx.app.services.keys;
    await keys.create(OPERATOR, { ownerEmail: 'person@example.com' }, { mode: 'live', name: 'Mine' } as never);
    await keys.create(OPERATOR, { firmSlug: 'bufete-fuzz' }, { mode: 'live' });
    for (const [owner, url] of [[{ ownerEmail: 'person@example.com' }, 'https://hooks.example.com/person'], [{ firmSlug: 'bufete-fuzz' }, 'https://hooks.example.com/firm']] as const) {
      // Creating a webhook resolves its host; offline that fails and the crawl simply finds fewer pages.
      await ctx.app.services.webhooks.create(OPERATOR, owner, { url }).catch(() => undefined);
    }
    const person = await signedIn(ctx, 'person@example.com');
    const owner = await signedIn(ctx, 'owner@example.com');
    const operator = await operatorSignedIn(ctx, 'operator@example.com', { steppedUp: true });
    const sessionCookie = [...person.client.cookies.keys()][0]!;
    const sessionFor = (userId: string, passkey = false) => async () => (await ctx.app.services.sessions.create(userId, { ip: '127.0.0.1', passkey })).token;
    browsers = [
      new Browser(ctx, 'anonymous', null, sessionCookie),
      new Browser(ctx, 'person', sessionFor(person.userId), sessionCookie),
      new Browser(ctx, 'firm owner', sessionFor(owner.userId), sessionCookie),
      new Browser(ctx, 'operator', sessionFor(operator.userId, true), sessionCookie),
    ];
    values = { ids: [...lawyers], words: ['madrid', 'barcelona', 'arraigo-social', 'es', 'en', 'person@example.com', 'owner@example.com', 'bufete-fuzz', 'admin', 'member', 'live', 'test'] };

    // The crawl: every parameterless GET page, then the links they show (bounded per person).
    // Two holds (anonymous, as an agent would make them), so the confirm-and-pay pages have forms.
    const holds: string[] = [];
    for (const start of ['10:00:00', '11:00:00']) {
      const held = await initiate(ctx, slotBody(lawyers[0]!, madridDate(T0, 3), start));
      assert.equal(held.statusCode, 201, held.body);
      holds.push(new URL((held.json() as { confirmation_url: string }).confirmation_url).pathname);
    }
    // Routes whose only parameter is a lawyer id get the lawyers made above.
    const pages = ctx.app.routes.filter((r) => r.method === 'GET' && !r.url.startsWith('/api/') && !r.url.includes('*'));
    const seeds = [
      ...new Set([
        ...pages.filter((r) => !r.url.includes(':')).map((r) => r.url),
        ...pages.filter((r) => /^\/lawyers\/:id(\/[a-z]+)?$/.test(r.url)).flatMap((r) => lawyers.map((id) => r.url.replace(':id', id))),
        ...holds,
      ]),
    ];
    const seen = new Set<string>();
    for (const browser of browsers) {
      await browser.renew();
      const queue = seeds.filter((u) => !SKIP.test(u));
      const visited = new Set<string>();
      // At most two visits per page shape (the path with ids generalised): query variants add no forms.
      const shapes = new Map<string, number>();
      while (queue.length > 0 && visited.size < 150) {
        const url = queue.shift()!;
        const shape = shapeOf(url);
        if (visited.has(url) || (shapes.get(shape) ?? 0) >= 2) continue;
        visited.add(url);
        shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
        const res = await browser.send('GET', url);
        if (!String(res.headers['content-type']).startsWith('text/html')) continue;
        for (const m of res.body.matchAll(/href="(\/[^"#]*)"/g)) {
          const link = normalise(decode(m[1]!));
          if (!SKIP.test(link) && !link.startsWith('//') && !visited.has(link)) queue.push(link);
        }
        for (const form of formsOf(res.body, url, browser.persona)) {
          const key = `${form.persona} ${form.method} ${shapeOf(form.action)} ${form.fields.map((f) => f.name).sort().join(',')}`;
          if (!seen.has(key)) {
            seen.add(key);
            forms.push(form);
          }
        }
      }
    }
  });

  after(async () => {
    console.log(tally.report('site'));
    await ctx?.close();
  });

  /** A field's value: the page's own, a value derived from its constraints, or the marker, or nothing. */
  function fieldValue(field: Field): fc.Arbitrary<string | null> {
    const text = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v) ?? '');
    return fc.oneof(
      { weight: 3, arbitrary: fc.constant(field.value ?? '') },
      { weight: 3, arbitrary: validValue(field.schema, values).map(text) },
      { weight: 3, arbitrary: fuzzValue(field.schema, values).map(text) },
      { weight: 2, arbitrary: fc.constantFrom(MARKER, `a${MARKER}"'<script>`, `${field.value ?? ''}${MARKER}`) },
      { weight: 1, arbitrary: hugeString },
      { weight: 1, arbitrary: fc.constant(null) },
    );
  }

  type CsrfMode = 'keep' | 'drop' | 'alter' | 'foreign' | 'empty';

  function submissionArb(form: Form) {
    const fieldsArb = fc.tuple(...form.fields.map((f) => fieldValue(f).map((v): [string, string | null] => [f.name, v])));
    const extras = fc.oneof({ weight: 6, arbitrary: fc.constant([] as Array<[string, string]>) }, { weight: 1, arbitrary: fc.array(fc.tuple(fc.oneof(anyString, fc.constantFrom('__proto__', '_csrf', 'constructor[prototype]', 'a[b]')), anyString), { maxLength: 3 }) });
    return fc.record({
      fields: fieldsArb,
      extras,
      csrf: fc.oneof({ weight: 6, arbitrary: fc.constant<CsrfMode>('keep') }, { weight: 1, arbitrary: fc.constantFrom<CsrfMode>('drop', 'alter', 'foreign', 'empty') }),
      encoding: fc.oneof({ weight: 8, arbitrary: fc.constant<'urlencoded'>('urlencoded') }, { weight: 1, arbitrary: fc.constantFrom('broken', 'multipart', 'json', 'text', 'none', 'charset') }),
      origin: fc.oneof({ weight: 8, arbitrary: fc.constant('same') }, { weight: 1, arbitrary: fc.constantFrom('cross', 'null', 'absent') }),
    });
  }

  function encode(pairs: Array<[string, string]>, encoding: string): { payload: string; contentType?: string } {
    switch (encoding) {
      case 'broken':
        return { payload: pairs.map(([k, v], i) => `${encodeURIComponent(k)}=${encodePart(v, 'broken', i)}`).join('&'), contentType: 'application/x-www-form-urlencoded' };
      case 'multipart': {
        const parts = pairs.map(([k, v]) => `--fuzz\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('');
        return { payload: `${parts}--fuzz--\r\n`, contentType: 'multipart/form-data; boundary=fuzz' };
      }
      case 'json':
        return { payload: JSON.stringify(Object.fromEntries(pairs)), contentType: 'application/json' };
      case 'text':
        return { payload: pairs.map(([k, v]) => `${k}=${v}`).join('\n'), contentType: 'text/plain' };
      case 'none':
        return { payload: new URLSearchParams(pairs).toString() };
      case 'charset':
        return { payload: new URLSearchParams(pairs).toString(), contentType: 'application/x-www-form-urlencoded; charset=ISO-8859-1' };
      default:
        return { payload: new URLSearchParams(pairs.map(([k, v]) => [k, v.replace(/[\uD800-\uDFFF]/g, '\uFFFD')])).toString(), contentType: 'application/x-www-form-urlencoded' };
    }
  }

  /** What must hold of a site answer. */
  function violations(res: LightMyRequestResponse, action: string): string[] {
    const out: string[] = [];
    if (res.statusCode >= 500) out.push(`status ${res.statusCode}`);
    const type = String(res.headers['content-type'] ?? '');
    if (type.startsWith('text/html')) {
      if (res.body.includes(MARKER)) out.push(`the marker ${MARKER} is reflected raw: …${res.body.slice(Math.max(0, res.body.indexOf(MARKER) - 150), res.body.indexOf(MARKER) + 50)}…`);
    } else if (res.statusCode >= 400 && JSON_FOR_SCRIPT.test(action.split('?')[0]!) && type.startsWith('application/json')) {
      const body = JSON.parse(res.body) as { ok?: unknown; message?: unknown };
      if (body.ok !== false || typeof body.message !== 'string') out.push(`a ceremony refusal without ok:false and a message: ${res.body.slice(0, 200)}`);
    } else if (res.statusCode >= 400) {
      out.push(`refusal ${res.statusCode} is ${JSON.stringify(type)}, not a page: ${res.body.slice(0, 200)}`);
    }
    if (/node_modules|\.tsx?:\d+:\d+|\n\s+at [\w.<>]+ \(/.test(res.body)) out.push('a stack trace in the answer');
    const location = res.headers.location;
    if (location !== undefined) {
      const target = new URL(String(location), ctx.config.siteUrl);
      if (target.origin !== new URL(ctx.config.siteUrl).origin) out.push(`redirect off the site: ${String(location)}`);
    }
    return out;
  }

  it('crawls the pages of every kind of person and finds their forms', () => {
    const personas = new Set(forms.map((f) => f.persona));
    for (const p of ['anonymous', 'person', 'firm owner', 'operator']) assert.ok(personas.has(p), `no form found for ${p}`);
    assert.ok(forms.filter((f) => f.method === 'POST').length >= 15, `only ${forms.length} forms found`);
  });

  it('every form keeps the contract for fuzzed submissions', async () => {
    const perForm = Math.max(3, Math.ceil(runs(400) / Math.max(1, forms.length)));
    for (const form of forms) {
      const browser = browsers.find((b) => b.persona === form.persona)!;
      const foreign = browsers.find((b) => b.persona !== form.persona && b.persona !== 'anonymous')!;
      const surface = `${form.persona}: ${form.method} ${shapeOf(form.action)}`;
      await fc.assert(
        fc.asyncProperty(submissionArb(form), async (s) => {
          await browser.renew();
          const page = await browser.send('GET', form.page);
          const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1];
          let pairs = s.fields.filter((p): p is [string, string] => p[1] !== null).concat(s.extras);
          if (form.method === 'POST') {
            pairs = pairs.filter(([k]) => k !== '_csrf');
            if (s.csrf === 'keep' && token) pairs.unshift(['_csrf', token]);
            if (s.csrf === 'alter' && token) pairs.unshift(['_csrf', `${token.slice(0, -2)}xx`]);
            if (s.csrf === 'empty') pairs.unshift(['_csrf', '']);
            if (s.csrf === 'foreign') {
              await foreign.renew();
              const other = /name="_csrf" value="([^"]+)"/.exec((await foreign.send('GET', '/developer/keys/new')).body)?.[1];
              if (other) pairs.unshift(['_csrf', other]);
            }
          }
          let res: LightMyRequestResponse;
          if (form.method === 'GET') {
            const query = s.encoding === 'broken' ? encode(pairs, 'broken').payload : new URLSearchParams(pairs.map(([k, v]) => [k, v.replace(/[\uD800-\uDFFF]/g, '\uFFFD')])).toString();
            res = await browser.send('GET', `${form.action.split('?')[0]}?${query}`);
          } else {
            const { payload, contentType } = encode(pairs, s.encoding);
            const headers: Record<string, string> = {};
            if (contentType) headers['content-type'] = contentType;
            if (s.origin === 'same') Object.assign(headers, { origin: new URL(ctx.config.siteUrl).origin, 'sec-fetch-site': 'same-origin' });
            if (s.origin === 'cross') Object.assign(headers, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
            if (s.origin === 'null') headers.origin = 'null';
            res = await browser.send('POST', form.action, headers, payload);
          }
          const found = violations(res, form.action);
          tally.count(surface, res.statusCode, found);
          assertContract(`${form.persona} ${form.method} ${form.action} ${JSON.stringify(pairs).slice(0, 400)} (${s.encoding}, csrf ${s.csrf}, origin ${s.origin})`, found);
        }),
        fuzzParameters(perForm),
      );
    }
    assert.equal(tally.total().outside, 0);
  });
});
