/**
 * The booking widget (docs/widget.md; DESIGN.md §14): `/embed.js`, the script a site pastes, and
 * the `/embed/…` pages it frames. Its own Fastify context, outside the site's: no cookie plugin,
 * no session, no CSRF cookie — nothing here sets or reads a cookie, so browsers that block
 * third-party cookies change nothing. State travels in the frame's links; the one capability
 * (the hold's confirmation token) is the same one the API hands out in `confirmation_url`.
 *
 * Framing: each frame page names exactly its key's web origins in `frame-ancestors` (plus our
 * own origin for the dashboard's live preview when asked), instead of the site's `'none'`.
 * Messages that carry nothing (a turned-off key, a secret key given by mistake, an unknown key)
 * may be framed anywhere, so the embedding site sees why its widget is empty.
 */
import { randomUUID } from 'node:crypto';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { h, type VNode } from 'preact';
import { renderToString } from 'preact-render-to-string';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { AccessService, RouteAccess } from '../../domain/access/access.service.ts';
import { loggedQuery, type RequestLog } from '../../domain/access/request-log.ts';
import type { ApiKeyRecord } from '../../domain/access/types.ts';
import { frameAncestors, originAllowed } from '../../domain/access/web-origins.ts';
import type { BookingService } from '../../domain/booking/booking.service.ts';
import type { WidgetService } from '../../domain/booking/widget.service.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { DomainError, ERROR_CODES } from '../../domain/errors.ts';
import type { LawyerSummary } from '../../contract/directory.ts';
import { isLocale, messages, negotiateLocale, type Locale } from '../../i18n/index.ts';
import { clientIp } from '../../http/client-ip.ts';
import { SiteAssets } from '../assets.ts';
import { compositeKey, PageCache } from '../page-cache.ts';
import { loadWeek } from '../lawyers/week-strip.ts';
import { BookerView, HeldView, ListView, MessageView, type FrameContext } from './frame.page.tsx';
import { themeCss } from './theme.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}$/;
const HEX = /^[0-9a-f]{6}$/i;
const SHORT = /^[\p{L}\p{N} ,.'’()-]{1,100}$/u;

/** The widget's settings, as its links carry them (every value is untrusted text). */
export interface WidgetParams {
  k: string;
  lang: Locale | null;
  host: string | null;
  wid: string;
  c: string | null;
  r: string | null;
  preview: boolean;
  top: boolean;
  /** A search preset (the list view) or a firm's lawyers. */
  city: string | null;
  area: string | null;
  language: string | null;
  remote: boolean;
  firm: boolean;
}

type Query = Record<string, unknown>;
const str = (v: unknown, max = 200): string | null => (typeof v === 'string' && v.length > 0 && v.length <= max ? v : null);

export function widgetParams(q: Query): WidgetParams {
  const r = str(q.r, 2);
  return {
    k: str(q.k, 80) ?? '',
    lang: isLocale(q.lang) ? q.lang : null,
    host: str(q.host, 300),
    wid: typeof q.wid === 'string' && /^[A-Za-z0-9_-]{1,32}$/.test(q.wid) ? q.wid : '',
    c: typeof q.c === 'string' && HEX.test(q.c) ? q.c.toLowerCase() : null,
    r: r !== null && /^\d{1,2}$/.test(r) ? r : null,
    preview: q.preview === '1',
    top: q.continue === 'top',
    city: str(q.city, 100) !== null && SHORT.test(q.city as string) ? (q.city as string) : null,
    area: typeof q.area === 'string' && /^[a-z0-9-]{1,100}$/.test(q.area) ? q.area : null,
    language: str(q.language, 60) !== null && SHORT.test(q.language as string) ? (q.language as string) : null,
    remote: q.remote === '1',
    firm: q.firm === '1',
  };
}

/** The query string that keeps the widget's settings across its pages. */
export function carry(p: WidgetParams, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  q.set('k', p.k);
  if (p.lang) q.set('lang', p.lang);
  if (p.host) q.set('host', p.host);
  if (p.wid) q.set('wid', p.wid);
  if (p.c) q.set('c', p.c);
  if (p.r) q.set('r', p.r);
  if (p.preview) q.set('preview', '1');
  if (p.top) q.set('continue', 'top');
  if (p.firm) q.set('firm', '1');
  if (p.city) q.set('city', p.city);
  if (p.area) q.set('area', p.area);
  if (p.language) q.set('language', p.language);
  if (p.remote) q.set('remote', '1');
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  return q.toString();
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The widget's key, once resolved (for the request log). */
    widgetKey: ApiKeyRecord | null;
  }
}

export interface WidgetAreaDeps {
  config: Config;
  clock: Clock;
  access: AccessService;
  directory: DirectoryService;
  booking: BookingService;
  widget: WidgetService;
  requestLog: RequestLog;
}

/** Thrown to answer with a message page (status, title, text) instead of the widget. */
class FrameMessage extends Error {
  constructor(
    readonly status: number,
    readonly kind: 'inactive' | 'secret' | 'settings' | 'tooMany',
    /** The origins that may frame the message; null: anywhere (it carries nothing). */
    readonly origins: string[] | null,
  ) {
    super(kind);
  }
}

// A page element of any props (h() infers each view's own props type).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyVNode = VNode<any>;

function render(vnode: AnyVNode): string {
  return `<!doctype html>${renderToString(vnode)}`;
}

/** The frame's Content-Security-Policy: the site's strict one, but framing limited to `ancestors`. */
const frameCsp = (ancestors: string) =>
  `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; object-src 'none'; frame-ancestors ${ancestors}; base-uri 'none'; form-action 'self'`;

/**
 * The frame's security headers: the site's strict CSP, but framing limited to the key's origins
 * instead of forbidden, and no X-Frame-Options (which cannot name origins).
 */
function frameHeaders(reply: FastifyReply, csp: string): void {
  reply.removeHeader('x-frame-options');
  reply.header('content-security-policy', csp);
  reply.header('cache-control', 'no-store');
  // A framed document on another site's page: opener isolation would cut the frame from its parent's messages.
  reply.removeHeader('cross-origin-opener-policy');
}

/**
 * What a key's record decides about its frames, worked out once per record (the key cache hands
 * out the same object until the key changes or its entry is refreshed): its CSP, with and without
 * the dashboard preview's own origin, and which embedding origins (`host`) its list admits.
 */
interface KeyFrame {
  csp: string;
  previewCsp: string;
  hosts: Map<string, string | null>;
}
const MAX_HOSTS = 32;
const keyFrames = new WeakMap<ApiKeyRecord, KeyFrame>();
function keyFrame(key: ApiKeyRecord): KeyFrame {
  let frame = keyFrames.get(key);
  if (!frame) {
    const ancestors = frameAncestors(key.allowedOrigins ?? []);
    keyFrames.set(key, (frame = { csp: frameCsp(ancestors), previewCsp: frameCsp(`${ancestors} 'self'`), hosts: new Map() }));
  }
  return frame;
}

export function widgetArea(deps: WidgetAreaDeps) {
  const { config, clock, access, directory, booking, widget, requestLog } = deps;
  const assets = new SiteAssets();
  const siteOrigin = new URL(config.siteUrl).origin;
  const embedJs = assets.body('embed.js');
  // The frame's rendered booker and list pages (page-cache.ts); no CSRF token in a frame.
  const pages = new PageCache();
  const noCsrf = () => '';
  const firmKeys = new WeakMap<object, { parts: ReadonlyArray<object | null>; key: object }>();

  return async (app: FastifyInstance) => {
    await app.register(formbody, { bodyLimit: 4 * 1024 });
    app.decorateRequest('widgetKey', null);

    const localeOf = (request: FastifyRequest, p: WidgetParams): Locale =>
      negotiateLocale({ query: p.lang, acceptLanguage: request.headers['accept-language'] });

    const frameContext = (request: FastifyRequest, p: WidgetParams, key: ApiKeyRecord | null): FrameContext => {
      const locale = localeOf(request, p);
      // Events go to the page that embeds the frame, named by embed.js and checked against the list.
      const host = p.host === null ? null : p.preview && p.host === siteOrigin ? siteOrigin : key ? allowedHost(key, p.host) : null;
      const theme = p.c !== null || p.r !== null ? `/embed/theme.css?${new URLSearchParams({ ...(p.c ? { c: p.c } : {}), ...(p.r ? { r: p.r } : {}) }).toString()}` : null;
      return { locale, t: messages(locale), css: assets.url('embed.css'), js: assets.url('embed-frame.js'), theme, host, wid: p.wid, continueTarget: p.top ? '_top' : '_blank', siteUrl: config.siteUrl };
    };

    /** `host` as an origin if the key's list admits it, else null (remembered per key record). */
    const allowedHost = (key: ApiKeyRecord, host: string): string | null => {
      const { hosts } = keyFrame(key);
      let known = hosts.get(host);
      if (known === undefined) {
        known = originAllowed(key.allowedOrigins ?? [], host) ? new URL(host).origin : null;
        if (hosts.size >= MAX_HOSTS) hosts.clear();
        hosts.set(host, known);
      }
      return known;
    };
    const cspOf = (key: ApiKeyRecord, p: WidgetParams) => (p.preview ? keyFrame(key).previewCsp : keyFrame(key).csp);

    /**
     * The frame's key: an active publishable key, admitted under its limits (per visitor, and the
     * key's tier). Anything else is a message page; a secret key is refused without a lookup and
     * never repeated back.
     */
    const keyFor = async (request: FastifyRequest, p: WidgetParams, route: RouteAccess): Promise<ApiKeyRecord> => {
      if (/^svc_/i.test(p.k)) throw new FrameMessage(400, 'secret', null);
      const ip = clientIp(request);
      const found = await access.publishableFrameKey(p.k, ip);
      if (!found) throw new FrameMessage(404, 'inactive', null);
      const key = found.record;
      request.widgetKey = key;
      if (!found.active) throw new FrameMessage(403, 'inactive', key.allowedOrigins ?? []);
      await admit(key, ip, route);
      return key;
    };

    const admit = async (key: ApiKeyRecord, ip: string, route: RouteAccess) => {
      try {
        await access.admit({ kind: 'key', ip, key }, route);
      } catch (err) {
        if (err instanceof DomainError && err.code === 'rate_limited') throw new FrameMessage(429, 'tooMany', key.allowedOrigins ?? []);
        throw err;
      }
    };

    const send = (reply: FastifyReply, key: ApiKeyRecord, p: WidgetParams, vnode: AnyVNode, status = 200) => {
      frameHeaders(reply, cspOf(key, p));
      return reply.code(status).type('text/html; charset=utf-8').send(render(vnode));
    };

    /**
     * A frame page rendered once per directory answer (`answer`: the same object while nothing
     * changed) and reused, as the site's anonymous pages are (page-cache.ts); the nonce is filled
     * in fresh per response. The variant names everything else the HTML depends on: the language,
     * the embedding origin as checked against this key's list, and the URL, which carries the
     * key, the theme and every other setting. So one key's page is never another key's, nor
     * another language's. The headers (this key's `frame-ancestors`) are set per request.
     */
    const sendCached = (request: FastifyRequest, reply: FastifyReply, key: ApiKeyRecord, p: WidgetParams, answer: object, build: (ctx: FrameContext, once: string) => AnyVNode) => {
      const ctx = frameContext(request, p, key);
      const page = pages.page(answer, `${ctx.locale} ${ctx.host ?? ''} ${request.url}`, () => render(build(ctx, pages.onceMark)));
      frameHeaders(reply, cspOf(key, p));
      return reply.code(200).type('text/html; charset=utf-8').send(pages.fill(page, noCsrf, randomUUID));
    };

    app.setErrorHandler((error: FastifyError | FrameMessage, request, reply) => {
      const p = widgetParams((request.query ?? {}) as Query);
      const ctx = frameContext(request, p, null);
      const w = ctx.t.widget;
      let message: FrameMessage;
      if (error instanceof FrameMessage) message = error;
      else if (error instanceof DomainError && error.code === 'rate_limited') {
        message = new FrameMessage(429, 'tooMany', request.widgetKey?.allowedOrigins ?? null);
      } else if (error instanceof DomainError && ERROR_CODES[error.code].status < 500) {
        message = new FrameMessage(ERROR_CODES[error.code].status, 'settings', request.widgetKey?.allowedOrigins ?? null);
      }
      else if ((error as FastifyError).statusCode !== undefined && (error as FastifyError).statusCode! < 500) message = new FrameMessage((error as FastifyError).statusCode!, 'settings', null);
      else {
        request.log.error({ err: error }, 'widget frame failed');
        reply.code(500);
        frameHeaders(reply, frameCsp("'none'"));
        return reply.type('text/html; charset=utf-8').send(render(h(MessageView, { ctx, title: ctx.t.errors.serverTitle, text: ctx.t.errors.server })));
      }
      const [title, text] =
        message.kind === 'inactive' ? [w.inactiveTitle, w.inactive] : message.kind === 'secret' ? [w.setupTitle, w.secretKey] : message.kind === 'tooMany' ? [w.setupTitle, w.tooMany] : [w.setupTitle, w.badSettings];
      frameHeaders(reply, frameCsp(message.origins === null ? '*' : frameAncestors(message.origins)));
      if (message.status === 429) reply.header('retry-after', '60');
      return reply
        .code(message.status)
        .type('text/html; charset=utf-8')
        .send(render(h(MessageView, { ctx, title: message.kind === 'tooMany' ? ctx.t.errors.tooManyTitle : title, text, findLink: message.kind === 'inactive' })));
    });

    // The frame's calls go to its owner's request log, flagged by their /embed/ path (and key kind).
    app.addHook('onResponse', (request, reply, done) => {
      const key = request.widgetKey;
      if (key) {
        const q = request.url.indexOf('?');
        requestLog.record({
          request_id: request.id,
          at: clock.now().toISOString(),
          key_id: key.id,
          owner_type: key.owner.type,
          owner_id: key.owner.type === 'user' ? key.owner.userId : key.owner.firmId,
          test: key.mode === 'test' ? 1 : 0,
          method: request.method,
          route: request.routeOptions.url ?? request.url.slice(0, q < 0 ? undefined : q),
          path: q < 0 ? request.url : request.url.slice(0, q),
          // The key is in every frame URL; the log names the key already.
          query: loggedQuery(request.url.replace(/([?&])k=[^&]*&?/, '$1'), q),
          status: reply.statusCode,
          duration_ms: Math.round(reply.elapsedTime * 100) / 100,
          client_ip: clientIp(request),
          error_code: null,
        });
      }
      done();
    });

    app.get('/embed.js', { schema: { hide: true } }, async (_request, reply) => {
      // A fixed address pasted into other sites: short caching, so fixes reach them within the hour.
      reply.removeHeader('x-frame-options');
      return reply
        .type('text/javascript; charset=utf-8')
        .header('cache-control', 'public, max-age=3600')
        .header('cross-origin-resource-policy', 'cross-origin')
        .header('access-control-allow-origin', '*')
        .send(embedJs);
    });

    app.get('/embed/theme.css', { schema: { hide: true } }, async (request, reply) => {
      const q = (request.query ?? {}) as Query;
      return reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=86400').send(themeCss(typeof q.c === 'string' ? q.c : null, typeof q.r === 'string' ? q.r : null));
    });

    /** One lawyer's booker: the week asked for, the chosen day's free times. */
    const booker = async (request: FastifyRequest, reply: FastifyReply, id: string, p: WidgetParams, key: ApiKeyRecord, taken: boolean, week?: { week?: unknown; day?: unknown }) => {
      if (!UUID.test(id)) throw new DomainError('not_found', 'no such lawyer');
      const q = week ?? ((request.query ?? {}) as Query);
      const loaded = await loadWeek((start) => directory.getAvailability(id, start ? { start_date: start } : {}), { week: q.week, day: q.day });
      const base = `/embed/lawyers/${loaded.availability.lawyer_id}`;
      const link = (w: string, d?: string) => `${base}?${carry(p, d ? { week: w, day: d } : { week: w })}`;
      const listed = p.firm || p.city !== null || p.area !== null || p.language !== null || p.remote;
      const view = (ctx: FrameContext, nonce: string) =>
        h(BookerView, {
          ctx,
          availability: loaded.availability,
          strip: loaded.strip,
          dayLink: (d: string) => link(loaded.week, d),
          prev: loaded.prevWeek ? link(loaded.prevWeek) : null,
          next: loaded.nextWeek ? link(loaded.nextWeek) : null,
          holdAction: `${base}/hold?${carry(p)}`,
          nonce,
          taken,
          back: listed ? `/embed/search?${carry(p)}` : null,
        });
      // "That time was just taken" answers a POST: rendered for it alone.
      if (taken) return send(reply, key, p, view(frameContext(request, p, key), randomUUID()), 409);
      return sendCached(request, reply, key, p, loaded.availability, view);
    };

    app.get<{ Params: { id: string } }>('/embed/lawyers/:id', { schema: { hide: true } }, async (request, reply) => {
      const p = widgetParams((request.query ?? {}) as Query);
      const key = await keyFor(request, p, { scope: 'availability:read', anonymousGroup: 'availability' });
      return booker(request, reply, request.params.id, p, key, false);
    });

    /** A search preset (city, practice area, language, video from anywhere) or the key's firm's lawyers. */
    app.get('/embed/search', { schema: { hide: true } }, async (request, reply) => {
      const p = widgetParams((request.query ?? {}) as Query);
      const key = await keyFor(request, p, { scope: 'lawyers:read' });
      let lawyers: LawyerSummary[];
      // The rendered list's cache key: the search answer, or the firm's profiles (page-cache.ts).
      let answer: object;
      if (p.firm) {
        // A firm's widget lists that firm's lawyers: the key must be the firm's.
        if (key.owner.type !== 'firm') throw new DomainError('invalid_request', 'firm=1 needs a firm key');
        const ids = (await widget.firmLawyerIds(key.owner.firmId)).slice(0, 25);
        const found = await Promise.all(ids.map((id) => directory.getProfile(id, { fenced: false }).catch(() => null)));
        lawyers = found.filter((l): l is NonNullable<typeof l> => l !== null);
        answer = compositeKey(firmKeys, key, found);
      } else {
        const query: Parameters<DirectoryService['search']>[0] = { page: 1, limit: 10 };
        if (p.city) query.city = p.city;
        if (p.area) query.practice_area = p.area;
        if (p.language) query.language = p.language;
        // "Video from anywhere in Spain" (DESIGN §13): a city preset also lists video and phone lawyers from elsewhere.
        if (p.remote) query.include_remote = true;
        const found = await directory.search(query);
        lawyers = found.lawyers;
        answer = found;
      }
      return sendCached(request, reply, key, p, answer, (ctx) => h(ListView, { ctx, lawyers, link: (id: string) => `/embed/lawyers/${id}?${carry(p)}`, remote: p.remote }));
    });

    /**
     * Holding a time from the frame. No cookie can carry a CSRF token into a third-party frame,
     * and none is needed: nothing here acts for a signed-in person. What remains is that only our
     * own frame posts here (Origin / Sec-Fetch-Site), like every site form.
     */
    app.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/embed/lawyers/:id/hold', { schema: { hide: true } }, async (request, reply) => {
      const fetchSite = request.headers['sec-fetch-site'];
      const from = request.headers.origin;
      if ((fetchSite !== undefined && fetchSite !== 'same-origin') || (from !== undefined && from !== siteOrigin)) throw new DomainError('forbidden', 'cross-site form');
      const p = widgetParams((request.query ?? {}) as Query);
      const key = await keyFor(request, p, { scope: 'lawyers:read' });
      const id = request.params.id;
      const body = request.body ?? {};
      const [date, start, end] = typeof body.slot === 'string' ? body.slot.split('|', 3) : [];
      if (!UUID.test(id) || typeof date !== 'string' || !DATE.test(date) || typeof start !== 'string' || !TIME.test(start) || typeof end !== 'string' || !TIME.test(end)) {
        throw new DomainError('invalid_request', 'malformed booking form');
      }
      const nonce = typeof body.nonce === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(body.nonce) ? body.nonce : null;
      const ip = clientIp(request);
      const caller = { kind: 'key' as const, ip, key };
      const outcome = await booking.initiate(
        caller,
        { lawyer_id: id, date, start_time: start, end_time: end, source: 'widget' },
        nonce ? `widget:${nonce}:${id.toLowerCase()}:${date}:${start}` : undefined,
        () => admit(key, ip, { scope: 'bookings:initiate', anonymousGroup: 'initiate' }),
      );
      if (outcome.status !== 201) return booker(request, reply, id, p, key, true, { week: date, day: date });
      const made = JSON.parse(outcome.body) as { booking_intent_id: string | null; confirmation_url: string };
      if (made.booking_intent_id === null) {
        return reply.code(303).redirect(`/embed/test-hold?${carry(p, { lawyer: id.toLowerCase(), date, start, end })}`);
      }
      const token = made.confirmation_url.slice(made.confirmation_url.lastIndexOf('/') + 1);
      return reply.code(303).redirect(`/embed/held/${token}?${carry(p)}`);
    });

    app.get<{ Params: { token: string } }>('/embed/held/:token', { schema: { hide: true } }, async (request, reply) => {
      const p = widgetParams((request.query ?? {}) as Query);
      const key = await keyFor(request, p, { scope: 'bookings:initiate' });
      const hold = await widget.hold(request.params.token);
      if (!hold) throw new DomainError('not_found', 'no such hold');
      const name = await directory.getProfile(hold.lawyerId, { fenced: false }).then((l) => l.name, () => null);
      const ctx = frameContext(request, p, key);
      const view = h(HeldView, {
        ctx,
        lawyerName: name,
        lawyerId: hold.lawyerId,
        intentId: hold.id,
        date: hold.date,
        startTime: hold.startTime,
        endTime: hold.endTime,
        status: hold.status,
        expiresAt: hold.expiresAt,
        secondsLeft: Math.max(0, Math.floor((Date.parse(hold.expiresAt) - clock.now().getTime()) / 1000)),
        minutes: Math.round(config.bookingIntentTtlSeconds / 60),
        confirmationUrl: `${config.siteUrl}/confirm/${request.params.token}?lang=${ctx.locale}`,
        statusUrl: `/embed/status/${request.params.token}`,
        again: request.url,
        another: `/embed/lawyers/${hold.lawyerId}?${carry(p)}`,
        test: false,
      });
      return send(reply, key, p, view);
    });

    app.get('/embed/test-hold', { schema: { hide: true } }, async (request, reply) => {
      const q = (request.query ?? {}) as Query;
      const p = widgetParams(q);
      const key = await keyFor(request, p, { scope: 'bookings:initiate' });
      const [lawyer, date, start, end] = [q.lawyer, q.date, q.start, q.end];
      if (typeof lawyer !== 'string' || !UUID.test(lawyer) || typeof date !== 'string' || !DATE.test(date) || typeof start !== 'string' || !TIME.test(start) || typeof end !== 'string' || !TIME.test(end)) {
        throw new DomainError('invalid_request', 'malformed test hold');
      }
      const name = await directory.getProfile(lawyer, { fenced: false }).then((l) => l.name, () => null);
      const view = h(HeldView, {
        ctx: frameContext(request, p, key),
        lawyerName: name,
        lawyerId: lawyer,
        intentId: null,
        date,
        startTime: start,
        endTime: end,
        status: 'pending',
        expiresAt: '',
        secondsLeft: 0,
        minutes: 0,
        confirmationUrl: null,
        statusUrl: null,
        again: request.url,
        another: `/embed/lawyers/${lawyer}?${carry(p)}`,
        test: true,
      });
      return send(reply, key, p, view);
    });

    /** Where a frame's hold stands, for the frame's own script (same origin; no CORS, no cookie). */
    app.get<{ Params: { token: string } }>('/embed/status/:token', { schema: { hide: true } }, async (request, reply) => {
      const hold = await widget.hold(request.params.token);
      reply.header('cache-control', 'no-store');
      if (!hold) return reply.code(404).type('application/json').send({ status: 'unknown' });
      return reply.type('application/json').send({ status: hold.status, expires_at: hold.expiresAt });
    });
  };
}
