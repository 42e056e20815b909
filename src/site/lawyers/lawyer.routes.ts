/**
 * The lawyer pages behind `profile_url` and `booking_url`, through the same domain services as
 * the API. Holding a time from the booking page is a widget booking intent: the same
 * BookingService, the same anonymous per-address limit as POST /bookings/initiate.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { h } from 'preact';
import type { AccessService } from '../../domain/access/access.service.ts';
import type { BookingService } from '../../domain/booking/booking.service.ts';
import type { DirectoryService } from '../../domain/directory/directory.service.ts';
import { reviewPages, type TrustService } from '../../domain/directory/trust.service.ts';
import { loadWeek } from './week-strip.ts';
import { DomainError } from '../../domain/errors.ts';
import type { SiteContext } from '../context.ts';
import { HoldLimitPage } from '../booking/hold-limit.page.tsx';
import { holdsCookie } from '../booking/holds-cookie.ts';
import { ANONYMOUS_RULES } from '../../domain/access/limits.ts';
import { BookPage } from './book.page.tsx';
import { ProfilePage } from './profile.page.tsx';
import type { PersonLanguagesService } from '../../domain/people/person-languages.service.ts';
import { languageMatch } from '../../domain/booking/purchase.service.ts';
import { MismatchNotice } from './language-match.tsx';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const TIME = /^\d{2}:\d{2}:\d{2}$/;

export interface LawyerAreaDeps {
  directory: DirectoryService;
  booking: BookingService;
  access: AccessService;
  trust: TrustService;
  siteUrl: string;
  /** The visitor's languages, for the mismatch notice (DESIGN.md §13). */
  people: PersonLanguagesService;
}

/** Hidden or unknown lawyers (and malformed ids) are the site's 404 page. */
async function orNotFound<T>(id: string, load: () => Promise<T>): Promise<T> {
  if (!UUID.test(id)) throw new DomainError('not_found', 'no such lawyer');
  return load();
}

/**
 * The page of reviews asked for: untrusted query text falls back to the first page, and a page
 * past the last (an old link, after reviews were hidden) shows the last one, never an empty list.
 */
function reviewsPage(raw: unknown, pages: number): number {
  const n = typeof raw === 'string' && /^[1-9][0-9]{0,5}$/.test(raw) ? Number(raw) : 1;
  return Math.min(n, pages);
}

/** The profile page's cache key: a new key when the profile, its trust facts or its bios/reviews changed. */
/** The booking page has no profile extras: one constant stands for them in its cache key. */
const BOOK_PAGE = {};
const profileKeys = new WeakMap<object, { trust: object | null; extras: object; key: object }>();
function profileKey(lawyer: object, trust: object | null, extras: object): object {
  const known = profileKeys.get(lawyer);
  if (known && known.trust === trust && known.extras === extras) return known.key;
  const key = {};
  profileKeys.set(lawyer, { trust, extras, key });
  return key;
}

export function lawyerArea({ directory, booking, access, trust: trustService, siteUrl, people }: LawyerAreaDeps) {
  const holds = holdsCookie(siteUrl, booking);
  /**
   * The mismatch notice for this visitor and lawyer, or null. Anonymous visitors' languages are the
   * site language, which the cached pages vary by; signed-in pages are never cached.
   */
  const languageNotice = async (ctx: SiteContext, lawyerId: string) => {
    const lawyer = await directory.getProfile(lawyerId, { fenced: false });
    const person = await people.forVisitor(ctx.user?.id ?? null, ctx.locale);
    if (!languageMatch(person, lawyer.languages).mismatch) return null;
    const citySlug = (await directory.reference()).resolveCity(lawyer.city) ?? null;
    return (c: SiteContext) => h(MismatchNotice, { ctx: c, person, lawyerLanguages: lawyer.languages, citySlug });
  };
  return async (site: FastifyInstance) => {
    site.get<{ Params: { id: string }; Querystring: { reviews?: string } }>('/lawyers/:id', { schema: { hide: true } }, async (request, reply) => {
      const lawyer = await orNotFound(request.params.id, () => directory.getProfile(request.params.id, { fenced: false }));
      const trust = (await trustService.forLawyers([lawyer.id])).get(lawyer.id);
      const pages = reviewPages(trust?.reviewCount ?? 0);
      const page = reviewsPage(request.query?.reviews, pages);
      const extras = await trustService.forProfile(lawyer.id, page);
      const paging = { page, pages, link: (n: number) => `/lawyers/${lawyer.id}${n > 1 ? `?reviews=${n}` : ''}#reviews` };
      const notice = await languageNotice(request.site, lawyer.id);
      return reply.cachedPage(profileKey(lawyer, trust ?? null, extras), (ctx) => h(ProfilePage, { ctx, lawyer, trust, extras, paging, languageNotice: notice?.(ctx) }));
    });

    /** The booking page of the week asked for (week-strip.ts loadWeek: untrusted query text falls back to defaults). */
    const times = async (id: string, query: { week?: unknown; day?: unknown; start_date?: unknown }, visitor: SiteContext) => {
      const { availability, strip, week, prevWeek, nextWeek } = await orNotFound(id, () => loadWeek((start) => directory.getAvailability(id, start ? { start_date: start } : {}), query));
      const mismatch = await languageNotice(visitor, availability.lawyer_id);
      // Her form of address words "the lawyer's time" (Arabic «بتوقيت المحامية»); the cached trust facts, no query when warm.
      const trust = (await trustService.forLawyers([availability.lawyer_id])).get(availability.lawyer_id.toLowerCase()) ?? null;
      const link = (w: string, d?: string) => `/lawyers/${availability.lawyer_id}/book?week=${w}${d ? `&day=${d}` : ''}`;
      const page = (ctx: SiteContext, nonce: string, notice: 'taken' | null) =>
        h(BookPage, {
          ctx,
          availability,
          strip,
          dayLink: (d: string) => link(week, d),
          nonce,
          notice,
          prev: prevWeek ? link(prevWeek) : null,
          next: nextWeek ? link(nextWeek) : null,
          languageNotice: mismatch?.(ctx),
          formOfAddress: trust?.formOfAddress ?? null,
        });
      // The page's cache key changes with the week's availability and with her trust facts (a new form of address shows at once).
      return { availability, page, key: profileKey(availability, trust, BOOK_PAGE) };
    };

    site.get<{ Params: { id: string }; Querystring: { week?: string; day?: string; start_date?: string } }>('/lawyers/:id/book', { schema: { hide: true } }, async (request, reply) => {
      const { key, page } = await times(request.params.id, request.query ?? {}, request.site);
      // Each rendering gets its own nonce (the hold's Idempotency-Key) and CSRF token.
      return reply.cachedPage(key, (ctx, once) => page(ctx, once, null));
    });

    site.post<{ Params: { id: string }; Body: Record<string, unknown> }>('/lawyers/:id/book', { schema: { hide: true } }, async (request, reply) => {
      const id = request.params.id;
      const body = request.body ?? {};
      // The chosen time's button sends `slot` = `date|start|end`.
      const [date, start, end] = typeof body.slot === 'string' ? body.slot.split('|', 3) : [];
      const nonce = body.nonce;
      if (!UUID.test(id) || typeof date !== 'string' || !DATE.test(date) || typeof start !== 'string' || !TIME.test(start) || typeof end !== 'string' || !TIME.test(end)) {
        throw new DomainError('invalid_request', 'malformed booking form');
      }
      const caller = { kind: 'anonymous' as const, ip: request.ip };
      // One nonce per rendered page, which may list many times (the free-times page, the search
      // results): the key names the time too, so a double tap holds once, and choosing another
      // time after going back is a new hold rather than a reused key.
      const idempotencyKey = typeof nonce === 'string' && /^[A-Za-z0-9_-]{8,64}$/.test(nonce) ? `site:${nonce}:${id.toLowerCase()}:${date}:${start}` : undefined;
      // The hourly limit counts new holds only: another time with a lawyer this person already
      // holds one with replaces it (BookingService.holdOnSite; docs/booking-intents.md).
      const admitNew = async () => {
        await access.admit(caller, { scope: 'bookings:initiate', anonymousGroup: 'initiate' });
      };
      const outcome = await booking.holdOnSite(request.ip, { lawyer_id: id, date, start_time: start, end_time: end, source: 'widget' }, idempotencyKey, holds.holder(request), admitNew);
      if (outcome.kind === 'held') {
        await holds.remember(request, reply, { add: outcome.token });
        return reply.code(303).redirect(`/confirm/${outcome.token}${outcome.replaced ? '?replaced=1' : ''}`);
      }
      if (outcome.kind === 'limited') {
        await holds.remember(request, reply, {});
        reply.header('retry-after', String(outcome.retryAfterSeconds));
        return reply.page(h(HoldLimitPage, { ctx: request.site, limit: ANONYMOUS_RULES.initiate[0]!.limit, holds: outcome.holds, retryAfterSeconds: outcome.retryAfterSeconds }), 429);
      }
      // Their hold with this lawyer stays when the new time was taken: back to it, saying so.
      if (outcome.kept) return reply.code(303).redirect(`/confirm/${outcome.kept.confirmation_token}?taken=1`);
      // Taken meanwhile (or no longer bookable): the same page, fresh, saying so.
      const { page } = await times(id, { week: date, day: date }, request.site);
      return reply.page(page(request.site, randomBytes(12).toString('base64url'), 'taken'), 409);
    });
  };
}
